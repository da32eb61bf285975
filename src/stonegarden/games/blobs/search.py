"""What the search knows about Blobs: its ``safe`` playouts, when two positions are one, and
its levels, and its learned move model. It searches through the protocol (a move is a die with
its auto moves, not a point, so there are no RAVE statistics)."""

from __future__ import annotations

from collections.abc import Hashable, Mapping
from typing import TYPE_CHECKING, ClassVar, cast

import numpy as np

from ...core.protocol import State
from ...search.config import GameOption
from ...search.profile import PriorValues, SearchProfile

if TYPE_CHECKING:
    from ...learn.learner import Learner
    from ...search.config import SearchConfig
    from .rules import BlobsGame, BlobsState

SAFE = GameOption("safe", "int", 0, "playouts try up to K placements for one that does not "
                  "hand the opponent a win (0 or 1: uniform)", high=64)


class BlobsProfile(SearchProfile):
    """Blobs (and Tumbling Dice) on the protocol tree, positions shared by default."""

    #: 30-40% of a search's positions recur by other orders of moves; sharing them scored
    #: 67-39-54 against not sharing them at 0.5 to 2 s a move (docs/ai.md)
    tt: ClassVar[bool] = True
    #: 2.5x the search a level scored only 59% here; simulations 2-5x apart score 75-89% a
    #: step (docs/ai.md)
    levels: ClassVar[Mapping[int, tuple[int | None, float]]] = {
        1: (100, 0.04),
        2: (200, 0.1),
        3: (1000, 0.25),
        4: (3200, 0.64),
        5: (12800, 1.6),
        6: (None, 4.0),
    }
    options: ClassVar[tuple[GameOption, ...]] = (SAFE,)
    #: a learned model (``model.py``, ``stonegarden train blobs``) gives the protocol tree its
    #: priors, counted as visits, with ``mcts:model=shipped`` (or a file); not by default: it
    #: scored 25-148-27 against the search without it at 0.5 s a move (docs/models.md)
    shipped_model: ClassVar[str | None] = "blobs.npz"
    model_by_default: ClassVar[bool] = False

    def _game(self) -> BlobsGame:
        return cast("BlobsGame", self.game)  # the game class names this profile

    def playout(self, state: State, seed: int, options: Mapping[str, int],
                replies: np.ndarray | None = None,
                last: int = -1) -> tuple[int, np.ndarray | None]:
        totals = self._game().safe_playouts(state, 1, seed, int(options.get("safe", 0)))
        return (1 if totals[0] else 2 if totals[1] else 0), None

    def learner(self) -> Learner | None:
        from .model import BlobsLearner

        return BlobsLearner()

    def prior_values_for(self, config: SearchConfig) -> PriorValues:
        """The learned model's priors when ``config`` loads one; else none."""
        from .model import ModelPriors

        model = self.model_for(config)
        return self.prior_values if model is None else ModelPriors(self._game(), model)

    def transposition_key(self, state: State) -> Hashable:
        # ``auto`` only describes the move that led here (the same dice placed in another
        # order may differ in it); everything else decides the future, ``ply`` included
        s = _own(state)
        return (s.cells, s.player, s.to_place, s.dice_left, s.roll, s.ply, s.outcome,
                s.resigned)


def _own(state: State) -> BlobsState:
    return cast("BlobsState", state)  # the search passes only this game's states
