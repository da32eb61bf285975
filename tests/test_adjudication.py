"""Resignation adjudication: the rule, its replay over recorded values, and matches using it."""

from __future__ import annotations

import json

import pytest

from stonegarden.cli.match import run_match
from stonegarden.core.record import load_record, replay_record
from stonegarden.errors import ParameterError
from stonegarden.lab.adjudication import ResignRule, first_resignation, should_resign
from stonegarden.lab.selfplay import play_game
from stonegarden.lab.study import StudySpec


@pytest.mark.parametrize("below,moves", [(0.0, 2), (0.5, 2), (0.7, 1), (float("nan"), 2),
                                         (0.05, 0), (0.05, -1)])
def test_bad_rules_are_refused(below, moves):
    with pytest.raises(ParameterError):
        ResignRule(below, moves)


def test_needs_the_given_number_of_consecutive_low_values():
    rule = ResignRule(0.1, 2)
    assert not should_resign([0.05], False, rule)
    assert not should_resign([0.05, 0.5], False, rule)
    assert not should_resign([0.05, None], False, rule)
    assert should_resign([0.5, 0.05, 0.09], False, rule)
    assert should_resign([0.9], True, rule), "a proved loss resigns at once"


def test_first_resignation_skips_chance_and_the_other_player():
    rule = ResignRule(0.1, 2)
    values = [0.5, 0.04, None, 0.06, 0.03, 0.02]
    movers = [1, 2, 0, 1, 2, 1]
    # player 2's own values: 0.04 (entry 1), 0.03 (entry 4): fires at entry 4
    assert first_resignation(values, movers, rule) == (4, 2)
    assert first_resignation(values, movers, ResignRule(0.01, 1)) is None


def test_first_resignation_fires_on_a_proof_whatever_the_value():
    rule = ResignRule(0.05, 2)
    values = [0.5, 0.6, 0.4, 0.7]
    movers = [1, 2, 1, 2]
    assert first_resignation(values, movers, rule) is None
    assert first_resignation(values, movers, rule, [False, False, False, True]) == (3, 2)


@pytest.mark.slow
def test_played_out_games_record_each_search_proof_of_a_loss():
    task = {"game": "bridgego", "params": {"size": 5}, "seed": 3, "index": 0,
            # c=0.2 (wider than Bridge Go's default): this seed's game then ends with a proof
            # of the loss
            "seats": {"1": "mcts:sims=200,c=0.2", "2": "mcts:sims=200,c=0.2"}, "resign": None}
    out = play_game(task)
    assert len(out["proved"]) == len(out["moves"]) == len(out["values"])
    lost = [i for i, p in enumerate(out["proved"]) if p]
    # Bridge Go ends suddenly: the losing side's search proves its loss before the end
    assert lost, "a 5x5 game at 200 simulations ends with the loser's loss proved"
    for i in lost:
        assert out["values"][i] == 0.0 and out["movers"][i] != out["winner"]
    assert first_resignation(out["values"], out["movers"], ResignRule(0.01, 3),
                             out["proved"]) == (lost[0], out["movers"][lost[0]])


def _task(resign):
    return {"game": "blooms", "params": {"size": 3}, "seed": 3, "index": 0,
            "seats": {"1": "mcts:sims=60", "2": "mcts:sims=60"}, "resign": resign}


def test_a_game_ends_with_the_losing_side_resigning():
    out = play_game(_task([0.45, 1]))
    played_out = play_game(_task(None))
    assert not played_out["adjudicated"] and played_out["moves"][-1] != "resign"
    assert out["adjudicated"] and out["moves"][-1] == "resign"
    loser = out["movers"][-1]
    assert out["values"][-1] < 0.45
    assert out["winner"] == 3 - loser and out["reason"] == "resign"
    assert len(out["moves"]) <= len(played_out["moves"])
    assert len(out["values"]) == len(out["moves"]) == len(out["legal"]) == len(out["movers"])


def test_match_reports_and_saves_resignations(tmp_path):
    out = run_match("blooms", {"size": 3}, "mcts:sims=60", "mcts:sims=40", 4, 1, 2,
                    str(tmp_path), progress=False, resign=ResignRule(0.45, 1))
    assert out["resigned"] >= 1
    ended_by_resign = 0
    for f in sorted(tmp_path.glob("*.json")):
        record = load_record(f)
        game, states = replay_record(record)
        assert game.is_terminal(states[-1])
        ended_by_resign += record.moves[-1] == "resign"
    assert ended_by_resign == out["resigned"]


@pytest.mark.slow
def test_cli_rejects_a_threshold_outside_the_range(cli):
    r = cli("match", "blooms", "random", "random", "--param", "size=3", "--games", "1",
            "--resign", "0.7")
    assert r.returncode == 2 and "--resign" in r.stderr


@pytest.mark.slow
def test_cli_match_json_counts_resignations(cli):
    r = cli("match", "blooms", "mcts:sims=60", "mcts:sims=40", "--param", "size=3", "--games",
            "2", "--resign", "0.45", "--resign-moves", "1", "--json", "--quiet")
    assert r.returncode == 0, r.stderr
    out = json.loads(r.stdout.strip().splitlines()[-1])
    assert 0 <= out["resigned"] <= out["games"] == 2


def test_study_keys_without_a_rule_are_unchanged():
    plain = StudySpec("blooms", {}, ("random", "random"))
    assert "resign" not in plain.key_spec()
    ruled = StudySpec("blooms", {}, ("random", "random"), resign=[0.05, 2])
    assert ruled.key_spec()["resign"] == [0.05, 2] and ruled.task(0)["resign"] == [0.05, 2]


def test_a_study_spec_is_a_value():
    """What defines a study's games (its key) cannot be changed once the study is made."""
    import dataclasses

    spec = StudySpec("blooms", {}, ("random", "random"))
    with pytest.raises(dataclasses.FrozenInstanceError):
        spec.seed = 1  # type: ignore[misc]
