"""Blobs move text (docs/games/blobs.md "Notation").

Cells sit on a virtual 15 x 15 board: files ``a``..``o`` west to east (file = c + 7), ranks
``1``..``15`` south to north (rank = 8 - r); the opening die is on ``h8``. A move is the cell then
the face letter (``h9M``, ``g8R``: canonical, unambiguous between moves because every frontier
cell has exactly one coloured corner fixed), or the cell and the colours of its northern then
southern coloured corner (``h9:BR``, the full form). A Tumbling Dice roll is ``roll:R``,
``roll:B`` or ``roll:M``. Everything is read case-insensitively, surrounding whitespace ignored.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from ...errors import NotationError, quote
from .lattice import FACES, HALF, PLACEMENTS, SIDE, face_of

FILES = "abcdefghijklmno"
_CELL = re.compile(r"([a-z])([0-9]{1,2})")
_MOVE = re.compile(r"([a-z])([0-9]{1,2})(?::([a-z]{2})|([a-z]))")
_ROLL = re.compile(r"roll:([a-z])")


def cell_name(r: int, c: int) -> str:
    """``h8`` for (0, 0)."""
    return f"{FILES[c + HALF]}{HALF + 1 - r}"


def _cell_from_match(text: str, file: str, rank: str) -> tuple[int, int]:
    f = FILES.find(file)
    n = int(rank)
    if f < 0 or not 1 <= n <= SIDE or rank.startswith("0"):
        raise NotationError(
            f"{quote(text)}: {file}{rank} is not a cell (files a..o, ranks 1..15)"
        )
    return HALF + 1 - n, f - HALF


def parse_cell(text: str) -> tuple[int, int]:
    """(r, c) of a cell name such as ``h8``.

    Raises:
        NotationError: not a cell name of the virtual 15 x 15 board.
    """
    if not isinstance(text, str):
        raise NotationError(f"a cell name is text, not {quote(text)}")
    m = _CELL.fullmatch(text.strip().lower())
    if not m:
        raise NotationError(f"{quote(text)} is not a cell name (a file a..o then a rank 1..15)")
    return _cell_from_match(text, m.group(1), m.group(2))


@dataclass(frozen=True)
class MoveText:
    """A move as read: a roll (``roll`` is the face index, cell is ``None``), or a placement on
    ``cell`` given by its full ``placement`` code or only by its face index ``face``."""

    cell: tuple[int, int] | None = None
    placement: int | None = None
    face: int | None = None
    roll: int | None = None


def parse_move_text(text: str, rolls: bool = True) -> MoveText:
    """Read a move's text without any position; ``rolls``: whether a roll is among the moves the
    reader could mean (a Tumbling Dice record's entry), and so among the examples an error gives
    (not to a player at their turn, who never types one).

    Raises:
        NotationError: malformed text, a cell off the virtual board, an unknown face or colour.
    """
    if not isinstance(text, str):
        raise NotationError(f"move text must be a string, not {quote(text)}")
    t = text.strip().lower()
    m = _ROLL.fullmatch(t)
    if m:
        face = FACES.lower().find(m.group(1))
        if face < 0:
            raise NotationError(f"{quote(text)}: a roll gives R, B or M, not {m.group(1).upper()!r}")
        return MoveText(roll=face)
    if t == "pass":  # a Go player's word: the game always has a die to place or ends
        raise NotationError(f"{quote(text)}: there is no pass in Blobs")
    m = _MOVE.fullmatch(t)
    if not m:
        examples = "'h9M', 'g8R', 'h9:BR' or 'roll:M'" if rolls else "'h9M', 'g8R' or 'h9:BR'"
        raise NotationError(f"{quote(text)} is not a Blobs move (e.g. {examples})")
    cell = _cell_from_match(text, m.group(1), m.group(2))
    if m.group(3) is not None:
        colours = m.group(3).upper()
        if colours not in PLACEMENTS:
            raise NotationError(
                f"{quote(text)}: {quote(colours)} is not two corner colours (RR, BB, RB or BR)"
            )
        return MoveText(cell=cell, placement=PLACEMENTS.index(colours))
    face = FACES.lower().find(m.group(4))
    if face < 0:
        raise NotationError(f"{quote(text)}: the face is R, B or M, not {m.group(4).upper()!r}")
    return MoveText(cell=cell, face=face)


def short_text(r: int, c: int, placement: int) -> str:
    """The canonical form: cell then face letter (``h9M``)."""
    return f"{cell_name(r, c)}{FACES[face_of(placement)]}"


def full_text(r: int, c: int, placement: int) -> str:
    """The full form: cell, colon, northern and southern corner colours (``h9:BR``)."""
    return f"{cell_name(r, c)}:{PLACEMENTS[placement]}"


def roll_text(face: int) -> str:
    return f"roll:{FACES[face]}"
