"""The kernels run unchanged as plain Python (NUMBA_DISABLE_JIT=1), so coverage tools and
debuggers can see them: run the kernel-heavy rule tests once that way in a subprocess."""

from __future__ import annotations

import subprocess
import sys

import pytest

from .conftest import ROOT, cli_env

FILES = ["tests/test_blooms_rules.py", "tests/test_blooms_kernels.py", "tests/test_blobs_rules.py",
         "tests/test_nojit.py::test_kernels_are_plain_python_when_jit_is_off",
         "tests/test_mcts.py::test_selection_picks_what_the_ucb_formula_picks"]


def test_kernels_are_plain_python_when_jit_is_off():
    import os
    import types

    from stonegarden.games.blooms import kernels

    if os.environ.get("NUMBA_DISABLE_JIT") == "1":
        assert isinstance(kernels.capture, types.FunctionType)
    else:
        assert not isinstance(kernels.capture, types.FunctionType)


@pytest.mark.nojit
@pytest.mark.slow
def test_kernels_pass_the_rule_tests_without_jit():
    out = subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-p", "no:xdist", "-p", "no:cacheprovider", *FILES],
        cwd=ROOT, env=cli_env(NUMBA_DISABLE_JIT="1"), capture_output=True, text=True, timeout=900,
    )
    assert out.returncode == 0, out.stdout[-3000:] + out.stderr[-2000:]
    assert " passed" in out.stdout and "failed" not in out.stdout
