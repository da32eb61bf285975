"""What the learned move model (``model.py``) sees of a stone before search: the local
pattern round its cell and a few tactical facts, as two small integer codes.

A stone is judged in the split tree's terms: at stage 0 the mover's first colour, at stage 1
the second (the first stone of the turn already on the board). Everything is relative to the
stone placed, so one table serves both players and every board size:

- the **pattern**: the six neighbours in order round the cell, each empty, the stone's own
  colour, the mover's other colour, the opponent's first or second colour, or off the board
  (a hole or the edge): a base-6 number, ``PATTERNS`` of them. Patterns equal under the
  hexagon's twelve symmetries and under swapping the opponent's two colours share one weight
  (``canonical_patterns``);
- the **tactics**: stones captured by filling the last liberty of opponent blooms (0, 1,
  2-3, 4+), the new bloom's liberties counted as the empty neighbours plus the other
  liberties of the own blooms it joins (0 = fences itself, 1, 2, 3+; shared liberties count
  twice), whether it leaves an opponent bloom one liberty, whether it extends an own bloom
  that had one, and the cell's distance to the edge (0, 1, 2, 3+): ``TACTICS`` codes.

Blooms are labelled once per position (``geometry/flood.label_groups``); each stone then costs six
neighbour reads.
"""

from __future__ import annotations

import functools

import numpy as np
from numba import njit

from ...learn.tactics import TACTICS, tactic_code, touch_group
from .kernels import EMPTY

#: the neighbour table's slots (``geometry/hexhex.DIRECTIONS``) in order round the cell
RING = np.array([0, 4, 3, 1, 5, 2], np.int64)
#: neighbour states, relative to the stone placed
EMPTY_NB, SAME, OWN_OTHER, OPP_FIRST, OPP_SECOND, OFF = range(6)
PATTERNS = 6**6
__all__ = ["PATTERNS", "TACTICS", "canonical_patterns", "stone_codes"]


@njit(cache=True)
def stone_codes(board, nb, edge, player, stage, cell, bloom, libs_of, size_of, ids):
    """(pattern, tactics) of ``player``'s stone of colour ``stage`` (0 first, 1 second) on
    the empty ``cell``, blooms labelled by ``label_groups``; ``ids``: scratch of 6 slots."""
    colour = 2 * player - 1 + stage
    other = 2 * player - stage
    opp_first = 5 - 2 * player
    pattern = 0
    libs = 0
    captured = 0
    atari = 0
    save = 0
    nids = 0
    for j in range(6):
        w = nb[cell, RING[j]]
        s = OFF
        if w >= 0:
            x = board[w]
            if x == EMPTY:
                s = EMPTY_NB
                libs += 1
            elif x == colour:
                s = SAME
            elif x == other:
                s = OWN_OTHER
            elif x == opp_first:
                s = OPP_FIRST
            else:
                s = OPP_SECOND
            if s != EMPTY_NB and s != OWN_OTHER:
                nids, libs, captured, atari, save = touch_group(
                    ids, nids, bloom[w], s == SAME, libs_of, size_of, libs, captured, atari,
                    save)
        pattern = pattern * 6 + s
    return pattern, tactic_code(captured, libs, atari, save, edge[cell])


def canonical_patterns() -> np.ndarray:
    """For every pattern code, the number of its class under the hexagon's symmetries and the
    swap of the opponent's colours (dense, 0 ..)."""
    # made once a process: every check of a search agent's model (a sweep's every cell, an
    # agent's identity in a study) made a learner, and so these, again (35-60 ms); a copy,
    # so that no caller changes another's, and numba sees the array it always saw
    return _classes().copy()


@functools.cache
def _classes() -> np.ndarray:
    """The classes ``canonical_patterns`` gives, computed once."""
    codes = np.arange(PATTERNS)
    digits = np.stack([(codes // 6 ** (5 - j)) % 6 for j in range(6)], axis=1)
    swapped = np.where(digits == OPP_FIRST, OPP_SECOND,
                       np.where(digits == OPP_SECOND, OPP_FIRST, digits))
    weights = 6 ** np.arange(5, -1, -1)
    best = codes.copy()
    for d in (digits, swapped):
        for r in range(6):
            for flip in (False, True):
                order = [(r - j) % 6 if flip else (r + j) % 6 for j in range(6)]
                best = np.minimum(best, d[:, order] @ weights)
    _, dense = np.unique(best, return_inverse=True)
    return dense.astype(np.int64)
