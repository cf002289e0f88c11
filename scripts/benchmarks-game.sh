#!/usr/bin/env bash
# Compile six programs of the Computer Language Benchmarks Game, unchanged, with
# cpcc and gcc, run both with the same size argument and compare their output.
#
#   scripts/benchmarks-game.sh DIR
#
# DIR: a checkout of a Benchmarks Game source tree with the programs at
# bench/NAME/NAME.gcc (for example github.com/Byron/benchmarksgame-cvs-mirror).
# The programs are the plain single-threaded C versions: n-body, fannkuch-redux,
# spectral-norm, binary-trees, fasta and mandelbrot (its #2, as #1 uses pthreads
# and vector types). Sizes are small, so the simulation takes seconds; set
# SIZES="nbody=1000 ..." to change them. Prints one line per program
# (same / DIFFERS / FAIL) and exits 1 unless all six match.
set -u
dir=${1:?usage: benchmarks-game.sh DIR}
here=$(cd "$(dirname "$0")/.." && pwd)
cpcc=${CPCC:-$here/target/release/cpcc}
cpss=${CPSS:-$here/target/release/cpss}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
sizes=${SIZES:-"nbody=1000 fannkuchredux=7 spectralnorm=100 binarytrees=10 fasta=1000 mandelbrot=200"}
bad=0
for entry in $sizes; do
    name=${entry%%=*}
    n=${entry#*=}
    src="$dir/bench/$name/$name.gcc"
    [ "$name" = mandelbrot ] && src="$dir/bench/$name/$name.gcc-2.gcc"
    if [ ! -f "$src" ]; then
        echo "FAIL $name: $src not found"
        bad=1
        continue
    fi
    cp "$src" "$work/$name.c"
    if ! gcc -O1 -w -o "$work/$name.gcc" "$work/$name.c" -lm >"$work/gcc.err" 2>&1; then
        echo "FAIL $name: gcc cannot build it: $(head -1 "$work/gcc.err")"
        bad=1
        continue
    fi
    "$work/$name.gcc" "$n" >"$work/$name.want"
    if ! "$cpcc" -o "$work/$name.cod" "$work/$name.c" >"$work/cpcc.err" 2>&1; then
        echo "FAIL $name: cpcc: $(grep -m1 error "$work/cpcc.err")"
        bad=1
        continue
    fi
    start=$(date +%s%N)
    "$cpss" "$work/$name.cod" --stats none --exit-status -- "$n" >"$work/$name.got" 2>"$work/cpss.err"
    status=$?
    ms=$((($(date +%s%N) - start) / 1000000))
    if [ $status -ne 0 ]; then
        echo "FAIL $name $n: cpss exit $status: $(tail -1 "$work/cpss.err")"
        bad=1
    elif cmp -s "$work/$name.want" "$work/$name.got"; then
        printf 'same     %-14s %-6s %s bytes, %s ms\n' "$name" "$n" "$(wc -c <"$work/$name.want")" "$ms"
    else
        echo "DIFFERS  $name $n: $(diff "$work/$name.got" "$work/$name.want" | sed -n 2p | cut -c1-120)"
        bad=1
    fi
done
exit $bad
