"""Free Go position text (one line, like FEN) and Go-style diagram; both parse back.

Position text: the rows from the top down joined by ``/`` (``.`` empty, ``X`` Black, ``O``
White), the player to move, the capture scores ``s1,s2`` and the ply, e.g. after ``C3`` on 5×5::

    ...../...../..X../...../..... 2 0,0 1

The diagram is the usual Go diagram (column letters, row numbers) and one status line
``to_move=2 scores=0,0 ply=1``. Neither carries the ko history: a position read from text
starts a fresh one (as a FEN carries no repetition history). The reading and writing around
the scores is shared with Bridge Go (``games/square_go_notation.py``).
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING

from ..square_go_notation import SquareGoNotation

if TYPE_CHECKING:
    from .rules import FreeGoState


class FreeGoNotation(SquareGoNotation["FreeGoState"]):
    FIELDS = re.compile(r"^([12]) ([0-9]{1,9}),([0-9]{1,9}) ([0-9]{1,9})$")
    STATUS = re.compile(r"^to_move=([12]) scores=([0-9]{1,9}),([0-9]{1,9}) ply=([0-9]{1,9})$")
    FIELDS_HINT = "to-move s1,s2 ply"
    STATUS_HINT = "to_move=.. scores=..,.. ply=.."

    def fields(self, state: FreeGoState) -> str:
        s1, s2 = state.scores
        return f"{state.player} {s1},{s2} {state.ply}"

    def status(self, state: FreeGoState) -> str:
        s1, s2 = state.scores
        return f"to_move={state.player} scores={s1},{s2} ply={state.ply}"

    def make_state(self, player: int, ply: int, board: bytes, own: tuple[int, ...]) -> FreeGoState:
        from .rules import FreeGoState  # rules imports this module

        s1, s2 = own
        return FreeGoState(player=player, ply=ply, board=board, scores=(s1, s2))


NOTATION = FreeGoNotation()
position_text = NOTATION.position_text
parse_position = NOTATION.parse_position
diagram = NOTATION.diagram
parse_diagram = NOTATION.parse_diagram
