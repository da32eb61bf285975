"""Resignation adjudication for matches and studies (as in cutechess-cli's ``-resign``).

A player resigns for its agent once the agent's own search has rated the position below
``below`` (win probability for the mover) on ``moves`` consecutive moves of that player, or
has proved it lost. Engine-testing tools do this so that long matches do not spend most of
their time playing out decided games; the rule only fires on the search's own verdict, and
``benchmarks/resign_check.py`` measures how often it would have resigned a game the player
went on to win."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from ..errors import ParameterError


@dataclass(frozen=True)
class ResignRule:
    """``below``: value threshold in (0, 0.5); ``moves``: consecutive own moves below it."""

    below: float
    moves: int = 2

    def __post_init__(self) -> None:
        if not 0 < self.below < 0.5 or self.below != self.below:
            raise ParameterError(f"resign threshold must be between 0 and 0.5, not {self.below!r}")
        if not isinstance(self.moves, int) or self.moves < 1:
            raise ParameterError(f"resign move count must be at least 1, not {self.moves!r}")

    def as_list(self) -> list[float | int]:
        return [self.below, self.moves]

    @classmethod
    def from_task(cls, raw: Any) -> ResignRule | None:
        """The rule a task carries (``[below, moves]``) or ``None``."""
        if raw is None:
            return None
        below, moves = raw
        return cls(float(below), int(moves))


def search_verdict(agent: Any, player: int) -> tuple[float | None, bool]:
    """(value for the mover, proved lost) from an agent's last search; (None, False) for an
    agent that does not search."""
    last = getattr(agent, "last", None)
    if last is None:
        return None, False
    return float(last.value), last.proven is not None and last.proven not in (0, player)


def should_resign(own_values: list[float | None], proved_lost: bool, rule: ResignRule) -> bool:
    """Whether a player resigns, given its own values so far (latest last)."""
    if proved_lost:
        return True
    recent = own_values[-rule.moves:]
    return len(recent) == rule.moves and all(v is not None and v < rule.below for v in recent)


def first_resignation(values: list[float | None], movers: list[int], rule: ResignRule,
                      proved: list[bool] | None = None) -> tuple[int, int] | None:
    """Replaying a finished game's per-entry search values: (entry index, player) where the
    rule would first have fired, or ``None``. Entries of other movers (chance: 0) are skipped."""
    own: dict[int, list[float | None]] = {1: [], 2: []}
    for i, (v, p) in enumerate(zip(values, movers)):
        if p not in own:
            continue
        own[p].append(v)
        if should_resign(own[p], bool(proved and proved[i]), rule):
            return i, p
    return None
