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

from ..playout_totals import add_result
from .kernels import (
    EMPTY,
    find_fenced,
    position_hash,
    territory_legal_actions,
    territory_scores,
    try_territory_turn,
)


@njit(cache=True)
def take(cell, empties, where, ne):
    """Remove ``cell`` from the empty list; returns the new length."""
    i = where[cell]
    last = empties[ne - 1]
    empties[i] = last
    where[last] = i
    where[cell] = -1
    return ne - 1


@njit(cache=True)
def uniform_turn(empties, ne, first_turn):
    """A turn drawn uniformly from the 2E single stones and E(E-1) pairs (singles only on the
    first turn) over ``empties[:ne]``: (cell of the first colour, cell of the second), -1 for
    none. Uses numba's global generator."""
    singles = 2 * ne
    doubles = 0 if first_turn else ne * (ne - 1)
    m = np.random.randint(singles + doubles)
    if m < singles:
        cell = empties[m >> 1]
        return (cell, -1) if (m & 1) == 0 else (-1, cell)
    m -= singles
    i = m // (ne - 1)
    j = m % (ne - 1)
    if j >= i:
        j += 1
    return empties[i], empties[j]


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
        a, b = uniform_turn(empties, ne, first_turn)
        ns = nprev
        if a >= 0:
            _set_stone(board, nb, libs, a, 2 * player - 1)
            ne = take(a, empties, where, ne)
            starts[ns] = a
            ns += 1
        if b >= 0:
            _set_stone(board, nb, libs, b, 2 * player)
            ne = take(b, empties, where, ne)
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
        add_result(totals, w, t)
    return totals


@njit(cache=True)
def territory_playout(board, nb, player, ply, passes, first_passer, max_turns, zob, side_key,
                      history, superko, out_scores):
    """One uniformly random game under the territory rules from the given position, on
    ``board`` (modified). Candidate turns (pass, 2E singles, E(E-1) pairs) are drawn uniformly
    and illegal ones redrawn; after 64 misses in a row the legal turns are listed instead.
    ``max_turns`` is the game's limit or a playout cap; reaching it scores the board as it
    stands. Returns (winner, turns played)."""
    n = board.shape[0]
    stack = np.empty(n, np.int32)
    seen = np.zeros(n, np.int64)
    out = np.empty(n, np.int32)
    colours = np.empty(n, np.int8)
    clock = np.zeros(1, np.int64)
    empties = np.empty(n, np.int32)
    legal = np.empty(2 * n + n * n + 1, np.int64)
    hist = np.empty(history.shape[0] + max_turns + 1, np.int64)
    nh = history.shape[0]
    hist[:nh] = history
    starts = np.empty(2, np.int32)
    turns = 0
    while passes < 2 and ply < max_turns:
        ne = 0
        for i in range(n):
            if board[i] == EMPTY:
                empties[ne] = i
                ne += 1
        first = ply == 0
        options = 2 * ne if first else 1 + 2 * ne + ne * (ne - 1)
        a = -2  # -2: nothing chosen yet; (-1, -1): pass
        b = -1
        for _ in range(64):
            m = np.random.randint(options)
            if not first:
                if m == 0:
                    a = -1
                    b = -1
                    break
                m -= 1
            if m < 2 * ne:
                ca = empties[m >> 1] if (m & 1) == 0 else -1
                cb = empties[m >> 1] if (m & 1) == 1 else -1
            else:
                m -= 2 * ne
                i = m // (ne - 1)
                j = m % (ne - 1)
                if j >= i:
                    j += 1
                ca = empties[i]
                cb = empties[j]
            ok, h = try_territory_turn(board, nb, player, ca, cb, stack, seen, clock, out,
                                       colours, zob, side_key)
            if ok and superko:
                for t in range(nh):
                    if hist[t] == h:
                        ok = False
                        break
            if ok:
                a = ca
                b = cb
                break
        if a == -2:
            sorted_hist = np.sort(hist[:nh])
            count = territory_legal_actions(board, nb, player, first, zob, side_key,
                                            sorted_hist, superko, legal)
            act = legal[np.random.randint(count)]
            if act == 2 * n + n * n:
                a = -1
                b = -1
            elif act < 2 * n:
                a = act // 2 if act % 2 == 0 else -1
                b = act // 2 if act % 2 == 1 else -1
            else:
                a = (act - 2 * n) // n
                b = (act - 2 * n) % n
        if a == -1 and b == -1:
            passes += 1
            if first_passer == 0:
                first_passer = player
        else:
            passes = 0
            ns = 0
            if a >= 0:
                board[a] = 2 * player - 1
                starts[ns] = a
                ns += 1
            if b >= 0:
                board[b] = 2 * player
                starts[ns] = b
                ns += 1
            removed = find_fenced(board, nb, 3 - player, starts, ns, stack, seen, clock, out, 0)
            for t in range(removed):
                board[out[t]] = EMPTY
        player = 3 - player
        ply += 1
        turns += 1
        if superko:
            hist[nh] = position_hash(board, zob, player, side_key)
            nh += 1
    territory_scores(board, nb, out_scores)
    if out_scores[0] != out_scores[1]:
        return (1 if out_scores[0] > out_scores[1] else 2), turns
    return (first_passer if first_passer != 0 else 2), turns


@njit(cache=True)
def territory_playouts(board0, nb, player, ply, passes, first_passer, max_turns, zob, side_key,
                       history, superko, count, seed):
    """``count`` territory playouts; same int64[4] totals as ``race_playouts``."""
    np.random.seed(seed)
    totals = np.zeros(4, np.int64)
    board = np.empty_like(board0)
    scores = np.zeros(2, np.int64)
    for _ in range(count):
        board[:] = board0
        w, t = territory_playout(board, nb, player, ply, passes, first_passer, max_turns, zob,
                                 side_key, history, superko, scores)
        totals[w - 1] += 1
        totals[3] += t
    return totals
