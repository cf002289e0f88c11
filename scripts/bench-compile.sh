#!/usr/bin/env bash
# Compile-speed benchmark: generates a CPC program of at least 50 000 lines (many
# functions with loops, arrays, structs and channel traffic) and reports lines per
# second for `cpcc` (preprocess + parse + check + codegen + .cod encoding).
#
# Each of RUNS runs (default 5) is timed with bash's `time`; the best wall time and the
# best CPU time (user + sys) are reported, with lines per second for each. The best of
# several runs filters out other load on the machine; CPU time also leaves out time
# spent waiting for a core. With CALLGRIND=1 (and valgrind installed) it also prints
# cpcc's instruction count, which is repeatable to the instruction on any load.
# /usr/bin/time, when present, gives the peak resident size.
#
# Usage: [RUNS=n] [CALLGRIND=1] scripts/bench-compile.sh [FUNCTIONS]
#        (default 3700 functions ≈ 52 000 lines)
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
runs=${RUNS:-5}
cpcc=./target/release/cpcc
"$cpcc" "$src" -o "$tmp/big.cod" # warm the page cache
best_wall=999999
best_cpu=999999
TIMEFORMAT='%R %U %S'
for ((run = 0; run < runs; run++)); do
  read -r wall user sys < <({ time "$cpcc" "$src" -o "$tmp/big.cod" 2>/dev/null; } 2>&1)
  cpu=$(echo "$user + $sys" | bc -l)
  best_wall=$(echo "if ($wall < $best_wall) $wall else $best_wall" | bc -l)
  best_cpu=$(echo "if ($cpu < $best_cpu) $cpu else $best_cpu" | bc -l)
done
printf 'lines: %d (%d bytes)\n' "$lines" "$(wc -c < "$src")"
printf 'best of %d, wall:       %.3f s -> %.0f lines/s\n' "$runs" "$best_wall" "$(echo "$lines / $best_wall" | bc -l)"
printf 'best of %d, user + sys: %.3f s -> %.0f lines/s\n' "$runs" "$best_cpu" "$(echo "$lines / $best_cpu" | bc -l)"
echo 'target: >= 500000 lines/s'
if [ -x /usr/bin/time ]; then
  /usr/bin/time -f 'peak RSS: %M KB' "$cpcc" "$src" -o "$tmp/big.cod" 2>&1
fi
if [ "${CALLGRIND:-0}" = 1 ] && command -v valgrind > /dev/null; then
  valgrind --tool=callgrind --callgrind-out-file="$tmp/cg.out" "$cpcc" "$src" -o "$tmp/big.cod" 2>&1 |
    sed -n 's/.*Collected : \([0-9]*\).*/instructions (callgrind): \1/p'
fi
