"""What every board view provides (see the package docstring)."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from ...core.protocol import Game, State
from ...errors import StonegardenError


@dataclass(frozen=True)
class Marks:
    """Cells to mark on a drawn board, by name."""

    last: tuple[str, ...] = ()
    captured: tuple[str, ...] = ()
    targets: tuple[str, ...] = ()
    hint: tuple[str, ...] = ()
    extra: dict[str, Any] = field(default_factory=dict)


class BoardView:
    """Base view: subclasses set ``kind`` (the move builder the page uses) and draw."""

    kind = "text"

    def supports(self, game: Game) -> bool:
        """Whether this view can draw ``game`` (it has the geometry the view reads)."""
        return True

    def svg(self, game: Game, state: State, marks: Marks) -> str:
        """The board as an SVG document fragment (``<svg ...>...</svg>``)."""
        raise NotImplementedError

    def cell_names(self, game: Game) -> list[str]:
        """Every cell or point name, in the game's index order."""
        return []

    def legal_targets(self, game: Game, state: State) -> list[str]:
        """Cells some legal move of the player to move places on (highlighted on the page)."""
        return []

    def move_cells(self, game: Game, before: State, move: str) -> list[str]:
        """Cells a move (canonical text, played in ``before``) places on."""
        return []

    def captured_cells(self, game: Game, before: State, after: State) -> list[str]:
        """Cells emptied by the move from ``before`` to ``after``."""
        return []

    def builder(self, game: Game, state: State) -> dict[str, Any]:
        """What the page's move builder needs (JSON): ``kind`` plus view-specific keys."""
        return {"kind": self.kind}

    def legend(self, game: Game) -> list[dict[str, str]]:
        """Stone kinds shown in the legend: letter, name, mark description, swatch SVG."""
        return []

    def score_track(self, game: Game, state: State) -> dict[str, Any]:
        """Scores and what they race toward: ``{"scores", "target", "label"}``."""
        s = game.scores(state)
        target = game.params.get("target")
        return {"scores": list(s), "target": target,
                "label": "score" if target is None else f"captures toward {target}"}


def safe_move_cells(view: BoardView, game: Game, before: State, move: str) -> list[str]:
    """``view.move_cells`` that never raises (marks are decoration, never an error)."""
    try:
        return view.move_cells(game, before, move)
    except (StonegardenError, IndexError, KeyError):
        return []
