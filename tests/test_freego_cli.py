"""Free Go through the real command line: replay --json, bench playouts, terminal play."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

import stonegarden
from stonegarden.core.record import load_record, replay_rows
from stonegarden.search.profile import profile_for

DATA = Path(__file__).resolve().parent / "data"


def lines(stdout):
    return [json.loads(line) for line in stdout.splitlines()]


@pytest.mark.slow
def test_replay_json_reports_the_suicide_and_its_capture(cli):
    r = cli("replay", str(DATA / "freego-suicide-then-capture.json"), "--json")
    assert r.returncode == 0, r.stderr
    rows = lines(r.stdout)
    assert [row["move"] for row in rows] == ["C3", "A2", "D4", "B1", "A1", "E5", "B2"]
    suicide, capture = rows[4], rows[5]
    assert suicide["captured"] == 0 and suicide["scores"] == [0, 0]
    assert capture["player"] == 2 and capture["captured"] == 1 and capture["scores"] == [0, 1]
    assert all(row["self_captured"] == 0 for row in rows)
    assert rows[0]["legal_moves"] == 25 and rows[-1]["terminal"] is False


@pytest.mark.slow
def test_replay_json_agrees_with_the_library(cli):
    record = load_record(DATA / "freego-suicide-then-capture.json")
    want = [row for row, _ in replay_rows(record)]
    r = cli("replay", str(DATA / "freego-suicide-then-capture.json"), "--json")
    assert lines(r.stdout) == want


@pytest.mark.slow
def test_replay_stops_at_a_ko_violation_naming_the_ply(cli, tmp_path):
    moves = ["C4", "D4", "B3", "C3", "C2", "D2", "A5", "E3", "D3", "C3"]
    bad = tmp_path / "ko.json"
    bad.write_text(json.dumps({"format": "stonegarden-record", "version": 1, "game": "freego",
                               "params": {"size": 5}, "moves": moves}))
    r = cli("replay", str(bad), "--json")
    assert r.returncode == 2
    assert len(r.stdout.splitlines()) == 9
    assert "ply 9" in r.stderr and "ko" in r.stderr


@pytest.mark.slow
def test_bench_playouts_runs_the_kernel(cli):
    r = cli("bench", "playouts", "freego", "--param", "size=9", "--seconds", "0.5", "--json")
    assert r.returncode == 0, r.stderr
    out = json.loads(r.stdout)
    assert out["game"] == "freego" and out["playouts"] > 0
    assert out["p1_wins"] + out["p2_wins"] + out["draws"] == out["playouts"]


@pytest.mark.slow
def test_terminal_play_reads_moves_and_draws_a_go_diagram(cli):
    r = cli("play", "freego", "--param", "size=5", "--p1", "human", "--p2", "human",
            input="C3\nI3\nD4\nquit\n")
    assert r.returncode == 0, r.stderr
    assert "   A B C D E" in r.stdout
    assert "'I3' is not a point name" in r.stdout
    assert " 4 . . . O . 4" in r.stdout


def test_library_plays_the_data_record_to_the_same_board():
    game = stonegarden.make("freego", size=5)
    record = load_record(DATA / "freego-suicide-then-capture.json")
    final = game.replay(list(record.moves))[-1]
    assert game.position_text(final) == "....O/...X./..X../OX.../.O... 2 0,1 7"


def test_train_refuses_a_teacher_that_is_no_model_before_playing(cli, tmp_path):
    out = tmp_path / "run"
    r = cli("train", "freego", "--param", "size=5", "--games", "2", "--teacher",
            str(tmp_path / "nowhere.npz"), "--out", str(out), "--quiet")
    assert r.returncode == 2 and "no model file" in r.stderr and "Traceback" not in r.stderr
    assert not out.exists()


def test_train_takes_a_teacher_whose_path_holds_a_colon_and_refuses_one_too_long_at_once(
        cli, tmp_path):
    shipped = Path(profile_for(stonegarden.make("freego")).shipped_model_path())
    for folder in ("run:2", "x" * 100 + "/" + "y" * 100):
        (tmp_path / folder).mkdir(parents=True)
        for suffix in (".npz", ".json"):
            shutil.copy(shipped.with_suffix(suffix), tmp_path / folder / f"freego{suffix}")
    r = cli("train", "freego", "--param", "size=5", "--games", "2", "--sims", "5", "--steps",
            "2", "--teacher", str(tmp_path / "run:2" / "freego.npz"), "--out",
            str(tmp_path / "taught"), "--quiet")
    assert r.returncode == 0, r.stderr
    colon = (tmp_path / "run:2" / "freego.npz").resolve()
    assert json.loads(r.stdout)["self_play"] == f"mcts:sims=5,model={colon}"
    long = (tmp_path / ("x" * 100) / ("y" * 100) / "freego.npz").resolve()
    r = cli("train", "freego", "--param", "size=5", "--games", "2", "--teacher", str(long),
            "--out", str(tmp_path / "long"), "--quiet")
    assert r.returncode == 2, r.stderr
    assert r.stderr.splitlines() == [
        f"error: teacher {str(long)!r}: its path, {str(long)!r}, is too long for the self-play's "
        "agent spec (at most 200 characters in all): copy or link the model to a shorter path"]
    assert not (tmp_path / "long").exists()
