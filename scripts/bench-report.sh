#!/usr/bin/env bash
# The HTML report of a big run: the seed's matrix multiplication (fixtures/matmul.c) at
# n = SIDE (default 32: 1024 processes on a 32x32 mesh) with its shift loop run ROUNDS
# times over, as in scripts/bench-perf.sh; SIDE=64 scripts/bench-report.sh 1 is the
# 64x64 matmul of 4096 processes. Prints the record's events, cpperf --html's time and peak
# memory, the report's size, and how long headless Chromium takes to open it and run
# its self-check (#selfcheck: every view drawn, the timeline's coverage computed at two
# zooms), with the network cut off.
# Targets: the 64x64 report at most 5 MB and opened in under 3 s; the 11 M-event report
# made in at most twice the memory of the text report (printed beside it).
# Usage: scripts/bench-report.sh [ROUNDS]   (default 16, about 11 M events)
set -euo pipefail
cd "$(dirname "$0")/.."
rounds=${1:-16}
command -v chromium >/dev/null || scripts/readers.sh >/dev/null
cargo build --release --quiet --bins
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
side=${SIDE:-32}
sed -e 's/#define n 8/#define n '"$side"'/' -e 's/iter<n;/iter<'"$rounds"'*n;/' fixtures/matmul.c > "$tmp/r.c"
grep -q "iter<$rounds\*n;" "$tmp/r.c" || { echo "fixtures/matmul.c changed: no shift loop to scale" >&2; exit 1; }
target/release/cpcc "$tmp/r.c" -o "$tmp/r.cod"
target/release/cpss "$tmp/r.cod" -t "$tmp/r.cpt" > /dev/null
/usr/bin/time -f "%e %M" -o "$tmp/time" target/release/cpperf "$tmp/r.cpt" --html "$tmp/r.html" > /dev/null 2>&1
read -r secs rss < "$tmp/time"
/usr/bin/time -f "%e %M" -o "$tmp/time-text" target/release/cpperf "$tmp/r.cpt" > /dev/null 2>&1
read -r tsecs trss < "$tmp/time-text"
printf 'text report: %.2f s, %.0f MB peak RSS\n' "$tsecs" "$(echo "$trss / 1024" | bc -l)"
printf 'run record: %d bytes; cpperf --html: %.2f s, %.0f MB peak RSS; report: %.1f MB\n' \
  "$(stat -c %s "$tmp/r.cpt")" "$secs" "$(echo "$rss / 1024" | bc -l)" "$(echo "$(stat -c %s "$tmp/r.html") / 1048576" | bc -l)"
start=$(date +%s.%N)
chromium --headless --no-sandbox --disable-gpu --no-first-run --disable-background-networking \
  --host-resolver-rules="MAP * ~NOTFOUND" --user-data-dir="$tmp/profile" \
  --virtual-time-budget=10000 --dump-dom "file://$tmp/r.html#selfcheck" 2> /dev/null > "$tmp/dom"
end=$(date +%s.%N)
grep -q 'id="selfcheck"' "$tmp/dom" || { echo "the report's self-check did not run" >&2; exit 1; }
printf 'headless Chromium: opened and self-checked in %.2f s (target < 3 s)\n' "$(echo "$end - $start" | bc -l)"
