"""Last good reply with forgetting (LGRF-1, Baier and Drake 2010) for the generic search.

The table ``replies[p, m]`` holds, for player ``p``, the move that last answered move ``m`` in a
simulation ``p`` won; a playout plays it (when legal) before its default policy. After each
simulation the winner's replies are stored and the loser's are forgotten if they were the ones
in the table, so a reply that stops working drops out. The table learns from every simulation
of a search and is kept between moves: it gets better as the budget grows, which is why it is
tried for the time ladders (docs/ai.md).
"""

from __future__ import annotations

import numpy as np
from numba import njit

#: a table that switches the policy off (the kernels test its size)
NO_REPLIES = np.empty((0, 0), np.int32)


def new_replies(num_actions: int) -> np.ndarray:
    """An empty reply table for a game of ``num_actions`` point actions (rows by player 1, 2)."""
    return np.full((3, num_actions), -1, np.int32)


@njit(cache=True)
def lgr_update(replies, tree_moves, playout_moves, first, winner):
    """Learn from one simulation: ``tree_moves`` then ``playout_moves``, the first by player
    ``first`` and then alternating, won by ``winner`` (1 or 2; anything else teaches nothing).
    Each move of the winner becomes the reply to the move before it; a move of the loser that is
    the stored reply to the move before it is forgotten."""
    if winner != 1 and winner != 2:
        return
    nt = tree_moves.shape[0]
    n = nt + playout_moves.shape[0]
    prev = -1
    p = first
    for i in range(n):
        m = tree_moves[i] if i < nt else playout_moves[i - nt]
        if prev >= 0:
            if p == winner:
                replies[p, prev] = m
            elif replies[p, prev] == m:
                replies[p, prev] = -1
        prev = m
        p = 3 - p
