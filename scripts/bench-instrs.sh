#!/usr/bin/env bash
# The interpreter's suite (scripts/bench/suite) by instructions executed, not by time:
# each program's host instructions under cpss and under Lua 5.4 (its twin, NAME.lua),
# counted by valgrind's callgrind, and their ratio; then the geometric mean of the
# ratios. With BASE (a folder holding another build's cpss), that build's count too and
# the change, program by program. A count is the same from run to run and from a quiet
# host to a busy one, so a change of a few per cent shows here when interleaved timed
# pairs on a shared machine cannot separate it from the host's drift; it is not a time
# (a cache miss or a mispredicted branch costs more than one instruction), so a speed
# claim still takes timed pairs (scripts/bench-suite.sh). valgrind and lua5.4 are
# installed from Debian when missing. About 8 minutes for the whole suite (valgrind runs
# a program some 50 times slower).
# Usage: [BASE=DIR] scripts/bench-instrs.sh [NAME...]   (default: every program)
set -euo pipefail
cd "$(dirname "$0")/.."
for tool in valgrind lua5.4; do
  if ! command -v "$tool" >/dev/null; then
    (apt-get update -qq && apt-get install -y -qq "$tool") >/dev/null 2>&1 ||
      { echo "cannot install $tool" >&2; exit 1; }
  fi
done
cargo build --release --quiet --bins
base=${BASE:-}
if [ -n "$base" ] && [ ! -x "$base/cpss" ]; then
  echo "BASE=$base holds no cpss" >&2
  exit 1
fi
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
# count CMD...: the instructions callgrind counts for CMD (its output discarded); nothing
# when CMD fails.
count() {
  valgrind --tool=callgrind --error-exitcode=0 --callgrind-out-file=/dev/null "$@" 2>&1 >/dev/null |
    awk '/Collected :/ { print $4 }' || true
}
names=("$@")
if [ ${#names[@]} -eq 0 ]; then
  for f in scripts/bench/suite/*.c; do names+=("$(basename "$f" .c)"); done
fi
if [ -n "$base" ]; then
  printf '%-18s %14s %14s %8s %14s %7s\n' program cpss lua5.4 ratio base change
else
  printf '%-18s %14s %14s %8s\n' program cpss lua5.4 ratio
fi
logsum=0 n=0
for name in "${names[@]}"; do
  target/release/cpcc "scripts/bench/suite/$name.c" -o "$tmp/$name.cod"
  # A count is of the run that computes the program's result: both must print the same.
  target/release/cpss "$tmp/$name.cod" --stats none > "$tmp/cpss.out"
  lua5.4 "scripts/bench/suite/$name.lua" > "$tmp/lua.out"
  if ! cmp -s "$tmp/cpss.out" "$tmp/lua.out"; then
    echo "$name: outputs differ:" >&2
    diff "$tmp/cpss.out" "$tmp/lua.out" >&2 || true
    exit 1
  fi
  c=$(count target/release/cpss "$tmp/$name.cod" --stats none)
  l=$(count lua5.4 "scripts/bench/suite/$name.lua")
  if [ -z "$c" ] || [ -z "$l" ]; then
    echo "$name: no count (did valgrind run?)" >&2
    exit 1
  fi
  r=$(echo "$c / $l" | bc -l)
  logsum=$(echo "$logsum + l($r)" | bc -l)
  n=$((n + 1))
  if [ -n "$base" ]; then
    b=$(count "$base/cpss" "$tmp/$name.cod" --stats none)
    if [ -z "$b" ]; then
      echo "$name: no count from $base/cpss" >&2
      exit 1
    fi
    printf '%-18s %14d %14d %8.2f %14d %+6.1f%%\n' "$name" "$c" "$l" "$r" "$b" "$(echo "($c - $b) * 100 / $b" | bc -l)"
  else
    printf '%-18s %14d %14d %8.2f\n' "$name" "$c" "$l" "$r"
  fi
done
printf 'geometric mean of the instruction ratios cpss/lua: %.2f\n' "$(echo "e($logsum / $n)" | bc -l)"
