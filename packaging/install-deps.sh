#!/usr/bin/env bash
# Installs every build and test dependency of airlock from Debian 12's packages.
# Idempotent: apt-get install skips what is already there, so running it twice is safe.
set -euo pipefail

packages=(
  build-essential cmake ninja-build ccache pkg-config git
  libboost1.81-dev libboost-json1.81-dev libboost-filesystem1.81-dev
  libspdlog-dev libfmt-dev
  libtomlplusplus-dev
  libcli11-dev
  libvalijson-dev json-schema-test-suite
  libre2-dev
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
