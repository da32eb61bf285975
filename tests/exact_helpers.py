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
            memo[k] = _best_of_moves(game, state, memo, key)
    return memo[k]


def _best_of_moves(game: Any, state: Any, memo: dict, key: Callable[[Any], Hashable]) -> int:
    """The value of ``state`` from its moves' values: its player's win as soon as one move wins
    (the other moves cannot change that, so they are left unsolved: most of a whole solve)."""
    p, drawn = state.player, False
    for a in game.legal_actions(state):
        result = exact_winner(game, game.play_unchecked(state, int(a)), memo, key)
        if result == p:
            return p
        drawn = drawn or result == 0
    return 0 if drawn else 3 - p
