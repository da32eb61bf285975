"""Blobs in play: the frontier invariant as a property, the playout kernel against the protocol,
and ``stonegarden replay --json`` through the real CLI."""

from __future__ import annotations

import json

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import stonegarden
from stonegarden import CHANCE
from stonegarden.core.protocol import Game
from stonegarden.games.blobs import playouts as P


def bounding_box(state):
    rows = [r for r, _ in state.placements()]
    cols = [c for _, c in state.placements()]
    return min(rows), max(rows), min(cols), max(cols)


@settings(max_examples=80, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    data=st.data(),
    dice=st.integers(2, 60),
    max_grid=st.integers(2, 8),
    win=st.sampled_from(["either", "white", "own", "enemy"]),
    tumbling=st.booleans(),
)
@pytest.mark.slow
def test_between_moves_every_frontier_cell_has_exactly_two_options(data, dice, max_grid, win,
                                                                   tumbling):
    game = stonegarden.make("blobs", dice=dice, max_grid=max_grid, win=win, tumbling=tumbling)
    s = game.initial_state()
    while not game.is_terminal(s):
        if s.dice_left > 0:
            options = game.frontier_options(s)
            assert options and all(len(o) == 2 for o in options.values()), game.position_text(s)
        if game.current_player(s) == CHANCE:
            outcomes = game.chance_outcomes(s)
            a = data.draw(st.sampled_from([a for a, _ in outcomes]))
        else:
            legal = game.legal_actions(s)
            a = int(legal[data.draw(st.integers(0, len(legal) - 1))])
        before = s
        s = game.play(s, a)
        assert 0 <= len(s.auto) <= 3
        if s.auto:
            # auto moves never widen the box of the dice that were there plus the mover's die
            r0, r1, c0, c1 = bounding_box(before)
            r, c = divmod(a >> 2, 15)
            r, c = r - 7, c - 7
            box = (min(r0, r), max(r1, r), min(c0, c), max(c1, c))
            assert bounding_box(s) == box
        assert s.dice_left == before.dice_left - (0 if a >= 900 else 1 + len(s.auto))


# -- playouts -----------------------------------------------------------------------------------
@pytest.mark.slow
def test_rolls_come_up_one_one_four_sixths_and_rerolls_renormalise():
    counts = P.roll_counts(0b111, 60_000, 1) / 60_000
    assert np.allclose(counts, [1 / 6, 1 / 6, 4 / 6], atol=0.01)
    counts = P.roll_counts(0b101, 50_000, 2) / 50_000  # Blue fits nowhere
    assert np.allclose(counts, [1 / 5, 0, 4 / 5], atol=0.01)


@pytest.mark.parametrize("params", [{}, {"tumbling": True}, {"win": "enemy", "max_grid": 4}])
@pytest.mark.slow
def test_playout_kernel_agrees_with_the_protocol_in_distribution(params):
    """The kernel and the generic protocol playouts (which go through ``play``) give the same
    win rates and game lengths within sampling noise."""
    game = stonegarden.make("blobs", **params)
    s = game.initial_state()
    n = 400
    fast = game.random_playouts(s, 4000, seed=5) / np.array([4000, 4000, 4000, 4000])
    slow = Game.random_playouts(game, s, n, seed=5) / np.array([n, n, n, n])
    assert np.allclose(fast[:3], slow[:3], atol=0.08), (fast, slow)
    assert abs(fast[3] - slow[3]) < 0.15 * fast[3], (fast, slow)


def kernel_playout(game, seed, safe):
    """One kernel playout from the start: (winner, the entries played, the final cells)."""
    from stonegarden.games.blobs.rules import _GEOMETRY

    s = game.initial_state()
    cells, pcol, box = game._arrays(s.cells)
    moves = np.full(game.max_game_length, -1, np.int64)
    P.seed_generator(seed)
    winner, entries = P.playout(
        cells, pcol, box, _GEOMETRY, s.to_place, s.dice_left, -1, game.has_chance,
        ["either", "white", "own", "enemy"].index(game.params["win"]), game.params["max_grid"],
        safe, np.empty(225 * 4, np.int64), np.empty(225, np.int64), moves,
    )
    return winner, [int(a) for a in moves[:entries]], cells.tobytes()


@pytest.mark.parametrize("safe", [0, 8])
@pytest.mark.parametrize("params", [{}, {"tumbling": True}, {"win": "white", "max_grid": 3}])
@pytest.mark.parametrize("seed", range(5))
def test_each_kernel_playout_replays_through_the_rules(params, seed, safe):
    """Every entry the kernel plays is legal for the protocol, and the protocol reaches the
    same end after the same number of entries (also when moves are tried and taken back)."""
    game = stonegarden.make("blobs", **params)
    winner, moves, cells = kernel_playout(game, seed, safe)
    s = game.initial_state()
    for action in moves:
        assert not game.is_terminal(s)
        s = game.play(s, action)
    assert game.is_terminal(s)
    assert game.winner(s) == winner
    assert s.cells == cells


@pytest.mark.parametrize("params", [{}, {"tumbling": True}, {"win": "enemy"}])
def test_safe_playouts_hand_the_opponent_a_win_only_when_every_move_does(params):
    """With ``safe`` at least the number of legal moves, a playout ends by the mover handing
    the opponent a win only from a position where every legal move (of the rolled face) does;
    uniform playouts often hand one over while a safe move exists."""
    game = stonegarden.make("blobs", **params)
    needless = {0: 0, 64: 0}
    for safe, seed in [(s, seed) for s in (0, 64) for seed in range(40)]:
        winner, moves, _ = kernel_playout(game, seed, safe)
        s = game.initial_state()
        for action in moves[:-1]:
            s = game.play(s, action)
        mover = game.current_player(s)
        if winner == 3 - mover:  # the last move handed the opponent a win
            loses = [game.winner(game.play(s, int(a))) == 3 - mover
                     for a in game.legal_actions(s)]
            needless[safe] += not all(loses)
    assert needless[0] >= 5 and needless[64] == 0, needless


@pytest.mark.parametrize("params", [{}, {"tumbling": True}])
def test_one_try_per_move_is_the_uniform_playout(params):
    game = stonegarden.make("blobs", **params)
    s = game.initial_state()
    uniform = game.random_playouts(s, 300, seed=9)
    assert (game.safe_playouts(s, 300, 9, 0) == uniform).all()
    assert (game.safe_playouts(s, 300, 9, 1) == uniform).all()
    assert not (game.safe_playouts(s, 300, 9, 8) == uniform).all()


def test_safe_playouts_lose_fewer_games_by_handing_over_a_win():
    """Measured, not assumed: from the start, safe playouts end in more draws (fewer games
    are given away), over 2,000 playouts each."""
    game = stonegarden.make("blobs")
    s = game.initial_state()
    uniform = game.safe_playouts(s, 2000, 3, 0)
    safe = game.safe_playouts(s, 2000, 3, 8)
    assert safe[2] > 2 * uniform[2]
    assert safe[3] > uniform[3]  # longer games


def test_playouts_from_a_finished_game_count_its_result():
    game = stonegarden.make("blobs")
    s = game.initial_state()
    for m in ["h9M", "g8M", "g9M"]:
        s = game.play_text(s, m)
    totals = game.random_playouts(s, 5, seed=0)
    assert totals.tolist() == [5, 0, 0, 0]


# -- replay --json through the CLI --------------------------------------------------------------
def write_record(tmp_path, name, moves, params=None, result=None):
    record = {"format": "stonegarden-record", "version": 1, "game": "blobs",
              "params": params or {}, "moves": moves}
    if result is not None:
        record["result"] = result
    path = tmp_path / name
    path.write_text(json.dumps(record))
    return path


def rows_of(proc):
    assert proc.returncode == 0, proc.stderr
    return [json.loads(line) for line in proc.stdout.splitlines()]


@pytest.mark.slow
def test_replay_json_reports_auto_moves_and_dice_left(tmp_path, cli):
    # T4: Blue g8R, Red g9R, Blue f9R auto-fills f8 and closes a white circle ringed by red
    path = write_record(tmp_path, "t4.json", ["g8R", "g9R", "f9:RR"],
                        result={"winner": 1, "scores": [0, 0]})
    rows = rows_of(cli("replay", str(path), "--json"))
    assert [r["player"] for r in rows] == [2, 1, 2]
    assert [r["move"] for r in rows] == ["g8R", "g9R", "f9R"]
    assert [r["auto_moves"] for r in rows] == [[], [], ["f8R"]]
    assert [r["dice_left"] for r in rows] == [46, 45, 43]
    assert [r["terminal"] for r in rows] == [False, False, True]
    assert [r["winner"] for r in rows] == [None, None, 1]
    assert all(r["scores"] == [0, 0] and r["captured"] == 0 and r["self_captured"] == 0
               for r in rows)
    assert rows[0]["legal_moves"] == 8  # two options on each of the opening die's four sides
    game = stonegarden.make("blobs")
    s = game.initial_state()
    for row in rows:
        assert row["legal_moves"] == game.count_legal_actions(s)
        s = game.play_text(s, row["move"])


@pytest.mark.slow
def test_replay_json_reports_tumbling_rolls_as_chance_entries(tmp_path, cli):
    moves = ["roll:R", "g8R", "roll:r", "g9R", "roll:R", "f9R"]
    path = write_record(tmp_path, "tumbling.json", moves, params={"tumbling": True})
    rows = rows_of(cli("replay", str(path), "--json"))
    assert [r.get("player") for r in rows] == [None, 2, None, 1, None, 2]
    assert ["player" in r for r in rows] == [False, True, False, True, False, True]
    assert [r["move"] for r in rows] == ["roll:R", "g8R", "roll:R", "g9R", "roll:R", "f9R"]
    assert rows[0]["legal_moves"] == 3  # all three faces fit somewhere
    assert rows[1]["legal_moves"] == 2  # a Red face fits on h9 or g8 only
    assert [r["auto_moves"] for r in rows] == [[], [], [], [], [], ["f8R"]]
    assert [r["dice_left"] for r in rows] == [47, 46, 46, 45, 45, 43]
    assert rows[-1]["terminal"] and rows[-1]["winner"] == 1


@pytest.mark.slow
def test_replay_json_stops_at_an_illegal_entry(tmp_path, cli):
    path = write_record(tmp_path, "bad.json", ["h9M", "f9M", "h9M"])
    proc = cli("replay", str(path), "--json")
    assert proc.returncode == 2
    assert len(proc.stdout.splitlines()) == 1
    assert "ply 1" in proc.stderr and "'f9M'" in proc.stderr


@pytest.mark.nojit
@pytest.mark.slow
def test_kernels_run_as_plain_python(tmp_path, cli):
    """With NUMBA_DISABLE_JIT=1 the kernels run as ordinary Python and replay the same."""
    path = write_record(tmp_path, "t4.json", ["roll:R", "g8R", "roll:R", "g9R", "roll:R", "f9R"],
                        params={"tumbling": True})
    jit = rows_of(cli("replay", str(path), "--json"))
    plain = rows_of(cli("replay", str(path), "--json", NUMBA_DISABLE_JIT="1"))
    assert plain == jit
    bench = cli("bench", "playouts", "blobs", "--seconds", "0.2", "--json", NUMBA_DISABLE_JIT="1")
    assert bench.returncode == 0, bench.stderr
    assert json.loads(bench.stdout)["playouts"] > 0
