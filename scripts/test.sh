#!/usr/bin/env bash
# Install stonegarden with its test dependencies (Chromium included) and run the whole suite
# (README, command 2).
set -euo pipefail
cd "$(dirname "$0")/.."
# Debian's Chromium for the browser tests (only installed when missing)
bash scripts/install-browser.sh
python3 -m pip install --quiet --disable-pip-version-check -e ".[test]"
# compile every game's kernels into the cache once, so each test's server only loads them
python3 -m stonegarden warm-up --quiet
set +e
python3 -m pytest -n 2 "$@"
status=$?
set -e
if [ "$status" -eq 5 ]; then
  echo "pytest collected no tests: failing" >&2
  exit 1
fi
exit "$status"
