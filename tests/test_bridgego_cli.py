"""Bridge Go through the real command line: replay --json (self_captured), bench, play."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

DATA = Path(__file__).resolve().parent / "data"


def lines(stdout):
    return [json.loads(line) for line in stdout.splitlines()]


@pytest.mark.slow
def test_replay_json_reports_capture_and_self_capture_of_one_move(cli):
    r = cli("replay", str(DATA / "bridgego-opponent-then-own.json"), "--json")
    assert r.returncode == 0, r.stderr
    rows = lines(r.stdout)
    last = rows[-1]
    assert last["move"] == "B2" and last["player"] == 1
    assert last["captured"] == 1 and last["self_captured"] == 1
    assert all(row["scores"] == [0, 0] for row in rows)
    assert all(row["captured"] == row["self_captured"] == 0 for row in rows[:-1])


@pytest.mark.slow
def test_replay_json_stops_at_a_superko_violation(cli):
    r = cli("replay", str(DATA / "bridgego-illegal-superko.json"), "--json")
    assert r.returncode == 2
    assert len(r.stdout.splitlines()) == 4
    assert "ply 4" in r.stderr and "'A5'" in r.stderr and "superko" in r.stderr


@pytest.mark.slow
def test_replay_json_shows_the_winning_bridge(cli, tmp_path):
    record = {"format": "stonegarden-record", "version": 1, "game": "bridgego",
              "params": {"size": 3}, "moves": ["B1", "A1", "B2", "A2", "B3"],
              "result": {"winner": 1, "reason": "bridge", "scores": [0, 0]}}
    path = tmp_path / "bridge.json"
    path.write_text(json.dumps(record))
    r = cli("replay", str(path), "--json")
    assert r.returncode == 0, r.stderr
    last = lines(r.stdout)[-1]
    assert last["terminal"] is True and last["winner"] == 1


@pytest.mark.slow
def test_bench_playouts_for_every_option(cli):
    for extra in ([], ["--param", "external=perpendicular"],
                  ["--param", "win_check=after-self-capture"], ["--param", "superko=false"]):
        r = cli("bench", "playouts", "bridgego", "--param", "size=7", *extra, "--seconds", "0.3",
                "--json")
        assert r.returncode == 0, r.stderr
        out = json.loads(r.stdout)
        assert out["playouts"] > 0 and out["mean_turns"] > 0


@pytest.mark.slow
def test_terminal_play_against_the_random_agent(cli):
    r = cli("play", "bridgego", "--param", "size=5", "--p2", "random", input="C3\npass\nquit\n")
    assert r.returncode == 0, r.stderr
    assert "player 2 (random) plays" in r.stdout
    assert "no pass in Bridge Go" in r.stdout
