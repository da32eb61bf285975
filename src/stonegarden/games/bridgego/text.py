"""Bridge Go position text (one line, like FEN) and Go-style diagram; both parse back.

Position text: the rows from the top down joined by ``/`` (``.`` empty, ``X`` Black, ``O``
White), the player to move and the ply, e.g. after ``C3`` on 5×5::

    ...../...../..X../...../..... 2 1

The diagram is the usual Go diagram and one status line ``to_move=2 ply=1``. Neither carries
the superko history: a position read from text knows only itself and the empty start. The
reading and writing is shared with Free Go (``games/square_go_notation.py``).
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING

from ..square_go_notation import SquareGoNotation

if TYPE_CHECKING:
    from .rules import BridgeGoState


class BridgeGoNotation(SquareGoNotation["BridgeGoState"]):
    FIELDS = re.compile(r"^([12]) ([0-9]{1,9})$")
    STATUS = re.compile(r"^to_move=([12]) ply=([0-9]{1,9})$")
    FIELDS_HINT = "to-move ply"
    STATUS_HINT = "to_move=.. ply=.."

    def fields(self, state: BridgeGoState) -> str:
        return f"{state.player} {state.ply}"

    def status(self, state: BridgeGoState) -> str:
        return f"to_move={state.player} ply={state.ply}"

    def make_state(self, player: int, ply: int, board: bytes, own: tuple[int, ...]) -> BridgeGoState:
        from .rules import BridgeGoState  # rules imports this module

        return BridgeGoState(player=player, ply=ply, board=board)


NOTATION = BridgeGoNotation()
position_text = NOTATION.position_text
parse_position = NOTATION.parse_position
diagram = NOTATION.diagram
parse_diagram = NOTATION.parse_diagram
