"""Bridge Go's board view: the square board of ``games/square_go_view.py`` with what a
connection game adds, the chain that won drawn and said, no score, and the end in words
("Black joined south and north")."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, cast

from ...core.protocol import Game, State
from ..square_go_view import CHAIN_HALO, SquareView, points_of, swatch

if TYPE_CHECKING:
    from .rules import BridgeGo


class BridgeGoView(SquareView):
    def _decisive(self, game: Game, state: State) -> set[str]:
        """The points of the chain that won (the rules' ``winning_chain``)."""
        if not game.is_terminal(state):
            return set()
        names = points_of(game).names
        return {names[p] for p in _bridge_go(game).winning_chain(state)}

    def mark_legend(self, game: Game) -> list[dict[str, str]]:
        return [*super().mark_legend(game),
                {"name": "winning chain", "swatch": swatch("B", CHAIN_HALO, under=True)}]

    def score_track(self, game: Game, state: State) -> dict[str, Any]:
        return {"scores": [], "target": None, "colours": list(self.player_classes),
                "label": "No score: the first to join two opposite sides wins"}

    def reason_words(self, game: Game, state: State, reason: str, winner: int,
                     names: tuple[str, str]) -> str:
        if reason == "bridge" and winner:
            return f"{names[winner - 1]} joined {self._sides(game, state)}"
        if reason == "no-legal-move":
            return f"{names[state.player - 1]} had no legal move"  # "draw" is said beside it
        return super().reason_words(game, state, reason, winner, names)

    def _sides(self, game: Game, state: State) -> str:
        size = int(points_of(game).size)
        pts = _bridge_go(game).winning_chain(state)
        rows = {p // size for p in pts}
        cols = {p % size for p in pts}
        if 0 in rows and size - 1 in rows:
            return "south and north"
        if 0 in cols and size - 1 in cols:
            return "west and east"
        return "two opposite sides"


def _bridge_go(game: Game) -> BridgeGo:
    return cast("BridgeGo", game)  # the game class names this view


VIEW = BridgeGoView()
