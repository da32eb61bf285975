"""Per-game fast search engines. A game with a numba search kernel is listed here by id (one
line per game); every other game is searched by ``generic.GenericMcts`` through the protocol."""

from __future__ import annotations

import importlib
from typing import Any

from ..core.protocol import Game
from .config import Budget, SearchConfig

#: game id -> "module:EngineClass" (imported on first use, so numba compiles only when needed)
FAST_ENGINES = {
    "blooms": "stonegarden.search.blooms_engine:BloomsRaceEngine",
    "freego": "stonegarden.search.freego_engine:FreeGoEngine",
}


def _load(target: str) -> Any:
    module, _, name = target.partition(":")
    return getattr(importlib.import_module(module), name)


def fast_engine(game: Game, config: SearchConfig, seed: int | None) -> Any | None:
    """The game's fast engine for ``config``, or ``None`` (then use the generic search): an
    engine with a ``supports(game, config)`` check serves only what it supports."""
    target = FAST_ENGINES.get(game.id)
    if not config.fast or target is None:
        return None
    engine = _load(target)
    supports = getattr(engine, "supports", None)
    if supports is not None and not supports(game, config):
        return None
    return engine(game, config, seed)


#: (game id, config) pairs whose search kernels this process has loaded
_WARM: set[tuple[str, SearchConfig]] = set()


def _new_engine(game: Game, config: SearchConfig, seed: int | None) -> Any:
    from .generic import GenericMcts

    engine = fast_engine(game, config, seed)
    return engine if engine is not None else GenericMcts(game, config, seed)


def warm_up(game: Game, config: SearchConfig) -> None:
    """Load (or compile) the numba kernels a search of ``game`` uses, once per process, with a
    two-simulation search of a throwaway engine. Without it the first search of a process
    spends about a second of its clock on this (a 1 s Free Go search made no simulation and
    played a random move); the real engine's tree and random stream are not touched."""
    key = (game.id, config)
    if key in _WARM:
        return
    _new_engine(game, config, 0).search(game.initial_state(), Budget(sims=2))
    _WARM.add(key)


def make_engine(game: Game, config: SearchConfig, seed: int | None) -> Any:
    """The fast engine when there is one (and ``config.fast``), else the generic MCTS, with its
    kernels loaded (``warm_up``) so that no search's budget pays for that."""
    warm_up(game, config)
    return _new_engine(game, config, seed)
