#!/usr/bin/env bash
# Installs the trace readers the tests check our outputs with, written by others:
# BSC's pertalde (Paraver checker, PyPI) into target/readers-venv. Idempotent: does
# nothing when the pinned version is there. Prints the venv's bin directory.
set -euo pipefail
cd "$(dirname "$0")/.."
venv=target/readers-venv
req=scripts/requirements-readers.txt
if [ ! -x "$venv/bin/ptd" ] || ! cmp -s "$req" "$venv/requirements.txt"; then
  python3 -m venv "$venv" >&2
  "$venv/bin/pip" install --quiet --disable-pip-version-check -r "$req" >&2
  cp "$req" "$venv/requirements.txt"
fi
echo "$PWD/$venv/bin"
