"""Groups of stones over a neighbour table, shared by every stone game: the one flood that
judges whether a group has a liberty, and the per-cell liberty counts that let it stop early.

A group is the stones of one colour connected through ``nb`` (cells x degree, -1 padded: 6 on
the hex board, 4 on the square board). ``libs[c]`` counts the empty neighbours of cell ``c``
where a caller keeps them (``count_liberties``, then ``set_stone``/``clear_stone`` for every
change): a stone with one is alive at once, without looking further. Scratch buffers are
preallocated by the caller, and ``seen`` is stamped from a running ``clock`` (int64[1]) so it
never needs clearing."""

from __future__ import annotations

from numba import njit

EMPTY = 0

@njit(cache=True)
def count_liberties(board, nb, libs):
    """Fill ``libs`` with each cell's number of empty neighbours."""
    degree = nb.shape[1]
    for c in range(board.shape[0]):
        count = 0
        for k in range(degree):
            w = nb[c, k]
            if w >= 0 and board[w] == EMPTY:
                count += 1
        libs[c] = count


@njit(cache=True, inline="always")
def set_stone(board, nb, libs, cell, colour):
    """Put ``colour`` on the empty ``cell``; its neighbours lose an empty neighbour."""
    board[cell] = colour
    for k in range(nb.shape[1]):
        w = nb[cell, k]
        if w >= 0:
            libs[w] -= 1


@njit(cache=True, inline="always")
def clear_stone(board, nb, libs, cell):
    """Empty ``cell``; its neighbours gain an empty neighbour."""
    board[cell] = EMPTY
    for k in range(nb.shape[1]):
        w = nb[cell, k]
        if w >= 0:
            libs[w] += 1


@njit(cache=True, inline="always")
def judge_group(board, nb, libs, start, stack, seen, clock, base):
    """Flood the group holding ``start`` until a liberty proves it alive: a stone with an empty
    neighbour (``libs[stone] > 0`` where counts are kept; ``libs`` ``None``: the neighbours
    are looked at, and numba compiles that case without the counts).

    Each flood takes a fresh stamp from ``clock[0]``; cells stamped after ``base`` by an earlier
    flood of the same pass belong to a group already found alive (a dead group is flooded
    whole, so no later flood can meet its cells). Returns (size, alive); when not alive the
    whole group is in ``stack[:size]``, in the order of the flood."""
    clock[0] += 1
    stamp = clock[0]
    colour = board[start]
    degree = nb.shape[1]
    stack[0] = start
    seen[start] = stamp
    # each ``libs is None`` test stands alone: numba drops such a branch at compile time only
    # then (so the two cases compile apart, without a test per neighbour)
    if libs is not None:  # noqa: SIM102
        if libs[start] > 0:
            return 1, True
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
            if libs is None:  # noqa: SIM102
                if c == EMPTY:
                    return top, True
            if c == colour and seen[w] != stamp:
                if seen[w] > base:
                    return top, True
                if libs is not None:  # noqa: SIM102
                    if libs[w] > 0:
                        return top, True
                seen[w] = stamp
                stack[top] = w
                top += 1
    return top, False


@njit(cache=True)
def label_groups(board, nb, bloom, libs_of, size_of, stack, mark):
    """Label every group: ``bloom[c]`` its number (-1 on an empty cell), ``libs_of[b]`` its
    liberties (distinct empty neighbours), ``size_of[b]`` its stones; ``stack`` and ``mark``
    are scratch (one slot per cell). Returns how many groups. One pass over the board, for
    the learned models' features (``games/*/features.py``)."""
    n = board.shape[0]
    for c in range(n):
        bloom[c] = -1
        mark[c] = -1
    count = 0
    for c in range(n):
        if board[c] == EMPTY or bloom[c] >= 0:
            continue
        colour = board[c]
        b = count
        count += 1
        bloom[c] = b
        stack[0] = c
        top = 1
        i = 0
        libs = 0
        while i < top:
            v = stack[i]
            i += 1
            for k in range(nb.shape[1]):
                w = nb[v, k]
                if w < 0:
                    continue
                x = board[w]
                if x == EMPTY:
                    if mark[w] != b:
                        mark[w] = b
                        libs += 1
                elif x == colour and bloom[w] < 0:
                    bloom[w] = b
                    stack[top] = w
                    top += 1
        libs_of[b] = libs
        size_of[b] = top
    return count
