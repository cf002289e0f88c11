#!/usr/bin/env bash
# Fuzzes every reader for SECONDS each (default 600) and prints a report: target,
# seconds, executions, crashes. Targets (tests/it/fuzz_readers.rs): cpc (CPC source),
# cod, record (run records, analysed and converted to every trace format), picl, picl1
# (old PICL), sddf, mapping (mapping strings, topologies, expressions), machine (machine
# files), mapfile, cost (cost files), work (task-cost CSV and the load-aware mapping
# searches), debug (debugger command scripts), sim (the simulator on mutated verified
# programs); default all.
# A crash, a hang or an input slower than 3 s fails the target; its input is written to
# target/fuzz-crashes/TARGET/ (keep it in fixtures/fuzz/TARGET/ as a regression test).
#
# Usage: scripts/fuzz.sh [SECONDS] [TARGET...]
#   JOBS=N  targets run N at a time (default 1)      SEED=S  generator seed (default 7)
# The property tests with arbitrary inputs can be re-run with fresh seeds by
# scripts/fuzz-props.sh.
set -euo pipefail
cd "$(dirname "$0")/.."
secs=${1:-600}
[ $# -gt 0 ] && shift
targets=("$@")
[ ${#targets[@]} -eq 0 ] && targets=(cpc cod record picl picl1 sddf mapping machine mapfile cost work debug sim)
jobs=${JOBS:-1}
seed=${SEED:-7}

bin=$(cargo test --release --test it --no-run 2>&1 | sed -n 's/.*Executable .*(\(.*\))$/\1/p' | tail -1)
[ -x "$bin" ] || { echo "fuzz.sh: could not build the test binary" >&2; exit 2; }
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
# A private copy, so that a rebuild during the campaign does not replace it.
cp "$bin" "$work/it"

run_one() {
  local t=$1
  CPPE_FUZZ_TARGET=$t CPPE_FUZZ_SECS=$secs CPPE_FUZZ_SEED=$seed \
    "$work/it" fuzz_readers::fuzz_target --ignored --nocapture --exact >"$work/$t.log" 2>&1 || true
}

running=0
for t in "${targets[@]}"; do
  run_one "$t" &
  running=$((running + 1))
  if [ "$running" -ge "$jobs" ]; then
    wait -n || true
    running=$((running - 1))
  fi
done
wait

status=0
printf '%-8s %8s %12s %8s\n' target seconds executions crashes
for t in "${targets[@]}"; do
  line=$(grep -m1 '^fuzz-report ' "$work/$t.log" || true)
  if [ -n "$line" ]; then
    read -r _ name s execs crashes <<<"$line"
    printf '%-8s %8s %12s %8s\n' "$name" "$s" "$execs" "$crashes"
    [ "$crashes" = 0 ] || status=1
  else
    printf '%-8s %8s %12s %8s\n' "$t" "$secs" "-" "FAILED"
    status=1
  fi
  if [ "${line##* }" != 0 ]; then
    grep -E '^fuzz |input saved|hang|panicked' "$work/$t.log" | head -20 >&2 || true
  fi
done
exit $status
