"""Random playouts for the capture race, the hot path of search and of ``bench playouts``.

Two savings over a plain implementation (``shared/bench/baseline_blooms.py``) while keeping the
same uniform policy over all 2E + E(E-1) turns: the empty cells live in an array updated in
O(1) per stone, and captures are judged only around the stones placed this turn and last turn
(an enemy bloom can only be fenced if the enemy fenced it himself last turn, next to his own new
stones, or if this turn's stones fenced it).
"""

from __future__ import annotations

import numpy as np
from numba import njit

from .kernels import EMPTY, all_cells, find_fenced


@njit(cache=True)
def _take(cell, empties, where, ne):
    """Remove ``cell`` from the empty list; returns the new length."""
    i = where[cell]
    last = empties[ne - 1]
    empties[i] = last
    where[last] = i
    where[cell] = -1
    return ne - 1


@njit(cache=True)
def race_playout(board, nb, player, first_turn, scores, target, max_turns, moves_out):
    """Play uniformly random turns on ``board`` (modified in place) until the race ends.

    ``scores`` (int64[2]) is updated. Uses numba's global generator (seed it first). Turns are
    written to ``moves_out`` as (cell_a, cell_b) pairs when it has room (for tests).
    Returns (winner, turns): winner 1, 2, 0 for a draw, -1 if ``max_turns`` ran out."""
    n = board.shape[0]
    empties = np.empty(n, np.int32)
    where = np.full(n, -1, np.int32)
    ne = 0
    for i in range(n):
        if board[i] == EMPTY:
            empties[ne] = i
            where[i] = ne
            ne += 1
    stack = np.empty(n, np.int32)
    seen = np.zeros(n, np.int64)
    out = np.empty(n, np.int32)
    starts = np.empty(4, np.int32)
    prev = np.empty(2, np.int32)
    nprev = 0
    full = all_cells(n)
    full_scan = True  # the position we start from may hold old self-fenced blooms
    clock = np.zeros(1, np.int64)
    for turn in range(max_turns):
        if ne == 0:
            if scores[0] > scores[1]:
                return 1, turn
            if scores[1] > scores[0]:
                return 2, turn
            return 0, turn
        singles = 2 * ne
        doubles = 0 if first_turn else ne * (ne - 1)
        m = np.random.randint(singles + doubles)
        a = -1
        b = -1
        if m < singles:
            cell = empties[m >> 1]
            if (m & 1) == 0:
                a = cell
            else:
                b = cell
        else:
            m -= singles
            i = m // (ne - 1)
            j = m % (ne - 1)
            if j >= i:
                j += 1
            a = empties[i]
            b = empties[j]
        ns = 0
        if a >= 0:
            board[a] = 2 * player - 1
            ne = _take(a, empties, where, ne)
            starts[ns] = a
            ns += 1
        if b >= 0:
            board[b] = 2 * player
            ne = _take(b, empties, where, ne)
            starts[ns] = b
            ns += 1
        if 2 * turn + 1 < moves_out.shape[0]:
            moves_out[2 * turn] = a
            moves_out[2 * turn + 1] = b
        for t in range(nprev):
            starts[ns] = prev[t]
            ns += 1
        if full_scan:
            removed = find_fenced(board, nb, 3 - player, full, n, stack, seen, clock, out, 0)
            full_scan = False
        else:
            removed = find_fenced(board, nb, 3 - player, starts, ns, stack, seen, clock, out, 0)
        for t in range(removed):
            c = out[t]
            board[c] = EMPTY
            empties[ne] = c
            where[c] = ne
            ne += 1
        scores[player - 1] += removed
        if scores[player - 1] >= target:
            return player, turn + 1
        nprev = 0
        if a >= 0:
            prev[nprev] = a
            nprev += 1
        if b >= 0:
            prev[nprev] = b
            nprev += 1
        player = 3 - player
        first_turn = False
    return -1, max_turns


@njit(cache=True)
def race_playouts(board0, nb, player, first_turn, scores0, target, max_turns, count, seed):
    """Run ``count`` playouts from one position. Returns int64[4]: wins of player 1, wins of
    player 2, draws (unfinished games count here too), and total turns played."""
    np.random.seed(seed)
    totals = np.zeros(4, np.int64)
    board = np.empty_like(board0)
    scores = np.empty(2, np.int64)
    no_moves = np.empty(0, np.int32)
    for _ in range(count):
        board[:] = board0
        scores[0] = scores0[0]
        scores[1] = scores0[1]
        w, t = race_playout(board, nb, player, first_turn, scores, target, max_turns, no_moves)
        if w == 1:
            totals[0] += 1
        elif w == 2:
            totals[1] += 1
        else:
            totals[2] += 1
        totals[3] += t
    return totals
