# Shared by scripts/bench-suite.sh and scripts/bench-spellings.sh, sourced from the
# repository's top: builds the release binaries, sets `runs` (RUNS, default 5), makes the
# temporary folder $tmp (removed on exit) and defines `once`, the wall seconds of one run
# of its arguments pinned to one core (with taskset when it exists), output discarded.
cargo build --release --quiet --bins
runs=${RUNS:-5}
pin=()
command -v taskset >/dev/null && pin=(taskset -c 0)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
once() {
  local s e
  s=$(date +%s.%N); "${pin[@]}" "$@" > /dev/null 2>&1; e=$(date +%s.%N)
  echo "$e - $s" | bc -l
}
