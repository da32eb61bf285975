"""stonegarden: play, study and design Go-like abstract games.

>>> import stonegarden
>>> game = stonegarden.make("blooms", size=4)
>>> state = game.play_text(game.initial_state(), "Rd4")
>>> game.count_legal_actions(state)
1332
"""

from __future__ import annotations

from importlib import import_module
from typing import TYPE_CHECKING, Any

from .errors import (
    IllegalMoveError,
    NotationError,
    ParameterError,
    PositionError,
    RecordError,
    StonegardenError,
)
from .kernel_cache import configure as _configure_kernel_cache

_configure_kernel_cache()  # before any kernel module is imported (kernel_cache.py says why)

if TYPE_CHECKING:
    from .core.protocol import CHANCE, Game, State
    from .core.registry import available_games, make

__version__ = "0.1.0"

#: the names imported on first use: ``import stonegarden`` (and so every command, before it
#: can answer Ctrl-C in one line) loads neither numpy nor numba
_LAZY = {"CHANCE": ".core.protocol", "Game": ".core.protocol", "State": ".core.protocol",
         "available_games": ".core.registry", "make": ".core.registry"}

__all__ = [
    "CHANCE",
    "Game",
    "IllegalMoveError",
    "NotationError",
    "ParameterError",
    "PositionError",
    "RecordError",
    "State",
    "StonegardenError",
    "available_games",
    "make",
]


def __getattr__(name: str) -> Any:
    if name in _LAZY:
        value = getattr(import_module(_LAZY[name], __name__), name)
        globals()[name] = value
        return value
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def __dir__() -> list[str]:
    return sorted({*globals(), *_LAZY})
