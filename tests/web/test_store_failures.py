"""The server while its database fails under it (a full disk, a database restarting): what
the answers say, what is stored, and that a game goes on once the database is back."""

from __future__ import annotations

import errno
import os
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

pytest.importorskip("httpx2", reason="starlette's TestClient needs httpx2 (test extra)")
from starlette.testclient import TestClient
from webhelpers import ROOT, Server, first_legal

from stonegarden.core.registry import make
from stonegarden.errors import StoreError
from stonegarden.store import open_store
from stonegarden.store.sql import SQLStore
from stonegarden.web.app import create_app

TUMBLING = {"tumbling": True}  # Blobs rolls the face type before every move
PEOPLE = {"size": 8, "target": 300}  # a game that goes on


def fail_the_next_roll(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """The store refuses the next roll it is asked to write, once, as a full disk would; the
    returned list gets the text of every move written."""
    written = SQLStore.append_move
    log: list[str] = []
    armed = [True]

    def append_move(self, game_id, ply, text, *args, **kwargs):
        if text.startswith("roll:") and armed[0]:
            armed[0] = False
            raise StoreError(f"{self.location}: database or disk is full")
        log.append(text)
        return written(self, game_id, ply, text, *args, **kwargs)

    monkeypatch.setattr(SQLStore, "append_move", append_move)
    return log


def test_a_move_stored_before_a_roll_that_failed_is_acknowledged_and_the_roll_comes_later(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch):
    db = tmp_path / "games.db"
    with TestClient(create_app(db, workers=1, warm_up=False)) as client:
        r = client.post("/api/games", json={"game": "blobs", "params": TUMBLING,
                                            "seats": ["human", "human"]})
        assert r.status_code == 201, r.text
        made = r.json()
        gid = made["id"]
        snap = client.get(f"/api/games/{gid}").json()
        seat = snap["to_move"]
        game = make("blobs", **TUMBLING)
        state = game.replay([m["text"] for m in snap["moves"]])[-1]
        move = game.action_to_text(state, int(game.legal_actions(state)[0]))
        written = fail_the_next_roll(monkeypatch)
        r = client.post(f"/api/games/{gid}/move",
                        json={"secret": made["secrets"][str(seat)], "move": move})
        # the move is stored: it is answered as made, not as a failure to retry
        assert r.status_code == 200, r.text
        assert written[0] == move and open_store(db).get(gid).moves[-1] == move
        # the game does not wait at the roll for ever: it is rolled in a moment, unasked
        deadline = time.monotonic() + 10
        while open_store(db).get(gid).moves[-1] == move and time.monotonic() < deadline:
            time.sleep(0.1)
        assert open_store(db).get(gid).moves[-1].startswith("roll:")
        snap = client.get(f"/api/games/{gid}").json()
        assert snap["moves"][-2]["text"] == move
        assert snap["moves"][-1]["text"].startswith("roll:")
        assert snap["to_move"] == 3 - seat
        assert len(written) == 2  # rolled once: the look that followed did not roll again


def test_a_redo_cut_short_by_the_database_leaves_the_agent_thinking(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch):
    """The redo stores the person's move, then the database refuses the agent's: the agent,
    to move after the stored move, thinks again instead of the game waiting for it."""
    params = {"size": 3, "target": 6}
    with TestClient(create_app(tmp_path / "games.db", workers=1, warm_up=False)) as client:
        r = client.post("/api/games", json={"game": "blooms", "params": params,
                                            "seats": ["human", "random"]})
        made = r.json()
        gid, key = made["id"], made["secrets"]["1"]
        assert client.post(f"/api/games/{gid}/move",
                           json={"secret": key, "move": "Rc3"}).status_code == 200
        snap = wait_until(client, gid, lambda s: s["length"] == 2)
        line = [m["text"] for m in snap["moves"]]
        assert client.post(f"/api/games/{gid}/undo", json={"secret": key}).status_code == 200
        written = SQLStore.append_move
        refused: list[str] = []

        def append_move(self, game_id, ply, text, *args, **kwargs):
            if ply == 1 and not refused:
                refused.append(text)
                raise StoreError(f"{self.location}: database or disk is full")
            return written(self, game_id, ply, text, *args, **kwargs)

        monkeypatch.setattr(SQLStore, "append_move", append_move)
        r = client.post(f"/api/games/{gid}/redo", json={"secret": key})
        assert r.status_code == 503 and "full" in r.json()["error"]
        assert refused == line[1:]
        snap = wait_until(client, gid, lambda s: s["length"] == 2)
        assert snap["moves"][0]["text"] == "Rc3" and snap["to_move"] == 1


def test_an_undo_the_database_refused_leaves_the_agent_thinking(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch):
    """Nothing was undone, so the agent's search goes on and its move is played."""
    params = {"size": 3, "target": 6}
    with TestClient(create_app(tmp_path / "games.db", workers=1, warm_up=False)) as client:
        r = client.post("/api/games", json={"game": "blooms", "params": params,
                                            "seats": ["human", "mcts:time=1"]})
        made = r.json()
        gid, key = made["id"], made["secrets"]["1"]
        r = client.post(f"/api/games/{gid}/move", json={"secret": key, "move": "Rc3"})
        assert r.status_code == 200 and r.json()["thinking"] is not None

        def truncate(self, *args, **kwargs):
            raise StoreError(f"{self.location}: database or disk is full")

        monkeypatch.setattr(SQLStore, "truncate", truncate)
        r = client.post(f"/api/games/{gid}/undo", json={"secret": key})
        assert r.status_code == 503 and "full" in r.json()["error"]
        snap = wait_until(client, gid, lambda s: s["length"] == 2)
        assert snap["to_move"] == 1 and not snap["paused"]


def test_the_stored_games_page_says_the_database_failed_in_a_page(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch):
    def list_games(self, *args, **kwargs):
        raise StoreError(f"{self.location}: disk I/O error (the disk holding it is full)")

    monkeypatch.setattr(SQLStore, "list_games", list_games)
    with TestClient(create_app(tmp_path / "games.db", workers=1, warm_up=False)) as client:
        r = client.get("/games")
        assert r.status_code == 503
        assert r.headers["content-type"].startswith("text/html")
        assert "the disk holding it is full" in r.text
        r = client.get("/api/games")
        assert r.status_code == 503 and "full" in r.json()["error"]


def test_a_file_that_can_be_read_but_not_written_stops_the_start_in_one_line(tmp_path: Path):
    """It passed the checks at the start (all reads) and failed at the first write, the
    heartbeat, with a traceback after the server had said it was serving."""
    db = tmp_path / "games.db"
    open_store(db)  # made and migrated
    made = subprocess.run(["chattr", "+i", str(db)], capture_output=True, check=False)
    if made.returncode != 0:  # an immutable file needs root and a file system that has them
        pytest.skip(f"cannot make a file immutable here: {made.stderr.decode(errors='replace')}")
    try:
        env = {**os.environ, "PYTHONPATH": str(ROOT / "src")}
        done = subprocess.run([sys.executable, "-m", "stonegarden", "serve", "--port", "0",
                               "--db", str(db), "--workers", "1"],
                              env=env, capture_output=True, text=True, timeout=60)
    finally:
        subprocess.run(["chattr", "-i", str(db)], check=True)
    assert done.returncode == 2, done.stderr
    assert done.stderr.strip().splitlines() == [
        f"stonegarden serve: {db}: attempt to write a readonly database (the file is read-only)"]


def wait_until(client: TestClient, gid: str, check, seconds: float = 20) -> dict:
    """The game's snapshot once ``check(snapshot)`` holds.

    Raises:
        AssertionError: not within ``seconds``.
    """
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        snap = client.get(f"/api/games/{gid}").json()
        if check(snap):
            return snap
        time.sleep(0.05)
    shown = {k: snap[k] for k in ("length", "to_move", "thinking", "paused", "notice")}
    raise AssertionError(f"not within {seconds} s: {shown}")


@pytest.fixture
def small_disk(tmp_path: Path) -> Iterator[Path]:
    """A folder on a file system of its own, 2 MiB (a tmpfs: mounting it needs root)."""
    folder = tmp_path / "disk"
    folder.mkdir()
    done = subprocess.run(["mount", "-t", "tmpfs", "-o", "size=2m", "tmpfs", str(folder)],
                          capture_output=True, check=False)
    if done.returncode != 0:
        pytest.skip(f"cannot mount a tmpfs here: {done.stderr.decode(errors='replace')}")
    try:
        yield folder
    finally:
        subprocess.run(["umount", "-l", str(folder)], check=False)


def fill(folder: Path) -> Path:
    """Write a file in ``folder`` until its disk is full; the file."""
    path = folder / "filler"
    fd = os.open(path, os.O_WRONLY | os.O_CREAT)
    try:
        while True:
            os.write(fd, b"\0" * 65536)
    except OSError as exc:
        assert exc.errno == errno.ENOSPC
    finally:
        os.close(fd)
    return path


def remount(folder: Path, mode: str) -> None:
    """Mount ``folder``'s file system again read-only (``ro``) or writable (``rw``). The
    kernel refuses ``ro`` as "busy" while a write is under way on it (the server's heartbeat
    writes every 2 s, and a loaded machine draws a write out): asked again until it takes."""
    deadline = time.monotonic() + 10
    while True:
        done = subprocess.run(["mount", "-o", f"remount,{mode}", str(folder)],
                              capture_output=True, text=True, check=False)
        if done.returncode == 0:
            return
        assert "busy" in done.stderr and time.monotonic() < deadline, done.stderr
        time.sleep(0.05)


DUTIES = ("clock check", "heartbeat")


def logged(log: Path, check) -> str:
    """The server's log once ``check(its text)`` holds.

    Raises:
        AssertionError: not within 20 s.
    """
    deadline = time.monotonic() + 20
    said = log.read_text()
    while not check(said):
        assert time.monotonic() < deadline, said
        time.sleep(0.1)
        said = log.read_text()
    return said


def people_game(server: Server) -> dict:
    """A new game of two people on ``server``, as its answer gives it."""
    status, made = server.request("POST", "/api/games", {
        "game": "blooms", "params": PEOPLE, "seats": ["human", "human"]})
    assert status == 201, made
    return made


def test_a_full_or_read_only_disk_gets_503_saying_so_and_nothing_unstored_is_acknowledged(
        small_disk: Path, tmp_path: Path):
    db = small_disk / "games.db"
    log = tmp_path / "serve.log"
    server = Server(db, None, log=log).start()
    try:
        made = people_game(server)
        gid = made["id"]
        acknowledged: list[str] = []

        def play() -> tuple[int, dict]:
            move = first_legal("blooms", PEOPLE, acknowledged)
            seat = str(len(acknowledged) % 2 + 1)
            status, answer = server.request("POST", f"/api/games/{gid}/move",
                                            {"secret": made["secrets"][seat], "move": move})
            if status == 200:
                acknowledged.append(move)
            return status, answer

        assert play()[0] == 200
        filler = fill(small_disk)
        full = time.monotonic()
        status, answer = play()
        assert status == 503 and "the disk holding it is full" in answer["error"], answer
        status, answer = server.request("POST", "/api/games", {
            "game": "blooms", "params": PEOPLE, "seats": ["human", "human"]})
        assert status == 503 and "full" in answer["error"], answer
        # the clocks' keeper looks twice a second, the heartbeat every 2 s: the first failure
        # is awaited (a loaded machine draws a write out), then a few more of their turns
        logged(log, lambda said: any(f"{duty} failed" in said for duty in DUTIES))
        time.sleep(max(0.0, full + 3 - time.monotonic()))
        said = log.read_text()
        failed = [duty for duty in DUTIES if f"{duty} failed" in said]
        assert failed, said
        assert all(said.count(f"{duty} failed") == 1 for duty in failed), said  # not each tick
        filler.unlink()
        assert play()[0] == 200  # room again: the game goes on
        logged(log, lambda said: all(f"{duty} works again" in said for duty in failed))
        remount(small_disk, "ro")
        status, answer = play()
        assert status == 503 and "read-only" in answer["error"], answer
        remount(small_disk, "rw")
        server.kill9()
        server = Server(db, server.port).start()
        status, snap = server.request("GET", f"/api/games/{gid}")
        assert [m["text"] for m in snap["moves"]] == acknowledged
    finally:
        server.stop()


def test_a_file_another_program_holds_locked_gets_503_saying_so(tmp_path: Path,
                                                                monkeypatch: pytest.MonkeyPatch):
    """An SQLite browser holding a write transaction open on the games file: a move waited
    and was refused with SQLite's bare `database is locked`; the message says who holds it,
    and the move is made once the lock is let go."""
    import sqlite3

    from stonegarden.store import sqlite as sqlite_store

    monkeypatch.setattr(sqlite_store, "BUSY_SECONDS", 0.5)
    db = tmp_path / "games.db"
    with TestClient(create_app(db, workers=1, warm_up=False)) as client:
        made = client.post("/api/games", json={"game": "blooms", "params": PEOPLE,
                                               "seats": ["human", "human"]}).json()
        gid, key = made["id"], made["secrets"]["1"]
        other = sqlite3.connect(db, isolation_level=None)
        other.execute("BEGIN IMMEDIATE")
        r = client.post(f"/api/games/{gid}/move", json={"secret": key, "move": "Rd4"})
        assert r.status_code == 503
        assert r.json()["error"] == (f"{db}: database is locked (another program holds its "
                                     "write lock: a change waited 0.5 s; an open transaction "
                                     "in an SQLite browser, say)")
        assert client.get(f"/api/games/{gid}").json()["length"] == 0
        other.execute("ROLLBACK")
        other.close()
        r = client.post(f"/api/games/{gid}/move", json={"secret": key, "move": "Rd4"})
        assert r.status_code == 200 and r.json()["length"] == 1


def test_a_server_stopped_while_another_program_holds_the_lock_answers_the_move(
        tmp_path: Path):
    """SIGTERM while a move waited for another program's write lock on the file: the
    shutdown cut the request off after 2 s (uvicorn's bare 500, not JSON), and the move, still
    waiting in its thread, was stored once the lock was let go, after its player had been told
    it failed. It is answered 503 saying why, and is not made."""
    import sqlite3
    import threading

    db = tmp_path / "games.db"
    server = Server(db, None, log=tmp_path / "serve.log").start()
    other = sqlite3.connect(db, isolation_level=None)
    try:
        made = people_game(server)
        gid = made["id"]
        move = first_legal("blooms", PEOPLE, [])
        other.execute("BEGIN IMMEDIATE")
        answers: list[object] = []

        def play() -> None:
            start = time.monotonic()
            try:
                answers.append(server.request("POST", f"/api/games/{gid}/move", {
                    "secret": made["secrets"]["1"], "move": move, "ply": 0}))
            except Exception as exc:  # a body that is not JSON
                answers.append(exc)
            answers.append(time.monotonic() - start)

        mover = threading.Thread(target=play)
        mover.start()
        time.sleep(1.5)  # the move waits for the lock
        assert mover.is_alive() and not answers
        assert server.proc is not None
        server.proc.terminate()
        mover.join(30)
        assert not isinstance(answers[0], Exception), answers
        (status, answer), seconds = answers
        assert status == 503 and "stopping" in answer["error"], answer
        # soon after the stop (the 1.5 s above, then the stop's 1 s wait), not after the 30 s
        # it would wait for the lock; a loaded machine may take a second or two more
        assert seconds < 10, seconds
        other.execute("ROLLBACK")  # the lock let go: the move answered 503 is not made
        server.proc.wait(30)
        with sqlite3.connect(db) as con:
            assert con.execute("SELECT count(*) FROM moves WHERE game_id = ?",
                               (gid,)).fetchone() == (0,)
    finally:
        other.close()
        server.stop()


def test_a_file_deleted_under_the_server_is_refused_saying_where_its_games_are_still(
        tmp_path: Path):
    """The games file deleted (or moved away) while serving: each change was refused with
    SQLite's `no such table: moves`, and a new, empty file was made in its place, which a
    second server could then serve beside this one. The refusal says what happened and
    where the server still holds the deleted file open, from which it is copied back."""
    import re
    import shutil

    db = tmp_path / "games.db"
    server = Server(db).start()
    try:
        made = people_game(server)
        gid = made["id"]
        move = first_legal("blooms", PEOPLE, [])
        assert server.request("POST", f"/api/games/{gid}/move",
                              {"secret": made["secrets"]["1"], "move": move})[0] == 200
        db.unlink()
        status, answer = server.request("POST", f"/api/games/{gid}/move", {
            "secret": made["secrets"]["2"], "move": first_legal("blooms", PEOPLE, [move])})
        assert status == 503, answer
        said = answer["error"]
        assert said.startswith(f"{db}: the file was deleted or replaced while this server "
                               "ran (a new one is not made in its place): copy it back from "
                               "/proc/"), said
        assert server.request("GET", "/api/games")[0] == 503
        assert not db.exists()  # no empty file made in its place
        held = re.search(r"/proc/\d+/fd/\d+", said)
        assert held is not None, said
        shutil.copyfile(held.group(0), db)
    finally:
        server.stop()
    server = Server(db).start()
    try:
        status, snap = server.request("GET", f"/api/games/{gid}")
        assert status == 200 and [m["text"] for m in snap["moves"]] == [move]
    finally:
        server.stop()


def test_an_analysis_the_database_refused_to_store_is_stored_when_asked_for_again(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch):
    """The disk full as the analysis stored its last points: the page said it could not be
    stored, yet showed it done, and asking again did nothing (every point was held in
    memory), so a restart lost them. Points are kept only once stored: asking again once
    there is room analyses and stores them."""
    refusals = [1]
    written = SQLStore.put_analysis

    def put_analysis(self, *args, **kwargs):
        if refusals:
            refusals.pop()
            raise StoreError(f"{self.location}: database or disk is full")
        return written(self, *args, **kwargs)

    monkeypatch.setattr(SQLStore, "put_analysis", put_analysis)
    db = tmp_path / "games.db"
    tiny = {"size": 2}  # Blooms on 7 cells: one job of the analysis
    with TestClient(create_app(db, workers=1, warm_up=False)) as client:
        made = client.post("/api/games", json={"game": "blooms", "params": tiny,
                                               "seats": ["human", "human"],
                                               "hints": True}).json()
        gid, key = made["id"], made["secrets"]["1"]
        moves: list[str] = []
        for _ in range(2):
            move = first_legal("blooms", tiny, moves)
            r = client.post(f"/api/games/{gid}/move", json={
                "secret": made["secrets"][str(len(moves) % 2 + 1)], "move": move})
            assert r.status_code == 200, r.text
            moves.append(move)
        seat = {"X-Seat-Secret": key}

        def finished() -> dict:
            deadline = time.monotonic() + 120
            while time.monotonic() < deadline:
                a = client.get(f"/api/games/{gid}/analysis", headers=seat).json()
                if not a["running"]:
                    return a
                time.sleep(0.2)
            raise AssertionError("the analysis did not end")

        assert client.post(f"/api/games/{gid}/analysis", json={"secret": key}).status_code == 202
        a = finished()
        assert "could not be stored" in a["error"] and not a["done"], a
        assert client.post(f"/api/games/{gid}/analysis", json={"secret": key}).status_code == 202
        a = finished()
        assert a["done"] and a["error"] == "", a
    stored = open_store(db).get_analysis(gid)
    assert stored is not None and [p["ply"] for p in stored[1]] == [0, 1, 2]


FILL_UNDER_A_SIZE_LIMIT = """
import resource, sys
from pathlib import Path
from stonegarden.errors import StoreError
from stonegarden.store import NewGame, open_store
store = open_store(Path(sys.argv[1]))
resource.setrlimit(resource.RLIMIT_FSIZE, (256 * 1024, resource.RLIM_INFINITY))
for i in range(100000):
    try:
        store.create_game(NewGame(f"g{i}", "freego", {"size": 19}, ("human", "human"),
                                  ("a" * 32, "b" * 32)))
    except StoreError as exc:
        print(exc)
        break
"""


def test_a_file_at_its_size_limit_is_refused_saying_so(tmp_path: Path):
    """A server whose files may not grow past a size (``ulimit -f``, systemd's ``LimitFSIZE``)
    refused every change there with a bare "disk I/O error", the disk not being full. It says
    the file has reached the limit, and which."""
    env = {**os.environ, "PYTHONPATH": str(ROOT / "src")}
    done = subprocess.run([sys.executable, "-c", FILL_UNDER_A_SIZE_LIMIT,
                           str(tmp_path / "games.db")], env=env, capture_output=True,
                          text=True, timeout=120)
    said = done.stdout.strip()
    assert said.startswith(f"{tmp_path / 'games.db'}: "), (said, done.stderr[-2000:])
    assert "largest file this server may write, 262144 bytes" in said
    assert "ulimit -f" in said


def test_a_change_waiting_for_this_servers_own_write_as_it_stops_is_made(tmp_path: Path):
    """As the server stopped, a move waiting its turn behind another of this server's own
    writes (milliseconds) was refused 503 at once, saying another program held the file's
    write lock, which none did. It waits a moment, and is made."""
    import sqlite3
    import threading

    from stonegarden.store import NewGame

    db = tmp_path / "games.db"
    store = open_store(db)
    writer = sqlite3.connect(db, isolation_level=None, check_same_thread=False)
    writer.execute("BEGIN IMMEDIATE")  # a write under way, let go of 0.3 s from now
    release = threading.Timer(0.3, writer.execute, args=("COMMIT",))
    release.start()
    try:
        store.stopping()
        store.create_game(NewGame("g1", "freego", {"size": 5}, ("human", "human"),
                                  ("k1", "k2"), listed=False, names=("Ann", "Bo"), to_move=1))
        assert store.get("g1") is not None
    finally:
        release.join()
        writer.close()
