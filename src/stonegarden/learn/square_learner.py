"""The weights and tables shared by the square games' move models (Free Go's, Bridge Go's):
one weight per 3x3 pattern class (``geometry/square_patterns.py``), then one per tactics code
of the game's own."""

from __future__ import annotations

from typing import ClassVar

import numpy as np

from ..geometry.square_patterns import canonical_patterns
from .learner import Learner


class SquarePatternLearner(Learner):
    """Weights ``[patterns, tactics]``; a subclass sets ``tactics`` (its codes) and
    ``choices``."""

    tactics: ClassVar[int] = 0

    def __init__(self) -> None:
        self.index = canonical_patterns()
        self.classes = int(self.index.max()) + 1
        self.num_features = self.classes + self.tactics

    def arrays(self, weights: np.ndarray) -> dict[str, np.ndarray]:
        """The tables the search reads: pattern weights by raw code, tactics."""
        return {"pattern": weights[:self.classes][self.index].astype(np.float32),
                "tactic": weights[self.classes:self.classes + self.tactics].astype(np.float32)}
