"""The capture race's ``eyes`` playouts (``mcts:eyes=on`` in ``blooms``): no stone goes on
the mover's own eye while another cell is empty, the turns are drawn uniformly among the
others, and the playouts stay exact against the checked rules."""

from __future__ import annotations

from collections import Counter

import numpy as np
import pytest
from numba import njit

import stonegarden
from stonegarden.agents import make_agent
from stonegarden.games.blooms.playouts import eye_free_turn, new_buffers, own_eye, race_playout
from stonegarden.search.config import FLAT, SearchConfig
from stonegarden.search.profile import profile_for

#: size 3 (19 cells; the text's first row is the board's last): red round the empty cells 0
#: and 11, its own eyes, with cells 16 and 17 empty next to each other (neither an eye)
OPEN = "..R/RRRR/RRRR./RRRR/.RR"


@njit(cache=True)
def _draws(board, nb, player, first_turn, count, seed):
    np.random.seed(seed)
    n = board.shape[0]
    empties = np.empty(n, np.int32)
    ne = 0
    for i in range(n):
        if board[i] == 0:
            empties[ne] = i
            ne += 1
    kept = np.empty(n, np.int32)
    out = np.empty((count, 2), np.int32)
    for t in range(count):
        a, b = eye_free_turn(board, nb, player, empties, ne, first_turn, kept)
        out[t, 0] = a
        out[t, 1] = b
    return out


@njit(cache=True)
def _seed(x):
    np.random.seed(x)


def draws(text: str, count: int, seed: int = 1) -> Counter[tuple[int, int]]:
    game = stonegarden.make("blooms", size=3)
    s = game.parse_position(f"{text} 1 0,0 6 0 0")
    out = _draws(s.cells().copy(), game.board.neighbours, 1, False, count, seed)
    return Counter((int(a), int(b)) for a, b in out)


def test_turns_are_drawn_uniformly_among_those_off_the_movers_eyes():
    got = draws(OPEN, 6000)
    # one stone of either colour on 16 or 17, or one of each colour on the two: six turns
    assert set(got) == {(16, -1), (17, -1), (-1, 16), (-1, 17), (16, 17), (17, 16)}
    assert all(800 < k < 1200 for k in got.values())  # 1,000 each; 6 sigma is about 170


def test_a_mover_left_with_only_own_eyes_fills_one():
    got = draws(".RR/RRRR/RRRR./RRRR/.RR", 3000)  # every empty cell (0, 11, 16) an own eye
    cells = {c for turn in got for c in turn if c >= 0}
    assert cells == {0, 11, 16}
    assert len(got) == 2 * 3 + 3 * 2  # uniform over all twelve turns


def replay_eye_fills(game, moves, turns) -> tuple[int, object]:
    """Replay a kernel playout through the checked rules; count the stones put on the mover's
    own eye while a cell that is not one was empty, and return the final state."""
    s, fills = game.initial_state(), 0
    nb = game.board.neighbours
    for t in range(turns):
        a, b = int(moves[2 * t]), int(moves[2 * t + 1])
        board = s.cells()
        empty = [c for c in range(game.num_cells) if board[c] == 0]
        if any(not own_eye(board, nb, c, s.player) for c in empty):
            fills += sum(own_eye(board, nb, c, s.player) for c in (a, b))
        s = game.play(s, game.encode(a, b))
    return fills, s


@pytest.mark.parametrize("size,target", [(3, 6), (4, 15)])
def test_eye_playouts_never_fill_an_own_eye_and_end_as_the_rules_do(size, target):
    game = stonegarden.make("blooms", size=size, target=target)
    n = game.num_cells
    fills = {True: 0, False: 0}
    for eyes in (True, False):
        for seed in range(12):
            board = np.zeros(n, np.int8)
            scores = np.zeros(2, np.int64)
            moves = np.full(2 * game.max_game_length, -2, np.int32)
            _seed(seed)
            winner, turns = race_playout(board, game.board.neighbours, 1, True, scores, target,
                                         game.max_game_length, 0,
                                         np.zeros((3, 2 * n), np.int64), 1, moves,
                                         new_buffers(n), eyes)
            count, s = replay_eye_fills(game, moves, turns)
            fills[eyes] += count
            assert game.is_terminal(s) and game.winner(s) == winner
            assert list(game.scores(s)) == list(scores)
            assert s.cells().tolist() == board.tolist()
    assert fills[True] == 0
    assert fills[False] > 0  # uniform playouts do fill them: the check can fail


def test_eye_playouts_through_the_game_and_the_search():
    game = stonegarden.make("blooms", size=3)
    s = game.initial_state()
    totals = game.eye_playouts(s, 200, 3, True)
    assert totals[:3].sum() == 200 and totals[3] > 200
    assert list(game.random_playouts(s, 50, 3)) == list(game.eye_playouts(s, 50, 3, False))
    profile = profile_for(game)
    assert profile.option(SearchConfig(), "eyes") == 0  # off until a match says otherwise
    assert profile.option(FLAT, "eyes") == 0
    agent = make_agent("mcts:eyes=on,sims=200,seed=2")
    action = agent.choose(game, s)
    assert action in set(game.legal_actions(s).tolist())
    with pytest.raises(stonegarden.errors.ParameterError):
        make_agent("mcts:eyes=2")
