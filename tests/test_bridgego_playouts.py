"""The Bridge Go playout kernel plays legal games: its moves replay through the checked rules
to the same end, under every option; the ``bridges`` policy answers intrusions into diagonal
connections."""

from __future__ import annotations

import numpy as np
import pytest

import stonegarden
from stonegarden.games.bridgego.playouts import bridge_playout, bridge_reply
from stonegarden.geometry.square import EMPTY_BOARD_KEY
from stonegarden.search.profile import profile_for

from .square_go_helpers import run_without_jit, seed_kernel_generator

OPTIONS = [{}, {"win_check": "after-self-capture"}, {"external": "perpendicular"},
           {"superko": False, "max_turns": 40}]


@pytest.mark.parametrize("options", OPTIONS, ids=str)
@pytest.mark.parametrize("seed", range(6))
@pytest.mark.slow
def test_kernel_playouts_replay_through_the_rules(options, seed):
    game = stonegarden.make("bridgego", size=4, **options)
    state = game.initial_state()
    seed_kernel_generator(seed)
    cap = 400
    moves = np.full(cap, -1, np.int32)
    size = 1 << 11
    w, t = bridge_playout(
        state.cells().copy(), game.board.neighbours, game.board.sides, game.board.zobrist,
        EMPTY_BOARD_KEY, 1, game.perpendicular, game.win_after, game.superko,
        np.array(state.history, np.int64), np.zeros(size, np.int64), np.zeros(size, np.int64), 1,
        cap if game.superko else game.params["max_turns"], moves, False,
        np.empty((0, 0), np.int32), -1,
    )
    for m in moves[:t]:
        state = game.play(state, int(m))  # raises if the kernel played an illegal move
    assert game.is_terminal(state), "random games on 4x4 end well before 400 moves"
    assert game.winner(state) == w


def _cells(game, black=(), white=()):
    cells = np.zeros(game.board.num_points, np.int8)
    for name in black:
        cells[game.board.point(name)] = 1
    for name in white:
        cells[game.board.point(name)] = 2
    return cells


@pytest.mark.parametrize("black, intrusion, reply", [
    (("B2", "C3"), "C2", "B3"),   # the intruder south-east of one stone: the north-west point
    (("B2", "C3"), "B3", "C2"),
    (("C2", "B3"), "B2", "C3"),   # the other diagonal
    (("C2", "B3"), "C3", "B2"),
    (("A1", "B2"), "B1", "A2"),   # on the edge of the board
])
def test_a_bridge_reply_is_the_other_shared_point(black, intrusion, reply):
    game = stonegarden.make("bridgego", size=5)
    cells = _cells(game, black, [intrusion])
    nb = game.board.neighbours
    assert bridge_reply(cells, nb, 1, game.board.point(intrusion)) == game.board.point(reply)
    assert bridge_reply(cells, nb, 2, game.board.point(intrusion)) == -1  # not white's bridge


def test_no_bridge_reply_without_a_bridge_to_save():
    game = stonegarden.make("bridgego", size=5)
    nb = game.board.neighbours
    p = game.board.point
    # the other shared point already taken by either side: nothing to save
    assert bridge_reply(_cells(game, ("B2", "C3"), ("C2", "B3")), nb, 1, p("C2")) == -1
    assert bridge_reply(_cells(game, ("B2", "C3", "B3"), ("C2",)), nb, 1, p("C2")) == -1
    # stones in a line, not diagonal; a lone stone; no last move
    assert bridge_reply(_cells(game, ("B2", "D2"), ("C2",)), nb, 1, p("C2")) == -1
    assert bridge_reply(_cells(game, ("B2",), ("C2",)), nb, 1, p("C2")) == -1
    assert bridge_reply(_cells(game, ("B2", "C3")), nb, 1, -1) == -1


@pytest.mark.parametrize("options", OPTIONS, ids=str)
@pytest.mark.slow
def test_bridge_saving_playouts_are_legal_and_answer_every_intrusion(options):
    """Replayed through the rules, every move after an intrusion into a bridge of the player to
    move is the reply that saves it, and the game ends with the kernel's winner."""
    game = stonegarden.make("bridgego", size=7, **options)
    replies = 0
    for seed in range(6):
        state = game.initial_state()
        winner, moves = profile_for(game).playout(state, seed, {"bridges": 1})
        last = -1
        for m in moves:
            expected = bridge_reply(state.cells(), game.board.neighbours, state.player, last)
            if expected >= 0:
                assert m == expected
                replies += 1
            state = game.play(state, int(m))  # raises if the kernel played an illegal move
            last = int(m)
        assert game.is_terminal(state)
        assert (game.winner(state) or 0) == winner
    assert replies >= 6  # intrusions are common: the policy was exercised


def test_the_bridges_policy_changes_the_playouts_and_off_is_uniform():
    game = stonegarden.make("bridgego", size=5)
    profile = profile_for(game)
    state = game.initial_state()
    on = [profile.playout(state, seed, {"bridges": 1}) for seed in range(40)]
    off = [profile.playout(state, seed, {"bridges": 0}) for seed in range(40)]
    assert [list(m) for _, m in on] != [list(m) for _, m in off]
    # off is the uniform playout: the same winners as the game's own random playouts
    totals = np.zeros(3, np.int64)
    for seed in range(40):
        totals += game.random_playouts(state, 1, seed)[:3]
    assert list(totals) == [sum(w == k for w, _ in off) for k in (1, 2, 0)]


@pytest.mark.nojit
@pytest.mark.slow
def test_rule_and_kernel_tests_pass_without_the_jit():
    """The kernels are plain Python with NUMBA_DISABLE_JIT=1 (coverage, debuggers): run this
    game's rule and playout tests that way in a subprocess."""
    run_without_jit("tests/test_bridgego_rules.py", "tests/test_bridgego_playouts.py",
                    "tests/test_bridgego_fast_turn.py")
