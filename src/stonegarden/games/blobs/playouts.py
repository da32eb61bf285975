"""Random playouts of Blobs in one kernel: the hot path of search and of ``bench playouts``.

The policy is uniform over the legal placements, or with ``safe`` = K it avoids handing the
opponent a win (K random placements tried per move; ``mcts:safe=K``). Under Tumbling Dice each
move is preceded by a roll with the real odds (1/6, 1/6, 4/6, renormalised over the faces that
fit somewhere, which is what re-rolling a face that fits nowhere amounts to) and the placement
is drawn among those of the rolled face. Everything else is the kernels of ``kernels``, shared
with ``rules``.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from .kernels import (
    auto_fill,
    bounding_box,
    conditions_after_move,
    end_of_move,
    face_mask,
    judge_move,
    legal_placements,
    place,
    point_colours,
)
from .lattice import FACE_OF, NUM_POINTS

#: roll probabilities of the faces R, B, M in sixths
ROLL_WEIGHTS = np.array([1, 1, 4], np.int64)


@njit(cache=True)
def sample_face(mask):
    """A roll of the die among the faces in ``mask`` (re-rolling the others): weights 1, 1, 4."""
    total = 0
    for f in range(3):
        if mask & (1 << f):
            total += ROLL_WEIGHTS[f]
    x = np.random.randint(total)
    for f in range(3):
        if mask & (1 << f):
            if x < ROLL_WEIGHTS[f]:
                return f
            x -= ROLL_WEIGHTS[f]
    return -1


@njit(cache=True)
def seed_generator(seed):
    """Seed numba's global generator (the one the kernels draw from)."""
    np.random.seed(seed)


@njit(cache=True)
def roll_counts(mask, count, seed):
    """How often each face comes up in ``count`` rolls restricted to ``mask`` (for tests)."""
    np.random.seed(seed)
    out = np.zeros(3, np.int64)
    for _ in range(count):
        out[sample_face(mask)] += 1
    return out


@njit(cache=True)
def playout(cells, pcol, box, g, to_place, dice_left, roll, tumbling, mode, max_grid, safe, buf,
            autos, moves_out):
    """Play random moves (and rolls with their probabilities) until the game ends, modifying
    the arrays. ``roll`` is the face already rolled, or -1. With ``safe`` = K > 1 each move is
    the first of up to K distinct random placements that does not hand the opponent a win (the
    last one tried if all do); K <= 1 is uniform, drawing the same numbers. Uses numba's global
    generator (seed it first). The entries played (actions, rolls as ``4 * cells + face``) go
    to ``moves_out`` while it has room (for tests). Returns (winner 1/2, or 0 for a draw;
    record entries played)."""
    cond = np.zeros(4, np.int64)
    seen = np.zeros(NUM_POINTS, np.bool_)
    stack = np.empty(NUM_POINTS, np.int32)
    members = np.empty(NUM_POINTS, np.int32)
    new_cells = np.empty(cells.shape[0] + 1, np.int64)  # the die and its auto moves
    saved_cells = np.empty_like(cells)
    saved_pcol = np.empty_like(pcol)
    saved_box = np.empty_like(box)
    entries = 0
    n = legal_placements(cells, pcol, box, max_grid, -1, g, buf)
    if n == 0:  # not reached from a position that goes on: the rules end the game here
        return 0, entries
    while True:
        if tumbling:
            if roll < 0:
                roll = sample_face(face_mask(buf, n))
                if entries < moves_out.shape[0]:
                    moves_out[entries] = 4 * cells.shape[0] + roll
                entries += 1
            m = 0
            for i in range(n):
                if FACE_OF[buf[i] & 3] == roll:
                    buf[m] = buf[i]
                    m += 1
            n = m
            roll = -1
        tries = min(max(safe, 1), n)
        action = -1
        n_auto = 0
        w = -1
        for t in range(tries):
            j = t + np.random.randint(n - t)  # a placement not tried yet
            action = buf[j]
            buf[j] = buf[t]
            buf[t] = action
            last = t + 1 == tries
            if not last:
                saved_cells[:] = cells
                saved_pcol[:] = pcol
                saved_box[:] = box
            place(cells, pcol, box, g, action >> 2, action & 3)
            n_auto = auto_fill(cells, pcol, box, g, dice_left - 1, autos)
            new_cells[0] = action >> 2
            for i in range(n_auto):
                new_cells[1 + i] = autos[i] >> 2
            conditions_after_move(cells, pcol, box, g, new_cells, 1 + n_auto, cond, seen, stack,
                                  members)
            w = judge_move(cond, to_place, mode)
            if last or w != 3 - to_place:
                break
            cells[:] = saved_cells  # it hands the opponent a win: take it back, try another
            pcol[:] = saved_pcol
            box[:] = saved_box
        if entries < moves_out.shape[0]:
            moves_out[entries] = action
        entries += 1
        dice_left -= 1 + n_auto
        # the rules' judgement, which also lists the next mover's placements in ``buf``
        outcome, _, n = end_of_move(cells, pcol, box, g, cond, to_place, mode, dice_left,
                                    max_grid, buf)
        if outcome >= 0:
            return outcome, entries
        to_place = 3 - to_place


@njit(cache=True)
def playouts(cells0, g, to_place, dice_left, roll, tumbling, mode, max_grid, count, seed,
             safe=0):
    """Run ``count`` playouts from one position (``safe``: see :func:`playout`). Returns
    int64[4]: wins of player 1, wins of player 2, draws, and total record entries played."""
    np.random.seed(seed)
    totals = np.zeros(4, np.int64)
    cells = np.empty_like(cells0)
    pcol = np.zeros(NUM_POINTS, np.int8)
    box = np.zeros(4, np.int32)
    buf = np.empty(cells0.shape[0] * 4, np.int64)
    autos = np.empty(cells0.shape[0], np.int64)
    no_moves = np.empty(0, np.int64)
    for _ in range(count):
        cells[:] = cells0
        point_colours(cells, g, pcol)
        bounding_box(cells, g, box)
        w, t = playout(cells, pcol, box, g, to_place, dice_left, roll, tumbling, mode, max_grid,
                       safe, buf, autos, no_moves)
        totals[2 if w == 0 else w - 1] += 1
        totals[3] += t
    return totals
