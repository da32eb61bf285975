"""The commands in ``benchmarks/`` run as documented, at their smallest settings: they print
what they say and fail on bad input with one line, not a traceback. (Their figures are never
checked here: a benchmark reports numbers and never fails a test run on speed.)"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

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


def one_line_error(run: subprocess.CompletedProcess[str], *words: str) -> None:
    """A failed run that says why in its last line, with no traceback."""
    assert run.returncode != 0
    assert "Traceback" not in run.stderr, run.stderr
    last = run.stderr.strip().splitlines()[-1]
    for word in words:
        assert word in last, last


def test_a_checkout_without_the_package_is_refused_not_measured_as_the_installed_one(
        tmp_path: Path) -> None:
    # a PYTHONPATH without stonegarden in it imports the installed package instead
    one_line_error(bench("benchmarks/versus.py", "--a", str(tmp_path), "--b", "src", "blooms",
                         "mcts:sims=10", "--games", "1"),
                   "--a", repr(str(tmp_path)), "no stonegarden package")
    one_line_error(bench("benchmarks/compare_versions.py", "--version", f"old={tmp_path}",
                         "--only", "blobs playouts", "--rounds", "1", "--seconds", "0.1"),
                   f"old={tmp_path}", "no stonegarden package")
    one_line_error(bench("benchmarks/cli_fuzz.py", "--src", str(tmp_path)),
                   "--src", "no stonegarden package")


def test_versus_records_each_checkouts_commit() -> None:
    run = bench("benchmarks/versus.py", "--a", "src", "--b", "src", "blooms", "mcts:sims=10",
                "--param", "size=3", "--games", "2", "--workers", "1")
    assert run.returncode == 0, run.stderr
    assert "2/2: A" in run.stderr  # progress, game by game
    result = json.loads(run.stdout.strip().splitlines()[-1])
    assert result["games"] == 2 and result["a"] == result["b"]
    head = subprocess.run(["git", "-C", str(ROOT), "rev-parse", "HEAD"], capture_output=True,
                          text=True).stdout.strip()
    assert result["a"].removesuffix("+dirty") == head


@pytest.mark.parametrize(("args", "words"), [
    (["benchmarks/model_speed.py", "--games", "chess"], ["unknown game 'chess'"]),
    (["benchmarks/model_speed.py", "--games", "freego", "--options", "nosuch=3"],
     ["unknown option(s) nosuch"]),
    (["benchmarks/model_ranks.py", "--game", "blooms"],
     ["--game blooms", "reads no model", "bridgego"]),
    (["benchmarks/threads.py", "--games", "blooms,chess"], ["--games", "'chess'"]),
    (["benchmarks/territory_eyes.py", "--size", "99"], ["parameter 'size'", "99"]),
    (["benchmarks/bench_search.py", "--size", "99"], ["parameter 'size'", "99"]),
    (["benchmarks/generic_search_speed.py", "chess"], ["unknown game 'chess'"]),
    (["benchmarks/fit_speed.py", "--data", "no-such-folder"], ["no-such-folder"]),
    (["benchmarks/versus.py", "--a", "src", "--b", "src", "blooms", "mcts:nosuch=1"],
     ["unknown option(s) nosuch"]),
    # refused before its games are played, not after them
    (["benchmarks/resign_check.py", "blooms", "--agents", "random", "random", "--games", "4",
      "--rules", "0.05:2,0.6:2"], ["--rules", "between 0 and 0.5, not 0.6"]),
])
def test_a_bad_option_or_file_is_one_line_not_a_traceback(args: list[str],
                                                          words: list[str]) -> None:
    one_line_error(bench(*args), *words)


def test_a_long_measurement_shows_its_progress_and_prints_its_result() -> None:
    run = bench("benchmarks/territory_tree.py", "--seconds", "0.05", "--rounds", "1")
    assert run.returncode == 0, run.stderr
    # a line a step where stderr is not a terminal: 3 positions, 2 trees
    assert "blooms-territory n=5: 1/6 searches" in run.stderr
    assert "6/6 searches" in run.stderr
    result = last_json(run.stdout)
    assert result["command"].endswith("benchmarks/territory_tree.py --seconds 0.05 --rounds 1")
    assert result["sims_per_s"]["compiled"] > 0 and result["sims_per_s"]["protocol"] > 0
    assert result["ratio"] > 0


def test_model_speed_counts_its_searches_game_by_game() -> None:
    run = bench("benchmarks/model_speed.py", "--games", "blooms", "--seconds", "0.05",
                "--rounds", "1")
    assert run.returncode == 0, run.stderr
    assert "blooms: 6/6 searches" in run.stderr
    assert last_json(run.stdout)["games"][0]["model"] == "blooms.npz"
