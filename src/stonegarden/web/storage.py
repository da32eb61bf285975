"""SQLite storage of games and moves (stdlib ``sqlite3``, WAL mode).

Every move is one row written in its own transaction the moment it is accepted, so a restart
or a crash loses nothing. A move is appended only if the stored game still has exactly the
expected number of moves (``BEGIN IMMEDIATE`` then a count check), which makes concurrent
writers safe without any lock in the server.
"""

from __future__ import annotations

import json
import sqlite3
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

SCHEMA = """
CREATE TABLE IF NOT EXISTS games (
    id TEXT PRIMARY KEY,
    game TEXT NOT NULL,
    params TEXT NOT NULL,
    seat1 TEXT NOT NULL,
    seat2 TEXT NOT NULL,
    secret1 TEXT NOT NULL,
    secret2 TEXT NOT NULL,
    redo TEXT NOT NULL DEFAULT '[]',
    result TEXT,
    created REAL NOT NULL,
    updated REAL NOT NULL
);
CREATE TABLE IF NOT EXISTS moves (
    game_id TEXT NOT NULL REFERENCES games(id) ON DELETE CASCADE,
    ply INTEGER NOT NULL,
    text TEXT NOT NULL,
    created REAL NOT NULL,
    PRIMARY KEY (game_id, ply)
);
"""


class StaleError(Exception):
    """The stored game changed since the caller read it (another move came first)."""


@dataclass(frozen=True)
class GameRow:
    """One stored game. ``seats`` are ``human`` or agent specs; secrets never leave the server
    except to the creator of the game."""

    id: str
    game: str
    params: dict[str, Any]
    seats: tuple[str, str]
    secrets: tuple[str, str]
    moves: tuple[str, ...]
    redo: tuple[str, ...]
    result: dict[str, Any] | None
    created: float
    updated: float


def default_db_path() -> Path:
    """``$XDG_DATA_HOME/stonegarden/games.db`` (``~/.local/share/...`` by default)."""
    import os

    base = os.environ.get("XDG_DATA_HOME") or str(Path.home() / ".local" / "share")
    return Path(base) / "stonegarden" / "games.db"


class Store:
    """The games database. One short-lived connection per operation keeps it thread-safe."""

    def __init__(self, path: str | Path) -> None:
        self.path = Path(path)
        self.path.parent.mkdir(parents=True, exist_ok=True)
        with self._connect() as con:
            con.execute("PRAGMA journal_mode=WAL")
            con.executescript(SCHEMA)

    @contextmanager
    def _connect(self) -> Iterator[sqlite3.Connection]:
        con = sqlite3.connect(self.path, timeout=30, isolation_level=None)
        try:
            con.execute("PRAGMA foreign_keys=ON")
            con.execute("PRAGMA synchronous=FULL")
            yield con
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

    # -- writing ----------------------------------------------------------------------------
    def create_game(self, game_id: str, game: str, params: dict[str, Any],
                    seats: tuple[str, str], secrets: tuple[str, str],
                    moves: tuple[str, ...] = (), result: dict[str, Any] | None = None) -> None:
        """Store a new game (and, for an uploaded record, its moves) in one transaction."""
        now = time.time()
        with self._transaction() as con:
            con.execute(
                "INSERT INTO games (id, game, params, seat1, seat2, secret1, secret2, result,"
                " created, updated) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                (game_id, game, json.dumps(params), seats[0], seats[1], secrets[0], secrets[1],
                 json.dumps(result) if result is not None else None, now, now),
            )
            con.executemany(
                "INSERT INTO moves (game_id, ply, text, created) VALUES (?, ?, ?, ?)",
                [(game_id, i, m, now) for i, m in enumerate(moves)],
            )

    def append_move(self, game_id: str, ply: int, text: str, result: dict[str, Any] | None,
                    redo: tuple[str, ...] = ()) -> None:
        """Append move number ``ply`` (0-based).

        Raises:
            StaleError: the stored game does not have exactly ``ply`` moves.
        """
        now = time.time()
        with self._transaction() as con:
            (count,) = con.execute("SELECT count(*) FROM moves WHERE game_id = ?",
                                   (game_id,)).fetchone()
            if count != ply:
                raise StaleError(f"game {game_id!r} has {count} moves, not {ply}")
            con.execute("INSERT INTO moves (game_id, ply, text, created) VALUES (?, ?, ?, ?)",
                        (game_id, ply, text, now))
            self._finish(con, game_id, result, redo, now)

    def truncate(self, game_id: str, keep: int, count: int, result: dict[str, Any] | None,
                 redo: tuple[str, ...]) -> None:
        """Keep the first ``keep`` moves of a game that has ``count`` (undo).

        Raises:
            StaleError: the stored game does not have exactly ``count`` moves.
        """
        now = time.time()
        with self._transaction() as con:
            (stored,) = con.execute("SELECT count(*) FROM moves WHERE game_id = ?",
                                    (game_id,)).fetchone()
            if stored != count:
                raise StaleError(f"game {game_id!r} has {stored} moves, not {count}")
            con.execute("DELETE FROM moves WHERE game_id = ? AND ply >= ?", (game_id, keep))
            self._finish(con, game_id, result, redo, now)

    @staticmethod
    def _finish(con: sqlite3.Connection, game_id: str, result: dict[str, Any] | None,
                redo: tuple[str, ...], now: float) -> None:
        con.execute(
            "UPDATE games SET result = ?, redo = ?, updated = ? WHERE id = ?",
            (json.dumps(result) if result is not None else None, json.dumps(list(redo)), now,
             game_id),
        )

    # -- reading ----------------------------------------------------------------------------
    def get(self, game_id: str) -> GameRow | None:
        """The stored game with its moves, or ``None``."""
        with self._connect() as con:
            row = con.execute("SELECT * FROM games WHERE id = ?", (game_id,)).fetchone()
            if row is None:
                return None
            moves = [m for (m,) in con.execute(
                "SELECT text FROM moves WHERE game_id = ? ORDER BY ply", (game_id,))]
        return _row(row, tuple(moves))

    def list_games(self, limit: int = 200) -> list[GameRow]:
        """The most recently updated games (moves included), newest first."""
        with self._connect() as con:
            rows = con.execute("SELECT * FROM games ORDER BY updated DESC LIMIT ?",
                               (limit,)).fetchall()
            out = []
            for row in rows:
                moves = [m for (m,) in con.execute(
                    "SELECT text FROM moves WHERE game_id = ? ORDER BY ply", (row[0],))]
                out.append(_row(row, tuple(moves)))
        return out


def _row(row: tuple[Any, ...], moves: tuple[str, ...]) -> GameRow:
    (gid, game, params, seat1, seat2, secret1, secret2, redo, result, created, updated) = row
    return GameRow(
        id=gid, game=game, params=json.loads(params), seats=(seat1, seat2),
        secrets=(secret1, secret2), moves=moves, redo=tuple(json.loads(redo)),
        result=json.loads(result) if result else None, created=created, updated=updated,
    )
