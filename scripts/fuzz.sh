#!/usr/bin/env bash
# Long fuzzing campaigns of every reader (release build). Each target runs for SECONDS
# (default 600) and prints its execution count; any crash fails the run and prints the
# input that caused it.
# Usage: scripts/fuzz.sh [SECONDS] [SEED]
set -euo pipefail
cd "$(dirname "$0")/.."
secs=${1:-600}
seed=${2:-7}
export CPPE_FUZZ_SECS=$secs CPPE_FUZZ_SEED=$seed
# Mutation fuzzing of the compiler (preprocessor + parser + checker + codegen + .cod).
cargo test --release --quiet --test it fuzz_compiler -- --ignored --nocapture 2>&1 | grep -E "fuzz_|panicked|test result"
# Property tests of the binary and text readers with many cases, for the same budget.
cases=$((secs * 200))
PROPTEST_CASES=$cases cargo test --release --quiet --lib -- cod:: expr:: topo:: lang:: 2>&1 | grep -E "test result|panicked|FAILED"
