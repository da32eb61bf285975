"""The SQLite store (stdlib ``sqlite3``, WAL journal, ``synchronous=FULL``).

Every move is one row written in its own transaction the moment it is accepted, so a restart
or a crash loses nothing. Opening checks the file (``PRAGMA quick_check``) and its tables, and
applies pending migrations; a problem stops the start with one line naming the file and the
cause, and nothing is recreated or dropped.
"""

from __future__ import annotations

import errno
import math
import os
import resource
import sqlite3
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from ..errors import StoreError
from .migrations import MIGRATIONS, V1_COLUMNS, VERSION_TABLE, check_schema, report_migration
from .sql import PAUSED, SQLStore

#: a disk with less free space than this is called full in a failure's message
FULL_BELOW = 1024 * 1024
#: a file this near the largest size the process may write (its file size limit) is called
#: at that limit in a failure's message: SQLite grows its files by pages, a WAL's by frames
NEAR_SIZE_LIMIT = 64 * 1024
#: seconds a change waits for another connection's write lock before it fails
BUSY_SECONDS = 30.0
#: milliseconds a change waits for the write lock at a time, between looks at whether the
#: server is stopping
BUSY_SLICE_MS = 100
#: seconds a change still waits for the write lock once the server begins to stop: this
#: server's own changes hold it for milliseconds (another program's may hold it for ever),
#: and the request is answered within uvicorn's 2 s of grace
STOP_WAIT = 1.0


class SQLiteStore(SQLStore):
    """The games in one SQLite file. One short-lived connection per operation keeps it safe to
    use from several threads (and several processes, though only one server process hears of
    the others' changes: several servers share a PostgreSQL database instead)."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self.location = str(path)
        #: when (``time.monotonic``) a change waiting for the write lock gives up: ``STOP_WAIT``
        #: seconds after the server begins to stop; never before
        self._give_up_at = math.inf
        if path.exists() and not path.is_file():
            raise StoreError(f"{path}: not a file")
        try:
            path.parent.mkdir(parents=True, exist_ok=True)
        except OSError as exc:
            raise StoreError(f"{path}: cannot create its folder ({exc.strerror})") from None
        with self._connect(check=True) as con:
            self._migrate(con)
            #: the file served: one deleted or replaced under the server is not served (its
            #: name would otherwise be made again as a new, empty file at the next change)
            self._identity = _identity(self.path)
            # one server process a file: a claim to think found now is a stopped process's
            # (killed before it gave it up), and would only hold its agent back; a person's
            # pause stays. Written even when there is none, so that a file this process can
            # read but not write stops the start here, not at its first write
            con.execute("DELETE FROM thinking WHERE owner <> ?", (PAUSED,))
            con.execute("DELETE FROM analysing")  # the same for an analysis running

    # -- connections ----------------------------------------------------------------------------
    @contextmanager
    def _connect(self, check: bool = False) -> Iterator[sqlite3.Connection]:
        """A connection; any SQLite failure inside becomes a one-line :class:`StoreError`.
        Once the store is open, the file is never created: one gone is refused
        (:meth:`_gone`)."""
        opened = hasattr(self, "_identity")
        if opened and _identity(self.path) != self._identity:
            raise StoreError(self._gone())
        target = f"{self.path.absolute().as_uri()}?mode=rw" if opened else str(self.path)
        try:
            con = sqlite3.connect(target, timeout=BUSY_SECONDS, isolation_level=None,
                                  uri=opened)
        except sqlite3.Error as exc:
            if opened and _identity(self.path) != self._identity:
                raise StoreError(self._gone()) from None
            raise StoreError(f"{self.path}: cannot open it ({self._cause(exc)})") from None
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
            raise StoreError(f"{self.path}: {self._cause(exc)}") from None
        finally:
            con.close()

    def _gone(self) -> str:
        """The refusal of a file deleted, or replaced by another (moved over it), while this
        server ran; where its games can still be copied from while the server runs (it holds
        the file open: ``serve_alone``)."""
        held = [f for f in _served if _identity(Path(f"/proc/self/fd/{f.fileno()}"))
                == self._identity]
        where = (f"copy it back from /proc/{os.getpid()}/fd/{held[0].fileno()}, which this "
                 "server holds open until it stops, or " if held else "")
        return (f"{self.path}: the file was deleted or replaced while this server ran (a new "
                f"one is not made in its place): {where}restore it from a backup, and "
                "restart the server")

    def _cause(self, exc: sqlite3.Error) -> str:
        """SQLite's words for a failure, with what the file system says where they hide it: a
        full disk reads as ``disk I/O error``, a read-only one as ``unable to open database
        file``; and who holds the file locked."""
        if not isinstance(exc, sqlite3.OperationalError):
            return str(exc)
        if str(exc) == "database is locked":  # this server's own writes wait their turn
            return (f"{exc} (another program holds its write lock: a change waited "
                    f"{BUSY_SECONDS:g} s; an open transaction in an SQLite browser, say)")
        folder = self.path.parent
        try:
            fs = os.statvfs(folder)
        except OSError:
            return str(exc)
        free = (fs.f_bfree if os.geteuid() == 0 else fs.f_bavail) * fs.f_frsize
        if fs.f_flag & os.ST_RDONLY:
            return f"{exc} (its file system is read-only)"
        if free < FULL_BELOW:
            return f"{exc} (the disk holding it is full)"
        limit = resource.getrlimit(resource.RLIMIT_FSIZE)[0]
        if limit != resource.RLIM_INFINITY and any(
                _size(Path(f"{self.path}{end}")) + NEAR_SIZE_LIMIT > limit
                for end in ("", "-wal", "-journal")):
            return (f"{exc} (it has reached the largest file this server may write, {limit} "
                    "bytes: its file size limit, ulimit -f or systemd's LimitFSIZE)")
        if not os.access(folder, os.W_OK):
            return f"{exc} (its folder is read-only, and SQLite writes its journal there)"
        if self.path.exists() and not os.access(self.path, os.W_OK):
            return f"{exc} (the file is read-only)"
        return str(exc)

    def stopping(self) -> None:
        """The server begins to stop: a change waiting for another program's write lock gives
        up ``STOP_WAIT`` seconds from now, unmade, so that its request is answered (503) before
        the server stops instead of being cut off, and the change is not made once its request
        has been answered."""
        self._give_up_at = time.monotonic() + STOP_WAIT

    def _begin(self, con: sqlite3.Connection) -> None:
        """``BEGIN IMMEDIATE``: wait for another connection's write lock up to
        ``BUSY_SECONDS``, a slice at a time, and no longer than ``STOP_WAIT`` once the server is
        stopping (a change of this server's own, made meanwhile, is waited for).

        Raises:
            StoreError: the server is stopping (nothing was changed).
            sqlite3.OperationalError: still locked after ``BUSY_SECONDS``, or another failure.
        """
        end = time.monotonic() + BUSY_SECONDS
        con.execute(f"PRAGMA busy_timeout = {BUSY_SLICE_MS}")
        try:
            while True:
                try:
                    con.execute("BEGIN IMMEDIATE")
                    return
                except sqlite3.OperationalError as exc:
                    if str(exc) != "database is locked" or time.monotonic() >= end:
                        raise
                if time.monotonic() >= self._give_up_at:
                    raise StoreError(f"{self.path}: the server is stopping, and another "
                                     "program holds the file's write lock: nothing was "
                                     "changed; send it again in a moment")
        finally:
            con.execute(f"PRAGMA busy_timeout = {int(BUSY_SECONDS * 1000)}")

    @contextmanager
    def _transaction(self) -> Iterator[sqlite3.Connection]:
        with self._connect() as con:
            self._begin(con)
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
        check_schema(str(self.path), version, tables)
        for m in MIGRATIONS:
            if m.version > version:  # pending
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
        report_migration(str(self.path), version)

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


def _size(path: Path) -> int:
    try:
        return path.stat().st_size
    except OSError:
        return 0


def _identity(path: Path) -> tuple[int, int] | None:
    """The file ``path`` names now (its device and inode), ``None`` when there is none."""
    try:
        st = os.stat(path)
    except OSError:
        return None
    return st.st_dev, st.st_ino


#: the files this process serves, held open (with their locks) until it exits
_served: list[Any] = []


def serve_alone(path: Path) -> None:
    """Hold ``path`` for this server process: a second server on the same file (which would
    not hear of the first one's moves) is refused. The lock (``flock``, apart from SQLite's
    own locks) goes with the process, however it ends.

    Raises:
        StoreError: another process holds the file.
    """
    import fcntl

    try:  # taken before the store is opened: a refused server writes nothing to the file
        path.parent.mkdir(parents=True, exist_ok=True)
        if not path.exists():
            path.touch()
        # held for reading: a lock needs no more (and the file system can be made read-only)
        f = open(path, "rb")  # noqa: SIM115
    except OSError as exc:
        raise StoreError(f"{path}: cannot open it ({exc.strerror})") from None
    try:
        fcntl.flock(f.fileno(), fcntl.LOCK_EX | fcntl.LOCK_NB)
    except OSError as exc:
        f.close()
        if exc.errno not in (errno.EWOULDBLOCK, errno.EAGAIN, errno.EACCES):
            # a file system without locks (ENOLCK on some network ones): SQLite's own locks,
            # which keep its file whole, fail there too; no other server was found
            raise StoreError(f"{path}: cannot lock it ({exc.strerror}): a SQLite file needs a "
                             "file system with locks: keep it on a local disk, or use "
                             "PostgreSQL") from None
        raise StoreError(f"{path}: another stonegarden server serves this file; one server "
                         "process a SQLite file (several share a PostgreSQL database)") from None
    _served.append(f)
