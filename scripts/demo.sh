#!/usr/bin/env bash
# The main job on the bundled example: the seed's matrix multiplication (Figure 28,
# fixtures/matmul.c) on its 8x8 virtual torus, mapped onto an 8x8 physical mesh with the
# torus-to-mesh mapping. Prints the program's performance (times, speedup, efficiency,
# granularity), its critical path and its weighted critical path; keeps the run record
# in target/demo/matmul.cpt (try `cptrace` and `cpperf` on it).
set -euo pipefail
cd "$(dirname "$0")/.."
echo "Building the five tools (a first build takes a few minutes; cargo shows its progress)..." >&2
cargo build --release --bins
bin=target/release
mkdir -p target/demo
"$bin/cpcc" fixtures/matmul.c -o target/demo/matmul.cod
"$bin/cpss" target/demo/matmul.cod --virtual torus:8x8 --topology mesh:8x8 --mapping torus2mesh \
  --stats none -t target/demo/matmul.cpt
# The per-processor utilization table is long: `cpperf target/demo/matmul.cpt` shows it.
"$bin/cpperf" target/demo/matmul.cpt | sed '/^Processor Utilization:/,/^$/{/^$/!d}'
"$bin/cpperf" target/demo/matmul.cpt --html target/demo/matmul.html > /dev/null 2>&1
echo "The visual report: target/demo/matmul.html (open it in a browser)"
