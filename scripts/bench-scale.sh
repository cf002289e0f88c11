#!/usr/bin/env bash
# cpss at scale: host time and peak memory as the number of live processes grows, in
# three shapes (SPEC §10):
#   waiters   main forks N children, each waiting for one message on its own channel,
#             then sends the N messages and joins them all;
#   sleepers  main forks N children that each sleep in delay(1000), then joins them;
#   forall    one forall creating N children that compute a little and end.
# The machine is a square mesh with one processor per process up to 1024x1024 (children
# are placed round-robin over its processors beyond that). For each shape and N it
# prints host seconds, peak RSS and the ratio of host time to the previous N's (a 4x step
# that costs 4x is linear; the target is at most 5x from 16k upward). A run that takes
# longer than TIMEOUT seconds (default 120) is reported as such and the shape stops there.
#
# Usage: [TIMEOUT=s] scripts/bench-scale.sh [N ...]
#        (default N: 4096 16384 65536 262144 1048576)
set -euo pipefail
cd "$(dirname "$0")/.."
sizes=("$@")
[ ${#sizes[@]} -gt 0 ] || sizes=(4096 16384 65536 262144 1048576)
timeout_s=${TIMEOUT:-120}
if [ ! -x /usr/bin/time ]; then
  (apt-get update -qq && apt-get install -y -qq time) >/dev/null 2>&1 || { echo "cannot install time" >&2; exit 1; }
fi
cargo build --release --quiet --bin cpcc --bin cpss
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# side N: the side of the square mesh, the smallest power of two whose square holds N
# processes, at most 1024.
side() {
  local s=1
  while ((s * s < $1 && s < 1024)); do s=$((s * 2)); done
  echo "$s"
}

# program SHAPE N: the CPC source of SHAPE with N processes.
program() {
  local s
  s=$(side "$2")
  printf '#include "cpc.h"\n#define N %d\n#define S %d\narch mesh A[S][S];\nphyArch mesh P[S][S];\n' "$2" "$s"
  case $1 in
    waiters)
      cat <<'C'
channel int c[N];
void w(int k) { int v; v = c[k]; }
void main() {
    int k;
    for (k = 0; k < N; k++) fork [k % (S * S); c[k]] w(k);
    for (k = 0; k < N; k++) c[k] = k;
    for (k = 0; k < N; k++) join;
}
C
      ;;
    sleepers)
      cat <<'C'
void s(int k) { delay(1000); }
void main() {
    int k;
    for (k = 0; k < N; k++) fork [k % (S * S)] s(k);
    for (k = 0; k < N; k++) join;
}
C
      ;;
    forall)
      cat <<'C'
void f(int k) { int x; x = k * 2; }
void main() {
    int k;
    forall (k from 0 to N - 1) f(k);
}
C
      ;;
  esac
}

printf '%-9s %9s %6s %10s %10s %7s\n' shape N mesh "host s" "peak MB" ratio
for shape in waiters sleepers forall; do
  prev=""
  for n in "${sizes[@]}"; do
    program "$shape" "$n" > "$tmp/p.c"
    target/release/cpcc "$tmp/p.c" -o "$tmp/p.cod"
    s=$(side "$n")
    if timeout "$timeout_s" /usr/bin/time -f '%e %M' -o "$tmp/time" target/release/cpss --stats none --max-procs $((n + 1)) "$tmp/p.cod" > /dev/null 2> "$tmp/err"; then
      read -r secs kb < "$tmp/time"
      ratio=""
      [ -n "$prev" ] && ratio=$(echo "$secs / ($prev + 0.005)" | bc -l | xargs printf '%.1fx')
      printf '%-9s %9d %6s %10.2f %10.0f %7s\n' "$shape" "$n" "${s}x$s" "$secs" "$(echo "$kb / 1024" | bc -l)" "$ratio"
      prev=$secs
    else
      status=$?
      if [ "$status" = 124 ]; then
        printf '%-9s %9d %6s %10s\n' "$shape" "$n" "${s}x$s" "> ${timeout_s}"
      else
        printf '%-9s %9d %6s failed (exit %d): %s\n' "$shape" "$n" "${s}x$s" "$status" "$(head -c 200 "$tmp/err")"
      fi
      break
    fi
  done
done
