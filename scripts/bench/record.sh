# Shared by scripts/bench-perf.sh and scripts/bench-trace.sh, sourced from the
# repository's top: installs /usr/bin/time when missing, builds the release binaries,
# makes the temporary folder $tmp (removed on exit) and defines `record` (the benchmark's
# run record) and `events_in` (its event count).
if [ ! -x /usr/bin/time ]; then
  (apt-get update -qq && apt-get install -y -qq time) >/dev/null 2>&1 || { echo "cannot install time" >&2; exit 1; }
fi
cargo build --release --quiet --bins
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# The event count stored in a run record's footer, read from its last bytes: the footer
# ends with the statistics' exit status and message (0 0 for a run that ended Ok), the
# event count (unsigned LEB128) and the CRC-32 (4 bytes).
events_in() {
  local -a b
  b=($(tail -c 24 "$1" | od -An -v -tu1))
  local i=$((${#b[@]} - 5)) n
  ((b[i] < 128)) || return 1
  n=${b[i]}
  i=$((i - 1))
  while ((b[i] >= 128)); do
    n=$(((n << 7) | (b[i] & 127)))
    i=$((i - 1))
  done
  ((b[i] == 0 && b[i - 1] == 0)) || { echo "cannot read the event count of $1" >&2; return 1; }
  echo "$n"
}

# record ROUNDS: writes $tmp/r$ROUNDS.cpt and prints its event count.
record() {
  sed -e 's/#define n 8/#define n 32/' -e 's/iter<n;/iter<'"$1"'*n;/' fixtures/matmul.c > "$tmp/r$1.c"
  grep -q "iter<$1\*n;" "$tmp/r$1.c" || { echo "fixtures/matmul.c changed: no shift loop to scale" >&2; exit 1; }
  target/release/cpcc "$tmp/r$1.c" -o "$tmp/r$1.cod"
  target/release/cpss "$tmp/r$1.cod" -t "$tmp/r$1.cpt" > /dev/null
  events_in "$tmp/r$1.cpt"
}
