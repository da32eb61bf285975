"""What a search reports: the value for the player to move, the moves it looked at, the PV."""

from __future__ import annotations

from dataclasses import dataclass, field


@dataclass(frozen=True)
class MoveStat:
    """A move at the root: whole-turn ``action``, simulations through it, and its value
    (win probability for the player to move, draws counting half)."""

    action: int
    visits: int
    value: float
    proven: int | None = None  # winner if the solver proved the result of this move


@dataclass(frozen=True)
class SearchResult:
    """``moves`` are sorted best first (proven wins, then visits); ``pv`` is whole-turn actions
    from the root; ``proven`` is the proven winner of the root (0 draw) or ``None``."""

    value: float
    moves: list[MoveStat]
    pv: list[int]
    sims: int
    seconds: float
    proven: int | None = None
    reused: int = 0  # simulations kept from the previous search
    extra: dict[str, object] = field(default_factory=dict)

    @property
    def best(self) -> int:
        return self.moves[0].action
