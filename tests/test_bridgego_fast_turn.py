"""The playouts' turn with kept labels (``fast_turn.play_kept``) against the plain turn
(``kernels.play_bridge``), move by move: same board, same captures, same win, and a hash
change that matches the boards' hashes, including after trials that are undone (a superko
rejection in the playouts) and from arbitrary starting boards; and the legal points built on
it against the definition."""

from __future__ import annotations

import numpy as np
import pytest

import stonegarden
from stonegarden.games.bridgego.fast_turn import legal_points, play_kept
from stonegarden.games.bridgego.kernels import EMPTY, play_bridge, position_hash
from stonegarden.geometry.hashset import build_table
from stonegarden.geometry.square import EMPTY_BOARD_KEY

OPTIONS = [{}, {"win_check": "after-self-capture"}, {"external": "perpendicular"},
           {"external": "perpendicular", "win_check": "after-self-capture"}]


class Kept:
    """The arrays a playout keeps between turns."""

    def __init__(self, n):
        self.labels = np.empty((3, n), np.int32)
        self.rmasks = np.empty((3, n), np.int8)
        self.valid = np.zeros(3, np.int8)
        self.stack = np.empty(n, np.int32)
        self.alive = np.empty(n, np.int8)
        self.seen = np.zeros(n, np.int64)
        self.stamps = np.zeros(1, np.int64)
        self.out = np.empty(n, np.int32)

    def play(self, game, board, player, point):
        b = game.board
        return play_kept(board, b.neighbours, b.sides, b.zobrist, player, point,
                         game.perpendicular, game.win_after, self.labels, self.rmasks,
                         self.valid, self.stack, self.alive, self.seen, self.stamps, self.out)


def plain(game, board, player, point):
    n = game.board.num_points
    return play_bridge(board, game.board.neighbours, game.board.sides, player, point,
                       game.perpendicular, game.win_after, np.empty(n, np.int32),
                       np.empty(n, np.int8), np.empty(n, np.int32), np.empty(n, np.int8),
                       np.empty(n, np.int32))


def run_game(game, board, player, rng, undo_rate):
    """Random turns on ``board`` with both turn functions; returns how many captures and
    self-captures the game had (so the test knows it exercised them)."""
    kept = Kept(game.board.num_points)
    zob = game.board.zobrist
    events = np.zeros(2, np.int64)
    for _turn in range(4 * game.board.num_points):
        empties = np.flatnonzero(board == EMPTY)
        if len(empties) == 0:
            break
        if rng.random() < undo_rate:  # a trial the playout would undo (superko)
            trial, before = board.copy(), kept.valid[3 - player]
            kept.play(game, trial, player, int(rng.choice(empties)))
            kept.valid[3 - player] = before
            kept.valid[player] = 0
        point = int(rng.choice(empties))
        fast, slow = board.copy(), board.copy()
        c1, s1, w1, delta = kept.play(game, fast, player, point)
        c2, s2, w2 = plain(game, slow, player, point)
        assert (c1, s1, bool(w1)) == (c2, s2, bool(w2)), (board, player, point)
        np.testing.assert_array_equal(fast, slow)
        before = position_hash(board, zob, EMPTY_BOARD_KEY)
        assert before ^ delta == position_hash(fast, zob, EMPTY_BOARD_KEY)
        events += (c1 > 0, s1 > 0)
        if w1:
            break
        board = fast
        player = 3 - player
    return events


@pytest.mark.parametrize("options", OPTIONS, ids=str)
@pytest.mark.parametrize("size", [4, 5, 7])
def test_kept_labels_turns_equal_plain_turns_from_the_empty_board(options, size):
    game = stonegarden.make("bridgego", size=size, **options)
    rng = np.random.default_rng(size)
    events = np.zeros(2, np.int64)
    for _ in range(25):
        board = game.initial_state().cells().copy()
        events += run_game(game, board, 1, rng, undo_rate=0.2)
    assert events[0] > 0 and events[1] > 0, "random games capture and self-capture"


@pytest.mark.parametrize("options", OPTIONS, ids=str)
def test_kept_labels_turns_equal_plain_turns_from_arbitrary_boards(options):
    """Random boards need not satisfy the between-turns invariant (every chain alive): the
    first turn judges the whole board, later turns rely on the invariant it restores."""
    game = stonegarden.make("bridgego", size=6, **options)
    rng = np.random.default_rng(7)
    for _ in range(60):
        board = rng.choice(np.array([0, 0, 1, 2], np.int8), game.board.num_points)
        run_game(game, board, int(rng.integers(1, 3)), rng, undo_rate=0.1)


def plain_legal(game, board, player, history):
    """Legal points by the definition: play each empty point with ``play_bridge``."""
    zob = game.board.zobrist
    legal = []
    for p in np.flatnonzero(board == EMPTY):
        work = board.copy()
        _, _, won = plain(game, work, player, int(p))
        if won or int(position_hash(work, zob, EMPTY_BOARD_KEY)) not in history:
            legal.append(int(p))
    return legal


@pytest.mark.parametrize("options", OPTIONS, ids=str)
@pytest.mark.slow
def test_legal_points_equal_the_definition_on_arbitrary_boards(options):
    """Boards where either colour may have chains without an external liberty, and a history
    holding some of the positions the moves would make (so superko forbids those)."""
    game = stonegarden.make("bridgego", size=5, **options)
    zob, n = game.board.zobrist, game.board.num_points
    rng = np.random.default_rng(3)
    forbidden_seen = 0
    for _ in range(150):
        board = rng.choice(np.array([0, 0, 0, 1, 2], np.int8), n)
        player = int(rng.integers(1, 3))
        history = set()
        for p in rng.choice(np.flatnonzero(board == EMPTY), 3):
            work = board.copy()
            plain(game, work, player, int(p))
            history.add(int(position_hash(work, zob, EMPTY_BOARD_KEY)))
        out = np.empty(n, np.int32)
        k = legal_points(board.copy(), game.board.neighbours, game.board.sides, zob,
                         EMPTY_BOARD_KEY, player, game.perpendicular, game.win_after, True,
                         build_table(np.array(sorted(history), np.int64)), out)
        expected = plain_legal(game, board, player, history)
        assert out[:k].tolist() == expected
        one = np.empty(1, np.int32)  # a one-point out asks only for the first legal point
        k1 = legal_points(board.copy(), game.board.neighbours, game.board.sides, zob,
                          EMPTY_BOARD_KEY, player, game.perpendicular, game.win_after, True,
                          build_table(np.array(sorted(history), np.int64)), one)
        assert k1 == min(1, len(expected)) and one[:k1].tolist() == expected[:1]
        forbidden_seen += int((board == EMPTY).sum()) - len(expected)
    assert forbidden_seen > 0, "superko forbade some moves"
