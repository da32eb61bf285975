"""The PostgreSQL store (psycopg 3 and its connection pool): the same schema and migrations as
SQLite, shared by several server processes on one machine or several.

- **Migrations** run under an advisory lock, so servers started together migrate once.
- **Writers of one game** are serialised by locking its row (``SELECT ... FOR UPDATE``); a
  move is stored only if the game still has the expected number of moves.
- **Change notification**: every write sends ``NOTIFY stonegarden`` in its transaction
  (delivered at commit); each store listens on a connection of its own, in a thread, and
  tells its server of the other processes' changes, which is how a page connected to one
  server sees a move made through another.

Calls block (they run in threads, never on a server's event loop). A failure becomes one line
naming the server and database (never the password) and the cause.

**The database down or restarted**: a pooled connection is checked before use, so the
connections a restarted database cut off are replaced, not failed with. After a failure the
next call first connects on its own (at most ``CONNECT_TIMEOUT`` seconds): while the database
is down it fails at once, saying why, instead of waiting for the pool; once the database is
back it is served at once, not at the pool's next scheduled attempt.

**The database not answering** (frozen, or its machine swapping, or a network that drops
packets without a word): a call gets ``ANSWER_TIMEOUT`` seconds from when it was asked for (its
wait for a thread of the server's, for a connection of the pool and for the answers together),
then its connection is cut off and the call fails saying so (``watchdog.py``: one thread
watches every call), so no request waits for ever; the server's own ``statement_timeout`` ends
a statement that waits that long for another process's lock, with the server's reason. A
server stopping gives its calls ``STOP_GRACE`` seconds more, so that their requests are
answered before it stops waiting for them; a server starting gives the database
``START_TIMEOUT`` seconds to migrate its schema.
"""

from __future__ import annotations

import logging
import math
import re
import secrets
import threading
import time
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from typing import Any

from ..errors import StoreError
from .base import ChangeListener, StaleError
from .migrations import MIGRATIONS, VERSION_TABLE, check_schema, report_migration
from .sql import SQLStore
from .watchdog import Call, Watchdog, asked_at

#: the channel of change notifications
CHANNEL = "stonegarden"
#: the advisory lock held while migrating (any fixed 64-bit number: "stonegar")
MIGRATION_LOCK = 0x73746F6E65676172
CONNECT_TIMEOUT = 5
#: seconds the pool goes on reconnecting by itself after a failure (then a call that needs a
#: connection reconnects it)
RECONNECT = 5.0
#: seconds one call has from when it was asked for: its waits for a thread and a connection,
#: and for the database's answers; past them the connection is cut off (a database that
#: accepts connections but does not answer)
ANSWER_TIMEOUT = 5.0
#: seconds the calls under way, and those to come, have once the server stops: their requests
#: are answered before it stops waiting for them (uvicorn's 2 s)
STOP_GRACE = 1.0
#: seconds a server starting waits for the database to connect, migrate its schema (perhaps
#: after another server's migration: an advisory lock) and fill the pool
START_TIMEOUT = 30.0
#: the server's bounds, set on each connection of the pool: a statement (below
#: ``ANSWER_TIMEOUT``, so that a database that answers says why itself), and a transaction
#: left idle by a client that vanished holding a game's row
SESSION_BOUNDS = {"statement_timeout": "4s", "idle_in_transaction_session_timeout": "60s"}


def _userinfo(dsn: str) -> tuple[str, str, str]:
    """(``scheme://``, the user info, the rest from its ``@``): the user info ends at the last
    ``@`` before any query, so a password holding an unencoded ``@`` or ``/`` is all of it,
    or further on at the first ``@`` before any ``/``, where the driver ends it: a password
    holding an unencoded ``?`` (which the driver reads as part of it) is all of it too. An
    ``@`` in the database name (the path's one part, after a well-formed host), which the
    driver reads as the name's, is the name's: it ends no user info."""
    scheme, sep, rest = dsn.partition("://")
    before_query = rest.split("?", 1)[0]
    authority = before_query.split("/", 1)[0]
    path = before_query[len(authority):]
    if "@" in path and "/" not in path[1:] and _ports_well_formed(authority):
        before_query = authority  # "host:5432/my@db": a database named my@db
    at = max(before_query.rfind("@"), rest.split("/", 1)[0].find("@"))
    if not sep or at < 0:
        return "", "", dsn
    return scheme + sep, rest[:at], rest[at:]


def _ports_well_formed(authority: str) -> bool:
    """Whether each ``host[:port]`` of an address's authority (after any user info) has a
    port of digits, or none: ``user:pa`` before a ``/`` is a password cut by it, not a host."""
    for host in authority.rpartition("@")[2].split(","):
        _, colon, port = host.rpartition("]")[2].rpartition(":")  # past an IPv6 address's ]
        if colon and port and not port.isdigit():
            return False
    return True


#: a password given as a query parameter (``?password=...``, which libpq reads too)
_QUERY_PASSWORD = re.compile(r"(?i)([?&]password=)([^&]*)")


def redacted(dsn: str) -> str:
    """The DSN without its password (for messages and logs), however the password is
    written: in the user info or as a ``password`` query parameter."""
    head, userinfo, tail = _userinfo(dsn)
    if ":" in userinfo:
        dsn = f"{head}{userinfo.split(':', 1)[0]}:***{tail}"
    return _QUERY_PASSWORD.sub(r"\1***", dsn)


def scrubbed(text: str, dsn: str) -> str:
    """``text`` (a driver's message) without any piece of the DSN's password: the driver may
    quote a host it read from a password that holds an unencoded ``@`` or ``/``."""
    from urllib.parse import unquote

    password = _userinfo(dsn)[1].partition(":")[2]
    given = [unquote(m.group(2)) for m in _QUERY_PASSWORD.finditer(dsn)]
    pieces = {password, *re.split(r"[@:/]", password), *given}
    for piece in sorted((p for p in pieces if len(p) >= 3), key=len, reverse=True):
        text = text.replace(piece, "***")
    return text


class _Row(tuple):  # type: ignore[type-arg]
    """A row read by position or by column name, as ``sqlite3.Row`` is."""

    names: dict[str, int]

    def __getitem__(self, key: Any) -> Any:
        if isinstance(key, str):
            return tuple.__getitem__(self, self.names[key])
        return tuple.__getitem__(self, key)


def _row_factory(cursor: Any) -> Any:
    names = {c.name: i for i, c in enumerate(cursor.description or ())}
    kind = type("Row", (_Row,), {"names": names})
    return lambda values: kind(values)


class _Connection:
    """A psycopg connection that reads the stores' shared SQL (``?`` placeholders)."""

    def __init__(self, con: Any) -> None:
        self.con = con

    def execute(self, sql: str, args: Sequence[Any] = ()) -> Any:
        return self.con.execute(sql.replace("?", "%s"), args)

    def executemany(self, sql: str, rows: Sequence[Sequence[Any]]) -> None:
        if rows:
            with self.con.cursor() as cur:
                cur.executemany(sql.replace("?", "%s"), rows)


class PostgresStore(SQLStore):
    """The games in a PostgreSQL database (``postgresql://user@host:port/database``)."""

    _for_update = " FOR UPDATE"

    def __init__(self, dsn: str, pool_size: int = 8) -> None:
        try:
            import psycopg
            import psycopg_pool  # noqa: F401  (the pool, imported where used)
        except ImportError as exc:  # an install without the extra (scripts/serve.sh's)
            raise StoreError(f"--db {redacted(dsn)}: PostgreSQL needs psycopg and psycopg-pool, "
                             f"which this install lacks ({exc}): install them with pip install "
                             '"stonegarden[postgresql]" (in a checkout, .venv/bin/pip install '
                             '-e ".[postgresql]")') from None
        self._psycopg = psycopg
        self.dsn = dsn
        self.location = redacted(dsn)
        if any(c in _userinfo(dsn)[1] for c in "@/"):
            # the driver ends the user info at its first "@" or "/": it would read a piece of
            # the password as the host, and say it in its message, where pieces too short to
            # be masked (one or two letters) are shown
            raise StoreError(f"--db {self.location}: the user name or password holds an '@' "
                             "or a '/', which ends it there in an address: write them %40 and "
                             "%2F (postgresql://user:p%40ss@host:5432/database; an '@' in the "
                             "database name may stay as it is)")
        #: this store's own changes are not reported back to it
        self.origin = secrets.token_hex(6)
        self._listener: threading.Thread | None = None
        self._stop = threading.Event()
        #: set by ``close`` and when a call reaches the database again: the listener, waiting to
        #: reconnect, reconnects now
        self._wake = threading.Event()
        #: cuts off the connection of a call past its deadline
        self._watchdog = Watchdog("stonegarden-watchdog")
        #: the server stops (``stopping``): a failing database is not connected to again
        self._stopping = False
        try:
            self._start(pool_size)
        except BaseException:
            self._watchdog.close()
            raise

    def _start(self, pool_size: int) -> None:
        """Migrate the schema and open the pool, within ``START_TIMEOUT`` seconds.

        Raises:
            StoreError: the database can't be served, saying why.
        """
        from psycopg_pool import ConnectionPool

        psycopg, dsn = self._psycopg, self.dsn
        starting = ("as the server started (frozen or overloaded, or another stonegarden "
                    "server held the lock of its schema's migration all that time)")
        try:
            with self._watchdog.call(START_TIMEOUT) as call, self._answered(call, starting), \
                    psycopg.connect(dsn, connect_timeout=CONNECT_TIMEOUT, autocommit=True) as con:
                self._watchdog.watch(call, con)
                self._migrate(con)
        except psycopg.errors.InsufficientPrivilege as exc:
            # the tables are made by the user of --db (docs/deploy.md: createdb --owner)
            raise StoreError(f"{self.location}: {scrubbed(_first_line(exc), dsn)}: the user "
                             "of --db makes the tables and needs to own the database "
                             "(createdb --owner USER, or ALTER DATABASE ... OWNER TO USER)"
                             ) from None
        except psycopg.Error as exc:
            raise StoreError(f"{self.location}: {scrubbed(_why(exc), dsn)}") from None
        #: a connection failed lately: the next call connects on its own first (``_pooled``)
        self._failing = False
        # the pool's own warnings (each reconnection tried, two lines each) would repeat for as
        # long as the database is down: its failures reach the server as StoreErrors, which
        # say why, and the server's periodic tasks say them once
        logging.getLogger("psycopg.pool").setLevel(logging.ERROR)
        self.pool = ConnectionPool(dsn, min_size=1, max_size=pool_size, open=False,
                                   kwargs={"autocommit": True, "row_factory": _row_factory,
                                           "connect_timeout": CONNECT_TIMEOUT},
                                   configure=_bound_session,
                                   timeout=ANSWER_TIMEOUT, reconnect_timeout=RECONNECT,
                                   name="stonegarden")
        try:
            self.pool.open(wait=True, timeout=START_TIMEOUT)
        except psycopg.Error as exc:  # the database stopped answering since the migration
            self.pool.close(timeout=0)
            raise StoreError(f"{self.location}: {scrubbed(_why(exc), dsn)}") from None

    # -- connections ----------------------------------------------------------------------------
    @contextmanager
    def _errors(self) -> Iterator[None]:
        from psycopg_pool import PoolTimeout

        try:
            yield
        except self._psycopg.errors.UniqueViolation as exc:
            raise StaleError(f"a concurrent write came first ({_first_line(exc)})") from None
        except (self._psycopg.OperationalError, PoolTimeout) as exc:
            self._failing = True  # perhaps the database, not this call: see at the next one
            raise StoreError(f"{self.location}: {scrubbed(_why(exc), self.dsn)}") from None
        except self._psycopg.Error as exc:
            raise StoreError(f"{self.location}: {scrubbed(_why(exc), self.dsn)}") from None

    @contextmanager
    def _answered(self, call: Call, during: str = "") -> Iterator[None]:
        """A driver's failure of a connection ``call`` cut off says that the database did not
        answer (in time, or before the server stopped)."""
        try:
            yield
        except self._psycopg.Error:
            if not call.cut:
                raise
            where = f" {during}" if during else ""
            raise self._psycopg.OperationalError(
                f"the database did not answer{where}" + (
                    ", and the server is stopping" if call.hurried
                    else f" in {call.seconds:.0f} s")) from None

    @contextmanager
    def _pooled(self) -> Iterator[Any]:
        """A working connection of the pool, given back after; the call has ``ANSWER_TIMEOUT``
        seconds from when it was asked for (``watchdog.asked_at``), its wait for a thread and
        for the connection included, and is cut off then.

        Raises:
            psycopg.Error, PoolTimeout: no connection (``_errors`` says why in one line).
        """
        with self._watchdog.call(ANSWER_TIMEOUT, asked_at()) as call:
            con = self._checked_connection(call)
            try:
                with self._answered(call), con:
                    yield con
            finally:
                self._watchdog.watch(call, None)  # the pool's again: never cut off for this call
                self.pool.putconn(con)

    def _checked_connection(self, call: Call) -> Any:
        """A connection of the pool that answers.

        A connection found broken (cut off by a database restart, say) is replaced, and so are
        the pool's others, which the same restart cut off. After a failure, the database is
        first connected to directly: down, the call fails at once with the reason (the
        pool's wait is for connections all in use, not for a database that is not there);
        back, the pool reconnects now, not at its next scheduled attempt.

        Raises:
            psycopg.Error, PoolTimeout: none (``_errors`` says why in one line).
        """
        from psycopg_pool import ConnectionPool

        for attempt in range(2):
            con = self._free_connection(call)
            self._watchdog.watch(call, con)
            try:
                with self._answered(call):
                    ConnectionPool.check_connection(con)
                return con
            except self._psycopg.Error:
                self._watchdog.watch(call, None)
                self.pool.putconn(con)  # broken: the pool closes it and connects anew
                # not answering: the others would not either (and checking them would wait)
                if attempt or call.cut:
                    raise
                self.pool.check()  # the others idle since are cut off too: replaced at once
                self._failing = True
        raise AssertionError("unreachable")

    def _free_connection(self, call: Call) -> Any:
        """A connection of the pool, waiting for one to be free for as long as ``call`` may,
        and no longer once a failure is known (another call's, meanwhile): then the database
        is connected to directly, which fails at once while it is down.

        Raises:
            psycopg.Error, PoolTimeout: none came.
        """
        from psycopg_pool import PoolTimeout

        while True:
            if self._failing:
                if self._stopping:  # no new wait for a database that failed: stop now
                    raise self._psycopg.OperationalError(
                        "the database failed lately, and the server is stopping")
                # libpq's connection timeout is whole seconds, at least 2: a call with less
                # left (it waited for others, all cut off) would end past its bound
                if call.left() < 2:
                    raise self._psycopg.OperationalError(
                        f"the database failed lately and did not answer in {call.seconds:.0f} s")
                wait = min(CONNECT_TIMEOUT, math.ceil(call.left()))
                self._psycopg.connect(self.dsn, connect_timeout=wait).close()
                self._failing = False
                self._wake.set()  # the other processes' changes are heard again at once
            left = call.left()
            try:
                return self.pool.getconn(timeout=max(0.01, min(1.0, left)))
            except PoolTimeout:
                if left <= 1.0:
                    raise PoolTimeout(f"no connection was free, nor made, in {call.seconds:.0f} s"
                                      ) from None

    @contextmanager
    def _connect(self) -> Iterator[_Connection]:
        with self._errors(), self._pooled() as con:
            yield _Connection(con)

    @contextmanager
    def _transaction(self) -> Iterator[_Connection]:
        with self._errors(), self._pooled() as con, con.transaction():
            yield _Connection(con)

    def _notify(self, con: Any, what: str, game_id: str) -> None:
        con.execute("SELECT pg_notify(?, ?)", (CHANNEL, f"{self.origin} {what} {game_id}"))

    # -- schema ---------------------------------------------------------------------------------
    def _migrate(self, con: Any) -> None:
        """Bring the schema up to date, one server at a time (an advisory lock)."""
        con.execute("SELECT pg_advisory_lock(%s)", (MIGRATION_LOCK,))
        try:
            tables = {r[0] for r in con.execute(
                "SELECT table_name FROM information_schema.tables"
                " WHERE table_schema = current_schema()")}
            version = 0
            if "schema_migrations" in tables:
                version = con.execute("SELECT max(version) FROM schema_migrations"
                                      ).fetchone()[0] or 0
            elif tables & {"games", "moves"}:
                raise StoreError(f"{self.location}: tables 'games' or 'moves' exist without a "
                                 "schema version: not a stonegarden database (nothing was "
                                 "changed)")
            check_schema(self.location, version, tables)
            for m in MIGRATIONS:
                if m.version > version:
                    with con.transaction():
                        con.execute(VERSION_TABLE)
                        for statement in m.statements:
                            con.execute(statement)
                        con.execute("INSERT INTO schema_migrations (version, name, applied)"
                                    " VALUES (%s, %s, %s)", (m.version, m.name, time.time()))
            report_migration(self.location, version)
        finally:
            con.execute("SELECT pg_advisory_unlock(%s)", (MIGRATION_LOCK,))

    def schema_version(self) -> int:
        with self._connect() as con:
            return int(con.execute("SELECT max(version) FROM schema_migrations").fetchone()[0])

    # -- change notification --------------------------------------------------------------------
    def listen(self, on_change: ChangeListener) -> None:
        """Hear the other processes' changes in a thread of its own (reconnecting, with
        ``("lost", "")`` reported after a reconnection: changes may have been missed)."""
        if self._listener is not None:
            return
        self._listener = threading.Thread(target=self._listen, args=(on_change,),
                                          name="stonegarden-listen", daemon=True)
        self._listener.start()

    def _listen(self, on_change: ChangeListener) -> None:
        psycopg = self._psycopg
        pause = 0.5
        first = True
        while not self._stop.is_set():
            try:
                with psycopg.connect(self.dsn, autocommit=True,
                                     connect_timeout=CONNECT_TIMEOUT) as con:
                    con.execute(f"LISTEN {CHANNEL}")
                    if not first:
                        on_change("lost", "")
                    first, pause = False, 0.5
                    while not self._stop.is_set():
                        for note in con.notifies(timeout=0.5):
                            origin, _, rest = note.payload.partition(" ")
                            what, _, game_id = rest.partition(" ")
                            if origin != self.origin:
                                on_change(what, game_id)
            except psycopg.Error:
                first = False
                self._wake.wait(pause)
                self._wake.clear()
                pause = min(pause * 2, 10.0)

    def stopping(self) -> None:
        """The server begins to stop: every call under way or to come ends within
        ``STOP_GRACE`` seconds (answered, or cut off), so that its request is answered before
        the server stops waiting for it (a bare 500), however frozen the database is."""
        self._stopping = True
        self._watchdog.hurry(STOP_GRACE)

    def close(self) -> None:
        self.stopping()
        self._stop.set()
        self._wake.set()
        if self._listener is not None:
            self._listener.join(timeout=5)
            self._listener = None
        # the pool's threads may be connecting to a database that does not answer: not
        # waited for (they end with the process)
        self.pool.close(timeout=STOP_GRACE)
        self._watchdog.close()


def _bound_session(con: Any) -> None:
    """Set the server's bounds on a new connection of the pool (by ``SET``, not the
    ``options`` connection parameter, which a pooler such as PgBouncer refuses)."""
    for name, value in SESSION_BOUNDS.items():
        con.execute("SELECT set_config(%s, %s, false)", (name, value))


def _why(exc: BaseException) -> str:
    """The first line of a driver's error, a connection's timeout in words."""
    from psycopg.errors import ConnectionTimeout

    if isinstance(exc, ConnectionTimeout):
        return "the database did not answer a connection in time (connection timeout expired)"
    return _first_line(exc)


def _first_line(exc: BaseException) -> str:
    text = str(exc).strip().splitlines()
    return text[0] if text else type(exc).__name__
