"""The real server as a process: killed with SIGKILL mid-game and started again on the same
database, the game goes on where it was; live updates arrive as server-sent events."""

from __future__ import annotations

import http.client
import json
import os
import re
import socket
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

import pytest
from webhelpers import ROOT, Server, first_legal, first_line_of_serve

PARAMS = {"size": 3, "target": 4}


def wait_turn(server: Server, gid: str) -> dict:
    for _ in range(600):  # bounded: the agent is `random` in a worker process
        status, snap = server.request("GET", f"/api/games/{gid}")
        assert status == 200
        if snap["thinking"] is None:
            return snap
        time.sleep(0.05)
    raise AssertionError("the agent never moved")


def play_one(server: Server, gid: str, key: str) -> dict:
    snap = wait_turn(server, gid)
    moves = [m["text"] for m in snap["moves"]]
    status, body = server.request("POST", f"/api/games/{gid}/move",
                                  {"secret": key, "move": first_legal("blooms", PARAMS, moves)})
    assert status == 200, body
    return wait_turn(server, gid)


@pytest.mark.slow
def test_kill_9_mid_game_then_restart_on_the_same_db_and_finish(tmp_path: Path, cli):
    db = tmp_path / "games.db"
    server = Server(db).start()
    try:
        status, made = server.request("POST", "/api/games", {
            "game": "blooms", "params": PARAMS, "seats": ["human", "random"]})
        assert status == 201
        gid, key = made["id"], made["secrets"]["1"]
        play_one(server, gid, key)
        moves = [m["text"] for m in wait_turn(server, gid)["moves"]]
        # a human move, then SIGKILL at once: the agent may be thinking about its reply
        status, before = server.request("POST", f"/api/games/{gid}/move", {
            "secret": key, "move": first_legal("blooms", PARAMS, moves)})
        assert status == 200 and before["length"] == len(moves) + 1
        server.kill9()
        server = Server(db, server.port).start()
        after = wait_turn(server, gid)  # the agent (re)thinks after the restart if it must
        assert after["moves"][: before["length"]] == before["moves"]
        assert after["terminal"] or after["to_move"] == 1
        status, _ = server.request("POST", f"/api/games/{gid}/move",
                                   {"secret": "wrong", "move": "Ra1"})
        assert status == 403  # the secrets survived the restart too, and still guard the seat
        for _ in range(30):
            snap = wait_turn(server, gid)
            if snap["terminal"]:
                break
            play_one(server, gid, key)
        assert snap["terminal"]
        with urllib.request.urlopen(server.url + f"/api/games/{gid}/record", timeout=30) as r:
            (tmp_path / "game.json").write_bytes(r.read())
    finally:
        server.stop()
    replay = cli("replay", str(tmp_path / "game.json"), "--json")
    assert replay.returncode == 0, replay.stderr
    assert len(replay.stdout.splitlines()) == snap["length"]


@pytest.mark.slow
def test_server_sent_events_announce_every_move(tmp_path: Path):
    server = Server(tmp_path / "games.db").start()
    try:
        _, made = server.request("POST", "/api/games", {
            "game": "blooms", "params": PARAMS, "seats": ["human", "human"]})
        gid = made["id"]
        stream = urllib.request.urlopen(server.url + f"/api/games/{gid}/events", timeout=30)
        assert stream.headers["Content-Type"].startswith("text/event-stream")

        def next_event() -> str:
            lines = []
            while True:
                line = stream.readline().decode().rstrip("\n")
                if line == "" and lines:
                    return "\n".join(lines)
                if line and not line.startswith(":"):
                    lines.append(line)

        first = next_event()
        assert first.startswith("event: update")
        server.request("POST", f"/api/games/{gid}/move",
                       {"secret": made["secrets"]["1"], "move": "Rc3"})
        second = next_event()
        assert second.startswith("event: update") and second != first
        stream.close()
    finally:
        server.stop()


@pytest.mark.slow
def test_serve_command_documents_its_options(cli):
    out = cli("serve", "--help")
    assert out.returncode == 0, out.stderr
    for option in ("--host", "--port", "--db", "--open", "--max-think", "--hint-seconds",
                   "--analysis-seconds", "--job-memory", "--queue", "--client-jobs", "127.0.0.1"):
        assert option in out.stdout


def test_a_port_in_use_stops_the_start_in_one_line_before_it_says_it_serves(tmp_path: Path,
                                                                            cli):
    """It said it was serving, started its workers, then failed to bind (exit status 3)."""
    first = Server(tmp_path / "a.db").start()
    try:
        out = cli("serve", "--port", str(first.port), "--db", str(tmp_path / "b.db"),
                  timeout=60)
    finally:
        first.stop()
    assert out.returncode == 2, out.stderr
    assert "serving" not in out.stdout
    assert out.stderr.strip().splitlines() == [
        f"stonegarden serve: cannot listen on 127.0.0.1:{first.port}: address already in use"]


@pytest.mark.parametrize("host", ["127.0.0.1", "::1", "::"])
def test_port_0_serves_on_a_free_port_and_says_where(tmp_path: Path, host: str):
    """The first line's link works (it named port 0, wrote an IPv6 address without brackets,
    and 127.0.0.1 for a server listening on IPv6 only)."""
    if ":" in host and not socket.has_ipv6:
        pytest.skip("no IPv6 here")
    env = {**os.environ, "PYTHONPATH": str(ROOT / "src")}
    proc = subprocess.Popen([sys.executable, "-m", "stonegarden", "serve", "--host", host,
                             "--port", "0", "--db", str(tmp_path / "games.db"),
                             "--workers", "1"],
                            env=env, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
    try:
        assert proc.stdout is not None
        said = proc.stdout.readline()
        found = re.search(r"serving (http://\S+:(\d+)/) ", said)
        assert found and int(found.group(2)) > 0, said
        for _ in range(300):
            try:
                with urllib.request.urlopen(f"{found.group(1)}api/meta", timeout=2) as r:
                    assert r.status == 200
                    break
            except OSError:
                time.sleep(0.1)
        else:
            raise AssertionError("nothing answers at the port it named")
    finally:
        proc.terminate()
        proc.wait(timeout=30)


def test_the_first_line_names_a_relative_db_by_its_whole_path(tmp_path: Path):
    """Where the games are, to back them up, whatever folder the server was started in."""
    said = first_line_of_serve(["--db", "games.db"], cwd=tmp_path)
    assert f"(games stored in {tmp_path / 'games.db'}); " in said, said


def test_an_agent_to_move_after_a_restart_thinks_whoever_opens_its_game_first(tmp_path: Path):
    """The agent's move was admitted before the restart: a stranger who opens the game first,
    with the job queue's share of their own address full, does not leave it paused (it was,
    with a notice telling its player "you have 1 jobs waiting or running")."""
    server = Server(tmp_path / "games.db", None, "--max-think", "30", "--client-jobs", "1")
    server.start()
    try:
        status, made = server.request("POST", "/api/games", {
            "game": "blooms", "params": PARAMS, "seats": ["mcts:time=20", "human"]},
            source="127.0.0.2")
        assert status == 201, made
        gid = made["id"]
        for _ in range(600):  # bounded: until its worker searches
            if (server.request("GET", f"/api/games/{gid}")[1]["thinking"] or {}).get(
                    "queued") is False:
                break
            time.sleep(0.05)
        server.kill9()
        server.start()
        status, own = server.request("POST", "/api/games", {  # the stranger's one job
            "game": "blooms", "params": PARAMS, "seats": ["mcts:time=20", "human"]},
            source="127.0.0.3")
        assert status == 201, own
        status, snap = server.request("GET", f"/api/games/{gid}", source="127.0.0.3")
        assert status == 200
        assert not snap["paused"] and snap["notice"] == "", snap["notice"]
        assert snap["thinking"] is not None and snap["thinking"]["spec"] == "mcts:time=20"
    finally:
        server.stop()


def test_a_request_waiting_for_a_job_as_the_server_stops_is_answered_503(tmp_path: Path):
    """SIGTERM while a hint searches: the server waited 2 s for the request, then cancelled
    it, and its client got uvicorn's plain "500 Internal Server Error". It is answered at
    once, 503 with the reason, and the server stops."""
    import threading

    server = Server(tmp_path / "games.db", None, "--hint-agent", "mcts:time=20",
                    "--hint-seconds", "30")
    server.start()
    try:
        status, made = server.request("POST", "/api/games", {
            "game": "blooms", "params": PARAMS, "seats": ["human", "random"]})
        assert status == 201, made
        gid, key = made["id"], made["secrets"]["1"]
        answers: list[tuple[int, str]] = []

        def ask() -> None:
            conn = http.client.HTTPConnection("127.0.0.1", server.port, timeout=30)
            conn.request("POST", f"/api/games/{gid}/hint", body=json.dumps({"secret": key}),
                         headers={"Content-Type": "application/json"})
            r = conn.getresponse()
            answers.append((r.status, r.read().decode()))
            conn.close()

        asking = threading.Thread(target=ask)
        asking.start()
        # its job searches (a fixed second raced a loaded machine's request to the server)
        deadline = time.monotonic() + 60
        while server.request("GET", "/api/meta")[1]["limits"]["busy"] < 1:
            assert time.monotonic() < deadline and asking.is_alive(), answers
            time.sleep(0.05)
        assert server.proc is not None
        server.proc.terminate()
        asking.join(30)
        assert answers == [(503, '{"error":"the server is stopping"}')]
        server.proc.wait(15)
    finally:
        server.stop()


@pytest.mark.parametrize("first", [True, False], ids=["this-process", "another-process"])
def test_the_time_a_machine_slept_is_charged_to_no_one(tmp_path: Path,
                                                      monkeypatch: pytest.MonkeyPatch,
                                                      first: bool):
    """A laptop serving timed games closed for an hour: no server ran meanwhile, but the
    process had not restarted, so its keeper flagged every running clock as it woke (player
    1 lost on time here). The time asleep is given back as an outage's is, by the first
    server process of the machine to wake (``first``: this one; else another sharing the
    database, after which this one reads its clocks again)."""
    pytest.importorskip("httpx2", reason="starlette's TestClient needs httpx2 (test extra)")
    from starlette.testclient import TestClient

    from stonegarden.store import open_store
    from stonegarden.store.sql import SQLStore
    from stonegarden.web import clock_keeper
    from stonegarden.web.app import create_app

    if not first:  # the store's clocks moved on by another process as this one wakes
        beat = SQLStore.heartbeat

        def heartbeat(self, now, grace):
            down = beat(self, now, grace)
            return 0.0 if grace == clock_keeper.HEARTBEAT_GRACE else down

        monkeypatch.setattr(SQLStore, "heartbeat", heartbeat)
    db = tmp_path / "games.db"
    with TestClient(create_app(db, workers=1, warm_up=False)) as client:
        made = client.post("/api/games", json={
            "game": "freego", "params": {"size": 5}, "seats": ["human", "human"],
            "clock": {"initial": 600, "increment": 0}}).json()
        gid, k1, k2 = made["id"], made["secrets"]["1"], made["secrets"]["2"]
        for key, move in ((k1, "C3"), (k2, "D4")):
            assert client.post(f"/api/games/{gid}/move",
                               json={"secret": key, "move": move}).status_code == 200
        assert client.get(f"/api/games/{gid}").json()["clock"]["running"] == 1
        awake = time.time
        # the wall clock goes on while the machine sleeps; the monotonic clock does not
        monkeypatch.setattr(time, "time", lambda: awake() + 3600)
        # a move as it wakes, perhaps before the keeper looks: the game is read again first
        r = client.post(f"/api/games/{gid}/move", json={"secret": k1, "move": "B2"})
        if r.status_code == 409 and "read again" in r.text:
            r = client.post(f"/api/games/{gid}/move", json={"secret": k1, "move": "B2"})
        assert r.status_code == 200, r.text
        time.sleep(3)  # the keeper looks twice a second, the heartbeat every 2 s
        snap = client.get(f"/api/games/{gid}").json()
        assert snap["outcome"] is None, snap["outcome"]
        assert snap["clock"]["running"] == 2 and snap["clock"]["1"] > 590, snap["clock"]
        assert open_store(db).get(gid).result is None
