#!/usr/bin/env bash
# The installed SDK used from the install alone (see CMakeLists.txt here for
# the environment it is run with): install into a fresh prefix, check the
# layout, build and run a vendor's GoogleTest suite out of tree through
# find_package(airlock), and build examples/c-plugin with make through
# pkg-config, which the installed server loads, then serves with the plugin
# in the worker installed beside it. Every failure names what was wrong.
set -euo pipefail

fail() {
  echo "installed_sdk_test: $*" >&2
  exit 1
}

for var in AIRLOCK_BUILD_DIR AIRLOCK_EXAMPLE_DIR AIRLOCK_C_PLUGIN_DIR AIRLOCK_VERSION AIRLOCK_VERSION_MAJOR \
  AIRLOCK_BINDIR AIRLOCK_LIBEXECDIR AIRLOCK_LIBDIR AIRLOCK_PLUGINDIR AIRLOCK_INCLUDEDIR AIRLOCK_CMAKE AIRLOCK_GENERATOR AIRLOCK_C_COMPILER \
  AIRLOCK_CXX_COMPILER PKG_CONFIG; do
  [ -n "${!var:-}" ] || fail "$var is not set (run this through ctest)"
done

work=$(mktemp -d "${TMPDIR:-/tmp}/airlock-installed-sdk.XXXXXX")
trap 'rm -rf "$work"' EXIT
prefix=$work/prefix
libdir=$prefix/$AIRLOCK_LIBDIR
started=$SECONDS

# Every command runs within what is left of a budget under ctest's TIMEOUT
# (300 s), so that a hang fails here, where the temporary tree is removed.
bounded() {
  local left=$((240 - (SECONDS - started)))
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

echo "-- installing $AIRLOCK_BUILD_DIR into $prefix"
for component in runtime dev; do
  quietly "$AIRLOCK_CMAKE" --install "$AIRLOCK_BUILD_DIR" --prefix "$prefix" --component "$component"
done

echo "-- checking the layout"
testing_lib=$libdir/libairlock-testing.so
for file in \
  "$AIRLOCK_BINDIR/airlock" \
  "$AIRLOCK_INCLUDEDIR/airlock/airlock.h" \
  "$AIRLOCK_INCLUDEDIR/airlock/airlock.hpp" \
  "$AIRLOCK_INCLUDEDIR/airlock/sdk/core.hpp" \
  "$AIRLOCK_INCLUDEDIR/airlock/sdk/plugin.hpp" \
  "$AIRLOCK_INCLUDEDIR/airlock/testing.hpp" \
  "$AIRLOCK_LIBDIR/libairlock-testing.so" \
  "$AIRLOCK_LIBDIR/libairlock-testing.so.$AIRLOCK_VERSION_MAJOR" \
  "$AIRLOCK_LIBDIR/libairlock-testing.so.$AIRLOCK_VERSION" \
  "$AIRLOCK_LIBDIR/cmake/airlock/airlockConfig.cmake" \
  "$AIRLOCK_LIBDIR/cmake/airlock/airlockConfigVersion.cmake" \
  "$AIRLOCK_LIBDIR/cmake/airlock/airlockTargets.cmake" \
  "$AIRLOCK_LIBDIR/cmake/airlock/airlockTestingTargets.cmake" \
  "$AIRLOCK_LIBDIR/cmake/airlock/AirlockPlugin.cmake" \
  "$AIRLOCK_LIBDIR/pkgconfig/airlock.pc" \
  "$AIRLOCK_PLUGINDIR/airlock_identity.so"; do
  [ -f "$prefix/$file" ] || fail "the install has no $file"
done
[ -x "$prefix/$AIRLOCK_BINDIR/airlock" ] || fail "$AIRLOCK_BINDIR/airlock is not executable"

# Relocatable: nothing installed carries a search path into the build tree.
shopt -s nullglob
plugins=("$prefix/$AIRLOCK_PLUGINDIR"/*.so)
for file in "$prefix/$AIRLOCK_BINDIR/airlock" "$testing_lib" "${plugins[@]}"; do
  paths=$(readelf -d "$file" | grep -E '\((RPATH|RUNPATH)\)' || true)
  [ -z "$paths" ] || fail "${file#"$prefix"/} has a search path: $paths"
done
for plugin in "${plugins[@]}"; do
  grep -qw airlock_plugin_init <<<"$(nm -D --defined-only "$plugin")" ||
    fail "${plugin#"$prefix"/} is in the plugin directory but exports no airlock_plugin_init"
done

soname=$(readelf -d "$testing_lib" | sed -n 's/.*(SONAME).*\[\(.*\)\]/\1/p')
[ "$soname" = "libairlock-testing.so.$AIRLOCK_VERSION_MAJOR" ] ||
  fail "libairlock-testing.so has SONAME '$soname', not libairlock-testing.so.$AIRLOCK_VERSION_MAJOR"

# Exports: the airlock::testing API and nothing else (no engine, no Boost,
# spdlog or RE2 inline code).
exports=$(nm -D --defined-only "$testing_lib" | c++filt | cut -d' ' -f3-)
for api in 'airlock::testing::contract_cases(' 'airlock::testing::contract_case_name' 'airlock::testing::PrintTo('; do
  grep -qF "$api" <<<"$exports" || fail "libairlock-testing.so does not export $api"
done
strays=$(grep -vF 'airlock::testing::' <<<"$exports" || true)
[ -z "$strays" ] || fail "libairlock-testing.so exports symbols outside airlock::testing:
$(head -20 <<<"$strays")"

echo "-- building examples/check-my-sanitizer out of tree"
build=$work/check-my-sanitizer
configure=(
  "$AIRLOCK_CMAKE" -S "$AIRLOCK_EXAMPLE_DIR" -B "$build" -G "$AIRLOCK_GENERATOR"
  "-DCMAKE_PREFIX_PATH=$prefix"
  -DCMAKE_FIND_USE_PACKAGE_REGISTRY=OFF
  -DCMAKE_FIND_USE_SYSTEM_PACKAGE_REGISTRY=OFF
  "-DCMAKE_C_COMPILER=$AIRLOCK_C_COMPILER"
  "-DCMAKE_CXX_COMPILER=$AIRLOCK_CXX_COMPILER"
  "-DCMAKE_BUILD_TYPE=${AIRLOCK_BUILD_TYPE:-}"
  "-DCMAKE_CXX_FLAGS=${AIRLOCK_CXX_FLAGS:-}"
  "-DCMAKE_EXE_LINKER_FLAGS=${AIRLOCK_EXE_LINKER_FLAGS:-}"
  "-DCMAKE_SHARED_LINKER_FLAGS=${AIRLOCK_SHARED_LINKER_FLAGS:-}"
  "-DCMAKE_MODULE_LINKER_FLAGS=${AIRLOCK_MODULE_LINKER_FLAGS:-}"
)
[ -z "${AIRLOCK_MAKE_PROGRAM:-}" ] || configure+=("-DCMAKE_MAKE_PROGRAM=$AIRLOCK_MAKE_PROGRAM")
quietly "${configure[@]}"
found_at=$(sed -n 's/^airlock_DIR:PATH=//p' "$build/CMakeCache.txt")
[ "$found_at" = "$libdir/cmake/airlock" ] ||
  fail "find_package(airlock) found '$found_at', not the install at $libdir/cmake/airlock"
quietly "$AIRLOCK_CMAKE" --build "$build" --parallel 2

linked=$(ldd "$build/check_my_sanitizer" | awk '$1 ~ /^libairlock-testing/ { print $3 }')
[ "$linked" = "$libdir/libairlock-testing.so.$AIRLOCK_VERSION_MAJOR" ] ||
  fail "check_my_sanitizer loads libairlock-testing from '$linked', not from the install"
# The flags really reached the out-of-tree build: in a sanitizer build, the
# binary and the installed library are instrumented as this build is. Their
# dynamic symbols name the runtime's entry point either way: GCC loads it
# from libasan.so/libtsan.so, clang links it into the executable and leaves
# it undefined in a shared library.
case " ${AIRLOCK_CXX_FLAGS:-} " in
  *-fsanitize=*address*) runtime=asan ;;
  *-fsanitize=*thread*) runtime=tsan ;;
  *) runtime= ;;
esac
if [ -n "$runtime" ]; then
  for file in "$build/check_my_sanitizer" "$testing_lib"; do
    grep -q " __${runtime}_init\$" <<<"$(nm -D "$file")" ||
      fail "${file#"$work"/} is not instrumented for ${runtime}, as this build is"
  done
fi

echo "-- running check_my_sanitizer"
if ! bounded "$build/check_my_sanitizer" --gtest_brief=1 >"$work/gtest.log" 2>&1; then
  cat "$work/gtest.log" >&2
  fail "check_my_sanitizer, built against the installed SDK, failed"
fi
passed=$(sed -n 's/^\[  PASSED  \] \([0-9]*\) tests\{0,1\}\.$/\1/p' "$work/gtest.log")
[ "${passed:-0}" -gt 0 ] || {
  cat "$work/gtest.log" >&2
  fail "check_my_sanitizer ran no contract test"
}
echo "   $passed contract tests passed"

echo "-- building examples/c-plugin with make through pkg-config"
export PKG_CONFIG_PATH=$libdir/pkgconfig
version=$("$PKG_CONFIG" --modversion airlock) || fail "pkg-config does not find airlock.pc in $PKG_CONFIG_PATH"
[ "$version" = "$AIRLOCK_VERSION" ] || fail "airlock.pc has version $version, not $AIRLOCK_VERSION"
libs=$("$PKG_CONFIG" --libs airlock)
[ -z "$libs" ] || fail "airlock.pc gives libraries to link ($libs); a C plugin links nothing"
cflags=$("$PKG_CONFIG" --cflags airlock)
include_dir=${cflags#-I}
include_dir=${include_dir%% *}
[ "$(cd "$include_dir" 2>/dev/null && pwd -P)" = "$(cd "$prefix/$AIRLOCK_INCLUDEDIR" && pwd -P)" ] ||
  fail "pkg-config --cflags airlock gives '$cflags', not the installed include directory"
quietly env PKG_CONFIG="$PKG_CONFIG" CC="$AIRLOCK_C_COMPILER" make -C "$AIRLOCK_C_PLUGIN_DIR" BUILD="$work/c-plugin"
c_plugin=$work/c-plugin/example_c_rot13.so
[ -f "$c_plugin" ] || fail "make in examples/c-plugin made no example_c_rot13.so"

echo "-- a C project (project(x C)) finds the package by the ABI it carries"
# The package is versioned by the plugin ABI in airlock.h; a C project needs
# no C++ compiler and no Boost to use it.
abi_major=$(sed -n 's/^#define AIRLOCK_ABI_VERSION_MAJOR \([0-9]*\)$/\1/p' "$prefix/$AIRLOCK_INCLUDEDIR/airlock/airlock.h")
abi_minor=$(sed -n 's/^#define AIRLOCK_ABI_VERSION_MINOR \([0-9]*\)$/\1/p' "$prefix/$AIRLOCK_INCLUDEDIR/airlock/airlock.h")
[ -n "$abi_major" ] && [ -n "$abi_minor" ] || fail "the installed airlock.h names no ABI version"
c_project=$work/c-project
mkdir -p "$c_project"
cp "$AIRLOCK_C_PLUGIN_DIR/rot13.c" "$c_project/"
cat >"$c_project/CMakeLists.txt" <<'CMAKE'
cmake_minimum_required(VERSION 3.25)
project(c_only LANGUAGES C)
find_package(airlock ${WANT} CONFIG REQUIRED)
airlock_add_plugin(c_only_rot13 rot13.c)
CMAKE
c_configure() {  # the command that configures the project for ABI $1, in c_cmd
  c_cmd=("$AIRLOCK_CMAKE" -S "$c_project" -B "$work/c-project-$1" -G "$AIRLOCK_GENERATOR" "-DWANT=$1"
    "-DCMAKE_PREFIX_PATH=$prefix" -DCMAKE_FIND_USE_PACKAGE_REGISTRY=OFF -DCMAKE_FIND_USE_SYSTEM_PACKAGE_REGISTRY=OFF
    "-DCMAKE_C_COMPILER=$AIRLOCK_C_COMPILER")
  [ -z "${AIRLOCK_MAKE_PROGRAM:-}" ] || c_cmd+=("-DCMAKE_MAKE_PROGRAM=$AIRLOCK_MAKE_PROGRAM")
}
for want in "$abi_major.0" "$abi_major.$abi_minor"; do
  c_configure "$want"
  quietly "${c_cmd[@]}"
done
quietly "$AIRLOCK_CMAKE" --build "$work/c-project-$abi_major.$abi_minor"
c_only=$work/c-project-$abi_major.$abi_minor/c_only_rot13.so
[ -f "$c_only" ] || fail "the C-only project built no c_only_rot13.so"
for want in "$abi_major.$((abi_minor + 1))" "$((abi_major + 1)).0"; do
  c_configure "$want"
  if bounded "${c_cmd[@]}" >"$work/c-project.log" 2>&1; then
    fail "find_package(airlock $want) accepted a package that carries ABI $abi_major.$abi_minor"
  fi
  grep -q "compatible with requested version" "$work/c-project.log" ||
    fail "find_package(airlock $want) failed, but not for the version: $(tail -5 "$work/c-project.log")"
done
quietly "$prefix/$AIRLOCK_BINDIR/airlock" check --fast "$c_only"

echo "-- loading it in the installed server"
quietly "$prefix/$AIRLOCK_BINDIR/airlock" check --fast "$c_plugin" "$prefix/$AIRLOCK_PLUGINDIR/airlock_identity.so"

echo "-- serving it from the installed worker"
# A vendor's plugin runs in airlock-worker; the installed server must start
# the worker installed beside it (found relative to its own binary), not
# one at the absolute path of another install, or the build tree's.
serve=$work/serve
mkdir -p "$serve/plugins"
cp "$c_plugin" "$serve/plugins/"
cat >"$serve/airlock.toml" <<TOML
[server]
name = "installed"

[plugins]
dirs = ["$prefix/$AIRLOCK_PLUGINDIR", "$serve/plugins"]
on_error = "fail"

[chains.default]
steps = ["airlock.strip-control"]
TOML
want_worker=$prefix/$AIRLOCK_LIBEXECDIR/airlock/airlock-worker
[ -x "$want_worker" ] || fail "$AIRLOCK_LIBEXECDIR/airlock/airlock-worker is not installed"
# stdin stays open while the workers are looked at; its end stops the server.
# The suite's in-process pass sets AIRLOCK_ISOLATION=in-process, which
# would start no worker at all: this step is about the worker.
exec {hold}> >(export AIRLOCK_ISOLATION=process
  exec "$prefix/$AIRLOCK_BINDIR/airlock" serve --config "$serve/airlock.toml" >/dev/null 2>"$serve/log")
server=$!
workers=""
for _ in $(seq 100); do
  for child in $(pgrep -P "$server" || true); do
    workers+="$(readlink "/proc/$child/exe" || true) "
  done
  [ -z "$workers" ] || break
  sleep 0.1
done
exec {hold}>&-
for _ in $(seq 100); do
  kill -0 "$server" 2>/dev/null || break
  sleep 0.1
done
[ -n "$workers" ] || fail "the installed server started no worker for $(basename "$c_plugin"): $(tail -5 "$serve/log")"
for worker in $workers; do
  [ "$worker" = "$want_worker" ] || fail "the installed server started $worker, not $want_worker"
done

echo "-- the installed SDK works ($((SECONDS - started)) s)"
