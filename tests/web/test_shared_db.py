"""Several ``serve`` processes sharing one real PostgreSQL database (Debian's package, started
and stopped by the tests): a move made through one is seen live by a page connected to
another, an open seat is taken once, a clock flags exactly once, and killing one process loses
no acknowledged move. Also: ``--db`` values that cannot be served are refused at start, and a
clock survives a restart without charging a long outage to anyone."""

from __future__ import annotations

import itertools
import os
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
from sse import Events
from webhelpers import ROOT, Server, first_legal, first_line_of_serve, legal

from stonegarden.store import open_store

SMALL = {"size": 2, "target": 2}
#: long enough that the game never ends by the rules while a test plays it
LONG = {"size": 3, "target": 60}


#: a worker of ``pytest -n`` sent other modules' tests between two batches of these sets the
#: module's pair up again: each pair on a database of its own
_pairs = itertools.count()


def two_servers(dsn: str, folder: Path) -> Iterator[tuple[Server, Server]]:
    a = Server(dsn, None, log=folder / "a.log")
    b = Server(dsn, None, log=folder / "b.log")
    a.start()
    b.start()
    yield a, b
    a.stop()
    b.stop()


@pytest.fixture(scope="module")
def pair(postgres, tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[Server, Server]]:
    """Two servers on one database for the module's tests that share them (two starts are
    seconds of a loaded machine): each plays its own games, leaves no agent thinking, reads
    nothing the whole server keeps (the lobby) and stops neither."""
    yield from two_servers(postgres.create_database(f"shared_pair{next(_pairs)}"),
                           tmp_path_factory.mktemp("pair"))


@pytest.fixture
def own_pair(pg_database: str, tmp_path: Path) -> Iterator[tuple[Server, Server]]:
    """Two servers of the test's own: for a test that reads the lobby or kills one."""
    yield from two_servers(pg_database, tmp_path)


def logs_of(pair: tuple[Server, Server]) -> str:
    a, b = pair
    assert a.log is not None and b.log is not None
    return a.log.read_text() + b.log.read_text()


def create(server: Server, seats: list[str], params=None, **extra) -> dict:
    status, made = server.request("POST", "/api/games", {"game": "blooms",
                                                         "params": params or SMALL,
                                                         "seats": seats, **extra})
    assert status == 201, made
    return made


def moves_of(server: Server, gid: str) -> list[str]:
    status, snap = server.request("GET", f"/api/games/{gid}")
    assert status == 200, snap
    return [m["text"] for m in snap["moves"]]


def test_a_move_through_one_server_is_seen_live_through_the_other(pair):
    a, b = pair
    made = create(a, ["human", "human"])
    gid, k1, k2 = made["id"], made["secrets"]["1"], made["secrets"]["2"]
    events = Events(b.port, f"/api/games/{gid}/events")
    try:
        events.update()
        move = first_legal("blooms", SMALL, [])
        assert a.request("POST", f"/api/games/{gid}/move", {"secret": k1, "move": move})[0] == 200
        events.update(timeout=10)  # LISTEN/NOTIFY reached b, which told its page
        assert moves_of(b, gid) == [move]
        # and back: b takes the next move; a's page is told, and a has it
        on_a = Events(a.port, f"/api/games/{gid}/events")
        try:
            on_a.update()
            reply = first_legal("blooms", SMALL, [move])
            status, _ = b.request("POST", f"/api/games/{gid}/move", {"secret": k2, "move": reply})
            assert status == 200
            on_a.update(timeout=10)
            assert moves_of(a, gid) == [move, reply]
        finally:
            on_a.close()
        # a stale write through a (it believes ply 1) is refused, not stored; the move
        # already played there, sent again, is answered as the first time, not stored twice
        other = next(m for m in legal("blooms", SMALL, [move]) if m != reply)
        status, _ = a.request("POST", f"/api/games/{gid}/move",
                              {"secret": k2, "move": other, "ply": 1})
        assert status == 409
        status, snap = a.request("POST", f"/api/games/{gid}/move",
                                 {"secret": k2, "move": reply, "ply": 1})
        assert status == 200 and snap["length"] == 2
        assert moves_of(b, gid) == [move, reply]
    finally:
        events.close()


def test_a_move_sent_at_once_through_the_other_server_is_played_not_refused(pair):
    """Behind a proxy one request of a player goes to one process and the next to another,
    which may not have heard of the first's move yet (its notice is on its way): a move
    naming a ply that process has not reached was refused, "the game has moved on: ply 0,
    not 1", though the game had not. The process reads the game again and plays it."""
    a, b = pair
    for _ in range(3):
        made = create(a, ["human", "human"], LONG)
        gid = made["id"]
        assert moves_of(b, gid) == []  # b holds the game, at ply 0
        line: list[str] = []
        for ply in range(4):
            move = first_legal("blooms", LONG, line)
            status, answer = (a, b)[ply % 2].request(
                "POST", f"/api/games/{gid}/move",
                {"secret": made["secrets"][str(ply % 2 + 1)], "move": move, "ply": ply})
            assert status == 200, (ply, answer)
            line.append(move)
            assert [m["text"] for m in answer["moves"]] == line


def test_the_lobby_of_one_server_hears_a_game_made_through_the_other(own_pair):
    a, b = own_pair
    events = Events(b.port, "/api/lobby/events")
    try:
        events.update()
        made = create(a, ["human", "open"], public=True, name="Ana")
        events.update(timeout=10)
        assert [g["id"] for g in b.request("GET", "/api/lobby")[1]["games"]] == [made["id"]]
    finally:
        events.close()


def test_the_lobby_of_one_server_hears_a_creators_name_given_through_the_other(own_pair):
    a, b = own_pair
    made = create(a, ["human", "open"], public=True)
    events = Events(b.port, "/api/lobby/events")
    try:
        events.update()
        assert b.request("GET", "/api/lobby")[1]["games"][0]["creator"] == "someone"
        status, _ = a.request("POST", f"/api/games/{made['id']}/name",
                              {"secret": made["secrets"]["1"], "name": "Ana"})
        assert status == 200
        events.update(timeout=10)
        assert b.request("GET", "/api/lobby")[1]["games"][0]["creator"] == "Ana"
    finally:
        events.close()


def test_an_open_seat_is_taken_once_when_two_servers_race_for_it(pair):
    a, b = pair
    for _ in range(5):
        gid = create(a, ["human", "open"], public=True)["id"]
        b.request("GET", f"/api/games/{gid}")  # both servers hold the game in memory
        results: list[int] = []

        def join(server: Server, name: str, gid: str = gid, results: list[int] = results
                 ) -> None:
            results.append(server.request("POST", f"/api/games/{gid}/join", {"name": name})[0])

        threads = [threading.Thread(target=join, args=(s, n)) for s, n in ((a, "A"), (b, "B"))]
        for t in threads:
            t.start()
        for t in threads:
            t.join(30)
        assert sorted(results) == [201, 409]


@pytest.mark.slow
def test_a_clock_flags_exactly_once_across_servers(pair):
    a, b = pair
    made = create(a, ["human", "human"], clock={"initial": 10, "increment": 0})
    gid, k1, k2 = made["id"], made["secrets"]["1"], made["secrets"]["2"]
    assert a.request("POST", f"/api/games/{gid}/move",
                     {"secret": k1, "move": first_legal("blooms", SMALL, [])})[0] == 200
    second = first_legal("blooms", SMALL, moves_of(b, gid))
    assert b.request("POST", f"/api/games/{gid}/move", {"secret": k2, "move": second})[0] == 200
    # no one connected: both servers' keepers watch the deadline; one of them ends the game
    end = time.time() + 30
    snap: dict = {}
    while time.time() < end:
        snap = b.request("GET", f"/api/games/{gid}")[1]
        if snap["terminal"]:
            break
        time.sleep(0.3)
    assert snap["terminal"] and snap["reason"] == "time" and snap["winner"] == 2
    assert a.request("GET", f"/api/games/{gid}")[1]["reason"] == "time"
    time.sleep(1.5)  # both keepers have ticked again since
    logs = logs_of(pair)
    assert logs.count(f"game {gid}: player 1's time ran out") == 1, logs


def test_killing_a_server_loses_no_acknowledged_move(own_pair, pg_database):
    a, b = own_pair
    made = create(a, ["human", "human"], params=LONG)
    gid, keys = made["id"], made["secrets"]
    acknowledged: list[str] = []
    stop = threading.Event()

    def play_through_a() -> None:
        moves: list[str] = []
        while not stop.is_set():
            seat = 1 + len(moves) % 2
            move = first_legal("blooms", LONG, moves)
            try:
                status, _ = a.request("POST", f"/api/games/{gid}/move",
                                      {"secret": keys[str(seat)], "move": move,
                                       "ply": len(moves)}, timeout=10)
            except OSError:
                return  # the server died under the request: not acknowledged
            if status != 200:
                return
            moves.append(move)
            acknowledged.append(move)

    t = threading.Thread(target=play_through_a)
    t.start()
    end = time.time() + 60
    while len(acknowledged) < 5 and t.is_alive() and time.time() < end:
        time.sleep(0.05)
    time.sleep(0.1)  # killed while moves keep coming
    a.kill9()
    stop.set()
    t.join(30)
    assert len(acknowledged) >= 3
    stored = list(open_store(pg_database).get(gid).moves)
    assert stored[:len(acknowledged)] == acknowledged
    assert len(stored) <= len(acknowledged) + 1  # at most the one in flight, never a gap
    # the game goes on through the other server
    seen = moves_of(b, gid)
    assert seen == stored
    seat = 1 + len(seen) % 2
    status, _ = b.request("POST", f"/api/games/{gid}/move",
                          {"secret": keys[str(seat)], "move": first_legal("blooms", LONG, seen)})
    assert status == 200


def _serve(*args: str) -> subprocess.CompletedProcess[str]:
    env = dict(os.environ)
    env["PYTHONPATH"] = str(ROOT / "src") + os.pathsep + env.get("PYTHONPATH", "")
    return subprocess.run([sys.executable, "-m", "stonegarden", "serve", "--port", "0", *args],
                          capture_output=True, text=True, timeout=60, env=env)


@pytest.mark.parametrize("db,words", [
    ("mysql://u@h/d", "unknown scheme 'mysql'"),
    ("postgresql://u:secret@127.0.0.1:1/none", "127.0.0.1:1/none"),
    ("postgresql://u@127.0.0.1:1/none?password=secret", "127.0.0.1:1/none?password=***"),
    # an unencoded "?" in the password, which the driver reads as part of it: the whole
    # address was printed as it was, password and all
    ("postgresql://u:sec?ret@127.0.0.1:1/none", "u:***@127.0.0.1:1/none"),
    # an unencoded "@" or "/": the driver read "et" as the host and said it (too short to mask)
    ("postgresql://u:secr@et@127.0.0.1:1/none", "write them %40 and %2F"),
    ("postgresql://u:secr/et@127.0.0.1:1/none", "write them %40 and %2F"),
])
def test_a_db_that_cannot_be_served_is_refused_at_start_in_one_line(db, words):
    done = _serve("--db", db)
    assert done.returncode == 2
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1 and words in lines[0] and "secret" not in lines[0], done.stderr
    assert "sec?ret" not in lines[0] and "et@" not in lines[0] and "'et" not in lines[0]
    assert not Path("mysql:").exists() and not Path("postgresql:").exists()


@pytest.mark.slow
def test_a_clock_survives_a_restart_and_a_long_outage_is_charged_to_no_one(tmp_path):
    db = tmp_path / "games.db"
    server = Server(db).start()
    try:
        made = create(server, ["human", "human"], clock={"initial": 60, "increment": 0})
        gid, k1, k2 = made["id"], made["secrets"]["1"], made["secrets"]["2"]
        server.request("POST", f"/api/games/{gid}/move",
                       {"secret": k1, "move": first_legal("blooms", SMALL, [])})
        server.request("POST", f"/api/games/{gid}/move",
                       {"secret": k2, "move": first_legal("blooms", SMALL,
                                                          moves_of(server, gid))})
        before = server.request("GET", f"/api/games/{gid}")[1]["clock"]
        read = time.monotonic()
        assert before["running"] == 1
        server.kill9()
        up = time.monotonic() - read
        time.sleep(9)  # longer than the 6 s grace: no server was up
        starting = time.monotonic()
        server.start()
        after = server.request("GET", f"/api/games/{gid}")[1]["clock"]
        up += time.monotonic() - starting  # a loaded machine may take seconds to start
        assert after["running"] == 1
        # charged: the moments before the kill and since the start, not the 9 s outage
        assert before["1"] - (up + 1) <= after["1"] <= before["1"]
        assert up + 1 < 9  # else the bound could not tell the outage from the server's time
        assert after["2"] == before["2"]
    finally:
        server.stop()


def test_an_id_with_a_nul_byte_names_no_game_on_postgresql(pair):
    """PostgreSQL refuses text holding a NUL with an error of its own: such an id is refused
    as naming no game before it reaches the store, as on SQLite."""
    a, _ = pair
    made = create(a, ["human", "open"], public=True)
    for method, path, body in (("GET", "/api/games/ab%00cd", None),
                               ("POST", "/api/games/ab%00cd/join", {"name": "Bo"}),
                               ("GET", "/api/games/ab%00cd/record", None)):
        assert a.request(method, path, body)[0] == 404, path
    # in a list of games asked for, it is refused as any malformed id is
    status, answer = a.request("GET", f"/api/games?ids=ab%00cd,{made['id']}")
    assert status == 400 and "ab" in answer["error"], answer
    status, listed = a.request("GET", f"/api/games?ids={made['id']}")
    assert status == 200 and [g["id"] for g in listed["games"]] == [made["id"]]
    import urllib.error
    import urllib.request

    with pytest.raises(urllib.error.HTTPError) as page:  # the game page: HTML, not JSON
        urllib.request.urlopen(a.url + "/game/ab%00cd", timeout=30)
    assert page.value.code == 404


def test_a_new_name_given_through_one_server_does_not_stop_the_others_agent(pair):
    """A rename changes no move: the server whose agent thinks goes on thinking (it dropped
    the game, stopping its agent, and no server started it again)."""
    a, b = pair
    made = create(a, ["human", "mcts:time=3"], LONG)
    gid, k1 = made["id"], made["secrets"]["1"]
    assert b.request("GET", f"/api/games/{gid}")[0] == 200  # B holds the game too
    status, snap = a.request("POST", f"/api/games/{gid}/move",
                             {"secret": k1, "move": first_legal("blooms", LONG, [])})
    assert status == 200 and snap["thinking"] is not None
    assert b.request("POST", f"/api/games/{gid}/name", {"secret": k1, "name": "Ana"})[0] == 200
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline and len(moves_of(b, gid)) < 2:
        time.sleep(0.5)
    assert len(moves_of(b, gid)) == 2  # the agent replied
    assert b.request("GET", f"/api/games/{gid}")[1]["names"]["1"] == "Ana"


def thinking_of(server: Server, gid: str) -> dict | None:
    status, snap = server.request("GET", f"/api/games/{gid}")
    assert status == 200, snap
    return snap["thinking"]


@pytest.mark.slow
def test_one_server_thinks_for_an_agent_and_another_takes_over_when_it_stops(pg_database,
                                                                              tmp_path):
    """Two servers holding a game whose agent is to move: one thinks, the other shows it
    thinking elsewhere (it used to think too, for a move only one could store). When the
    thinking one stops, the other thinks at once, not when the claim would run out."""
    a = Server(pg_database, None, log=tmp_path / "a.log").start()
    b = Server(pg_database, None, log=tmp_path / "b.log").start()
    try:
        made = create(a, ["mcts:time=8", "human"], LONG)
        gid = made["id"]
        assert thinking_of(a, gid)["elsewhere"] is False
        on_b = thinking_of(b, gid)  # b reads the game while a's agent thinks
        assert on_b is not None and on_b["elsewhere"] is True
        a.stop()  # a gives up its claim as it stops
        deadline = time.monotonic() + 20  # well inside the claim's 8 + 30 s
        while time.monotonic() < deadline:
            on_b = thinking_of(b, gid)
            if on_b is None or not on_b["elsewhere"]:
                break
            time.sleep(0.3)
        assert on_b is not None and on_b["elsewhere"] is False, on_b  # b thinks now
        deadline = time.monotonic() + 30
        while time.monotonic() < deadline and not moves_of(b, gid):
            time.sleep(0.5)
        assert len(moves_of(b, gid)) == 1
    finally:
        a.stop()
        b.stop()


@pytest.mark.slow
def test_an_agents_move_is_thought_once_across_servers(pair):
    a, b = pair
    made = create(a, ["human", "mcts:time=2"], LONG)
    gid, k1 = made["id"], made["secrets"]["1"]
    status, snap = a.request("POST", f"/api/games/{gid}/move",
                             {"secret": k1, "move": first_legal("blooms", LONG, [])})
    assert status == 200 and snap["thinking"]["elsewhere"] is False
    assert thinking_of(b, gid)["elsewhere"] is True
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline and len(moves_of(b, gid)) < 2:
        time.sleep(0.3)
    assert len(moves_of(b, gid)) == 2 and thinking_of(b, gid) is None
    assert thinking_of(a, gid) is None


@pytest.mark.parametrize("db", ["postgresql://u:hunter@2secret@127.0.0.1:1/none",
                                "postgresql://u:pass/word9@127.0.0.1:1/none"])
def test_a_password_left_unencoded_is_still_never_printed(db):
    """An ``@`` or ``/`` in a password, not percent-encoded, once left the password's end in
    the host the message quoted."""
    done = _serve("--db", db)
    assert done.returncode == 2
    said = done.stderr.replace("password", "")  # the message's own word
    for piece in ("hunter", "2secret", "pass", "word9"):
        assert piece not in said, done.stderr



def test_a_database_named_with_an_at_sign_is_served_as_the_driver_reads_its_address(postgres):
    """An ``@`` may stay as it is in the database's name (the path of the address), as the
    driver reads it: ``.../my@db`` was refused as a user name or password holding an ``@``,
    and the message masked the host, port and the name's start as if they were a password.
    The password before it is still masked, and ``%40`` names the same database."""
    import psycopg

    with psycopg.connect(postgres.dsn, autocommit=True) as con:
        con.execute('DROP DATABASE IF EXISTS "my@db"')
        con.execute('CREATE DATABASE "my@db"')
    for db, shown in ((f"postgresql://postgres:pw@127.0.0.1:{postgres.port}/my@db",
                       f"postgresql://postgres:***@127.0.0.1:{postgres.port}/my@db"),
                      (f"postgresql://postgres@127.0.0.1:{postgres.port}/my%40db", None)):
        line = first_line_of_serve(["--db", db])
        assert line.startswith("stonegarden: serving ") and f"(games stored in {shown or db})" \
            in line, line
    # an unencoded "@" in the password before such a name is still refused, saying how
    done = _serve("--db", f"postgresql://postgres:p@ss@127.0.0.1:{postgres.port}/my@db")
    assert done.returncode == 2 and "write them %40 and %2F" in done.stderr
    assert "an '@' in the database name may stay as it is" in done.stderr

def test_a_second_server_on_one_sqlite_file_is_refused(tmp_path):
    server = Server(tmp_path / "games.db").start()
    try:
        done = _serve("--db", str(tmp_path / "games.db"))
        assert done.returncode == 2 and "another stonegarden server serves this file" in \
            done.stderr
        assert server.request("GET", "/api/meta")[0] == 200  # the first one serves on
    finally:
        server.stop()
    again = Server(tmp_path / "games.db").start()  # its lock went with it
    again.stop()



def test_a_sqlite_file_on_a_file_system_without_locks_says_so(tmp_path, monkeypatch):
    """flock fails with ENOLCK on some network file systems: the start was refused saying
    another server served the file, which none did."""
    import errno
    import fcntl

    from stonegarden.errors import StoreError
    from stonegarden.store.sqlite import serve_alone

    def no_locks(fd: int, operation: int) -> None:
        raise OSError(errno.ENOLCK, os.strerror(errno.ENOLCK))

    monkeypatch.setattr(fcntl, "flock", no_locks)
    with pytest.raises(StoreError) as refused:
        serve_alone(tmp_path / "games.db")
    said = str(refused.value)
    assert "No locks available" in said and "keep it on a local disk" in said, said
    assert "another stonegarden server" not in said

def test_a_refused_second_server_writes_nothing_to_the_file(tmp_path):
    """The lock is taken before the store is opened: the refused server would otherwise
    have cleared the first one's claims (or migrated its file) on the way."""
    import sqlite3

    db = tmp_path / "games.db"
    server = Server(db).start()
    try:
        made = create(server, ["human", "human"])
        with sqlite3.connect(db) as con:
            con.execute("INSERT INTO thinking VALUES (?, 0, 'first', 1e12)", (made["id"],))
        assert _serve("--db", str(db)).returncode == 2
        with sqlite3.connect(db) as con:
            assert con.execute("SELECT owner FROM thinking").fetchall() == [("first",)]
    finally:
        server.stop()


def wait_until(check, seconds: float):
    end = time.monotonic() + seconds
    while time.monotonic() < end:
        value = check()
        if value:
            return value
        time.sleep(0.2)
    return check()


@pytest.mark.slow
def test_after_an_undo_through_the_other_server_it_thinks_at_once(pair):
    """The claim of the undone line once held the agent back until it ran out."""
    a, b = pair
    made = create(a, ["human", "mcts:time=1"], LONG)
    gid, k1 = made["id"], made["secrets"]["1"]
    move = first_legal("blooms", LONG, [])
    assert a.request("POST", f"/api/games/{gid}/move", {"secret": k1, "move": move})[0] == 200
    assert wait_until(lambda: len(moves_of(b, gid)) == 2, 30)
    status, snap = b.request("POST", f"/api/games/{gid}/undo", {"secret": k1})
    assert status == 200 and len(snap["moves"]) == 0
    status, snap = b.request("POST", f"/api/games/{gid}/move", {"secret": k1, "move": move})
    assert status == 200 and snap["thinking"]["elsewhere"] is False  # b holds the claim
    assert wait_until(lambda: len(moves_of(b, gid)) == 2, 10)


@pytest.mark.slow
def test_cancel_through_the_server_that_is_not_thinking_stops_the_agent(pair):
    a, b = pair
    made = create(a, ["human", "mcts:time=6"], LONG)
    gid, k1 = made["id"], made["secrets"]["1"]
    assert a.request("POST", f"/api/games/{gid}/move",
                     {"secret": k1, "move": first_legal("blooms", LONG, [])})[0] == 200
    assert thinking_of(b, gid)["elsewhere"] is True
    status, snap = b.request("POST", f"/api/games/{gid}/cancel", {"secret": k1})
    assert status == 200 and snap["paused"] and snap["thinking"] is None
    # the thinking server hears of it, pauses and stores no move
    assert wait_until(lambda: a.request("GET", f"/api/games/{gid}")[1]["paused"], 10)
    time.sleep(8)  # past the agent's 6 s
    assert len(moves_of(a, gid)) == 1 and len(moves_of(b, gid)) == 1
    # and letting it move through either server lets it move
    status, snap = b.request("POST", f"/api/games/{gid}/resume", {"secret": k1})
    assert status == 200 and snap["thinking"]["elsewhere"] is False
    assert wait_until(lambda: len(moves_of(a, gid)) == 2, 20)


@pytest.mark.slow
def test_an_untouched_clock_game_aborts_exactly_once_across_servers(pair):
    """A game whose first move never came (its turn began five minutes ago, on a 5 min clock,
    in no server's memory): both servers' keepers find it due; one of them aborts it."""
    from stonegarden.store import NewGame

    a, b = pair
    since = time.time() - 300
    clock = {"spec": {"initial": 300, "increment": 0}, "left": [300, 300], "running": None,
             "since": since}
    store = open_store(a.db)
    store.create_game(NewGame("untouched", "blooms", SMALL, ("human", "human"), ("k1", "k2"),
                              to_move=1, clock=clock, deadline=since + 180))
    store.close()
    end = time.time() + 30
    snap: dict = {}
    while time.time() < end:
        snap = b.request("GET", "/api/games/untouched")[1]
        if snap["terminal"]:
            break
        time.sleep(0.3)
    assert snap["terminal"] and snap["reason"] == "aborted" and snap["winner"] is None
    assert a.request("GET", "/api/games/untouched")[1]["reason"] == "aborted"
    time.sleep(1.5)  # both keepers have ticked again since
    logs = logs_of(pair)
    assert logs.count("game untouched: no first move came from player 1 in time") == 1, logs


def abort_and_move_at_once(a: Server, b: Server) -> None:
    """Player 1 moved; player 1 aborts through ``a`` as player 2 moves through ``b``."""
    made = create(a, ["human", "human"], params=LONG, clock={"initial": 300})
    gid, k1, k2 = made["id"], made["secrets"]["1"], made["secrets"]["2"]
    assert a.request("POST", f"/api/games/{gid}/move",
                     {"secret": k1, "move": first_legal("blooms", LONG, [])})[0] == 200
    second = first_legal("blooms", LONG, moves_of(b, gid))
    answers: dict[str, int] = {}
    start = threading.Barrier(2)

    def send(server: Server, what: str, body: dict) -> None:
        start.wait()
        answers[what] = server.request("POST", f"/api/games/{gid}/{what}", body)[0]

    threads = [threading.Thread(target=send, args=(a, "abort", {"secret": k1})),
               threading.Thread(target=send, args=(b, "move", {"secret": k2, "move": second}))]
    for t in threads:
        t.start()
    for t in threads:
        t.join(30)
    assert sorted(answers.values()) == [200, 409], answers
    row = open_store(a.db).get(gid)
    if answers["abort"] == 200:
        assert row.result["reason"] == "aborted" and len(row.moves) == 1
    else:
        assert row.result is None and len(row.moves) == 2
    for server in (a, b):  # each server serves the game as stored, a record that replays
        assert wait_until(lambda s=server: len(moves_of(s, gid)) == len(row.moves)
                          and s.request("GET", f"/api/games/{gid}")[1]["terminal"]
                          == (row.result is not None), 10)


@pytest.mark.slow
def test_an_abort_and_a_move_through_two_servers_at_once_end_one_way(pair):
    a, b = pair
    for _ in range(3):
        abort_and_move_at_once(a, b)


def test_postgresql_without_its_driver_says_how_to_install_it(tmp_path):
    """An install without the ``postgresql`` extra (as scripts/serve.sh makes) given a
    PostgreSQL ``--db``: one line that says what to install, no password."""
    (tmp_path / "psycopg.py").write_text(
        "raise ImportError(\"No module named 'psycopg'\", name='psycopg')\n")
    done = subprocess.run(
        [sys.executable, "-m", "stonegarden", "serve", "--port", "0", "--db",
         "postgresql://u:secret@127.0.0.1:1/x"], capture_output=True, text=True, timeout=60,
        env={**os.environ, "PYTHONPATH": os.pathsep.join([str(tmp_path), str(ROOT / "src")])})
    assert done.returncode == 2
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1 and "secret" not in lines[0], done.stderr
    assert 'pip install "stonegarden[postgresql]"' in lines[0], lines[0]


def test_a_password_given_as_a_query_parameter_is_not_in_the_first_line(pg_database):
    """libpq reads ``?password=`` too: the line saying where the games are stored hid only a
    password written before the ``@``."""
    said = first_line_of_serve([], {"STONEGARDEN_DB": pg_database + "?password=Sekr3t-in-the-query"})
    assert "serving" in said and "?password=***)" in said and "Sekr3t" not in said, said


def test_a_database_its_user_cannot_make_tables_in_says_it_needs_owning(postgres):
    """A database made without ``createdb --owner`` (its user may connect, not create
    tables): the start says what to do, not only ``permission denied for schema public``."""
    import psycopg

    with psycopg.connect(postgres.dsn, autocommit=True) as con:
        if not con.execute("SELECT 1 FROM pg_roles WHERE rolname = 'tenant'").fetchone():
            con.execute("CREATE ROLE tenant LOGIN")
        con.execute("DROP DATABASE IF EXISTS notowned")
        con.execute("CREATE DATABASE notowned")
    with psycopg.connect(postgres.dsn.rsplit("/", 1)[0] + "/notowned", autocommit=True) as con:
        con.execute("REVOKE CREATE ON SCHEMA public FROM PUBLIC")  # as PostgreSQL 15 has it
    done = _serve("--db", f"postgresql://tenant:secret@127.0.0.1:{postgres.port}/notowned")
    assert done.returncode == 2
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1 and "secret" not in lines[0], done.stderr
    assert "permission denied" in lines[0] and "createdb --owner" in lines[0], lines[0]
