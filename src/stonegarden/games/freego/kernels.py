"""Numba kernels for Free Go over plain arrays. They never raise; ``rules.py`` validates first.

Board: int8 per point, 0 empty, 1 Black, 2 White. ``nb`` is the (points, 4) neighbour table,
-1 padded. ``mark`` arrays are stamped from a running ``clock`` (int64[1]) so they never need
clearing. Position hashes are Zobrist: ``EMPTY_KEY ^ xor(zob[p, colour]) ^ (SIDE_KEY if White
is to move)``; every move flips the side key.

A Free Go turn: place, then remove every opponent chain without a liberty. Those chains are
either next to the new stone or the opponent's own suicide from the previous turn (the
"pending dead" chains, found once per position), so a candidate move costs a few floods next
to it, not a board scan. The rules and the search's tree use this flood; the playouts keep
chains incrementally (``chains.py``), and the two are tested against each other.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from ...geometry.flood import judge_group
from ...geometry.hashset import table_has

EMPTY = 0


@njit(cache=True)
def dead_chains(board, nb, colour, starts, nstarts, stack, mark, clock, skip, skip_stamp, out,
                nout):
    """Append to ``out`` (from ``nout``) every stone of a ``colour`` chain without a liberty
    that holds one of ``starts[:nstarts]``, skipping stones with ``skip[p] == skip_stamp``.
    Judging only: nothing is removed. Returns the new ``nout``."""
    base = clock[0]
    for s in range(nstarts):
        v = starts[s]
        if v < 0 or board[v] != colour or mark[v] > base or skip[v] == skip_stamp:
            continue
        size, alive = judge_group(board, nb, None, v, stack, mark, clock, base)
        if not alive:
            for t in range(size):
                out[nout + t] = stack[t]
            nout += size
    return nout


@njit(cache=True)
def pending_dead(board, nb, colour, stack, mark, clock, dmark, out):
    """Stones of ``colour`` chains that have no liberty now (the opponent's suicide awaiting
    removal), listed in ``out`` and stamped into ``dmark``. Returns (count, dead stamp)."""
    n = board.shape[0]
    starts = np.arange(n).astype(np.int32)
    clock[0] += 1
    never = clock[0]  # a stamp nothing carries: skip nothing
    count = dead_chains(board, nb, colour, starts, n, stack, mark, clock, dmark, never, out, 0)
    clock[0] += 1
    dstamp = clock[0]
    for t in range(count):
        dmark[out[t]] = dstamp
    return count, dstamp


@njit(cache=True)
def move_captures(board, nb, player, point, stack, mark, clock, dmark, dstamp, out, nout):
    """Captures next to a stone of ``player`` tentatively on ``point`` (the board must hold it):
    opponent chains beside it left without a liberty, other than the pending dead ones. Appends
    them to ``out`` from ``nout``; returns the new ``nout``."""
    starts = nb[point]
    return dead_chains(board, nb, 3 - player, starts, 4, stack, mark, clock, dmark, dstamp, out,
                       nout)


@njit(cache=True)
def hash_after(h, zob, side_key, player, point, removed, nremoved):
    """The hash after ``player`` plays ``point`` removing ``removed[:nremoved]`` stones."""
    h2 = h ^ side_key ^ zob[point, player]
    opp = 3 - player
    for t in range(nremoved):
        h2 ^= zob[removed[t], opp]
    return h2


@njit(cache=True)
def legal_points(board, nb, zob, side_key, player, h, banned, out):
    """Write the legal points of ``player`` (sorted) to ``out``; returns their number.
    ``banned`` is a table of forbidden resulting hashes (see ``build_table``); pass an empty
    table (all zeros) when there is no ko rule."""
    n = board.shape[0]
    stack = np.empty(n, np.int32)
    mark = np.zeros(n, np.int64)
    dmark = np.zeros(n, np.int64)
    clock = np.zeros(1, np.int64)
    removed = np.empty(n, np.int32)
    ndead, dstamp = pending_dead(board, nb, 3 - player, stack, mark, clock, dmark, removed)
    any_ban = False
    for i in range(banned.shape[0]):
        if banned[i] != 0:
            any_ban = True
            break
    count = 0
    for p in range(n):
        if board[p] != EMPTY:
            continue
        if any_ban:
            board[p] = player
            nrem = move_captures(board, nb, player, p, stack, mark, clock, dmark, dstamp,
                                 removed, ndead)
            board[p] = EMPTY
            if table_has(banned, hash_after(h, zob, side_key, player, p, removed, nrem)):
                continue
        out[count] = p
        count += 1
    return count


@njit(cache=True)
def play_point(board, nb, zob, side_key, player, point, h, removed):
    """Play ``point`` for ``player`` on ``board`` (in place): place, remove the dead opponent
    chains. Lists the removed stones in ``removed``; returns (count, new hash)."""
    n = board.shape[0]
    stack = np.empty(n, np.int32)
    mark = np.zeros(n, np.int64)
    dmark = np.zeros(n, np.int64)
    clock = np.zeros(1, np.int64)
    ndead, dstamp = pending_dead(board, nb, 3 - player, stack, mark, clock, dmark, removed)
    board[point] = player
    nrem = move_captures(board, nb, player, point, stack, mark, clock, dmark, dstamp, removed,
                         ndead)
    for t in range(nrem):
        board[removed[t]] = EMPTY
    return nrem, hash_after(h, zob, side_key, player, point, removed, nrem)
