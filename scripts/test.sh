#!/usr/bin/env bash
# Install stonegarden with its test dependencies (Chromium included), lint and type-check it,
# and run the whole suite (README, command 2). Extra arguments go to pytest; for the quick
# subset while working: bash scripts/test.sh -m "not slow"
set -euo pipefail
cd "$(dirname "$0")/.."
# a system Python that refuses `pip install` (PEP 668: Debian's and Ubuntu's) installs into a
# virtual environment instead, made as command 1 makes it; every `python3` below is then its own
source scripts/venv.sh
check_python
if externally_managed; then
  make_venv
  VIRTUAL_ENV="$(cd "$VENV" && pwd)"
  export VIRTUAL_ENV PATH="$VIRTUAL_ENV/bin:$PATH"
fi
# Debian's Chromium for the browser tests (only installed when missing)
bash scripts/install-browser.sh
# Debian's PostgreSQL, nginx and Caddy: the tests start and stop private instances of each
bash scripts/install-services.sh
# the tests that need them fail rather than skip when they are missing
export STONEGARDEN_REQUIRE_SERVICES=1
# PyTorch's CPU build first: the `torch` extra's range would otherwise take a CUDA build of
# several GB, which the CPU-only tests have no use for. From PyTorch's CPU index where it is
# reachable (or a wheel pip's configuration finds on disk, as on CI's machines); else the
# release pinned here
if ! python3 -c "import torch" 2>/dev/null; then
  python3 -m pip install --quiet --disable-pip-version-check --retries 0 --timeout 30 torch \
      --index-url https://download.pytorch.org/whl/cpu ||
    python3 -m pip install --quiet --disable-pip-version-check "torch==2.13.0"
fi
python3 -m pip install --quiet --disable-pip-version-check -e ".[test]"
# lint and type-check first: a failure here stops the run (configured in pyproject.toml)
python3 -m ruff check
python3 -m mypy
# compile every game's kernels into the cache once, so each test's server only loads them
python3 -m stonegarden warm-up --quiet
set +e
python3 -m pytest -n 2 --dist loadgroup "$@"
status=$?
set -e
if [ "$status" -eq 5 ]; then
  echo "pytest collected no tests: failing" >&2
  exit 1
fi
exit "$status"
