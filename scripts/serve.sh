#!/usr/bin/env bash
# README, command 1: install stonegarden into a virtual environment of its own and start the web
# app. The system Python is never touched (Debian and Ubuntu refuse `pip install` outside a
# virtual environment, PEP 668). The environment is made on the first run (in .venv, or
# $STONEGARDEN_VENV) with $PYTHON (default python3, 3.11 or newer); later runs reuse it and
# reinstall only when pyproject.toml changed (or make it again when the system's Python is no
# longer the one it was made with). Arguments go to `stonegarden serve` (none: --open), which
# runs in the folder the script was started from.
set -euo pipefail
# the server runs where it was started from, so that a relative --db names a file there
here="$PWD"
cd "$(dirname "$0")/.."
source scripts/venv.sh
check_python
make_venv
stamp="$VENV/.stonegarden-installed"
if [ ! -f "$stamp" ] || [ pyproject.toml -nt "$stamp" ]; then
  echo "installing stonegarden and its dependencies into $VENV (first run: a few minutes)" >&2
  "$VENV/bin/python" -m pip install --quiet --disable-pip-version-check -e .
  touch "$stamp"
fi
# compile every game's kernels into the cache now (minutes, once per install or update),
# not while a player waits for the computer's first move
"$VENV/bin/stonegarden" warm-up --if-needed
if [ "$#" -eq 0 ]; then set -- --open; fi
stonegarden="$(cd "$VENV" && pwd)/bin/stonegarden"
cd "$here"
exec "$stonegarden" serve "$@"
