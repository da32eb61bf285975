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
    into ``rows``). ``target``, if given, is what the fit matches instead of the choice: one
    weight per row, summing to 1 over each decision (a teacher's visit shares)."""

    rows: np.ndarray
    starts: np.ndarray
    chosen: np.ndarray
    target: np.ndarray | None = None

    @property
    def decisions(self) -> int:
        return len(self.chosen)

    @staticmethod
    def builder() -> ChoicesBuilder:
        return ChoicesBuilder()

    @staticmethod
    def concat(parts: list[Choices], width: int) -> Choices:
        """One set of the decisions of ``parts`` (rows ``width`` indices wide), with their
        targets where every part that has decisions has them.

        Raises:
            ValueError: some parts have targets and others do not.
        """
        parts = [part for part in parts if part.decisions]  # nor rows, nor a target
        width = parts[0].rows.shape[1] if parts else width
        rows, starts, chosen = [np.empty((0, width), np.int64)], [np.zeros(1, np.int64)], []
        targets = [part.target for part in parts if part.target is not None]
        if targets and len(targets) != len(parts):
            raise ValueError("a target for some decisions and not for others")
        base = 0
        for part in parts:
            rows.append(part.rows)
            starts.append(part.starts[1:] + base)
            chosen.append(part.chosen + base)
            base += len(part.rows)
        return Choices(np.concatenate(rows), np.concatenate(starts),
                       np.concatenate(chosen) if chosen else np.empty(0, np.int64),
                       np.concatenate(targets) if targets else None)


@dataclass
class ChoicesBuilder:
    rows: list[np.ndarray] = field(default_factory=list)
    chosen: list[int] = field(default_factory=list)
    sizes: list[int] = field(default_factory=list)
    targets: list[np.ndarray] = field(default_factory=list)
    total: int = 0

    def add(self, rows: np.ndarray, chosen: int, target: np.ndarray | None = None) -> None:
        """One decision: its candidates' feature rows, which of them was chosen and, for a
        soft target, each candidate's share (normalised here); a decision with one candidate
        teaches nothing and is left out. Give a target to every decision or to none."""
        if len(rows) < 2:
            return
        if target is not None:
            share = np.asarray(target, np.float64)
            if share.shape != (len(rows),) or share.min() < 0 or not share.sum() > 0:
                raise ValueError("a target needs one share of at least 0 per candidate, "
                                 "not all 0")
            self.targets.append(share / share.sum())
        self.rows.append(np.asarray(rows, np.int64))
        self.chosen.append(self.total + chosen)
        self.sizes.append(len(rows))
        self.total += len(rows)

    def build(self) -> Choices:
        width = self.rows[0].shape[1] if self.rows else 1
        rows = np.concatenate(self.rows) if self.rows else np.empty((0, width), np.int64)
        starts = np.concatenate([[0], np.cumsum(self.sizes, dtype=np.int64)]).astype(np.int64)
        if self.targets and len(self.targets) != len(self.rows):
            raise ValueError("a target for some decisions and not for others")
        return Choices(rows, starts, np.array(self.chosen, np.int64),
                       np.concatenate(self.targets) if self.targets else None)


class Learner:
    """A game's move model: how its decisions are featurised and what tables the fitted
    weights become. ``kind`` names the model (a model file says which kind it holds);
    ``num_features``: the weights fitted (row index ``num_features`` is padding, weight 0)."""

    kind: ClassVar[str] = ""
    num_features: int = 0
    #: whether ``choices`` takes a teacher's visits as soft targets (one decision per move)
    takes_visits: ClassVar[bool] = False

    def choices(self, game: Game, actions: list[int],
                visits: list[dict[int, int]] | None = None) -> Choices:
        """The decisions along one game played with ``actions`` from the initial state; with
        ``visits`` (where ``takes_visits``: each move's root visits by action) each decision's
        target is the visit shares of its candidates."""
        raise NotImplementedError

    def arrays(self, weights: np.ndarray) -> dict[str, np.ndarray]:
        """The tables the search reads, from fitted ``weights`` (``num_features`` of them)."""
        raise NotImplementedError

    def table_shapes(self) -> dict[str, tuple[int, ...]]:
        """The shape of each table ``arrays`` makes: what a model file of this kind holds."""
        return {name: table.shape
                for name, table in self.arrays(np.zeros(self.num_features)).items()}
