#!/usr/bin/env bash
# Checks that a change of structure changed no output: builds BASE (a git revision,
# default HEAD) in a temporary worktree and the working tree here, then runs both on
# every fixture program (and the tutorial's and the seed's matmul at n = 4, 8, 16) and
# compares, byte for byte: the .cod, the run record, cpss's statistics (text, CSV and
# JSON, host time removed), cptrace's PICL, old PICL, SDDF, Chrome and Paraver files,
# and cpperf's text and JSON reports. Prints one line per difference and a count of the
# outputs compared; exits 1 when anything differs.
# Usage: scripts/same-outputs.sh [BASE]
set -euo pipefail
cd "$(dirname "$0")/.."
base=${1:-HEAD}
tmp=$(mktemp -d)
cleanup() {
  git worktree remove --force "$tmp/base" >/dev/null 2>&1 || true
  rm -rf "$tmp"
}
trap cleanup EXIT
git worktree add --detach --quiet "$tmp/base" "$base"
echo "building $base and the working tree..." >&2
(cd "$tmp/base" && CARGO_TARGET_DIR="$PWD/../base-target" cargo build --release --quiet --bins)
cargo build --release --quiet --bins

# The programs: every fixture, and the seed's matmul at n = 4 and 16 besides its n = 8.
mkdir -p "$tmp/src"
for f in fixtures/*.c; do cp "$f" "$tmp/src/"; done
for n in 4 16; do sed "s/#define n 8/#define n $n/" fixtures/matmul.c > "$tmp/src/matmul_n$n.c"; done

compared=0 differ=0
# Host time is the one figure that differs between identical runs: its line (text), its
# field (JSON) and its column (CSV) are left out of the comparison.
no_host() {
  case $1 in
    csv) awk -F, '/host_seconds/ { for (i = 1; i <= NF; i++) if ($i == "host_seconds") h = i } {
           out = ""; for (i = 1; i <= NF; i++) if (i != h) out = out (out == "" ? "" : ",") $i; print out }' ;;
    json) sed 's/"host_seconds":[0-9.e+-]*,\?//g' ;;
    *) grep -v -i 'host' ;;
  esac
}
run_all() { # BIN OUT
  local bin=$1 out=$2
  mkdir -p "$out"
  for src in "$tmp"/src/*.c; do
    local name input=()
    name=$(basename "$src" .c)
    [ -f "fixtures/$name.in" ] && input=(--input "fixtures/$name.in")
    "$bin/cpcc" -I fixtures/include "$src" -o "$out/$name.cod" 2>/dev/null || continue
    for fmt in text csv json; do
      "$bin/cpss" "$out/$name.cod" "${input[@]}" --stats "$fmt" -t "$out/$name.cpt" 2>/dev/null |
        no_host "$fmt" > "$out/$name.stats.$fmt" || true
    done
    [ -f "$out/$name.cpt" ] || continue
    for fmt in picl picl1 sddf chrome; do
      "$bin/cptrace" "$out/$name.cpt" --format "$fmt" > "$out/$name.$fmt" 2>/dev/null || true
    done
    "$bin/cptrace" "$out/$name.cpt" --format paraver -o "$out/$name.prv" 2>/dev/null || true
    "$bin/cpperf" "$out/$name.cpt" > "$out/$name.perf.txt" 2>/dev/null || true
    "$bin/cpperf" "$out/$name.cpt" --format json 2>/dev/null | no_host json > "$out/$name.perf.json" || true
  done
}
run_all "$tmp/base-target/release" "$tmp/a"
run_all target/release "$tmp/b"
for f in "$tmp"/a/*; do
  g="$tmp/b/$(basename "$f")"
  compared=$((compared + 1))
  if ! cmp -s "$f" "$g"; then
    echo "differs: $(basename "$f")"
    differ=$((differ + 1))
  fi
done
only_new=$(comm -13 <(ls "$tmp/a") <(ls "$tmp/b") | wc -l)
echo "$compared outputs compared against $base: $differ differ, $only_new only in the working tree"
[ "$differ" = 0 ] && [ "$only_new" = 0 ]
