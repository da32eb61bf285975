"""Numba kernels for the Blooms rules over plain arrays: each rule step written once and used
by the checked rules (``rules.py``), the playouts (``playouts.py``) and the search's tree
(``tree.py``) alike. They never raise and never allocate in the inner loops; the Python layer in
``rules.py`` validates everything before calling them.

Board encoding: int8 per cell, 0 empty, 1 R, 2 Y (player 1), 3 K, 4 G (player 2); player p owns
colours 2p-1 and 2p. ``nb`` is the (cells, 6) neighbour table, -1 padded; ``libs`` each cell's
count of empty neighbours, kept with every stone (``geometry/flood.py``). Scratch buffers
(``stack``, ``seen``, ``out``, ``colours``) have one slot per cell; ``seen`` is stamped from a
running ``clock`` (int64[1]) so it never needs clearing. Everything runs unchanged with
``NUMBA_DISABLE_JIT=1``.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from ...geometry.flood import EMPTY, clear_stone, count_liberties, judge_group, set_stone
from ...geometry.hashset import table_has

__all__ = ["EMPTY", "clear_stone", "count_liberties", "set_stone"]


@njit(cache=True, inline="always")
def find_fenced(board, nb, libs, player, starts, nstarts, stack, seen, clock, out, nout,
                first_only=False):
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
            if v < 0 or libs[v] > 0:
                continue
            c = board[v]
            if (c != lo and c != hi) or seen[v] > base:
                continue
            size, alive = judge_group(board, nb, libs, v, stack, seen, clock, base)
            if not alive:
                for t in range(size):
                    out[nout + t] = stack[t]
                nout += size
                if first_only:
                    return nout
    return nout


@njit(cache=True, inline="always")
def capture(board, nb, libs, player, starts, nstarts, stack, seen, clock, out, colours):
    """The capture step after ``player``'s stones are placed: every fenced bloom of the
    opponent at or next to ``starts[:nstarts]`` is judged on the same board, then all are
    removed. Removed cells go to ``out`` and their colours to ``colours``; returns how many.

    Only blooms next to this turn's stones can have been fenced by it; a full judgement
    passes every cell as a start (``all_cells``)."""
    removed = find_fenced(board, nb, libs, 3 - player, starts, nstarts, stack, seen, clock, out,
                          0)
    for t in range(removed):
        colours[t] = board[out[t]]
        clear_stone(board, nb, libs, out[t])
    return removed


@njit(cache=True)
def any_fenced(board, nb, libs, player, starts, nstarts, stack, seen, clock, out):
    """Whether a bloom of ``player`` at or next to ``starts[:nstarts]`` is fenced."""
    return find_fenced(board, nb, libs, player, starts, nstarts, stack, seen, clock, out, 0,
                       True) > 0


@njit(cache=True)
def all_cells(n):
    return np.arange(n).astype(np.int32)


@njit(cache=True, inline="always")
def place(board, nb, libs, player, cell_a, cell_b, starts):
    """Put the mover's first colour on ``cell_a`` and second on ``cell_b`` (-1 = none); the
    cells placed go to ``starts``. Returns how many."""
    ns = 0
    if cell_a >= 0:
        set_stone(board, nb, libs, cell_a, 2 * player - 1)
        starts[ns] = cell_a
        ns += 1
    if cell_b >= 0:
        set_stone(board, nb, libs, cell_b, 2 * player)
        starts[ns] = cell_b
        ns += 1
    return ns


@njit(cache=True)
def apply_turn(board, nb, player, cell_a, cell_b):
    """A whole turn on ``board`` (in place): place the stones (-1 = none), then capture, judged
    on the whole board. Returns how many stones were removed."""
    n = board.shape[0]
    libs = np.empty(n, np.int32)
    count_liberties(board, nb, libs)
    starts = np.empty(2, np.int32)
    place(board, nb, libs, player, cell_a, cell_b, starts)
    return capture(board, nb, libs, player, all_cells(n), n, np.empty(n, np.int32),
                   np.zeros(n, np.int64), np.zeros(1, np.int64), np.empty(n, np.int32),
                   np.empty(n, np.int8))


# -- turns ---------------------------------------------------------------------------------
# A turn places one stone of either of the mover's colours, or one of each on two cells (only
# one stone on the game's first turn). With E empty cells listed in ``empties``, turn number m
# of the 2E + E(E-1) is: m < 2E a single stone of colour m & 1 on ``empties[m >> 1]``; else
# the pair (i, j), i != j, numbered row by row. Listing, counting and drawing turns all go
# through this numbering, so with ``empties`` in increasing order the list is in increasing
# action order.


@njit(cache=True, inline="always")
def turn_count(ne, first_turn):
    """How many turns there are with ``ne`` empty cells."""
    return 2 * ne if first_turn else 2 * ne + ne * (ne - 1)


@njit(cache=True, inline="always")
def turn_at(empties, ne, m):
    """Turn number ``m``: (cell of the first colour, cell of the second), -1 for none."""
    singles = 2 * ne
    if m < singles:
        cell = empties[m >> 1]
        return (cell, -1) if (m & 1) == 0 else (-1, cell)
    m -= singles
    i = m // (ne - 1)
    j = m % (ne - 1)
    if j >= i:
        j += 1
    return empties[i], empties[j]


@njit(cache=True, inline="always")
def uniform_turn(empties, ne, first_turn):
    """A turn drawn uniformly (numba's global generator)."""
    return turn_at(empties, ne, np.random.randint(turn_count(ne, first_turn)))


@njit(cache=True)
def encode_turn(n, a, b):
    """The action of a turn on an ``n``-cell board: ``2c + k`` one stone of colour k on c;
    ``2n + a*n + b`` the pair (see ``rules.py``)."""
    if a >= 0 and b >= 0:
        return 2 * n + a * n + b
    return 2 * a if a >= 0 else 2 * b + 1


@njit(cache=True)
def empty_cells(board, out):
    """The empty cells in increasing order, into ``out``; how many."""
    ne = 0
    for i in range(board.shape[0]):
        if board[i] == EMPTY:
            out[ne] = i
            ne += 1
    return ne


@njit(cache=True)
def race_actions(board, first_turn, out):
    """Every legal turn of the capture race, as actions in increasing order, into ``out``;
    how many (any placement on empty cells is legal there)."""
    n = board.shape[0]
    empties = np.empty(n, np.int32)
    ne = empty_cells(board, empties)
    count = turn_count(ne, first_turn)
    for m in range(count):
        a, b = turn_at(empties, ne, m)
        out[m] = encode_turn(n, a, b)
    return count


# -- the territory rules --------------------------------------------------------------------


@njit(cache=True)
def position_hash(board, zob, player_to_move, side_key):
    h = np.int64(0)
    for i in range(board.shape[0]):
        if board[i] != EMPTY:
            h ^= zob[i, board[i]]
    if player_to_move == 2:
        h ^= side_key
    return h


@njit(cache=True, inline="always")
def play_territory_turn(board, nb, libs, player, cell_a, cell_b, starts, stack, seen, clock, out,
                        colours, zob, side_key, h):
    """Play a placement under the territory rules on ``board`` and ``libs`` if it is legal
    (the mover's blooms must not be left fenced), else leave them as they were. ``h``: the
    position's hash with ``player`` to move. Returns (legal but for superko, hash of the
    resulting position, stones placed (in ``starts``), stones removed (in ``out``, their
    colours in ``colours``)): what ``undo_turn`` needs to take a legal turn back."""
    ns = place(board, nb, libs, player, cell_a, cell_b, starts)
    for t in range(ns):
        h ^= zob[starts[t], board[starts[t]]]
    # no bloom is fenced at the start of a territory turn, so only blooms at or next to the new
    # stones can be: remove the enemy's, then judge the mover's
    n = capture(board, nb, libs, player, starts, ns, stack, seen, clock, out, colours)
    for t in range(n):
        h ^= zob[out[t], colours[t]]
    legal = not any_fenced(board, nb, libs, player, starts, ns, stack, seen, clock, out[n:])
    if not legal:
        undo_turn(board, nb, libs, starts, ns, out, colours, n)
    return legal, h ^ side_key, ns, n


@njit(cache=True, inline="always")
def undo_turn(board, nb, libs, starts, ns, out, colours, n):
    """Take back a turn that placed ``starts[:ns]`` and removed ``out[:n]``."""
    for t in range(n):
        set_stone(board, nb, libs, out[t], colours[t])
    for t in range(ns):
        clear_stone(board, nb, libs, starts[t])


@njit(cache=True)
def try_territory_turn(board, nb, libs, player, cell_a, cell_b, stack, seen, clock, out, colours,
                       zob, side_key, h):
    """Judge a placement under the territory rules, leaving the board and ``libs`` as they
    were. Returns (legal but for superko, hash of the resulting position)."""
    starts = np.empty(2, np.int32)
    legal, h2, ns, n = play_territory_turn(board, nb, libs, player, cell_a, cell_b, starts,
                                           stack, seen, clock, out, colours, zob, side_key, h)
    if legal:
        undo_turn(board, nb, libs, starts, ns, out, colours, n)
    return legal, h2


@njit(cache=True)
def turn_buffers(board, nb):
    """The working arrays of ``try_territory_turn`` and ``play_territory_turn`` for ``board``:
    (liberty counts, counted now, flood stack, seen stamps, stamp clock, removed cells, their
    colours)."""
    n = board.shape[0]
    libs = np.empty(n, np.int32)
    count_liberties(board, nb, libs)
    return (libs, np.empty(n, np.int32), np.zeros(n, np.int64), np.zeros(1, np.int64),
            np.empty(n, np.int32), np.empty(n, np.int8))


@njit(cache=True)
def territory_actions(board, nb, player, first_turn, zob, side_key, history, superko,
                      out_actions):
    """Fill ``out_actions`` with the legal actions of a territory-rules turn, in increasing
    order, and return how many. Actions as ``race_actions``, and ``2N + N*N`` for pass (not on
    the first turn). ``history``: a hash set (``geometry/hashset.py``) of the earlier
    positions, consulted with ``superko``."""
    n = board.shape[0]
    libs, stack, seen, clock, out, colours = turn_buffers(board, nb)
    empties = np.empty(n, np.int32)
    ne = empty_cells(board, empties)
    h = position_hash(board, zob, player, side_key)
    count = 0
    for m in range(turn_count(ne, first_turn)):
        a, b = turn_at(empties, ne, m)
        legal, h2 = try_territory_turn(board, nb, libs, player, a, b, stack, seen, clock, out,
                                       colours, zob, side_key, h)
        if legal and not (superko and table_has(history, h2)):
            out_actions[count] = encode_turn(n, a, b)
            count += 1
    if not first_turn:
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
