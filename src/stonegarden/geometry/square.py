"""Square Go boards (``size`` × ``size`` points) named as in the Go Text Protocol.

Columns are lettered ``A``..``T`` from the left, skipping ``I``; rows are numbered from the
bottom. Point index ``i = (row - 1) * size + column_index``, so index 0 is ``A1`` (bottom left)
and the dense move action of a point is its index. Built once per size (cached).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from functools import lru_cache

import numpy as np

from ..errors import NotationError, ParameterError, quote

MIN_SIZE, MAX_SIZE = 3, 19
COLUMNS = "ABCDEFGHJKLMNOPQRST"  # no I, as in GTP
#: neighbour directions in table order: north (up a row), south, west, east
NORTH, SOUTH, WEST, EAST = 0, 1, 2, 3
#: side bits of ``SquareBoard.sides``: which board edges a point lies on
SIDE_N, SIDE_S, SIDE_W, SIDE_E = 1, 2, 4, 8
_NAME = re.compile(r"([A-HJ-T])([1-9][0-9]?)")


@dataclass(frozen=True, eq=False)
class SquareBoard:
    """Geometry of one square board. Build it with :func:`square_board` (cached)."""

    size: int
    names: tuple[str, ...]  # GTP name per point index
    index: dict[str, int] = field(repr=False)
    neighbours: np.ndarray = field(repr=False)  # int32 (points, 4) N S W E, -1 off the board
    sides: np.ndarray = field(repr=False)  # int8 per point: SIDE_* bits of the edges it is on
    zobrist: np.ndarray = field(repr=False)  # int64 (points, 3): key per point and content

    @property
    def num_points(self) -> int:
        return self.size * self.size

    def point(self, name: str) -> int:
        """Index of a point name such as ``D4`` (case-insensitive, surrounding spaces allowed).

        Raises:
            NotationError: not a point name, or off this board.
        """
        key = name.strip().upper() if isinstance(name, str) else name
        if not isinstance(key, str) or not _NAME.fullmatch(key):
            raise NotationError(
                f"{quote(name)} is not a point name (a column letter A-T without I, then a row number, "
                "e.g. 'D4')"
            )
        if key not in self.index:
            raise NotationError(f"point {quote(name)} is not on a {self.size}x{self.size} board")
        return self.index[key]

    def move_text(self, action: object, owner: str) -> str:
        """The text of a one-point move (the action is the point index).

        Raises:
            NotationError: not a point of this board (``owner`` names the game in the message).
        """
        if isinstance(action, bool) or not isinstance(action, (int, np.integer)) or not (
            0 <= action < self.num_points
        ):
            raise NotationError(f"{quote(action)} is not an action of {owner}")
        return self.names[int(action)]

    def parse_move(self, text: object, game_title: str) -> int:
        """The point a one-point move names; square-board Go variants have no pass.

        Raises:
            NotationError: not text, ``pass``, or not a point of this board.
        """
        if not isinstance(text, str):
            raise NotationError(f"move text must be a string, not {quote(text)}")
        if text.strip().lower() == "pass":
            raise NotationError(f"{quote(text)}: there is no pass in {game_title}")
        return self.point(text)

    def column_row(self, point: int) -> tuple[int, int]:
        """(column from the west, row from the south), both from 0."""
        return point % self.size, point // self.size

    def at(self, column: int, row: int) -> int:
        """The index of (column from the west, row from the south), both from 0."""
        return row * self.size + column


#: keys mixed into every position hash: the empty board is not 0, and who is to move
EMPTY_BOARD_KEY = np.int64(0x1B873593CC9E2D51)
SIDE_TO_MOVE_KEY = np.int64(0x2545F4914F6CDD1D)


@lru_cache(maxsize=32)
def square_board(size: int) -> SquareBoard:
    """The geometry of a ``size`` × ``size`` board.

    Raises:
        ParameterError: size is not an integer from 3 to 19.
    """
    if isinstance(size, bool) or not isinstance(size, int) or not MIN_SIZE <= size <= MAX_SIZE:
        raise ParameterError(f"board size {size!r} is not an integer from {MIN_SIZE} to {MAX_SIZE}")
    n = size * size
    names = tuple(f"{COLUMNS[i % size]}{i // size + 1}" for i in range(n))
    nb = np.full((n, 4), -1, dtype=np.int32)
    sides = np.zeros(n, dtype=np.int8)
    for i in range(n):
        c, r = i % size, i // size
        if r + 1 < size:
            nb[i, NORTH] = i + size
        else:
            sides[i] |= SIDE_N
        if r > 0:
            nb[i, SOUTH] = i - size
        else:
            sides[i] |= SIDE_S
        if c > 0:
            nb[i, WEST] = i - 1
        else:
            sides[i] |= SIDE_W
        if c + 1 < size:
            nb[i, EAST] = i + 1
        else:
            sides[i] |= SIDE_E
    rng = np.random.default_rng(0x60 + size)
    zob = rng.integers(-(2**63), 2**63 - 1, size=(n, 3), dtype=np.int64)
    zob[:, 0] = 0  # an empty point adds nothing
    for a in (nb, sides, zob):
        a.flags.writeable = False
    return SquareBoard(size, names, {name: i for i, name in enumerate(names)}, nb, sides, zob)


def board_hash(board: SquareBoard, cells: np.ndarray, to_move: int | None = None) -> int:
    """Zobrist hash of a position (``cells`` int8 0 empty, 1, 2); ``to_move`` 2 mixes in the
    side key, ``None`` or 1 does not (Bridge Go's superko is positional: pass ``None``)."""
    h = np.bitwise_xor.reduce(board.zobrist[np.arange(board.num_points), cells.astype(np.intp)])
    h = np.int64(h) ^ EMPTY_BOARD_KEY
    if to_move == 2:
        h ^= SIDE_TO_MOVE_KEY
    return int(h)


# -- text: rows of ``.XO`` characters, and the usual Go diagram ---------------------------------

STONE_CHARS = ".XO"  # empty, player 1 (Black), player 2 (White)
_STONE_CODES = {".": 0, "X": 1, "x": 1, "O": 2, "o": 2}


def rows_text(board: SquareBoard, cells: np.ndarray) -> str:
    """The rows from the top (north) down, joined by ``/``: ``..X/.O./...``."""
    s = board.size
    return "/".join(
        "".join(STONE_CHARS[cells[r * s + c]] for c in range(s)) for r in range(s - 1, -1, -1)
    )


def parse_rows(board: SquareBoard, rows: list[str], source: str) -> np.ndarray:
    """Cells (int8) from rows given from the top down.

    Raises:
        NotationError: wrong number of rows or points, or a character other than ``. X O``.
    """
    s = board.size
    if len(rows) != s:
        raise NotationError(f"{quote(source)}: {len(rows)} rows, a {s}x{s} board has {s}")
    cells = np.zeros(board.num_points, np.int8)
    for top, row in enumerate(rows):
        r = s - 1 - top
        if len(row) != s:
            raise NotationError(f"{quote(source)}: row {r + 1} has {len(row)} points, expected {s}")
        for c, ch in enumerate(row):
            k = _STONE_CODES.get(ch, -1)
            if k < 0:
                raise NotationError(
                    f"{quote(source)}: {quote(ch)} at {COLUMNS[c]}{r + 1} is not one of . X O"
                )
            cells[r * s + c] = k
    return cells


def diagram_lines(board: SquareBoard, cells: np.ndarray) -> list[str]:
    """The board as a Go diagram: column letters above and below, row numbers both sides."""
    s = board.size
    header = "   " + " ".join(COLUMNS[:s])
    lines = [header]
    for r in range(s - 1, -1, -1):
        row = " ".join(STONE_CHARS[cells[r * s + c]] for c in range(s))
        lines.append(f"{r + 1:>2} {row} {r + 1:<2}".rstrip())
    lines.append(header)
    return lines


def parse_diagram_lines(board: SquareBoard, lines: list[str], source: str) -> np.ndarray:
    """Cells from the board lines of a diagram (headers optional, row numbers checked).

    Raises:
        NotationError: rows missing, out of order or malformed.
    """
    s = board.size
    body = [ln.split() for ln in lines if ln.strip()]
    header = list(COLUMNS[:s])
    body = [t for t in body if [x.upper() for x in t] != header]
    rows = []
    for top, tokens in enumerate(body):
        want = str(s - top)
        if len(tokens) < 1 or tokens[0] != want:
            raise NotationError(f"{quote(source)}: line {' '.join(tokens)!r} should start with row "
                                f"number {quote(want)}")
        points = tokens[1:]
        if len(points) == s + 1 and points[-1] == want:
            points = points[:-1]
        rows.append("".join(points))
    return parse_rows(board, rows, source)
