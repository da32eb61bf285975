"""Random playouts for the capture race, the hot path of search and of ``bench playouts``.

Same uniform policy as ``shared/bench/baseline_blooms.py`` (every one of the 2E + E(E-1) turns
equally likely), with three savings:

- the empty cells live in an array updated in O(1) per stone;
- each cell keeps a count of its empty neighbours, so a bloom with a stone next to an empty cell
  is known alive without a flood, and a flood looks at one number per stone;
- captures are judged only around the stones placed this turn and last turn: an enemy bloom can
  only be fenced if this turn's stones fenced it, or if the enemy fenced it himself last turn,
  next to his own new stones (every other bloom kept the liberty it had).
"""

from __future__ import annotations

import numpy as np
from numba import njit

from .kernels import EMPTY


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
def _set_stone(board, nb, libs, cell, colour):
    board[cell] = colour
    for k in range(6):
        w = nb[cell, k]
        if w >= 0:
            libs[w] -= 1


@njit(cache=True)
def _clear_stone(board, nb, libs, cell):
    board[cell] = EMPTY
    for k in range(6):
        w = nb[cell, k]
        if w >= 0:
            libs[w] += 1


@njit(cache=True)
def _fenced_near(board, nb, libs, player, starts, nstarts, stack, seen, clock, out):
    """Cells of the fenced blooms of ``player`` at or next to ``starts``, into ``out``; count.

    A flood stops at the first stone with an empty neighbour; cells stamped by an earlier
    flood of this call belong to a bloom already found alive."""
    lo = 2 * player - 1
    hi = 2 * player
    base = clock[0]
    nout = 0
    for s in range(nstarts):
        c0 = starts[s]
        for k in range(7):
            v = c0 if k == 6 else nb[c0, k]
            if v < 0 or libs[v] > 0:
                continue
            colour = board[v]
            if (colour != lo and colour != hi) or seen[v] > base:
                continue
            clock[0] += 1
            stamp = clock[0]
            stack[0] = v
            seen[v] = stamp
            top = 1
            i = 0
            alive = False
            while i < top and not alive:
                x = stack[i]
                i += 1
                for d in range(6):
                    w = nb[x, d]
                    if w < 0 or board[w] != colour or seen[w] == stamp:
                        continue
                    if libs[w] > 0 or seen[w] > base:
                        alive = True
                        break
                    seen[w] = stamp
                    stack[top] = w
                    top += 1
            if not alive:
                for t in range(top):
                    out[nout + t] = stack[t]
                nout += top
    return nout


@njit(cache=True)
def new_buffers(n):
    """Scratch arrays for ``_race_playout``, allocated once per batch of playouts."""
    empties = np.empty(n, np.int32)
    where = np.full(n, -1, np.int32)
    libs = np.zeros(n, np.int32)
    stack = np.empty(n, np.int32)
    seen = np.zeros(n, np.int64)
    out = np.empty(n, np.int32)
    all_cells = np.arange(n).astype(np.int32)
    return empties, where, libs, stack, seen, out, all_cells


@njit(cache=True)
def race_playout(board, nb, player, first_turn, scores, target, max_turns, moves_out):
    """Play uniformly random turns on ``board`` (modified in place) until the race ends.

    ``scores`` (int64[2]) is updated. Uses numba's global generator (seed it first). Turns are
    written to ``moves_out`` as (cell_a, cell_b) pairs while it has room (for tests).
    Returns (winner, turns): winner 1, 2, 0 for a draw, -1 if ``max_turns`` ran out."""
    empties, where, libs, stack, seen, out, all_cells = new_buffers(board.shape[0])
    clock = np.zeros(1, np.int64)
    return _race_playout(board, nb, player, first_turn, scores, target, max_turns, moves_out,
                         empties, where, libs, stack, seen, out, all_cells, clock)


@njit(cache=True)
def _race_playout(board, nb, player, first_turn, scores, target, max_turns, moves_out,
                  empties, where, libs, stack, seen, out, all_cells, clock):
    n = board.shape[0]
    starts = np.empty(4, np.int32)
    ne = 0
    for i in range(n):
        libs[i] = 0
        where[i] = -1
    for i in range(n):
        if board[i] == EMPTY:
            empties[ne] = i
            where[i] = ne
            ne += 1
            for k in range(6):
                w = nb[i, k]
                if w >= 0:
                    libs[w] += 1
    nprev = 0
    full_scan = True  # the start position may hold blooms the opponent fenced himself
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
        ns = nprev
        if a >= 0:
            _set_stone(board, nb, libs, a, 2 * player - 1)
            ne = _take(a, empties, where, ne)
            starts[ns] = a
            ns += 1
        if b >= 0:
            _set_stone(board, nb, libs, b, 2 * player)
            ne = _take(b, empties, where, ne)
            starts[ns] = b
            ns += 1
        if 2 * turn + 1 < moves_out.shape[0]:
            moves_out[2 * turn] = a
            moves_out[2 * turn + 1] = b
        if full_scan:
            removed = _fenced_near(board, nb, libs, 3 - player, all_cells, n, stack, seen,
                                   clock, out)
            full_scan = False
        else:
            removed = _fenced_near(board, nb, libs, 3 - player, starts, ns, stack, seen,
                                   clock, out)
        for t in range(removed):
            c = out[t]
            _clear_stone(board, nb, libs, c)
            empties[ne] = c
            where[c] = ne
            ne += 1
        scores[player - 1] += removed
        if scores[player - 1] >= target:
            return player, turn + 1
        # this turn's stones become next turn's "last turn" starts
        new = ns - nprev
        for t in range(new):
            starts[t] = starts[nprev + t]
        nprev = new
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
    empties, where, libs, stack, seen, out, all_cells = new_buffers(board0.shape[0])
    clock = np.zeros(1, np.int64)
    for _ in range(count):
        board[:] = board0
        scores[0] = scores0[0]
        scores[1] = scores0[1]
        w, t = _race_playout(board, nb, player, first_turn, scores, target, max_turns, no_moves,
                             empties, where, libs, stack, seen, out, all_cells, clock)
        if w == 1:
            totals[0] += 1
        elif w == 2:
            totals[1] += 1
        else:
            totals[2] += 1
        totals[3] += t
    return totals
