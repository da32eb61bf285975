"""The lab end to end through the CLI: study report, sweep recommendation, resuming."""

from __future__ import annotations

import contextlib
import functools
import io
import json
import os
import shlex
import signal
import sqlite3
import subprocess
import sys
import time
import types
import unittest.mock
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from stonegarden.stats import MatchStats, seat_adjusted

from .conftest import cli_env, ctrl_c_as_in_a_terminal, refused_as_in_use, run_cli

SWEEP = ["sweep", "blooms", "--grid", "size=3,4", "--grid", "target=4:8:2", "--agent", "random",
         "--games", "12", "--seed", "5"]


def cells_of(path):
    data = json.loads((path / "sweep.json").read_text())
    return [(c["params"], c["summary"]) for c in data["cells"]], data["recommendation"]


@pytest.mark.slow
def test_study_writes_report_plots_and_replayable_records(tmp_path):
    out = run_cli("study", "blooms", "--param", "size=3", "--param", "target=5", "--agent",
                  "random", "--games", "10", "--workers", "2", "--out", str(tmp_path))
    assert out.returncode == 0, out.stderr
    summary = json.loads(out.stdout.strip().splitlines()[-1])
    assert summary["games"] == 10
    # the balance figure, draws counting half (Blobs draws a third of its games), is printed too
    assert summary["first_player_score"] == json.loads(
        (tmp_path / "summary.json").read_text())["summary"]["first_player_score"]
    for name in ("report.md", "report.html", "summary.json", "plots/length.png",
                 "plots/length.svg", "plots/branching.png", "plots/reasons.svg"):
        assert (tmp_path / name).exists(), name
    records = sorted((tmp_path / "records").glob("*.json"))
    assert len(records) == 10
    again = run_cli("replay", str(records[3]), "--json")
    assert again.returncode == 0 and json.loads(again.stdout.splitlines()[-1])["terminal"]
    text = (tmp_path / "report.md").read_text()
    assert "first player wins" in text and "Reproduce: `stonegarden study blooms" in text
    # the share of games the mid-game leader won is of the games that had one
    leader = json.loads((tmp_path / "summary.json").read_text())["summary"]["midgame_leader_wins"]
    assert f"| player ahead at mid-game wins (of the {leader['n']} games with a player ahead) |" in text


@pytest.mark.slow
def test_study_of_two_agents_reports_elo(tmp_path):
    out = run_cli("study", "blooms", "--param", "size=3", "--agents", "greedy", "random",
                  "--games", "6", "--out", str(tmp_path))
    assert out.returncode == 0, out.stderr
    s = json.loads((tmp_path / "summary.json").read_text())["summary"]
    assert s["a_wins"] + s["b_wins"] + round(s["draw_rate"]["value"] * 6) == 6
    assert "elo_a_minus_b" in s
    # what a comparison of two agents asks is printed, and the report splits it by seat
    printed = json.loads(out.stdout.strip().splitlines()[-1])
    assert {k: printed[k] for k in ("a_score", "elo_a_minus_b", "a_by_seat")} == {
        k: s[k] for k in ("a_score", "elo_a_minus_b", "a_by_seat")}
    first, second = s["a_by_seat"]["first"], s["a_by_seat"]["second"]
    split = (f"| A's wins-losses-draws moving first / second | "
             f"{first['a_wins']}-{first['b_wins']}-{first['draws']} / "
             f"{second['a_wins']}-{second['b_wins']}-{second['draws']} |")
    assert split in (tmp_path / "report.md").read_text()


@pytest.mark.slow
def test_asking_for_more_games_extends_the_same_study(tmp_path):
    run_cli("study", "blooms", "--param", "size=3", "--agent", "random", "--games", "4",
            "--out", str(tmp_path))
    out = run_cli("study", "blooms", "--param", "size=3", "--agent", "random", "--games", "7",
                  "--out", str(tmp_path))
    assert out.returncode == 0
    db = sqlite3.connect(tmp_path / "lab.sqlite")
    assert db.execute("SELECT COUNT(*) FROM games").fetchone()[0] == 7


def test_a_study_asked_again_with_its_agents_spelt_otherwise_goes_on_with_its_games(tmp_path):
    """Options in another order (or 0.20 for 0.2) started another study, which played every
    game again; its games are the study's, A's among them counted as A's."""
    common = ("study", "blooms", "--param", "size=3", "--out", str(tmp_path))
    first = run_cli(*common, "--agents", "mcts:sims=5,c=0.2", "random", "--games", "3")
    assert first.returncode == 0, first.stderr
    again = run_cli(*common, "--agents", "MCTS:c=0.20, sims=5", "random:", "--games", "5")
    assert again.returncode == 0, again.stderr
    assert "5/5 games" in again.stderr and "1/5 games" not in again.stderr  # 2 played, not 5
    db = sqlite3.connect(tmp_path / "lab.sqlite")
    assert db.execute("SELECT COUNT(*), COUNT(DISTINCT study) FROM games").fetchone() == (5, 1)
    whole = tmp_path / "whole"
    assert run_cli(*common[:-1], str(whole), "--agents", "mcts:sims=5,c=0.2", "random",
                   "--games", "5").returncode == 0
    summary = json.loads((tmp_path / "summary.json").read_text())["summary"]
    assert summary == json.loads((whole / "summary.json").read_text())["summary"]


def test_an_agent_with_a_default_written_out_is_the_same_agent_and_its_study(tmp_path):
    """``mcts:sims=5`` and ``mcts:sims=5,c=0.2`` search alike in Blooms (its c is 0.2) but
    were two studies: the second played every game again, and as A and B they were compared
    as two agents."""
    common = ("study", "blooms", "--param", "size=3", "--out", str(tmp_path))
    first = run_cli(*common, "--agent", "mcts:sims=5", "--games", "2")
    assert first.returncode == 0, first.stderr
    again = run_cli(*common, "--agent", "mcts:sims=5,c=0.2", "--games", "3")
    assert again.returncode == 0, again.stderr
    assert "3/3 games" in again.stderr and "1/3 games" not in again.stderr  # 1 played, not 3
    db = sqlite3.connect(tmp_path / "lab.sqlite")
    assert db.execute("SELECT COUNT(*), COUNT(DISTINCT study) FROM games").fetchone() == (3, 1)
    pair = run_cli(*common, "--agents", "mcts:sims=5", "mcts:c=0.2,sims=5", "--games", "3")
    assert pair.returncode == 0, pair.stderr
    assert "are one agent in blooms" in pair.stderr
    summary = json.loads((tmp_path / "summary.json").read_text())["summary"]
    assert "elo_a_minus_b" not in summary and "against itself" in (tmp_path / "report.md").read_text()
    assert db.execute("SELECT COUNT(*) FROM games").fetchone()[0] == 3  # no game played


def test_an_agents_identity_is_its_settings_in_the_game():
    import stonegarden
    from stonegarden.lab.selfplay import agent_identity

    blooms, freego = stonegarden.make("blooms", size=3), stonegarden.make("freego")
    assert agent_identity("mcts:sims=5", blooms) == agent_identity("mcts:sims=5,c=0.2", blooms)
    # Free Go searches with c=0.05 by default: there c=0.2 is another agent
    assert agent_identity("mcts:sims=5", freego) != agent_identity("mcts:sims=5,c=0.2", freego)
    assert agent_identity("mcts:sims=5", freego) == agent_identity("mcts:c=0.05,sims=5", freego)
    # Blobs loads no model unless asked: model=none is its default, shipped is not
    blobs = stonegarden.make("blobs")
    assert agent_identity("mcts:sims=5", blobs) == agent_identity("mcts:sims=5,model=none", blobs)
    assert agent_identity("mcts:sims=5", blobs) != agent_identity("mcts:sims=5,model=shipped", blobs)
    assert agent_identity("mcts:sims=5", blooms) != agent_identity("mcts:sims=6", blooms)
    assert agent_identity("level:3", blooms) == "level:3" != agent_identity("level:4", blooms)
    assert agent_identity("random:seed=1", blooms) == agent_identity("RANDOM: seed=01", blooms)


def test_the_cells_of_a_sweep_check_their_agents_quickly():
    """Each check of a search agent's model in a game, and each identity of it, made the
    game's learner and with it its pattern classes again (35-60 ms of CPU): a sweep of 1,000
    cells spent a minute or two on them before its first game."""
    from stonegarden.lab.study import check_spec, study_identity

    agents = ("mcts:sims=10", "mcts:sims=10,c=0.2")
    check_spec("freego", {}, agents)  # the first pays for the imports and the classes
    check_spec("blooms", {"size": 5}, agents)
    start = time.process_time()
    for target in range(4, 104):
        for game, params in (("blooms", {"size": 5, "target": target}),
                             ("freego", {"size": 9, "target": target})):
            check_spec(game, params, agents)
            study_identity({"game": game, "params": params, "agents": list(agents), "seed": 0})
    assert time.process_time() - start < 4  # 200 cells: about 0.5 s, was 15-25 s


def _copy_of_the_shipped_model(folder: Path) -> Path:
    import shutil

    import stonegarden
    from stonegarden.search.profile import profile_for

    shipped = Path(profile_for(stonegarden.make("blooms")).shipped_model_path())
    for suffix in (".npz", ".json"):
        shutil.copy(shipped.with_suffix(suffix), folder / f"mine{suffix}")
    return folder / "mine.npz"


def _edit_prior(model: Path, prior: int) -> None:
    notes = model.with_suffix(".json")
    notes.write_text(json.dumps({**json.loads(notes.read_text()), "prior": prior}))


def test_a_study_whose_model_file_changed_is_refused_and_one_stored_before_goes_on(tmp_path):
    """A model's .json prior edited between two runs of a study was not seen: the study
    went on, its games played with either prior counted as one study's."""
    from stonegarden.errors import ParameterError
    from stonegarden.lab.study import StudySpec, run_study
    from stonegarden.lab.study_store import StudyStore

    model = _copy_of_the_shipped_model(tmp_path)
    agent = f"mcts:sims=5,model={model}"
    spec = StudySpec("blooms", {"size": 3}, (agent, "random"))
    out = tmp_path / "out"
    with StudyStore(out / "lab.sqlite") as store:
        assert len(run_study(spec, 2, store, console=None)) == 2
    _edit_prior(model, 31)
    with StudyStore(out / "lab.sqlite") as store, pytest.raises(
            ParameterError, match=rf"the model '{model}' \(prior 30 now 31\) is not the one "
                                  r"the 2 games stored .* another --out"):
        run_study(spec, 3, store, console=None)
    # a study stored before its inputs were recorded goes on, and holds to them from then
    sqlite3.connect(out / "lab.sqlite").execute("DELETE FROM inputs").connection.commit()
    with StudyStore(out / "lab.sqlite") as store:
        assert len(run_study(spec, 3, store, console=None)) == 3
    _edit_prior(model, 30)
    with StudyStore(out / "lab.sqlite") as store, pytest.raises(ParameterError,
                                                                match="prior 31 now 30"):
        run_study(spec, 3, store, console=None)


@pytest.mark.slow
def test_another_study_in_the_same_folder_leaves_only_its_own_records(tmp_path):
    """Records of an earlier study in the folder (another experiment, or more games) would
    read as this study's games."""
    run_cli("study", "blooms", "--param", "size=3", "--agent", "random", "--games", "6",
            "--out", str(tmp_path))
    out = run_cli("study", "blooms", "--param", "size=3", "--agents", "random", "greedy",
                  "--games", "3", "--out", str(tmp_path))
    assert out.returncode == 0, out.stderr
    records = sorted((tmp_path / "records").glob("game-*.json"))
    assert [r.name for r in records] == [f"game-{i:05d}.json" for i in range(3)]
    assert all("greedy" in json.loads(r.read_text())["players"].values() for r in records)


@pytest.mark.slow
def test_interrupted_sweep_resumes_to_the_same_table(tmp_path):
    full = tmp_path / "full"
    assert run_cli(*SWEEP, "--out", str(full)).returncode == 0
    part = tmp_path / "part"
    proc = subprocess.Popen([sys.executable, "-m", "stonegarden", *SWEEP, "--out", str(part)],
                            env=cli_env(), stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    db_path = part / "lab.sqlite"
    stored = 0
    deadline = time.time() + 120
    while time.time() < deadline and proc.poll() is None:
        if db_path.exists():
            try:
                stored = sqlite3.connect(db_path).execute("SELECT COUNT(*) FROM games").fetchone()[0]
            except sqlite3.Error:
                stored = 0
            if stored >= 10:
                break
        time.sleep(0.02)
    if proc.poll() is not None:
        pytest.fail("the sweep finished before it could be interrupted; make it longer")
    os.kill(proc.pid, signal.SIGKILL)
    proc.wait()
    count = sqlite3.connect(db_path).execute("SELECT COUNT(*) FROM games").fetchone()[0]
    assert 10 <= count < 72
    assert run_cli(*SWEEP, "--out", str(part)).returncode == 0
    assert cells_of(part) == cells_of(full)


@pytest.mark.parametrize("args,needle", [
    (["study", "blooms", "--games", "3", "--out", "x"], "--agent"),
    (["study", "blooms", "--agent", "random", "--agents", "random", "random", "--games", "2",
      "--out", "x"], "not both"),
    (["study", "blooms", "--agent", "nobody", "--games", "2", "--out", "x"], "unknown agent"),
    (["sweep", "blooms", "--grid", "size=7:3", "--agent", "random", "--games", "2", "--out", "x"],
     "empty range"),
    (["ladder", "blooms", "--agent", "mcts:time=1", "--games", "2", "--out", "x"],
     "agent 'mcts:time=1' sets 'time', which the ladder doubles from --base"),
    # the doubling runs past what the option takes: say which of the ladder's options to change
    (["ladder", "blooms", "--base", "0.25", "--steps", "12", "--games", "2", "--out", "x"],
     "(at the ladder's step 12: time=1024 is --base 0.25 doubled 12 times; ask for at most 11 "
     "--steps, or a smaller --base)"),
    (["sweep", "blooms", "--grid", "size=3:7:0", "--agent", "random", "--games", "2", "--out",
      "x"], "the step must be 1 or more, not 0"),
    (["sweep", "blooms", "--grid", "size=2,99", "--agent", "random", "--games", "2", "--out", "x"],
     "above 12"),
    (["ladder", "blooms", "--agent", "random", "--key", "seed", "--steps", "0", "--games", "2",
      "--out", "x"], "0"),
    (["study", "blooms", "--agent", "random", "--games", "2", "--seed", "-1", "--out", "x"],
     "not in the range"),
    (["match", "blooms", "random", "random", "--games", "2", "--seed", "-1"], "not in the range"),
    # a seed whose games' agents would get seeds beyond 2**63: refused before any game
    (["study", "blooms", "--agent", "mcts:sims=5", "--games", "2", "--seed",
      "4611686018427387904", "--out", "x"], "0<=x<=4294967295"),
    (["match", "blooms", "mcts:sims=5", "random", "--games", "2", "--seed",
      "4611686018427387904"], "0<=x<=4294967295"),
    (["study", "blooms", "--agent", "random", "--games", "2", "--out", "FILE/o"], "--out"),
    (["study", "blooms", "--agent", "random", "--games", "2", "--out", "JUNK"],
     "not a usable lab database"),
    (["sweep", "blooms", "--grid", "size=3,4", "--grid", "size=5", "--agent", "random",
      "--games", "2", "--out", "x"], "twice"),
    (["sweep", "blooms", "--grid", "size=3,3", "--agent", "random", "--games", "2",
      "--out", "x"], "a value twice"),
    (["sweep", "blooms", "--param", "size=3", "--grid", "size=4,5", "--agent", "random",
      "--games", "2", "--out", "x"], "error: 'size' is both fixed (--param) and swept (--grid)"),
    # one value is the same in every cell: a --param, not a sweep (it played and recommended
    # the only cell there was)
    (["sweep", "blooms", "--grid", "size=5", "--agent", "random", "--games", "2", "--out",
      "x"], "error: --grid 'size=5' gives one value: a sweep compares two or more; for that "
     "value in every cell give --param size=5\n"),
    (["sweep", "blooms", "--grid", "size=3,4", "--grid", "target=10:12:5", "--agent", "random",
      "--games", "2", "--out", "x"], "give --param target=10\n"),
    (["train", "blooms", "--games", "2", "--out", "FILE/t"], "--out"),
    # every game asked for is a task in memory before the first is played
    (["study", "blooms", "--agent", "random", "--games", "100000000000", "--out", "x"],
     "1<=x<=1000000"),
    (["match", "blooms", "random", "random", "--games", "100000000000"], "1<=x<=1000000"),
    (["train", "blooms", "--games", "100000000000", "--out", "x"], "2<=x<=1000000"),
    (["sweep", "blooms", "--grid", "target=1:200", "--agent", "random", "--games", "10000",
      "--out", "x"], "2000000 games, more than one run plays"),
])
@pytest.mark.slow
def test_bad_lab_input_exits_with_a_message(tmp_path, args, needle):
    (tmp_path / "file").write_text("a file, not a folder")
    (tmp_path / "junk").mkdir()
    (tmp_path / "junk" / "lab.sqlite").write_bytes(b"not a database" * 100)
    places = {"x": tmp_path / "o", "FILE/o": tmp_path / "file" / "o",
              "FILE/t": tmp_path / "file" / "t", "JUNK": tmp_path / "junk"}
    args = [str(places[a]) if a in places else a for a in args]
    out = run_cli(*args)
    assert out.returncode == 2 and needle in out.stderr and "Traceback" not in out.stderr


@pytest.mark.parametrize("command", [
    ["study", "blooms", "--agents", "random", "--games", "4"],
    ["sweep", "blooms", "--grid", "size=3,4", "--agents", "greedy", "--games", "4"],
])
def test_agents_given_one_spec_says_so_not_that_the_next_option_is_missing(tmp_path, command):
    """``--agents`` takes the two words after it: given one agent, it took ``--games`` for the
    second and answered "Missing option '--games'", of a command that gave it."""
    out = run_cli(*command, "--out", str(tmp_path / "o"))
    assert out.returncode == 2, out.stderr
    assert "Missing option" not in out.stderr
    assert ("'--agents': it takes two agent specs, A B, and '--games' is an option, not an "
            "agent") in out.stderr
    assert not (tmp_path / "o").exists()


@pytest.mark.parametrize("command", [
    ["study", "blooms", "--agent", "mcts:sims=50,seed=3"],
    ["study", "blooms", "--agents", "greedy", "random:seed=1"],
    ["sweep", "blooms", "--grid", "size=3,4", "--agent", "random:seed=1"],
    ["ladder", "blooms", "--agent", "mcts:seed=1", "--key", "sims", "--base", "8"],
])
def test_an_agent_that_sets_its_own_seed_is_refused(tmp_path, command):
    """With its seed fixed, an agent plays the same way in every game: a study of Blooms (no
    chance) played one game N times and gave it an interval as if it were N games."""
    out = run_cli(*command, "--games", "4", "--out", str(tmp_path / "o"))
    assert out.returncode == 2, out.stderr
    assert "sets its own seed: it would play the same way in every game" in out.stderr
    assert "leave seed= out: the lab seeds each game's agents from --seed" in out.stderr
    assert not (tmp_path / "o").exists()


@pytest.mark.parametrize("command", [
    ["sweep", "blooms", "--grid", "target=1:200", "--agent", "random", "--games", "10000"],
    ["ladder", "blooms", "--agent", "mcts", "--key", "time", "--base", "0.001", "--steps", "19",
     "--games", "60000"],
])
def test_a_run_refused_for_its_size_writes_nothing(tmp_path, command):
    out = run_cli(*command, "--out", str(tmp_path / "o"))
    assert out.returncode == 2 and "more than one run plays" in out.stderr
    assert not (tmp_path / "o").exists()


@pytest.mark.slow
def test_ladder_over_a_doubling_option(tmp_path):
    out = run_cli("ladder", "blooms", "--param", "size=3", "--agent", "mcts", "--key", "sims",
                  "--base", "8", "--steps", "2", "--games", "4", "--resign", "0.3",
                  "--out", str(tmp_path))
    assert out.returncode == 0, out.stderr
    steps = json.loads((tmp_path / "ladder.json").read_text())
    assert [s["strong"] for s in steps] == ["mcts:sims=16", "mcts:sims=32"]
    # the file says what was measured, read on its own
    assert all(s["game"] == "blooms" and s["game_params"] == {
        "size": 3, "target": 10, "holes": [], "start_scores": [0, 0]} for s in steps)
    assert [s["weak"] for s in steps] == ["mcts:sims=8", "mcts:sims=16"]
    assert all(s["games"] == 4 for s in steps)
    for s in steps:   # seats alternate: two games each way, adding up to the step's result
        first, second = s["by_seat"]["first"], s["by_seat"]["second"]
        assert first["games"] == second["games"] == 2
        assert (first["a_wins"] + second["a_wins"] + 0.5 * (first["draws"] + second["draws"])
                == s["score"]["value"] * 4)
        assert s["seat_adjusted"] == seat_adjusted(
            *(MatchStats(t["a_wins"], t["b_wins"], t["draws"]) for t in (first, second)))
    assert (tmp_path / "plots" / "ladder.png").exists()
    report = (tmp_path / "report.md").read_text()
    # typed parameters (not the command line's text) and the adjudication rule are reported
    assert '{"size": 3, "target": 10, "holes": [], "start_scores": [0, 0]}' in report
    assert "resigns after 2 own moves" in report
    assert "| mcts:sims=16's score against mcts:sims=8 |" in report and "Elo -0" not in report
    assert "moving first" in report and ", second " in report
    assert "without the first move's edge" in report


@pytest.mark.slow
@pytest.mark.parametrize("sig", [signal.SIGTERM, signal.SIGKILL])
def test_no_lab_worker_outlives_the_command(tmp_path, sig):
    from stonegarden.jobs.procs import alive, descendants

    proc = subprocess.Popen(
        [sys.executable, "-m", "stonegarden", "study", "blooms", "--param", "size=4",
         "--agent", "mcts:sims=2000", "--games", "40", "--workers", "2",
         "--out", str(tmp_path / "s")],
        env=cli_env(), stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    workers: list[int] = []
    deadline = time.time() + 120
    while time.time() < deadline and proc.poll() is None and len(workers) < 2:
        workers = descendants(proc.pid)
        time.sleep(0.05)
    assert proc.poll() is None and len(workers) >= 2, "the study ended before its workers ran"
    os.kill(proc.pid, sig)
    proc.wait(timeout=30)
    deadline = time.time() + 10
    while time.time() < deadline and any(alive(p) for p in workers):
        time.sleep(0.05)
    assert not any(alive(p) for p in workers)


def stored_games(out: Path) -> int:
    """The games a study in ``out`` has stored so far (0 before its database exists)."""
    try:
        with sqlite3.connect(out / "lab.sqlite") as db:
            return int(db.execute("SELECT COUNT(*) FROM games").fetchone()[0])
    except sqlite3.Error:
        return 0


def first_game_stored(proc: subprocess.Popen, out: Path) -> int:
    """Wait (at most 3 minutes) until the study ``proc`` running into ``out`` has stored a
    game, or ended; the games stored then."""
    deadline = time.time() + 180
    while time.time() < deadline and proc.poll() is None and stored_games(out) < 1:
        time.sleep(0.05)
    return stored_games(out)


@pytest.mark.slow
def test_ctrl_c_finishes_only_the_games_already_being_played(tmp_path):
    """The pool is handed no more games than it has workers: on Ctrl-C the games it was
    given but had not started are not played (the docs promise only the running ones)."""
    out = tmp_path / "s"
    proc = subprocess.Popen(
        [sys.executable, "-m", "stonegarden", "study", "freego", "--param", "size=7",
         "--agent", "mcts:sims=2000", "--games", "12", "--workers", "2", "--out", str(out)],
        env=cli_env(), stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
        preexec_fn=ctrl_c_as_in_a_terminal)

    before = first_game_stored(proc, out)
    assert proc.poll() is None and before >= 1, "the study ended before it could be interrupted"
    os.kill(proc.pid, signal.SIGINT)  # the main process only, as a signal from outside
    proc.wait(timeout=120)
    # the two games running at the signal (and one that ended as it came) at the most
    assert stored_games(out) <= before + 3 < 12


@pytest.mark.slow
def test_ctrl_c_in_a_terminal_keeps_the_running_games_and_says_how_to_go_on(tmp_path):
    """A terminal sends Ctrl-C to the whole process group, the workers too: they finish the
    games they are playing, which are stored, and the command says how far it got."""
    out = tmp_path / "s"
    proc = subprocess.Popen(
        [sys.executable, "-m", "stonegarden", "study", "blooms", "--param", "size=5",
         "--agent", "mcts:sims=3000", "--games", "12", "--workers", "2", "--out", str(out)],
        env=cli_env(), stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
        start_new_session=True,  # a process group of its own, as a terminal's foreground job
        preexec_fn=ctrl_c_as_in_a_terminal)

    before = first_game_stored(proc, out)
    assert proc.poll() is None and 1 <= before <= 8, "the study ended before it could be interrupted"
    os.killpg(proc.pid, signal.SIGINT)
    _, stderr = proc.communicate(timeout=180)
    after = stored_games(out)
    assert proc.returncode == 130, stderr[-2000:]
    assert after >= before + 2, "the two games being played at the Ctrl-C were lost"
    assert f"stopped: {after} of 12 games are stored" in stderr
    assert "the same command goes on from them" in stderr and "Traceback" not in stderr


def _level_threads(spec: str) -> int:
    from stonegarden.agents.registry import make_agent

    return make_agent(spec).threads


def test_a_game_worker_of_a_pool_searches_with_its_share_of_the_cores():
    """Levels 5 and 6 take every core; in a pool of W workers playing games at once, each
    takes the cores divided by W (at least one), so that W games do not ask for W times the
    machine and a level's time buys what it does alone."""
    from stonegarden.lab.runner import game_pool
    from stonegarden.search.config import default_threads

    cores = default_threads()
    if cores < 2:
        pytest.skip("on one core every share is the one thread a level takes anyway")
    for workers in (2, cores + 1):
        with game_pool(workers) as pool:
            assert pool.submit(_level_threads, "level:6").result() == max(1, cores // workers)
            assert pool.submit(_level_threads, "mcts:threads=3").result() == 3  # as named
    assert _level_threads("level:6") == cores  # this process is not a pool's worker


@pytest.mark.slow
def test_a_sweep_of_three_parameters_draws_a_heatmap_per_value_of_the_third(tmp_path):
    """One heatmap of the first two parameters cannot show a third: each of its values has
    its own picture (one picture drew only the last value's cells over the others)."""
    out = run_cli("sweep", "freego", "--grid", "target=3,4", "--grid", "size=5,6", "--grid",
                  "ko=simple,none", "--agent", "random", "--games", "4", "--out", str(tmp_path))
    assert out.returncode == 0, out.stderr
    report = (tmp_path / "report.md").read_text()
    assert "(plots/sweep-0.png)" in report and "(plots/sweep-1.png)" in report
    assert "ko=simple" in report and "ko=none" in report
    assert (tmp_path / "plots" / "sweep-1.png").stat().st_size > 0


def test_a_resumed_study_counts_its_stored_games_on_the_bar(tmp_path):
    """The bar of a resumed run starts at the games already stored, so its count and ETA are
    those of the whole study."""
    from rich.console import Console

    from stonegarden.lab.study import StudySpec, run_study
    from stonegarden.lab.study_store import StudyStore

    spec = StudySpec("blooms", {"size": 3}, ("random", "random"))
    store = StudyStore(tmp_path / "lab.sqlite")
    quiet = Console(file=io.StringIO())
    run_study(spec, 3, store, console=quiet)
    seen = io.StringIO()
    run_study(spec, 5, store, console=Console(file=seen, width=120))
    assert "5/5" in seen.getvalue() and "2/5" not in seen.getvalue()


def _cli(*args: str):
    from click.testing import CliRunner

    from stonegarden.cli.main import cli

    return CliRunner().invoke(cli, list(args), catch_exceptions=False)


@pytest.mark.parametrize("command", [
    ["study", "--agent", "random"], ["sweep", "--grid", "target=4,5", "--agent", "random"],
    ["ladder", "--agent", "mcts", "--key", "sims", "--base", "2", "--steps", "1"]])
def test_an_address_without_the_ray_backend_is_refused(tmp_path, command):
    """Else the games run on this machine without a word, and the cluster waits idle. It is
    refused before anything is written: the study left its folder and an empty lab.sqlite."""
    out = _cli(command[0], "blooms", "--param", "size=3", *command[1:], "--games", "2",
               "--address", "127.0.0.1:6379", "--out", str(tmp_path / "s"))
    assert out.exit_code == 2
    assert "error: --address '127.0.0.1:6379' is a Ray cluster's: add --backend ray" in out.output
    assert not (tmp_path / "s").exists()


def test_no_ray_cluster_at_the_address_ends_in_one_line(tmp_path, monkeypatch):
    """Ray waits minutes for a cluster that is not there, then raises its ConnectionError: the
    command says first where it connects, and then what is wrong, in a line."""
    ray = types.ModuleType("ray")
    ray.is_initialized = lambda: False  # type: ignore[attr-defined]

    def init(**_: object) -> None:
        raise ConnectionError("Failed to connect to Ray cluster at 127.0.0.1:6399")

    ray.init = init  # type: ignore[attr-defined]
    monkeypatch.setitem(sys.modules, "ray", ray)
    # something answers there as a Ray cluster's gRPC does (an address where nothing does, or
    # not so, is refused before Ray is asked: test_lab_ray.py), so Ray is asked, and gives up
    with _answering_as_grpc() as address:
        out = _cli("study", "blooms", "--param", "size=3", "--agent", "random", "--games", "2",
                   "--backend", "ray", "--address", address, "--out", str(tmp_path))
    assert out.exit_code == 2
    assert f"connecting to the Ray cluster at {address}" in out.output
    assert f"error: --address '{address}': no Ray cluster answers" in out.output
    assert "ray start --head" in out.output


@contextlib.contextmanager
def _answering_as_grpc() -> Iterator[str]:
    """An address of this machine whose server answers a client's hello as a gRPC server
    does: with an HTTP/2 SETTINGS frame."""
    import socket
    import threading

    with socket.create_server(("127.0.0.1", 0)) as listening:
        def answer() -> None:  # each check of the address, till the server is closed
            with contextlib.suppress(OSError):
                while True:
                    with listening.accept()[0] as client:
                        client.recv(64)
                        client.sendall(bytes([0, 0, 0, 4, 0, 0, 0, 0, 0]))

        threading.Thread(target=answer, daemon=True).start()
        yield f"127.0.0.1:{listening.getsockname()[1]}"


def test_ray_not_installed_ends_in_one_line(tmp_path, monkeypatch):
    monkeypatch.setitem(sys.modules, "ray", None)  # import ray: ImportError
    out = _cli("study", "blooms", "--param", "size=3", "--agent", "random", "--games", "2",
               "--backend", "ray", "--out", str(tmp_path))
    assert out.exit_code == 2
    assert "error: --backend ray needs Ray: pip install 'stonegarden[ray]'" in out.output


def test_a_sweep_over_a_list_parameter_reports_and_plots_it(tmp_path):
    """``holes`` (and ``start_scores``) take lists: each cell's value is one, which the table,
    the recommendation and the picture must show instead of a traceback."""
    out = _cli("sweep", "blooms", "--param", "size=3", "--grid", "holes=a1,c1", "--grid",
               "target=3,4", "--agent", "random", "--games", "2", "--out", str(tmp_path))
    assert out.exit_code == 0, out.output
    data = json.loads((tmp_path / "sweep.json").read_text())
    assert [c["params"]["holes"] for c in data["cells"]] == [["a1"], ["a1"], ["c1"], ["c1"]]
    assert [r["group"] for r in data["recommendation"]] == [["a1"], ["c1"]]
    assert (tmp_path / "plots" / "sweep.png").exists()
    assert "holes=a1, target=3: first player's score" in (tmp_path / "report.md").read_text()


@contextlib.contextmanager
def figures_drawn() -> Iterator[list[Any]]:
    """The matplotlib figures the lab's plots draw inside the block (they close each one)."""
    from stonegarden.lab import plots

    plt = plots._pyplot()
    figures: list[Any] = []
    real_close = plt.close

    def keep(fig: Any) -> None:
        figures.append(fig)
        real_close(fig)

    with unittest.mock.patch.object(plt, "close", keep):
        yield figures


def test_a_score_of_0_or_1_is_drawn_whole_in_the_sweeps_and_the_ladders_figure(tmp_path):
    """The axis ended at exactly 0 and 1: a clean sweep's dot was cut in half by the frame,
    and the cap of its bar hidden."""
    from stonegarden.lab import plots
    from stonegarden.lab.statistics import wilson

    rows = [{"params": {"target": t}, "summary": {"first_player_score": wilson(k, 8).as_dict()}}
            for t, k in ((4, 0), (6, 8))]
    steps = [{"label": "2 vs 1", "score": wilson(8, 8).as_dict()},
             {"label": "4 vs 2", "score": wilson(0, 8).as_dict()}]
    with figures_drawn() as figures:
        plots.sweep_lines(rows, "target", tmp_path)
        plots.ladder_plot(steps, tmp_path, "sims")
    for fig in figures:
        low, high = fig.axes[0].get_ylim()
        assert low < 0 and 1 < high <= 1.1


def test_the_heatmap_writes_its_figures_in_a_colour_that_reads_on_the_cell(tmp_path):
    """Black on the deep blue of a score near 0 (or the deep red near 1) cannot be read."""

    from stonegarden.lab import plots

    rows = [{"params": {"size": size, "target": target},
             "summary": {"first_player_score": {"value": value}}}
            for size, target, value in [(4, 10, 0.5), (4, 20, 0.0), (5, 10, 0.95), (5, 20, 0.6)]]
    with figures_drawn() as figures:
        plots.sweep_heatmap(rows, "target", "size", tmp_path)
    texts = {t.get_text(): t.get_color() for t in figures[0].axes[0].texts}
    assert texts == {"0.50": "black", "0.00": "white", "0.95": "white", "0.60": "black"}


def _cell(params: dict[str, Any], score: tuple[float, int], draws: int) -> dict[str, Any]:
    from stonegarden.lab.statistics import wilson

    points, games = score
    return {"params": params, "summary": {"first_player_score": wilson(points, games).as_dict(),
                                          "draw_rate": wilson(draws, games).as_dict()}}


def test_the_sweeps_figures_mark_the_recommended_cell_and_the_cells_that_drew_too_much(tmp_path):
    """A cell of all draws has a first player's score of exactly 1/2: the figure drew it as the
    fairest of all, like any other, though the recommendation passed it over, and it did not
    show which cell was recommended."""
    from stonegarden.lab import plots

    rows = [_cell({"target": 4}, (5, 10), 10), _cell({"target": 6}, (4, 10), 0),
            _cell({"target": 8}, (2, 10), 0)]
    picked = [{"target": 6}]
    square = [_cell({"size": s, "target": t}, (k, 10), d)
              for s, t, k, d in [(3, 4, 5, 10), (3, 6, 4, 0), (4, 4, 2, 0), (4, 6, 6, 1)]]
    with figures_drawn() as figures:
        plots.sweep_lines(rows, "target", tmp_path, picked=picked, max_draws=0.1)
        plots.sweep_heatmap(square, "target", "size", tmp_path,
                            picked=[{"size": 3, "target": 6}], max_draws=0.1)
    line, heat = (fig.axes[0] for fig in figures)
    marked = {ln.get_label(): list(ln.get_xdata()) for ln in line.lines
              if not ln.get_label().startswith("_")}
    assert marked == {"draws above 10%: not a candidate": [4], "recommended": [6]}
    assert [t.get_text() for t in line.get_legend().get_texts()] == list(marked)
    # the heatmap: size 3 is row 0, target 6 column 1; the cell of all draws is hatched
    boxes = {(round(p.get_x() + p.get_width() / 2), round(p.get_y() + p.get_height() / 2)):
             "hatched" if p.get_hatch() else "outlined" for p in heat.patches}
    assert boxes == {(0, 0): "hatched", (1, 0): "outlined"}
    assert [t.get_text() for t in heat.get_legend().get_texts()] == [
        "recommended", "draws above 10%: not a candidate"]


def test_a_sweep_hands_its_figure_the_recommendation_and_max_draws(tmp_path, monkeypatch):
    from rich.console import Console

    from stonegarden.lab import plots
    from stonegarden.lab.sweep import run_sweep

    seen: dict[str, Any] = {}

    def lines(rows: Any, key: str, out: Path, **marks: Any) -> str:
        seen.update(marks)
        return "plots/sweep.png"

    monkeypatch.setattr(plots, "sweep_lines", lines)
    result = run_sweep("blooms", {"size": 3}, {"target": [4, 6]}, ("random", "random"), 2,
                       tmp_path, max_draws=0.25, console=Console(file=io.StringIO()))
    assert seen == {"picked": [result["recommendation"][0]["cell"]], "max_draws": 0.25}


def test_the_heatmaps_labels_are_not_written_over_each_other(tmp_path):
    """Bridge Go's `--grid win_check=before-self-capture,after-self-capture` wrote its two
    labels over each other under columns 0.6 inches wide."""
    from stonegarden.lab import plots

    rows = [{"params": {"size": size, "win_check": check},
             "summary": {"first_player_score": {"value": 0.5}}}
            for size in (5, 6) for check in ("before-self-capture", "after-self-capture")]
    with figures_drawn() as figures:
        plots.sweep_heatmap(rows, "win_check", "size", tmp_path)
        plots.sweep_heatmap(rows, "size", "win_check", tmp_path)
    from matplotlib.backends.backend_agg import FigureCanvasAgg

    for fig in figures:
        canvas = FigureCanvasAgg(fig)  # the figure as saved (closed, it has no canvas)
        canvas.draw()
        renderer = canvas.get_renderer()
        page = fig.bbox
        ax = fig.axes[0]
        for labels in (ax.get_xticklabels(), ax.get_yticklabels()):
            boxes = [t.get_window_extent(renderer) for t in labels]
            assert len(boxes) == 2 and not boxes[0].overlaps(boxes[1])
            assert all(page.x0 <= b.x0 and b.x1 <= page.x1 for b in boxes)


def test_a_study_report_names_every_parameter_even_the_defaults(tmp_path):
    """``--param size=4`` is Blooms' default: the report said ``parameters {}``, which does not
    tell a reader the board, nor the target the size implies."""
    out = _cli("study", "blooms", "--param", "size=4", "--agent", "random", "--games", "2",
               "--out", str(tmp_path))
    assert out.exit_code == 0, out.output
    report = (tmp_path / "report.md").read_text()
    assert ('Game `blooms` with parameters '
            '`{"size": 4, "target": 15, "holes": [], "start_scores": [0, 0]}`') in report
    # and so does summary.json, whose spec holds only what differs from the defaults
    saved = json.loads((tmp_path / "summary.json").read_text())
    assert saved["spec"]["params"] == {}
    assert saved["game_params"] == {"size": 4, "target": 15, "holes": [], "start_scores": [0, 0]}


def test_a_sweep_over_the_handicap_takes_lists_parted_by_semicolons(tmp_path):
    """What compensation makes the game fair is a designer's question: ``start_scores`` is a
    pair, whose comma the grid's own comma split."""
    out = _cli("sweep", "blooms", "--param", "size=3", "--grid", "start_scores=0,0;0,2",
               "--agent", "random", "--games", "2", "--out", str(tmp_path))
    assert out.exit_code == 0, out.output
    data = json.loads((tmp_path / "sweep.json").read_text())
    assert [c["params"] for c in data["cells"]] == [{"size": 3, "start_scores": [0, 0]},
                                                     {"size": 3, "start_scores": [0, 2]}]
    assert "start_scores=0,2: first player's score" in (tmp_path / "report.md").read_text()


def test_a_run_writes_its_progress_into_a_log_as_lines(tmp_path):
    """A bar is drawn on a terminal only: a run whose output goes to a file (nohup, a batch
    job on a cluster) showed nothing until its end."""
    out = run_cli("study", "blooms", "--param", "size=3", "--agent", "random", "--games", "4",
                  "--out", str(tmp_path))  # stderr is a pipe, not a terminal
    assert out.returncode == 0, out.stderr
    for k in range(1, 5):
        assert f": {k}/4 games, " in out.stderr
    assert "left" in out.stderr


@pytest.mark.parametrize("command", [
    ["study", "--agent", "random"],
    ["sweep", "--grid", "target=5,6", "--agent", "random"],
    ["ladder", "--agent", "mcts", "--key", "sims", "--base", "4", "--steps", "1"],
])
def test_quiet_runs_show_no_progress_as_the_other_commands(tmp_path, command):
    """``match``, ``analyse``, ``train`` and ``warm-up`` took ``--quiet``; the lab's commands
    refused it, and a script's log filled with a line a hundredth of the games."""
    name, *rest = command
    out = run_cli(name, "blooms", "--param", "size=3", *rest, "--games", "2",
                  "--out", str(tmp_path), "--quiet")
    assert out.returncode == 0, out.stderr
    assert out.stderr == "" and "report:" in out.stdout


@pytest.mark.parametrize("command", [
    ["study", "--agent", "mcts:sims=30"],
    ["sweep", "--grid", "target=5,6", "--agent", "mcts:sims=30"],
])
def test_a_report_says_when_games_were_adjudicated(tmp_path, command):
    """Resignation changes what game lengths and ends measure: the report says so, as the
    ladder's does."""
    kind, *rest = command
    out = _cli(kind, "blooms", "--param", "size=3", *rest, "--games", "2", "--resign", "0.3",
               "--resign-moves", "1", "--out", str(tmp_path))
    assert out.exit_code == 0, out.output
    intro = (tmp_path / "report.md").read_text().splitlines()[2]
    assert intro.endswith("; a player resigns after 1 own moves its search rates below 0.3.")


def test_a_sweep_without_a_decisive_cell_says_so_in_words(tmp_path):
    """With one swept parameter the recommendation has no group: it read `None=None`."""
    out = _cli("sweep", "blobs", "--grid", "dice=6,8", "--agent", "random", "--games", "4",
               "--max-draws", "0", "--out", str(tmp_path))
    assert out.exit_code == 0, out.output
    report = (tmp_path / "report.md").read_text()
    assert "- no decisive cell (every cell drew more; see --max-draws)" in report
    assert "None" not in report


def _strict_json(path: Path):
    text = path.read_text()
    return json.loads(text, parse_constant=lambda c: pytest.fail(f"{c} in {path.name}"))


def test_figures_of_no_games_are_null_in_the_json_and_n_a_in_the_report(tmp_path):
    # Blobs with one die ends at once: no position to measure a branching factor in
    study = run_cli("study", "blobs", "--param", "dice=1", "--agent", "random", "--games", "2",
                    "--out", str(tmp_path / "s"))
    assert study.returncode == 0, study.stderr
    summary = _strict_json(tmp_path / "s" / "summary.json")
    assert summary["summary"]["games"] == 2
    assert summary["summary"]["branching_factor"]["value"] is None
    assert "| mean branching factor | n/a |" in (tmp_path / "s" / "report.md").read_text()
    # random Blooms on a 3 board: the one game of a cell has nobody ahead at mid-game
    sweep = run_cli("sweep", "blooms", "--grid", "size=3,4", "--agent", "random", "--games", "1",
                    "--out", str(tmp_path / "w"))
    assert sweep.returncode == 0, sweep.stderr
    cells = _strict_json(tmp_path / "w" / "sweep.json")
    assert cells


@pytest.mark.parametrize("command", [
    ["study", "blooms", "--param", "size=3", "--agent", "random", "--games", "3"],
    ["match", "blooms", "random", "random", "--param", "size=3", "--games", "3"],
])
def test_workers_beyond_the_cores_are_not_started(tmp_path, monkeypatch, command):
    """``--workers 10000`` started a process per game until the memory ran out: a worker
    beyond the cores plays no sooner, and gives a search limited by time less of it."""
    from stonegarden.lab import runner

    monkeypatch.setattr(runner, "available_cores", lambda: 1)

    def no_pool(workers):
        pytest.fail(f"a pool of {workers} workers on one core")

    monkeypatch.setattr(runner, "game_pool", no_pool)
    where = ["--out", str(tmp_path)] if command[0] == "study" else ["--json"]
    out = _cli(*command, "--workers", "10000", *where)
    assert out.exit_code == 0, out.output
    assert ("--workers 10000: this machine has 1 core; 1 game is played at a time"
            in out.output)
    games = (json.loads((tmp_path / "summary.json").read_text())["summary"]["games"]
             if command[0] == "study" else json.loads(out.output.splitlines()[-1])["games"])
    assert games == 3


def test_a_sweep_report_names_every_parameter_and_the_defaults_that_follow_the_swept(tmp_path):
    """A sweep over Blooms' size alone plays each size at its own default target: the report
    read `base parameters {}` and `size=4`, which does not tell a reader which target was
    played, nor that it changed between cells."""
    out = _cli("sweep", "blooms", "--grid", "size=3,4", "--agent", "random", "--games", "2",
               "--out", str(tmp_path))
    assert out.exit_code == 0, out.output
    report = (tmp_path / "report.md").read_text()
    assert ('Game `blooms`, swept `size`, in every cell `{"holes": [], "start_scores": [0, 0]}` '
            '(`target` follows the swept values: shown per cell)') in report
    assert "| size=3, target=10: first player's score |" in report
    assert "| size=4, target=15: first player's score |" in report
    data = json.loads((tmp_path / "sweep.json").read_text())
    assert [c["params"] for c in data["cells"]] == [{"size": 3, "target": 10},
                                                     {"size": 4, "target": 15}]
    assert data["cells"][1]["game_params"] == {"size": 4, "target": 15, "holes": [],
                                               "start_scores": [0, 0]}


def test_two_grid_values_that_are_one_game_are_refused(tmp_path):
    """Else the same games were played twice in one run and listed as two cells."""
    out = _cli("sweep", "blooms", "--param", "size=3", "--grid", "start_scores=0,0;0,00",
               "--agent", "random", "--games", "2", "--out", str(tmp_path / "o"))
    assert out.exit_code == 2
    assert ("error: --grid: the cells start_scores=0,0 and start_scores=0,00 are the same "
            "game: give each value once") in out.output
    assert not (tmp_path / "o").exists()


def test_a_study_of_one_game_gives_no_interval_for_its_means(tmp_path):
    """A mean of one game read `[14.000, 14.000]`, as if it were known exactly."""
    out = _cli("study", "blooms", "--param", "size=3", "--agent", "random", "--games", "1",
               "--out", str(tmp_path))
    assert out.exit_code == 0, out.output
    summary = _strict_json(tmp_path / "summary.json")["summary"]
    assert (summary["length"]["low"], summary["length"]["high"]) == (None, None)
    length = summary["length"]["value"]
    assert (f"| mean game length (entries) | {length:.3f} | n/a (one value) |"
            in (tmp_path / "report.md").read_text())
    assert (tmp_path / "plots" / "branching.png").exists()


def test_a_studys_figures_say_what_their_bars_are_and_count_whole_games(tmp_path):
    """The ends' error bars were not said to be 95% intervals (the sweep's and the ladder's
    were), and a histogram of a few games counted 0.2 games."""

    from stonegarden.lab import plots
    from stonegarden.lab.statistics import summarise

    games = [{"moves": ["a"] * n, "winner": 1, "legal": [3] * n, "score_track": [[0, 0]] * n,
              "reason": "target", "seats": {"1": "x", "2": "x"}} for n in (46, 49, 50, 58)]
    summary = summarise(games)
    with figures_drawn() as figures:
        plots.length_histogram(summary, tmp_path)
        plots.end_reasons(summary, tmp_path)
    histogram, ends = (fig.axes[0] for fig in figures)
    assert all(float(t).is_integer() for t in histogram.get_yticks())
    assert "95% interval" in ends.get_ylabel()


def test_the_figures_axes_read_whole_numbers_and_hold_their_bands_and_bars(tmp_path):
    """Plies, game lengths and a swept integer had ticks between whole numbers (ply 2.5, target
    12.5, a length of -0.4); the band of legal moves plunged off its log axis where its
    interval reached 0, and read 3×10¹; the cap of a bar of every game sat on the frame."""

    from stonegarden.lab import plots
    from stonegarden.lab.statistics import summarise, wilson

    def game(n: int, legal: int) -> dict[str, Any]:
        return {"moves": ["a"] * n, "winner": 1, "legal": [legal] * n,
                "score_track": [[0, 0]] * n, "reason": "target", "seats": {"1": "x", "2": "x"}}

    summary = summarise([game(3, 40), game(5, 30), game(5, 2)])  # ply 4's interval reaches 0
    rows = [{"params": {"target": t}, "summary": {"first_player_score": wilson(1, 2).as_dict()}}
            for t in (10, 20, 30)]
    with figures_drawn() as figures:
        plots.length_histogram(summarise([game(0, 1)] * 2), tmp_path)
        plots.branching_by_ply(summary, tmp_path)
        plots.sweep_lines(rows, "target", tmp_path)
        plots.end_reasons(summary, tmp_path)
    lengths, branching, sweep, ends = (fig.axes[0] for fig in figures)
    for ax in (lengths, branching, sweep):
        low, high = ax.get_xlim()
        shown = [t for t in ax.get_xticks() if low <= t <= high]
        assert shown and all(float(t).is_integer() for t in shown), shown
    band = branching.collections[0].get_paths()[0].vertices
    assert band[:, 1].min() >= 1
    assert "10" in [t.get_text() for t in branching.get_yticklabels()]
    assert ends.get_ylim()[1] > 1


@pytest.mark.slow
@pytest.mark.parametrize("command", [
    ["study", "blooms", "--param", "size=4", "--agent", "mcts:sims=2000", "--games", "40"],
    ["match", "blooms", "mcts:sims=2000", "mcts:sims=1000", "--param", "size=4", "--games",
     "40", "--save-dir"],
])
def test_a_worker_killed_by_the_system_ends_in_one_line_that_says_how_to_go_on(tmp_path,
                                                                                command):
    """A worker that dies (the kernel's out-of-memory killer) broke the pool, and the command
    ended in a traceback; the games finished before it are kept, and the same command goes
    on from them."""
    from stonegarden.jobs.procs import descendants

    out = tmp_path / "s"
    where = [str(out)] if command[0] == "match" else ["--out", str(out)]
    proc = subprocess.Popen([sys.executable, "-m", "stonegarden", *command, *where,
                             "--workers", "2"],
                            env=cli_env(), stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                            text=True)
    def game_workers() -> list[int]:
        found = []
        for pid in descendants(proc.pid):
            try:
                if b"spawn_main" in Path(f"/proc/{pid}/cmdline").read_bytes():
                    found.append(pid)
            except OSError:
                pass
        return found

    workers: list[int] = []
    deadline = time.time() + 120
    while time.time() < deadline and proc.poll() is None and len(workers) < 2:
        workers = game_workers()
        time.sleep(0.05)
    assert proc.poll() is None and workers, "the run ended before its workers ran"
    time.sleep(1)
    os.kill(workers[0], signal.SIGKILL)
    _, stderr = proc.communicate(timeout=120)
    assert proc.returncode == 2, stderr[-2000:]
    assert "Traceback" not in stderr
    assert "error: a game worker process ended abruptly (killed: out of memory?)" in stderr
    assert (("the same command with --resume plays the rest" if command[0] == "match"
             else "and the same command goes on from them") in stderr)


class _Ref:
    """A fake Ray object reference: a task to run when it is asked for."""

    def __init__(self, task):
        self.task = task


def test_a_ray_worker_that_dies_ends_in_one_line_that_says_how_to_go_on(tmp_path, monkeypatch):
    """Ray gives up on a task whose worker or node died with its own error, which ended the
    command in a traceback; as with a local worker, the games stored are kept."""
    from stonegarden.lab.selfplay import play_game

    class RayError(Exception):
        pass

    class RayTaskError(RayError):
        pass

    class WorkerCrashedError(RayError):
        pass

    def get(ref):
        if ref.task["index"] == 1:
            raise WorkerCrashedError("The worker died unexpectedly while executing this task.")
        return play_game(ref.task), "node-1"

    _fake_ray(monkeypatch, RayError, RayTaskError, get)
    out = _cli("study", "blooms", "--param", "size=3", "--agent", "random", "--games", "3",
               "--backend", "ray", "--out", str(tmp_path))
    assert out.exit_code == 2, out.output
    assert ("error: a Ray worker running a game ended abruptly (WorkerCrashedError: The worker "
            "died unexpectedly while executing this task.); 1 of 3 games are stored in") in out.output
    assert "the same command goes on from them" in out.output


def _fake_ray(monkeypatch, error: type, task_error: type, get) -> None:
    """A Ray module whose tasks are played one at a time in this process, their results taken
    by ``get(ref)`` (``ref.task``: the task), raising ``error`` and ``task_error`` as Ray's."""
    ray = types.ModuleType("ray")
    ray.exceptions = types.SimpleNamespace(  # type: ignore[attr-defined]
        RayError=error, RayTaskError=task_error)
    ray.is_initialized = lambda: False  # type: ignore[attr-defined]
    ray.init = lambda **_: None  # type: ignore[attr-defined]
    ray.shutdown = lambda: None  # type: ignore[attr-defined]
    ray.wait = lambda refs, num_returns: (refs[:1], refs[1:])  # type: ignore[attr-defined]
    ray.get = get  # type: ignore[attr-defined]
    ray.remote = lambda fn: types.SimpleNamespace(remote=_Ref)  # type: ignore[attr-defined]
    monkeypatch.setitem(sys.modules, "ray", ray)


def test_a_ray_node_without_stonegarden_ends_in_one_line_that_says_how_to_go_on(tmp_path,
                                                                                 monkeypatch):
    """A node that joins a cluster after the run has checked its nodes, and cannot import
    stonegarden, failed its games with Ray's traceback of the import."""
    from stonegarden import __version__
    from stonegarden.lab.selfplay import play_game

    class RayError(Exception):
        pass

    class RayTaskError(RayError):
        def __init__(self, cause):
            self.cause = cause

    def get(ref):
        if ref.task["index"] == 1:  # as Ray words it (ray/_private/function_manager.py)
            raise RayTaskError(RuntimeError(
                "The remote function failed to import on the worker. This may be because "
                "needed library dependencies are not installed in the worker environment or "
                "cannot be found from sys.path ['/srv']:\n\nTraceback (most recent call last):\n"
                '  File "pickle.py", line 1, in loads\n'
                "ModuleNotFoundError: No module named 'stonegarden'\n"))
        return play_game(ref.task), "node-1"

    _fake_ray(monkeypatch, RayError, RayTaskError, get)
    out = _cli("study", "blooms", "--param", "size=3", "--agent", "random", "--games", "3",
               "--backend", "ray", "--out", str(tmp_path))
    assert out.exit_code == 2, out.output
    assert out.output.splitlines()[-1] == (
        "error: a node of the Ray cluster cannot import stonegarden (ModuleNotFoundError: No "
        f"module named 'stonegarden'); install stonegarden {__version__} with [ray] on each "
        f"machine of the cluster; 1 of 3 games are stored in {str(tmp_path / 'lab.sqlite')!r}, "
        "and the same command goes on from them")


def test_the_time_left_is_told_when_a_game_takes_minutes():
    """The bar measured its speed over the last 30 seconds: where a game takes longer (strong
    agents, large boards), it never said how long the run had left."""
    from rich.console import Console

    from stonegarden.lab.runner import progress_bar, progress_line

    now = [0.0]
    console = Console(file=io.StringIO(), get_time=lambda: now[0], width=200)
    bar = progress_bar(console)
    with bar:
        job = bar.add_task("study", total=10, tally="")
        for _ in range(4):
            now[0] += 120  # two minutes a game
            bar.update(job, advance=1)
            progress_line(bar, job, 1)
    assert "study: 4/10 games, 0:08:00 elapsed, about 0:12:00 left" in console.file.getvalue()


def test_a_sweep_plays_its_cells_in_turn(tmp_path):
    """The cells were played one after another: a sweep stopped half way had no game of its
    last cells, and its time left, measured on the first (smallest) boards, was far too short."""
    out = _cli("sweep", "blooms", "--grid", "size=3,4,5", "--agent", "random", "--games", "3",
               "--out", str(tmp_path))
    assert out.exit_code == 0, out.output
    with sqlite3.connect(tmp_path / "lab.sqlite") as db:
        order = db.execute("SELECT study, idx FROM games ORDER BY rowid").fetchall()
    studies = list(dict.fromkeys(study for study, _ in order))
    assert len(studies) == 3
    assert [idx for _, idx in order] == [0, 0, 0, 1, 1, 1, 2, 2, 2]
    assert all(len({study for study, _ in order[k:k + 3]}) == 3 for k in (0, 3, 6))


def test_a_sweep_leaves_no_picture_of_an_earlier_sweep_in_its_folder(tmp_path):
    """A sweep of three parameters draws `sweep-K.png`, one of two `sweep.png`: run into the
    same folder, the other's pictures stayed beside the new ones, of cells no longer swept."""
    common = ["--param", "size=3", "--agent", "random", "--games", "1", "--out", str(tmp_path)]
    out = _cli("sweep", "blooms", "--grid", "target=3,4", "--grid", "holes=a1,c1",
               "--grid", "start_scores=0,0;0,1", *common)
    assert out.exit_code == 0, out.output
    assert (tmp_path / "plots" / "sweep-1.png").exists()
    out = _cli("sweep", "blooms", "--grid", "target=3,4", *common)
    assert out.exit_code == 0, out.output
    assert sorted(p.name for p in (tmp_path / "plots").glob("sweep*")) == ["sweep.png",
                                                                           "sweep.svg"]


@pytest.mark.slow
def test_a_folder_named_in_another_encoding_gets_a_report_whose_command_reproduces_it(tmp_path):
    """A name that is not UTF-8 (Latin-1 ``café``) cannot be written in the UTF-8 report as
    it was typed: the report's command gives its bytes in bash's ``$'...'`` quoting."""
    out = Path(os.fsdecode(os.fsencode(tmp_path) + b"/caf\xe9"))
    typed = [sys.executable, "-m", "stonegarden", "study", "blooms", "--param", "size=3",
             "--agent", "random", "--games", "1", "--out", str(out)]
    run = functools.partial(subprocess.run, env=cli_env(), capture_output=True, text=True,
                            errors="surrogateescape", timeout=120)
    r = run(typed)
    assert r.returncode == 0 and "Traceback" not in r.stderr, r.stderr
    again = run(["bash", "-c", f"{shlex.quote(sys.executable)} -m "
                 f"{_reproduce_line(out / 'report.md')}"])
    assert again.returncode == 0, again.stderr
    assert json.loads(again.stdout.splitlines()[-1]) == json.loads(r.stdout.splitlines()[-1])


def _reproduce_line(report: Path) -> str:
    line = next(ln for ln in report.read_text("utf-8").splitlines() if "stonegarden study" in ln)
    return line[line.index("stonegarden"):].rstrip("`")


@pytest.mark.parametrize("workers, said", [(4, True), (1, False)])
def test_workers_on_a_ray_cluster_are_said_not_to_be_used(monkeypatch, capsys, workers, said):
    """The cluster at --address plays as many games at once as it has CPUs: --workers, which
    sets the CPUs of a Ray of the command's own, was dropped without a word."""
    from stonegarden.lab import ray_backend, runner

    handed: list[int] = []

    def cluster(tasks, done, workers, address):  # Ray's part: each task on one of its CPUs
        handed.append(workers)
        for task in tasks:
            done(task, {"index": task["index"]})

    monkeypatch.setattr(ray_backend, "run_ray", cluster)
    played: list[int] = []
    runner.run_tasks([{"index": 0}, {"index": 1}], lambda t, r: played.append(r["index"]),
                     workers=workers, backend="ray", address="10.0.0.7:6379", progress=False)
    assert played == [0, 1] and handed == [workers]
    note = ("--workers 4 is not used on the Ray cluster at 10.0.0.7:6379: it plays as many "
            "games at once as it has CPUs")
    assert (note in capsys.readouterr().err) == said


@pytest.mark.parametrize("command", [
    ["study", "--agent", "random"], ["sweep", "--grid", "target=4,5", "--agent", "random"],
    ["ladder", "--agent", "mcts", "--key", "sims", "--base", "2", "--steps", "1"]])
def test_a_second_run_in_the_folder_of_a_running_one_is_refused(tmp_path, command):
    """Two runs at once in one --out played every game twice and wrote their reports and
    records over each other's."""
    from stonegarden.lab.folder_lock import folder_held

    out = tmp_path / "s"
    args = (command[0], "blooms", "--param", "size=3", *command[1:], "--games", "2",
            "--out", str(out))
    with folder_held(out, "--out"):  # a run of this process holds it
        refused = run_cli(*args)
    assert refused_as_in_use(refused, out, "--out"), refused.stderr
    assert sorted(p.name for p in out.iterdir()) == [".stonegarden-lock"]
    done = run_cli(*args)  # the first run ended: its folder is free
    assert done.returncode == 0, done.stderr
    assert (out / "report.md").is_file()


def test_a_folder_on_a_file_system_without_locks_is_not_taken_for_one_in_use(tmp_path,
                                                                             monkeypatch):
    """flock fails with ENOLCK on some network file systems: that is no other run."""
    import errno
    import fcntl

    from stonegarden.lab.folder_lock import folder_held

    def no_locks(fd, operation):
        raise OSError(errno.ENOLCK, os.strerror(errno.ENOLCK))

    monkeypatch.setattr(fcntl, "flock", no_locks)
    ran = []
    with folder_held(tmp_path / "run", "--out"):
        ran.append(True)
    assert ran == [True]


@pytest.mark.parametrize("takes_argument", [True, False])
def test_the_token_of_this_machine_is_taken_whichever_ray_s_function(monkeypatch,
                                                                     takes_argument):
    """Ray's function that takes the token of this machine had no argument at first: asked
    with ``warn_if_disabled``, every run with --address stopped at a TypeError."""
    from stonegarden.lab import ray_backend

    calls: list[dict[str, bool]] = []
    setup = types.ModuleType("ray._private.authentication.authentication_token_setup")

    if takes_argument:
        def use(warn_if_disabled: bool = True) -> bool:
            calls.append({"warn_if_disabled": warn_if_disabled})
            return True
    else:
        def use() -> bool:  # type: ignore[misc]
            calls.append({})
            return True

    setup.maybe_enable_token_auth_if_token_available = use  # type: ignore[attr-defined]
    monkeypatch.setitem(sys.modules, setup.__name__, setup)
    ray_backend._token_of_this_machine()
    assert calls == [{"warn_if_disabled": False} if takes_argument else {}]
