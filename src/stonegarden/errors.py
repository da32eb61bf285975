"""The one error hierarchy. Every class is also a ``ValueError`` so callers that only know
Python's built-ins still catch bad input, and every message quotes the input with ``!r``."""

from __future__ import annotations


class StonegardenError(ValueError):
    """Base of every error stonegarden raises for bad input."""


class NotationError(StonegardenError):
    """Move, cell or position text that cannot be read at all."""


class IllegalMoveError(StonegardenError):
    """A well-formed move that the rules forbid in the given position."""

    def __init__(self, move: object, reason: str, position: str | None = None) -> None:
        self.move = move
        self.reason = reason
        self.position = position
        where = f" in position {position!r}" if position else ""
        super().__init__(f"illegal move {move!r}: {reason}{where}")


class PositionError(StonegardenError):
    """A position that cannot arise or that contradicts the game's parameters."""


class ParameterError(StonegardenError):
    """An unknown game, an unknown parameter or a parameter value out of range."""


class RecordError(StonegardenError):
    """A game record that is malformed, or whose moves or result do not replay."""

    def __init__(self, message: str, entry: int | None = None, text: str | None = None) -> None:
        self.entry = entry
        self.text = text
        super().__init__(message)


__all__ = [
    "IllegalMoveError",
    "NotationError",
    "ParameterError",
    "PositionError",
    "RecordError",
    "StonegardenError",
]
