#!/usr/bin/env bash
# cptrace throughput: the run record of scripts/bench-perf.sh (the seed's matrix
# multiplication at n = 32 with its shift loop run ROUNDS times over, traced by cpss -t)
# converted to each format, output to a file in a temporary folder. Prints, per format,
# the best wall seconds of 3 runs, the events per second, the peak memory and the
# output's size. The conversion is one streaming pass: its memory is the records between
# the time-order horizon and the present, not the record's size. Then converts records
# of 16k, 64k and 256k processes crowded onto 256 processors, with the ratio per 4x step.
# Usage: scripts/bench-trace.sh [ROUNDS]   (default 2, about 1.5 M events)
set -euo pipefail
cd "$(dirname "$0")/.."
rounds=${1:-2}
# $tmp, the release binaries, record ROUNDS (writes $tmp/r$ROUNDS.cpt and prints its
# event count) and events_in.
. scripts/bench/record.sh

n=$(record "$rounds")
printf 'run record: matmul n=32, %d rounds: %d events, %d bytes\n' "$rounds" "$n" "$(stat -c %s "$tmp/r$rounds.cpt")"
for f in picl picl1 sddf chrome paraver otf2; do
  out="$tmp/out.$f"
  [ "$f" = otf2 ] && out="$tmp/t.otf2"
  best="" rss=0
  for _ in 1 2 3; do
    rm -rf "$tmp"/out.* "$tmp"/t.otf2 "$tmp"/t.def "$tmp"/t
    /usr/bin/time -f "%e %M" -o "$tmp/time" target/release/cptrace --format "$f" -o "$out" "$tmp/r$rounds.cpt"
    read -r s m < "$tmp/time"
    if [ -z "$best" ] || [ "$(echo "$s < $best" | bc -l)" = 1 ]; then best=$s; fi
    ((m > rss)) && rss=$m
  done
  # du names the ones that do not exist (each format writes some of them) and goes on.
  size=$( (du -cb "$tmp"/out.* "$tmp"/t.otf2 "$tmp"/t.def "$tmp"/t 2>/dev/null || true) | tail -1 | cut -f1)
  printf '%-8s %6.2f s  %5.2f M events/s  %6.1f MB peak RSS  %7.1f MB written\n' "$f" "$best" \
    "$(echo "$n / $best / 1000000" | bc -l)" "$(echo "$rss / 1024" | bc -l)" "$(echo "$size / 1000000" | bc -l)"
done

# Many processes sharing few processors: a forall of N children crowded onto a 16x16 mesh
# (N/256 processes per processor), N = 16k, 64k, 256k. Each 4x step should cost about 4x:
# the time-order horizon follows each processor's least bound, so an interval's end costs
# the same however many processes share its processor.
printf '\nprocesses crowded on a 16x16 mesh (forall of N children): seconds per format (ratio per 4x step)\n'
printf '%8s' N
fmts=(picl sddf chrome paraver otf2)
printf ' %16s' "${fmts[@]}"
printf '\n'
declare -A prev
for n in 16384 65536 262144; do
  printf 'void f(int k) { int x; x = k * 2; }\nvoid main() {\n    int k;\n    forall (k from 0 to %d - 1) f(k);\n}\n' "$n" > "$tmp/fa.c"
  target/release/cpcc "$tmp/fa.c" -o "$tmp/fa.cod"
  target/release/cpss --stats none --max-procs $((n + 1)) --topology mesh:16x16 "$tmp/fa.cod" -t "$tmp/fa.cpt" > /dev/null
  printf '%8d' "$n"
  for f in "${fmts[@]}"; do
    rm -rf "$tmp"/fo*
    out="$tmp/fo.$f"
    [ "$f" = otf2 ] && out="$tmp/fo.otf2"
    /usr/bin/time -f "%e" -o "$tmp/time" target/release/cptrace --format "$f" -o "$out" "$tmp/fa.cpt"
    s=$(cat "$tmp/time")
    ratio=""
    [ -n "${prev[$f]:-}" ] && ratio=$(echo "$s / (${prev[$f]} + 0.005)" | bc -l | xargs printf '(x%.1f)')
    printf ' %8.2f %7s' "$s" "$ratio"
    prev[$f]=$s
  done
  printf '\n'
done
