"""stonegarden: play, study and design Go-like abstract games.

>>> import stonegarden
>>> game = stonegarden.make("blooms", size=4)
>>> state = game.play_text(game.initial_state(), "Rd4")
>>> game.count_legal_actions(state)
1332
"""

from .core.protocol import CHANCE, Game, State
from .core.registry import available_games, make
from .errors import (
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
