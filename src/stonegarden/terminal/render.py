"""Colour a game's ASCII diagram for the terminal using the game's own character styles."""

from __future__ import annotations

from rich.text import Text

from ..core.protocol import Game, State
from ..geometry.hexhex import HexBoard, row_length


def rich_diagram(game: Game, state: State, fields: bool = True) -> Text:
    """The diagram as rich ``Text``; the plain characters stay, so colour is never the only cue.
    ``fields=False`` leaves out the diagram's last line of position fields (``to_move=...``),
    which a player does not need; hex boards get cell numbers (``with_hex_numbers``)."""
    styles = game.diagram_styles
    lines = game.diagram(state).splitlines()
    status = lines.pop() if lines and "=" in lines[-1] else None
    board = getattr(game, "board", None)
    if isinstance(board, HexBoard):
        lines = with_hex_numbers(lines, board.size)
    text = Text()
    for line in lines:
        if is_label_line(line):  # column letters: an "O" there is no stone
            text.append(line)
        else:
            for ch in line:
                text.append(ch, style=styles.get(ch, ""))
        text.append("\n")
    if status is not None and fields:
        text.append(status + "\n", style="dim")
    return text


def is_label_line(line: str) -> bool:
    """Whether a diagram line is a row of coordinate letters (``A B C ... O P``): single
    letters, each once, in alphabetical order, which no row of stones is."""
    tokens = line.split()
    return (bool(tokens) and all(len(t) == 1 and t.isalpha() for t in tokens)
            and tokens == sorted(set(tokens)))


def with_hex_numbers(lines: list[str], size: int) -> list[str]:
    """A hexhex diagram (rows lettered down its left side, ``a`` at the bottom) with its other
    coordinate: a cell's number counts from the left of its row, so the numbers run above the
    top row and below the bottom row, and each row ends with its last cell's name. Lines that
    are not board rows are kept as they are."""
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
