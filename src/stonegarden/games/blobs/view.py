"""Blobs: dice with their arcs, drawn by the game's own ``games/blobs/svg.py`` (colour-blind
safe: red regions dotted, blue ones striped); this view adds the marks (last move, legal
frontier cells, hint) as classes on the ``data-cell`` elements, and the ``blobs`` move builder:
click a frontier cell, then choose one of its faces."""

from __future__ import annotations

import re
from importlib import import_module
from typing import Any

from ...core.protocol import CHANCE, Game, State
from ...web.views.base import BoardView, Marks

_MOVE = re.compile(r"^([a-o])([0-9]{1,2})(?::[a-z]{2}|[a-z])$", re.IGNORECASE)
FACE_LABELS = {"R": "Red face", "B": "Blue face", "M": "Mixed face"}


def _cell_of(move: str) -> str | None:
    m = _MOVE.match(move.strip())
    return f"{m.group(1).lower()}{m.group(2)}" if m else None


def _add_classes(svg: str, classes: dict[str, list[str]]) -> str:
    def repl(m: re.Match[str]) -> str:
        extra = classes.get(m.group(2))
        return m.group(0) if not extra else (
            f'class="{m.group(1)} {" ".join(extra)}" data-cell="{m.group(2)}"')

    return re.sub(r'class="([^"]*)" data-cell="([^"]+)"', repl, svg)


class BlobsView(BoardView):
    kind = "blobs"

    def supports(self, game: Game) -> bool:
        try:
            import_module("stonegarden.games.blobs.svg")
        except ImportError:
            return False
        return game.id == "blobs" or hasattr(game, "frontier_options")

    def svg(self, game: Game, state: State, marks: Marks) -> str:
        from ...games.blobs.svg import blobs_svg

        svg = blobs_svg(game, state).replace('class="blobs-board"', 'class="board blobs-board"', 1)
        classes: dict[str, list[str]] = {}
        for kind, cells in (("legal", marks.targets), ("last", marks.last), ("hint", marks.hint)):
            for c in cells:
                classes.setdefault(c, []).append(kind)
        return _add_classes(svg, classes)

    def _options(self, game: Game, state: State) -> dict[str, list[dict[str, str]]]:
        out: dict[str, list[dict[str, str]]] = {}
        if game.is_terminal(state) or game.current_player(state) == CHANCE:
            return out
        for a in game.legal_actions(state):
            text = game.action_to_text(state, int(a))
            cell = _cell_of(text)
            if cell is not None:
                face = text[-1].upper()
                out.setdefault(cell, []).append(
                    {"text": text, "face": face, "label": FACE_LABELS.get(face, text)})
        return out

    def legal_targets(self, game: Game, state: State) -> list[str]:
        return sorted(self._options(game, state))

    def move_cells(self, game: Game, before: State, move: str) -> list[str]:
        cell = _cell_of(move)
        return [cell] if cell else []

    def builder(self, game: Game, state: State) -> dict[str, Any]:
        return {"kind": self.kind, "options": self._options(game, state),
                "dice_left": getattr(state, "dice_left", None)}

    def legend(self, game: Game) -> list[dict[str, str]]:
        return [{"letter": "R", "name": "red", "mark": "dotted regions", "player": "1",
                 "swatch": '<span class="key" style="background:#D55E00"></span>'},
                {"letter": "B", "name": "blue", "mark": "striped regions", "player": "2",
                 "swatch": '<span class="key" style="background:#0072B2"></span>'}]

    def score_track(self, game: Game, state: State) -> dict[str, Any]:
        s = list(game.scores(state))
        left = getattr(state, "dice_left", None)
        return {"scores": s, "target": None, "scale": max(1, *s),
                "label": "score" + (f" · dice left: {left}" if left is not None else "")}


VIEW = BlobsView()
