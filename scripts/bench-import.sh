#!/usr/bin/env bash
# cpperf's PICL import on N one-event processes on one node (N = 20000, 80000, 320000):
# host time and the ratio per 4x step (about 4x: linear; 16x: quadratic in processes).
set -euo pipefail
cd "$(dirname "$0")/.."
cargo build --release --quiet --bin cpperf
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
prev=""
for n in 20000 80000 320000; do
  python3 -c "
import sys
n = int(sys.argv[1])
for i in range(n): print('-2 -503 0.000000000 0 %d 2 2 -1 0' % i)
for i in range(n): print('-3 -52 0.%09d 0 %d 3 2 0 -1 0' % (i + 1, i))" "$n" > "$dir/p.trf"
  start=$(date +%s.%N)
  target/release/cpperf "$dir/p.trf" > /dev/null 2>&1
  t=$(echo "$(date +%s.%N) - $start" | bc -l)
  if [ -n "$prev" ]; then
    printf '%7d processes: %6.2f s (x%.1f)\n' "$n" "$t" "$(echo "$t / $prev" | bc -l)"
  else
    printf '%7d processes: %6.2f s\n' "$n" "$t"
  fi
  prev=$t
done
