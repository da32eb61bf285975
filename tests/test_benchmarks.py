"""The commands in ``benchmarks/`` run as documented, at their smallest settings: they print
what they say and fail on bad input with one line, not a traceback. (Their figures are never
checked here: a benchmark reports numbers and never fails a test run on speed.)"""

from __future__ import annotations

import json
import os
import re
import signal
import subprocess
import sys
import time
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
    # a tree each, measured under --parallel tree's name
    (["benchmarks/threads.py", "--parallel", "tree", "--games", "blobs"],
     ["--games", "'blobs' not measured", "no shared tree"]),
    (["benchmarks/territory_eyes.py", "--size", "99"], ["parameter 'size'", "99"]),
    (["benchmarks/bench_search.py", "--size", "99"], ["parameter 'size'", "99"]),
    (["benchmarks/generic_search_speed.py", "chess"], ["unknown game 'chess'"]),
    (["benchmarks/fit_speed.py", "--data", "no-such-folder"], ["no-such-folder"]),
    (["benchmarks/fit_speed.py", "--data", "benchmarks"],
     ["--data 'benchmarks'", "no data folder of stonegarden train"]),
    # the search without a model measured against itself (an AssertionError)
    (["benchmarks/model_speed.py", "--model", "None"], ["--model none", "shipped or a model"]),
    (["benchmarks/versus.py", "--a", "src", "--b", "src", "blooms", "mcts:nosuch=1"],
     ["unknown option(s) nosuch"]),
    # a count or a time that cannot be (ZeroDivisionError, "no median for empty data")
    (["benchmarks/bench_playouts.py", "--rounds", "0"], ["--rounds", "'0'", "1 or more"]),
    (["benchmarks/threads.py", "--games", "blobs", "--rounds", "0"], ["--rounds", "1 or more"]),
    (["benchmarks/threads.py", "--threads", "1"], ["--threads 1", "2 to 64"]),
    (["benchmarks/threads.py", "--threads", "999"], ["--threads 999", "2 to 64"]),
    (["benchmarks/versus.py", "--a", "src", "--b", "src", "blooms", "mcts", "--games", "0"],
     ["--games", "1 or more"]),
    (["benchmarks/territory_tree.py", "--seconds", "-1"], ["--seconds", "'-1'", "above 0"]),
    (["benchmarks/tree_memory.py", "--seconds", "0"], ["--seconds", "'0'", "above 0"]),
    (["benchmarks/server_memory.py", "--games", "0"], ["--games", "'0'", "1 or more"]),
    (["benchmarks/generic_search_speed.py", "blobs", "--repeat", "0"], ["--repeat"]),
    # refused before the run, not after it
    (["benchmarks/dos_cases.py", "--cases", "flood,nosuch"], ["--cases", "'nosuch'", "orphans"]),
    (["benchmarks/first_reply.py", "--games", "blooms,chess"], ["--games", "'chess'"]),
    (["benchmarks/load.py", "--plot"], ["--plot", "--out FILE"]),
    # a seed or a time out of range (numpy's ValueError, math.ceil of nan), a count below 0
    (["benchmarks/model_ranks.py", "--seed", "-1"], ["--seed", "'-1'", "0 or more"]),
    (["benchmarks/resign_check.py", "blooms", "--agents", "random", "random", "--seed", "-1"],
     ["--seed", "0 or more"]),
    (["benchmarks/load.py", "--warm-up", "nan"], ["--warm-up", "'nan'"]),
    (["benchmarks/load_online.py", "--think", "2", "1"], ["--think 2 1", "MIN, then MAX"]),
    (["benchmarks/cli_fuzz.py", "--lines", "-1"], ["--lines", "0 or more"]),
    (["benchmarks/dos_cases.py", "--limit", "-1"], ["--limit", "above 0"]),
    # stonegarden's words, not OpenSpiel's list of its 270 games or its SpielError
    (["benchmarks/openspiel_clone.py", "--game", "nosuch"], ["unknown game 'nosuch'"]),
    (["benchmarks/openspiel_clone.py", "--param", "nosuch=3"], ["no parameter 'nosuch'"]),
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


def test_fit_speed_takes_the_train_folder_and_measures_a_device_against_numpy(
        tmp_path: Path) -> None:
    import stonegarden
    from stonegarden.learn.train import self_play

    self_play(stonegarden.make("freego", size=5), tmp_path / "data", games=2, sims=5, seed=0,
              workers=1, progress=False)
    # the folder train's --out named, as the docs' "--data FOLDER" reads; a tiny fit
    run = bench("benchmarks/fit_speed.py", "--data", str(tmp_path), "--steps", "2",
                "--rounds", "1")
    assert run.returncode == 0, run.stderr
    result = last_json(run.stdout)
    assert result["games"] == 2 and "torch:cpu fits " in run.stdout
    assert {k: len(v) for k, v in result["seconds"].items()} == {"numpy": 1, "torch:cpu": 1}
    one_line_error(bench("benchmarks/fit_speed.py", "--data", str(tmp_path), "--device",
                         "numpy"), "--device numpy", "baseline")


def doc_rows(doc: str, header_start: str) -> list[list[str]]:
    """The body rows of the table in ``doc`` whose header row starts with ``header_start``."""
    lines = (ROOT / doc).read_text().splitlines()
    start = next(i for i, line in enumerate(lines) if line.startswith(header_start))
    rows = []
    for line in lines[start + 2:]:
        if not line.startswith("|"):
            break
        rows.append([cell.strip() for cell in line.strip("|").split("|")])
    return rows


def agrees(text: str, value: float, places: int = 0) -> bool:
    """Whether a doc's figure ``text`` (thousands separated, perhaps in bold) is ``value``
    rounded to ``places`` (either way where the value is a half: the files keep one more
    place, or none, than the doc shows)."""
    shown = float(text.strip("*").replace(",", ""))
    return (len(text.strip("*").partition(".")[2]) == places
            and abs(shown - value) <= 0.5 * 10 ** -places + 1e-9)


def results(name: str) -> dict:
    return json.loads((ROOT / "benchmarks" / "results" / name).read_text())


def test_the_redesign_matches_table_gives_its_result_files_figures() -> None:
    files = {"Free Go": "versus-freego.json", "Blobs": "versus-blobs.json",
             "Bridge Go": "versus-bridgego.json"}
    rows = doc_rows("docs/benchmarks.md", "| game | both sides |")
    assert len(rows) == 3
    for game, sides, record, score in rows:
        data = results(next(f for g, f in files.items() if game.startswith(g)))
        assert sides == f"`{data['spec']}`"
        assert record == f"{data['a_wins']}-{data['b_wins']}-{data['draws']}"
        lo, hi = data["a_score_ci95"]
        point, interval = score.split(" ", 1)
        low, high = interval.strip("[]").split(", ")
        assert agrees(point, data["a_score"], 3), game
        assert agrees(low, lo, 3) and agrees(high, hi, 3), game


def test_the_eye_playout_tables_give_their_result_files_figures() -> None:
    for header, name in [("| n=5, same run (`benchmarks/results/territory-eyes-speed.json`)",
                          "territory-eyes-speed.json"),
                         ("| Blooms n=5, same run (`benchmarks/results/race-eyes-speed.json`)",
                          "race-eyes-speed.json")]:
        data = results(name)
        rows = {row[0]: row[1:] for row in doc_rows("docs/benchmarks.md", header)}
        for label, key in [("playouts/s", "playouts_per_s"),
                           ("mean playout length (turns)", "mean_turns"),
                           ("`mcts` simulations/s", "sims_per_s")]:
            eyes, uniform, ratio = (cell.strip("*") for cell in rows[label])
            places = 1 if key == "mean_turns" else 0
            assert agrees(eyes, data["eyes"][key], places), (name, label)
            assert agrees(uniform, data["uniform"][key], places), (name, label)
            assert agrees(ratio, data["ratio"][key], 2), (name, label)


def test_the_threads_table_gives_its_result_files_figures() -> None:
    names = {"Blooms n=5": "blooms", "Free Go 9×9": "freego",
             "`blooms-territory` n=5": "blooms-territory", "Bridge Go 9×9": "bridgego",
             "Blobs": "blobs"}
    games = {g["game"]: g for g in results("threads-quiet.json")["games"]}
    rows = doc_rows("docs/parallel.md", "| game | 1 tree (sims/s) | 2 trees (sims/s) |")
    assert len(rows) == len(names)
    for game, one, two, ratio, cores in rows:
        data = games[names[game]]
        assert agrees(one, data["sims_per_s_1"]) and agrees(two, data["sims_per_s_2"]), game
        assert agrees(ratio, data["ratio"], 2), game
        # CPU seconds per second of wall time over the rounds, as threads.py prints them
        for text, n in zip(cores.split(" / "), (1, 2), strict=True):
            assert agrees(text, data[f"sims_per_s_{n}"] / data[f"sims_per_cpu_s_{n}"], 2), game


def test_the_shared_tree_table_gives_its_result_files_figures() -> None:
    games = {g["game"]: g for name in ("threads-shared-tree-no-barrier.json",
                                       "threads-shared-tree-territory.json")
             for g in results(name)["games"]}
    rows = doc_rows("docs/parallel.md", "| game | 1 thread (sims/s) | 2 threads, one tree (sims/s) |")
    assert len(rows) == 3
    for game, one, two, ratio, cores, per_cpu in rows:
        data = games[next(g for label, g in [("Blooms", "blooms"), ("Free Go", "freego"),
                                             ("`blooms-territory`", "blooms-territory")]
                          if game.startswith(label))]
        assert agrees(one, data["sims_per_s_1"]) and agrees(two, data["sims_per_s_2"]), game
        assert agrees(ratio, data["ratio"], 2), game
        assert agrees(cores, data["sims_per_s_2"] / data["sims_per_cpu_s_2"], 2), game
        assert agrees(per_cpu, data["sims_per_cpu_s_2"] / data["sims_per_cpu_s_1"], 2), game


def test_every_result_file_is_described_and_says_how_it_was_made() -> None:
    folder = ROOT / "benchmarks" / "results"
    readme = (folder / "README.md").read_text()
    for path in sorted(folder.iterdir()):
        if path.is_file() and path.name != "README.md":
            assert f"`{path.name}`" in readme, f"{path.name} is not in results/README.md"
        if path.suffix == ".json":
            text = path.read_text()
            json.loads(text)
            # the code measured: "code", the checkouts' "versions", versus.py's "a" and "b",
            # or the commit that first recorded figures kept from before
            assert '"command' in text and any(
                key in text for key in ('"code', '"versions"', '"a": "', '"recorded_in"')), \
                path.name


def test_every_result_file_a_page_cites_is_there() -> None:
    folder = ROOT / "benchmarks" / "results"
    pages = [ROOT / "README.md", *sorted((ROOT / "docs").rglob("*.md"))]
    for page in pages:
        for name in re.findall(r"benchmarks/results/([\w.-]+\.(?:json|csv|png))",
                               page.read_text()):
            if "GAME" not in name:  # level6-GAME.json and the like name several
                assert (folder / name).is_file(), f"{page.name} cites {name}"


def test_seeded_moves_says_which_checkout_it_ran_and_compares_two_runs(tmp_path: Path) -> None:
    run = bench("benchmarks/seeded_moves.py")
    assert run.returncode == 0, run.stderr
    assert "search 19/19" in run.stderr and "game 4/4" in run.stderr
    ours = json.loads(run.stdout)
    assert ours["src"] == str(ROOT / "src") and ours["code"].startswith(
        subprocess.run(["git", "-C", str(ROOT), "rev-parse", "HEAD"], capture_output=True,
                       text=True).stdout.strip())
    other = {**ours, "code": "0" * 40, "searches": ours["searches"][:-1]}
    (tmp_path / "a.json").write_text(run.stdout)
    (tmp_path / "b.json").write_text(json.dumps(other))
    compared = bench("benchmarks/seeded_moves.py", "--compare", str(tmp_path / "a.json"),
                     str(tmp_path / "b.json"))
    assert compared.returncode == 1
    assert compared.stdout.startswith(f"a: {ours['code']}, b: {'0' * 40}\n")
    one_line_error(bench("benchmarks/seeded_moves.py", "--compare", "no-such.json", "b.json"),
                   "--compare", "no-such.json")


def test_a_measuring_process_that_fails_is_named_in_one_line(tmp_path: Path) -> None:
    broken = tmp_path / "baseline.py"
    broken.write_text("import sys\nsys.exit('this baseline cannot run')\n")
    one_line_error(bench("benchmarks/bench_playouts.py", "--baseline", str(broken),
                         "--seconds", "0.1", "--rounds", "1"),
                   "baseline.py 5 20 0.2", "this baseline cannot run")
    one_line_error(bench("benchmarks/bench_playouts.py", "--size", "99"), "'size'", "99")
    one_line_error(bench("benchmarks/compare_versions.py", "--version", "a=src", "--baseline",
                         str(tmp_path / "none.py")), "--baseline", "none.py")
    one_line_error(bench("benchmarks/compare_versions.py", "--version", "a=src", "--only",
                         "chess"), "--only 'chess'")
    # the figures are kept by name: two checkouts under one name were merged into one median
    one_line_error(bench("benchmarks/compare_versions.py", "--version", "a=src", "--version",
                         "a=src", "--only", "blobs playouts", "--rounds", "1", "--seconds",
                         "0.1"), "--version", "the name 'a' is given twice")
    one_line_error(bench("benchmarks/compare_versions.py", "--version", "baseline=src",
                         "--baseline", "benchmarks/baseline_blooms.py", "--only", "blooms n=5",
                         "--rounds", "1", "--seconds", "0.1"),
                   "the name 'baseline' is the --baseline playout's")
    one_line_error(bench("benchmarks/compare_versions.py", "--version", "=src", "--only",
                         "blobs playouts"), "the name '' is empty")


@pytest.mark.parametrize("stop", ["Ctrl-C", "SIGTERM"])
def test_a_stopped_match_says_so_in_one_line_and_leaves_no_worker(stop: str) -> None:
    from stonegarden.jobs.procs import alive, descendants

    env = {**os.environ, "PYTHONPATH": str(ROOT / "src")}
    # a terminal's Ctrl-C reaches the whole foreground group (the workers too); SIGTERM the
    # script alone. The shell's background jobs ignore SIGINT: put it back to its default.
    run = subprocess.Popen(
        [sys.executable, "-c", "import os, signal, sys; signal.signal(signal.SIGINT, "
         "signal.SIG_DFL); os.execv(sys.executable, [sys.executable, *sys.argv[1:]])",
         "benchmarks/versus.py", "--a", "src", "--b", "src", "blooms", "mcts:sims=1000000",
         "--games", "4", "--workers", "1"],
        cwd=ROOT, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
        start_new_session=True)
    deadline = time.monotonic() + 60
    while len(descendants(run.pid)) < 2 and time.monotonic() < deadline:  # both sides' workers
        time.sleep(0.1)
    workers = descendants(run.pid)
    assert len(workers) >= 2
    time.sleep(1)  # a worker thinking: the first game's first move
    if stop == "Ctrl-C":
        os.killpg(run.pid, signal.SIGINT)
    else:
        run.send_signal(signal.SIGTERM)
    _, err = run.communicate(timeout=60)
    assert run.returncode == 130, err
    assert "Traceback" not in err, err
    assert err.strip().splitlines()[-1] == "versus.py: stopped, nothing measured is kept"
    # the workers go with it: awaited (a fixed 0.5 s raced a loaded machine's teardown)
    deadline = time.monotonic() + 10
    while [p for p in workers if alive(p)] and time.monotonic() < deadline:
        time.sleep(0.05)
    assert not [p for p in workers if alive(p)]


def test_a_worker_that_ends_is_named_in_one_line(tmp_path: Path) -> None:
    broken = tmp_path / "stonegarden"
    broken.mkdir()
    (broken / "__init__.py").write_text("raise SystemExit('this checkout cannot start')\n")
    one_line_error(bench("benchmarks/versus.py", "--a", "src", "--b", str(tmp_path), "blooms",
                         "mcts:sims=10", "--param", "size=3", "--games", "2", "--workers", "1"),
                   f"the worker of {tmp_path} ended: this checkout cannot start")


def test_openspiel_clone_plays_no_further_than_the_games_end() -> None:
    run = bench("benchmarks/openspiel_clone.py", "--param", "size=2", "--moves", "1000",
                "--seconds", "0.05")
    assert run.returncode == 0, run.stderr
    result = last_json(run.stdout)
    assert 0 < result["moves"] < 1000 and result["clones_per_s_game_shared"] > 0


def test_bench_search_switches_off_the_model_plain_mcts_loads_too() -> None:
    run = bench("benchmarks/bench_search.py", "--size", "3", "--seconds", "0.02")
    assert run.returncode == 0, run.stderr
    shown = [line.split()[0] for line in run.stdout.splitlines()[1:]]
    assert shown[:3] == ["uct-flat", "mcts", "mcts:model=none"]


@pytest.mark.parametrize("name", ["model-strength.png", "balance-freego-9.png",
                                  "balance-first-player.png"])
def test_a_plot_in_the_results_says_how_it_was_drawn(name: str) -> None:
    # load.png is drawn by the load run from latencies its JSON does not keep: not redrawn
    from PIL import Image

    fields = Image.open(ROOT / "benchmarks" / "results" / name).info
    assert fields["Command"].startswith("python3 benchmarks/plot_"), fields
    assert re.fullmatch(r"[0-9a-f]{40}(\+dirty)?", fields["Code"]), fields


@pytest.mark.slow
def test_a_load_run_keeps_the_latencies_it_plots_and_writes_strict_json(tmp_path: Path) -> None:
    out = tmp_path / "load.json"
    run = bench("benchmarks/load.py", "--seconds", "3", "--warm-up", "0", "--people-games", "1",
                "--ai-games", "0", "--out", str(out), timeout=300)
    assert run.returncode == 0, run.stderr

    def strict(word: str) -> None:
        raise AssertionError(f"{word} is not JSON")

    result = json.loads(out.read_text(), parse_constant=strict)
    for kind, summary in result["by_kind"].items():
        kept = result["latencies_ms"][kind]
        assert len(kept) == summary["count"] and kept == sorted(kept)
        assert kept[-1] == summary["max_ms"]


def test_a_load_run_whose_server_never_answers_says_so() -> None:
    """A server that exited at once (a taken port, a broken install) ended the run with a
    ``TypeError`` from its first measurement, nothing said of the server."""
    dies = ("import runpy, subprocess, sys\n"
            "sys.path.insert(0, 'benchmarks')\n"
            "real = subprocess.Popen\n"
            "subprocess.Popen = lambda args, **kw: real([sys.executable, '-c', "
            "'raise SystemExit(3)'], **kw)\n"
            "sys.argv = ['load.py', '--seconds', '1', '--warm-up', '0']\n"
            "runpy.run_path('benchmarks/load.py', run_name='__main__')\n")
    run = bench("-c", dies, timeout=120)
    assert run.returncode == 1, run.stderr
    assert "the server exited with status 3 before it answered" in run.stderr
    assert "Traceback" not in run.stderr


def test_threads_measures_one_shared_tree_only_in_the_games_that_have_one() -> None:
    run = bench("benchmarks/threads.py", "--parallel", "tree", "--seconds", "0.02", "--rounds",
                "1", timeout=300)
    assert run.returncode == 0, run.stderr
    result = last_json(run.stdout)
    assert result["parallel"] == "tree"
    assert [row["game"] for row in result["games"]] == ["blooms", "freego", "blooms-territory"]


def test_threads_shows_its_progress_search_by_search() -> None:
    run = bench("benchmarks/threads.py", "--games", "blooms", "--seconds", "0.02", "--rounds",
                "1")
    assert run.returncode == 0, run.stderr
    assert "blooms: 1/2 searches" in run.stderr and "blooms: 2/2 searches" in run.stderr
    assert last_json(run.stdout)["games"][0]["ratio"] > 0


def test_the_servers_memory_is_read_after_each_block_of_games(tmp_path):
    """Each block of games is played to its end against a real server (a made game, a read,
    a move and a resignation, each answer checked), and the server's memory read after it."""
    out = tmp_path / "memory.json"
    run = bench("benchmarks/server_memory.py", "--games", "15", "--blocks", "2", "--out",
                str(out))
    assert run.returncode == 0, run.stderr
    result = json.loads(out.read_text())
    assert [b["games"] for b in result["blocks"]] == [15, 30]
    assert all(b["resident_mib"] > 20 for b in result["blocks"])
    assert len(result["bytes_per_game_after_the_first_block"]) == 1
    assert result["command"].endswith("server_memory.py --games 15 --blocks 2 --out "
                                      + str(out))
