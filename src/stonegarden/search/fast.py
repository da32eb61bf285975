"""Per-game fast search engines. A game with a numba search kernel is listed here by id (one
line per game); every other game is searched by ``generic.GenericMcts`` through the protocol."""

from __future__ import annotations

import importlib
from typing import Any

from ..core.protocol import Game
from .config import SearchConfig

#: game id -> "module:EngineClass" (imported on first use, so numba compiles only when needed)
FAST_ENGINES = {
    "blooms": "stonegarden.search.blooms_engine:BloomsRaceEngine",
}


def _load(target: str) -> Any:
    module, _, name = target.partition(":")
    return getattr(importlib.import_module(module), name)


def fast_engine(game: Game, config: SearchConfig, seed: int | None) -> Any | None:
    """The game's fast engine for ``config``, or ``None`` (then use the generic search)."""
    target = FAST_ENGINES.get(game.id)
    if not config.fast or target is None:
        return None
    return _load(target)(game, config, seed)


def make_engine(game: Game, config: SearchConfig, seed: int | None) -> Any:
    """The fast engine when there is one (and ``config.fast``), else the generic MCTS."""
    from .generic import GenericMcts

    engine = fast_engine(game, config, seed)
    return engine if engine is not None else GenericMcts(game, config, seed)
