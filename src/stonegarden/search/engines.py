"""Which engine searches a game: the compiled tree when the game's profile has kernels for the
config (and ``fast`` is on), else the tree through the protocol; both are ``tree.TreeSearch``."""

from __future__ import annotations

from ..core.protocol import Game
from .config import Budget, SearchConfig
from .pools import Pools
from .profile import profile_for
from .protocol_tree import ProtocolTree
from .tree import CompiledTree, TreeSearch

#: (game class, config) pairs whose kernels this process has loaded
_WARM: set[tuple[type, SearchConfig]] = set()


def new_engine(game: Game, config: SearchConfig, seed: int | None,
               pools: Pools | None = None) -> TreeSearch:
    """A fresh engine for ``game`` under ``config`` (its kernels may still need loading), in
    ``pools`` (default: fresh ones of the default size)."""
    spec = profile_for(game).tree(config) if config.fast else None
    if spec is not None:
        return CompiledTree(game, config, seed, spec, pools)
    return ProtocolTree(game, config, seed, pools)


def warm_up(game: Game, config: SearchConfig) -> None:
    """Load (or compile) the numba kernels a search of ``game`` uses, once per process, with a
    two-simulation search of a throwaway engine. Without it the first search of a process
    spends about a second of its clock on this; the real engine's tree and random stream are
    not touched."""
    key = (type(game), config)
    if key in _WARM:
        return
    new_engine(game, config, 0).search(game.initial_state(), Budget(sims=2))
    _WARM.add(key)


def make_engine(game: Game, config: SearchConfig, seed: int | None,
                pools: Pools | None = None) -> TreeSearch:
    """The engine for ``game`` under ``config``, with its kernels loaded (``warm_up``) so that
    no search's budget pays for that."""
    warm_up(game, config)
    return new_engine(game, config, seed, pools)
