"""The SQLite store (stdlib ``sqlite3``, WAL journal, ``synchronous=FULL``).

Every move is one row written in its own transaction the moment it is accepted, so a restart
or a crash loses nothing. Opening checks the file (``PRAGMA quick_check``) and its tables, and
applies pending migrations; a problem stops the start with one line naming the file and the
cause, and nothing is recreated or dropped.
"""

from __future__ import annotations

import json
import sqlite3
import time
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from ..errors import StoreError
from .base import (
    GameRow,
    GameSummary,
    NewGame,
    StaleError,
    analysis_from,
    row_from,
    summary_from,
)
from .migrations import MIGRATIONS, SCHEMA_VERSION, V1_COLUMNS, VERSION_TABLE, tables_at

#: the most ids one ``list_games(ids=...)`` call looks up
MAX_IDS = 100


class SQLiteStore:
    """The games in one SQLite file. One short-lived connection per operation keeps it safe to
    use from several threads (and several processes)."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self.location = str(path)
        if path.exists() and not path.is_file():
            raise StoreError(f"{path}: not a file")
        try:
            path.parent.mkdir(parents=True, exist_ok=True)
        except OSError as exc:
            raise StoreError(f"{path}: cannot create its folder ({exc.strerror})") from None
        with self._connect(check=True) as con:
            self._migrate(con)

    # -- connections ----------------------------------------------------------------------------
    @contextmanager
    def _connect(self, check: bool = False) -> Iterator[sqlite3.Connection]:
        """A connection; any SQLite failure inside becomes a one-line :class:`StoreError`."""
        try:
            con = sqlite3.connect(self.path, timeout=30, isolation_level=None)
        except sqlite3.Error as exc:
            raise StoreError(f"{self.path}: cannot open it ({exc})") from None
        con.row_factory = sqlite3.Row
        try:
            if check:
                (verdict,) = con.execute("PRAGMA quick_check(1)").fetchone()
                if verdict != "ok":
                    raise StoreError(f"{self.path}: the database is corrupt ({verdict})")
                con.execute("PRAGMA journal_mode=WAL")
            con.execute("PRAGMA foreign_keys=ON")
            con.execute("PRAGMA synchronous=FULL")
            yield con
        except sqlite3.Error as exc:
            raise StoreError(f"{self.path}: {exc}") from None
        finally:
            con.close()

    @contextmanager
    def _transaction(self) -> Iterator[sqlite3.Connection]:
        with self._connect() as con:
            con.execute("BEGIN IMMEDIATE")
            try:
                yield con
            except BaseException:
                con.execute("ROLLBACK")
                raise
            con.execute("COMMIT")

    # -- schema ---------------------------------------------------------------------------------
    def _migrate(self, con: sqlite3.Connection) -> None:
        tables = {r[0] for r in con.execute("SELECT name FROM sqlite_master WHERE type='table'")}
        if "schema_migrations" in tables:
            version = con.execute("SELECT max(version) FROM schema_migrations").fetchone()[0] or 0
        elif not tables & {"games", "moves"}:
            version = 0  # a new file
        else:
            version = self._adopt(con, tables)
        if version > SCHEMA_VERSION:
            raise StoreError(f"{self.path}: schema version {version} was written by a newer "
                             f"stonegarden (this one knows up to {SCHEMA_VERSION})")
        for table in tables_at(version):
            if table not in tables:
                raise StoreError(f"{self.path}: table {table!r} is missing (schema version "
                                 f"{version}); nothing was changed: restore the file from a "
                                 "backup")
        for m in MIGRATIONS:
            if m.version > version:
                con.execute("BEGIN IMMEDIATE")
                try:
                    con.execute(VERSION_TABLE)
                    for statement in m.statements:
                        con.execute(statement)
                    con.execute("INSERT INTO schema_migrations (version, name, applied) "
                                "VALUES (?, ?, ?)", (m.version, m.name, time.time()))
                except BaseException:
                    con.execute("ROLLBACK")
                    raise
                con.execute("COMMIT")

    def _adopt(self, con: sqlite3.Connection, tables: set[str]) -> int:
        """A file made before schema versions were recorded: version 1 if its tables are
        exactly those of version 1 (recorded as such), else a damaged file."""
        for table, columns in V1_COLUMNS.items():
            if table not in tables:
                raise StoreError(f"{self.path}: table {table!r} is missing (a file of games "
                                 "without a schema version); nothing was changed: restore the "
                                 "file from a backup")
            found = tuple(r[1] for r in con.execute(f"PRAGMA table_info({table})"))
            if found != columns:
                raise StoreError(f"{self.path}: table {table!r} has columns {list(found)!r}, "
                                 "not those of any stonegarden schema")
        con.execute("BEGIN IMMEDIATE")
        con.execute(VERSION_TABLE)
        con.execute("INSERT INTO schema_migrations (version, name, applied) VALUES (?, ?, ?)",
                    (1, MIGRATIONS[0].name, time.time()))
        con.execute("COMMIT")
        return 1

    def schema_version(self) -> int:
        with self._connect() as con:
            return int(con.execute("SELECT max(version) FROM schema_migrations").fetchone()[0])

    # -- writing --------------------------------------------------------------------------------
    def create_game(self, new: NewGame) -> None:
        now = time.time()
        with self._transaction() as con:
            con.execute(
                "INSERT INTO games (id, game, params, seat1, seat2, secret1, secret2, result,"
                " created, updated, listed, hints) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                (new.id, new.game, json.dumps(new.params), new.seats[0], new.seats[1],
                 new.secrets[0], new.secrets[1],
                 json.dumps(new.result) if new.result is not None else None, now, now,
                 new.listed, new.hints),
            )
            con.executemany(
                "INSERT INTO moves (game_id, ply, text, created) VALUES (?, ?, ?, ?)",
                [(new.id, i, m, now) for i, m in enumerate(new.moves)],
            )

    def append_move(self, game_id: str, ply: int, text: str, result: dict[str, Any] | None,
                    redo: Sequence[str] = ()) -> None:
        now = time.time()
        with self._transaction() as con:
            self._check_count(con, game_id, ply)
            con.execute("INSERT INTO moves (game_id, ply, text, created) VALUES (?, ?, ?, ?)",
                        (game_id, ply, text, now))
            self._finish(con, game_id, result, redo, now)

    def truncate(self, game_id: str, keep: int, count: int, result: dict[str, Any] | None,
                 redo: Sequence[str]) -> None:
        now = time.time()
        with self._transaction() as con:
            self._check_count(con, game_id, count)
            con.execute("DELETE FROM moves WHERE game_id = ? AND ply >= ?", (game_id, keep))
            self._finish(con, game_id, result, redo, now)

    @staticmethod
    def _check_count(con: sqlite3.Connection, game_id: str, expected: int) -> None:
        (count,) = con.execute("SELECT count(*) FROM moves WHERE game_id = ?",
                               (game_id,)).fetchone()
        if count != expected:
            raise StaleError(f"game {game_id!r} has {count} moves, not {expected}")

    @staticmethod
    def _finish(con: sqlite3.Connection, game_id: str, result: dict[str, Any] | None,
                redo: Sequence[str], now: float) -> None:
        con.execute(
            "UPDATE games SET result = ?, redo = ?, updated = ? WHERE id = ?",
            (json.dumps(result) if result is not None else None, json.dumps(list(redo)), now,
             game_id),
        )

    # -- reading --------------------------------------------------------------------------------
    def get(self, game_id: str) -> GameRow | None:
        with self._connect() as con:
            row = con.execute("SELECT * FROM games WHERE id = ?", (game_id,)).fetchone()
            if row is None:
                return None
            moves = [m for (m,) in con.execute(
                "SELECT text FROM moves WHERE game_id = ? ORDER BY ply", (game_id,))]
        return row_from(row, moves)

    def list_games(self, limit: int = 200, listed_only: bool = True,
                   ids: Sequence[str] | None = None) -> list[GameSummary]:
        query = ("SELECT g.*, (SELECT count(*) FROM moves m WHERE m.game_id = g.id) AS n"
                 " FROM games g")
        args: list[Any] = []
        if ids is not None:
            chosen = list(ids)[:MAX_IDS]
            query += f" WHERE g.id IN ({', '.join('?' * len(chosen))})" if chosen else " WHERE 0"
            args += chosen
        elif listed_only:
            query += " WHERE g.listed = TRUE"
        query += " ORDER BY g.updated DESC LIMIT ?"
        with self._connect() as con:
            rows = con.execute(query, (*args, limit)).fetchall()
        out = []
        for row in rows:
            try:
                out.append(summary_from(row, row["n"]))
            except StoreError:
                continue  # a damaged row: that game is unavailable, the listing goes on
        return out

    def unfinished_with_agents(self, limit: int = 1000) -> list[str]:
        with self._connect() as con:
            return [r[0] for r in con.execute(
                "SELECT id FROM games WHERE result IS NULL AND (seat1 != 'human' OR"
                " seat2 != 'human') ORDER BY updated DESC LIMIT ?", (limit,))]

    def put_analysis(self, game_id: str, engine: str, points: Sequence[dict[str, Any]]) -> None:
        with self._transaction() as con:
            con.execute("DELETE FROM analyses WHERE game_id = ?", (game_id,))
            con.execute("INSERT INTO analyses (game_id, engine, points, updated)"
                        " VALUES (?, ?, ?, ?)",
                        (game_id, engine, json.dumps(list(points)), time.time()))

    def get_analysis(self, game_id: str) -> tuple[str, list[dict[str, Any]]] | None:
        with self._connect() as con:
            row = con.execute("SELECT engine, points FROM analyses WHERE game_id = ?",
                              (game_id,)).fetchone()
        return None if row is None else analysis_from(game_id, row[0], row[1])

    def close(self) -> None:
        """Nothing stays open between operations."""
