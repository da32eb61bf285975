"""The 3x3 pattern round a point of a square board, as the learned move models of the square
games read it (``games/freego/features.py``, ``games/bridgego/features.py``): the eight points
N, NE, E, SE, S, SW, W, NW (``ring_table``), each empty, the mover's, the opponent's or off the
board, as a base-4 number (``ring_pattern``); patterns equal under the square's eight symmetries
share one class (``canonical_patterns``)."""

from __future__ import annotations

import functools

import numpy as np
from numba import njit

from .square import EAST, NORTH, SOUTH, WEST

#: point states, relative to the mover
EMPTY_PT, OWN, OPP, OFF = range(4)
PATTERNS = 4**8


def ring_table(nb: np.ndarray) -> np.ndarray:
    """(points, 8): the points N, NE, E, SE, S, SW, W, NW of each point, -1 off the board."""
    n = nb.shape[0]
    out = np.full((n, 8), -1, np.int32)
    for p in range(n):
        up, down, left, right = nb[p, NORTH], nb[p, SOUTH], nb[p, WEST], nb[p, EAST]
        out[p] = (up, nb[up, EAST] if up >= 0 else -1, right,
                  nb[down, EAST] if down >= 0 else -1, down,
                  nb[down, WEST] if down >= 0 else -1, left, nb[up, WEST] if up >= 0 else -1)
    return out


@njit(cache=True)
def ring_pattern(board, ring, player, p):
    """The pattern code (0 .. ``PATTERNS``) round point ``p`` for a stone of ``player``."""
    pattern = 0
    for j in range(8):
        w = ring[p, j]
        s = OFF
        if w >= 0:
            x = board[w]
            s = EMPTY_PT if x == 0 else OWN if x == player else OPP
        pattern = pattern * 4 + s
    return pattern


def canonical_patterns() -> np.ndarray:
    """For every pattern code, the number of its class under the square's symmetries (dense,
    0 ..): rotations move the ring two steps, reflections reverse it."""
    # made once a process: every check of a search agent's model (a sweep's every cell, an
    # agent's identity in a study) made a learner, and so these, again (35-60 ms); a copy,
    # so that no caller changes another's, and numba sees the array it always saw
    return _classes().copy()


@functools.cache
def _classes() -> np.ndarray:
    """The classes ``canonical_patterns`` gives, computed once."""
    codes = np.arange(PATTERNS)
    digits = np.stack([(codes // 4 ** (7 - j)) % 4 for j in range(8)], axis=1)
    weights = 4 ** np.arange(7, -1, -1)
    best = codes.copy()
    for r in range(0, 8, 2):
        for flip in (False, True):
            order = [(r - j) % 8 if flip else (r + j) % 8 for j in range(8)]
            best = np.minimum(best, digits[:, order] @ weights)
    _, dense = np.unique(best, return_inverse=True)
    return dense.astype(np.int64)
