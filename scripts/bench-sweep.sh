#!/usr/bin/env bash
# Sweep benchmark: an 8-configuration `cpss --sweep` (rayon, 2 threads) against the same
# 8 runs one after the other, on matmul.c with n = 24 (a 24x24 torus of 576 processes on
# a 24x24 mesh, long enough that process start-up does not flatter the ratio). Prints both wall
# times, their ratio (target >= 1.7 on 2 cores) and checks that every sweep row equals
# its single run.
set -euo pipefail
cd "$(dirname "$0")/.."
cargo build --release --quiet --bins
bin=${CARGO_TARGET_DIR:-target}/release
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
sed 's/#define n 8/#define n 24/' fixtures/matmul.c > "$tmp/matmul24.c"
"$bin/cpcc" -I fixtures/include "$tmp/matmul24.c" -o "$tmp/m.cod"
sizes="8 16 32 64"; delays="1 2"
# Wall time and CPU time (user + system) of each side, from bash's `time`.
TIMEFORMAT='%R %U %S'
sweep() {
  RAYON_NUM_THREADS=2 "$bin/cpss" "$tmp/m.cod" --sweep "packet-size=${sizes// /,}" --sweep "link-delay=${delays// /,}" > "$tmp/sweep.csv"
}
sequential() {
  : > "$tmp/seq.csv"
  for p in $sizes; do
    for d in $delays; do
      "$bin/cpss" "$tmp/m.cod" --packet-size "$p" --link-delay "$d" --stats csv | tail -1 | sed "s/^/$p,$d,/" >> "$tmp/seq.csv"
    done
  done
}
read -r t_sweep u s_ < <( { time sweep; } 2>&1 ); c_sweep=$(echo "$u + $s_" | bc -l)
read -r t_seq u s_ < <( { time sequential; } 2>&1 ); c_seq=$(echo "$u + $s_" | bc -l)
# Without --host-time the rows carry no host time: they must be the same bytes.
strip() { cat "$1"; }
tail -n +2 "$tmp/sweep.csv" > "$tmp/sweep.rows"
if diff <(strip "$tmp/sweep.rows") <(strip "$tmp/seq.csv") > /dev/null; then same=yes; else same=NO; fi
printf 'load average: %s\n' "$(cut -d' ' -f1-3 /proc/loadavg)"
printf 'sequential 8 runs: %.3f s wall, %.3f s CPU\n' "$t_seq" "$c_seq"
printf 'sweep (2 threads): %.3f s wall, %.3f s CPU (%.2f cores busy)\n' "$t_sweep" "$c_sweep" "$(echo "$c_sweep / $t_sweep" | bc -l)"
printf 'ratio: %.2f (target >= 1.7 on 2 idle cores)\nrows identical: %s\n' "$(echo "$t_seq / $t_sweep" | bc -l)" "$same"
[ "$same" = yes ]
