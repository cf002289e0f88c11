#!/usr/bin/env bash
# cpcc's time to report N errors (one undeclared name per line), for N = 5000, 20000,
# 80000: the ratio per 4x step shows whether reporting is linear (about 4x) or
# quadratic (about 16x).
set -euo pipefail
cd "$(dirname "$0")/.."
cargo build --release --quiet --bin cpcc
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
prev=""
for n in 5000 20000 80000; do
  python3 -c "
import sys
n = int(sys.argv[1])
print('int main() {')
for i in range(n): print('  x%d = 1;' % i)
print('}')" "$n" > "$dir/e.c"
  start=$(date +%s.%N)
  target/release/cpcc "$dir/e.c" -o "$dir/e.cod" 2>/dev/null || true
  end=$(date +%s.%N)
  t=$(echo "$end - $start" | bc -l)
  if [ -n "$prev" ]; then
    printf '%6d errors: %6.2f s (x%.1f)\n' "$n" "$t" "$(echo "$t / $prev" | bc -l)"
  else
    printf '%6d errors: %6.2f s\n' "$n" "$t"
  fi
  prev=$t
done
