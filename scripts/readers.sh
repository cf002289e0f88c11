#!/usr/bin/env bash
# Installs the trace readers the tests check our outputs with, written by others:
# BSC's pertalde (Paraver checker, PyPI) into target/readers-venv, and otf2-print
# (Debian's otf2-tools, the OTF2 reference library's printer) with apt-get.
# Idempotent: does nothing when they are there. Prints the venv's bin directory.
set -euo pipefail
cd "$(dirname "$0")/.."
venv=target/readers-venv
req=scripts/requirements-readers.txt
if [ ! -x "$venv/bin/ptd" ] || ! cmp -s "$req" "$venv/requirements.txt"; then
  python3 -m venv "$venv" >&2
  "$venv/bin/pip" install --quiet --disable-pip-version-check -r "$req" >&2
  cp "$req" "$venv/requirements.txt"
fi
if ! command -v otf2-print >/dev/null 2>&1; then
  sudo=""
  if [ "$(id -u)" != 0 ]; then sudo="sudo"; fi
  if ! $sudo apt-get install -y -q otf2-tools >&2; then
    $sudo apt-get update -q >&2
    $sudo apt-get install -y -q otf2-tools >&2
  fi
fi
echo "$PWD/$venv/bin"
