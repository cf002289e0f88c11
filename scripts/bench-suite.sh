#!/usr/bin/env bash
# The interpreter's benchmark suite: each program of scripts/bench/suite (NAME.c) runs
# under cpss beside its Lua 5.4 twin (NAME.lua, the same algorithm spelled the same way;
# lua5.4 is installed from Debian when missing). Both must print the same output. Runs them in
# interleaved pairs (cpss, Lua, cpss, Lua, ...: RUNS pairs, default 5), pinned to one core
# with taskset when it exists, so that a host whose speed drifts (a shared machine)
# slows both alike; prints, per program, the best wall time of each and the median of
# the pairs' ratios cpss/Lua; then the geometric mean of those ratios and the spread of
# the four spellings of the matrix product (matmul, its sum commuted, as while loops, on
# 1-D arrays) by their best times.
# Targets (issue "speed on every spelling"): geometric mean <= 1.0, no program above
# 1.5, the four matmul spellings within 1.3x of each other.
# Usage: scripts/bench-suite.sh [NAME...]   (default: every program)
set -euo pipefail
cd "$(dirname "$0")/.."
if ! command -v lua5.4 >/dev/null; then
  (apt-get update -qq && apt-get install -y -qq lua5.4) >/dev/null 2>&1 || { echo "cannot install lua5.4" >&2; exit 1; }
fi
# The release binaries, runs, $tmp and once.
. scripts/bench/pinned.sh
names=("$@")
if [ ${#names[@]} -eq 0 ]; then
  for f in scripts/bench/suite/*.c; do names+=("$(basename "$f" .c)"); done
fi
printf '%-18s %9s %9s %7s\n' program cpss lua5.4 ratio
logsum=0 n=0 worst=0 mm_lo=999999 mm_hi=0
for name in "${names[@]}"; do
  src=scripts/bench/suite/$name.c lua=scripts/bench/suite/$name.lua
  target/release/cpcc "$src" -o "$tmp/$name.cod"
  target/release/cpss "$tmp/$name.cod" --stats none > "$tmp/cpss.out"
  lua5.4 "$lua" > "$tmp/lua.out"
  if ! cmp -s "$tmp/cpss.out" "$tmp/lua.out"; then
    echo "$name: outputs differ:" >&2
    diff "$tmp/cpss.out" "$tmp/lua.out" >&2 || true
    exit 1
  fi
  tc=999999 tl=999999 ratios=()
  for _ in $(seq "$runs"); do
    a=$(once target/release/cpss "$tmp/$name.cod" --stats none)
    b=$(once lua5.4 "$lua")
    tc=$(echo "if ($a < $tc) $a else $tc" | bc -l)
    tl=$(echo "if ($b < $tl) $b else $tl" | bc -l)
    ratios+=("$(echo "$a / $b" | bc -l)")
  done
  # The median pair's ratio (of an even count, the mean of the two middle ones).
  mapfile -t sorted < <(printf '%s\n' "${ratios[@]}" | sort -g)
  k=${#sorted[@]}
  if ((k % 2)); then
    r=${sorted[k / 2]}
  else
    r=$(echo "(${sorted[k / 2 - 1]} + ${sorted[k / 2]}) / 2" | bc -l)
  fi
  printf '%-18s %8.3fs %8.3fs %7.2f\n' "$name" "$tc" "$tl" "$r"
  logsum=$(echo "$logsum + l($r)" | bc -l)
  n=$((n + 1))
  worst=$(echo "if ($r > $worst) $r else $worst" | bc -l)
  case $name in matmul*)
    mm_lo=$(echo "if ($tc < $mm_lo) $tc else $mm_lo" | bc -l)
    mm_hi=$(echo "if ($tc > $mm_hi) $tc else $mm_hi" | bc -l) ;;
  esac
done
printf 'geometric mean of cpss/lua: %.2f (target <= 1.0); worst: %.2f (target <= 1.5)\n' \
  "$(echo "e($logsum / $n)" | bc -l)" "$worst"
if [ "$mm_hi" != 0 ]; then
  printf 'matmul spellings: slowest / fastest = %.2f (target <= 1.3)\n' "$(echo "$mm_hi / $mm_lo" | bc -l)"
fi
