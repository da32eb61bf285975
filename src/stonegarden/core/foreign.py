"""Readers of other programs' game records: a game package registers one for each format it
reads (Blooms: Abstract Play's records), saying how to recognise the format in decoded JSON and
how to turn it into a ``Record``. ``convert`` and the web app's upload ask ``foreign_reader``
before reading a record as ours, so they know no game and no format."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from .record import Record
from .registry import available_games


@dataclass(frozen=True)
class ForeignReader:
    """A reader of another program's records: ``name`` says which (for people),
    ``recognises(data)`` tells decoded JSON of its format from anything else, and
    ``read(data, source)`` turns it into a record, every move replayed through the rules,
    ``source`` naming the input in its messages.

    ``read`` raises ``RecordError`` for a record of its format it cannot take."""

    name: str
    recognises: Callable[[Any], bool]
    read: Callable[[Any, str], Record]


_READERS: list[ForeignReader] = []


def register_reader(reader: ForeignReader) -> ForeignReader:
    """Add ``reader`` (a game package does this when it is imported).

    Raises:
        ValueError: another reader is registered under that name (a programming error).
    """
    if any(r.name == reader.name and r is not reader for r in _READERS):
        raise ValueError(f"record reader {reader.name!r} registered twice")
    if reader not in _READERS:
        _READERS.append(reader)
    return reader


def foreign_readers() -> list[ForeignReader]:
    """The registered readers, every game package imported first."""
    available_games()  # importing the games registers their readers
    return list(_READERS)


def foreign_reader(data: Any) -> ForeignReader | None:
    """The reader of the format of ``data`` (decoded JSON), or None when no registered reader
    recognises it (then it may be one of ours)."""
    return next((r for r in foreign_readers() if r.recognises(data)), None)
