#!/usr/bin/env bash
# What plugin isolation costs: the same tool (example.echo) behind the same
# four-step chain, in-process and then isolated in its worker, over stdio and
# over Streamable HTTP, side by side in one run; then a worker's start-up
# time and idle RSS.
#
#   tests/bench/run_isolation_bench.sh [BUILD_DIR]     (default: build/bench)
#
# Builds nothing: build `airlock airlock-worker stdio_load http_load` and the
# plugins first, with the bench preset. The chain's four sanitizers are
# airlock's own (in-process either way); only the tool moves. Each run is
# bounded in calls and seconds, and the whole script takes about three minutes.
set -euo pipefail

build=$(cd "${1:-build/bench}" && pwd)
stdio_load=$build/tests/bench/stdio_load
http_load=$build/tests/bench/http_load
airlock=$build/host/airlock
plugins=$build/plugins
for f in "$stdio_load" "$http_load" "$airlock" "$build/host/airlock-worker" "$plugins/example_echo.so" \
         "$plugins/airlock_strip_control.so" "$plugins/airlock_inert_urls.so" "$plugins/airlock_escape_markup.so" \
         "$plugins/airlock_redact_secrets.so"; do
  [[ -e $f ]] || { echo "run_isolation_bench: missing $f (build it first)" >&2; exit 2; }
done
export GLIBC_TUNABLES=glibc.malloc.trim_threshold=67108864:glibc.malloc.mmap_threshold=67108864

work=$(mktemp -d "${TMPDIR:-/tmp}/airlock-isolation-bench-XXXXXX")
pids=()
cleanup() {
  for pid in "${pids[@]}"; do kill "$pid" 2>/dev/null || true; done
  wait 2>/dev/null || true
  rm -rf "$work"
}
trap cleanup EXIT

# The sanitizers from airlock's own directory (in-process); the tool from a
# directory of its own, which the default policy isolates. AIRLOCK_ISOLATION
# = in-process puts it back in the server for the reference runs.
mkdir "$work/vendor"
cp "$plugins/example_echo.so" "$work/vendor/"
mkdir "$work/own"
for p in airlock_strip_control airlock_inert_urls airlock_escape_markup airlock_redact_secrets; do
  ln -s "$plugins/$p.so" "$work/own/$p.so"
done
cat >"$work/airlock.toml" <<TOML
[server]
name = "bench"
max_message_bytes = 1048576
workers = 4

[plugins]
dirs = ["$work/own", "$work/vendor"]
on_error = "fail"

[isolation]
in_process = ["$work/own"]

[chains.default]
steps = ["airlock.strip-control", "airlock.inert-urls", "airlock.escape-markup", "airlock.redact-secrets"]

[transport.http]
access_log = false
TOML

rate() { sed -n 's/.*calls\/s=\([0-9]*\).*/\1/p' <<<"$1"; }
ratio() { echo "$(( $1 > 0 ? 100 * $2 / $1 : 0 ))%"; }

echo "machine: $(nproc) cores, load average $(cut -d' ' -f1-3 /proc/loadavg), compilers running: $(pgrep -c cc1plus || true)"
declare -A calls=([64]=100000 [1024]=60000 [65536]=4000 [262144]=1000)
status=0
printf '%-6s %-9s %13s %13s %7s\n' via payload in-process/s isolated/s ratio
# Each stdio figure is the median of three runs of a second or more, the two
# modes taking turns: on a shared 2-core machine one run can be 30% off the
# next (short bursts get CPU a long run does not).
median() { printf '%s\n' "$@" | sort -n | sed -n 2p; }
for payload in 64 1024 65536 262144; do
  args=(--calls "${calls[$payload]}" --inflight 32 --payload "$payload" --tool example.echo)
  inproc=() isolated=()
  for _ in 1 2 3; do
    out=$(AIRLOCK_ISOLATION=in-process timeout 120 "$stdio_load" --server "$airlock serve --config $work/airlock.toml" "${args[@]}") || status=1
    inproc+=("$(rate "$out")")
    out=$(timeout 120 "$stdio_load" --server "$airlock serve --config $work/airlock.toml" "${args[@]}") || status=1
    isolated+=("$(rate "$out")")
  done
  a=$(median "${inproc[@]}") b=$(median "${isolated[@]}")
  printf '%-6s %-9s %13s %13s %7s\n' stdio "${payload}B" "$a" "$b" "$(ratio "$a" "$b")"
done

# start VAR ENV...: an HTTP server on port 0; its URL in $url.
start() {
  local log=$work/$1.log; shift
  : >"$log"
  env "$@" "$airlock" serve --config "$work/airlock.toml" --http 127.0.0.1:0 2>>"$log" &
  pid=$!
  pids+=("$pid")
  for _ in $(seq 100); do
    url=$(sed -n 's/.*listening on \(http:[^ ]*\).*/\1/p' "$log")
    [[ -n $url ]] && return 0
    sleep 0.1
  done
  echo "run_isolation_bench: airlock did not start" >&2
  cat "$log" >&2
  exit 1
}
start inproc AIRLOCK_ISOLATION=in-process
inproc_url=$url
inproc_pid=$pid
start isolated AIRLOCK_ISOLATION=
isolated_url=$url
isolated_pid=$pid

# A worker and both servers at rest, before any call; again after the load
# below (the allocator keeps what large results used: the trim threshold
# above is 64 MiB).
rss() { sed -n 's/^VmRSS:[[:space:]]*\([0-9]*\) kB/\1/p' "/proc/$1/status"; }
worker=$(pgrep -P "$isolated_pid" -f airlock-worker | head -1)
idle="server in-process $(rss "$inproc_pid") kB; server isolated $(rss "$isolated_pid") kB + worker $(rss "$worker") kB"
for payload in 64 1024 65536 262144; do
  args=(--connections 32 --calls 200000 --max-seconds 3 --payload "$payload" --mode json)
  inproc=$(timeout 60 "$http_load" --url "$inproc_url" "${args[@]}") || status=1
  isolated=$(timeout 60 "$http_load" --url "$isolated_url" "${args[@]}") || status=1
  printf '%-6s %-9s %13s %13s %7s\n' http "${payload}B" "$(rate "$inproc")" "$(rate "$isolated")" \
    "$(ratio "$(rate "$inproc")" "$(rate "$isolated")")"
done

echo "RSS at rest: $idle"
echo "RSS after the load: server in-process $(rss "$inproc_pid") kB; server isolated $(rss "$isolated_pid") kB + worker $(rss "$worker") kB"
# How long a server takes from start to a clean stop with nothing to do:
# in-process, with the one worker, and with every plugin in a worker.
start_ms() {
  local begin end
  begin=$(date +%s%N)
  printf '' | AIRLOCK_ISOLATION=$1 "$airlock" serve --config "$work/airlock.toml" 2>/dev/null
  end=$(date +%s%N)
  echo $(( (end - begin) / 1000000 ))
}
echo "start-up to stop over stdio: in-process $(start_ms in-process) ms, one worker $(start_ms "") ms, every plugin isolated $(start_ms process) ms"
exit $status
