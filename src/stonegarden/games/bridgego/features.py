"""What Bridge Go's learned move model (``model.py``) sees of a move before search: the 3x3
pattern round its point (``geometry/square_patterns.py``) and the facts of the race to join
opposite sides, as two small integer codes.

The **tactics** of a stone of the mover on an empty point:
- the mover's chains it joins: 0, 1, 2 or more;
- the sides the chain it makes would touch (its own point's and the joined chains'): none,
  one or two adjacent ones, or two opposite ones (the move wins);
- whether it touches an opponent stone;
- its distance to the nearest edge: 0, 1, 2, 3 or more;
- whether it is the playouts' bridge-saving reply to the last move (``playouts.bridge_reply``).

Captures here go by external liberties, which a local look cannot judge, so the model leaves
them to the search. Chains are labelled once per position (``geometry/flood.label_groups``);
a move then costs eight pattern reads and four neighbour checks.
"""

from __future__ import annotations

from numba import njit

from ...geometry.square import SIDE_E, SIDE_N, SIDE_S, SIDE_W
from ...geometry.square_patterns import PATTERNS, canonical_patterns, ring_table

__all__ = ["PATTERNS", "TACTICS", "canonical_patterns", "chain_sides", "move_tactics",
           "ring_table"]

#: chains joined (0, 1, 2+) x sides (none, some, opposite) x contact x edge (0..3+) x reply
TACTICS = 3 * 3 * 2 * 4 * 2
_NS = SIDE_N | SIDE_S
_WE = SIDE_W | SIDE_E


@njit(cache=True)
def chain_sides(board, sides, group, out):
    """``out[g]``: the side bits every chain ``g`` of ``group`` (``label_groups``) touches."""
    out[:] = 0
    for c in range(board.shape[0]):
        if group[c] >= 0:
            out[group[c]] |= sides[c]


@njit(cache=True)
def move_tactics(board, nb, edge, sides, player, p, group, group_sides, reply, ids):
    """The tactics code (0 .. ``TACTICS``) of ``player``'s stone on the empty point ``p``;
    ``group_sides`` from ``chain_sides``, ``reply`` the bridge-saving point (-1: none),
    ``ids`` scratch of 4 slots."""
    mask = sides[p]
    contact = 0
    nids = 0
    for k in range(4):
        w = nb[p, k]
        if w < 0 or board[w] == 0:
            continue
        if board[w] != player:
            contact = 1
            continue
        g = group[w]
        known = False
        for t in range(nids):
            known = known or ids[t] == g
        if not known:
            ids[nids] = g
            nids += 1
            mask |= group_sides[g]
    span = 2 if (mask & _NS) == _NS or (mask & _WE) == _WE else 1 if mask else 0
    code = (min(nids, 2) * 3 + span) * 2 + contact
    return (code * 4 + min(edge[p], 3)) * 2 + (1 if p == reply else 0)
