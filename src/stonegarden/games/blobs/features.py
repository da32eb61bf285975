"""What Blobs' move model reads off a placement, in one kernel over the legal placements.

Each placement is played out as a whole move (the die and its auto moves) and coded by four
features, each one weight of the model:

- **verdict** (4): nothing, the mover wins, the mover hands the opponent a win (and loses), or
  the pool empties (a draw);
- **auto moves** made (0, 1, 2, 3 or more);
- **coloured corners** (24): the blobs through the die's two coloured corners, as the mover
  sees them, by how many empty cells still touch them (0-3+): one own blob for an own face, one
  enemy blob for an enemy face, an own and an enemy blob for a Mixed face;
- **white corners** (99): the white blobs through the die's two white corners, each read as
  bordered only by the mover's colour, only by the opponent's (each with its empty cells, 0-3+)
  or by both (it can never be a circle); two blobs, unordered, for an own or an enemy face;
  one, joined by the neck, for a Mixed face.

An open blob touched by one empty cell is one die from being closed, so these counts are the
threats the model weighs.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from .kernels import (
    G_NORTH,
    G_POINT_CELLS,
    G_SOUTH,
    G_WHITE,
    auto_fill,
    bounding_box,
    flood_blob,
    judge_move,
    place,
    point_colours,
    record_condition,
    unsee,
)
from .lattice import FACE_MIXED, FACE_OF, NUM_CELLS, NUM_POINTS

VERDICTS = 4
AUTOS = 4
#: own face: 4 openings; enemy face: 4; Mixed: own x enemy openings, 16
COLOURED = 24
#: a white blob's state: own-only (4 openings), enemy-only (4), both colours (1)
WHITE_STATES = 9
#: own face, enemy face: unordered pairs of white states (45 each); Mixed: one state
WHITE = 2 * (WHITE_STATES * (WHITE_STATES + 1) // 2) + WHITE_STATES
#: the offsets of the four features in the model's weights, and their total
FEATURE_BASES = np.array([0, VERDICTS, VERDICTS + AUTOS, VERDICTS + AUTOS + COLOURED], np.int64)
NUM_FEATURES = VERDICTS + AUTOS + COLOURED + WHITE
FEATURE_COLUMNS = 4


def feature_scratch() -> tuple[np.ndarray, ...]:
    """The buffers :func:`move_codes` works in."""
    return (np.empty(NUM_CELLS, np.int8), np.empty(NUM_POINTS, np.int8),
            np.empty(NUM_POINTS, np.int8), np.empty(4, np.int32), np.empty(4, np.int32),
            np.zeros(NUM_POINTS, np.bool_), np.empty(NUM_POINTS, np.int32),
            np.empty(NUM_POINTS, np.int32), np.zeros(NUM_CELLS, np.int64),
            np.empty(NUM_CELLS, np.int64), np.empty(NUM_CELLS + 1, np.int64),
            np.zeros(4, np.int64))


@njit(cache=True)
def _flood(cells, pcol, g, point, seen, stack, members, stamp, token, cond):
    """Flood the blob through unseen ``point`` (marking ``seen``), note the win condition it
    meets in ``cond``, and return (its openings capped at 3, its border): the openings are the
    distinct empty cells touching it. ``stamp`` marks cells with ``token``, which must be new."""
    size, colour, closed, border = flood_blob(cells, pcol, g, point, seen, stack, members)
    record_condition(cond, colour, closed, border)
    point_cells = g[G_POINT_CELLS]
    open_cells = 0
    for i in range(size):
        q = members[i]
        for k in range(4):
            cell = point_cells[q, k]
            if cell >= 0 and cells[cell] == 0 and stamp[cell] != token:
                stamp[cell] = token
                open_cells += 1
    return min(open_cells, 3), border


@njit(cache=True)
def _white_state(opened, border, mover):
    if border == 1 << mover:
        return opened
    if border == 1 << (3 - mover):
        return 4 + opened
    return 8


@njit(cache=True)
def _pair(a, b):
    """The index of the unordered pair {a, b} of white states."""
    i, j = min(a, b), max(a, b)
    return i * (2 * WHITE_STATES - i + 1) // 2 + (j - i)


@njit(cache=True)
def _corners(cells, pcol, g, cell, seen, stack, members, stamp, token, cond, opened, border):
    """Flood the blobs through the four corners of the die on ``cell`` (north, south, then the
    white ones), each blob once, into ``opened`` and ``border``; returns the next new token."""
    north, south, white = g[G_NORTH], g[G_SOUTH], g[G_WHITE]
    for k in range(4):
        point = north[cell] if k == 0 else south[cell] if k == 1 else white[cell, k - 2]
        if seen[point]:  # joined to the corner before it of its colour class
            opened[k], border[k] = opened[k - 1], border[k - 1]
        else:
            opened[k], border[k] = _flood(cells, pcol, g, point, seen, stack, members, stamp,
                                          token, cond)
            token += 1
    return token


@njit(cache=True)
def move_codes(cells0, g, mover, dice_left, mode, actions, scratch, out):
    """The four feature codes (module docstring) of each placement of ``actions`` by ``mover``
    (1 Red, 2 Blue) with ``dice_left`` dice in the pool, under win mode ``mode``, into the rows
    of ``out`` (int64, one row per action, ``FEATURE_COLUMNS`` wide)."""
    cells, pcol0, pcol, box0, box, seen, stack, members, stamp, autos, corner, cond = scratch
    opened, border = corner[:4], corner[4:]
    cells[:] = cells0
    point_colours(cells, g, pcol0)
    bounding_box(cells, g, box0)
    north, south, white = g[G_NORTH], g[G_SOUTH], g[G_WHITE]
    token = stamp.max() + 1
    for k in range(actions.shape[0]):
        cells[:] = cells0
        pcol[:] = pcol0
        box[:] = box0
        cell, placement = actions[k] >> 2, actions[k] & 3
        place(cells, pcol, box, g, cell, placement)
        n = auto_fill(cells, pcol, box, g, dice_left - 1, autos)
        # the blobs through the die's corners, then the rest of those the move touched
        # (``conditions_after_move``'s judgement, each blob flooded once)
        cond[:] = 0
        token = _corners(cells, pcol, g, cell, seen, stack, members, stamp, token, cond,
                         opened, border)
        for i in range(n):
            auto = autos[i] >> 2
            for j in range(4):
                point = north[auto] if j == 0 else south[auto] if j == 1 else white[auto, j - 2]
                if not seen[point]:
                    _flood(cells, pcol, g, point, seen, stack, members, stamp, token, cond)
                    token += 1
        unsee(seen, box)
        winner = judge_move(cond, mover, mode)
        verdict = 1 if winner == mover else 2 if winner > 0 else 3 if dice_left - 1 - n <= 0 else 0
        face = FACE_OF[placement]
        if face == FACE_MIXED:
            own, enemy = ((opened[0], opened[1]) if pcol[north[cell]] == mover
                          else (opened[1], opened[0]))
            coloured = 8 + 4 * own + enemy
            whites = 90 + _white_state(opened[2], border[2], mover)
        else:
            enemy_face = 0 if face == mover - 1 else 1
            coloured = 4 * enemy_face + opened[0]
            whites = 45 * enemy_face + _pair(_white_state(opened[2], border[2], mover),
                                             _white_state(opened[3], border[3], mover))
        out[k, 0] = verdict
        out[k, 1] = min(n, 3)
        out[k, 2] = coloured
        out[k, 3] = whites
