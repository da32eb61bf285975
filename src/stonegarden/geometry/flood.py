"""Group judging by flood fill over a neighbour table, shared by every stone game.

A group is the stones of one colour connected through ``nb`` (cells x degree, -1 padded: 6 on
the hex board, 4 on the square board). Scratch buffers are preallocated by the caller, and
``seen`` is stamped from a running ``clock`` (int64[1]) so it never needs clearing."""

from __future__ import annotations

from numba import njit

EMPTY = 0


@njit(cache=True)
def judge_group(board, nb, start, stack, seen, clock, base):
    """Flood the group holding ``start`` until a liberty proves it alive.

    Each flood takes a fresh stamp from ``clock[0]``; cells stamped after ``base`` by an earlier
    flood of the same pass belong to a group already found alive (a dead group is flooded
    whole, so no later flood can meet its cells). Returns (size, alive); when not alive the
    whole group is in ``stack[:size]``."""
    clock[0] += 1
    stamp = clock[0]
    colour = board[start]
    degree = nb.shape[1]
    stack[0] = start
    seen[start] = stamp
    top = 1
    i = 0
    while i < top:
        v = stack[i]
        i += 1
        for k in range(degree):
            w = nb[v, k]
            if w < 0:
                continue
            c = board[w]
            if c == EMPTY:
                return top, True
            if c == colour and seen[w] != stamp:
                if seen[w] > base:
                    return top, True
                seen[w] = stamp
                stack[top] = w
                top += 1
    return top, False
