#!/usr/bin/env bash
# The main job on the bundled example: the seed's matrix multiplication (Figure 28,
# fixtures/matmul.c) on its 8x8 virtual torus, mapped onto an 8x8 physical mesh with the
# torus-to-mesh mapping. Prints on one screen the program's performance (times, speedup,
# efficiency, granularity, the critical path's length) and the heaviest segments of its
# weighted critical path, and where the rest is: the run record in target/demo/matmul.cpt
# (try `cptrace` and `cpperf` on it), the visual report in target/demo/matmul.html.
set -euo pipefail
cd "$(dirname "$0")/.."
# (CPPE_BIN: a folder holding the tools already built, to skip the build; DEMO_DIR:
# where the record and the report go, target/demo by default.)
if [ -n "${CPPE_BIN:-}" ]; then
  bin=$CPPE_BIN
else
  echo "Building the five tools (a first build takes a few minutes; cargo shows its progress)..." >&2
  cargo build --release --bins
  bin=target/release
fi
out=${DEMO_DIR:-target/demo}
mkdir -p "$out"
"$bin/cpcc" fixtures/matmul.c -o "$out/matmul.cod"
"$bin/cpss" "$out/matmul.cod" --virtual torus:8x8 --topology mesh:8x8 --mapping torus2mesh \
  --stats none -t "$out/matmul.cpt"
# One screen: the headline figures and the heaviest segments of the weighted critical
# path (cpperf --summary), then where the rest is.
"$bin/cpperf" "$out/matmul.cpt" --summary
"$bin/cpperf" "$out/matmul.cpt" --html "$out/matmul.html" > /dev/null 2>&1
echo
echo "The visual report (timeline, critical paths, topology replay): $out/matmul.html"
echo "The whole analysis (utilization per processor, time by state, critical path, Late Sender"
echo "waits, cost per source line): $bin/cpperf $out/matmul.cpt | less"
