"""What the search's tree knows about a Free Go move before searching it (``mcts:prior``).

Captures are the goal, so a move that captures is good for the mover, and a suicide that
captures nothing hands the opponent its stones: ``move_kinds`` tells the two apart for every
candidate point with the playouts' chain bookkeeping (``chains.py``), one pass over the board
and four neighbour checks a point. The search turns them into virtual RAVE samples
(``Game.prior_values``; docs/ai.md)."""

from __future__ import annotations

import numpy as np
from numba import njit

from .chains import captures_at, dead_roots, liberties_after, new_chains

#: ``move_kinds`` codes
QUIET, CAPTURE, SUICIDE = 0, 1, 2

#: what a move is worth before search, by kind: a capture as a win, a suicide that captures
#: nothing as a loss, any other move as even
PRIOR_OF_KIND = np.array([0.5, 1.0, 0.0])


@njit(cache=True)
def move_kinds(board, nb, zob, player, points, out):
    """For each empty point of ``points`` write to ``out`` whether ``player`` playing there
    captures (``CAPTURE``: an opponent chain other than one already dead is left without a
    liberty), commits suicide without capturing (``SUICIDE``: the new chain, the stone with
    its own chains beside it, has no liberty), or neither (``QUIET``). While an opponent chain
    waits for removal (their suicide) no move is called a suicide: its removal may free any."""
    n = board.shape[0]
    cid, _, libs, _, _ = new_chains(board, nb, zob)
    opp = 3 - player
    dead = np.empty(n, np.int32)  # the opponent's chains already without a liberty
    ndead = dead_roots(board, opp, cid, libs, dead)
    caps = np.empty(4, np.int32)
    for i in range(points.shape[0]):
        p = points[i]
        if captures_at(board, nb, p, opp, cid, libs, dead, ndead, caps) > 0:
            out[i] = CAPTURE
            continue
        suicide = ndead == 0 and liberties_after(board, nb, p, player, cid, libs) == 0
        out[i] = SUICIDE if suicide else QUIET
