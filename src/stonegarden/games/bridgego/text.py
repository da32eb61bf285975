"""Bridge Go position text (one line, like FEN) and Go-style diagram; both parse back.

Position text: the rows from the top down joined by ``/`` (``.`` empty, ``X`` Black, ``O``
White), the player to move and the ply, e.g. after ``C3`` on 5×5::

    ...../...../..X../...../..... 2 1

The diagram is the usual Go diagram and one status line ``to_move=2 ply=1``. Neither carries
the superko history: a position read from text knows only itself and the empty start.
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
    from .rules import BridgeGoState

_STATUS = re.compile(r"^to_move=([12]) ply=(\d+)$")
_FIELDS = re.compile(r"^([12]) (\d+)$")


def position_text(board: SquareBoard, state: BridgeGoState) -> str:
    return f"{rows_text(board, state.cells())} {state.player} {state.ply}"


def _make_state(raw: bytes, fields: tuple[str, ...], source: str) -> BridgeGoState:
    from .rules import BridgeGoState

    player, ply = (int(f) for f in fields)
    if player != 1 + ply % 2:
        raise PositionError(
            f"{source!r}: at ply {ply} player {1 + ply % 2} is to move, not {player}"
        )
    if ply == 0 and any(raw):
        raise PositionError(f"{source!r}: stones on the board at ply 0")
    return BridgeGoState(player=player, ply=ply, board=raw)


def parse_position(board: SquareBoard, text: str) -> BridgeGoState:
    """Raises: NotationError (malformed), PositionError (impossible here)."""
    if not isinstance(text, str):
        raise NotationError(f"position text must be a string, not {text!r}")
    rows, _, rest = text.strip().partition(" ")
    m = _FIELDS.match(" ".join(rest.split()))
    if not m:
        raise NotationError(f"{text!r}: expected the rows, then 'to-move ply'")
    cells = parse_rows(board, rows.split("/"), text)
    return _make_state(cells.tobytes(), m.groups(), text)


def diagram(board: SquareBoard, state: BridgeGoState) -> str:
    status = f"to_move={state.player} ply={state.ply}"
    return "\n".join([*diagram_lines(board, state.cells()), status])


def parse_diagram(board: SquareBoard, text: str) -> BridgeGoState:
    """Raises: NotationError (malformed), PositionError (impossible here)."""
    if not isinstance(text, str):
        raise NotationError(f"diagram must be a string, not {text!r}")
    lines = [ln for ln in text.strip().splitlines() if ln.strip()]
    if not lines:
        raise NotationError(f"{text!r}: empty diagram")
    m = _STATUS.match(lines[-1].strip())
    if not m:
        raise NotationError(f"{text!r}: the last line must be the status line 'to_move=.. ply=..'")
    cells = parse_diagram_lines(board, lines[:-1], text)
    return _make_state(cells.tobytes(), m.groups(), text)
