"""What Free Go's learned move model (``model.py``) sees of a move before search: the 3x3
pattern round its point and a few tactical facts, as two small integer codes.

- the **pattern**: the eight points round the move, in order N, NE, E, SE, S, SW, W, NW
  (``ring_table``), each empty, the mover's, the opponent's, or off the board: a base-4
  number, ``PATTERNS`` of them. Patterns equal under the square's eight symmetries share one
  weight (``canonical_patterns``);
- the **tactics**, as in the Blooms race's model: stones captured by filling the last
  liberty of opponent chains (0, 1, 2-3, 4+), the new chain's liberties (empty neighbours
  plus the other liberties of the own chains it joins, shared ones counted twice: 0, 1, 2,
  3+), whether it leaves an opponent chain one liberty, whether it extends an own chain that
  had one, and the distance to the edge (0, 1, 2, 3+): ``TACTICS`` codes.

Chains are labelled once per position (``geometry/flood.label_groups``); a move then costs
eight pattern reads and four neighbour checks.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from ...geometry.square import EAST, NORTH, SOUTH, WEST
from ...learn.tactics import TACTICS, tactic_code, touch_group

#: point states, relative to the mover
EMPTY_PT, OWN, OPP, OFF = range(4)
PATTERNS = 4**8
__all__ = ["PATTERNS", "TACTICS", "canonical_patterns", "point_codes", "ring_table"]


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
def point_codes(board, nb, ring, edge, player, p, group, libs_of, size_of, ids):
    """(pattern, tactics) of ``player``'s stone on the empty point ``p``, chains labelled by
    ``label_groups``; ``ids``: scratch of 4 slots."""
    pattern = 0
    for j in range(8):
        w = ring[p, j]
        s = OFF
        if w >= 0:
            x = board[w]
            s = EMPTY_PT if x == 0 else OWN if x == player else OPP
        pattern = pattern * 4 + s
    libs = 0
    captured = 0
    atari = 0
    save = 0
    nids = 0
    for k in range(4):
        w = nb[p, k]
        if w < 0:
            continue
        x = board[w]
        if x == 0:
            libs += 1
            continue
        nids, libs, captured, atari, save = touch_group(
            ids, nids, group[w], x == player, libs_of, size_of, libs, captured, atari, save)
    tactics = tactic_code(captured, libs, atari, save, edge[p])
    return pattern, tactics


def canonical_patterns() -> np.ndarray:
    """For every pattern code, the number of its class under the square's symmetries (dense,
    0 ..): rotations move the ring two steps, reflections reverse it."""
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
