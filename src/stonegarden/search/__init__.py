"""Monte Carlo tree search over the game protocol.

One tree in numba pools (``tree.py``), searched with a game's compiled kernels where its search
profile has them (``CompiledTree``: both Blooms rule sets and Free Go) and through the protocol
otherwise (``protocol_tree.ProtocolTree``: any registered game, chance nodes included);
``engines.make_engine`` picks. Both answer ``search(state, budget) -> SearchResult``. What the
search knows about a game comes from its profile (``profile.py``)."""

from .config import Budget, SearchConfig
from .result import MoveStat, SearchResult

__all__ = ["Budget", "MoveStat", "SearchConfig", "SearchResult"]
