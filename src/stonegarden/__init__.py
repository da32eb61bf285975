"""stonegarden: play, study and design Go-like abstract games.

>>> import stonegarden
>>> game = stonegarden.make("blooms", size=4)
>>> state = game.play_text(game.initial_state(), "Rd4")
>>> game.count_legal_actions(state)
1332
"""

from .kernel_cache import configure as _configure_kernel_cache

_configure_kernel_cache()  # before any kernel module is imported (kernel_cache.py says why)

from .core.protocol import CHANCE, Game, State  # noqa: E402
from .core.registry import available_games, make  # noqa: E402
from .errors import (  # noqa: E402
    IllegalMoveError,
    NotationError,
    ParameterError,
    PositionError,
    RecordError,
    StonegardenError,
)

__version__ = "0.1.0"

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
