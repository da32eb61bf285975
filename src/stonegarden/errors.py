"""The one error hierarchy. Every class is also a ``ValueError`` so callers that only know
Python's built-ins still catch bad input, and every message quotes the input with ``!r``; but
``Terminated``, the SIGTERM a command takes as a Ctrl-C, which is a ``KeyboardInterrupt``."""

from __future__ import annotations


class Terminated(KeyboardInterrupt):
    """SIGTERM (``timeout``, ``kill``, a service manager), which a command takes as a Ctrl-C
    (``cli.main.stop_on_sigterm``): caught wherever a Ctrl-C is, but never, as a Ctrl-C may
    be, as the stop of one step alone (the terminal game's ``hint``): it ends the command."""


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


class StoreError(StonegardenError):
    """Stored data that cannot be used: a corrupt or missing database file, a missing table, a
    schema written by a newer version, or one game's damaged row."""


class JobError(StonegardenError):
    """A background job that did not finish. ``reason`` says why: ``deadline`` (stopped at
    its deadline), ``memory`` (over its memory bound), ``died`` (its worker process ended),
    ``input`` (the job's input was refused, with the error class in ``kind``), ``crash`` (a
    bug), ``closing`` (the server is stopping) or ``busy`` (refused: the queue is full)."""

    def __init__(self, message: str, reason: str = "crash", kind: str = "") -> None:
        self.reason = reason
        self.kind = kind
        super().__init__(message)


class QueueFullError(JobError):
    """A job refused because the queue, or the client's share of it, is full; try again after
    ``retry_after`` seconds."""

    def __init__(self, message: str, retry_after: int) -> None:
        self.retry_after = retry_after
        super().__init__(message, "busy")


def quote(value: object, limit: int = 80) -> str:
    """``repr(value)`` for an error message, cut to about ``limit`` characters. Never raises,
    whatever the input: a huge integer, deeply nested lists or a lone surrogate give a short
    description instead of a second error."""
    try:
        text = repr(value)
    except (ValueError, RecursionError, MemoryError):
        return f"<{type(value).__name__} too large or too deep to show>"
    return text if len(text) <= limit else text[: limit - 3] + "..."


class RecordError(StonegardenError):
    """A game record that is malformed, or whose moves or result do not replay."""

    def __init__(self, message: str, entry: int | None = None, text: str | None = None,
                 key: str | None = None) -> None:
        self.entry = entry
        self.text = text
        #: the key the record should not hold (``"reslt"``, ``"result.winnr"``), if that is the error
        self.key = key
        super().__init__(message)


__all__ = [
    "IllegalMoveError",
    "JobError",
    "NotationError",
    "ParameterError",
    "PositionError",
    "QueueFullError",
    "RecordError",
    "StonegardenError",
    "StoreError",
    "Terminated",
    "quote",
]
