"""``stonegarden analyse``: output shape, review, determinism, bad input."""

from __future__ import annotations

import json

import pytest

import stonegarden
from stonegarden.core.record import make_record, save_record

MOVES = ["Rb3", "Kc3,Ga2", "Rc2,Yb2", "Kd2"]


@pytest.fixture
def record_file(tmp_path):
    game = stonegarden.make("blooms", size=3)
    states = game.replay(MOVES)
    path = tmp_path / "game.json"
    save_record(make_record(game, MOVES, states[-1]), path)
    return path


@pytest.mark.slow
def test_position_analysis_shape(cli, record_file):
    r = cli("analyse", str(record_file), "--ply", "2", "--sims", "300", "--json")
    assert r.returncode == 0, r.stderr
    out = json.loads(r.stdout)
    assert out["ply"] == 2 and out["player"] == 1
    assert 0.0 <= out["value"] <= 1.0
    assert out["sims"] == 300
    assert out["best_moves"]
    for m in out["best_moves"]:
        assert set(m) == {"move", "visits", "value"}
        assert 0.0 <= m["value"] <= 1.0
    assert out["pv"] and out["pv"][0] == out["best_moves"][0]["move"]
    game = stonegarden.make("blooms", size=3)
    state = game.replay(MOVES[:2])[-1]
    for text in out["pv"]:  # the principal variation is a legal line
        state = game.play_text(state, text)


@pytest.mark.slow
def test_same_seed_and_sims_give_the_same_analysis(cli, record_file):
    runs = [json.loads(cli("analyse", str(record_file), "--sims", "200", "--json").stdout)
            for _ in range(2)]
    for out in runs:
        out.pop("seconds")
    assert runs[0] == runs[1]


@pytest.mark.slow
def test_review_gives_every_move_with_the_value_lost(cli, record_file):
    r = cli("analyse", str(record_file), "--review", "--sims", "150", "--json")
    assert r.returncode == 0, r.stderr
    rows = json.loads(r.stdout)["moves"]
    assert [row["move"] for row in rows] == MOVES
    for row in rows:
        assert row["lost"] >= 0
        assert row["value_best"] - row["value_played"] == pytest.approx(row["lost"], abs=1e-3)
    # a search a move takes minutes over a game: a bar on stderr counts the moves, unless quiet
    assert f"review {'━' * 10}" in r.stderr and f"{len(MOVES)}/{len(MOVES)}" in r.stderr
    quiet = cli("analyse", str(record_file), "--review", "--sims", "50", "--json", "--quiet")
    assert quiet.returncode == 0 and quiet.stderr == ""


@pytest.mark.slow
def test_text_output_lists_moves_and_pv(cli, record_file):
    r = cli("analyse", str(record_file), "--sims", "100")
    assert r.returncode == 0, r.stderr
    assert "win probability" in r.stdout and "pv:" in r.stdout


@pytest.mark.parametrize("args,message", [
    (["--ply", "9"], "outside 0..4"),
    (["--ply", "-1"], "outside 0..4"),
    (["--time", "1", "--sims", "5"], "not both"),
])
@pytest.mark.slow
def test_bad_options_exit_2(cli, record_file, args, message):
    r = cli("analyse", str(record_file), *args)
    assert r.returncode == 2
    assert message in r.stderr


@pytest.mark.slow
def test_a_finished_games_end_is_no_position_to_analyse(cli, tmp_path):
    game = stonegarden.make("blooms", size=3, target=1)
    moves = ["Ra2", "Ka1", "Rb1,Yb2"]
    path = tmp_path / "won.json"
    save_record(make_record(game, moves, game.replay(moves)[-1]), path)
    r = cli("analyse", str(path), "--sims", "10", "--ply", "3")
    assert r.returncode == 2
    assert "the game is over after 3 moves" in r.stderr
    r = cli("analyse", str(path), "--sims", "10", "--threads", "1")  # the last move's position
    assert r.returncode == 0 and r.stdout.startswith("ply 2, player 1 to move")


@pytest.mark.slow
def test_missing_record_exits_2(cli, tmp_path):
    r = cli("analyse", str(tmp_path / "nope.json"))
    assert r.returncode == 2
    assert "cannot read record" in r.stderr
