"""Incremental chain bookkeeping for Free Go playouts (the FastBoard idea of Leela Zero): the
capture step of ``kernels.py`` (the flood) done a second way, for speed, and tested against it
on random positions (``tests/test_freego_capture.py``).

Each chain is a circular list of its stones (``nxt``) whose root is the stone every member
points to in ``cid``; per root, ``libs`` counts pseudo-liberties (stone/empty adjacencies,
so a chain has no liberty exactly when it is 0), ``size`` its stones and ``chash`` the xor of
their Zobrist keys. A capture test is then one comparison per neighbour instead of a flood,
and a ko test needs no trial placement. Kernels never raise; arrays have one slot per point.
"""

from __future__ import annotations

import numpy as np
from numba import njit

EMPTY = 0


@njit(cache=True)
def build_chains(board, nb, zob, cid, nxt, libs, size, chash, stack):
    """Fill the chain arrays from ``board`` (``cid`` is -1 on empty points)."""
    n = board.shape[0]
    for p in range(n):
        cid[p] = -1
    for p in range(n):
        if board[p] == EMPTY or cid[p] >= 0:
            continue
        colour = board[p]
        cid[p] = p
        stack[0] = p
        top = 1
        i = 0
        lib = 0
        key = zob[p, colour] ^ zob[p, colour]  # an int64 zero
        while i < top:
            v = stack[i]
            i += 1
            key ^= zob[v, colour]
            for k in range(4):
                w = nb[v, k]
                if w < 0:
                    continue
                if board[w] == EMPTY:
                    lib += 1
                elif board[w] == colour and cid[w] < 0:
                    cid[w] = p
                    stack[top] = w
                    top += 1
        for t in range(top):
            nxt[stack[t]] = stack[(t + 1) % top]
        libs[p] = lib
        size[p] = top
        chash[p] = key


@njit(cache=True)
def new_chains(board, nb, zob):
    """The chain arrays of ``board``, built: (cid, nxt, libs, size, chash)."""
    n = board.shape[0]
    cid = np.empty(n, np.int32)
    nxt = np.empty(n, np.int32)
    libs = np.zeros(n, np.int32)
    size = np.zeros(n, np.int32)
    chash = np.zeros(n, np.int64)
    stack = np.empty(n, np.int32)
    build_chains(board, nb, zob, cid, nxt, libs, size, chash, stack)
    return cid, nxt, libs, size, chash


@njit(cache=True)
def merge(a, b, cid, nxt, libs, size, chash):
    """Join the chains rooted at ``a`` and ``b``; returns the root of the union."""
    if a == b:
        return a
    if size[a] < size[b]:
        a, b = b, a
    v = b
    while True:
        cid[v] = a
        v = nxt[v]
        if v == b:
            break
    t = nxt[a]
    nxt[a] = nxt[b]
    nxt[b] = t
    libs[a] += libs[b]
    size[a] += size[b]
    chash[a] ^= chash[b]
    return a


@njit(cache=True)
def place_stone(board, nb, zob, p, colour, cid, nxt, libs, size, chash):
    """Put a ``colour`` stone on the empty point ``p`` and update the chains (no captures)."""
    board[p] = colour
    cid[p] = p
    nxt[p] = p
    size[p] = 1
    chash[p] = zob[p, colour]
    lib = 0
    for k in range(4):
        w = nb[p, k]
        if w < 0:
            continue
        if board[w] == EMPTY:
            lib += 1
        else:
            libs[cid[w]] -= 1
    libs[p] = lib
    for k in range(4):
        w = nb[p, k]
        if w >= 0 and board[w] == colour:
            merge(cid[p], cid[w], cid, nxt, libs, size, chash)


@njit(cache=True)
def remove_chain(board, nb, root, cid, nxt, libs, empties, where, ne):
    """Take the chain of ``root`` off the board, giving its neighbours their liberties back
    and its points to the empty list. Returns the new number of empty points."""
    v = root
    while True:
        board[v] = EMPTY
        v = nxt[v]
        if v == root:
            break
    v = root
    while True:
        for k in range(4):
            w = nb[v, k]
            if w >= 0 and board[w] != EMPTY:
                libs[cid[w]] += 1
        cid[v] = -1
        empties[ne] = v
        where[v] = ne
        ne += 1
        v = nxt[v]
        if v == root:
            break
    return ne


@njit(cache=True)
def captures_at(board, nb, p, opp, cid, libs, dead, ndead, out):
    """The opponent chains (roots, in ``out``) that a stone on the empty point ``p`` would
    leave without a liberty, other than the pending dead ones ``dead[:ndead]``. A chain is
    captured when all its pseudo-liberties are adjacencies to ``p``. Returns their number."""
    count = 0
    for k in range(4):
        w = nb[p, k]
        if w < 0 or board[w] != opp:
            continue
        r = cid[w]
        seen = False
        for t in range(count):
            if out[t] == r:
                seen = True
        for t in range(ndead):
            if dead[t] == r:
                seen = True
        if seen:
            continue
        adjacent = 0
        for j in range(4):
            u = nb[p, j]
            if u >= 0 and board[u] == opp and cid[u] == r:
                adjacent += 1
        if libs[r] == adjacent:
            out[count] = r
            count += 1
    return count


@njit(cache=True)
def dead_roots(board, colour, cid, libs, out):
    """Write to ``out`` the roots of ``colour``'s chains without a liberty (a suicide waiting
    for the other player's turn to remove it); returns their number."""
    count = 0
    for p in range(board.shape[0]):
        if board[p] == colour and cid[p] == p and libs[p] == 0:
            out[count] = p
            count += 1
    return count


@njit(cache=True)
def liberties_after(board, nb, p, colour, cid, libs):
    """Pseudo-liberties of the chain a stone of ``colour`` on the empty point ``p`` would make
    (its empty neighbours, plus each own neighbouring chain's, less that chain's adjacencies to
    ``p``), captures not counted: 0 exactly when the stone would be left without a liberty."""
    total = 0
    for k in range(4):
        w = nb[p, k]
        if w < 0:
            continue
        if board[w] == EMPTY:
            total += 1
        elif board[w] == colour:
            r = cid[w]
            first = True  # the first neighbour of this chain brings its liberties
            for j in range(k):
                u = nb[p, j]
                if u >= 0 and board[u] == colour and cid[u] == r:
                    first = False
            if first:
                total += libs[r]
            total -= 1
    return total


@njit(cache=True)
def stones_given(board, nb, p, colour, cid, nxt, libs, size):
    """How many stones a stone of ``colour`` on the empty point ``p`` hands the opponent,
    captures not counted: the whole chain it makes (the stone with its own chains beside it)
    when that chain is left with no liberty (a suicide) or one (the opponent takes it next
    turn), else 0. Exact: two empty neighbours are two liberties, and with five or more
    pseudo-liberties the chain has two at least (one point touches a chain at most four
    times); otherwise its stones are walked until two distinct liberties turn up."""
    empty = 0
    for k in range(4):
        w = nb[p, k]
        if w >= 0 and board[w] == EMPTY:
            empty += 1
    if empty >= 2:  # two distinct liberties already: the common case, decided at once
        return 0
    if liberties_after(board, nb, p, colour, cid, libs) >= 5:
        return 0
    stones = 1
    first_lib = -1
    for k in range(4):
        w = nb[p, k]
        if w < 0:
            continue
        if board[w] == EMPTY:
            if first_lib >= 0 and w != first_lib:
                return 0
            first_lib = w
        elif board[w] == colour:
            r = cid[w]
            seen = False
            for j in range(k):
                u = nb[p, j]
                if u >= 0 and board[u] == colour and cid[u] == r:
                    seen = True
            if seen:
                continue
            stones += size[r]
            v = r
            while True:
                for i in range(4):
                    x = nb[v, i]
                    if x >= 0 and x != p and board[x] == EMPTY:
                        if first_lib >= 0 and x != first_lib:
                            return 0
                        first_lib = x
                v = nxt[v]
                if v == r:
                    break
    return stones
