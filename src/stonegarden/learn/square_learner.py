"""The weights and tables shared by the square games' move models (Free Go's, Bridge Go's):
one weight per 3x3 pattern class (``geometry/square_patterns.py``), then one per tactics code
of the game's own."""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, ClassVar

import numpy as np

from ..geometry.square_patterns import canonical_patterns
from .learner import Choices, Learner

if TYPE_CHECKING:
    from ..core.protocol import Game, State

#: (state, its legal points, the move into it; -1 none) -> each point's pattern and tactics
Coder = Callable[["State", np.ndarray, int], tuple[np.ndarray, np.ndarray]]


class SquarePatternLearner(Learner):
    """Weights ``[patterns, tactics]``; a subclass sets ``tactics`` (its codes) and gives
    ``coder``."""

    tactics: ClassVar[int] = 0
    takes_visits = True  # one decision per move: a root's visits are its candidates' targets

    def __init__(self) -> None:
        self.index = canonical_patterns()
        self.classes = int(self.index.max()) + 1
        self.num_features = self.classes + self.tactics

    def arrays(self, weights: np.ndarray) -> dict[str, np.ndarray]:
        """The tables the search reads: pattern weights by raw code, tactics."""
        return {"pattern": weights[:self.classes][self.index].astype(np.float32),
                "tactic": weights[self.classes:self.classes + self.tactics].astype(np.float32)}

    def coder(self, game: Game) -> Coder:
        """How the game codes its points, for one game's decisions."""
        raise NotImplementedError

    def choices(self, game: Game, actions: list[int],
                visits: list[dict[int, int]] | None = None) -> Choices:
        """One decision per move: the legal points, the one played and, with ``visits``,
        the share of the root visits each point had."""
        coder = self.coder(game)
        out = Choices.builder()
        state = game.initial_state()
        last = -1
        for i, action in enumerate(actions):
            points = np.asarray(game.legal_actions(state), np.int64)
            pat, tac = coder(state, points, last)
            rows = np.stack([self.index[pat], self.classes + tac], axis=1)
            played = int(np.flatnonzero(points == action)[0])
            target = None
            if visits is not None:
                target = np.array([visits[i].get(int(q), 0) for q in points], np.float64)
                if not target.sum() > 0:  # a search that kept no visits: the move it played
                    target[played] = 1.0
            out.add(rows, played, target)
            state = game.play(state, action)
            last = action
        return out.build()
