"""The games store: versioned migrations (a file made before versions existed is adopted), and
faults: a damaged row makes one game unavailable; a missing table, a corrupt file or a newer
schema stops the start with one line naming the file and the cause; nothing is recreated."""

from __future__ import annotations

import re
import sqlite3
from pathlib import Path

import pytest

pytest.importorskip("httpx2", reason="starlette's TestClient needs httpx2 (test extra)")
from starlette.testclient import TestClient

from stonegarden.errors import StoreError
from stonegarden.store import MIGRATIONS, SCHEMA_VERSION, NewGame, open_store
from stonegarden.store.migrations import V1_COLUMNS
from stonegarden.web.app import create_app

#: the schema the first version wrote, without a version table
V1_SCHEMA = """
CREATE TABLE games (id TEXT PRIMARY KEY, game TEXT NOT NULL, params TEXT NOT NULL,
    seat1 TEXT NOT NULL, seat2 TEXT NOT NULL, secret1 TEXT NOT NULL, secret2 TEXT NOT NULL,
    redo TEXT NOT NULL DEFAULT '[]', result TEXT, created REAL NOT NULL, updated REAL NOT NULL);
CREATE TABLE moves (game_id TEXT NOT NULL REFERENCES games(id) ON DELETE CASCADE,
    ply INTEGER NOT NULL, text TEXT NOT NULL, created REAL NOT NULL,
    PRIMARY KEY (game_id, ply));
INSERT INTO games VALUES ('old', 'blooms', '{"size": 3}', 'human', 'random', 'k1', 'k2', '[]',
    NULL, 1.0, 2.0);
INSERT INTO moves VALUES ('old', 0, 'Rc3', 1.5);
"""


def tables(db: Path) -> set[str]:
    with sqlite3.connect(db) as con:
        return {r[0] for r in con.execute("SELECT name FROM sqlite_master WHERE type='table'")}


def test_a_new_file_gets_every_migration_recorded(tmp_path: Path):
    db = tmp_path / "games.db"
    store = open_store(db)
    assert {"games", "moves", "schema_migrations"} <= tables(db)
    with sqlite3.connect(db) as con:
        rows = con.execute("SELECT version, name FROM schema_migrations ORDER BY version")
        assert [v for v, _ in rows] == [m.version for m in MIGRATIONS]
    assert store.schema_version() == SCHEMA_VERSION
    open_store(db)  # opening again changes nothing
    assert store.schema_version() == SCHEMA_VERSION


def test_a_file_made_before_versions_is_adopted_and_migrated_with_its_games(tmp_path: Path):
    db = tmp_path / "games.db"
    with sqlite3.connect(db) as con:
        con.executescript(V1_SCHEMA)
    store = open_store(db)
    assert store.schema_version() == SCHEMA_VERSION
    row = store.get("old")
    assert row is not None and row.moves == ("Rc3",) and row.seats == ("human", "random")
    assert not row.listed and not row.hints  # the columns added later take their defaults
    assert tuple(V1_COLUMNS["moves"]) == ("game_id", "ply", "text", "created")


def test_migrations_use_only_sql_that_sqlite_and_postgresql_share():
    """Types and statements a PostgreSQL store can run as they are."""
    allowed_types = {"TEXT", "BIGINT", "DOUBLE PRECISION", "BOOLEAN"}
    typed = 0
    for m in MIGRATIONS:
        for statement in m.statements:
            sql = " ".join(statement.split()).upper()
            assert re.match(r"(CREATE TABLE|ALTER TABLE \w+ ADD COLUMN|CREATE INDEX) ", sql), sql
            for word in ("AUTOINCREMENT", " REAL", " INTEGER", "DATETIME", "WITHOUT ROWID",
                         "IF NOT EXISTS", "PRAGMA"):
                assert word not in sql, (word, sql)
            for column_type in re.findall(r"\b\w+ (TEXT|BIGINT|DOUBLE PRECISION|BOOLEAN|\w+) "
                                          r"(?:NOT NULL|PRIMARY KEY|REFERENCES|DEFAULT)", sql):
                assert column_type in allowed_types, (column_type, sql)
                typed += 1
    assert typed >= 10  # the check saw the columns


def test_a_missing_table_stops_the_start_and_nothing_is_recreated(tmp_path: Path, cli):
    db = tmp_path / "games.db"
    open_store(db).create_game(NewGame("g", "blooms", {}, ("human", "human"), ("a", "b"),
                                       ("Rd4",)))
    with sqlite3.connect(db) as con:
        con.execute("DROP TABLE moves")
    with pytest.raises(StoreError, match=r"games\.db: table 'moves' is missing"):
        open_store(db)
    assert "moves" not in tables(db)  # not silently recreated
    out = cli("serve", "--db", str(db), "--port", "0", timeout=120)
    assert out.returncode == 2
    assert out.stderr.strip().count("\n") == 0  # one line
    assert str(db) in out.stderr and "table 'moves' is missing" in out.stderr
    assert "moves" not in tables(db)


def test_a_corrupt_file_stops_the_start_with_one_line(tmp_path: Path, cli):
    db = tmp_path / "games.db"
    db.write_bytes(b"this is not a database " * 500)
    before = db.read_bytes()
    out = cli("serve", "--db", str(db), "--port", "0", timeout=120)
    assert out.returncode == 2 and out.stderr.strip().count("\n") == 0
    assert str(db) in out.stderr and "not a database" in out.stderr
    assert "Traceback" not in out.stderr
    assert db.read_bytes() == before  # untouched


def test_a_schema_from_a_newer_version_is_refused(tmp_path: Path):
    db = tmp_path / "games.db"
    open_store(db)
    with sqlite3.connect(db) as con:
        con.execute("INSERT INTO schema_migrations VALUES (99, 'later', 0)")
    with pytest.raises(StoreError, match="schema version 99 was written by a newer"):
        open_store(db)


def test_a_damaged_row_makes_only_that_game_unavailable(tmp_path: Path):
    db = tmp_path / "games.db"
    store = open_store(db)
    for gid, moves in (("good", ("Rd4",)), ("badjson", ()), ("badmove", ("Zz99",)),
                       ("badgame", ())):
        store.create_game(NewGame(gid, "blooms", {}, ("human", "human"), ("a", "b"), moves,
                                  listed=True))
    with sqlite3.connect(db) as con:
        con.execute("UPDATE games SET params = '{not json' WHERE id = 'badjson'")
        con.execute("UPDATE games SET game = 'chess' WHERE id = 'badgame'")
    with TestClient(create_app(db, workers=1)) as client:  # the server starts
        assert client.get("/api/games/good").status_code == 200
        r = client.get("/api/games/badjson")
        assert r.status_code == 503
        assert r.json()["error"] == ("game 'badjson' is unavailable: its stored params is not "
                                     "JSON ('{not json')")
        r = client.get("/api/games/badmove")
        assert r.status_code == 503 and "'Zz99'" in r.json()["error"]
        r = client.get("/api/games/badgame")
        assert r.status_code == 503 and "unknown game 'chess'" in r.json()["error"]
        listed = {g["id"] for g in client.get("/api/games").json()["games"]}
        assert "good" in listed and "badjson" not in listed
        assert client.get("/games").status_code == 200
        assert client.post("/api/games/good/move",
                           json={"secret": "b", "move": "Kc3"}).status_code == 200



def test_a_migration_is_said_in_the_log_once(tmp_path: Path, cli):
    """A host upgrading sees that the schema moved on (an older version refuses it from
    then on); a start on a current schema, or a new file, says nothing of it. The port is
    taken, so the server opens (and migrates) the file and stops."""
    import socket

    db = tmp_path / "games.db"
    with sqlite3.connect(db) as con:
        con.executescript(V1_SCHEMA)
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = str(taken.getsockname()[1])
        first = cli("serve", "--db", str(db), "--port", port, timeout=120)
        again = cli("serve", "--db", str(db), "--port", port, timeout=120)
        new = cli("serve", "--db", str(tmp_path / "new.db"), "--port", port, timeout=120)
    assert first.returncode == 2
    assert (f"stonegarden: {db}: schema migrated from version 1 to {SCHEMA_VERSION} (an older "
            "stonegarden no longer opens it)\n") in first.stderr
    assert "cannot listen" in first.stderr
    assert "migrated" not in again.stderr and "migrated" not in new.stderr
    assert open_store(db).schema_version() == SCHEMA_VERSION


def test_a_named_file_in_a_folder_that_does_not_exist_is_refused(tmp_path: Path, cli):
    # a mistyped folder (--db /srv/stonegardn/games.db) was made, and an empty site served
    # from it, the games of the folder meant nowhere to be seen
    db = tmp_path / "mistyped" / "games.db"
    out = cli("serve", "--db", str(db), "--port", "0", timeout=120)
    assert out.returncode == 2 and out.stderr.strip().count("\n") == 0
    assert f"the folder {tmp_path / 'mistyped'} does not exist" in out.stderr
    assert not (tmp_path / "mistyped").exists()
    afile = tmp_path / "afile"
    afile.write_text("")
    out = cli("serve", "--db", str(afile / "games.db"), "--port", "0", timeout=120)
    assert out.returncode == 2 and f"{afile} is not a folder" in out.stderr


def test_a_named_file_whose_folder_cannot_be_looked_at_is_refused_in_one_line(tmp_path: Path,
                                                                             cli):
    # a folder name past the file system's 255 bytes: checking that the folder exists raised
    # ENAMETOOLONG as a traceback
    db = tmp_path / ("a" * 300) / "games.db"
    out = cli("serve", "--db", str(db), "--port", "0", timeout=120)
    assert out.returncode == 2 and out.stderr.strip().count("\n") == 0, out.stderr
    assert "cannot open its folder (file name too long)" in out.stderr.lower()
