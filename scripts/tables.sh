#!/usr/bin/env bash
# Reproduces the seed's Tables 4, 5 and 6 (seed 000 ch. 6: the matrix multiplication of
# fixtures/matmul.c on a wormhole-routed network) as one CSV on standard output, with the
# seed's figures beside ours:
#   table,virtual,physical,mapping,packet_size,seq_time,par_time,speedup,seed_seq,seed_par,seed_speedup
# Table 4: mappings of an 8x8 and a 16x16 virtual torus onto a mesh of the same size.
# Table 5: the 4x4-torus program on a 4x4 torus, a 4x4 mesh and a ring of 256.
# Table 6: the 16x16 program on a 16x16 mesh with packet sizes 4, 8 and 16 bytes.
#
# Network parameters: wormhole with one lane per link, 4-byte flits, packets of PACKET
# bytes with no separate header (the seed's packet sizes count data; ours include the
# header, so it is 0 here), link delay 5 with the default head-flit ratio 2: a head
# advances one link per 10-unit quantum, as the seed's network advanced every unblocked
# packet one link per quantum (seed 000 §4.2.2). On a mesh one lane cannot deadlock
# (dimension order); on the torus and the ring it could, and cpss would stop the script
# with the cycle of blocked packets — these runs have none.
# Random mapping uses --seed 1. Usage: scripts/tables.sh [> tables.csv]
set -euo pipefail
cd "$(dirname "$0")/.."
cargo build --release --quiet --bins
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
for n in 4 8 16; do
  sed "s/#define n 8/#define n $n/" fixtures/matmul.c > "$tmp/matmul$n.c"
  target/release/cpcc "$tmp/matmul$n.c" -o "$tmp/matmul$n.cod"
done
net=(--network wormhole --lanes 1 --flit-size 4 --header-size 0 --link-delay 5)

# row TABLE N PHYSICAL MAPPING PACKET SEED_SEQ SEED_PAR SEED_SPEEDUP
row() {
  local table=$1 n=$2 phys=$3 mapping=$4 packet=$5
  local stats
  stats=$(target/release/cpss "$tmp/matmul$n.cod" --topology "$phys" --mapping "$mapping" --seed 1 \
    "${net[@]}" --packet-size "$packet" --stats csv | tail -1)
  IFS=, read -r seq par speedup _ <<< "$stats"
  echo "$table,torus:${n}x$n,$phys,$mapping,$packet,$seq,$par,$speedup,$6,$7,$8"
}

echo "table,virtual,physical,mapping,packet_size,seq_time,par_time,speedup,seed_seq,seed_par,seed_speedup"
row 4 8 mesh:8x8 default 4 35816 3630 9.87
row 4 8 mesh:8x8 identity 4 35816 3630 9.87
row 4 8 mesh:8x8 random 4 35886 4910 7.31
row 4 8 mesh:8x8 torus2mesh 4 35771 3490 10.25
row 4 16 mesh:16x16 default 4 265766 14580 18.23
row 4 16 mesh:16x16 identity 4 265766 14580 18.23
row 4 16 mesh:16x16 random 4 266471 23150 11.51
row 4 16 mesh:16x16 torus2mesh 4 265971 14960 17.78
row 5 4 torus:4x4 default 4 5127 700 7.32
row 5 4 mesh:4x4 default 4 5135 1010 5.08
row 5 4 ring:256 default 4 5146 3820 1.35
row 6 16 mesh:16x16 default 4 265766 14580 18.23
row 6 16 mesh:16x16 default 8 266680 27560 9.68
row 6 16 mesh:16x16 default 16 266845 44020 6.06
