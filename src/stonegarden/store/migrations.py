"""The schema, as numbered migrations shared by every store implementation.

Each migration is a list of statements in the SQL that SQLite and PostgreSQL both read:
``TEXT``, ``BIGINT``, ``DOUBLE PRECISION``, ``BOOLEAN`` with ``TRUE``/``FALSE``, ``ALTER
TABLE ... ADD COLUMN``, ``CREATE INDEX``. A store applies the ones above the version recorded in
``schema_migrations``, each in one transaction with the row that records it, so a crash leaves
the schema at one version or the next, never between. Migrations are only ever appended:
released ones never change.
"""

from __future__ import annotations

import logging
from collections.abc import Collection
from dataclasses import dataclass

from ..errors import StoreError


@dataclass(frozen=True)
class Migration:
    """Schema version ``version``: what it does, the statements, and the tables it creates
    (a store at this version or later must have them)."""

    version: int
    name: str
    statements: tuple[str, ...]
    creates: tuple[str, ...] = ()


#: the table that records applied migrations (itself created before the first migration)
VERSION_TABLE = (
    "CREATE TABLE IF NOT EXISTS schema_migrations ("
    " version BIGINT PRIMARY KEY,"
    " name TEXT NOT NULL,"
    " applied DOUBLE PRECISION NOT NULL)"
)

MIGRATIONS: tuple[Migration, ...] = (
    Migration(1, "games and their moves", (
        """CREATE TABLE games (
            id TEXT PRIMARY KEY,
            game TEXT NOT NULL,
            params TEXT NOT NULL,
            seat1 TEXT NOT NULL,
            seat2 TEXT NOT NULL,
            secret1 TEXT NOT NULL,
            secret2 TEXT NOT NULL,
            redo TEXT NOT NULL DEFAULT '[]',
            result TEXT,
            created DOUBLE PRECISION NOT NULL,
            updated DOUBLE PRECISION NOT NULL
        )""",
        """CREATE TABLE moves (
            game_id TEXT NOT NULL REFERENCES games(id) ON DELETE CASCADE,
            ply BIGINT NOT NULL,
            text TEXT NOT NULL,
            created DOUBLE PRECISION NOT NULL,
            PRIMARY KEY (game_id, ply)
        )""",
    ), creates=("games", "moves")),
    Migration(2, "listed games and hints agreed at creation", (
        "ALTER TABLE games ADD COLUMN listed BOOLEAN NOT NULL DEFAULT FALSE",
        "ALTER TABLE games ADD COLUMN hints BOOLEAN NOT NULL DEFAULT FALSE",
        "CREATE INDEX games_listed_updated ON games (listed, updated)",
    )),
    Migration(3, "players' names, open seats, clocks, rematches and the servers' heartbeat", (
        "ALTER TABLE games ADD COLUMN name1 TEXT",
        "ALTER TABLE games ADD COLUMN name2 TEXT",
        "ALTER TABLE games ADD COLUMN to_move BIGINT",
        "ALTER TABLE games ADD COLUMN clock TEXT",
        "ALTER TABLE games ADD COLUMN deadline DOUBLE PRECISION",
        "ALTER TABLE games ADD COLUMN rematch TEXT",
        "CREATE INDEX games_deadline ON games (deadline)",
        """CREATE TABLE heartbeat (
            id BIGINT PRIMARY KEY,
            alive DOUBLE PRECISION NOT NULL
        )""",
    ), creates=("heartbeat",)),
    Migration(4, "the computer's analysis of a game", (
        """CREATE TABLE analyses (
            game_id TEXT PRIMARY KEY REFERENCES games(id) ON DELETE CASCADE,
            engine TEXT NOT NULL,
            points TEXT NOT NULL,
            updated DOUBLE PRECISION NOT NULL
        )""",
    ), creates=("analyses",)),
    Migration(5, "which server process thinks for a game's agent", (
        """CREATE TABLE thinking (
            game_id TEXT PRIMARY KEY REFERENCES games(id) ON DELETE CASCADE,
            ply BIGINT NOT NULL,
            owner TEXT NOT NULL,
            expires DOUBLE PRECISION NOT NULL
        )""",
    ), creates=("thinking",)),
    Migration(6, "which server process runs a game's analysis", (
        """CREATE TABLE analysing (
            game_id TEXT PRIMARY KEY REFERENCES games(id) ON DELETE CASCADE,
            owner TEXT NOT NULL,
            client TEXT NOT NULL,
            expires DOUBLE PRECISION NOT NULL,
            cancelled BOOLEAN NOT NULL DEFAULT FALSE
        )""",
    ), creates=("analysing",)),
    Migration(7, "the time control an uploaded record says its game was played under", (
        "ALTER TABLE games ADD COLUMN time_control TEXT",
    )),
)

SCHEMA_VERSION = MIGRATIONS[-1].version

#: the columns of the tables of version 1: a database made before versioning existed is
#: recognised as version 1 when its tables have exactly these
V1_COLUMNS = {
    "games": ("id", "game", "params", "seat1", "seat2", "secret1", "secret2", "redo", "result",
              "created", "updated"),
    "moves": ("game_id", "ply", "text", "created"),
}


log = logging.getLogger("stonegarden.store")


def report_migration(location: str, version: int) -> None:
    """Say in the server's log that the schema of ``location``, found at ``version``, was
    brought up to date: a change an older stonegarden cannot undo (it refuses a newer schema).
    A new database (version 0) is not news."""
    if 0 < version < SCHEMA_VERSION:
        log.warning("stonegarden: %s: schema migrated from version %d to %d (an older "
                    "stonegarden no longer opens it)", location, version, SCHEMA_VERSION)


def tables_at(version: int) -> tuple[str, ...]:
    """The tables a store at ``version`` must have."""
    return tuple(t for m in MIGRATIONS if m.version <= version for t in m.creates)


def check_schema(location: str, version: int, tables: Collection[str]) -> None:
    """Refuse a schema newer than this code, or one missing a table its version has.

    Raises:
        StoreError: one line naming ``location`` and the cause; nothing is changed.
    """
    if version > SCHEMA_VERSION:
        raise StoreError(f"{location}: schema version {version} was written by a newer "
                         f"stonegarden (this one knows up to {SCHEMA_VERSION})")
    for table in tables_at(version):
        if table not in tables:
            raise StoreError(f"{location}: table {table!r} is missing (schema version "
                             f"{version}); nothing was changed: restore it from a backup")
