"""The playout kernel's shortcuts (local capture judging, incremental empty list) against the
checked Python layer: a kernel game replayed move by move must end identically."""

from __future__ import annotations

import numpy as np
import pytest

import stonegarden
from stonegarden.games.blooms.playouts import new_buffers, race_playout


@pytest.mark.parametrize("captures", [0, 4])
@pytest.mark.parametrize("size,target", [(3, 6), (4, 15), (5, 20), (6, 25)])
@pytest.mark.parametrize("seed", range(8))
def test_kernel_playout_equals_checked_replay(size, target, seed, captures):
    """Uniform playouts and the search's capture-preferring ones (``captures=4``)."""
    game = stonegarden.make("blooms", size=size, target=target)
    n = game.num_cells
    board = np.zeros(n, np.int8)
    scores = np.zeros(2, np.int64)
    moves = np.full(2 * game.max_game_length, -2, np.int32)
    seed_kernel(seed)
    winner, turns = race_playout(board, game.board.neighbours, 1, True, scores, target,
                                 game.max_game_length, captures, np.zeros((3, 2 * n), np.int64),
                                 1, moves, new_buffers(n))
    s = game.initial_state()
    for t in range(turns):
        a, b = int(moves[2 * t]), int(moves[2 * t + 1])
        s = game.play(s, game.encode(a, b))
    assert game.is_terminal(s)
    assert game.winner(s) == winner
    assert list(game.scores(s)) == list(scores)
    assert s.cells().tolist() == board.tolist()


def seed_kernel(seed):
    from numba import njit

    @njit
    def _seed(x):
        np.random.seed(x)

    _seed(seed)


@pytest.mark.slow
def test_playouts_from_a_midgame_position_with_a_self_fenced_bloom():
    # player 1 has just self-fenced R a1; every playout's first turn must capture it
    game = stonegarden.make("blooms", size=3, target=1)
    s = game.play_text(game.parse_position(".../..../...../KK../.K. 1 0,0 4 0 0"), "Ra1")
    totals = game.random_playouts(s, 50, seed=5)
    assert totals[1] == 50 and totals[3] == 50  # player 2 wins on the first turn every time


def test_territory_playouts_respect_max_turns():
    game = stonegarden.make("blooms-territory", size=4, max_turns=7)
    totals = game.random_playouts(game.initial_state(), 30, seed=1)
    assert totals[3] == 30 * 7 and totals[2] == 0


def test_territory_playout_winner_agrees_with_the_checked_scoring():
    game = stonegarden.make("blooms-territory", size=2, max_turns=2)
    s = game.play_text(game.initial_state(), "Rb2")
    # player 2 has exactly one move left before the limit; every outcome is scored by the rules
    outcomes = {game.winner(game.play(s, int(a))) for a in game.legal_actions(s)}
    totals = game.random_playouts(s, 300, seed=4)
    winners = {w for w, k in ((1, totals[0]), (2, totals[1])) if k}
    assert winners <= outcomes
