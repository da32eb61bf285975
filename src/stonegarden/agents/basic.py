"""The simplest agents: ``random`` (uniform over legal moves)."""

from __future__ import annotations

import numpy as np

from ..core.protocol import Game, State
from .registry import int_option, no_more_options, register_agent


class RandomAgent:
    """Picks uniformly among the legal moves, from a seeded generator."""

    def __init__(self, seed: int | None, spec: str) -> None:
        self.rng = np.random.default_rng(seed)
        self.spec = spec

    def choose(self, game: Game, state: State) -> int:
        actions = game.legal_actions(state)
        return int(actions[int(self.rng.integers(len(actions)))])


@register_agent("random", "uniformly random legal moves (option: seed)")
def _random(options: dict[str, str], spec: str) -> RandomAgent:
    seed = int_option(options, "seed", None, spec)
    no_more_options(options, spec)
    return RandomAgent(seed, spec)
