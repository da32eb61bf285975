"""Blooms move text: ``Rd4``, ``Rd4,Yc3`` (the player's first colour first), ``pass``."""

from __future__ import annotations

import re

from ...errors import IllegalMoveError, NotationError, quote
from ...geometry.hexhex import HexBoard

COLOURS = "RYKG"  # colour code - 1; player p owns COLOURS[2p-2], COLOURS[2p-1]
_STONE = re.compile(r"^([a-z])([a-z][0-9]{1,2})$", re.IGNORECASE)


def player_colours(player: int) -> str:
    return COLOURS[2 * player - 2 : 2 * player]


def parse_stones(board: HexBoard, player: int, text: str) -> tuple[int, int] | None:
    """Read ``text`` for ``player``: returns (cell of first colour, cell of second colour), -1
    where absent, or ``None`` for a pass.

    Raises:
        NotationError: malformed text, unknown colour letter, not a cell.
        IllegalMoveError: a colour of the other player, two stones of one colour, one cell twice.
    """
    if not isinstance(text, str):
        raise NotationError(f"move text must be a string, not {quote(text)}")
    t = text.strip()
    if t.lower() == "pass":
        return None
    parts = [p.strip() for p in t.split(",")]
    if not 1 <= len(parts) <= 2 or not all(parts):
        raise NotationError(f"{quote(text)} is not a Blooms move (e.g. 'Rd4', 'Rd4,Yc3' or 'pass')")
    cells = [-1, -1]
    for part in parts:
        m = _STONE.match(part)
        if not m:  # a two-stone text names the part at fault; a one-stone text is that part
            where = f"{quote(text)}: " if len(parts) > 1 else ""
            apart = part.split()
            if len(apart) == 2 and all(_STONE.match(p) for p in apart):  # "Rd4 Yc3"
                raise NotationError(f"{quote(text)}: two stones are joined by a comma, "
                                    f"{quote(','.join(apart))}")
            raise NotationError(f"{where}{quote(part)} is not a stone (colour letter then cell)")
        letter = m.group(1).upper()
        if letter not in COLOURS:
            raise NotationError(f"{quote(text)}: {quote(letter)} is not a colour (R, Y, K or G)")
        cell = board.cell(m.group(2))
        mine = player_colours(player)
        if letter not in mine:
            raise IllegalMoveError(text, f"colour {letter} belongs to player {3 - player}; "
                                         f"player {player} plays {mine[0]} and {mine[1]}")
        k = mine.index(letter)
        if cells[k] >= 0:
            raise IllegalMoveError(text, "a two-stone turn places one stone of each colour")
        cells[k] = cell
    if cells[0] >= 0 and cells[0] == cells[1]:
        raise IllegalMoveError(text, "the two stones must go on different cells")
    return cells[0], cells[1]


def format_stones(board: HexBoard, player: int, a: int, b: int) -> str:
    mine = player_colours(player)
    parts = []
    if a >= 0:
        parts.append(mine[0] + board.names[a])
    if b >= 0:
        parts.append(mine[1] + board.names[b])
    return ",".join(parts)
