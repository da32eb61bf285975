#!/usr/bin/env bash
# README, command 1: install stonegarden into a virtual environment of its own and start the web
# app. The system Python is never touched (Debian and Ubuntu refuse `pip install` outside a
# virtual environment, PEP 668). The environment is made on the first run (in .venv, or
# $STONEGARDEN_VENV) with $PYTHON (default python3, 3.11 or newer); later runs reuse it and
# reinstall only when pyproject.toml changed. Arguments go to `stonegarden serve` (none: --open).
set -euo pipefail
cd "$(dirname "$0")/.."
PYTHON="${PYTHON:-python3}"
VENV="${STONEGARDEN_VENV:-.venv}"
if ! "$PYTHON" -c 'import sys; sys.exit(sys.version_info < (3, 11))'; then
  echo "stonegarden needs Python 3.11 or newer; $PYTHON is $("$PYTHON" -V 2>&1)." >&2
  echo "Run it with another one, e.g. PYTHON=python3.12 bash scripts/serve.sh" >&2
  exit 1
fi
if [ ! -x "$VENV/bin/python" ]; then
  if ! "$PYTHON" -m venv "$VENV" >/dev/null 2>&1; then
    # Debian and Ubuntu ship the venv module (its ensurepip) as a package of its own
    rm -rf "$VENV"
    SUDO=""
    if [ "$(id -u)" -ne 0 ]; then SUDO="sudo"; fi
    echo "installing python3-venv (Debian/Ubuntu) to make $VENV" >&2
    $SUDO apt-get update
    DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y python3-venv
    "$PYTHON" -m venv "$VENV"
  fi
fi
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
