"""Where the web app keeps its games: one small interface (:class:`Store`) over SQLite today,
with versioned migrations written so that a PostgreSQL implementation can share them.

``open_store(target)`` opens the store a ``--db`` value names (a SQLite file path), checks it
and brings its schema up to date, or raises :class:`~stonegarden.errors.StoreError` with one
line naming the file and the cause. Nothing is ever dropped or recreated silently."""

from __future__ import annotations

from pathlib import Path

from ..errors import StoreError
from .base import GameRow, GameSummary, NewGame, StaleError, Store, default_db_path
from .migrations import MIGRATIONS, SCHEMA_VERSION, Migration

__all__ = [
    "MIGRATIONS",
    "SCHEMA_VERSION",
    "GameRow",
    "GameSummary",
    "Migration",
    "NewGame",
    "StaleError",
    "Store",
    "default_db_path",
    "open_store",
]


def open_store(target: str | Path) -> Store:
    """The store ``target`` names: a SQLite file (created with the current schema when absent).

    Raises:
        StoreError: an unknown scheme, an unreadable or corrupt file, a missing table, or a
        schema newer than this version knows.
    """
    text = str(target)
    scheme, sep, _ = text.partition("://")
    if sep and scheme.lower() != "sqlite":
        raise StoreError(f"--db {text!r}: this version keeps games only in SQLite files "
                         f"(a path), not {scheme!r}")
    from .sqlite import SQLiteStore

    return SQLiteStore(Path(text.partition("://")[2] if sep else text))
