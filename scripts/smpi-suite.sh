#!/usr/bin/env bash
# Runs the MPI workloads of scripts/smpi/suite.c under SimGrid's SMPI (Debian's
# libsimgrid-dev: smpicc, smpirun) on scripts/smpi/torus4x4.xml with the CM02 network
# model and SMPI's defaults otherwise, and writes what SMPI predicts, one row per
# workload, as CSV (workload,bytes,peer,microseconds) to standard output. The host's own
# computing time is not simulated (smpi/simulate-computation:no), so the times are the
# network's alone and the same on every machine.
#
# With --calibration it writes instead the observations of `cpperf calibrate`: each
# workload's CPC twin in fixtures/profiles/smpi/, the cpss flags that model SMPI's
# platform and protocol, and SMPI's time (the all-to-all is left out: the profile
# predicts it without having seen it).
#
# The results are kept as data (scripts/smpi-suite.sh > fixtures/profiles/smpi/observed-smpi.csv
# and scripts/smpi-suite.sh --calibration > fixtures/profiles/smpi/observed.csv), so
# nothing else needs SimGrid.
set -euo pipefail
mode=${1:-}
case "$mode" in
  "" | --calibration) ;;
  *) echo "usage: smpi-suite.sh [--calibration]" >&2; exit 2 ;;
esac
cd "$(dirname "$0")/smpi"
command -v smpirun >/dev/null || { echo "smpi-suite: smpirun not found (install libsimgrid-dev: scripts/readers.sh)" >&2; exit 2; }
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
smpicc -O2 suite.c -o "$work/suite" 2>/dev/null
for i in $(seq 0 15); do echo "n$i"; done > "$work/hosts"
smpi() {
  smpirun -np 16 -platform torus4x4.xml -hostfile "$work/hosts" \
    --cfg=network/model:CM02 --cfg=smpi/simulate-computation:no --log=root.thres:critical \
    "$work/suite" "$@" 2>/dev/null
}
# SMPI's platform and protocol in cpss's terms: one flow per message over 1 GB/s links
# (1000 bytes per microsecond), no packets, and every message's data leaving when its
# receive is posted (SMPI's default below and above its eager threshold alike), with no
# handshake of its own; a quantum of 1 ns so that no wait is rounded.
model="--network flow --topology torus:4x4 --flit-size 1000 --packet-size 4000000000 --header-size 0 --pad-last-packet no --packet-init 0 --eager-limit 0 --handshake free --quantum 0.001"
row() { # workload bytes peer microseconds
  if [ -z "$mode" ]; then echo "$1,$2,$3,$4"; return; fi
  case "$1" in
    alltoall) return ;;
    pingpong)
      # Virtual processor 1 of the twin goes on the peer: 1 = (0,1), 2 = (0,2), 10 = (2,2).
      case "$3" in 1) m='[0, x]' ;; 2) m='[0, 2*x]' ;; 10) m='[2*x, 2*x]' ;; esac
      echo "pingpong-$2.c,\"--mapping 'm(x) = $m.' $model\",output,$4" ;;
    *) echo "$1-$2.c,\"--mapping identity $model\",output,$4" ;;
  esac
}
if [ -z "$mode" ]; then echo "workload,bytes,peer,microseconds"; else echo "program,flags,metric,observed"; fi
# Ping-pong at 1, 2 and 4 hops (peers 1, 2 and 10 = (2,2) of the 4x4 torus).
for peer in 1 2 10; do
  for bytes in 4 64 1024 16384 65536 1048576; do
    IFS=, read -r w b p us < <(smpi pingpong "$bytes" "$peer")
    row "$w" "$b" "$p" "$us"
  done
done
for run in "ring 1024" "gather 4" "gather 64" "exchange 16384" "contend 1048576" "contend 64" "cannon 4096" "alltoall 256"; do
  # shellcheck disable=SC2086 # two words: the workload and its size
  IFS=, read -r w b p us < <(smpi $run)
  row "$w" "$b" "$p" "$us"
done
