#!/usr/bin/env bash
# Installs the trace readers the tests check our outputs with, written by others:
# BSC's pertalde (Paraver checker, PyPI) into target/readers-venv, and with apt-get
# otf2-print (Debian's otf2-tools, the OTF2 reference library's printer), Debian's
# chromium (the HTML reports are opened in it headless; chromium-driver drives them
# through WebDriver) and SimGrid's SMPI (Debian's
# libsimgrid-dev: smpicc, smpirun; scripts/smpi-suite.sh makes the SMPI profile's
# observations with it).
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
missing=""
command -v otf2-print >/dev/null 2>&1 || missing="$missing otf2-tools"
command -v chromium >/dev/null 2>&1 || missing="$missing chromium"
command -v chromedriver >/dev/null 2>&1 || missing="$missing chromium-driver"
command -v smpirun >/dev/null 2>&1 || missing="$missing libsimgrid-dev"
if [ -n "$missing" ]; then
  sudo=""
  if [ "$(id -u)" != 0 ]; then sudo="sudo"; fi
  if ! $sudo apt-get install -y -q $missing >&2; then
    $sudo apt-get update -q >&2
    $sudo apt-get install -y -q $missing >&2
  fi
fi
echo "$PWD/$venv/bin"
