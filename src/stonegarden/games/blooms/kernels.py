"""Numba kernels for Blooms over plain arrays. They never raise and never allocate per call in
the inner loops; the Python layer in ``rules.py`` validates everything before calling them.

Board encoding: int8 per cell, 0 empty, 1 R, 2 Y (player 1), 3 K, 4 G (player 2); player p owns
colours 2p-1 and 2p. ``nb`` is the (cells, 6) neighbour table, -1 padded. Scratch buffers
(``stack``, ``seen``, ``out``) have one slot per cell; ``seen`` is stamped from a running
``clock`` (int64[1]) so it never needs clearing. Everything runs unchanged with ``NUMBA_DISABLE_JIT=1``.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from ...geometry.flood import judge_group as judge_bloom

EMPTY = 0


@njit(cache=True)
def find_fenced(board, nb, player, starts, nstarts, stack, seen, clock, out, nout, first_only=False):
    """Append to ``out`` (from ``nout``) every cell of a fenced bloom of ``player``'s colours
    at or next to ``starts[:nstarts]``; with ``first_only`` stop after the first such bloom.
    Judging only: nothing is removed, so all blooms are judged on the same board. Returns the
    new ``nout``."""
    lo = 2 * player - 1
    hi = 2 * player
    base = clock[0]
    for s in range(nstarts):
        c0 = starts[s]
        for k in range(7):
            v = c0 if k == 6 else nb[c0, k]
            if v < 0:
                continue
            c = board[v]
            if (c != lo and c != hi) or seen[v] > base:
                continue
            size, alive = judge_bloom(board, nb, v, stack, seen, clock, base)
            if not alive:
                for t in range(size):
                    out[nout + t] = stack[t]
                nout += size
                if first_only:
                    return nout
    return nout


@njit(cache=True)
def any_fenced(board, nb, player, starts, nstarts, stack, seen, clock, out):
    """Whether a bloom of ``player`` at or next to ``starts[:nstarts]`` is fenced."""
    return find_fenced(board, nb, player, starts, nstarts, stack, seen, clock, out, 0, True) > 0


@njit(cache=True)
def all_cells(n):
    out = np.empty(n, np.int32)
    for i in range(n):
        out[i] = i
    return out


@njit(cache=True)
def place_and_capture(board, nb, player, cell_a, cell_b, stack, seen, clock, out):
    """Place the mover's first colour on ``cell_a`` and second on ``cell_b`` (-1 = none), then
    judge every fenced enemy bloom on the whole board at once and remove them all.
    Modifies ``board``; the removed cells are in ``out[:count]``. Returns count."""
    if cell_a >= 0:
        board[cell_a] = 2 * player - 1
    if cell_b >= 0:
        board[cell_b] = 2 * player
    starts = all_cells(board.shape[0])
    n = find_fenced(board, nb, 3 - player, starts, starts.shape[0], stack, seen, clock, out, 0)
    for t in range(n):
        board[out[t]] = EMPTY
    return n


@njit(cache=True)
def try_territory_turn(board, nb, player, cell_a, cell_b, stack, seen, clock, out, colours, zob,
                       side_key):
    """Judge a placement under the territory rules and restore the board afterwards.

    Returns (legal_without_superko, hash of the resulting position with the opponent to move)."""
    starts = np.empty(2, np.int32)
    ns = 0
    h = np.int64(0)
    for i in range(board.shape[0]):
        if board[i] != EMPTY:
            h ^= zob[i, board[i]]
    if cell_a >= 0:
        board[cell_a] = 2 * player - 1
        h ^= zob[cell_a, 2 * player - 1]
        starts[ns] = cell_a
        ns += 1
    if cell_b >= 0:
        board[cell_b] = 2 * player
        h ^= zob[cell_b, 2 * player]
        starts[ns] = cell_b
        ns += 1
    # no bloom is fenced at the start of a territory turn, so only blooms at or next to the new
    # stones can be: judge the enemy's, remove them, then judge the mover's
    n = find_fenced(board, nb, 3 - player, starts, ns, stack, seen, clock, out, 0)
    for t in range(n):
        colours[t] = board[out[t]]
        h ^= zob[out[t], board[out[t]]]
        board[out[t]] = EMPTY
    legal = not any_fenced(board, nb, player, starts, ns, stack, seen, clock, out[n:])
    for t in range(n):
        board[out[t]] = colours[t]
    if cell_a >= 0:
        board[cell_a] = EMPTY
    if cell_b >= 0:
        board[cell_b] = EMPTY
    if player == 1:
        h ^= side_key  # the opponent (player 2) is to move afterwards
    return legal, h


@njit(cache=True)
def position_hash(board, zob, player_to_move, side_key):
    h = np.int64(0)
    for i in range(board.shape[0]):
        if board[i] != EMPTY:
            h ^= zob[i, board[i]]
    if player_to_move == 2:
        h ^= side_key
    return h


@njit(cache=True)
def in_sorted(values, x):
    lo = 0
    hi = values.shape[0]
    while lo < hi:
        mid = (lo + hi) // 2
        if values[mid] < x:
            lo = mid + 1
        else:
            hi = mid
    return lo < values.shape[0] and values[lo] == x


@njit(cache=True)
def territory_legal_actions(board, nb, player, first_turn, zob, side_key, history, superko,
                            out_actions):
    """Fill ``out_actions`` with the legal actions of a territory-rules turn, in increasing
    order, and return how many. Action layout as in ``rules.py``: 2c + colour for one stone,
    2N + a*N + b for first colour on a and second on b, 2N + N*N for pass."""
    n = board.shape[0]
    stack = np.empty(n, np.int32)
    seen = np.zeros(n, np.int64)
    out = np.empty(n, np.int32)
    colours = np.empty(n, np.int8)
    clock = np.zeros(1, np.int64)
    count = 0
    for c in range(n):
        if board[c] != EMPTY:
            continue
        for k in range(2):
            a = c if k == 0 else -1
            b = c if k == 1 else -1
            legal, h = try_territory_turn(board, nb, player, a, b, stack, seen, clock, out,
                                          colours, zob, side_key)
            if legal and not (superko and in_sorted(history, h)):
                out_actions[count] = 2 * c + k
                count += 1
    if not first_turn:
        for a in range(n):
            if board[a] != EMPTY:
                continue
            for b in range(n):
                if b == a or board[b] != EMPTY:
                    continue
                legal, h = try_territory_turn(board, nb, player, a, b, stack, seen, clock, out,
                                              colours, zob, side_key)
                if legal and not (superko and in_sorted(history, h)):
                    out_actions[count] = 2 * n + a * n + b
                    count += 1
        out_actions[count] = 2 * n + n * n
        count += 1
    return count


@njit(cache=True)
def territory_owners(board, nb, owner):
    """``owner[c]`` for every empty cell: 1 or 2 when its empty region borders only that
    player's stones (at least one), else 0; 0 on stones too."""
    n = board.shape[0]
    seen = np.zeros(n, np.int8)
    stack = np.empty(n, np.int32)
    for i in range(n):
        owner[i] = 0
    for s in range(n):
        if board[s] != EMPTY or seen[s]:
            continue
        stack[0] = s
        seen[s] = 1
        top = 1
        i = 0
        touches = 0  # bit 0: player 1, bit 1: player 2
        while i < top:
            v = stack[i]
            i += 1
            for k in range(6):
                w = nb[v, k]
                if w < 0:
                    continue
                c = board[w]
                if c == EMPTY:
                    if not seen[w]:
                        seen[w] = 1
                        stack[top] = w
                        top += 1
                elif c <= 2:
                    touches |= 1
                else:
                    touches |= 2
        if touches == 1 or touches == 2:
            for j in range(top):
                owner[stack[j]] = touches


@njit(cache=True)
def territory_scores(board, nb, out_scores):
    """Stones on the board plus territory: empty regions bordered by one player's stones only."""
    n = board.shape[0]
    owner = np.empty(n, np.int8)
    territory_owners(board, nb, owner)
    out_scores[0] = 0
    out_scores[1] = 0
    for i in range(n):
        c = board[i]
        if c == 1 or c == 2 or owner[i] == 1:
            out_scores[0] += 1
        elif c == 3 or c == 4 or owner[i] == 2:
            out_scores[1] += 1
