#!/usr/bin/env bash
# cpcc's time per 4x step (N = 5000, 20000, 80000) on three shapes that were once
# quadratic: N undeclared names in one function; N functions with one undeclared name
# each (every name is a "did you mean" candidate for every error); a switch of N cases.
# A ratio near 4x per step is linear, near 16x quadratic.
set -euo pipefail
cd "$(dirname "$0")/.."
cargo build --release --quiet --bin cpcc
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT

# shape LABEL PYTHON: times cpcc on the source PYTHON prints for n = sys.argv[1].
shape() {
  local label=$1 gen=$2 prev="" n start t
  for n in 5000 20000 80000; do
    python3 -c "$gen" "$n" > "$dir/p.c"
    start=$(date +%s.%N)
    target/release/cpcc "$dir/p.c" -o "$dir/p.cod" 2>/dev/null || true
    t=$(echo "$(date +%s.%N) - $start" | bc -l)
    if [ -n "$prev" ]; then
      printf '%6d %s: %6.2f s (x%.1f)\n' "$n" "$label" "$t" "$(echo "$t / $prev" | bc -l)"
    else
      printf '%6d %s: %6.2f s\n' "$n" "$label" "$t"
    fi
    prev=$t
  done
}

shape "errors in one function" "
import sys
print('int main() {')
for i in range(int(sys.argv[1])): print('  x%d = 1;' % i)
print('}')"
shape "functions with an error" "
import sys
for i in range(int(sys.argv[1])): print('int f%d() { return x%d; }' % (i, i))"
shape "switch cases" "
import sys
print('int main() { int x, y; x = 3; y = 0; switch (x) {')
for i in range(int(sys.argv[1])): print('case %d: y = %d; break;' % (i, i))
print('} return y; }')"
