"""``stonegarden match``: summary fields, JSON, saved records, workers, bad input."""

from __future__ import annotations

import json

from stonegarden.cli.match import run_match
from stonegarden.core.record import load_record, replay_record
from stonegarden.lab.selfplay import with_seed as seeded_spec

SMALL = ("--param", "size=3")


def test_json_summary_has_the_documented_fields(cli):
    r = cli("match", "blooms", "greedy", "random", "--games", "4", *SMALL, "--json", "--quiet")
    assert r.returncode == 0, r.stderr
    out = json.loads(r.stdout.strip().splitlines()[-1])
    for key in ("games", "a_wins", "b_wins", "draws", "elo", "elo_ci95"):
        assert key in out
    assert out["games"] == 4 == out["a_wins"] + out["b_wins"] + out["draws"]
    lo, hi = out["elo_ci95"]
    assert lo <= out["elo"] <= hi


def test_text_summary_is_the_last_line(cli):
    r = cli("match", "blooms", "random", "random:seed=3", "--games", "2", *SMALL)
    assert r.returncode == 0, r.stderr
    last = r.stdout.strip().splitlines()[-1]
    assert "2 games" in last and "Elo A-B" in last and "95% CI" in last


def test_records_are_saved_and_replay_with_seats_alternating(cli, tmp_path):
    r = cli("match", "blooms", "greedy", "random", "--games", "3", *SMALL, "--json", "--quiet",
            "--save-dir", str(tmp_path / "games"), "--workers", "2")
    assert r.returncode == 0, r.stderr
    files = sorted((tmp_path / "games").glob("*.json"))
    assert len(files) == 3
    firsts = []
    for f in files:
        record = load_record(f)
        game, states = replay_record(record)
        assert game.is_terminal(states[-1])
        firsts.append(record.players["1"].split(":")[0])
    assert firsts == ["greedy", "random", "greedy"]


def test_results_repeat_for_a_fixed_seed():
    a = run_match("blooms", {"size": 3}, "mcts:sims=30", "random", 2, 1, 5, None, progress=False)
    b = run_match("blooms", {"size": 3}, "mcts:sims=30", "random", 2, 1, 5, None, progress=False)
    assert a == b


def test_seeded_spec_adds_a_seed_only_when_missing():
    assert seeded_spec("mcts", 4) == "mcts:seed=4"
    assert seeded_spec("level:3", 4) == "level:3,seed=4"
    assert seeded_spec("mcts:seed=1", 4) == "mcts:seed=1"


def test_bad_agent_spec_exits_2(cli):
    r = cli("match", "blooms", "mcts:bogus=1", "random", "--games", "1", *SMALL)
    assert r.returncode == 2
    assert "unknown option" in r.stderr


def test_human_cannot_play_a_match(cli):
    r = cli("match", "blooms", "human", "random", "--games", "1", *SMALL)
    assert r.returncode == 2
    assert "human" in r.stderr


def test_bad_game_parameter_exits_2(cli):
    r = cli("match", "blooms", "random", "random", "--param", "size=99")
    assert r.returncode == 2
    assert "error:" in r.stderr


def test_zero_games_is_a_usage_error(cli):
    r = cli("match", "blooms", "random", "random", "--games", "0")
    assert r.returncode == 2
