"""Numba kernels for Blobs over the flat tables of ``lattice``. They never raise; ``rules.py``
validates everything before calling them, and they run unchanged with ``NUMBA_DISABLE_JIT=1``.

Arrays:
- ``cells``: int8 per cell, 0 empty or placement code + 1 (1 RR, 2 BB, 3 RB, 4 BR);
- ``pcol``: int8 per lattice point, the colour fixed at a coloured point (0 none, 1 R, 2 B);
- ``box``: int32[4] = row min, row max, column min, column max of the dice;
- ``g``: the geometry, a tuple of the ``lattice`` tables (see :func:`geometry`).

Win modes: 0 ``either``, 1 ``white``, 2 ``own``, 3 ``enemy``. Players are colours here: player 1
is Red (colour 1) and player 2 is Blue (colour 2).
"""

from __future__ import annotations

import numpy as np
from numba import njit

from .lattice import (
    BLUE,
    CELL_C,
    CELL_NORTH,
    CELL_R,
    CELL_SOUTH,
    CELL_WHITE,
    EDGE_NB,
    FACE_MIXED,
    FACE_OF,
    HALF,
    NORTH,
    NUM_POINTS,
    POINT_CELLS,
    POINT_COLOURED,
    POINT_SIDE,
    RED,
    SIDE,
    SOUTH,
    WHITE,
)

#: per placement code: northern colour, southern colour, face type (derived in ``lattice``)
_NORTH = NORTH
_SOUTH = SOUTH
_FACE = FACE_OF

#: a white blob's border once it has met both colours: it can never be a circle
BOTH_BORDERS = (1 << RED) | (1 << BLUE)
#: ``flood_blob``'s stamps when it counts no openings
NO_STAMP = np.zeros(0, np.int64)

#: indices into the conditions array filled by :func:`conditions`
OWN_RED, OWN_BLUE, CIRCLE_RED, CIRCLE_BLUE = 0, 1, 2, 3


#: how a whole move ends the game (:func:`end_of_move`; ``rules.END_REASONS`` names them)
GOES_ON, OWN_BLOB, WHITE_CIRCLE, ENEMY_BLOB, GAVE_WIN, POOL_EMPTY, NO_PLACEMENT = range(7)

#: positions of the tables in the geometry tuple ``g``
(G_ROW, G_COL, G_NORTH, G_SOUTH, G_WHITE, G_EDGE_NB, G_POINT_CELLS,
 G_POINT_COLOURED) = range(8)


def geometry() -> tuple[np.ndarray, ...]:
    """The lattice tables in the order the kernels take them."""
    return (CELL_R, CELL_C, CELL_NORTH, CELL_SOUTH, CELL_WHITE, EDGE_NB, POINT_CELLS,
            POINT_COLOURED)


@njit(cache=True)
def placement_code(north, south):
    """The placement code with these coloured corners (RR 0, BB 1, RB 2, BR 3)."""
    if north == south:
        return np.int64(north) - 1
    return np.int64(2 if north == RED else 3)


@njit(cache=True)
def point_colours(cells, g, pcol):
    """Fill ``pcol`` with the colours the dice fix."""
    north, south = g[G_NORTH], g[G_SOUTH]
    pcol[:] = 0
    for i in range(cells.shape[0]):
        p = cells[i] - 1
        if p >= 0:
            pcol[north[i]] = _NORTH[p]
            pcol[south[i]] = _SOUTH[p]


@njit(cache=True)
def bounding_box(cells, g, box):
    """Fill ``box`` with the extent of the dice."""
    cell_r, cell_c = g[G_ROW], g[G_COL]
    box[0] = HALF + 1
    box[1] = -HALF - 1
    box[2] = HALF + 1
    box[3] = -HALF - 1
    for i in range(cells.shape[0]):
        if cells[i] != 0:
            box[0] = min(box[0], cell_r[i])
            box[1] = max(box[1], cell_r[i])
            box[2] = min(box[2], cell_c[i])
            box[3] = max(box[3], cell_c[i])


@njit(cache=True)
def touches_die(cells, g, cell):
    """Whether ``cell`` shares an edge with a die."""
    edge_nb = g[G_EDGE_NB]
    for k in range(4):
        w = edge_nb[cell, k]
        if w >= 0 and cells[w] != 0:
            return True
    return False


@njit(cache=True)
def within_box(g, box, max_grid, cell):
    """Whether a die on ``cell`` keeps the bounding box within ``max_grid`` x ``max_grid``."""
    r = g[G_ROW][cell]
    c = g[G_COL][cell]
    return (max(box[1], r) - min(box[0], r) < max_grid
            and max(box[3], c) - min(box[2], c) < max_grid)


@njit(cache=True)
def colours_match(pcol, g, cell, placement):
    """Whether ``placement`` agrees with the colours already fixed at the cell's corners."""
    n = pcol[g[G_NORTH][cell]]
    s = pcol[g[G_SOUTH][cell]]
    return (n == 0 or n == _NORTH[placement]) and (s == 0 or s == _SOUTH[placement])


@njit(cache=True)
def legal_placements(cells, pcol, box, max_grid, face, g, out):
    """Write the legal placement actions (cell * 4 + placement) in ascending order to ``out``;
    ``face`` 0..2 keeps only that face type (Tumbling Dice), -1 keeps all. Returns the count."""
    n = 0
    for r in range(max(box[0] - 1, -HALF), min(box[1] + 1, HALF) + 1):
        for c in range(max(box[2] - 1, -HALF), min(box[3] + 1, HALF) + 1):
            cell = (r + HALF) * SIDE + (c + HALF)
            if cells[cell] != 0 or not touches_die(cells, g, cell):
                continue
            if not within_box(g, box, max_grid, cell):
                continue
            for p in range(4):
                if (face < 0 or _FACE[p] == face) and colours_match(pcol, g, cell, p):
                    out[n] = cell * 4 + p
                    n += 1
    return n


@njit(cache=True)
def face_mask(actions, count):
    """Bit f set when face type f is among ``actions[:count]``."""
    mask = 0
    for i in range(count):
        mask |= 1 << _FACE[actions[i] & 3]
    return mask


@njit(cache=True)
def place(cells, pcol, box, g, cell, placement):
    """Put a die on ``cell`` (no checks) and update the fixed colours and the box."""
    cells[cell] = placement + 1
    pcol[g[G_NORTH][cell]] = _NORTH[placement]
    pcol[g[G_SOUTH][cell]] = _SOUTH[placement]
    r = g[G_ROW][cell]
    c = g[G_COL][cell]
    box[0] = min(box[0], r)
    box[1] = max(box[1], r)
    box[2] = min(box[2], c)
    box[3] = max(box[3], c)


@njit(cache=True)
def first_forced_cell(cells, pcol, box, g):
    """The first empty cell in row-major order that shares an edge with a die and has both
    coloured corners fixed (one face in one rotation fits it), or -1."""
    for r in range(max(box[0] - 1, -HALF), min(box[1] + 1, HALF) + 1):
        for c in range(max(box[2] - 1, -HALF), min(box[3] + 1, HALF) + 1):
            cell = (r + HALF) * SIDE + (c + HALF)
            if (cells[cell] == 0 and pcol[g[G_NORTH][cell]] != 0 and pcol[g[G_SOUTH][cell]] != 0
                    and touches_die(cells, g, cell)):
                return cell
    return -1


@njit(cache=True)
def auto_fill(cells, pcol, box, g, dice_left, autos):
    """The auto-move closure: fill forced cells one at a time, always the first in row-major
    order (cells made forced by earlier auto moves count), while dice remain. The actions go to
    ``autos``; returns how many were made (each used one die)."""
    count = 0
    while dice_left - count > 0:
        cell = first_forced_cell(cells, pcol, box, g)
        if cell < 0:
            break
        p = placement_code(pcol[g[G_NORTH][cell]], pcol[g[G_SOUTH][cell]])
        place(cells, pcol, box, g, cell, p)
        autos[count] = cell * 4 + p
        count += 1
    return count


@njit(cache=True)
def touched(cells, g, point):
    """Whether a die touches lattice point ``point``."""
    point_cells = g[G_POINT_CELLS]
    for k in range(4):
        cell = point_cells[point, k]
        if cell >= 0 and cells[cell] != 0:
            return True
    return False


@njit(cache=True)
def flood_blob(cells, pcol, g, start, seen, stack, members, stamp=NO_STAMP, token=0, enough=0):
    """Flood the blob holding touched point ``start``, marking ``seen``; its points go to
    ``members``. Returns (size, colour, closed, border, openings): colour 1 R, 2 B or 3 W; a
    blob is closed when every point has dice on all four cells; ``border`` has bit 1 << colour
    set for every colour that a white blob touches (0 for coloured blobs, which border only
    white). With ``enough`` > 0, ``openings`` counts the distinct empty cells touching the blob
    (marking them in ``stamp`` with ``token``, which must be new; a cell off the virtual board
    counts ``enough`` at once, since such a blob never closes), and the flood stops once it
    has ``enough`` of them and, for a white blob, has met both colours: all the features need
    (the blob is open, and what it may still become); a flood stopped short leaves ``seen`` as
    it found it."""
    north, south, white, point_cells = g[G_NORTH], g[G_SOUTH], g[G_WHITE], g[G_POINT_CELLS]
    colour = pcol[start] if g[G_POINT_COLOURED][start] else WHITE
    closed = True
    border = 0
    openings = 0
    stack[0] = start
    seen[start] = True
    top = 1
    size = 0
    while top > 0:
        if enough > 0 and openings >= enough and (colour != WHITE or border == BOTH_BORDERS):
            # stopped short: unmark the blob, or a later flood of it would stop at its marks
            # and find a part of it closed
            for i in range(size):
                seen[members[i]] = False
            for i in range(top):
                seen[stack[i]] = False
            break
        top -= 1
        q = stack[top]
        members[size] = q
        size += 1
        for k in range(4):
            cell = point_cells[q, k]
            if cell < 0 or cells[cell] == 0:
                closed = False
                if enough > 0 and cell < 0:  # the board's rim: a blob there never closes
                    openings += enough
                elif enough > 0 and stamp[cell] != token:
                    stamp[cell] = token
                    openings += 1
                continue
            p = cells[cell] - 1
            other = -1
            if colour == WHITE:
                # the white corner's region borders the colours of the die's coloured corners
                border |= (1 << _NORTH[p]) | (1 << _SOUTH[p])
                if _FACE[p] == FACE_MIXED:  # the white neck joins the two white corners
                    other = white[cell, 1] if white[cell, 0] == q else white[cell, 0]
            elif _FACE[p] == colour - 1:  # a monochrome face of this colour joins its corners
                other = south[cell] if north[cell] == q else north[cell]
            if other >= 0 and not seen[other]:
                seen[other] = True
                stack[top] = other
                top += 1
    return size, colour, closed, border, openings


@njit(cache=True)
def record_condition(out, colour, closed, border):
    """Note in ``out`` the win condition a blob meets, if any."""
    if not closed:
        return
    if colour != WHITE:
        out[colour - 1] = 1
    elif border == 1 << 1:
        out[CIRCLE_RED] = 1
    elif border == 1 << 2:
        out[CIRCLE_BLUE] = 1


@njit(cache=True)
def conditions(cells, pcol, box, g, out):
    """Fill ``out`` (int64[4]) with the win conditions of the position: a closed Red blob, a
    closed Blue blob, a closed white blob bordered only by Red, and only by Blue."""
    out[:] = 0
    seen = np.zeros(NUM_POINTS, np.bool_)
    stack = np.empty(NUM_POINTS, np.int32)
    members = np.empty(NUM_POINTS, np.int32)
    for r in range(box[0], box[1] + 2):
        for c in range(box[2], box[3] + 2):
            point = (r + HALF) * POINT_SIDE + (c + HALF)
            if seen[point] or not touched(cells, g, point):
                continue
            _, colour, closed, border, _ = flood_blob(cells, pcol, g, point, seen, stack,
                                                      members)
            record_condition(out, colour, closed, border)


@njit(cache=True)
def conditions_after_move(cells, pcol, box, g, new_cells, n_new, out, seen, stack, members):
    """Like :func:`conditions`, but judging only the blobs through a corner of the dice placed
    by the last move (``new_cells[:n_new]``): any other blob is unchanged, and an unchanged
    closed blob gave nobody a win before the move, or the game would be over. ``seen`` (bool,
    one per point) must be all False and is left so."""
    out[:] = 0
    north, south, white = g[G_NORTH], g[G_SOUTH], g[G_WHITE]
    for i in range(n_new):
        cell = new_cells[i]
        for k in range(4):
            if k == 0:
                point = north[cell]
            elif k == 1:
                point = south[cell]
            else:
                point = white[cell, k - 2]
            if not seen[point]:
                _, colour, closed, border, _ = flood_blob(cells, pcol, g, point, seen, stack,
                                                       members)
                record_condition(out, colour, closed, border)
    unsee(seen, box)


@njit(cache=True)
def unsee(seen, box):
    """Clear ``seen`` at every lattice point of the dice within ``box``."""
    for r in range(box[0], box[1] + 2):
        for c in range(box[2], box[3] + 2):
            seen[(r + HALF) * POINT_SIDE + (c + HALF)] = False


@njit(cache=True)
def has_win(cond, colour, mode):
    """Whether the player of ``colour`` (1 Red, 2 Blue) has a win under win mode ``mode``."""
    own = cond[colour - 1] != 0
    circle = cond[CIRCLE_RED + colour - 1] != 0
    if mode == 0:
        return own or circle
    if mode == 1:
        return circle
    if mode == 2:
        return own
    return cond[2 - colour] != 0  # enemy: the opponent's closed blob


@njit(cache=True)
def judge_move(cond, mover, mode):
    """The winner after ``mover``'s whole move, or -1: a win given to the opponent loses even
    when the mover has one too."""
    if has_win(cond, 3 - mover, mode):
        return 3 - mover
    if has_win(cond, mover, mode):
        return mover
    return -1


@njit(cache=True)
def placements_of(cells, g, max_grid, face, out):
    """:func:`legal_placements` of a bare board (its fixed colours and box derived here), in
    one call: the search asks for the moves of every node it expands."""
    pcol = np.zeros(NUM_POINTS, np.int8)
    box = np.zeros(4, np.int32)
    point_colours(cells, g, pcol)
    bounding_box(cells, g, box)
    return legal_placements(cells, pcol, box, max_grid, face, g, out)


@njit(cache=True)
def end_of_move(cells, pcol, box, g, cond, mover, mode, dice_left, max_grid, buf):
    """How ``mover``'s whole move ends the game (docs/games/blobs.md, "Regions and the
    result"), given the win conditions ``cond`` after it and the ``dice_left`` after it: the
    one judgement the rules, the playouts and hand-set positions share. Returns (the winner, 0
    a draw or -1 while the game goes on; the end code; how many legal placements it wrote to
    ``buf``, 0 once the game is over). A win handed to the opponent comes first, even when the
    mover has one too; then the mover's own; then the empty pool; then no placement left."""
    winner = judge_move(cond, mover, mode)
    if winner == 3 - mover:
        return winner, GAVE_WIN, 0
    if winner == mover:
        if mode == 3:
            return winner, ENEMY_BLOB, 0
        if mode != 1 and cond[mover - 1] != 0:
            return winner, OWN_BLOB, 0
        return winner, WHITE_CIRCLE, 0
    if dice_left == 0:
        return 0, POOL_EMPTY, 0
    n = legal_placements(cells, pcol, box, max_grid, -1, g, buf)
    if n == 0:
        return 0, NO_PLACEMENT, 0
    return -1, GOES_ON, n


@njit(cache=True)
def settle(cells, g, mover, mode, dice_left, max_grid, cond):
    """:func:`end_of_move` of a bare board (its fixed colours, box and win conditions derived
    here) that ``mover`` has just moved to: a position read from text. Returns (winner or 0
    or -1, end code)."""
    pcol = np.zeros(NUM_POINTS, np.int8)
    box = np.zeros(4, np.int32)
    point_colours(cells, g, pcol)
    bounding_box(cells, g, box)
    conditions(cells, pcol, box, g, cond)
    buf = np.empty(cells.shape[0] * 4, np.int64)
    outcome, end, _ = end_of_move(cells, pcol, box, g, cond, mover, mode, dice_left, max_grid,
                                  buf)
    return outcome, end


@njit(cache=True)
def advance(cells, g, action, dice_left, mover, mode, max_grid, autos, cond):
    """One whole move on ``cells`` (changed in place) in one call: the die ``action``, its auto
    moves (written to ``autos``), the win conditions after them (``cond``) and
    :func:`end_of_move`. ``dice_left`` counts the dice before the move. Returns (auto moves
    made, the winner or 0 or -1, the end code)."""
    pcol = np.zeros(NUM_POINTS, np.int8)
    box = np.zeros(4, np.int32)
    point_colours(cells, g, pcol)
    bounding_box(cells, g, box)
    place(cells, pcol, box, g, action >> 2, action & 3)
    n = auto_fill(cells, pcol, box, g, dice_left - 1, autos)
    conditions(cells, pcol, box, g, cond)
    buf = np.empty(cells.shape[0] * 4, np.int64)
    outcome, end, _ = end_of_move(cells, pcol, box, g, cond, mover, mode, dice_left - 1 - n,
                                  max_grid, buf)
    return n, outcome, end
