#!/usr/bin/env bash
# Runs each MPI program of scripts/mpi/ under SimGrid's SMPI (Debian's libsimgrid-dev:
# smpicc, smpirun) and under cpcc/cpss on the same source, checks that both print the
# same output, and prints both predicted times and their ratio as CSV:
#   program,ranks,smpi_us,cpss_us,ratio
# The platform is a torus of 1 GB/s, 1 us links (scripts/smpi/torus4x4.xml for 16 ranks,
# scripts/mpi/torus16x16.xml for 256) with SMPI's CM02 model; cpss runs the same torus
# with the shipped SMPI profile (fixtures/profiles/smpi.toml, 1 unit = 1 us). Neither
# simulates computation: SMPI with smpi/simulate-computation:no, cpss with every
# instruction at cost 0 (fixtures/mpi/free.costs), so the times are the network's and
# the MPI protocol's alone and the same on every machine. SMPI's collectives are set
# to the algorithms cpcc's <mpi.h> library uses (SMPI's selectors binomial_tree Bcast,
# binomial Reduce, rdb Allreduce, ompi_bruck Barrier — the dissemination pattern —,
# ompi_basic_linear Gather and Scatter, ring Allgather, pair Alltoall), so both send
# the same messages.
#
# Usage: scripts/mpi-compare.sh [PROGRAM...]   (default: all six; needs a release build,
# or CPPE_BIN=FOLDER naming the folder of cpcc and cpss)
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
command -v smpirun >/dev/null || { echo "mpi-compare: smpirun not found (install libsimgrid-dev: scripts/readers.sh)" >&2; exit 2; }
# The tools: CPPE_BIN's (a folder), else the release build's.
bin=${CPPE_BIN:-$root/target/release}
cpcc=$bin/cpcc
cpss=$bin/cpss
[ -x "$cpss" ] || { echo "mpi-compare: no $cpss: build first (cargo build --release) or set CPPE_BIN" >&2; exit 2; }
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
programs=("$@")
[ ${#programs[@]} -gt 0 ] || programs=(pingpong ring cannon jacobi reduction master_worker)
status=0
echo "program,ranks,smpi_us,cpss_us,ratio"
for p in "${programs[@]}"; do
  for n in 16 256; do
    if [ "$n" = 16 ]; then platform=$root/scripts/smpi/torus4x4.xml; topo=torus:4x4; else platform=$root/scripts/mpi/torus16x16.xml; topo=torus:16x16; fi
    # The ping-pong uses two ranks; 256 ranks add nothing to it.
    [ "$p" = pingpong ] && [ "$n" = 256 ] && continue
    seq 0 $((n - 1)) | sed 's/^/n/' > "$work/hosts"
    smpicc -O2 "$root/scripts/mpi/$p.c" -o "$work/$p" 2>/dev/null
    smpirun -np "$n" -platform "$platform" -hostfile "$work/hosts" \
      --cfg=network/model:CM02 --cfg=smpi/simulate-computation:no --cfg=smpi/iprobe:1e-7 --cfg=smpi/test:1e-7 --cfg=smpi/display-timing:yes \
      --cfg=smpi/bcast:binomial_tree --cfg=smpi/reduce:binomial --cfg=smpi/allreduce:rdb --cfg=smpi/barrier:ompi_bruck \
      --cfg=smpi/gather:ompi_basic_linear --cfg=smpi/scatter:ompi_basic_linear --cfg=smpi/allgather:ring \
      --cfg=smpi/alltoall:pair \
      --log=root.thres:critical --log=smpi_utils.thres:info "$work/$p" > "$work/smpi.out" 2> "$work/smpi.err"
    smpi_s=$(grep -o 'Simulated time: [0-9.e+-]*' "$work/smpi.err" | awk '{print $3}')
    "$cpcc" -o "$work/$p.cod" "$root/scripts/mpi/$p.c"
    "$cpss" "$work/$p.cod" --ranks "$n" --topology "$topo" --config "$root/fixtures/profiles/smpi.toml" \
      --cost-file "$root/fixtures/mpi/free.costs" --stats csv > "$work/cpss.csv" 2> "$work/cpss.out"
    cpss_us=$(awk -F, 'NR == 1 { for (i = 1; i <= NF; i++) if ($i == "par_time") c = i } NR == 2 { print $c }' "$work/cpss.csv")
    if ! diff -q "$work/smpi.out" "$work/cpss.out" > /dev/null; then
      echo "mpi-compare: $p on $n ranks: the outputs differ:" >&2
      diff "$work/smpi.out" "$work/cpss.out" >&2 || true
      status=1
    fi
    awk -v p="$p" -v n="$n" -v s="$smpi_s" -v c="$cpss_us" 'BEGIN { printf "%s,%d,%.1f,%.1f,%.3f\n", p, n, s * 1e6, c, c / (s * 1e6) }'
  done
done
exit $status
