#!/usr/bin/env bash
# cpperf throughput: the seed's matrix multiplication (fixtures/matmul.c) at n = 32 (1024
# multiply processes on a 32x32 mesh) with its shift loop run ROUNDS times over (n·ROUNDS
# shifts instead of n), traced by cpss -t. Times cpperf's default report (summary and
# WCPA) on the big record and prints events, host seconds, events per second, peak
# memory and the CPU seconds (user + system) of the best of 3 runs; wall times are noisy
# on a loaded machine. The default report reads the record on one thread while another
# feeds the analysis, and finishes with its independent parts side by side, so its wall
# time wants a second free core; its CPU time says what it costs without one. Then runs the
# summary-only path (cpperf --comm, a streaming pass) on a small (2 rounds) and the big
# record: its peak memory must not grow with the event count, while the default report's
# execution graph is linear in the events.
# Target: >= 20 M events/s on >= 10 M events.
# Usage: scripts/bench-perf.sh [ROUNDS]   (default 16, about 10.3 M events)
set -euo pipefail
cd "$(dirname "$0")/.."
big=${1:-16}
small=2
if [ ! -x /usr/bin/time ]; then
  (apt-get update -qq && apt-get install -y -qq time) >/dev/null 2>&1 || { echo "cannot install time" >&2; exit 1; }
fi
cargo build --release --quiet --bins
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# The event count stored in a run record's footer, read from its last bytes: the footer
# ends with the statistics' exit status and message (0 0 for a run that ended Ok), the
# event count (unsigned LEB128) and the CRC-32 (4 bytes).
events_in() {
  local -a b
  b=($(tail -c 24 "$1" | od -An -v -tu1))
  local i=$((${#b[@]} - 5)) n
  ((b[i] < 128)) || return 1
  n=${b[i]}
  i=$((i - 1))
  while ((b[i] >= 128)); do
    n=$(((n << 7) | (b[i] & 127)))
    i=$((i - 1))
  done
  ((b[i] == 0 && b[i - 1] == 0)) || { echo "cannot read the event count of $1" >&2; return 1; }
  echo "$n"
}

# record ROUNDS: writes $tmp/r$ROUNDS.cpt and prints its event count.
record() {
  sed -e 's/#define n 8/#define n 32/' -e 's/iter<n;/iter<'"$1"'*n;/' fixtures/matmul.c > "$tmp/r$1.c"
  grep -q "iter<$1\*n;" "$tmp/r$1.c" || { echo "fixtures/matmul.c changed: no shift loop to scale" >&2; exit 1; }
  target/release/cpcc "$tmp/r$1.c" -o "$tmp/r$1.cod"
  target/release/cpss "$tmp/r$1.cod" -t "$tmp/r$1.cpt" > /dev/null
  events_in "$tmp/r$1.cpt"
}

# measure RUNS ARGS…: the best wall seconds, the peak RSS (KB) and the CPU seconds (user +
# system) of that best run, of RUNS runs of cpperf ARGS.
measure() {
  local runs=$1 best="" rss=0 cpu=0 s m u y
  shift
  for _ in $(seq "$runs"); do
    /usr/bin/time -f "%e %M %U %S" -o "$tmp/time" target/release/cpperf "$@" > "$tmp/out"
    read -r s m u y < "$tmp/time"
    if [ -z "$best" ] || [ "$(echo "$s < $best" | bc -l)" = 1 ]; then
      best=$s
      cpu=$(echo "$u + $y" | bc -l)
    fi
    ((m > rss)) && rss=$m
  done
  echo "$best $rss $cpu"
}

nbig=$(record "$big")
nsmall=$(record "$small")
printf 'run record: matmul n=32, %d rounds: %d events, %d bytes\n' "$big" "$nbig" "$(stat -c %s "$tmp/r$big.cpt")"
[ "$nbig" -ge 10000000 ] || echo "warning: fewer than 10 M events; pass more ROUNDS" >&2

read -r secs rss cpu < <(measure 3 "$tmp/r$big.cpt")
printf 'cpperf (summary + WCPA): %.2f s, %.2f M events/s, %.0f MB peak RSS, %.2f s CPU (target >= 20 M events/s; load average %s)\n' \
  "$secs" "$(echo "$nbig / $secs / 1000000" | bc -l)" "$(echo "$rss / 1024" | bc -l)" "$cpu" "$(cut -d' ' -f1 /proc/loadavg)"
read -r _ rss_small _ < <(measure 1 "$tmp/r$small.cpt")
printf '  peak RSS at %d events: %.0f MB (the execution graph is linear in the events)\n' \
  "$nsmall" "$(echo "$rss_small / 1024" | bc -l)"

read -r csecs crss _ < <(measure 1 --comm "$tmp/r$big.cpt")
read -r _ crss_small _ < <(measure 1 --comm "$tmp/r$small.cpt")
printf 'cpperf --comm (summary only): %.2f s, %.2f M events/s; peak RSS %.1f MB at %d events, %.1f MB at %d events\n' \
  "$csecs" "$(echo "$nbig / $csecs / 1000000" | bc -l)" "$(echo "$crss_small / 1024" | bc -l)" "$nsmall" \
  "$(echo "$crss / 1024" | bc -l)" "$nbig"
