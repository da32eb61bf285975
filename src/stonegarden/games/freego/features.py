"""What Free Go's learned move model (``model.py``) sees of a move before search: the 3x3
pattern round its point and a few tactical facts, as two small integer codes.

- the **pattern**: the eight points round the move, each empty, the mover's, the opponent's,
  or off the board (``geometry/square_patterns.py``): ``PATTERNS`` codes, those equal under
  the square's eight symmetries sharing one weight;
- the **tactics**, as in the Blooms race's model: stones captured by filling the last
  liberty of opponent chains (0, 1, 2-3, 4+), the new chain's liberties (empty neighbours
  plus the other liberties of the own chains it joins, shared ones counted twice: 0, 1, 2,
  3+), whether it leaves an opponent chain one liberty, whether it extends an own chain that
  had one, and the distance to the edge (0, 1, 2, 3+): ``TACTICS`` codes;
- the **nearness** to the last two moves (the opponent's, then the mover's own): each
  distance ``|dx| + |dy| + max(|dx|, |dy|)`` (Coulom's, Computing Elo Ratings of Move Patterns
  in the Game of Go, 2007) as 2 or less (a neighbour, or the point itself), 3 .. 8, 9 or more,
  or "no such move" (the first two moves of a game, and a search's root, whose state does not
  say how it was reached): ``NEAR`` codes, one weight for each pair.

Chains are labelled once per position (``geometry/flood.label_groups``); a move then costs
eight pattern reads and four neighbour checks.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from ...geometry.square_patterns import PATTERNS, canonical_patterns, ring_pattern, ring_table
from ...learn.tactics import TACTICS, tactic_code, touch_group

__all__ = ["NEAR", "PATTERNS", "TACTICS", "canonical_patterns", "near_code", "near_table",
           "point_codes", "ring_table"]

#: distance classes of a point to one earlier move: 2 or less, 3 .. 8, 9+, and "no such move"
DISTANCES = 9
#: codes of the nearness to the last two moves
NEAR = DISTANCES * DISTANCES


def near_table(size: int) -> np.ndarray:
    """(points + 1, points) int8: the distance class of each point to each point, and a last
    row for "no such move" (index ``points``, what a move of -1 reads)."""
    n = size * size
    col, row = np.arange(n) % size, np.arange(n) // size
    dx = np.abs(col[:, None] - col[None, :])
    dy = np.abs(row[:, None] - row[None, :])
    d = dx + dy + np.maximum(dx, dy)
    out = np.full((n + 1, n), DISTANCES - 1, np.int8)
    out[:n] = np.clip(d, 2, 9) - 2
    return out


@njit(cache=True)
def near_code(near, last, before, p):
    """The nearness code (0 .. ``NEAR``) of point ``p`` to the moves ``last`` (the
    opponent's) and ``before`` (the mover's previous one); -1: no such move."""
    n = near.shape[1]
    a = near[last if last >= 0 else n, p]
    b = near[before if before >= 0 else n, p]
    return a * DISTANCES + b


@njit(cache=True)
def point_codes(board, nb, ring, edge, player, p, group, libs_of, size_of, ids):
    """(pattern, tactics) of ``player``'s stone on the empty point ``p``, chains labelled by
    ``label_groups``; ``ids``: scratch of 4 slots."""
    pattern = ring_pattern(board, ring, player, p)
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
