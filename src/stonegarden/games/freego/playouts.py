"""Random Free Go playouts, the hot path of search and of ``bench playouts``.

Uniform over the legal moves: a random empty point is tried and, if ko forbids it, dropped from
this turn's candidates and another drawn (so every legal point stays equally likely). The empty
points live in an array updated in O(1) per stone; captures are judged next to the new stone
and on the chain of the opponent's last stone (its suicide, if any); earlier positions sit in an
open-addressing hash set stamped per playout, so nothing is cleared between playouts.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from .kernels import EMPTY, judge_chain, move_captures, pending_dead

KO_NONE, KO_SIMPLE, KO_SUPER = 0, 1, 2


@njit(cache=True)
def _slot(keys, stamps, stamp, h):
    mask = keys.shape[0] - 1
    i = (h ^ (h >> 31)) & mask
    while stamps[i] == stamp and keys[i] != h:
        i = (i + 1) & mask
    return i


@njit(cache=True)
def _remember(keys, stamps, stamp, h):
    i = _slot(keys, stamps, stamp, h)
    keys[i] = h
    stamps[i] = stamp


@njit(cache=True)
def _seen(keys, stamps, stamp, h):
    i = _slot(keys, stamps, stamp, h)
    return stamps[i] == stamp and keys[i] == h


@njit(cache=True)
def freego_playout(board, nb, zob, side_key, player, scores, target, ko, h, prev_h, history,
                   keys, stamps, stamp, max_turns, moves_out):
    """Play uniformly random moves on ``board`` (in place) until the game ends; the points
    played go to ``moves_out`` while it has room (for tests).

    ``scores`` (int64[2]) is updated; ``h`` is the current position hash, ``prev_h`` the one
    before the last move (0 if none), ``history`` every earlier hash (superko). Uses numba's
    global generator. Returns (winner 1, 2, 0 draw or -1 if ``max_turns`` ran out, turns)."""
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
    mark = np.zeros(n, np.int64)
    dmark = np.zeros(n, np.int64)
    clock = np.zeros(1, np.int64)
    removed = np.empty(n, np.int32)
    cand = np.empty(n, np.int32)
    if ko == KO_SUPER:
        for t in range(history.shape[0]):
            _remember(keys, stamps, stamp, history[t])
        _remember(keys, stamps, stamp, h)
    # the opponent's suicide still on the board: found by a full scan once, then per move
    ndead, dstamp = pending_dead(board, nb, 3 - player, stack, mark, clock, dmark, removed)
    for turn in range(max_turns):
        # draw from the empty points; copy them only once a ko-forbidden point must be dropped
        nc = ne
        pool = empties
        point = -1
        nrem = 0
        h2 = h
        while nc > 0:
            j = np.random.randint(nc)
            p = pool[j]
            board[p] = player
            nrem = move_captures(board, nb, player, p, stack, mark, clock, dmark, dstamp,
                                 removed, ndead)
            if ko == KO_NONE:
                point = p
                break
            h2 = h ^ side_key ^ zob[p, player]
            for t in range(nrem):
                h2 ^= zob[removed[t], 3 - player]
            if (ko == KO_SIMPLE and h2 != prev_h) or (ko == KO_SUPER
                                                       and not _seen(keys, stamps, stamp, h2)):
                point = p
                break
            board[p] = EMPTY
            if nc == ne:
                for t in range(ne):
                    cand[t] = empties[t]
                pool = cand
            nc -= 1
            pool[j] = pool[nc]
        if point < 0:  # no legal move: the higher score wins
            if scores[0] > scores[1]:
                return 1, turn
            if scores[1] > scores[0]:
                return 2, turn
            return 0, turn
        if turn < moves_out.shape[0]:
            moves_out[turn] = point
        # commit the move: the stone is on the board, take it and the captures off the list
        i = where[point]
        ne -= 1
        last = empties[ne]
        empties[i] = last
        where[last] = i
        where[point] = -1
        for t in range(nrem):
            c = removed[t]
            board[c] = EMPTY
            empties[ne] = c
            where[c] = ne
            ne += 1
        scores[player - 1] += nrem
        if scores[player - 1] >= target:
            return player, turn + 1
        if ko != KO_NONE:
            prev_h = h
            h = h2
            if ko == KO_SUPER:
                _remember(keys, stamps, stamp, h)
        # the mover's new chain is the only one that can be left without a liberty
        size, alive = judge_chain(board, nb, point, stack, mark, clock, clock[0])
        clock[0] += 1
        dstamp = clock[0]
        ndead = 0
        if not alive:
            for t in range(size):
                removed[t] = stack[t]
                dmark[stack[t]] = dstamp
            ndead = size
        player = 3 - player
    return -1, max_turns


@njit(cache=True)
def freego_playouts(board0, nb, zob, side_key, player, scores0, target, ko, h, prev_h, history,
                    max_turns, count, seed):
    """Run ``count`` playouts from one position. Returns int64[4]: wins of player 1, wins of
    player 2, draws (unfinished games count here too), and total moves played."""
    np.random.seed(seed)
    totals = np.zeros(4, np.int64)
    board = np.empty_like(board0)
    scores = np.empty(2, np.int64)
    size = 16
    while size < 2 * (max_turns + history.shape[0] + 2):
        size *= 2
    keys = np.zeros(size, np.int64)
    stamps = np.zeros(size, np.int64)
    no_moves = np.empty(0, np.int32)
    for k in range(count):
        board[:] = board0
        scores[0] = scores0[0]
        scores[1] = scores0[1]
        w, t = freego_playout(board, nb, zob, side_key, player, scores, target, ko, h, prev_h,
                              history, keys, stamps, k + 1, max_turns, no_moves)
        if w == 1:
            totals[0] += 1
        elif w == 2:
            totals[1] += 1
        else:
            totals[2] += 1
        totals[3] += t
    return totals
