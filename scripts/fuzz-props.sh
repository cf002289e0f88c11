#!/usr/bin/env bash
# Runs the property tests (arbitrary inputs into the readers and evaluators) of the given
# module paths again and again with fresh random seeds for SECONDS, and reports how many
# cases ran. Usage: scripts/fuzz-props.sh SECONDS FILTER...   (e.g. 600 expr:: mapper::)
set -euo pipefail
cd "$(dirname "$0")/.."
secs=$1; shift
cases=${CASES:-20000}
cargo test --release --quiet --lib --no-run
end=$(( $(date +%s) + secs ))
rounds=0
while [ "$(date +%s)" -lt "$end" ]; do
  out=$(PROPTEST_CASES=$cases cargo test --release --quiet --lib -- "$@" 2>&1) || { echo "$out" | tail -30; exit 1; }
  rounds=$((rounds + 1))
done
echo "property fuzzing of $*: $rounds rounds of $cases cases per property in $secs s, 0 failures"
