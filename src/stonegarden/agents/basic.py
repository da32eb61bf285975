"""The simplest agents: ``random`` (uniform over legal moves)."""

from __future__ import annotations

import numpy as np

from ..core.protocol import Game, State
from .registry import check_to_move, int_option, no_more_options, register_agent


class _SeededAgent:
    """An agent whose only option is the seed of its generator; its repr is the string that
    makes it."""

    def __init__(self, seed: int | None, spec: str) -> None:
        self.rng = np.random.default_rng(seed)
        self.spec = spec

    def __repr__(self) -> str:
        return f"make_agent({self.spec!r})"


class RandomAgent(_SeededAgent):
    """Picks uniformly among the legal moves, from a seeded generator."""

    def choose(self, game: Game, state: State) -> int:
        """Raises: PositionError: the game is over or a chance event is due."""
        check_to_move(game, state)
        actions = game.legal_actions(state)
        return int(actions[int(self.rng.integers(len(actions)))])


@register_agent("random", "uniformly random legal moves (option: seed)")
def _random(options: dict[str, str], spec: str) -> RandomAgent:
    seed = int_option(options, "seed", None, spec)
    no_more_options(options, spec)
    return RandomAgent(seed, spec)


class GreedyAgent(_SeededAgent):
    """Takes an immediate win, else the move capturing most stones (``State.captured``), else
    a random move. It looks one move ahead through the protocol, so it works for every game."""

    def choose(self, game: Game, state: State) -> int:
        """Raises: PositionError: the game is over or a chance event is due."""
        check_to_move(game, state)
        actions = game.legal_actions(state)
        me = game.current_player(state)
        best, best_captured = [], 0
        for a in actions:
            after = game.play_unchecked(state, int(a))
            if game.is_terminal(after) and game.winner(after) == me:
                return int(a)
            if after.captured > best_captured:
                best, best_captured = [int(a)], after.captured
            elif after.captured == best_captured and best_captured > 0:
                best.append(int(a))
        pool = best if best else actions
        return int(pool[int(self.rng.integers(len(pool)))])


@register_agent("greedy", "an immediate win, else the biggest capture, else random (option: seed)")
def _greedy(options: dict[str, str], spec: str) -> GreedyAgent:
    seed = int_option(options, "seed", None, spec)
    no_more_options(options, spec)
    return GreedyAgent(seed, spec)
