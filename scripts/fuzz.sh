#!/usr/bin/env bash
# Long fuzzing campaigns (release build), SECONDS each (default 600):
#  1. mutation fuzzing of the compiler (preprocessor, parser, checker, codegen, .cod),
#     then of the simulator (mutated programs that pass the verifier, run under limits);
#  2. property tests with arbitrary inputs, re-run with fresh seeds, for the readers:
#     .cod (vcode::cod), run records and traces (trace::), mapping strings and
#     expressions (expr::, mapper::), topologies and map files (topo::), the CPC front end
#     (lang::).
# Any crash fails the run and prints the failing input.
# Usage: scripts/fuzz.sh [SECONDS] [SEED]
set -euo pipefail
cd "$(dirname "$0")/.."
secs=${1:-600}
seed=${2:-7}
CPPE_FUZZ_SECS=$secs CPPE_FUZZ_SEED=$seed \
  cargo test --release --quiet --test it fuzz_compiler -- --ignored --nocapture 2>&1 | grep -E "fuzz_|panicked|test result"
# The simulator on mutated, verified programs under limits.
CPPE_FUZZ_SECS=$secs CPPE_FUZZ_SEED=$seed \
  cargo test --release --quiet --test it fuzz_simulator -- --ignored --nocapture --exact fuzz::fuzz_simulator 2>&1 \
  | grep -E "fuzz_|panicked|test result"
for target in "vcode::cod" "trace::" "expr:: mapper::" "topo::" "lang::"; do
  # shellcheck disable=SC2086
  scripts/fuzz-props.sh "$secs" $target
done
