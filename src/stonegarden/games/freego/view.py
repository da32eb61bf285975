"""Free Go's board view: the square board of ``games/square_go_view.py`` with what suicide
allowed adds, the stones without a liberty (the last move's suicide, which counts for nothing
and which the opponent's next move removes and scores) drawn faded, struck through and said."""

from __future__ import annotations

from typing import TYPE_CHECKING, cast

from ...core.protocol import Game, State
from ..square_go_view import SquareView, points_of, swatch

if TYPE_CHECKING:
    from .rules import FreeGo

# a faded black stone struck through, as the board draws one without a liberty
_NO_LIBERTY = ('<path d="M-12,12L12,-12" stroke="#ffffff" stroke-width="7" '
               'stroke-linecap="round"/><path d="M-12,12L12,-12" stroke="#000000" '
               'stroke-width="3.5" stroke-linecap="round"/>')


class FreeGoView(SquareView):
    def no_liberty_cells(self, game: Game, state: State) -> list[str]:
        """The stones the rules' ``without_liberty`` finds, while the game goes on (at its
        end no move comes to remove them)."""
        if game.is_terminal(state):
            return []
        names = points_of(game).names
        return [names[p] for p in cast("FreeGo", game).without_liberty(state)]

    def mark_legend(self, game: Game) -> list[dict[str, str]]:
        faded = swatch("B", _NO_LIBERTY).replace('<use href="#sg-pt-B"/>',
                                                  '<use href="#sg-pt-B" opacity="0.5"/>')
        return [*super().mark_legend(game),
                {"name": "no liberty: counts for nothing, and the opponent's next move "
                         "removes it and scores it", "swatch": faded}]


VIEW = FreeGoView()
