"""The Bridge Go playout kernel plays legal games: its moves replay through the checked rules
to the same end, under every option."""

from __future__ import annotations

import numpy as np
import pytest

import stonegarden
from stonegarden.games.bridgego.playouts import bridge_playout
from stonegarden.geometry.square import EMPTY_BOARD_KEY

from .square_go_helpers import run_without_jit, seed_kernel_generator

OPTIONS = [{}, {"win_check": "after-self-capture"}, {"external": "perpendicular"},
           {"superko": False, "max_turns": 40}]


@pytest.mark.parametrize("options", OPTIONS, ids=str)
@pytest.mark.parametrize("seed", range(6))
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
        cap if game.superko else game.params["max_turns"], moves,
    )
    for m in moves[:t]:
        state = game.play(state, int(m))  # raises if the kernel played an illegal move
    assert game.is_terminal(state), "random games on 4x4 end well before 400 moves"
    assert game.winner(state) == w


@pytest.mark.nojit
def test_rule_and_kernel_tests_pass_without_the_jit():
    """The kernels are plain Python with NUMBA_DISABLE_JIT=1 (coverage, debuggers): run this
    game's rule and playout tests that way in a subprocess."""
    run_without_jit("tests/test_bridgego_rules.py", "tests/test_bridgego_playouts.py",
                    "tests/test_bridgego_fast_turn.py")
