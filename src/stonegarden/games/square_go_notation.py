"""Position text and diagram of the square-board Go games (Free Go, Bridge Go); both parse back.

Position text: the rows from the top down joined by ``/`` (``.`` empty, ``X`` Black, ``O``
White), then the player to move, the game's own fields and the ply. The diagram is the usual Go
diagram and one status line ``to_move=.. <own fields> ply=..``. A game says only what its own
fields are (a subclass of :class:`SquareGoNotation`); the rows, the checks every game needs and
the error messages are here once.
"""

from __future__ import annotations

import re
from abc import ABC, abstractmethod
from typing import ClassVar, Generic

from ..errors import NotationError, PositionError, quote
from ..geometry.square import (
    SquareBoard,
    diagram_lines,
    parse_diagram_lines,
    parse_rows,
    rows_text,
)
from .square_go import S


class SquareGoNotation(ABC, Generic[S]):
    """One game's text after the rows, and the shared reading and writing around it."""

    #: the text after the rows, and the diagram's status line; each captures, as integers, the
    #: player to move, the game's own fields, then the ply
    FIELDS: ClassVar[re.Pattern[str]]
    STATUS: ClassVar[re.Pattern[str]]
    #: what error messages quote as the expected form of each
    FIELDS_HINT: ClassVar[str]
    STATUS_HINT: ClassVar[str]

    @abstractmethod
    def fields(self, state: S) -> str:
        """The text after the rows, as ``FIELDS`` reads it."""

    @abstractmethod
    def status(self, state: S) -> str:
        """The diagram's status line, as ``STATUS`` reads it."""

    @abstractmethod
    def make_state(self, player: int, ply: int, board: bytes, own: tuple[int, ...]) -> S:
        """The state from checked values; ``own`` holds the game's own fields in order."""

    def position_text(self, board: SquareBoard, state: S) -> str:
        return f"{rows_text(board, state.cells())} {self.fields(state)}"

    def parse_position(self, board: SquareBoard, text: str) -> S:
        """Raises: NotationError (malformed), PositionError (impossible here)."""
        if not isinstance(text, str):
            raise NotationError(f"position text must be a string, not {quote(text)}")
        # fields apart by any whitespace (a tab pasted from a table), as Blooms' and Blobs' are
        rows, *fields = text.split() or [""]
        m = self.FIELDS.match(" ".join(fields))
        if not m:
            raise NotationError(f"{quote(text)}: expected the rows, then '{self.FIELDS_HINT}'")
        cells = parse_rows(board, rows.split("/"), text)
        return self._state(cells.tobytes(), m.groups(), text)

    def diagram(self, board: SquareBoard, state: S) -> str:
        return "\n".join([*diagram_lines(board, state.cells()), self.status(state)])

    def parse_diagram(self, board: SquareBoard, text: str) -> S:
        """Raises: NotationError (malformed), PositionError (impossible here)."""
        if not isinstance(text, str):
            raise NotationError(f"diagram must be a string, not {quote(text)}")
        lines = [ln for ln in text.strip().splitlines() if ln.strip()]
        if not lines:
            raise NotationError(f"{quote(text)}: empty diagram")
        m = self.STATUS.match(lines[-1].strip())
        if not m:
            raise NotationError(
                f"{quote(text)}: the last line must be the status line '{self.STATUS_HINT}'"
            )
        cells = parse_diagram_lines(board, lines[:-1], text)
        return self._state(cells.tobytes(), m.groups(), text)

    def _state(self, raw: bytes, groups: tuple[str, ...], source: str) -> S:
        """Raises: PositionError (the wrong player to move for the ply, or stones at ply 0)."""
        player, *own, ply = (int(g) for g in groups)
        if player != 1 + ply % 2:
            raise PositionError(
                f"{source!r}: at ply {ply} player {1 + ply % 2} is to move, not {player}"
            )
        if ply == 0 and any(raw):
            raise PositionError(f"{source!r}: stones on the board at ply 0")
        return self.make_state(player, ply, raw, tuple(own))
