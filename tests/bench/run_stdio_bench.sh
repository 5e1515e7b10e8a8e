#!/usr/bin/env bash
# Compares airlock's stdio throughput with the minimal C++ echo server.
#
#   tests/bench/run_stdio_bench.sh [BUILD_DIR]     (default: build/bench)
#
# Builds nothing: build `airlock stdio_load echo_baseline` and the plugins
# first, with the bench preset. For each payload size it runs
# stdio_load against echo_baseline and against `airlock serve` with a 4-step
# chain (strip-control, identity, strip-control, identity), then prints both
# figures and airlock's share of the baseline. Each run is sized to take a
# few seconds at most.
set -euo pipefail

build=$(cd "${1:-build/bench}" && pwd)
load=$build/tests/bench/stdio_load
baseline=$build/tests/bench/echo_baseline
airlock=$build/host/airlock
plugins=$build/plugins
inflight=${INFLIGHT:-32}
for f in "$load" "$baseline" "$airlock" "$plugins/airlock_identity.so" \
         "$plugins/airlock_strip_control.so" "$plugins/example_echo.so"; do
  [[ -e $f ]] || { echo "run_stdio_bench: missing $f (build it first)" >&2; exit 2; }
done

work=$(mktemp -d "${TMPDIR:-/tmp}/airlock-bench-XXXXXX")
trap 'rm -rf "$work"' EXIT
cat >"$work/airlock.toml" <<TOML
[server]
name = "bench"
max_message_bytes = 1048576
workers = 4

[plugins]
dirs = ["$plugins"]
on_error = "fail"

[chains.default]
steps = ["airlock.strip-control", "airlock.identity", "airlock.strip-control", "airlock.identity"]
TOML

# calls/s from a stdio_load line.
rate() { sed -n 's/.*calls\/s=\([0-9]*\).*/\1/p' <<<"$1"; }

# payload bytes -> number of calls that keeps a run within a few seconds
declare -A calls=([64]=50000 [1024]=30000 [65536]=2000 [262144]=500)

status=0
printf '%-9s %12s %12s %7s\n' payload baseline/s airlock/s ratio
for payload in 64 1024 65536 262144; do
  n=${calls[$payload]}
  args=(--calls "$n" --inflight "$inflight" --payload "$payload" --tool example.echo)
  if ! base_line=$(timeout 60 "$load" --server "$baseline" "${args[@]}"); then
    echo "run_stdio_bench: baseline run failed at payload $payload" >&2; status=1; continue
  fi
  if ! air_line=$(timeout 60 "$load" --server "$airlock serve --config $work/airlock.toml" "${args[@]}"); then
    echo "run_stdio_bench: airlock run failed at payload $payload" >&2; status=1; continue
  fi
  echo "  $base_line" >&2
  echo "  $air_line" >&2
  base=$(rate "$base_line"); air=$(rate "$air_line")
  printf '%-9s %12s %12s %6s%%\n' "${payload}B" "$base" "$air" "$(( base > 0 ? 100 * air / base : 0 ))"
done
exit $status
