#!/usr/bin/env bash
# The interpreter's speed in parallel programs: the same work (four sieves,
# scripts/bench/turns/sieves.c) run as one process, as four processes on four processors
# (every processor busy in every quantum) and as four processes sharing one processor.
# All three must print the same counts. With the default quantum (10) a process that shares the machine runs in turns
# a quantum long, five to ten instructions each, so what a turn costs the host (the
# scheduler's visit, entering the interpreter) weighs on every instruction: the ratios
# show it. Runs the three in interleaved rounds (RUNS, default 5), pinned to one core
# with taskset when it exists, and prints each one's best time, its VM instructions per
# host second and its ratio to the sequential run; QUANTUM=q runs them all with
# --quantum q.
# Usage: [RUNS=n] [QUANTUM=q] scripts/bench-turns.sh
set -euo pipefail
cd "$(dirname "$0")/.."
# The release binaries, runs, $tmp and once.
. scripts/bench/pinned.sh
names=(sequential four_processors one_processor)
flags=()
[ -n "${QUANTUM:-}" ] && flags=(--quantum "$QUANTUM")
for k in "${!names[@]}"; do
  # (cpcc has no -D: the shape is a line put before the source.)
  { echo "#define SHAPE $k"; cat scripts/bench/turns/sieves.c; } > "$tmp/$k.c"
  target/release/cpcc "$tmp/$k.c" -o "$tmp/$k.cod"
  target/release/cpss "$tmp/$k.cod" "${flags[@]}" --stats json > "$tmp/$k.json" 2> "$tmp/$k.out"
  sort "$tmp/$k.out" > "$tmp/$k.sorted"
  if [ "$k" -gt 0 ] && ! cmp -s "$tmp/0.sorted" "$tmp/$k.sorted"; then
    echo "${names[k]} printed other counts than sequential" >&2
    exit 1
  fi
done
declare -a best
for _ in $(seq "$runs"); do
  for k in "${!names[@]}"; do
    t=$(once target/release/cpss "$tmp/$k.cod" "${flags[@]}" --stats none)
    if [ -z "${best[k]:-}" ] || [ "$(echo "$t < ${best[k]}" | bc -l)" = 1 ]; then best[k]=$t; fi
  done
done
printf '%-16s %12s %9s %10s %7s\n' program instructions best_s "M instr/s" ratio
for k in "${!names[@]}"; do
  n=$(grep -o '"instructions":[0-9]*' "$tmp/$k.json" | cut -d: -f2)
  printf '%-16s %12s %9.3f %10.1f %7.2f\n' "${names[k]}" "$n" "${best[k]}" \
    "$(echo "$n / ${best[k]} / 1000000" | bc -l)" "$(echo "${best[k]} / ${best[0]}" | bc -l)"
done
