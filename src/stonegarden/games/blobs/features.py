"""What Blobs' move model reads off a placement, in one kernel over the legal placements.

Each placement is judged as the whole move it makes (the die and its auto moves) and coded by four
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
threats the model weighs. A blob at the rim of the virtual board never closes (the rules call
it open), so it counts as 3+.

The position's blobs are labelled once per call. A placement that makes no auto move is then
judged from the labels alone (the blobs at its corners, joined by its face, less the cell it
fills); one that makes auto moves is played out on a scratch board and only the blobs through
its dice are flooded, each only as far as its third opening.
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
    touched,
    unsee,
)
from .lattice import (
    FACE_MIXED,
    FACE_OF,
    HALF,
    NORTH,
    NUM_CELLS,
    NUM_POINTS,
    POINT_SIDE,
    SOUTH,
    WHITE,
)

VERDICTS = 4
AUTOS = 4
#: own face: 4 openings; enemy face: 4; Mixed: own x enemy openings, 16
COLOURED = 24
#: a white blob's state: own-only (4 openings), enemy-only (4), both colours (1)
WHITE_STATES = 9
#: own face, enemy face: unordered pairs of white states (45 each); Mixed: one state
WHITE_CODES = 2 * (WHITE_STATES * (WHITE_STATES + 1) // 2) + WHITE_STATES
#: the offsets of the four features in the model's weights, and their total
FEATURE_BASES = np.array([0, VERDICTS, VERDICTS + AUTOS, VERDICTS + AUTOS + COLOURED], np.int64)
NUM_FEATURES = VERDICTS + AUTOS + COLOURED + WHITE_CODES
FEATURE_COLUMNS = 4
#: the openings kept per blob of a node's position: enough to count them up to 3 after a die
#: fills one of them, and to tell when a blob closes
OPEN_KEPT = 4
#: the openings a blob at the board's rim is given (``RIM``, ``RIM - 1``, ..): no cell's index
RIM = -2


def feature_scratch() -> tuple[np.ndarray, ...]:
    """The buffers :func:`move_codes` works in."""
    return (np.empty(NUM_CELLS, np.int8), np.empty(NUM_POINTS, np.int8),
            np.empty(NUM_POINTS, np.int8), np.empty(4, np.int32), np.empty(4, np.int32),
            np.zeros(NUM_POINTS, np.bool_), np.empty(NUM_POINTS, np.int32),
            np.empty(NUM_POINTS, np.int32), np.zeros(NUM_CELLS, np.int64),
            np.empty(NUM_CELLS, np.int64), np.empty(8, np.int64), np.zeros(4, np.int64),
            np.full(NUM_POINTS, -1, np.int32), np.empty(NUM_POINTS, np.int64),
            np.empty((NUM_POINTS, OPEN_KEPT), np.int64), np.empty(NUM_POINTS, np.int64),
            np.empty(4 * OPEN_KEPT, np.int64))


@njit(cache=True)
def label_blobs(cells, pcol, box, g, seen, stack, members, stamp, token, blob_of, border_of,
                opens, n_open):
    """Label every blob of the position once: ``blob_of`` per lattice point (-1 untouched; set
    over the points a die on the box's rim can reach), each blob's ``border_of`` and up to
    ``OPEN_KEPT`` of the empty cells touching it (``opens``, ``n_open``). Returns the next new
    token."""
    point_cells = g[G_POINT_CELLS]
    for r in range(max(box[0] - 1, -HALF), min(box[1] + 2, HALF + 1) + 1):
        for c in range(max(box[2] - 1, -HALF), min(box[3] + 2, HALF + 1) + 1):
            blob_of[(r + HALF) * POINT_SIDE + (c + HALF)] = -1
    blobs = 0
    for r in range(box[0], box[1] + 2):
        for c in range(box[2], box[3] + 2):
            point = (r + HALF) * POINT_SIDE + (c + HALF)
            if seen[point] or not touched(cells, g, point):
                continue
            size, _, _, border, _ = flood_blob(cells, pcol, g, point, seen, stack, members)
            border_of[blobs] = border
            count = 0
            rim = False
            for i in range(size):
                q = members[i]
                blob_of[q] = blobs
                for k in range(4):
                    cell = point_cells[q, k]
                    if cell < 0:
                        rim = True
                    elif count < OPEN_KEPT and cells[cell] == 0 and stamp[cell] != token:
                        stamp[cell] = token
                        opens[blobs, count] = cell
                        count += 1
            if rim:  # it never closes: as many openings as are kept, none a real cell
                for i in range(OPEN_KEPT):
                    opens[blobs, i] = RIM - i
                count = OPEN_KEPT
            n_open[blobs] = count
            blobs += 1
            token += 1
    unsee(seen, box)
    return token


@njit(cache=True)
def _add(buf, m, cell):
    for j in range(m):
        if buf[j] == cell:
            return m
    buf[m] = cell
    return m + 1


@njit(cache=True)
def _gather(g, point, die, blob_of, opens, n_open, buf, m):
    """Add to ``buf[:m]`` the empty cells (``die``'s cell left out) touching the blob through
    ``point`` before the die, as far as they are kept; an untouched point is a blob of its own,
    touching its four cells. A blob at the board's rim adds ``OPEN_KEPT`` cells of its own
    (``RIM`` and below): it never closes. Returns the new count."""
    b = blob_of[point]
    if b >= 0:
        for i in range(n_open[b]):
            if opens[b, i] != die:
                m = _add(buf, m, opens[b, i])
        return m
    rim = False
    for i in range(4):
        cell = g[G_POINT_CELLS][point, i]
        if cell < 0:
            rim = True
        elif cell != die:
            m = _add(buf, m, cell)
    if rim:
        for i in range(OPEN_KEPT):
            m = _add(buf, m, RIM - i)
    return m


@njit(cache=True)
def _border(point, blob_of, border_of):
    b = blob_of[point]
    return border_of[b] if b >= 0 else 0


@njit(cache=True)
def _quiet_corners(g, cell, placement, blob_of, border_of, opens, n_open, buf, cond, opened,
                   border):
    """``_corners`` for a die that makes no auto move, from the node's labels: the blobs at
    its corners are those before it, joined by its face (an own or enemy face joins its
    coloured corners, a Mixed face its white ones), less the cell it fills. Notes in ``cond``
    the win conditions of the blobs it closes."""
    north, south, white = g[G_NORTH][cell], g[G_SOUTH][cell], g[G_WHITE][cell]
    die_bits = (1 << NORTH[placement]) | (1 << SOUTH[placement])
    cond[:] = 0
    mixed = FACE_OF[placement] == FACE_MIXED
    m = _gather(g, north, cell, blob_of, opens, n_open, buf, 0)
    if mixed:
        opened[0] = min(m, 3)
        m = _gather(g, south, cell, blob_of, opens, n_open, buf, 0)
        opened[1] = min(m, 3)
        record_condition(cond, NORTH[placement], opened[0] == 0, 0)
        record_condition(cond, SOUTH[placement], opened[1] == 0, 0)
        m = _gather(g, white[0], cell, blob_of, opens, n_open, buf, 0)
        m = _gather(g, white[1], cell, blob_of, opens, n_open, buf, m)
        opened[2] = opened[3] = min(m, 3)
        border[2] = border[3] = (_border(white[0], blob_of, border_of)
                                 | _border(white[1], blob_of, border_of) | die_bits)
    else:
        m = _gather(g, south, cell, blob_of, opens, n_open, buf, m)
        opened[0] = opened[1] = min(m, 3)
        record_condition(cond, NORTH[placement], m == 0, 0)
        for k in range(2):
            opened[2 + k] = min(_gather(g, white[k], cell, blob_of, opens, n_open, buf, 0), 3)
            border[2 + k] = _border(white[k], blob_of, border_of) | die_bits
    for k in range(2, 4):
        if opened[k] == 0:
            record_condition(cond, WHITE, True, border[k])


@njit(cache=True)
def _flood(cells, pcol, g, point, seen, stack, members, stamp, token, cond, enough):
    """Flood the blob through unseen ``point`` (marking ``seen``) as far as ``enough`` openings
    (``flood_blob``), note the win condition it meets in ``cond``, and return (its openings
    capped at 3, its border)."""
    _, colour, closed, border, openings = flood_blob(cells, pcol, g, point, seen, stack,
                                                     members, stamp, token, enough)
    record_condition(cond, colour, closed, border)
    return min(openings, 3), border


@njit(cache=True)
def _complete(cells, g, point):
    """Whether dice lie on all four cells round ``point``."""
    for k in range(4):
        cell = g[G_POINT_CELLS][point, k]
        if cell < 0 or cells[cell] == 0:
            return False
    return True


@njit(cache=True)
def _white_state(opened, border, mover):
    """A white blob as ``mover`` sees it (one of ``WHITE_STATES``): bordered only by the mover's
    colour (0-3, its openings), only by the opponent's (4-7), or by both (8)."""
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
def _corner(g, cell, k):
    """Corner ``k`` of ``cell``: 0 its northern coloured one, 1 its southern, 2-3 its white ones."""
    if k == 0:
        return g[G_NORTH][cell]
    if k == 1:
        return g[G_SOUTH][cell]
    return g[G_WHITE][cell, k - 2]


@njit(cache=True)
def _corners(cells, pcol, g, cell, seen, stack, members, stamp, token, cond, opened, border):
    """Flood the blobs through the four corners of the die on ``cell`` (north, south, then the
    white ones), each blob once, into ``opened`` and ``border``; returns the next new token."""
    for k in range(4):
        point = _corner(g, cell, k)
        if seen[point]:  # joined to the corner before it of its colour class
            opened[k], border[k] = opened[k - 1], border[k - 1]
        else:
            opened[k], border[k] = _flood(cells, pcol, g, point, seen, stack, members, stamp,
                                          token, cond, 3)
            token += 1
    return token


@njit(cache=True)
def move_codes(cells0, g, mover, dice_left, mode, actions, scratch, out):
    """The four feature codes (module docstring) of each placement of ``actions`` by ``mover``
    (1 Red, 2 Blue) with ``dice_left`` dice in the pool, under win mode ``mode``, into the rows
    of ``out`` (int64, one row per action, ``FEATURE_COLUMNS`` wide). The position's blobs are
    labelled once; a placement is then played out on a scratch board only as far as its auto
    moves, and its blobs flooded again only if it makes some."""
    (cells, pcol0, pcol, box0, box, seen, stack, members, stamp, autos, corner, cond, blob_of,
     border_of, opens, n_open, buf) = scratch
    opened, border = corner[:4], corner[4:]
    cells[:] = cells0
    point_colours(cells, g, pcol0)
    bounding_box(cells, g, box0)
    north = g[G_NORTH]
    token = label_blobs(cells, pcol0, box0, g, seen, stack, members, stamp, stamp.max() + 1,
                        blob_of, border_of, opens, n_open)
    for k in range(actions.shape[0]):
        cells[:] = cells0
        pcol[:] = pcol0
        box[:] = box0
        cell, placement = actions[k] >> 2, actions[k] & 3
        place(cells, pcol, box, g, cell, placement)
        n = auto_fill(cells, pcol, box, g, dice_left - 1, autos)
        if n == 0:
            _quiet_corners(g, cell, placement, blob_of, border_of, opens, n_open, buf, cond,
                           opened, border)
        else:  # the blobs through every die the move placed, each flooded once
            cond[:] = 0
            token = _corners(cells, pcol, g, cell, seen, stack, members, stamp, token, cond,
                             opened, border)
            for i in range(n):
                auto = autos[i] >> 2
                for j in range(4):
                    point = _corner(g, auto, j)
                    # a blob with an incomplete point is open: only complete points can
                    # start a closed one
                    if not seen[point] and _complete(cells, g, point):
                        _flood(cells, pcol, g, point, seen, stack, members, stamp, token, cond,
                               1)
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
