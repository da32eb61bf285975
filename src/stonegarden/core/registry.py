"""The registry of games: ``make(game_id, **params)`` and ``available_games()``.

Games register themselves with ``@register`` when ``stonegarden.games`` is imported; adding a
game is one import line there."""

from __future__ import annotations

from typing import Any, TypeVar

from ..errors import ParameterError, quote
from .protocol import Game

_GAMES: dict[str, type[Game]] = {}
G = TypeVar("G", bound=type[Game])


def register(cls: G) -> G:
    """Class decorator that adds a game class under its ``id``.

    Raises:
        ValueError: another class is registered under that id (a programming error, so not
        one of the input errors of ``stonegarden.errors``).
    """
    if cls.id in _GAMES and _GAMES[cls.id] is not cls:
        raise ValueError(f"game id {cls.id!r} registered twice")
    _GAMES[cls.id] = cls
    return cls


def _load() -> None:
    from .. import games  # noqa: F401  (importing registers every game)


def available_games() -> list[str]:
    """The registered game ids, in registration order."""
    _load()
    return list(_GAMES)


def game_class(game_id: str) -> type[Game]:
    """Raises: ParameterError for an unknown id."""
    _load()
    if not isinstance(game_id, str) or game_id not in _GAMES:
        raise ParameterError(f"unknown game {quote(game_id)} (known: {', '.join(_GAMES)})")
    return _GAMES[game_id]


def make(game_id: str, /, **params: Any) -> Game:
    """A game object with validated parameters.

    Raises:
        ParameterError: unknown game, unknown parameter, or a bad value.
    """
    return game_class(game_id)(**params)
