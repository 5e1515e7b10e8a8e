#!/usr/bin/env bash
# A throwaway PostgreSQL cluster for tests, from Debian's packages: initdb in
# DIR, listening only on 127.0.0.1 on a free port (unix sockets in DIR, never
# the system's), trust authentication for the superuser `airlock`, and a
# database `airlock`. Prints the URI postgresql://airlock@127.0.0.1:PORT/airlock.
#
#   postgres_server.sh start DIR [OWNER_PID]   DIR must be absent or empty
#   postgres_server.sh stop DIR                stops the cluster, removes DIR
#
# With OWNER_PID, the cluster also stops (and DIR goes) once that process is
# gone, so a test killed before its trap runs leaves no server behind.
# PostgreSQL refuses to run as root: as root (CI), initdb and pg_ctl run as the
# `postgres` user, which then owns DIR.
set -euo pipefail

usage() {
  echo "usage: $0 start DIR [OWNER_PID] | $0 stop DIR" >&2
  exit 2
}

# The newest installed server (Debian installs each major under its own dir).
find_bindir() {
  local best
  best=$(printf '%s\n' /usr/lib/postgresql/*/bin/pg_ctl | sort -V | tail -n 1)
  if [ ! -x "$best" ]; then
    echo "postgres_server.sh: no PostgreSQL server under /usr/lib/postgresql/*/bin (apt-get install postgresql)" >&2
    exit 1
  fi
  dirname "$best"
}

# Runs a server command as whoever may run PostgreSQL here.
as_owner() {
  if [ "$(id -u)" -eq 0 ]; then
    runuser -u postgres -- "$@"
  else
    "$@"
  fi
}

free_port() {
  python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'
}

stop_cluster() {
  local dir=$1 bindir
  bindir=$(find_bindir)
  if [ -f "$dir/data/postmaster.pid" ]; then
    as_owner "$bindir/pg_ctl" stop -D "$dir/data" -m fast -w -t 20 >/dev/null 2>&1 ||
      as_owner "$bindir/pg_ctl" stop -D "$dir/data" -m immediate -w -t 20 >/dev/null 2>&1 || true
  fi
  rm -rf "$dir"
}

start_cluster() {
  local dir=$1 owner_pid=${2:-} bindir port attempt
  bindir=$(find_bindir)
  mkdir -p "$dir"
  if [ -n "$(ls -A "$dir")" ]; then
    echo "postgres_server.sh: $dir is not empty (give a fresh directory)" >&2
    exit 1
  fi
  dir=$(cd "$dir" && pwd)
  if [ "$(id -u)" -eq 0 ]; then
    if ! id postgres >/dev/null 2>&1; then
      echo "postgres_server.sh: running as root but there is no 'postgres' user to run the server as" >&2
      exit 1
    fi
    chown postgres: "$dir"
    # The server must reach DIR: a root-only parent (mktemp -d makes 0700) would stop it.
    if ! runuser -u postgres -- test -x "$dir"; then
      echo "postgres_server.sh: user postgres cannot reach $dir (a parent directory is not searchable)" >&2
      exit 1
    fi
  fi

  if ! as_owner "$bindir/initdb" -D "$dir/data" -U airlock --auth=trust -E UTF8 --no-locale \
         >"$dir/initdb.log" 2>&1; then
    echo "postgres_server.sh: initdb failed:" >&2
    cat "$dir/initdb.log" >&2
    exit 1
  fi

  # Another process may take the free port before the server binds it: try a few.
  for attempt in 1 2 3 4 5; do
    port=$(free_port)
    if as_owner "$bindir/pg_ctl" start -D "$dir/data" -l "$dir/server.log" -w -t 30 \
         -o "-c listen_addresses=127.0.0.1 -p $port -c unix_socket_directories='$dir'" >/dev/null 2>&1; then
      break
    fi
    port=""
  done
  if [ -z "$port" ]; then
    echo "postgres_server.sh: the server did not start; its log:" >&2
    cat "$dir/server.log" >&2 || true
    stop_cluster "$dir"
    exit 1
  fi

  if ! as_owner "$bindir/createdb" -h "$dir" -p "$port" -U airlock airlock >"$dir/createdb.log" 2>&1; then
    echo "postgres_server.sh: createdb failed:" >&2
    cat "$dir/createdb.log" >&2
    stop_cluster "$dir"
    exit 1
  fi

  if [ -n "$owner_pid" ]; then
    # Detached from the caller's stdout, or `uri=$(... start ...)` would wait for it.
    # It ends by itself once DIR is gone (stopped by the caller).
    local self
    self=$(cd "$(dirname "$0")" && pwd)/$(basename "$0")
    setsid bash -c 'while kill -0 "$1" 2>/dev/null && [ -d "$3" ]; do sleep 1; done
                    [ -d "$3" ] && exec "$2" stop "$3"' \
      postgres-watchdog "$owner_pid" "$self" "$dir" </dev/null >/dev/null 2>&1 &
  fi

  local uri="postgresql://airlock@127.0.0.1:$port/airlock"
  echo "$uri" >"$dir/uri"
  echo "$uri"
}

[ $# -ge 2 ] || usage
case $1 in
  start)
    [ $# -le 3 ] || usage
    start_cluster "$2" "${3:-}"
    ;;
  stop)
    [ $# -eq 2 ] || usage
    stop_cluster "$2"
    ;;
  *) usage ;;
esac
