"""Colour a game's ASCII diagram for the terminal using the game's own character styles."""

from __future__ import annotations

from rich.text import Text

from ..core.protocol import Game, State


def rich_diagram(game: Game, state: State) -> Text:
    """The diagram as rich ``Text``; the plain characters stay, so colour is never the only cue."""
    styles = game.diagram_styles
    lines = game.diagram(state).splitlines()
    text = Text()
    for n, line in enumerate(lines):
        if n == len(lines) - 1 and "=" in line:
            text.append(line, style="dim")
        else:
            for ch in line:
                text.append(ch, style=styles.get(ch, ""))
        text.append("\n")
    return text
