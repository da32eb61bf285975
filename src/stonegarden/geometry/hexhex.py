"""Hexhex boards (n cells per side) with optional holes, named as in docs/games/blooms.md.

Rows are lettered from the bottom (``a``); cells in a row are numbered from the left from 1.
In centred axial coordinates (q, r), r growing downward: ``r = (n-1) - L`` and
``q = (k-1) - (n-1) - min(0, r)`` for row letter index L and number k. Holes are not cells:
they get no index and appear in no neighbour list.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from functools import lru_cache

import numpy as np

from ..errors import NotationError, ParameterError, quote

MIN_SIZE, MAX_SIZE = 2, 12
#: axial directions; order is fixed so neighbour tables are reproducible
DIRECTIONS = ((1, 0), (-1, 0), (0, 1), (0, -1), (1, -1), (-1, 1))
_NAME = re.compile(r"^([a-w])([1-9][0-9]?)$")


@dataclass(frozen=True, eq=False)
class HexBoard:
    """Geometry of one hexhex board. Build it with :func:`hex_board` (cached)."""

    size: int
    holes: tuple[str, ...]
    coords: tuple[tuple[int, int], ...]  # (q, r) per cell index
    names: tuple[str, ...]  # name per cell index
    index: dict[str, int] = field(repr=False)
    neighbours: np.ndarray = field(repr=False)  # int32 (cells, 6), -1 padded
    rows: tuple[tuple[int | None, ...], ...] = field(repr=False)  # per row from 'a': index or None (hole)

    @property
    def num_cells(self) -> int:
        return len(self.names)

    def cell(self, name: str) -> int:
        """Index of a cell name (case-insensitive).

        Raises:
            NotationError: not a cell name, off the board, or a hole.
        """
        key = name.strip().lower() if isinstance(name, str) else name
        if not isinstance(key, str) or not _NAME.match(key):
            raise NotationError(f"{quote(name)} is not a cell name (a row letter then a number, e.g. 'd4')")
        if key not in self.index:
            if key in self.holes:
                raise NotationError(f"cell {quote(name)} is a hole on this board")
            raise NotationError(f"cell {quote(name)} is not on a size-{self.size} board")
        return self.index[key]


def row_length(size: int, letter_index: int) -> int:
    return 2 * size - 1 - abs((size - 1) - letter_index)


def all_names(size: int) -> list[str]:
    """Every cell name of the full board, row ``a`` first."""
    return [
        f"{chr(ord('a') + L)}{k}"
        for L in range(2 * size - 1)
        for k in range(1, row_length(size, L) + 1)
    ]


def name_to_axial(size: int, name: str) -> tuple[int, int]:
    L = ord(name[0]) - ord("a")
    k = int(name[1:])
    r = (size - 1) - L
    q = (k - 1) - (size - 1) - min(0, r)
    return q, r


@lru_cache(maxsize=64)
def hex_board(size: int, holes: tuple[str, ...] = ()) -> HexBoard:
    """The geometry of a size-``size`` board with the named cells removed.

    Raises:
        ParameterError: size out of 2..12, or a hole that is not a cell name of the board.
    """
    if isinstance(size, bool) or not isinstance(size, int) or not MIN_SIZE <= size <= MAX_SIZE:
        raise ParameterError(f"board size {size!r} is not an integer from {MIN_SIZE} to {MAX_SIZE}")
    full = all_names(size)
    full_set = set(full)
    hole_set: set[str] = set()
    for h in holes:
        key = h.strip().lower() if isinstance(h, str) else h
        if key not in full_set:
            raise ParameterError(f"hole {h!r} is not a cell of a size-{size} board")
        hole_set.add(key)
    names = tuple(n for n in full if n not in hole_set)
    coords = tuple(name_to_axial(size, n) for n in names)
    index = {n: i for i, n in enumerate(names)}
    by_coord = {c: i for i, c in enumerate(coords)}
    nb = np.full((len(names), 6), -1, dtype=np.int32)
    for i, (q, r) in enumerate(coords):
        for d, (dq, dr) in enumerate(DIRECTIONS):
            nb[i, d] = by_coord.get((q + dq, r + dr), -1)
    nb.flags.writeable = False
    rows = tuple(
        tuple(index.get(f"{chr(ord('a') + L)}{k}") for k in range(1, row_length(size, L) + 1))
        for L in range(2 * size - 1)
    )
    canonical_holes = tuple(n for n in full if n in hole_set)
    return HexBoard(size, canonical_holes, coords, names, index, nb, rows)
