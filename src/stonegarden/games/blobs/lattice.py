"""The lattice-point model of Blobs (docs/games/blobs.md): the whole game's geometry.

Cells are (r, c), r growing south, c east; lattice point (r, c) is the north-west corner of cell
(r, c). Every die is the same Truchet tile, and "edges and corners must match" means that every
lattice point touched by dice has one colour. Every face has its coloured corners on one
diagonal, so with the opening die at (0, 0) the points with r + c even are the coloured ones:

- a cell with r + c even is a "\\" cell, coloured at NW and SE;
- otherwise it is a "/" cell, coloured at NE and SW.

A placement is therefore the pair of colours of the cell's two coloured corners, northern corner
first: ``RR`` (Red face), ``BB`` (Blue face), ``RB`` and ``BR`` (the Mixed face turned). Faces and
rotations below are derived from that pair and the cell's parity, never tabulated.

The game lives on a virtual 15 x 15 board of cells, r and c in -7..7 (the bounding box of at most
8 x 8 dice always holds the opening die, so it fits), and a 16 x 16 grid of points, -7..8.
Everything is flattened into index tables built once, for the kernels.
"""

from __future__ import annotations

import numpy as np

#: cells per side of the virtual board, and the coordinate of its centre (the opening die)
SIDE = 15
HALF = 7
NUM_CELLS = SIDE * SIDE
POINT_SIDE = SIDE + 1
NUM_POINTS = POINT_SIDE * POINT_SIDE
#: the largest bounding box that always fits on the virtual board around the opening die
MAX_GRID = HALF + 1

#: colour codes of lattice points (0 = not fixed yet)
UNFIXED, RED, BLUE, WHITE = 0, 1, 2, 3
COLOUR_LETTERS = {RED: "R", BLUE: "B", WHITE: "W"}
LETTER_COLOURS = {"R": RED, "B": BLUE}

#: placements (index = placement code); each names the northern then the southern coloured corner
PLACEMENTS = ("RR", "BB", "RB", "BR")
NORTH = np.array([LETTER_COLOURS[p[0]] for p in PLACEMENTS], np.int8)
SOUTH = np.array([LETTER_COLOURS[p[1]] for p in PLACEMENTS], np.int8)
#: face letters: a die showing one colour at both coloured corners is that colour's face
FACES = "RBM"
FACE_RED, FACE_BLUE, FACE_MIXED = 0, 1, 2


def face_of(placement: int) -> int:
    """The face type (``FACE_RED``, ``FACE_BLUE`` or ``FACE_MIXED``) of a placement code."""
    n, s = int(NORTH[placement]), int(SOUTH[placement])
    if n != s:
        return FACE_MIXED
    return FACE_RED if n == RED else FACE_BLUE


#: face type of each placement code, for the kernels
FACE_OF = np.array([face_of(p) for p in range(len(PLACEMENTS))], np.int8)


def placement_of(north: int, south: int) -> int:
    """The placement code whose coloured corners are ``north`` then ``south`` (RED or BLUE)."""
    return PLACEMENTS.index(COLOUR_LETTERS[north] + COLOUR_LETTERS[south])


def is_backslash(r: int, c: int) -> bool:
    """Whether cell (r, c) has its coloured corners at NW and SE (a "\\" cell)."""
    return (r + c) % 2 == 0


def coloured_corners(r: int, c: int) -> tuple[tuple[int, int], tuple[int, int]]:
    """The (northern, southern) coloured lattice points of cell (r, c)."""
    if is_backslash(r, c):
        return (r, c), (r + 1, c + 1)
    return (r, c + 1), (r + 1, c)


def white_corners(r: int, c: int) -> tuple[tuple[int, int], tuple[int, int]]:
    """The two white lattice points of cell (r, c), northern first."""
    if is_backslash(r, c):
        return (r, c + 1), (r + 1, c)
    return (r, c), (r + 1, c + 1)


def corner_colours(r: int, c: int, placement: int) -> tuple[int, int, int, int]:
    """Colours at the NW, NE, SE, SW corners of cell (r, c) holding ``placement``."""
    n, s = int(NORTH[placement]), int(SOUTH[placement])
    if is_backslash(r, c):
        return n, WHITE, s, WHITE
    return WHITE, n, WHITE, s


# -- flat indices -----------------------------------------------------------------------------
def on_board(r: int, c: int) -> bool:
    return -HALF <= r <= HALF and -HALF <= c <= HALF


def cell_index(r: int, c: int) -> int:
    return (r + HALF) * SIDE + (c + HALF)


def cell_rc(index: int) -> tuple[int, int]:
    r, c = divmod(index, SIDE)
    return r - HALF, c - HALF


def point_index(r: int, c: int) -> int:
    return (r + HALF) * POINT_SIDE + (c + HALF)


def point_rc(index: int) -> tuple[int, int]:
    r, c = divmod(index, POINT_SIDE)
    return r - HALF, c - HALF


#: edge directions (north, west, east, south): row-major order of the neighbours
EDGE_STEPS = ((-1, 0), (0, -1), (0, 1), (1, 0))
#: the four cells around lattice point (r, c): NW, NE, SW, SE of the point
POINT_CELL_STEPS = ((-1, -1), (-1, 0), (0, -1), (0, 0))


def _build_tables() -> dict[str, np.ndarray]:
    cell_r = np.empty(NUM_CELLS, np.int32)
    cell_c = np.empty(NUM_CELLS, np.int32)
    north = np.empty(NUM_CELLS, np.int32)
    south = np.empty(NUM_CELLS, np.int32)
    white = np.empty((NUM_CELLS, 2), np.int32)
    edge_nb = np.full((NUM_CELLS, 4), -1, np.int32)
    for i in range(NUM_CELLS):
        r, c = cell_rc(i)
        cell_r[i], cell_c[i] = r, c
        (nr, nc), (sr, sc) = coloured_corners(r, c)
        north[i], south[i] = point_index(nr, nc), point_index(sr, sc)
        for k, (wr, wc) in enumerate(white_corners(r, c)):
            white[i, k] = point_index(wr, wc)
        for k, (dr, dc) in enumerate(EDGE_STEPS):
            if on_board(r + dr, c + dc):
                edge_nb[i, k] = cell_index(r + dr, c + dc)
    point_cells = np.full((NUM_POINTS, 4), -1, np.int32)
    for p in range(NUM_POINTS):
        r, c = point_rc(p)
        for k, (dr, dc) in enumerate(POINT_CELL_STEPS):
            if on_board(r + dr, c + dc):
                point_cells[p, k] = cell_index(r + dr, c + dc)
    point_coloured = np.array([(sum(point_rc(p)) % 2 == 0) for p in range(NUM_POINTS)], np.bool_)
    tables = {
        "cell_r": cell_r, "cell_c": cell_c, "north": north, "south": south, "white": white,
        "edge_nb": edge_nb, "point_cells": point_cells, "point_coloured": point_coloured,
    }
    for arr in tables.values():
        arr.flags.writeable = False
    return tables


#: index tables for the kernels: per cell its (r, c), its northern and southern coloured points,
#: its two white points and its edge neighbours (N, W, E, S; -1 off the board); per point its
#: four cells (-1 off the board) and whether it is a coloured point
TABLES = _build_tables()
CELL_R = TABLES["cell_r"]
CELL_C = TABLES["cell_c"]
CELL_NORTH = TABLES["north"]
CELL_SOUTH = TABLES["south"]
CELL_WHITE = TABLES["white"]
EDGE_NB = TABLES["edge_nb"]
POINT_CELLS = TABLES["point_cells"]
POINT_COLOURED = TABLES["point_coloured"]
OPENING_CELL = cell_index(0, 0)
OPENING_PLACEMENT = PLACEMENTS.index("RB")  # red at NW, blue at SE
