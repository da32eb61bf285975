#!/usr/bin/env bash
# README, command 1: install stonegarden into a virtual environment of its own and start the web
# app. The system Python is never touched (Debian and Ubuntu refuse `pip install` outside a
# virtual environment, PEP 668). The environment is made on the first run (in .venv, or
# $STONEGARDEN_VENV) with $PYTHON (default python3, 3.11 or newer); later runs reuse it and
# reinstall only when pyproject.toml changed. Arguments go to `stonegarden serve` (none: --open).
set -euo pipefail
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
exec "$VENV/bin/stonegarden" serve "$@"
