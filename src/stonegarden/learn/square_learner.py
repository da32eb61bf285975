"""The weights and tables shared by the square games' move models (Free Go's, Bridge Go's):
one weight per 3x3 pattern class (``geometry/square_patterns.py``), then one per tactics code
of the game's own, then (where the game has them) one per code of a third family of its own
(Free Go: the nearness to the last two moves)."""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, ClassVar

import numpy as np

from ..geometry.square_patterns import canonical_patterns
from .learner import Choices, Learner

if TYPE_CHECKING:
    from ..core.protocol import Game, State

#: (state, its legal points, the move into it, the move before that; -1 none) -> each point's
#: pattern and tactics codes, and its code of the third family where the learner has one
Coder = Callable[["State", np.ndarray, int, int], tuple[np.ndarray, ...]]


class SquarePatternLearner(Learner):
    """Weights ``[patterns, tactics, extra]``; a subclass sets ``tactics`` (its codes), and
    ``extra`` with ``extra_table`` for a third family (none: 0), and gives ``coder``."""

    tactics: ClassVar[int] = 0
    extra: ClassVar[int] = 0
    extra_table: ClassVar[str] = ""

    def __init__(self) -> None:
        self.index = canonical_patterns()
        self.classes = int(self.index.max()) + 1
        self.num_features = self.classes + self.tactics + self.extra

    def arrays(self, weights: np.ndarray) -> dict[str, np.ndarray]:
        """The tables the search reads: pattern weights by raw code, tactics (and the third
        family's)."""
        top = self.classes + self.tactics
        out = {"pattern": weights[:self.classes][self.index].astype(np.float32),
               "tactic": weights[self.classes:top].astype(np.float32)}
        if self.extra:
            out[self.extra_table] = weights[top:top + self.extra].astype(np.float32)
        return out

    def coder(self, game: Game) -> Coder:
        """How the game codes its points, for one game's decisions."""
        raise NotImplementedError

    def choices(self, game: Game, actions: list[int]) -> Choices:
        """One decision per move: the legal points, and the one played."""
        coder = self.coder(game)
        out = Choices.builder()
        state = game.initial_state()
        last = before = -1
        for action in actions:
            points = np.asarray(game.legal_actions(state), np.int64)
            codes = coder(state, points, last, before)
            columns = [self.index[codes[0]], self.classes + codes[1]]
            if self.extra:
                columns.append(self.classes + self.tactics + codes[2])
            out.add(np.stack(columns, axis=1), int(np.flatnonzero(points == action)[0]))
            state = game.play(state, action)
            last, before = action, last
        return out.build()
