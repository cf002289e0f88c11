#!/usr/bin/env bash
# Compile-speed benchmark: generates a CPC program of at least 50 000 lines (many
# functions with loops, arrays, structs and channel traffic) and reports lines per
# second for `cpcc` (preprocess + parse + check + codegen + .cod encoding).
# Usage: scripts/bench-compile.sh [FUNCTIONS]   (default 3700 functions ≈ 52 000 lines)
set -euo pipefail
cd "$(dirname "$0")/.."
n=${1:-3700}
cargo build --release --quiet --bin cpcc
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
src="$tmp/big.c"
{
  echo '#include "cpc.h"'
  echo '#define N 16'
  echo 'arch mesh M[4][4];'
  echo 'channel int link[16];'
  echo 'struct point { int x; float y[4]; };'
  for ((i = 0; i < n; i++)); do
    cat <<C
int f$i(int a, float &b[N]) {
    int i, s;
    struct point p;
    s = 0;
    p.x = a;
    for (i = 0; i < N; i++) {
        b[i] = b[i] * 0.5 + i;
        if (i % 3 == 0) s += i * a;
        else s -= (a << 1) ^ i;
    }
    while (s > 1000) s = s / 2;
    p.y[a % 4] = s;
    return s + p.x;
}
C
  done
  echo 'void main() {'
  echo '    float v[N];'
  echo '    int t;'
  echo '    t = 0;'
  for ((i = 0; i < n; i += 50)); do echo "    t += f$i(t, v);"; done
  echo '    printf("%d\n", t);'
  echo '}'
} > "$src"
lines=$(wc -l < "$src")
best=999999
for run in 1 2 3; do
  start=$(date +%s.%N)
  ./target/release/cpcc "$src" -o "$tmp/big.cod"
  end=$(date +%s.%N)
  t=$(echo "$end - $start" | bc -l)
  best=$(echo "if ($t < $best) $t else $best" | bc -l)
done
rate=$(echo "$lines / $best" | bc -l)
printf 'lines: %d\nbest of 3: %.3f s\nthroughput: %.0f lines/s (target >= 500000)\n' "$lines" "$best" "$rate"
