#!/usr/bin/env bash
# Installs the five tools under PREFIX (default /usr/local): the release binaries in
# PREFIX/bin, the man pages in PREFIX/share/man/man1, and the completions for bash
# (PREFIX/share/bash-completion/completions/TOOL), zsh (PREFIX/share/zsh/site-functions/
# _TOOL) and fish (PREFIX/share/fish/vendor_completions.d/TOOL.fish), where those shells
# look for them. Builds the release binaries first (cargo build --release), unless
# CPPE_BIN names a folder holding the five already built. Prints what it installed.
# Usage: scripts/install.sh [PREFIX]
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
prefix=${1:-/usr/local}
tools=(cpcc cpss cptrace cpperf cpmap)
if [ -n "${CPPE_BIN:-}" ]; then
  bin=$CPPE_BIN
else
  (cd "$root" && cargo build --quiet --release --bins)
  bin=${CARGO_TARGET_DIR:-$root/target}/release
fi
for tool in "${tools[@]}"; do
  [ -x "$bin/$tool" ] || { echo "install: no $bin/$tool" >&2; exit 2; }
done
man1=$prefix/share/man/man1
bash_dir=$prefix/share/bash-completion/completions
zsh_dir=$prefix/share/zsh/site-functions
fish_dir=$prefix/share/fish/vendor_completions.d
mkdir -p "$prefix/bin" "$man1" "$bash_dir" "$zsh_dir" "$fish_dir"
for tool in "${tools[@]}"; do
  install -m 755 "$bin/$tool" "$prefix/bin/$tool"
  install -m 644 "$root/man/$tool.1" "$man1/$tool.1"
  "$bin/$tool" --completions bash > "$bash_dir/$tool"
  "$bin/$tool" --completions zsh > "$zsh_dir/_$tool"
  "$bin/$tool" --completions fish > "$fish_dir/$tool.fish"
done
echo "installed ${tools[*]} in $prefix/bin, their man pages in $man1, and their bash, zsh and fish completions"
case ":$PATH:" in
  *":$prefix/bin:"*) ;;
  *) echo "note: $prefix/bin is not on PATH" ;;
esac
