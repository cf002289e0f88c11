#!/usr/bin/env bash
# cpss against PCSS, the Parallel Computing Simulation System of Lester's C* (the public
# C++ conversion, github.com/dde/cstar), on the loop benchmarks of scripts/bench/pcss:
# integer arithmetic on locals (loop.c), a global array read and written by index
# (array.c) and a function call per iteration (call.c). Each is written once, in the
# subset both languages accept; cpcc gets it with the C* output statement
# (`cout << s << endl;`) turned into `printf("%d\n", s);`, and both must print the same
# value.
#
# Building PCSS (the recipe; its CMakeLists.txt targets macOS and Windows): the sources
# are cloned at the commit below (or taken from $CSTAR_DIR) and compiled with g++ as the
# macOS build (-DMAC) with the Darwin stdio names mapped to glibc's:
#   g++ -O2 -std=c++11 -fpermissive -DMAC -D__sFILE=FILE -D__stdoutp=stdout \
#       -D__stdinp=stdin '-D__error()=(&errno)' -include cstring -include cerrno \
#       -include cstdio  lexer.cpp errors.cpp interpret.cpp expression.cpp block.cpp \
#       statement.cpp program.cpp exec.cpp execlib.cpp displays.cpp \
#       ProcessDescriptor.cpp InterpLocal.cpp -o cstar
# A second build counts the VM instructions PCSS executes: one increment before the
# dispatch `switch (el.IR.F)` of EXECUTE (exec.cpp), printed on exit. Only the stock
# build is timed. cpss's count is its statistic `instructions` (--stats json).
#
# PCSS runs a program through its command interpreter: `o FILE`, `run`, `close`, `exit`
# on standard input. For each benchmark the script prints the VM instructions each
# executes, the best wall time of RUNS runs (default 5) pinned to one core (taskset),
# each one's VM instructions per second and the ratio of the rates (target: at least 3).
# Usage: scripts/bench-pcss.sh [NAME...]   (default: loop array call)
set -euo pipefail
cd "$(dirname "$0")/.."
commit=0fa59846146aa9da3a0a607379a00e333bdf1cb3
runs=${RUNS:-5}
cargo build --release --quiet --bin cpcc --bin cpss
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
pin=()
command -v taskset >/dev/null && pin=(taskset -c 0)

src=${CSTAR_DIR:-}
if [ -z "$src" ]; then
  src=$tmp/cstar
  git clone -q https://github.com/dde/cstar "$src"
  git -C "$src" checkout -q "$commit"
fi
files=(lexer.cpp errors.cpp interpret.cpp expression.cpp block.cpp statement.cpp program.cpp
  exec.cpp execlib.cpp displays.cpp ProcessDescriptor.cpp InterpLocal.cpp)
flags=(-O2 -std=c++11 -w -fpermissive -DMAC -D__sFILE=FILE -D__stdoutp=stdout -D__stdinp=stdin
  '-D__error()=(&errno)' -include cstring -include cerrno -include cstdio)
mkdir "$tmp/stock" "$tmp/count"
cp "$src"/*.cpp "$src"/*.h "$tmp/stock/"
cp "$src"/*.cpp "$src"/*.h "$tmp/count/"
(cd "$tmp/stock" && g++ "${flags[@]}" "${files[@]}" -o "$tmp/cstar")
grep -q 'switch (el.IR.F) {' "$tmp/count/exec.cpp" || { echo "exec.cpp changed: no dispatch to count at" >&2; exit 1; }
sed -i -e '0,/^\( *\)switch (el.IR.F) {/s//\1++pcss_executed;\n\1switch (el.IR.F) {/' \
  -e '0,/^namespace Cstar/s//unsigned long long pcss_executed = 0;\nstruct PcssReport { ~PcssReport() { fprintf(stderr, "pcss-executed %llu\\n", pcss_executed); } } pcss_report;\nnamespace Cstar/' \
  "$tmp/count/exec.cpp"
(cd "$tmp/count" && g++ "${flags[@]}" "${files[@]}" -o "$tmp/cstar-count")

best() { # best wall time of $runs runs of "$@" (standard input: $tmp/in), in seconds
  local b=999999 t s e
  for _ in $(seq "$runs"); do
    s=$(date +%s.%N); "${pin[@]}" "$@" < "$tmp/in" > /dev/null 2>&1; e=$(date +%s.%N)
    t=$(echo "$e - $s" | bc -l); b=$(echo "if ($t < $b) $t else $b" | bc -l)
  done
  echo "$b"
}

names=("$@")
[ ${#names[@]} -gt 0 ] || names=(loop array call)
printf '%-7s %12s %12s %9s %9s %9s %9s %7s\n' program "pcss instr" "cpss instr" "pcss s" "cpss s" \
  "pcss M/s" "cpss M/s" ratio
logsum=0 n=0
for name in "${names[@]}"; do
  cp "scripts/bench/pcss/$name.c" "$tmp/$name.c"
  sed 's/cout << s << endl;/printf("%d\\n", s);/' "scripts/bench/pcss/$name.c" > "$tmp/$name.cpc.c"
  target/release/cpcc "$tmp/$name.cpc.c" -o "$tmp/$name.cod"
  # PCSS finds the file relative to its working directory.
  printf 'o %s.c\nrun\nclose\nexit\n' "$name" > "$tmp/in"
  pv=$(cd "$tmp" && "$tmp/cstar" < in 2>/dev/null | sed -n 's/^\*\? *\(-\?[0-9][0-9]*\) *$/\1/p' | head -1)
  cv=$(target/release/cpss "$tmp/$name.cod" --stats none)
  if [ "$pv" != "$cv" ]; then
    echo "$name: PCSS printed '$pv', cpss '$cv'" >&2
    exit 1
  fi
  pi=$(cd "$tmp" && "$tmp/cstar-count" < in 2>&1 >/dev/null | sed -n 's/^pcss-executed //p')
  ci=$(target/release/cpss "$tmp/$name.cod" --stats json 2>/dev/null | sed -n 's/.*"instructions":\([0-9]*\).*/\1/p')
  ps=$(cd "$tmp" && best "$tmp/cstar")
  cs=$(best target/release/cpss "$tmp/$name.cod" --stats none)
  pr=$(echo "$pi / $ps / 1000000" | bc -l)
  cr=$(echo "$ci / $cs / 1000000" | bc -l)
  r=$(echo "$cr / $pr" | bc -l)
  printf '%-7s %12d %12d %8.3fs %8.3fs %9.0f %9.0f %7.2f\n' "$name" "$pi" "$ci" "$ps" "$cs" "$pr" "$cr" "$r"
  logsum=$(echo "$logsum + l($r)" | bc -l)
  n=$((n + 1))
done
printf 'geometric mean of the rate ratios (cpss / PCSS): %.2f (target >= 3)\n' "$(echo "e($logsum / $n)" | bc -l)"
