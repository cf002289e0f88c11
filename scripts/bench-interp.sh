#!/usr/bin/env bash
# Interpreter benchmark: a sequential CPC matrix multiply (n = 200) under cpss beside the
# same algorithm under Lua 5.4 (installed from Debian's lua5.4 when missing). Prints both
# wall times (best of 3), their ratio and cpss's vCode instructions per second.
# Target: cpss/lua <= 1.0 (no slower than Lua).
set -euo pipefail
cd "$(dirname "$0")/.."
if ! command -v lua5.4 >/dev/null; then
  (apt-get update -qq && apt-get install -y -qq lua5.4) >/dev/null 2>&1 || { echo "cannot install lua5.4" >&2; exit 1; }
fi
cargo build --release --quiet --bins
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
target/release/cpcc scripts/bench/suite/matmul.c -o "$tmp/m.cod"
best() { # best wall time of 3 runs of "$@", in seconds
  local b=999999 t s e
  for _ in 1 2 3; do
    s=$(date +%s.%N); "$@" > "$tmp/out" 2>&1; e=$(date +%s.%N)
    t=$(echo "$e - $s" | bc -l); b=$(echo "if ($t < $b) $t else $b" | bc -l)
  done
  echo "$b"
}
tc=$(best target/release/cpss "$tmp/m.cod" --stats csv)
target/release/cpss "$tmp/m.cod" --stats csv > "$tmp/cpss.out"
tl=$(best lua5.4 scripts/bench/suite/matmul.lua)
lua5.4 scripts/bench/suite/matmul.lua > "$tmp/lua.out"
want=$(cat "$tmp/lua.out")
got=$(head -1 "$tmp/cpss.out")
[ "$want" = "$got" ] || { echo "results differ: cpss '$got' lua '$want'" >&2; exit 1; }
instr=$(tail -2 "$tmp/cpss.out" | awk -F, 'NR == 1 { for (i = 1; i <= NF; i++) if ($i == "instructions") col = i } NR == 2 { print $col }')
printf 'result: %s (both)\n' "$want"
printf 'cpss: %.3f s   lua5.4: %.3f s   ratio cpss/lua: %.2f (target <= 1.0)\n' "$tc" "$tl" "$(echo "$tc / $tl" | bc -l)"
printf 'vCode instructions: %s   %.1f M instructions/s\n' "$instr" "$(echo "$instr / $tc / 1000000" | bc -l)"
