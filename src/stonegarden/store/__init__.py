"""Where the web app keeps its games: one small interface (:class:`Store`) over SQLite (the
embedded default) and PostgreSQL (several server processes sharing one database), with one
list of versioned migrations both read.

``open_store(target)`` opens the store a ``--db`` value names (a SQLite file path, or
``postgresql://...``), checks it and brings its schema up to date, or raises
:class:`~stonegarden.errors.StoreError` with one line naming the file or server and the cause.
Nothing is ever dropped or recreated silently."""

from __future__ import annotations

from pathlib import Path

from ..errors import StoreError, quote
from .base import AnalysisClaim, GameRow, GameSummary, NewGame, StaleError, Store, default_db_path
from .migrations import MIGRATIONS, SCHEMA_VERSION, Migration

__all__ = [
    "MIGRATIONS",
    "SCHEMA_VERSION",
    "AnalysisClaim",
    "GameRow",
    "GameSummary",
    "Migration",
    "NewGame",
    "StaleError",
    "Store",
    "default_db_path",
    "open_store",
    "sqlite_file",
]


#: the --db schemes served, besides a plain path
SCHEMES = ("sqlite", "postgresql", "postgres")


def open_store(target: str | Path) -> Store:
    """The store ``target`` names: a SQLite file (a path or ``sqlite://PATH``, created with the
    current schema when absent) or a PostgreSQL database (``postgresql://...``, whose schema
    is created or migrated).

    Raises:
        StoreError: an unknown scheme, an unreachable server, an unreadable or corrupt file, a
        missing table, or a schema newer than this version knows.
    """
    text = str(target)
    path = sqlite_file(text)
    if path is not None:
        from .sqlite import SQLiteStore

        return SQLiteStore(path)
    from .postgres import PostgresStore

    return PostgresStore(text)


def sqlite_file(target: str | Path) -> Path | None:
    """The SQLite file ``target`` names (a path or ``sqlite://PATH``), ``None`` for a
    PostgreSQL database.

    Raises:
        StoreError: an unknown scheme.
    """
    text = str(target)
    scheme, sep, rest = text.partition("://")
    if not sep:
        return Path(text)
    if scheme.lower() not in SCHEMES:
        from .postgres import redacted

        raise StoreError(f"--db {quote(redacted(text), 80)}: unknown scheme {scheme!r}; use a SQLite file "
                         "path or postgresql://user@host:port/database")
    return Path(rest) if scheme.lower() == "sqlite" else None
