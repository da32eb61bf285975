"""The capture race's kernels for the search's compiled tree (``search/simulate.py``).

With split moves a turn is two tree levels: stage 0 chooses the cell of the mover's first
colour or none, stage 1 the cell of the second colour or none (never none after none; after a
stone on the game's first turn only none), so each whole turn has one path; captures are
resolved after stage 1. Without them a node (stage 2) has one edge per whole turn, its move
``(a + 1) * (N + 1) + b + 1``. Edges are listed cells first, in increasing order, then none.

``info``: the two scores, whether this is the game's first turn, and the first stone of a turn
in progress (-1 none). ``consts``: (neighbours, target, turn limit, ``captures``, each cell's
distance to the edge, the learned model's pattern, tactics and no-stone tables and its scale:
``model.py``; empty tables without a model; ``eyes``, 1 or 0: ``playouts.race_playout``). AMAF
keys are ``colour * N + cell``.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from ...geometry.flood import count_liberties, set_stone
from ...search.simulate import specialise
from ...search.tree_kernels import NO_MOVE
from .kernels import EMPTY, capture, empty_cells, place, turn_at, turn_count
from .model import feature_scratch, stone_priors
from .playouts import new_buffers, race_playout


@njit(cache=True)
def over_code(board, info, target, mover):
    """0 while the race goes on after ``mover``'s turn, else the proof code of its end."""
    if info[mover - 1] >= target:
        return mover
    for i in range(board.shape[0]):
        if board[i] == EMPTY:
            return 0
    if info[0] > info[1]:
        return 1
    if info[1] > info[0]:
        return 2
    return 3


@njit(cache=True)
def race_scratch(consts):
    nb = consts[0]
    n = nb.shape[0]
    return new_buffers(n), np.empty(0, np.int32), np.empty(4, np.int32), feature_scratch(n)


@njit(cache=True)
def race_begin(board, info, consts, scratch):
    count_liberties(board, consts[0], scratch[0][2])


@njit(cache=True)
def race_moves(board, info, player, stage, consts, scratch, moves, priors, want_priors):
    """The tree moves of a node at ``stage`` (see the module docstring), with the learned
    model's prior values at stages 0 and 1 if ``want_priors`` and there is a model (else -1:
    none)."""
    n = board.shape[0]
    first_turn = info[2] != 0
    pend_a = info[3]
    if stage == 2:
        empties = scratch[0][0]
        ne = empty_cells(board, empties)
        count = turn_count(ne, first_turn)
        for m in range(count):
            a, b = turn_at(empties, ne, m)
            moves[m] = (a + 1) * (n + 1) + b + 1
            priors[m] = -1.0
        return count
    k = 0
    if not (stage == 1 and pend_a >= 0 and first_turn):
        for i in range(n):
            if board[i] == EMPTY:
                moves[k] = i
                k += 1
    if stage == 0 or pend_a >= 0:
        moves[k] = NO_MOVE
        k += 1
    if want_priors and consts[5].shape[1] > 0:
        stone_priors(board, consts[0], consts[4], player, stage, moves, k, consts[5],
                     consts[6], consts[7], consts[8], scratch[3], priors)
    else:
        for j in range(k):
            priors[j] = -1.0
    return k


@njit(cache=True)
def race_stuck(board, info, player, consts):
    """A race position always has a move until it ends; scores decide if it ever had none."""
    return 1 if info[0] > info[1] else 2 if info[1] > info[0] else 3


@njit(cache=True)
def _end_turn(board, info, player, a, b, consts, scratch):
    """Place the turn's stones (the first may be on the board already: ``a`` is then -1),
    capture, and say whether the race ended."""
    nb = consts[0]
    buffers = scratch[0]
    libs = buffers[2]
    place(board, nb, libs, player, a, b, scratch[2])
    n = board.shape[0]
    info[player - 1] += capture(board, nb, libs, player, buffers[7], n, buffers[3], buffers[4],
                                buffers[8], buffers[5], buffers[6])
    info[2] = 0
    info[3] = -1
    return over_code(board, info, consts[1], player)


@njit(cache=True)
def race_play(board, info, player, stage, move, consts, scratch):
    if stage == 0:
        if move >= 0:
            set_stone(board, consts[0], scratch[0][2], move, 2 * player - 1)
        info[3] = move
        return 0, player, 1
    if stage == 1:
        code = _end_turn(board, info, player, -1, move, consts, scratch)
        return code, 3 - player, 0
    n = board.shape[0]
    code = _end_turn(board, info, player, move // (n + 1) - 1, move % (n + 1) - 1, consts,
                     scratch)
    return code, 3 - player, 2


@njit(cache=True)
def race_leaf(board, info, player, stage, consts, scratch, seen, stamp, replies, last,
              moves_out):
    """Finish a turn in progress with a random second stone, then play out."""
    n = board.shape[0]
    buffers = scratch[0]
    if stage == 1:
        empties = buffers[0]
        ne = empty_cells(board, empties)
        b = -1
        if info[3] < 0:
            b = empties[np.random.randint(ne)]
        elif info[2] == 0:
            k = np.random.randint(ne + 1)
            if k < ne:
                b = empties[k]
        if b >= 0:
            seen[player, n + b] = stamp
        code = _end_turn(board, info, player, -1, b, consts, scratch)
        if code != 0:
            return (code if code != 3 else 0), 0
        player = 3 - player
    w, _ = race_playout(board, consts[0], player, info[2] != 0, info[:2], consts[1], consts[2],
                        consts[3], seen, stamp, scratch[1], buffers, consts[9] != 0)
    return w, 0


RUN_RACE = specialise("run_race_sims", race_scratch, race_begin, race_moves, race_stuck,
                      race_play, race_leaf)
