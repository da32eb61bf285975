"""The fallback view: the game's ASCII diagram in an SVG, moves typed as text."""

from __future__ import annotations

from html import escape

from ...core.protocol import Game, State
from .base import BoardView, Marks


class TextView(BoardView):
    kind = "text"

    def svg(self, game: Game, state: State, marks: Marks) -> str:
        lines = game.diagram(state).splitlines() or [""]
        width = max(len(line) for line in lines) * 9 + 20
        height = len(lines) * 18 + 20
        body = "".join(
            f'<text x="10" y="{24 + 18 * i}" xml:space="preserve">{escape(line)}</text>'
            for i, line in enumerate(lines)
        )
        return (f'<svg xmlns="http://www.w3.org/2000/svg" class="board text-board" '
                f'viewBox="0 0 {width} {height}" font-family="monospace" font-size="15">'
                f'<rect width="{width}" height="{height}" fill="#f7f1e3"/>{body}</svg>')


VIEW = TextView()
