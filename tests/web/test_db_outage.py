"""``serve`` on PostgreSQL while the database restarts or is down (its own throw-away cluster,
Debian's package, stopped and started by the test): a restart costs no request, a database that
is down is answered 503 at once saying why (and a server stopped then stops at once), and the
first request after it is back is served at once, with every acknowledged move kept."""

from __future__ import annotations

import itertools
import time
from collections.abc import Callable, Iterator

import pytest
from webhelpers import Server, first_legal

SMALL = {"size": 3, "target": 60}
_databases = itertools.count()


def fresh_name() -> str:
    """A database name no other test of the module's cluster took."""
    return f"outage{next(_databases)}"


@pytest.fixture(scope="module")
def module_cluster(tmp_path_factory: pytest.TempPathFactory) -> Iterator[object]:
    """One throw-away cluster for the module's tests (its initdb and start are seconds of a
    loaded machine), apart from the session's: these tests stop and freeze theirs."""
    from services import Postgres, postgres_available

    if not postgres_available():
        from conftest import require

        require("PostgreSQL")
    pg = Postgres(tmp_path_factory.mktemp("pg")).start()
    yield pg
    pg.stop()


@pytest.fixture
def cluster(module_cluster) -> Iterator[object]:
    """The module's cluster, answering as each test begins: a test leaves it stopped or
    frozen (its end, or a failure while it was so); each takes a database of its own."""
    yield module_cluster
    module_cluster.answer_again()


def timed(server: Server, method: str, path: str, body: object = None) -> tuple[int, dict, float]:
    start = time.monotonic()
    status, answer = server.request(method, path, body, timeout=60)
    return status, answer, time.monotonic() - start


def two_people(server: Server) -> tuple[str, list[str], Callable[[], tuple[int, dict, float]]]:
    """A new game of two people on ``server``: its id, the moves acknowledged so far, and a
    call that plays the next legal move for the side to move, timed, keeping it if played."""
    status, made = server.request("POST", "/api/games", {
        "game": "blooms", "params": SMALL, "seats": ["human", "human"]})
    assert status == 201, made
    gid, keys = made["id"], made["secrets"]
    moves: list[str] = []

    def move() -> tuple[int, dict, float]:
        text = first_legal("blooms", SMALL, moves)
        answer = timed(server, "POST", f"/api/games/{gid}/move",
                       {"secret": keys[str(1 + len(moves) % 2)], "move": text,
                        "ply": len(moves)})
        if answer[0] == 200:
            moves.append(text)
        return answer

    return gid, moves, move


def served_at_once(server: Server, gid: str, moves: list[str],
                   move: Callable[[], tuple[int, dict, float]], played: int) -> None:
    """The database back: a request and a move are served at once, and the game holds every
    acknowledged move (``played`` of them, the new one included)."""
    status, answer, seconds = timed(server, "GET", "/api/lobby")
    assert status == 200 and seconds < 3, (status, answer, seconds)
    status, answer, seconds = move()
    assert status == 200 and seconds < 3, (status, answer, seconds)
    status, snap = server.request("GET", f"/api/games/{gid}")
    assert [m["text"] for m in snap["moves"]] == moves and len(moves) == played


def seconds_to_stop(server: Server, timeout: float) -> float:
    """The seconds ``server`` takes to stop after a SIGTERM (as systemd stops it)."""
    assert server.proc is not None
    start = time.monotonic()
    server.proc.terminate()
    server.proc.wait(timeout=timeout)
    return time.monotonic() - start


def test_a_restarted_or_stopped_database_is_answered_at_once(cluster, tmp_path):
    server = Server(cluster.create_database(fresh_name()), None, log=tmp_path / "serve.log").start()
    try:
        gid, moves, move = two_people(server)
        assert move()[0] == 200
        for _ in range(3):  # the pool holds several connections, all cut off by a restart
            server.request("GET", "/api/lobby")
        # a restart (the package upgraded, say): the connections it cut off are not used
        cluster.halt()
        cluster.resume()
        for _ in range(4):
            status, answer, _ = timed(server, "GET", "/api/lobby")
            assert status == 200, answer
        assert move()[0] == 200
        # down: 503 at once, saying why, not after the pool's 30 s
        cluster.halt()
        for _ in range(3):
            status, answer, seconds = timed(server, "GET", "/api/lobby")
            assert status == 503 and seconds < 7, (status, answer, seconds)
            assert "connection" in answer["error"] and "refused" in answer["error"], answer
        status, answer, seconds = move()
        assert status == 503 and seconds < 7, (answer, seconds)
        # back: served at once, not at the pool's next try, with every acknowledged move
        cluster.resume()
        served_at_once(server, gid, moves, move, played=3)
        # stopped while the database is down (systemd kills what takes 20 s): at once
        cluster.halt()
        assert seconds_to_stop(server, timeout=30) < 10
    finally:
        server.stop()
    log = (tmp_path / "serve.log").read_text()
    assert "error connecting" not in log, log  # the pool's own warnings, two lines a try


@pytest.mark.slow
def test_after_an_outage_a_page_on_another_process_hears_a_move_at_once(cluster, tmp_path):
    from sse import Events

    dsn = cluster.create_database(fresh_name())
    a = Server(dsn, None, log=tmp_path / "a.log").start()
    b = Server(dsn, None, log=tmp_path / "b.log").start()
    try:
        status, made = a.request("POST", "/api/games", {
            "game": "blooms", "params": SMALL, "seats": ["human", "human"]})
        assert status == 201, made
        gid = made["id"]
        events = Events(b.port, f"/api/games/{gid}/events")
        try:
            events.update()
            # long enough for b's listener to wait several seconds between its reconnections
            cluster.halt()
            time.sleep(9)
            cluster.resume()
            move = first_legal("blooms", SMALL, [])
            status, answer = a.request("POST", f"/api/games/{gid}/move",
                                       {"secret": made["secrets"]["1"], "move": move})
            assert status == 200, answer
            # the outage's own update (b read every game again on reconnecting) may come
            # first: the move's must follow at once
            start = time.monotonic()
            while True:
                events.update(timeout=20)
                moves = b.request("GET", f"/api/games/{gid}")[1]["moves"]
                if [m["text"] for m in moves] == [move]:
                    break
            assert time.monotonic() - start < 3
        finally:
            events.close()
    finally:
        a.stop()
        b.stop()


def until(check, limit: float = 60) -> None:
    """Wait for ``check()`` (at most ``limit`` seconds): a thread has reached the point the
    test needs, however loaded the machine."""
    deadline = time.monotonic() + limit
    while not check():
        assert time.monotonic() < deadline, f"not within {limit} s"
        time.sleep(0.02)


def test_a_call_waiting_for_the_pool_when_the_database_stops_fails_at_once(cluster):
    import threading

    import psycopg

    from stonegarden.errors import StoreError
    from stonegarden.store import NewGame
    from stonegarden.store.postgres import PostgresStore

    dsn = cluster.create_database(fresh_name())
    store = PostgresStore(dsn, pool_size=1)
    try:
        for gid in ("g1", "g2"):
            store.create_game(NewGame(gid, "freego", {"size": 5}, ("human", "human"),
                                      (f"{gid}-1", f"{gid}-2"), listed=False,
                                      names=(None, None), to_move=1))
        outcomes: dict[str, tuple[str, float]] = {}

        def call(name: str, do) -> None:
            start = time.monotonic()
            try:
                do()
                outcomes[name] = ("done", time.monotonic() - start)
            except StoreError as exc:
                outcomes[name] = (str(exc), time.monotonic() - start)

        other = psycopg.connect(dsn)
        # another process holds g1: the move waits for it, on the pool's one connection
        other.execute("SELECT id FROM games WHERE id = 'g1' FOR UPDATE")
        mover = threading.Thread(target=call, args=(
            "move", lambda: store.append_move("g1", 0, "C3", None, to_move=2)))
        mover.start()
        until(lambda: other.execute(  # the move waits for the lock, holding the connection
            "SELECT count(*) FROM pg_stat_activity WHERE datname = current_database() "
            "AND wait_event_type = 'Lock'").fetchone()[0] == 1)
        reader = threading.Thread(target=call, args=("read", lambda: store.get("g2")))
        reader.start()
        until(lambda: store.pool.get_stats().get("requests_waiting", 0) == 1)  # for the pool
        cluster.halt()
        other.close()
        mover.join(60)
        reader.join(60)
        assert outcomes["move"][0] != "done"
        why, seconds = outcomes["read"]
        assert "refused" in why and seconds < 5, outcomes
    finally:
        store.close()


def test_an_analysis_running_when_the_database_restarts_goes_on(cluster, tmp_path):
    """A restart of PostgreSQL made the server forget its games (changes from the other
    processes may have been missed meanwhile); an analysis running then stopped half-way
    without a word, done neither then nor later unless asked for again. It goes on."""
    server = Server(cluster.create_database(fresh_name()), None, log=tmp_path / "serve.log").start()
    try:
        params = {"size": 4, "target": 300}
        status, made = server.request("POST", "/api/games", {
            "game": "blooms", "params": params, "seats": ["human", "human"], "hints": True})
        assert status == 201, made
        gid, keys = made["id"], made["secrets"]
        moves: list[str] = []
        for _ in range(30):  # three of the analysis's jobs
            text = first_legal("blooms", params, moves)
            status, answer = server.request("POST", f"/api/games/{gid}/move", {
                "secret": keys[str(1 + len(moves) % 2)], "move": text})
            assert status == 200, answer
            moves.append(text)
        for _ in range(600):  # bounded: the worker's warm-up (the analysis waits for it)
            if server.request("GET", "/api/engine")[1]["ready"]:
                break
            time.sleep(0.5)
        status, answer = server.request("POST", f"/api/games/{gid}/analysis",
                                        {"secret": keys["1"]})
        assert status == 202, answer
        seat = {"X-Seat-Secret": keys["1"]}
        cluster.halt()
        cluster.resume()
        deadline = time.monotonic() + 90
        while time.monotonic() < deadline:
            status, analysis = server.request("GET", f"/api/games/{gid}/analysis",
                                              headers=seat)
            if status == 200 and (analysis["done"] or analysis["error"]):
                break
            time.sleep(0.5)
        assert analysis["done"] and analysis["error"] == "", analysis
    finally:
        server.stop()


def test_a_database_that_stops_answering_is_answered_503_in_bounded_time(cluster, tmp_path):
    """PostgreSQL frozen (its processes stopped: the machine's kernel still accepts the
    connections, nothing answers them) held a request that needed it for ever. It is answered
    503 saying so within ``ANSWER_TIMEOUT``, a server stopped meanwhile stops, and once
    PostgreSQL goes on the next request is served at once, with every acknowledged move."""
    from stonegarden.store.postgres import ANSWER_TIMEOUT

    dsn = cluster.create_database(fresh_name())
    server = Server(dsn, None, log=tmp_path / "serve.log").start()
    bound = ANSWER_TIMEOUT + 4  # and the answer's way on a busy machine
    try:
        gid, moves, move = two_people(server)
        assert move()[0] == 200
        cluster.freeze()
        status, answer, seconds = timed(server, "GET", "/api/lobby")
        assert status == 503 and seconds < bound, (status, answer, seconds)
        # or, when the server's own periodic work found it first, a connection that is not
        # answered either
        assert "did not answer" in answer["error"] or "timeout expired" in answer["error"], answer
        status, answer, seconds = move()
        assert status == 503 and seconds < bound, (status, answer, seconds)
        cluster.thaw()
        served_at_once(server, gid, moves, move, played=2)
        # stopped while PostgreSQL is frozen (systemd kills what takes 20 s)
        cluster.freeze()
        assert seconds_to_stop(server, timeout=60) < 12
    finally:
        cluster.thaw()
        server.stop()


def test_a_move_waiting_for_another_process_lock_ends_with_the_server_reason(cluster):
    """A game's row held by another process's transaction that does not end (its client
    vanished, say) held every move of that game, each in a request, until the client's own
    bound: PostgreSQL's ``statement_timeout`` ends the wait first, saying why."""
    import psycopg

    from stonegarden.errors import StoreError
    from stonegarden.store import NewGame
    from stonegarden.store.postgres import ANSWER_TIMEOUT, PostgresStore

    dsn = cluster.create_database(fresh_name())
    store = PostgresStore(dsn, pool_size=1)
    other = psycopg.connect(dsn)
    try:
        store.create_game(NewGame("g1", "freego", {"size": 5}, ("human", "human"),
                                  ("g1-1", "g1-2"), listed=False, names=(None, None),
                                  to_move=1))
        other.execute("SELECT id FROM games WHERE id = 'g1' FOR UPDATE")
        start = time.monotonic()
        with pytest.raises(StoreError, match="statement timeout"):
            store.append_move("g1", 0, "C3", None, to_move=2)
        assert time.monotonic() - start < ANSWER_TIMEOUT
        other.rollback()
        store.append_move("g1", 0, "C3", None, to_move=2)  # the connection serves on
        assert store.get("g1").moves == ("C3",)
    finally:
        other.close()
        store.close()


def test_requests_waiting_for_a_thread_on_a_frozen_database_are_bounded_too(cluster, tmp_path):
    """PostgreSQL frozen under many requests at once: each call had its 5 s from when a thread
    of the server's took it up, and the threads were all waiting, so a request waited for one
    first (17 s seen). A call's bound counts from when it was asked for."""
    import threading

    from stonegarden.store.postgres import ANSWER_TIMEOUT

    server = Server(cluster.create_database(fresh_name()), None, log=tmp_path / "serve.log").start()
    try:
        assert two_people(server)[2]()[0] == 200
        cluster.freeze()
        answers: list[tuple[int, dict, float]] = []
        asking = [threading.Thread(target=lambda: answers.append(
            timed(server, "GET", "/api/lobby"))) for _ in range(24)]  # four times its threads
        for thread in asking:
            thread.start()
        for thread in asking:
            thread.join(90)
        assert len(answers) == 24
        for status, answer, seconds in answers:  # (and the answer's way on a busy machine)
            assert status == 503 and seconds < ANSWER_TIMEOUT + 4, (status, answer, seconds)
            assert "did not answer" in answer["error"] or "nor made" in answer["error"], answer
    finally:
        cluster.thaw()
        server.stop()


def test_a_request_under_way_as_the_server_stops_on_a_frozen_database_is_answered_503(
        cluster, tmp_path):
    """PostgreSQL frozen as the server was stopped (SIGTERM, as systemd stops it): the request
    waiting for it was cancelled by uvicorn after its 2 s and answered a bare 500 (not JSON),
    and the server took 15 s to stop. The request is answered 503 saying why, and the server
    stops within seconds, its workers with it."""
    import threading

    from webhelpers import alive

    server = Server(cluster.create_database(fresh_name()), None, log=tmp_path / "serve.log").start()
    try:
        assert two_people(server)[2]()[0] == 200
        workers = server.below()
        cluster.freeze()
        answers: list[tuple[int, dict, float]] = []
        asking = threading.Thread(target=lambda: answers.append(
            timed(server, "GET", "/api/lobby")))
        asking.start()
        time.sleep(1)  # the request waits for the database (a healthy one answers in ms)
        assert seconds_to_stop(server, timeout=60) < 9
        asking.join(30)
        status, answer, _ = answers[0]
        assert status == 503 and "did not answer" in answer["error"], (status, answer)
        assert not [pid for pid in workers if alive(pid)]
    finally:
        cluster.thaw()
        server.stop()

def test_a_start_on_a_database_that_does_not_answer_fails_in_bounded_time(cluster, monkeypatch):
    """A server starting while another held the lock of the schema's migration (frozen halfway
    through its own start, say), or while PostgreSQL itself did not answer, waited for ever,
    or said only "connection timeout expired". It fails after ``START_TIMEOUT`` saying why,
    and starts once the lock is free."""
    import psycopg

    from stonegarden.errors import StoreError
    from stonegarden.store import postgres

    monkeypatch.setattr(postgres, "START_TIMEOUT", 2.0)
    dsn = cluster.create_database(fresh_name())
    with psycopg.connect(dsn, autocommit=True) as other:
        other.execute("SELECT pg_advisory_lock(%s)", (postgres.MIGRATION_LOCK,))
        start = time.monotonic()
        with pytest.raises(StoreError, match=r"did not answer as the server started \(.*"
                                             r"lock of its schema's migration"):
            postgres.PostgresStore(dsn)
        assert time.monotonic() - start < 5
    postgres.PostgresStore(dsn).close()
    cluster.freeze()
    try:
        start = time.monotonic()
        with pytest.raises(StoreError, match="did not answer a connection in time"):
            postgres.PostgresStore(dsn)
        assert time.monotonic() - start < postgres.CONNECT_TIMEOUT + 3
    finally:
        cluster.thaw()
