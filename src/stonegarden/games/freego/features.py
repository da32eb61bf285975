"""What Free Go's learned move model (``model.py``) sees of a move before search: the 3x3
pattern round its point and a few tactical facts, as two small integer codes.

- the **pattern**: the eight points round the move, each empty, the mover's, the opponent's,
  or off the board (``geometry/square_patterns.py``): ``PATTERNS`` codes, those equal under
  the square's eight symmetries sharing one weight;
- the **tactics**, as in the Blooms race's model: stones captured by filling the last
  liberty of opponent chains (0, 1, 2-3, 4+), the new chain's liberties (empty neighbours
  plus the other liberties of the own chains it joins, shared ones counted twice: 0, 1, 2,
  3+), whether it leaves an opponent chain one liberty, whether it extends an own chain that
  had one, and the distance to the edge (0, 1, 2, 3+): ``TACTICS`` codes.

Chains are labelled once per position (``geometry/flood.label_groups``); a move then costs
eight pattern reads and four neighbour checks.
"""

from __future__ import annotations

from numba import njit

from ...geometry.square_patterns import PATTERNS, canonical_patterns, ring_pattern, ring_table
from ...learn.tactics import TACTICS, tactic_code, touch_group

__all__ = ["PATTERNS", "TACTICS", "canonical_patterns", "point_codes", "ring_table"]


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
