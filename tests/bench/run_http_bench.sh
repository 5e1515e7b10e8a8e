#!/usr/bin/env bash
# Compares airlock's Streamable HTTP throughput with the minimal C++ echo
# server (http_echo_baseline), then measures airlock's memory per session.
#
#   tests/bench/run_http_bench.sh [BUILD_DIR]     (default: build/bench)
#
# Builds nothing: build `airlock http_load http_echo_baseline example_echo`
# and the four sanitizer plugins first, with the bench preset. Both servers
# run side by side on loopback; for each payload (64 B, 1 KiB, 64 KiB,
# 256 KiB), in-flight count (1, 32) and response mode (JSON, SSE), http_load
# drives the baseline and then airlock, with the default four-step chain
# strip-control -> inert-urls -> escape-markup -> redact-secrets on
# example.echo and everything else at its default (1 I/O thread, 4 workers).
# Each run stops after SECONDS_PER_RUN (default 3) or CALLS calls, so the
# whole script takes under 2 minutes. Then an idle airlock's RSS, and its
# RSS once 1,000 sessions are open and idle.
#
# SMOKE=1: 64 calls per run and 100 idle sessions; it checks every response
# and asserts nothing about speed. (It was the ctest entry http_bench_smoke;
# run_comparison.sh's smoke, bench_comparison_smoke, covers it now.)
#
# Environment: SECONDS_PER_RUN, CALLS (per run, default 200000),
# BASELINE_THREADS (default 1: airlock's transport.http.io_threads),
# IDLE_SESSIONS (default 1000), MALLOC_TUNED (default 1): run every process
# with glibc's trim and mmap thresholds at 64 MiB. With stock thresholds the
# single-threaded baseline gives its heap back after each large request and
# faults it in again on the next (brk down, brk up); on a VM, where page
# faults are dear, that alone cut it to a tenth at 64 KiB and up, and the
# comparison measured glibc's trim policy instead of either server. Both
# servers and the driver get the same setting; MALLOC_TUNED=0 runs stock.
set -euo pipefail

build=$(cd "${1:-build/bench}" && pwd)
load=$build/tests/bench/http_load
baseline=$build/tests/bench/http_echo_baseline
airlock=$build/host/airlock
plugins=$build/plugins
if [[ ${SMOKE:-0} == 1 ]]; then
  seconds=${SECONDS_PER_RUN:-30}
  calls=${CALLS:-64}
  idle_sessions=${IDLE_SESSIONS:-100}
else
  seconds=${SECONDS_PER_RUN:-3}
  calls=${CALLS:-200000}
  idle_sessions=${IDLE_SESSIONS:-1000}
fi
baseline_threads=${BASELINE_THREADS:-1}
for f in "$load" "$baseline" "$airlock" "$plugins/example_echo.so" "$plugins/airlock_strip_control.so" \
         "$plugins/airlock_inert_urls.so" "$plugins/airlock_escape_markup.so" "$plugins/airlock_redact_secrets.so"; do
  [[ -e $f ]] || { echo "run_http_bench: missing $f (build it first)" >&2; exit 2; }
done

if [[ ${MALLOC_TUNED:-1} == 1 ]]; then
  export GLIBC_TUNABLES=glibc.malloc.trim_threshold=67108864:glibc.malloc.mmap_threshold=67108864
fi

work=$(mktemp -d "${TMPDIR:-/tmp}/airlock-http-bench-XXXXXX")
pids=()
cleanup() {
  for pid in "${pids[@]}"; do kill "$pid" 2>/dev/null || true; done
  wait 2>/dev/null || true
  rm -rf "$work"
}
trap cleanup EXIT

# Only the sanitizers and the tool are in the plugin dir, so nothing else loads.
# They are airlock's own and run in-process, as from airlock's own directory:
# linked into another one, [isolation] would put each in a worker.
mkdir "$work/plugins"
for p in example_echo airlock_strip_control airlock_inert_urls airlock_escape_markup airlock_redact_secrets; do
  ln -s "$plugins/$p.so" "$work/plugins/$p.so"
done
cat >"$work/airlock.toml" <<TOML
[server]
name = "bench"

[plugins]
dirs = ["$work/plugins"]
on_error = "fail"

[isolation]
in_process = ["$work/plugins"]

[chains.default]
steps = ["airlock.strip-control", "airlock.inert-urls", "airlock.escape-markup", "airlock.redact-secrets"]

[transport.http]
access_log = false
TOML

# start NAME CMD...: starts a server on port 0 and sets $url and $pid once it
# says where it listens.
start() {
  local name=$1; shift
  # Created here, not by the background job's redirection, which may not
  # have run yet when sed first reads it (under set -e that ended the run).
  : >"$work/$name.log"
  "$@" 2>>"$work/$name.log" &
  pid=$!
  pids+=("$pid")
  for _ in $(seq 100); do
    url=$(sed -n 's/.*listening on \(http:[^ ]*\).*/\1/p' "$work/$name.log")
    [[ -n $url ]] && return 0
    kill -0 "$pid" 2>/dev/null || break
    sleep 0.1
  done
  echo "run_http_bench: $name did not start:" >&2
  cat "$work/$name.log" >&2
  exit 1
}

rss() { sed -n 's/^VmRSS:[[:space:]]*\([0-9]*\) kB/\1/p' "/proc/$1/status"; }
field() { sed -n "s/.* $1=\([0-9]*\).*/\1/p" <<<"$2"; }

echo "machine: $(nproc) cores, load average $(cut -d' ' -f1-3 /proc/loadavg), compilers running: $(pgrep -c cc1plus || true)"
echo "baseline threads: $baseline_threads; GLIBC_TUNABLES=${GLIBC_TUNABLES:-}; ${seconds}s per run"
start baseline "$baseline" --threads "$baseline_threads"
baseline_url=$url
start airlock "$airlock" serve --config "$work/airlock.toml" --http 127.0.0.1:0
airlock_url=$url

status=0
# cc: compilers (cc1plus) running when the row started, which the figures
# share the machine with.
printf '%-8s %4s %-4s | %10s %10s %6s | %14s %14s | %s\n' payload infl mode base/s airlock/s ratio 'base p50/p99' 'airl p50/p99' cc
for payload in 64 1024 65536 262144; do
  for inflight in 1 32; do
    for mode in json sse; do
      busy=$(pgrep -c cc1plus || true)
      args=(--connections "$inflight" --calls "$calls" --max-seconds "$seconds" --payload "$payload" --mode "$mode")
      if ! base_line=$(timeout 60 "$load" --url "$baseline_url" "${args[@]}"); then
        echo "run_http_bench: baseline run failed: ${args[*]}" >&2; status=1; continue
      fi
      if ! air_line=$(timeout 60 "$load" --url "$airlock_url" "${args[@]}"); then
        echo "run_http_bench: airlock run failed: ${args[*]}" >&2; status=1; continue
      fi
      echo "  base:    $base_line" >>"$work/lines"
      echo "  airlock: $air_line" >>"$work/lines"
      base=$(sed -n 's/.*calls\/s=\([0-9]*\).*/\1/p' <<<"$base_line")
      air=$(sed -n 's/.*calls\/s=\([0-9]*\).*/\1/p' <<<"$air_line")
      printf '%-8s %4s %-4s | %10s %10s %5s%% | %14s %14s | %s\n' "${payload}B" "$inflight" "$mode" "$base" "$air" \
        "$(( base > 0 ? 100 * air / base : 0 ))" \
        "$(field p50 "$base_line")/$(field p99 "$base_line")us" "$(field p50 "$air_line")/$(field p99 "$air_line")us" \
        "$busy"
    done
  done
done
echo "http_load lines:"
cat "$work/lines"

# Memory: a fresh airlock, idle, then with the sessions open and idle.
kill "$pid"
start airlock-rss "$airlock" serve --config "$work/airlock.toml" --http 127.0.0.1:0
sleep 0.5
echo "airlock RSS idle: $(rss "$pid") KiB"
if line=$(timeout 60 "$load" --url "$url" --connections 8 --idle-sessions "$idle_sessions" --pid "$pid"); then
  echo "airlock with $idle_sessions idle sessions: $line"
else
  echo "run_http_bench: idle-session run failed" >&2; status=1
fi
echo "machine after: load average $(cut -d' ' -f1-3 /proc/loadavg), compilers running: $(pgrep -c cc1plus || true)"
exit $status
