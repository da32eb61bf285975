"""Free Go position text (one line, like FEN) and Go-style diagram; both parse back.

Position text: the rows from the top down joined by ``/`` (``.`` empty, ``X`` Black, ``O``
White), the player to move, the capture scores ``s1,s2`` and the ply, e.g. after ``C3`` on 5×5::

    ...../...../..X../...../..... 2 0,0 1

The diagram is the usual Go diagram (column letters, row numbers) and one status line
``to_move=2 scores=0,0 ply=1``. Neither carries the ko history: a position read from text
starts a fresh one (as a FEN carries no repetition history).
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING

from ...errors import NotationError, PositionError
from ...geometry.square import (
    SquareBoard,
    diagram_lines,
    parse_diagram_lines,
    parse_rows,
    rows_text,
)

if TYPE_CHECKING:
    from .rules import FreeGoState

_STATUS = re.compile(r"^to_move=([12]) scores=(\d+),(\d+) ply=(\d+)$")
_FIELDS = re.compile(r"^([12]) (\d+),(\d+) (\d+)$")


def position_text(board: SquareBoard, state: FreeGoState) -> str:
    s1, s2 = state.scores
    return f"{rows_text(board, state.cells())} {state.player} {s1},{s2} {state.ply}"


def _make_state(raw: bytes, fields: tuple[str, ...], source: str) -> FreeGoState:
    from .rules import FreeGoState

    player, s1, s2, ply = (int(f) for f in fields)
    if player != 1 + ply % 2:
        raise PositionError(
            f"{source!r}: at ply {ply} player {1 + ply % 2} is to move, not {player}"
        )
    if ply == 0 and any(raw):
        raise PositionError(f"{source!r}: stones on the board at ply 0")
    return FreeGoState(player=player, ply=ply, board=raw, scores=(s1, s2))


def parse_position(board: SquareBoard, text: str) -> FreeGoState:
    """Raises: NotationError (malformed), PositionError (impossible here)."""
    if not isinstance(text, str):
        raise NotationError(f"position text must be a string, not {text!r}")
    rows, _, rest = text.strip().partition(" ")
    m = _FIELDS.match(" ".join(rest.split()))
    if not m:
        raise NotationError(f"{text!r}: expected the rows, then 'to-move s1,s2 ply'")
    cells = parse_rows(board, rows.split("/"), text)
    return _make_state(cells.tobytes(), m.groups(), text)


def diagram(board: SquareBoard, state: FreeGoState) -> str:
    s1, s2 = state.scores
    status = f"to_move={state.player} scores={s1},{s2} ply={state.ply}"
    return "\n".join([*diagram_lines(board, state.cells()), status])


def parse_diagram(board: SquareBoard, text: str) -> FreeGoState:
    """Raises: NotationError (malformed), PositionError (impossible here)."""
    if not isinstance(text, str):
        raise NotationError(f"diagram must be a string, not {text!r}")
    lines = [ln for ln in text.strip().splitlines() if ln.strip()]
    if not lines:
        raise NotationError(f"{text!r}: empty diagram")
    m = _STATUS.match(lines[-1].strip())
    if not m:
        raise NotationError(f"{text!r}: the last line must be the status line "
                            "'to_move=.. scores=..,.. ply=..'")
    cells = parse_diagram_lines(board, lines[:-1], text)
    return _make_state(cells.tobytes(), m.groups(), text)
