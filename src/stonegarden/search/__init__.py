"""Monte Carlo tree search over the game protocol, with per-game fast paths.

``generic.GenericMcts`` knows only the protocol (any registered game, chance nodes included);
``fast.fast_engine`` returns a game's numba engine when it has one (the Blooms capture race).
Both answer ``search(state, budget) -> SearchResult``."""

from .config import Budget, SearchConfig
from .result import MoveStat, SearchResult

__all__ = ["Budget", "MoveStat", "SearchConfig", "SearchResult"]
