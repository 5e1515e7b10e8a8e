#!/usr/bin/env bash
# What the audit trail costs a call: the same tool (example.echo) behind the
# default four-step chain, with no [audit] and with a signed OCSF trail to a
# file, over stdio and over Streamable HTTP, at 64 B and 4 KiB, side by side
# in one run. Every call then writes one tool_call record with three digests
# (arguments, result before and after the chain).
#
#   tests/bench/run_audit_bench.sh [BUILD_DIR]     (default: build/bench)
#
# Builds nothing: build `airlock stdio_load http_load` and the plugins first,
# with the bench preset. Each stdio figure is the median of three runs, the
# two configs taking turns; each HTTP figure one 3-second run per config.
# About a minute in all.
#
# Besides calls/s, each row prints the server's CPU per call with and
# without the trail, and the difference: what a record costs, wherever it is
# spent (the call's thread or the writer's). On a machine whose cores the
# load generator shares, calls/s falls by about that share of all the CPU a
# call takes, server and client together.
set -euo pipefail

build=$(cd "${1:-build/bench}" && pwd)
stdio_load=$build/tests/bench/stdio_load
http_load=$build/tests/bench/http_load
airlock=$build/host/airlock
plugins=$build/plugins
for f in "$stdio_load" "$http_load" "$airlock" "$plugins/example_echo.so" "$plugins/airlock_strip_control.so" \
         "$plugins/airlock_inert_urls.so" "$plugins/airlock_escape_markup.so" "$plugins/airlock_redact_secrets.so"; do
  [[ -e $f ]] || { echo "run_audit_bench: missing $f (build it first)" >&2; exit 2; }
done
export GLIBC_TUNABLES=glibc.malloc.trim_threshold=67108864:glibc.malloc.mmap_threshold=67108864

work=$(mktemp -d "${TMPDIR:-/tmp}/airlock-audit-bench-XXXXXX")
pids=()
cleanup() {
  for pid in "${pids[@]}"; do kill "$pid" 2>/dev/null || true; done
  wait 2>/dev/null || true
  rm -rf "$work"
}
trap cleanup EXIT

base() {
  cat <<TOML
[server]
name = "bench"
max_message_bytes = 1048576
workers = 4

[plugins]
dirs = ["$plugins"]
on_error = "fail"

[chains.default]
steps = ["airlock.strip-control", "airlock.inert-urls", "airlock.escape-markup", "airlock.redact-secrets"]

[transport.http]
access_log = false
TOML
}
base >"$work/off.toml"
"$airlock" audit keygen "$work/audit.key" >/dev/null
{ base; printf '\n[audit]\nfile = "%s"\nsigning_key_file = "%s"\ncheckpoint_interval_s = 1\n' \
  "$work/audit.log" "$work/audit.key"; } >"$work/on.toml"

rate() { sed -n 's/.*calls\/s=\([0-9]*\).*/\1/p' <<<"$1"; }
cpu() { sed -n 's/.*cpu_us_per_call=\([0-9.]*\).*/\1/p' <<<"$1"; }
extra() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%+.1f", b - a }'; }
cost() { echo "$(( $1 > 0 ? 100 * ($1 - $2) / $1 : 0 ))%"; }
median() { printf '%s\n' "$@" | sort -n | sed -n 2p; }

echo "machine: $(nproc) cores, load average $(cut -d' ' -f1-3 /proc/loadavg), compilers running: $(pgrep -c cc1plus || true)"
declare -A calls=([64]=60000 [4096]=30000)
status=0
printf '%-6s %-7s %10s %10s %6s %10s %10s %8s\n' via payload off/s audit/s cost off_us audit_us +us
for payload in 64 4096; do
  off=() on=() off_cpu=() on_cpu=()
  for _ in 1 2 3; do
    args=(--calls "${calls[$payload]}" --inflight 32 --payload "$payload" --tool example.echo --warmup-calls 2000)
    out=$(timeout 120 "$stdio_load" --server "$airlock serve --config $work/off.toml" "${args[@]}") || status=1
    off+=("$(rate "$out")") off_cpu+=("$(cpu "$out")")
    out=$(timeout 120 "$stdio_load" --server "$airlock serve --config $work/on.toml" "${args[@]}") || status=1
    on+=("$(rate "$out")") on_cpu+=("$(cpu "$out")")
  done
  a=$(median "${off[@]}") b=$(median "${on[@]}") ac=$(median "${off_cpu[@]}") bc=$(median "${on_cpu[@]}")
  printf '%-6s %-7s %10s %10s %6s %10s %10s %8s\n' stdio "${payload}B" "$a" "$b" "$(cost "$a" "$b")" "$ac" "$bc" \
    "$(extra "$ac" "$bc")"
done

# start NAME CONFIG: an HTTP server on port 0; its URL in $url.
start() {
  local log=$work/$1.log
  : >"$log"
  "$airlock" serve --config "$2" --http 127.0.0.1:0 2>>"$log" &
  pid=$!
  pids+=("$pid")
  for _ in $(seq 100); do
    url=$(sed -n 's/.*listening on \(http:[^ ]*\).*/\1/p' "$log")
    [[ -n $url ]] && return 0
    sleep 0.1
  done
  echo "run_audit_bench: airlock did not start" >&2
  cat "$log" >&2
  exit 1
}
start off "$work/off.toml"
off_url=$url off_pid=$pid
start on "$work/on.toml"
on_url=$url on_pid=$pid
for payload in 64 4096; do
  args=(--connections 32 --calls 200000 --max-seconds 3 --payload "$payload" --mode json)
  out=$(timeout 60 "$http_load" --url "$off_url" --pid "$off_pid" "${args[@]}") || status=1
  a=$(rate "$out") ac=$(cpu "$out")
  out=$(timeout 60 "$http_load" --url "$on_url" --pid "$on_pid" "${args[@]}") || status=1
  b=$(rate "$out") bc=$(cpu "$out")
  printf '%-6s %-7s %10s %10s %6s %10s %10s %8s\n' http "${payload}B" "$a" "$b" "$(cost "$a" "$b")" "$ac" "$bc" \
    "$(extra "$ac" "$bc")"
done
for pid in "${pids[@]}"; do kill "$pid" 2>/dev/null || true; done
wait 2>/dev/null || true
pids=()
# Every record the runs wrote must verify, or the figures measured a trail
# that is not one.
if ! "$airlock" audit verify "$work/audit.log" --key "$work/audit.key.pub" >"$work/verify.log" 2>&1; then
  cat "$work/verify.log" >&2
  echo "run_audit_bench: the trail written under load does not verify" >&2
  status=1
fi
echo "trail: $(grep -c . "$work/audit.log") records, $(grep -o '"event_code":"records_dropped"' "$work/audit.log" | wc -l) gap(s) from a full queue; $(head -1 "$work/verify.log")"
exit $status
