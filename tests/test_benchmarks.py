"""The commands in ``benchmarks/`` run as documented, at their smallest settings: they print
what they say and fail on bad input with one line, not a traceback. (Their figures are never
checked here: a benchmark reports numbers and never fails a test run on speed.)"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def bench(*args: str, pythonpath: str | None = str(ROOT / "src"),
          timeout: float = 120) -> subprocess.CompletedProcess[str]:
    """``python3 benchmarks/ARGS...`` from the checkout, as the docs run them."""
    env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
    if pythonpath is not None:
        env["PYTHONPATH"] = pythonpath
    return subprocess.run([sys.executable, *args], cwd=ROOT, env=env, capture_output=True,
                          text=True, timeout=timeout)


def last_json(out: str) -> dict:
    """The JSON object a benchmark prints last (indented over several lines)."""
    return json.loads(out[out.rindex("\n{") + 1:] if "\n{" in out else out)


def test_bench_playouts_runs_against_the_baseline_in_the_repository() -> None:
    run = bench("benchmarks/bench_playouts.py", "--seconds", "0.2", "--rounds", "1")
    assert run.returncode == 0, run.stderr
    result = last_json(run.stdout)
    assert result["baseline"] == "benchmarks/baseline_blooms.py"
    assert result["baseline_playouts_per_s"] > 0 and result["stonegarden_playouts_per_s"] > 0
    assert result["ratio"] > 0


def test_a_benchmark_measures_this_checkouts_code_whatever_is_installed() -> None:
    # the scripts that record code_version() import provenance before stonegarden
    run = bench("-c", "import sys; sys.path.insert(0, 'benchmarks'); import provenance, "
                "stonegarden; print(stonegarden.__file__)", pythonpath=None)
    assert run.returncode == 0, run.stderr
    assert Path(run.stdout.strip()) == ROOT / "src" / "stonegarden" / "__init__.py"
