"""What a game's package provides to learn a move model (``SearchProfile.learner``): the
decisions of a played game as rows of feature indices, and the tables its search reads."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, ClassVar

import numpy as np

if TYPE_CHECKING:
    from ..core.protocol import Game


@dataclass(frozen=True)
class Choices:
    """Decisions as a conditional-logit fit reads them. ``rows``: one row per candidate of
    every decision, the indices of its active features (``num_features`` pads a row);
    decision ``i`` is ``rows[starts[i]:starts[i + 1]]`` and chose row ``chosen[i]`` (an index
    into ``rows``)."""

    rows: np.ndarray
    starts: np.ndarray
    chosen: np.ndarray

    @property
    def decisions(self) -> int:
        return len(self.chosen)

    @staticmethod
    def builder() -> ChoicesBuilder:
        return ChoicesBuilder()

    @staticmethod
    def concat(parts: list[Choices], width: int) -> Choices:
        """One set of the decisions of ``parts`` (rows ``width`` indices wide)."""
        rows, starts, chosen = [np.empty((0, width), np.int64)], [np.zeros(1, np.int64)], []
        base = 0
        for part in parts:
            rows.append(part.rows)
            starts.append(part.starts[1:] + base)
            chosen.append(part.chosen + base)
            base += len(part.rows)
        return Choices(np.concatenate(rows), np.concatenate(starts),
                       np.concatenate(chosen) if chosen else np.empty(0, np.int64))


@dataclass
class ChoicesBuilder:
    rows: list[np.ndarray] = field(default_factory=list)
    chosen: list[int] = field(default_factory=list)
    sizes: list[int] = field(default_factory=list)
    total: int = 0

    def add(self, rows: np.ndarray, chosen: int) -> None:
        """One decision: its candidates' feature rows and which of them was chosen; a
        decision with one candidate teaches nothing and is left out."""
        if len(rows) < 2:
            return
        self.rows.append(np.asarray(rows, np.int64))
        self.chosen.append(self.total + chosen)
        self.sizes.append(len(rows))
        self.total += len(rows)

    def build(self) -> Choices:
        width = self.rows[0].shape[1] if self.rows else 1
        rows = np.concatenate(self.rows) if self.rows else np.empty((0, width), np.int64)
        starts = np.concatenate([[0], np.cumsum(self.sizes, dtype=np.int64)]).astype(np.int64)
        return Choices(rows, starts, np.array(self.chosen, np.int64))


class Learner:
    """A game's move model: how its decisions are featurised and what tables the fitted
    weights become. ``kind`` names the model (a model file says which kind it holds);
    ``num_features``: the weights fitted (row index ``num_features`` is padding, weight 0)."""

    kind: ClassVar[str] = ""
    num_features: int = 0

    def choices(self, game: Game, actions: list[int]) -> Choices:
        """The decisions along one game played with ``actions`` from the initial state."""
        raise NotImplementedError

    def arrays(self, weights: np.ndarray) -> dict[str, np.ndarray]:
        """The tables the search reads, from fitted ``weights`` (``num_features`` of them)."""
        raise NotImplementedError
