"""Blobs position text (one line) and diagram (server-style blocks); both parse back.

Position text: the dice in row-major order (north to south, west to east) in the full move form,
joined by commas, then the player who places next, the dice left in the pool, the ply (record
entries so far) and the roll (``-`` without Tumbling Dice, ``?`` when a roll is due, else the
rolled face ``R``, ``B`` or ``M``). The initial position of the default game is::

    h8:RB 2 47 0 -

The diagram is :func:`ascii_art.ascii_board` of the dice (one empty cell of margin) followed by a
status line ``to_place=2 dice_left=47 ply=0 roll=-``.

Both readers return the raw fields; ``rules.BlobsGame`` checks that the position can arise.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from ...errors import NotationError, quote
from .ascii_art import ascii_board, parse_blocks
from .lattice import FACES, cell_rc
from .notation import full_text, parse_move_text

ROLL_CHARS = "-?" + FACES  # no roll, roll due, then the faces R, B, M
_STATUS = re.compile(r"to_place=([12]) dice_left=([0-9]{1,4}) ply=([0-9]{1,5}) roll=([-?RBM])")


@dataclass(frozen=True)
class PositionFields:
    """A position as written: placements by (r, c), the player to place, dice left, ply, and
    the roll character (one of ``- ? R B M``)."""

    placements: dict[tuple[int, int], int]
    to_place: int
    dice_left: int
    ply: int
    roll: str


def placements_of(cells: bytes) -> dict[tuple[int, int], int]:
    """(r, c) -> placement code of every die, in row-major order."""
    return {cell_rc(i): v - 1 for i, v in enumerate(cells) if v}


def position_text(fields: PositionFields) -> str:
    dice = ",".join(full_text(r, c, p) for (r, c), p in sorted(fields.placements.items()))
    return f"{dice} {fields.to_place} {fields.dice_left} {fields.ply} {fields.roll}"


def parse_position_fields(text: str) -> PositionFields:
    """Raises: NotationError (malformed text, a die not in the full form, a cell twice)."""
    if not isinstance(text, str):
        raise NotationError(f"position text must be a string, not {quote(text)}")
    parts = text.split()
    if len(parts) != 5:
        raise NotationError(
            f"{quote(text)}: expected 5 fields (dice, to-place, dice left, ply, roll)"
        )
    dice, to_place, left, ply, roll = parts
    if not (to_place in ("1", "2") and re.fullmatch(r"[0-9]{1,4}", left)
            and re.fullmatch(r"[0-9]{1,5}", ply) and len(roll) == 1
            and roll.upper() in ROLL_CHARS):
        raise NotationError(f"{quote(text)}: malformed fields after the dice")
    placements: dict[tuple[int, int], int] = {}
    for entry in dice.split(","):
        move = parse_move_text(entry)
        if move.cell is None or move.placement is None:
            raise NotationError(
                f"{quote(text)}: {quote(entry)} is not a die in the full form (e.g. 'h8:RB')"
            )
        if move.cell in placements:
            raise NotationError(f"{quote(text)}: two dice on the cell of {quote(entry)}")
        placements[move.cell] = move.placement
    return PositionFields(placements, int(to_place), int(left), int(ply), roll.upper())


def diagram(fields: PositionFields) -> str:
    status = (f"to_place={fields.to_place} dice_left={fields.dice_left} ply={fields.ply} "
              f"roll={fields.roll}")
    return ascii_board(fields.placements) + "\n" + status


def parse_diagram_fields(text: str) -> PositionFields:
    """Raises: NotationError (no status line, bad labels, a block that is not a die)."""
    if not isinstance(text, str):
        raise NotationError(f"diagram must be a string, not {quote(text)}")
    lines = text.strip("\n").splitlines()
    while lines and not lines[0].strip():
        lines.pop(0)
    while lines and not lines[-1].strip():
        lines.pop()
    if not lines:
        raise NotationError(f"{quote(text)}: empty diagram")
    m = _STATUS.fullmatch(lines[-1].strip())
    if not m:
        raise NotationError(
            f"{quote(text)}: the last line must be the status line "
            "'to_place=.. dice_left=.. ply=.. roll=..'"
        )
    placements = parse_blocks(lines[:-1], text)
    return PositionFields(placements, int(m.group(1)), int(m.group(2)), int(m.group(3)),
                          m.group(4))
