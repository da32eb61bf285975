"""Free Go's learned value: the chance that the player to move wins, a logistic model over a
few facts of the race to the target, fitted with the move model by ``stonegarden train
freego`` (``model.py``) and mixed into the compiled tree's leaf results (``tree.py``,
``mcts:value``).

A position is coded as one code from each family below (``VALUE_FEATURES`` weights in all);
its logit is the sum of their weights:

- the two **gaps** to the target, the mover's and the opponent's, each 1 .. 10 (10: ten or
  more); an opponent chain without a liberty (their suicide awaiting removal) is the mover's
  already, as the rules score it with the mover's next stone;
- the stones in the mover's chains with **one liberty** (0 .. 7+), and in the opponent's;
- the stones in chains with **two liberties**, in pairs (0 .. 5+), for each side;
- whether the mover can **win now**: an opponent chain in atari holds at least the mover's gap;
- whether the opponent **threatens** to: a chain of the mover's in atari holds the
  opponent's gap;
- the empty points by tens (0 .. 8+), and the side to move (the first player's edge).

The chains are labelled once (``geometry/flood.label_groups``): one pass over the board.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from ...geometry.flood import EMPTY, label_groups

GAP_CODES = 10
#: the families' sizes, in the order of ``value_codes``
FAMILIES = (GAP_CODES * GAP_CODES, 8, 8, 6, 6, 2, 2, 9, 2)
FAMILIES_ARRAY = np.array(FAMILIES, np.int64)
VALUE_FEATURES = sum(FAMILIES)
CODES = len(FAMILIES)


@njit(cache=True)
def value_scratch(n):
    """The buffers ``value_codes`` works in, for a board of ``n`` points."""
    return (np.empty(n, np.int32), np.empty(n, np.int32), np.empty(n, np.int32),
            np.empty(n, np.int32), np.empty(n, np.int32), np.empty(n, np.int8),
            np.empty(9, np.int64))


@njit(cache=True)
def value_codes(board, nb, player, own_score, opp_score, target, buf, out):
    """The feature index of each family (``out``: ``CODES`` slots) for ``player`` to move."""
    group, libs, size, stack, mark, colour = buf[0], buf[1], buf[2], buf[3], buf[4], buf[5]
    n = board.shape[0]
    count = label_groups(board, nb, group, libs, size, stack, mark)
    empties = 0
    for c in range(n):
        if board[c] == EMPTY:
            empties += 1
        else:
            colour[group[c]] = board[c]
    own_atari = opp_atari = own_two = opp_two = dead = biggest_opp = biggest_own = 0
    for g in range(count):
        mine = colour[g] == player
        if libs[g] == 0:
            if not mine:  # the opponent's suicide, the mover's stones with its next move
                dead += size[g]
        elif libs[g] == 1:
            if mine:
                own_atari += size[g]
                biggest_own = max(biggest_own, size[g])
            else:
                opp_atari += size[g]
                biggest_opp = max(biggest_opp, size[g])
        elif libs[g] == 2:
            if mine:
                own_two += size[g]
            else:
                opp_two += size[g]
    own_gap = min(max(target - own_score - dead, 1), GAP_CODES)
    opp_gap = min(max(target - opp_score, 1), GAP_CODES)
    codes = ((own_gap - 1) * GAP_CODES + opp_gap - 1, min(own_atari, 7), min(opp_atari, 7),
             min(own_two // 2, 5), min(opp_two // 2, 5), 1 if biggest_opp >= own_gap else 0,
             1 if biggest_own >= opp_gap else 0, min(empties // 10, 8), player - 1)
    base = 0
    for k in range(CODES):
        out[k] = base + codes[k]
        base += FAMILIES_ARRAY[k]



@njit(cache=True)
def mover_value(board, nb, player, scores, target, weights, buf):
    """The model's chance that ``player``, to move, wins (``scores``: both capture scores)."""
    out = buf[6]
    value_codes(board, nb, player, scores[player - 1], scores[2 - player], target, buf, out)
    z = 0.0
    for k in range(CODES):
        z += weights[out[k]]
    return 1.0 / (1.0 + np.exp(-z))
