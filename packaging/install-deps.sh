#!/usr/bin/env bash
# Installs every build and test dependency of airlock from Debian 12's packages.
# Idempotent: apt-get install skips what is already there, so running it twice is safe.
set -euo pipefail

packages=(
  build-essential cmake ninja-build ccache pkg-config git
  clang-14 libclang-rt-14-dev  # the asan preset: ASan + UBSan + libFuzzer
  libboost1.81-dev libboost-json1.81-dev libboost-filesystem1.81-dev
  libspdlog-dev libfmt-dev
  libtomlplusplus-dev
  libcli11-dev
  libvalijson-dev json-schema-test-suite
  libre2-dev
  libssl-dev
  libcurl4-openssl-dev
  libsodium-dev libarchive-dev minisign
  libcjose-dev libjansson-dev  # OAuth access tokens: JWK import and JWS verification; cjose.pc requires jansson
  libseccomp-dev
  libsqlite3-dev libpq-dev postgresql nginx-light
  cargo rustc dpkg-dev
  libgtest-dev libgmock-dev libbenchmark-dev
  python3
)

if [ "$(id -u)" -ne 0 ]; then
  echo "install-deps.sh: needs root (apt-get install); try: sudo $0" >&2
  exit 1
fi

export DEBIAN_FRONTEND=noninteractive
apt-get update -qq
apt-get install -y -qq --no-install-recommends "${packages[@]}" >/dev/null
echo "install-deps.sh: ${#packages[@]} packages present"

# The interop tests' npm packages (tests/interop/package-lock.json): the
# official MCP TypeScript SDK, the conformance suite, and the Node 22 its CLI
# needs. Debian 12's own node (18) runs the SDK client.
if ! command -v npm >/dev/null 2>&1; then
  apt-get install -y -qq --no-install-recommends nodejs npm >/dev/null
fi
interop=$(cd "$(dirname "$0")/../tests/interop" && pwd)
stamp=$interop/node_modules/.airlock-lock.sha256
lock_sum=$(sha256sum "$interop/package-lock.json" | cut -d' ' -f1)
if [ -f "$stamp" ] && [ "$(cat "$stamp")" = "$lock_sum" ]; then
  echo "install-deps.sh: tests/interop/node_modules matches package-lock.json"
else
  # As the user who ran sudo, so the checkout does not gain root-owned files.
  as_user=()
  if [ -n "${SUDO_USER:-}" ] && [ "$SUDO_USER" != root ]; then as_user=(sudo -u "$SUDO_USER" --); fi
  (cd "$interop" && "${as_user[@]}" npm ci --no-audit --no-fund --loglevel=error)
  echo "$lock_sum" | "${as_user[@]}" tee "$stamp" >/dev/null
  echo "install-deps.sh: npm ci in tests/interop done"
fi
