"""Blooms position text (one line, like FEN) and ASCII diagram; both parse back.

Position text: rows from the top row down, joined by ``/``, one character per cell (``.`` empty,
``R Y K G`` stones, ``-`` hole), then the player to move, the capture scores ``s1,s2``, the ply,
the consecutive passes and the first passer (0 if none), e.g. for an empty size-2 board::

    ../.../.. 1 0,0 0 0 0

The diagram draws the same rows as a hexagon with row letters and ends with one status line of
``key=value`` fields.
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING

import numpy as np

from ...errors import NotationError, PositionError, quote
from ...geometry.hexhex import HexBoard, row_length

if TYPE_CHECKING:
    from .rules import BloomsState

CHARS = ".RYKG"
#: a count in a position text or a status line: ASCII digits, few enough for ``int`` (a ply of
#: thousands of digits, or a non-ASCII digit such as "²", passed ``isdigit`` and then broke it)
#: a ruler of cell numbers (one line, or tens over units from size 10)
_RULER = re.compile(r"[0-9 ]+")
_NUMBER = re.compile(r"[0-9]{1,9}")
_STATUS = re.compile(
    r"^to_move=([12]) scores=([0-9]{1,9}),([0-9]{1,9}) ply=([0-9]{1,9}) passes=([0-9]{1,9})"
    r" first_passer=([012])$"
)


def _rows_top_down(board: HexBoard, cells: np.ndarray) -> list[str]:
    rows = []
    for row in reversed(board.rows):
        rows.append("".join("-" if i is None else CHARS[cells[i]] for i in row))
    return rows


def position_text(board: HexBoard, state: BloomsState) -> str:
    rows = "/".join(_rows_top_down(board, state.cells()))
    s1, s2 = state.scores
    return f"{rows} {state.player} {s1},{s2} {state.ply} {state.passes} {state.first_passer}"


def _board_from_rows(board: HexBoard, rows: list[str], source: str) -> bytes:
    n = board.size
    if len(rows) != 2 * n - 1:
        raise NotationError(f"{quote(source)}: {len(rows)} rows, a size-{n} board has {2 * n - 1}")
    cells = np.zeros(board.num_cells, np.int8)
    for top_index, text in enumerate(rows):
        L = 2 * n - 2 - top_index
        letter = chr(ord("a") + L)
        if len(text) != row_length(n, L):
            raise NotationError(
                f"{quote(source)}: row {letter} has {len(text)} cells, expected {row_length(n, L)}"
            )
        for k, ch in enumerate(text.upper()):
            idx = board.rows[L][k]
            if ch == "-":
                if idx is not None:
                    raise PositionError(f"{source!r}: {letter}{k + 1} is marked as a hole but is a cell")
                continue
            if idx is None:
                raise PositionError(f"{source!r}: {letter}{k + 1} is a hole, not {ch!r}")
            if ch not in CHARS:
                raise NotationError(
                    f"{quote(source)}: {quote(ch)} at {letter}{k + 1} is not one of . R Y K G -")
            cells[idx] = CHARS.index(ch)
    return cells.tobytes()


def _passes_fit(ply: int, passes: int, first: int, first_turn_passes: bool = False) -> bool:
    """Whether a game of ``ply`` turns, whose first turn is a stone, can end with ``passes``
    consecutive passes and have had its first pass by player ``first`` (0: nobody passed).
    With ``first_turn_passes`` the first turn may be a pass too (to tell why a pair does not
    fit)."""
    if passes > 2 or passes > (ply if first_turn_passes else max(ply - 1, 0)):
        return False
    if not first:
        return passes == 0
    trailing = range(ply - passes, ply)  # passes; the turn before them was not one
    for turn in range(0 if first_turn_passes else 1, ply):  # the first pass of the game, by
        # player 1 at even turns
        if 1 + turn % 2 != first or turn == ply - passes - 1:
            continue
        if all(p > turn or 1 + p % 2 == first for p in trailing):
            return True
    return False


def _why_passes_do_not_fit(ply: int, passes: int, first: int) -> str:
    """Why no game of ``ply`` turns has these passes (``_passes_fit`` said none has)."""
    if passes > 2:
        return "the second pass in a row ends the game"
    if passes > ply:
        return "too few turns for so many passes in a row"
    if passes and not first:
        return "someone passed, so someone passed first"
    if ply < first:
        return f"player {first} has had no turn yet"
    if passes == ply or _passes_fit(ply, passes, first, first_turn_passes=True):
        return "the first turn is never a pass"
    if not passes:
        return (f"a pass by player {first} as the last turn would make passes=1, and the first "
                "turn is never a pass")
    # the earliest of the last passes is the other player's: the first pass came before it
    last = "pass" if passes == 1 else f"{passes} passes"
    return (f"player {first}'s first pass must come before player {3 - first}'s pass at the end, "
            f"but not on the first turn (never a pass) nor just before the last {last} (that "
            f"would make {passes + 1} in a row)")


def _make_state(board: HexBoard, raw: bytes, fields: list[str], territory: bool,
                source: str) -> BloomsState:
    from .rules import BloomsState

    player, s1, s2, ply, passes, first = (int(f) for f in fields)
    if player != 1 + ply % 2:
        raise PositionError(f"{source!r}: at ply {ply} player {1 + ply % 2} is to move, not {player}")
    if not territory and (passes or first):
        raise PositionError(f"{source!r}: the capture race has no passes")
    if territory and (s1 or s2):
        raise PositionError(f"{source!r}: captures do not score under the territory rules")
    if not _passes_fit(ply, passes, first):
        raise PositionError(f"{source!r}: passes={passes} first_passer={first} is impossible "
                            f"at ply {ply} ({_why_passes_do_not_fit(ply, passes, first)})")
    return BloomsState(player=player, ply=ply, board=raw, scores=(s1, s2), passes=passes,
                       first_passer=first)


def parse_position(board: HexBoard, text: str, territory: bool) -> BloomsState:
    """Raises: NotationError (malformed), PositionError (impossible here)."""
    if not isinstance(text, str):
        raise NotationError(f"position text must be a string, not {quote(text)}")
    parts = text.split()
    if len(parts) != 6:
        raise NotationError(
            f"{quote(text)}: expected 6 fields (rows, to-move, scores, ply, passes, first passer)"
        )
    rows_text, player, scores, ply, passes, first = parts
    m = re.fullmatch(r"([0-9]{1,9}),([0-9]{1,9})", scores)
    if not (m and player in ("1", "2") and _NUMBER.fullmatch(ply) and _NUMBER.fullmatch(passes)
            and first in ("0", "1", "2")):
        raise NotationError(f"{quote(text)}: malformed fields after the board")
    raw = _board_from_rows(board, rows_text.split("/"), text)
    return _make_state(board, raw, [player, m.group(1), m.group(2), ply, passes, first],
                       territory, text)


def diagram(board: HexBoard, state: BloomsState) -> str:
    n = board.size
    lines = []
    for top_index, row in enumerate(_rows_top_down(board, state.cells())):
        L = 2 * n - 2 - top_index
        indent = " " * abs((n - 1) - L)
        lines.append(f"{indent}{chr(ord('a') + L)}  {' '.join(row)}")
    s1, s2 = state.scores
    lines.append(
        f"to_move={state.player} scores={s1},{s2} ply={state.ply} passes={state.passes} "
        f"first_passer={state.first_passer}"
    )
    return "\n".join(lines)


def with_cell_numbers(lines: list[str], size: int) -> list[str]:
    """The lines of :func:`diagram` with the cells' other coordinate, for a person reading it
    (``display_diagram``; ``parse_diagram`` reads it back): a cell's number counts from the
    left of its row, so the numbers run above the top row and below the bottom row, and each
    row ends with its last cell's name. Lines that are not board rows (the status line) are
    kept as they are."""
    rows = 2 * size - 1
    if len(lines) < rows:
        return lines
    body = lines[:rows]
    first = body[0]
    letter_at = len(first) - len(first.lstrip())
    start = letter_at + 3  # the first cell of the top (and bottom) row
    numbers = range(1, size + 1)
    if size < 10:
        ruler = [" " * start + " ".join(str(k) for k in numbers)]
    else:  # two-digit numbers: tens over units, one column per cell
        ruler = [" " * start + " ".join(str(k // 10) if k >= 10 else " " for k in numbers),
                 " " * start + " ".join(str(k % 10) for k in numbers)]
    width = max(len(line) for line in body)
    out = list(ruler)
    for i, line in enumerate(body):
        letter_index = rows - 1 - i
        last = f"{chr(ord('a') + letter_index)}{row_length(size, letter_index)}"
        out.append(line.ljust(width) + "   " + last)
    out.extend(ruler)
    return out + lines[rows:]


def parse_diagram(board: HexBoard, text: str, territory: bool) -> BloomsState:
    """Raises: NotationError (malformed), PositionError (impossible here)."""
    if not isinstance(text, str):
        raise NotationError(f"diagram must be a string, not {quote(text)}")
    lines = [ln.strip() for ln in text.strip().splitlines() if ln.strip()]
    if not lines:
        raise NotationError(f"{quote(text)}: empty diagram")
    m = _STATUS.match(lines[-1])
    if not m:
        raise NotationError(f"{quote(text)}: the last line must be the status line "
                            "'to_move=.. scores=..,.. ply=.. passes=.. first_passer=..'")
    rows = []
    n = board.size
    # the terminal's diagram (``with_cell_numbers``) adds rulers of cell numbers above and
    # below, and each row's last cell name after it: a diagram copied from there reads back
    board_lines = [ln for ln in lines[:-1] if not _RULER.fullmatch(ln)]
    for top_index, line in enumerate(board_lines):
        L = 2 * n - 2 - top_index
        letter, _, rest = line.partition(" ")
        if L < 0 or letter.lower() != chr(ord("a") + L):
            raise NotationError(f"{quote(text)}: line {quote(line)} should start with row letter "
                                f"{chr(ord('a') + max(L, 0))!r}")
        cells = rest.split()
        if cells and cells[-1].lower() == f"{letter.lower()}{row_length(n, L)}":
            cells.pop()  # the row's last cell name, as with_cell_numbers ends the row
        rows.append("".join(cells))
    raw = _board_from_rows(board, rows, text)
    return _make_state(board, raw, list(m.groups()), territory, text)
