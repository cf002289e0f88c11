#!/usr/bin/env bash
# Scale check: the seed's matrix multiplication (fixtures/matmul.c) with n = 64, i.e. a
# 64x64 virtual torus and 4096 multiply processes, on a 64x64 physical mesh with the
# torus-to-mesh mapping. Prints the statistics as CSV, the host time and the peak memory;
# with -t it also writes (and measures) a run record.
# Usage: scripts/bench-matmul64.sh [-t]
set -euo pipefail
cd "$(dirname "$0")/.."
cargo build --release --quiet --bins
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
sed 's/#define n 8/#define n 64/' fixtures/matmul.c > "$tmp/matmul64.c"
target/release/cpcc "$tmp/matmul64.c" -o "$tmp/matmul64.cod"
extra=()
[ "${1:-}" = "-t" ] && extra=(-t "$tmp/matmul64.cpt")
/usr/bin/time -f "host: %e s wall, %M KB peak memory" \
  target/release/cpss "$tmp/matmul64.cod" --topology mesh:64x64 --mapping torus2mesh --stats csv "${extra[@]}" \
  | tail -2 | cut -d, -f1-11
[ -f "$tmp/matmul64.cpt" ] && ls -l "$tmp/matmul64.cpt" | awk '{print "run record:", $5, "bytes"}'
exit 0
