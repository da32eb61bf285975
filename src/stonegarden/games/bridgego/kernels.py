"""Numba kernels for Bridge Go over plain arrays. They never raise; ``rules.py`` validates first.

Board: int8 per point, 0 empty, 1 Black, 2 White. ``nb`` is the (points, 4) neighbour table in
the order north, south, west, east (-1 off the board); ``sides`` the edge bits of each point.

External liberties (docs/games/bridgego.md, "Implementation"): for a colour c, the open regions
(points without a c stone) are labelled once, each with a 4-bit mask of the sides it touches;
an empty point is then an external liberty after one lookup, and one flood over the c stones
from the stones beside external liberties finds every surviving chain at once. Two O(points)
passes per colour, whatever the number of chains and liberties.
"""

from __future__ import annotations

from numba import njit

EMPTY = 0
SIDE_N, SIDE_S, SIDE_W, SIDE_E = 1, 2, 4, 8
NS = SIDE_N | SIDE_S
WE = SIDE_W | SIDE_E


@njit(cache=True)
def label_open_regions(board, nb, sides, colour, label, rmask, stack):
    """Label the open regions for ``colour``: ``label[p]`` is the region of a point without a
    ``colour`` stone (-1 on those stones), ``rmask[r]`` the sides region r touches.
    Returns the number of regions."""
    n = board.shape[0]
    for p in range(n):
        label[p] = -1
    nreg = 0
    for p in range(n):
        if board[p] == colour or label[p] >= 0:
            continue
        label[p] = nreg
        mask = 0
        stack[0] = p
        top = 1
        while top > 0:
            top -= 1
            v = stack[top]
            mask |= sides[v]
            for k in range(4):
                w = nb[v, k]
                if w >= 0 and label[w] < 0 and board[w] != colour:
                    label[w] = nreg
                    stack[top] = w
                    top += 1
        rmask[nreg] = mask
        nreg += 1
    return nreg


@njit(cache=True)
def is_external(mask, direction, perpendicular):
    """Whether a liberty whose region touches ``mask`` counts, reached from a stone in
    ``direction`` (0 N, 1 S, 2 W, 3 E) under the standard rule or the perpendicular variant."""
    if perpendicular:
        need = WE if direction < 2 else NS
        return (mask & need) == need
    return (mask & NS) == NS or (mask & WE) == WE


@njit(cache=True)
def chains_without_external(board, nb, sides, colour, perpendicular, label, rmask, stack, alive,
                            out):
    """Every ``colour`` stone whose chain has no external liberty, listed in ``out``.
    Judging only: nothing is removed. Returns their number."""
    n = board.shape[0]
    label_open_regions(board, nb, sides, colour, label, rmask, stack)
    top = 0
    for p in range(n):
        alive[p] = 0
        if board[p] != colour:
            continue
        for k in range(4):
            e = nb[p, k]
            if e >= 0 and board[e] == EMPTY and is_external(rmask[label[e]], k, perpendicular):
                alive[p] = 1
                stack[top] = p
                top += 1
                break
    while top > 0:  # spread life along the chains
        top -= 1
        v = stack[top]
        for k in range(4):
            w = nb[v, k]
            if w >= 0 and board[w] == colour and alive[w] == 0:
                alive[w] = 1
                stack[top] = w
                top += 1
    count = 0
    for p in range(n):
        if board[p] == colour and alive[p] == 0:
            out[count] = p
            count += 1
    return count


@njit(cache=True)
def chain_bridges(board, nb, sides, start, stack, seen, stamp):
    """Whether the chain of ``start`` touches two opposite sides. ``seen`` holds stamps: a
    point is visited when ``seen`` is not ``stamp``, so a caller either clears it or passes a
    stamp never used before."""
    colour = board[start]
    seen[start] = stamp
    stack[0] = start
    top = 1
    mask = 0
    while top > 0:
        top -= 1
        v = stack[top]
        mask |= sides[v]
        for k in range(4):
            w = nb[v, k]
            if w >= 0 and seen[w] != stamp and board[w] == colour:
                seen[w] = stamp
                stack[top] = w
                top += 1
    return (mask & NS) == NS or (mask & WE) == WE


@njit(cache=True)
def position_hash(board, zob, empty_key):
    """Positional Zobrist hash (no side to move: Bridge Go's superko compares boards)."""
    h = empty_key
    for p in range(board.shape[0]):
        if board[p] != EMPTY:
            h ^= zob[p, board[p]]
    return h


@njit(cache=True)
def play_bridge(board, nb, sides, player, point, perpendicular, win_after, label, rmask, stack,
                alive, out):
    """Play a turn on ``board`` in place: place, remove the opponent's chains without an
    external liberty, then the mover's, with the win check before (or, ``win_after``, after)
    the mover's removal. Returns (captured, self_captured, won)."""
    board[point] = player
    captured = chains_without_external(board, nb, sides, 3 - player, perpendicular, label,
                                       rmask, stack, alive, out)
    for t in range(captured):
        board[out[t]] = EMPTY
    # ``alive`` holds 0 and 1 from the judgement just made: 2 is a fresh stamp
    if not win_after and chain_bridges(board, nb, sides, point, stack, alive, 2):
        return captured, 0, True
    own = chains_without_external(board, nb, sides, player, perpendicular, label, rmask, stack,
                                  alive, out)
    for t in range(own):
        board[out[t]] = EMPTY
    won = False
    if win_after and board[point] == player:
        won = chain_bridges(board, nb, sides, point, stack, alive, 2)
    return captured, own, won
