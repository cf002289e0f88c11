#!/usr/bin/env bash
# The interpreter's speed on other spellings of the suite's programs: each group of
# scripts/bench/spellings (GROUP/NAME.c) is a program of scripts/bench/suite (GROUP.c)
# written another way (a pointer walk for an index, arrays in main's frame for globals,
# unsigned counters, `s += x`, a row pointer, a function taking its array as a pointer).
# Every spelling must print what the suite's program prints. Runs each group's spellings
# in interleaved rounds (the suite's program, then each spelling, RUNS rounds, default 5),
# pinned to one core with taskset when it exists, and prints each one's best time and its
# ratio to the suite's program's best.
# Target (issue "speed on every spelling"): every ratio at most 1.3; a spelling the
# translation does not know falls back to one dispatch per vCode instruction, which shows
# here as a ratio of 2 or more.
# Usage: scripts/bench-spellings.sh [GROUP...]   (default: every group)
set -euo pipefail
cd "$(dirname "$0")/.."
# The release binaries, runs, $tmp and once.
. scripts/bench/pinned.sh
groups=("$@")
if [ ${#groups[@]} -eq 0 ]; then
  for d in scripts/bench/spellings/*/; do groups+=("$(basename "$d")"); done
fi
printf '%-28s %9s %7s\n' spelling cpss ratio
worst=0
for g in "${groups[@]}"; do
  names=("$g") srcs=("scripts/bench/suite/$g.c")
  for f in scripts/bench/spellings/"$g"/*.c; do
    names+=("$g/$(basename "$f" .c)") srcs+=("$f")
  done
  for k in "${!names[@]}"; do
    target/release/cpcc "${srcs[k]}" -o "$tmp/$k.cod"
    target/release/cpss "$tmp/$k.cod" --stats none > "$tmp/$k.out"
    if ! cmp -s "$tmp/0.out" "$tmp/$k.out"; then
      echo "${names[k]}: output differs from $g's:" >&2
      diff "$tmp/0.out" "$tmp/$k.out" >&2 || true
      exit 1
    fi
  done
  best=()
  for k in "${!names[@]}"; do best[k]=999999; done
  for _ in $(seq "$runs"); do
    for k in "${!names[@]}"; do
      t=$(once target/release/cpss "$tmp/$k.cod" --stats none)
      best[k]=$(echo "if ($t < ${best[k]}) $t else ${best[k]}" | bc -l)
    done
  done
  for k in "${!names[@]}"; do
    r=$(echo "${best[k]} / ${best[0]}" | bc -l)
    printf '%-28s %8.3fs %7.2f\n' "${names[k]}" "${best[k]}" "$r"
    worst=$(echo "if ($r > $worst) $r else $worst" | bc -l)
  done
done
printf 'slowest spelling / its suite program: %.2f (target <= 1.3)\n' "$worst"
