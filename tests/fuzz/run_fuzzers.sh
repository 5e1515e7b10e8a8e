#!/usr/bin/env bash
# run_fuzzers.sh BUILD_DIR SECONDS_PER_TARGET [TARGET...]
#
# Runs every fuzz target of BUILD_DIR (a build of the asan preset, whose
# targets link libFuzzer) for SECONDS_PER_TARGET each, one after the other,
# starting from its in-tree corpus (tests/fuzz/corpus/<name>, read only) and
# writing new inputs to a scratch directory outside the tree
# (${AIRLOCK_FUZZ_SCRATCH:-/tmp/airlock-fuzz}/<name>), crashes included.
# Prints each target's executions and coverage (libFuzzer's last stats line)
# and exits non-zero if any target crashed, leaked, timed out or ran out of
# memory. Extra libFuzzer flags go in AIRLOCK_FUZZ_FLAGS.
#
# Bounded CI run:  tests/fuzz/run_fuzzers.sh build/asan 10
# Long run:        tests/fuzz/run_fuzzers.sh build/asan 600 strip_control egress_url
set -u

if [ $# -lt 2 ]; then
  echo "usage: $0 BUILD_DIR SECONDS_PER_TARGET [TARGET...]" >&2
  exit 2
fi
build=$1
seconds=$2
shift 2
here=$(cd "$(dirname "$0")" && pwd)
scratch=${AIRLOCK_FUZZ_SCRATCH:-/tmp/airlock-fuzz}

if [ $# -gt 0 ]; then
  targets=("$@")
else
  targets=()
  for dir in "$here"/corpus/*/; do targets+=("$(basename "$dir")"); done
fi

failed=()
printf '%-18s %12s %8s %8s %s\n' target execs cov seconds result
for name in "${targets[@]}"; do
  binary="$build/tests/fuzz/${name}_fuzz"
  if [ ! -x "$binary" ]; then
    echo "$name: no $binary (build the asan preset first)" >&2
    failed+=("$name")
    continue
  fi
  work="$scratch/$name"
  mkdir -p "$work/corpus" "$work/artifacts"
  log="$work/fuzz.log"
  start=$(date +%s)
  # New inputs go to $work/corpus (listed first); the tree's corpus is read only.
  "$binary" "$work/corpus" "$here/corpus/$name" \
    -max_total_time="$seconds" -timeout=10 -rss_limit_mb=2048 -max_len=65536 \
    -print_final_stats=1 -artifact_prefix="$work/artifacts/" ${AIRLOCK_FUZZ_FLAGS:-} >"$log" 2>&1
  status=$?
  elapsed=$(( $(date +%s) - start ))
  # The last "#N ... cov: C" line libFuzzer printed.
  last=$(grep -E '^#[0-9]+' "$log" | tail -1)
  execs=$(sed -nE 's/^stat::number_of_executed_units: *([0-9]+).*/\1/p' "$log" | tail -1)
  [ -n "$execs" ] || execs=$(printf '%s' "$last" | sed -nE 's/^#([0-9]+).*/\1/p')
  cov=$(printf '%s' "$last" | sed -nE 's/.*cov: ([0-9]+).*/\1/p')
  result=ok
  if [ $status -ne 0 ]; then
    result="FAILED (exit $status; $log, $work/artifacts)"
    failed+=("$name")
  fi
  printf '%-18s %12s %8s %8s %s\n' "$name" "${execs:-?}" "${cov:-?}" "$elapsed" "$result"
done

if [ ${#failed[@]} -gt 0 ]; then
  echo "failed: ${failed[*]}" >&2
  exit 1
fi
