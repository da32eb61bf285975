"""Exhaustive game values of tiny positions, to check the MCTS-solver's proofs against."""

from __future__ import annotations

from collections.abc import Callable, Hashable
from typing import Any


def exact_winner(game: Any, state: Any, memo: dict, key: Callable[[Any], Hashable]) -> int:
    """The winner (1, 2, or 0 for a draw) under best play from ``state``; ``key(state)`` must
    hold everything the legal moves and the result depend on (positions are memoised by it)."""
    k = key(state)
    if k not in memo:
        if game.is_terminal(state):
            memo[k] = game.winner(state)
        else:
            p = state.player
            results = {exact_winner(game, game.play_unchecked(state, int(a)), memo, key)
                       for a in game.legal_actions(state)}
            memo[k] = p if p in results else 0 if 0 in results else 3 - p
    return memo[k]
