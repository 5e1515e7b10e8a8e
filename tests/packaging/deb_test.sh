#!/usr/bin/env bash
# The .deb packages as a user gets them (see CMakeLists.txt here for the
# environment it is run with): CPack builds airlock and airlock-dev from this
# build tree; their control data and contents are checked; both are unpacked
# into a staging root; the three out-of-tree examples (C++ vendor pack, C
# with make + pkg-config, Rust with cargo) are built against that root alone;
# and the staged server loads all three and answers a tools/call of each over
# stdio. Every failure names what was wrong; the temporary tree is removed.
set -euo pipefail

fail() {
  echo "deb_test: $*" >&2
  exit 1
}
skip() {
  echo "deb_test: SKIPPED: $*"
  exit 77
}

for var in AIRLOCK_BUILD_DIR AIRLOCK_SOURCE_DIR AIRLOCK_VERSION AIRLOCK_BINDIR AIRLOCK_LIBDIR AIRLOCK_INCLUDEDIR \
  AIRLOCK_PLUGINDIR AIRLOCK_CMAKE AIRLOCK_CPACK AIRLOCK_GENERATOR AIRLOCK_C_COMPILER AIRLOCK_CXX_COMPILER \
  PKG_CONFIG; do
  [ -n "${!var:-}" ] || fail "$var is not set (run this through ctest)"
done
# What building and checking a .deb needs (packaging/install-deps.sh installs
# all of it); without them the packages cannot be made here at all.
for tool in dpkg-deb dpkg-shlibdeps make python3 minisign; do
  command -v "$tool" >/dev/null || skip "$tool is not installed (packaging/install-deps.sh installs it)"
done
# Debian's own Rust toolchain when it is there (rustc 1.63 on Debian 12, the
# oldest the Rust example promises to build with), even if a newer one from
# rustup comes first on PATH; else whatever cargo PATH has.
cargo=${AIRLOCK_CARGO:-}
rustc=${AIRLOCK_RUSTC:-}
if [ -z "$cargo" ] && [ -x /usr/bin/cargo ] && [ -x /usr/bin/rustc ]; then
  cargo=/usr/bin/cargo
  rustc=/usr/bin/rustc
fi
cargo=${cargo:-$(command -v cargo || true)}
rustc=${rustc:-$(command -v rustc || true)}
if [ -z "$cargo" ] || [ -z "$rustc" ]; then
  skip "cargo and rustc are not installed (packaging/install-deps.sh installs them)"
fi

work=$(mktemp -d "${TMPDIR:-/tmp}/airlock-deb.XXXXXX")
trap 'rm -rf "$work"' EXIT
root=$work/root
started=$SECONDS

# Every command runs within what is left of a budget under ctest's TIMEOUT,
# so that a hang fails here, where the temporary tree is removed.
bounded() {
  local left=$((400 - (SECONDS - started)))
  [ "$left" -gt 0 ] || fail "out of time before: $*"
  timeout --kill-after=5 "$left" "$@"
}

# A command's output is shown only when it fails.
quietly() {
  local log=$work/last.log
  if ! bounded "$@" >"$log" 2>&1; then
    cat "$log" >&2
    fail "failed: $*"
  fi
}

arch=$(dpkg --print-architecture)
runtime_deb=$work/debs/airlock_${AIRLOCK_VERSION}_${arch}.deb
dev_deb=$work/debs/airlock-dev_${AIRLOCK_VERSION}_${arch}.deb

echo "-- cpack: building the packages"
quietly "$AIRLOCK_CPACK" --config "$AIRLOCK_BUILD_DIR/CPackConfig.cmake" -G DEB -B "$work/debs"
for deb in "$runtime_deb" "$dev_deb"; do
  [ -f "$deb" ] || fail "cpack made no ${deb##*/} (made: $(cd "$work/debs" && echo *.deb))"
done

echo "-- checking the control data"
field() { dpkg-deb -f "$1" "$2"; }
# One Depends entry (a name, maybe a version) from a comma-separated list.
has_dependency() {
  local list=$1 wanted=$2
  tr ',' '\n' <<<"$list" | sed 's/^ *//; s/ *$//' | grep -qxF -- "$wanted" ||
    tr ',' '\n' <<<"$list" | sed 's/^ *//; s/ (.*//' | grep -qxF -- "$wanted"
}
for deb_package in "$runtime_deb:airlock" "$dev_deb:airlock-dev"; do
  deb=${deb_package%%:*}
  package=${deb_package#*:}
  [ "$(field "$deb" Package)" = "$package" ] || fail "${deb##*/} is package '$(field "$deb" Package)', not $package"
  [ "$(field "$deb" Version)" = "$AIRLOCK_VERSION" ] ||
    fail "${deb##*/} has version '$(field "$deb" Version)', not project(VERSION) $AIRLOCK_VERSION"
  [ "$(field "$deb" Architecture)" = "$arch" ] || fail "${deb##*/} is for '$(field "$deb" Architecture)', not $arch"
done

runtime_depends=$(field "$runtime_deb" Depends)
# Computed by dpkg-shlibdeps from what the server, its modules and plugins link
# (libsodium and libarchive: packs and their signatures), and adduser for
# postinst.
for dependency in adduser libc6 libstdc++6 libcurl4 libpq5 libcjose0 libre2-9 libssl3 libspdlog1.10-fmt9 libfmt9 \
  libtomlplusplus3 libboost-json1.81.0 libsodium23 libarchive13; do
  has_dependency "$runtime_depends" "$dependency" || fail "airlock does not depend on $dependency: Depends: $runtime_depends"
done
dev_depends=$(field "$dev_deb" Depends)
for dependency in "airlock (= $AIRLOCK_VERSION)" libboost-json1.81-dev libre2-9 libspdlog1.10-fmt9 \
  libtomlplusplus3; do
  has_dependency "$dev_depends" "$dependency" || fail "airlock-dev does not depend on $dependency: Depends: $dev_depends"
done
# libcurl, libpq, libcrypto and cjose are the server's modules'
# (lib/airlock/modules), which the harness library loads from the airlock
# package, not links.
for dependency in libcurl4 libpq5 libssl3 libcjose0; do
  ! has_dependency "$dev_depends" "$dependency" || fail "airlock-dev depends on $dependency, which only the server's modules link"
done
has_dependency "$(field "$dev_deb" Recommends)" libgtest-dev ||
  fail "airlock-dev does not recommend libgtest-dev: Recommends: $(field "$dev_deb" Recommends)"

mkdir -p "$work/control"
dpkg-deb -e "$runtime_deb" "$work/control"
[ -f "$work/control/conffiles" ] || fail "airlock has no conffiles list"
[ "$(cat "$work/control/conffiles")" = "$(printf '/etc/airlock/airlock.toml\n/etc/logrotate.d/airlock')" ] ||
  fail "airlock's conffiles list is '$(cat "$work/control/conffiles")', not /etc/airlock/airlock.toml and /etc/logrotate.d/airlock"
for script in postinst prerm postrm; do
  [ -x "$work/control/$script" ] || fail "airlock has no executable $script"
  sh -n "$work/control/$script" || fail "airlock's $script is not valid sh"
  grep -qx 'set -e' "$work/control/$script" || fail "airlock's $script does not run with set -e"
done
grep -q 'adduser --system --group --no-create-home --home /var/lib/airlock' "$work/control/postinst" ||
  fail "airlock's postinst does not create the system user airlock"

echo "-- checking the contents"
contents() { dpkg-deb -c "$1" | awk '{ print $6 }' | sed 's|^\./||; s|/$||'; }
contents "$runtime_deb" >"$work/runtime.list"
contents "$dev_deb" >"$work/dev.list"
plugindir=usr/$AIRLOCK_PLUGINDIR
[ "$plugindir" = usr/lib/airlock/plugins ] ||
  fail "the plugin directory is /$plugindir, but the shipped airlock.toml names /usr/lib/airlock/plugins"
for file in "usr/$AIRLOCK_BINDIR/airlock" "usr/$AIRLOCK_BINDIR/airlock-pack" etc/airlock/airlock.toml etc/logrotate.d/airlock lib/systemd/system/airlock.service \
  usr/share/doc/airlock/README.md "$plugindir/airlock_identity.so" "$plugindir/airlock_strip_control.so" \
  "$plugindir/airlock_inert_urls.so" "$plugindir/airlock_escape_markup.so" "$plugindir/airlock_redact_secrets.so" \
  "$plugindir/airlock_truncate_strings.so" "$plugindir/airlock_fetch.so" \
  usr/lib/airlock/modules/airlock-egress-curl.so usr/lib/airlock/modules/airlock-tasks-postgres.so \
  usr/lib/airlock/modules/airlock-crypto.so; do
  grep -qxF "$file" "$work/runtime.list" || fail "airlock does not ship /$file"
done
strays=$(grep -E '(^|/)(example_|check_my|test)' "$work/runtime.list" || true)
[ -z "$strays" ] || fail "airlock ships examples or tests: $strays"
for file in "usr/$AIRLOCK_INCLUDEDIR/airlock/airlock.h" "usr/$AIRLOCK_INCLUDEDIR/airlock/airlock.hpp" \
  "usr/$AIRLOCK_INCLUDEDIR/airlock/sdk/core.hpp" "usr/$AIRLOCK_INCLUDEDIR/airlock/sdk/plugin.hpp" \
  "usr/$AIRLOCK_INCLUDEDIR/airlock/testing.hpp" "usr/$AIRLOCK_LIBDIR/cmake/airlock/airlockConfig.cmake" \
  "usr/$AIRLOCK_LIBDIR/cmake/airlock/AirlockPlugin.cmake" "usr/$AIRLOCK_LIBDIR/pkgconfig/airlock.pc" \
  "usr/$AIRLOCK_LIBDIR/libairlock-testing.so" "usr/$AIRLOCK_LIBDIR/libairlock-testing.so.0"; do
  grep -qxF "$file" "$work/dev.list" || fail "airlock-dev does not ship /$file"
done
# dpkg refuses to install two packages that ship the same file.
files() { dpkg-deb -c "$1" | awk '$1 !~ /^d/ { print $6 }' | sort; }
shared=$(comm -12 <(files "$runtime_deb") <(files "$dev_deb"))
[ -z "$shared" ] || fail "both packages ship: $shared"

echo "-- unpacking both into $root"
dpkg-deb -x "$runtime_deb" "$root"
dpkg-deb -x "$dev_deb" "$root"
airlock=$root/usr/$AIRLOCK_BINDIR/airlock
[ -x "$airlock" ] || fail "the staged /usr/$AIRLOCK_BINDIR/airlock is not executable"

# The server maps only what serving needs: the archive library (and the
# libxml2 and ICU it pulls in, about 3 MiB resident) belongs to airlock-pack.
if readelf -dW "$root/usr/$AIRLOCK_BINDIR/airlock" | grep NEEDED | grep -q libarchive; then
  fail "/usr/$AIRLOCK_BINDIR/airlock links libarchive, which only airlock-pack needs"
fi
# libcurl and libpq (and the TLS, Kerberos and LDAP libraries behind them,
# about 4 MiB resident) are modules, loaded on the first fetch and only for a
# postgresql:// task store; libcrypto and cjose (1.5 MiB) on the first
# digest or access token.
for library in libcurl libpq libcrypto libcjose; do
  if readelf -dW "$root/usr/$AIRLOCK_BINDIR/airlock" | grep NEEDED | grep -q "$library"; then
    fail "/usr/$AIRLOCK_BINDIR/airlock links $library, which it should load as a module on first use"
  fi
done

echo "-- the shipped configuration"
conf=$root/etc/airlock/airlock.toml
grep -qE '^listen = "127\.0\.0\.1:[0-9]+"' "$conf" || fail "/etc/airlock/airlock.toml does not listen on loopback"
grep -qx 'require_signed = true' "$conf" || fail "/etc/airlock/airlock.toml does not require signed packs"
# Checked by the staged server itself, its absolute paths moved into the root.
mkdir -p "$root/var/lib/airlock/packs" "$root/var/log/airlock"
sed "s|\"/usr/lib/airlock/|\"$root/usr/lib/airlock/|g; s|\"/var/lib/airlock/|\"$root/var/lib/airlock/|g;
     s|\"/var/log/airlock/|\"$root/var/log/airlock/|g; s|\"/etc/airlock/|\"$root/etc/airlock/|g" "$conf" >"$work/system.toml"
# What postinst does: the key that signs the audit trail's checkpoints.
quietly "$airlock" audit keygen "$root/etc/airlock/audit.key"
if ! bounded "$airlock" list -c "$work/system.toml" >"$work/list.log" 2>&1; then
  cat "$work/list.log" >&2
  fail "airlock list -c /etc/airlock/airlock.toml fails"
fi
for sanitizer in airlock.strip-control airlock.inert-urls airlock.escape-markup airlock.redact-secrets; do
  grep -qF "$sanitizer" "$work/list.log" || fail "airlock list on the shipped config does not show $sanitizer"
done
# Its pin file is where the service may write (StateDirectory=airlock).
grep -qx 'file = "/var/lib/airlock/pins.json"' "$conf" || fail "/etc/airlock/airlock.toml keeps no pins in /var/lib/airlock"
quietly "$airlock" pin -c "$work/system.toml"
[ -s "$root/var/lib/airlock/pins.json" ] || fail "airlock pin on the shipped config wrote no /var/lib/airlock/pins.json"
# The shipped config keeps an audit trail, and `airlock pin` recorded what it pinned there.
grep -q '"event_code":"pin_recorded"' "$root/var/log/airlock/audit.log" ||
  fail "airlock pin on the shipped config recorded no pin_recorded in /var/log/airlock/audit.log"
quietly "$airlock" audit verify "$root/var/log/airlock/audit.log" --key "$root/etc/airlock/audit.key.pub"

echo "-- the systemd unit"
unit=$root/lib/systemd/system/airlock.service
for setting in 'User=airlock' 'StateDirectory=airlock' 'NoNewPrivileges=yes' 'ProtectSystem=strict' \
  'ProtectHome=yes' 'PrivateTmp=yes' 'PrivateDevices=yes' 'ProtectKernelTunables=yes' 'ProtectKernelModules=yes' \
  'ProtectKernelLogs=yes' 'ProtectControlGroups=yes' 'RestrictAddressFamilies=AF_INET AF_INET6 AF_UNIX' \
  'RestrictNamespaces=user net' 'LockPersonality=yes' 'MemoryDenyWriteExecute=yes' \
  'SystemCallFilter=@system-service' 'CapabilityBoundingSet=' 'LogsDirectory=airlock' \
  'SystemCallFilter=seccomp landlock_create_ruleset landlock_add_rule landlock_restrict_self' \
  'ExecStart=/usr/bin/airlock serve -c /etc/airlock/airlock.toml'; do
  grep -qxF "$setting" "$unit" || fail "airlock.service lacks '$setting'"
done
if command -v systemd-analyze >/dev/null; then
  # verify insists that ExecStart exists, so it reads a copy that names the
  # staged binary; any message at all (an unknown key, a bad value) fails.
  mkdir -p "$work/unit"
  sed "s|^ExecStart=/usr/bin/airlock|ExecStart=$airlock|" "$unit" >"$work/unit/airlock.service"
  bounded systemd-analyze verify "$work/unit/airlock.service" >"$work/verify.log" 2>&1 ||
    { cat "$work/verify.log" >&2; fail "systemd-analyze verify refuses airlock.service"; }
  [ ! -s "$work/verify.log" ] || { cat "$work/verify.log" >&2; fail "systemd-analyze verify has remarks on airlock.service"; }
  exposure=$(bounded systemd-analyze security --offline=yes "$work/unit/airlock.service" 2>&1 |
    sed -n 's/.*Overall exposure level for airlock.service: \([0-9.]*\).*/\1/p')
  [ -n "$exposure" ] || fail "systemd-analyze security gave no exposure level for airlock.service"
  awk -v e="$exposure" 'BEGIN { exit !(e <= 2.0) }' ||
    fail "airlock.service's exposure level is $exposure; its hardening keeps it at 2.0 or less"
  echo "   systemd-analyze verify: clean; exposure level $exposure"
else
  echo "   systemd-analyze is not installed: the unit's syntax is not verified"
fi

echo "-- building examples/vendor-pack against the staged root"
vendor=$work/vendor-pack
configure=(
  "$AIRLOCK_CMAKE" -S "$AIRLOCK_SOURCE_DIR/examples/vendor-pack" -B "$vendor" -G "$AIRLOCK_GENERATOR"
  "-DCMAKE_PREFIX_PATH=$root/usr"
  -DCMAKE_FIND_USE_PACKAGE_REGISTRY=OFF
  -DCMAKE_FIND_USE_SYSTEM_PACKAGE_REGISTRY=OFF
  "-DCMAKE_C_COMPILER=$AIRLOCK_C_COMPILER"
  "-DCMAKE_CXX_COMPILER=$AIRLOCK_CXX_COMPILER"
  -DCMAKE_BUILD_TYPE=Release
)
[ -z "${AIRLOCK_MAKE_PROGRAM:-}" ] || configure+=("-DCMAKE_MAKE_PROGRAM=$AIRLOCK_MAKE_PROGRAM")
quietly "${configure[@]}"
found_at=$(sed -n 's/^airlock_DIR:PATH=//p' "$vendor/CMakeCache.txt")
[ "$found_at" = "$root/usr/$AIRLOCK_LIBDIR/cmake/airlock" ] ||
  fail "find_package(airlock) found '$found_at', not the staged package at $root/usr/$AIRLOCK_LIBDIR/cmake/airlock"
quietly "$AIRLOCK_CMAKE" --build "$vendor" --parallel 2
pack_dir=$vendor/pack
for file in acme_tools.so pack.toml; do
  [ -f "$pack_dir/$file" ] || fail "the vendor pack's build has no $file in its pack directory $pack_dir"
done

echo "-- building examples/c-plugin with make and pkg-config against the staged root"
# PKG_CONFIG_LIBDIR, not _PATH: the system's .pc files are not consulted.
quietly env PKG_CONFIG_LIBDIR="$root/usr/$AIRLOCK_LIBDIR/pkgconfig" PKG_CONFIG_PATH= PKG_CONFIG="$PKG_CONFIG" \
  CC="$AIRLOCK_C_COMPILER" make -C "$AIRLOCK_SOURCE_DIR/examples/c-plugin" BUILD="$work/c-plugin"
grep -q -- "-I$root/" "$work/last.log" || fail "make did not compile with the staged root's include directory"

echo "-- building examples/rust-plugin with cargo ($("$rustc" --version))"
for cargo_command in build test; do
  quietly env CARGO_TARGET_DIR="$work/rust-target" RUSTC="$rustc" "$cargo" "$cargo_command" --offline --locked \
    --release --manifest-path "$AIRLOCK_SOURCE_DIR/examples/rust-plugin/Cargo.toml"
done


echo "-- the vendor pack: built, signed, verified, installed; unsigned and tampered ones refused"
# The vendor's key pair (no password: -W), its public half where an operator
# puts vendor keys.
quietly minisign -G -W -p "$work/acme.pub" -s "$work/acme.key"
mkdir -p "$root/etc/airlock/keys"
cp "$work/acme.pub" "$root/etc/airlock/keys/acme.pub"
key=$root/etc/airlock/keys/acme.pub
quietly "$airlock" pack build "$pack_dir" -o "$work/acme-tools.tar.gz" --sign "$work/acme.key"
quietly "$airlock" pack verify "$work/acme-tools.tar.gz" --key "$key" --require-signed
grep -q 'signature: verified' "$work/last.log" || fail "airlock pack verify does not report the signature verified"
for tool in acme.text-stats acme.roman; do
  grep -qF "$tool" "$work/last.log" || fail "airlock pack verify does not list $tool in the pack"
done
packs=$root/var/lib/airlock/packs
quietly "$airlock" pack install "$work/acme-tools.tar.gz" --dir "$packs" --key "$key" --require-signed
[ -f "$packs/acme-tools/acme_tools.so" ] || fail "airlock pack install put no acme-tools/acme_tools.so in $packs"
# Refused, each naming why: a pack with no signature...
quietly "$airlock" pack build "$pack_dir" -o "$work/unsigned.tar.gz"
if bounded "$airlock" pack verify "$work/unsigned.tar.gz" --key "$key" --require-signed >"$work/last.log" 2>&1; then
  fail "airlock pack verify --require-signed accepts an unsigned pack"
fi
grep -q 'not signed' "$work/last.log" || { cat "$work/last.log" >&2; fail "an unsigned pack is refused without saying it is not signed"; }
if bounded "$airlock" pack install "$work/unsigned.tar.gz" --dir "$work/unsigned-packs" --key "$key" --require-signed \
  >"$work/last.log" 2>&1 || [ -e "$work/unsigned-packs/acme-tools" ]; then
  fail "airlock pack install --require-signed installs an unsigned pack"
fi


echo "-- the C and Rust plugins as signed packs, from their own pack.toml"
declare -A objects=([c-plugin]=$work/c-plugin/example_c_rot13.so [rust-plugin]=$work/rust-target/release/libexample_rust_base64.so)
for example in c-plugin rust-plugin; do
  source_dir=$work/$example-pack
  mkdir -p "$source_dir"
  cp "$AIRLOCK_SOURCE_DIR/examples/$example/pack.toml" "${objects[$example]}" "$source_dir/"
  quietly "$airlock" pack build "$source_dir" -o "$work/$example.tar.gz" --sign "$work/acme.key"
  quietly "$airlock" pack install "$work/$example.tar.gz" --dir "$packs" --key "$key" --require-signed
done
for pack in example-c-rot13 example-rust-base64; do
  [ -f "$packs/$pack/pack.toml" ] || fail "airlock pack install put no $pack/pack.toml in $packs"
done

echo "-- checking every plugin can load under MemoryDenyWriteExecute"
# The unit's MemoryDenyWriteExecute=yes refuses a plugin that needs text
# relocations or an executable stack (see the comment in airlock.service).
shopt -s nullglob
for plugin in "$packs"/*/*.so "$root/$plugindir"/*.so; do
  name=${plugin#"$work"/}
  ! readelf -dW "$plugin" | grep -q TEXTREL || fail "$name has text relocations"
  stack=$(readelf -lW "$plugin" | awk '$1 == "GNU_STACK" { print $7 }')
  [ "$stack" = RW ] || fail "$name asks for a '$stack' stack, not RW (executable stack or none declared)"
  exports=$(nm -D --defined-only "$plugin" | awk '{ print $3 }' | sort | tr '\n' ' ')
  [ "$exports" = "airlock_plugin_abi_version airlock_plugin_init " ] ||
    fail "$name exports '$exports', not exactly the two entry points"
done

echo "-- the staged server loads all three and answers each over stdio"
# As the shipped config has it: only signed packs load, and the package's
# own directory is the one allowed to hold loose plugins.
cat >"$work/airlock.toml" <<TOML
[server]
name = "deb-test"
log_level = "warn"

[plugins]
dirs = ["$root/$plugindir", "$packs"]
on_error = "fail"

[trust]
require_signed = true
unsigned_dirs = ["$root/$plugindir"]
keys = ["$key"]

[chains.default]
steps = ["airlock.strip-control"]
TOML
quietly "$airlock" list -c "$work/airlock.toml"
for tool in acme.text-stats acme.roman example.c-rot13 example.rust-base64; do
  grep -qF "$tool" "$work/last.log" || fail "the staged airlock does not list $tool"
done
signed=$(grep -c 'signed by' "$work/last.log" || true)
[ "$signed" -eq 3 ] || { cat "$work/last.log" >&2; fail "airlock list shows $signed plugins signed, not the 3 packs"; }
bounded python3 "$(dirname "$0")/call_examples.py" "$airlock" "$work/airlock.toml" ||
  fail "the staged airlock did not answer every example tool as expected (above)"

echo "-- a byte changed in the installed pack's object: the server refuses to start"
python3 - "$packs/acme-tools/acme_tools.so" <<'PY'
import sys
path = sys.argv[1]
data = bytearray(open(path, "rb").read())
data[len(data) // 2] ^= 0x01
open(path, "wb").write(data)
PY
if bounded "$airlock" list -c "$work/airlock.toml" >"$work/last.log" 2>&1; then
  fail "the staged airlock loads a pack whose object no longer matches its signed manifest"
fi
if ! grep -qF "$packs/acme-tools/acme_tools.so" "$work/last.log" || ! grep -q 'SHA-256' "$work/last.log"; then
  cat "$work/last.log" >&2
  fail "the refusal of the tampered object does not name the file and its digest"
fi

echo "-- the packages work ($((SECONDS - started)) s)"
