#!/usr/bin/env bash
# Runs the MPI workloads of scripts/smpi/ under SimGrid's SMPI (Debian's libsimgrid-dev:
# smpicc, smpirun) on scripts/smpi/torus4x4.xml with the CM02 network model, and writes
# what SMPI predicts, one row per workload, as CSV (workload,bytes,peer,microseconds) to
# standard output. The host's own computing time is not simulated
# (smpi/simulate-computation:no), so the times are the network's alone and the same on
# every machine. The observations are kept as data in fixtures/profiles/smpi/
# (regenerate with: scripts/smpi-suite.sh > fixtures/profiles/smpi/observed-smpi.csv), so
# nothing else needs SimGrid.
set -euo pipefail
cd "$(dirname "$0")/smpi"
command -v smpirun >/dev/null || { echo "smpi-suite: smpirun not found (install libsimgrid-dev: scripts/readers.sh)" >&2; exit 2; }
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
smpicc -O2 pingpong.c -o "$work/pingpong" 2>/dev/null
for i in $(seq 0 15); do echo "n$i"; done > "$work/hosts"
smpi() {
  smpirun -np 16 -platform torus4x4.xml -hostfile "$work/hosts" \
    --cfg=network/model:CM02 --cfg=smpi/simulate-computation:no --log=root.thres:critical "$@" 2>/dev/null
}
echo "workload,bytes,peer,microseconds"
# Ping-pong at 1, 2 and 4 hops (peers 1, 2 and 10 = (2,2) of the 4x4 torus).
for peer in 1 2 10; do
  for bytes in 4 64 1024 16384 65536 1048576; do
    read -r b p us < <(smpi "$work/pingpong" "$bytes" "$peer")
    echo "pingpong,$b,$p,$us"
  done
done
