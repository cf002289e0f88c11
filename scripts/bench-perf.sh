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

# $tmp, the release binaries, record ROUNDS (writes $tmp/r$ROUNDS.cpt and prints its
# event count) and events_in.
. scripts/bench/record.sh

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
