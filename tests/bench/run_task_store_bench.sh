#!/usr/bin/env bash
# Task store latency, both stores: a SQLite file in a temp dir and a
# throwaway PostgreSQL on 127.0.0.1 (tests/support/postgres_server.sh),
# each durable by default (SQLite synchronous=FULL, PostgreSQL fsync on).
#
#   tests/bench/run_task_store_bench.sh [BUILD_DIR] [operations]   (default: build/bench, 2000)
set -euo pipefail

build=$(cd "${1:-build/bench}" && pwd)
operations=${2:-2000}
bench=$build/tests/bench/task_store_bench
[[ -x $bench ]] || { echo "run_task_store_bench: missing $bench (build it first)" >&2; exit 2; }
server=$(cd "$(dirname "$0")/../support" && pwd)/postgres_server.sh

work=$(mktemp -d "${TMPDIR:-/tmp}/airlock-bench-XXXXXX")
cluster=$(mktemp -u "${TMPDIR:-/tmp}/airlock-postgres.XXXXXX")
trap '"$server" stop "$cluster"; rm -rf "$work"' EXIT

"$bench" "$work/tasks.db" "$operations"
uri=$("$server" start "$cluster" $$)
"$bench" "$uri" "$operations"
