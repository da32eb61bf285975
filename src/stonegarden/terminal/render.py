"""Colour a game's ASCII diagram for the terminal using the game's own character styles."""

from __future__ import annotations

from rich.text import Text

from ..core.protocol import Game, State


def rich_diagram(game: Game, state: State, fields: bool = True) -> Text:
    """The diagram as rich ``Text``; the plain characters stay, so colour is never the only cue.
    ``fields=False`` leaves out the diagram's last line of position fields (``to_move=...``),
    which a player does not need. The diagram is the game's ``display_diagram``, which may
    add coordinates to the parseable one."""
    styles = game.diagram_styles
    lines = game.display_diagram(state).splitlines()
    status = lines.pop() if lines and "=" in lines[-1] else None
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
