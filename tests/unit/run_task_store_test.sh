#!/usr/bin/env bash
# Runs task_store_test against both stores: starts a throwaway PostgreSQL
# cluster on 127.0.0.1 (tests/support/postgres_server.sh), hands its URI to
# the test in AIRLOCK_TEST_POSTGRES_URI, and stops it however the test ends.
# No PostgreSQL is a failure, not a skip: CI installs it.
#
#   run_task_store_test.sh TEST_BINARY [gtest arguments...]
set -uo pipefail

if [ $# -lt 1 ]; then
  echo "usage: $0 TEST_BINARY [gtest arguments...]" >&2
  exit 2
fi
binary=$1
shift
server=$(cd "$(dirname "$0")/../support" && pwd)/postgres_server.sh

# Under /tmp, not a private mktemp dir: the server may run as user postgres.
cluster=$(mktemp -u "${TMPDIR:-/tmp}/airlock-postgres.XXXXXX")
trap '"$server" stop "$cluster"' EXIT

if ! uri=$("$server" start "$cluster" $$); then
  echo "run_task_store_test.sh: PostgreSQL did not start (packaging/install-deps.sh installs it)" >&2
  exit 1
fi
echo "PostgreSQL for the test at $uri"
AIRLOCK_TEST_POSTGRES_URI=$uri "$binary" "$@"
