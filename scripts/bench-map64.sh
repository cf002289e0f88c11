#!/usr/bin/env bash
# cpmap's searches on 4096 virtual processors: the 64x64 matmul's run record on a 64x64
# mesh, greedy and anneal from torus2mesh with the default bounds; wall time and peak
# memory of each, and the last lines of its report.
set -euo pipefail
cd "$(dirname "$0")/.."
cargo build --release --quiet --bins
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
sed 's/#define n 8/#define n 64/' fixtures/matmul.c > "$tmp/matmul64.c"
target/release/cpcc "$tmp/matmul64.c" -o "$tmp/matmul64.cod"
target/release/cpss "$tmp/matmul64.cod" --topology mesh:64x64 --mapping torus2mesh --stats none -t "$tmp/run.cpt"
for method in greedy anneal; do
  /usr/bin/time -f "$method: %e s wall, %M KB peak memory" \
    target/release/cpmap --comm "$tmp/run.cpt" --search "$method" torus2mesh "$@" | tail -2
done
