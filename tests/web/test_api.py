"""The JSON API through starlette's TestClient: playing, the AI, undo/redo, hints, records,
and the bad-input matrix (every refused request leaves the stored game unchanged)."""

from __future__ import annotations

import json
import re
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("httpx2", reason="starlette's TestClient needs httpx2 (test extra)")
from starlette.testclient import TestClient
from webhelpers import first_legal

from stonegarden.core.record import make_record, parse_record, replay_record
from stonegarden.core.registry import make
from stonegarden.store import open_store
from stonegarden.web.app import create_app
from stonegarden.web.service import Budgets

SMALL = {"size": 2, "target": 2}


def new_game(client: TestClient, seats: list[str], game: str = "blooms",
             params: dict[str, Any] | None = None) -> dict[str, Any]:
    r = client.post("/api/games", json={"game": game, "params": params or SMALL, "seats": seats})
    assert r.status_code == 201, r.text
    return r.json()


def wait_for_agent(client: TestClient, gid: str) -> dict[str, Any]:
    """Poll until no agent is thinking (bounded: the agent is `random`, a worker process, whose
    first start loads the game's kernels: over 30 s on a loaded machine)."""
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline:
        snap = client.get(f"/api/games/{gid}").json()
        if snap["thinking"] is None:
            return snap
        time.sleep(0.05)
    raise AssertionError("the agent never moved")


def jobs_running(client: TestClient) -> int:
    """The jobs the server's workers are running now."""
    return client.get("/api/meta").json()["limits"]["busy"]


def until(done: Callable[[], bool], failure: str) -> None:
    """Poll ``done`` until it holds (bounded: 30 s)."""
    for _ in range(600):
        if done():
            return
        time.sleep(0.05)
    raise AssertionError(failure)


def stored(db: Path, gid: str):
    row = open_store(db).get(gid)
    assert row is not None
    return (row.moves, row.result, row.redo)


def test_human_vs_agent_game_is_played_to_the_end_and_its_record_replays(client, db):
    made = new_game(client, ["human", "random"])
    gid, key = made["id"], made["secrets"]["1"]
    moves: list[str] = []
    for _ in range(40):
        snap = wait_for_agent(client, gid)
        moves = [m["text"] for m in snap["moves"]]
        if snap["terminal"]:
            break
        assert snap["to_move"] == 1
        r = client.post(f"/api/games/{gid}/move",
                        json={"secret": key, "move": first_legal("blooms", SMALL, moves),
                              "ply": len(moves)})
        assert r.status_code == 200, r.text
    snap = client.get(f"/api/games/{gid}").json()
    assert snap["terminal"] and snap["winner"] in (1, 2, 0)
    assert stored(db, gid)[0] == tuple(m["text"] for m in snap["moves"])
    record = parse_record(client.get(f"/api/games/{gid}/record").text)
    game, states = replay_record(record)
    assert game.winner(states[-1]) == snap["winner"]


def test_two_human_seats_each_move_only_with_their_own_secret(client, db):
    made = new_game(client, ["human", "human"])
    gid, k1, k2 = made["id"], made["secrets"]["1"], made["secrets"]["2"]
    r = client.post(f"/api/games/{gid}/move", json={"secret": k1, "move": "Rb2"})
    assert r.status_code == 200
    r = client.post(f"/api/games/{gid}/move", json={"secret": k2, "move": "Ka1"})
    assert r.status_code == 200, r.text
    assert stored(db, gid)[0] == ("Rb2", "Ka1")
    assert client.post(f"/api/games/{gid}/seat", json={"secret": k2}).json()["seat"] == 2


def test_a_bridge_go_move_says_its_captures_apart_from_the_movers_own_stones_it_removed(client):
    # the rules page's "opponent first, then own": Black's B2 removes White's B1, then
    # Black's own A1, which is no capture (the page said "capturing A1, B1")
    made = new_game(client, ["human", "human"], "bridgego", {"size": 5})
    gid, keys = made["id"], made["secrets"]
    for ply, move in enumerate(["A3", "E5", "A1", "B1", "C1", "E3", "B2"]):
        r = client.post(f"/api/games/{gid}/move",
                        json={"secret": keys[str(ply % 2 + 1)], "move": move, "ply": ply})
        assert r.status_code == 200, r.text
    snap = r.json()
    assert (snap["captured"], snap["self_captured"]) == (["B1"], ["A1"])
    assert snap["svg"].count('class="captured-mark"') == 2  # both marked on the board


@pytest.mark.parametrize("body, said", [(b"null", "null"), (b"[1, 2]", "an array"),
                                         (b'"move"', "a string"), (b"3", "a number")])
def test_a_body_that_is_not_an_object_is_named_in_json_s_words(client, body, said):
    # Python's type names (NoneType, list) mean nothing to a client writing JSON
    r = client.post("/api/games", content=body, headers={"Content-Type": "application/json"})
    assert r.status_code == 400
    assert r.json()["error"] == f"the body must be a JSON object, not {said}"


def test_snapshots_never_contain_seat_secrets(client):
    made = new_game(client, ["human", "human"])
    gid = made["id"]
    body = client.get(f"/api/games/{gid}", headers={"X-Seat-Secret": made["secrets"]["1"]}).text
    assert made["secrets"]["1"] not in body and made["secrets"]["2"] not in body
    listing = client.get("/api/games").text + client.get("/games").text
    assert made["secrets"]["1"] not in listing and made["secrets"]["2"] not in listing


def _bad_requests(gid: str, k1: str, k2: str) -> list[tuple[str, str, Any, int]]:
    """(method, path, body, expected status); bodies given as bytes are sent raw."""
    move = f"/api/games/{gid}/move"
    return [
        ("POST", move, b"{not json", 400),
        ("POST", move, b"[1, 2]", 400),
        ("POST", move, b"\xff\xfe", 400),
        ("POST", move, b'{"secret": "' + b"x" * (70 * 1024) + b'"}', 413),
        ("POST", move, {"move": "Ka1"}, 403),
        ("POST", move, {"secret": "", "move": "Ka1"}, 403),
        ("POST", move, {"secret": "not-a-secret", "move": "Ka1"}, 403),
        # a secret of another type is malformed (400), not a wrong secret (403)
        ("POST", move, {"secret": 12, "move": "Ka1"}, 400),
        ("POST", move, {"secret": [k2], "move": "Ka1"}, 400),
        ("POST", f"/api/games/{gid}/undo", {"secret": True}, 400),
        ("POST", f"/api/games/{gid}/analysis", {"secret": {"1": k2}}, 400),
        ("POST", f"/api/games/{gid}/name", {"secret": 1, "name": "Ana"}, 400),
        ("POST", move, {"secret": k1, "move": "Ya1"}, 409),  # out of turn
        ("POST", move, {"secret": k2, "move": "Kb2"}, 422),  # occupied
        ("POST", move, {"secret": k2, "move": "Ra1"}, 422),  # the other player's colour
        ("POST", move, {"secret": k2, "move": "Kz9"}, 400),  # not a cell
        ("POST", move, {"secret": k2, "move": "hello"}, 400),
        ("POST", move, {"secret": k2, "move": 5}, 400),
        ("POST", move, {"secret": k2, "move": "Ka1" * 100}, 400),
        ("POST", move, {"secret": k2, "move": "pass"}, 422),  # no pass in the capture race
        ("POST", move, {"secret": k2, "move": "Ka1", "ply": 0}, 409),  # stale
        ("POST", move, {"secret": k2, "move": "Ka1", "ply": True}, 400),  # not an integer
        ("POST", "/api/games/nope/move", {"secret": k2, "move": "Ka1"}, 404),
        ("POST", f"/api/games/{gid}/undo", {"secret": k2}, 409),  # two humans: no undo
        ("POST", f"/api/games/{gid}/undo", {"secret": "bad"}, 403),
        ("POST", f"/api/games/{gid}/redo", {}, 403),
        ("POST", f"/api/games/{gid}/cancel", {"secret": "bad"}, 403),
        ("POST", f"/api/games/{gid}/resume", {}, 403),
        ("POST", f"/api/games/{gid}/hint", {"secret": "bad"}, 403),
        ("POST", f"/api/games/{gid}/seat", {"secret": "bad"}, 403),
        ("GET", f"/api/games/{gid}?ply=99", None, 400),
        ("GET", f"/api/games/{gid}?ply=x", None, 400),
        ("GET", f"/api/games/{gid}?ply=-1", None, 400),
        ("GET", f"/api/games/{gid}?ply={10 ** 30}", None, 400),
        ("GET", "/api/games/nope", None, 404),
        ("GET", "/api/nothing-here", None, 404),
        ("POST", "/api/games", {"game": "chess", "seats": ["human", "human"]}, 400),
        ("POST", "/api/games", {"game": "blooms", "params": {"size": 99}}, 400),
        ("POST", "/api/games", {"game": "blooms", "params": {"colour": 1}}, 400),
        ("POST", "/api/games", {"game": "blooms", "params": [], "seats": ["human", "human"]}, 400),
        ("POST", "/api/games", {"game": "blooms", "seats": ["human", "nosuchagent"]}, 400),
        ("POST", "/api/games", {"game": "blooms", "seats": ["human"]}, 400),
        ("POST", "/api/records", b"not a record", 400),
        ("POST", "/api/records", json.dumps({"format": "stonegarden-record", "version": 1,
                                              "game": "blooms", "params": SMALL,
                                              "moves": ["Rb2", "Kb2"]}).encode(), 400),
    ]


def test_bad_input_gets_a_4xx_json_error_and_changes_nothing(client, db):
    made = new_game(client, ["human", "human"])
    gid, k1, k2 = made["id"], made["secrets"]["1"], made["secrets"]["2"]
    r = client.post(f"/api/games/{gid}/move", json={"secret": k1, "move": "Rb2"})
    assert r.status_code == 200
    before = stored(db, gid)
    count = len(open_store(db).list_games(listed_only=False))
    for method, path, body, status in _bad_requests(gid, k1, k2):
        if isinstance(body, bytes):
            r = client.request(method, path, content=body,
                               headers={"Content-Type": "application/json"})
        else:
            r = client.request(method, path, json=body)
        assert r.status_code == status, (method, path, body if not isinstance(body, bytes)
                                         else body[:40], r.status_code, r.text[:200])
        assert isinstance(r.json()["error"], str) and r.json()["error"]
        assert stored(db, gid) == before, (path, body)
        assert len(open_store(db).list_games(listed_only=False)) == count, (path, body)
    # the game still works afterwards
    r = client.post(f"/api/games/{gid}/move", json={"secret": k2, "move": "Ka1"})
    assert r.status_code == 200


def test_a_seat_may_name_the_shipped_model_but_no_model_file(client):
    """A path would make the server read a file the client names (and tell it whether the
    file exists): refused even for a readable model file, the shipped one's own path."""
    import stonegarden

    path = Path(stonegarden.__file__).parent / "games/freego/model/freego.npz"
    assert path.exists()
    for spec in (f"mcts:model={path}", "mcts:model=/etc/hosts", "mcts:sims=5,model=x.npz"):
        r = client.post("/api/games", json={"game": "freego", "seats": ["human", spec]})
        assert r.status_code == 400 and "shipped" in r.json()["error"], (spec, r.text)
    for spec in ("mcts:model=shipped,sims=5", "mcts:model=NONE,sims=5", "mcts:sims=5"):
        r = client.post("/api/games", json={"game": "freego", "seats": ["human", spec]})
        assert r.status_code == 201, (spec, r.text)


def test_the_agents_the_server_offers_name_no_model_file(client):
    """``/api/meta`` and the home page's advanced seat field offered ``model=none|shipped|PATH``
    for ``mcts``, and a seat following it with a path was refused (400)."""
    offered = client.get("/api/meta").json()["agents"]["mcts"]
    assert "model=none|shipped," in offered and "PATH" not in offered
    home = client.get("/").text
    assert "model=none|shipped," in home and "model=none|shipped|PATH" not in home
    # the command line, which reads the file, still offers it
    from stonegarden.agents.registry import agent_names

    assert "model=none|shipped|PATH" in agent_names()["mcts"]


def test_an_agent_move_job_refuses_a_stored_seat_that_names_a_model_file():
    """A seat stored before the server refused model files: the worker's job refuses it too
    (the server then pauses that agent with the reason) and plays the shipped model."""
    import threading

    import stonegarden
    from stonegarden.errors import ParameterError
    from stonegarden.jobs.kinds import JobContext
    from stonegarden.web import job_kinds

    path = Path(stonegarden.__file__).parent / "games/freego/model/freego.npz"
    ctx = JobContext(threading.Event(), lambda value: None)
    args = {"game": "freego", "params": {"size": 5}, "moves": ["c3"], "threads": 1}
    with pytest.raises(ParameterError, match="shipped"):
        job_kinds.agent_move({**args, "spec": f"mcts:model={path},sims=20"}, ctx)
    assert job_kinds.agent_move({**args, "spec": "mcts:model=shipped,sims=20,seed=1"}, ctx)


@pytest.mark.parametrize(("game", "spec", "why"), [
    ("blooms-territory", "mcts:model=/tmp/other.npz,sims=5", "shipped models"),
    ("freego", "mcts:model=none,patterns=3,sims=5", "patterns"),
    ("freego", "mcts:tt=on,patterns=3,sims=5", "patterns"),
])
def test_a_seat_the_games_search_cannot_play_is_refused_when_the_game_is_made(
        client, game, spec, why):
    """Not accepted and then paused at its first move: refused with the game's reason."""
    r = client.post("/api/games", json={"game": game, "seats": ["human", spec]})
    assert r.status_code == 400 and why in r.json()["error"], r.text
    for ok in ("mcts:model=none,sims=5", "level:6"):
        assert client.post("/api/games", json={"game": game, "seats": ["human", ok]}
                           ).status_code == 201


def test_requests_not_declared_as_json_are_refused(client, db):
    """A cross-site HTML form can post text/plain or form data, never application/json."""
    made = new_game(client, ["human", "human"])
    gid, k1 = made["id"], made["secrets"]["1"]
    body = json.dumps({"secret": k1, "move": "Rb2"})
    for ctype in ("text/plain", "application/x-www-form-urlencoded", "multipart/form-data"):
        r = client.post(f"/api/games/{gid}/move", content=body, headers={"Content-Type": ctype})
        assert r.status_code == 415 and r.json()["error"]
    assert stored(db, gid)[0] == ()


def test_a_loopback_server_refuses_other_host_names(db):
    app = create_app(db, workers=1, allowed_hosts=["127.0.0.1", "localhost"])
    with TestClient(app, base_url="http://localhost") as client:
        assert client.get("/api/meta").status_code == 200
        r = client.get("/api/meta", headers={"Host": "evil.example"})
        assert r.status_code == 400
        assert "127.0.0.1, localhost" in r.json()["error"] and "--public-url" in r.json()["error"]
        r = client.get("/", headers={"Host": "evil.example:8000"})
        assert r.status_code == 400 and "'evil.example:8000'" in r.text


def test_a_server_bound_to_any_loopback_address_refuses_other_host_names(tmp_path):
    """127.0.0.2 is this machine as much as 127.0.0.1: a web page must not reach it by DNS
    rebinding either."""
    import http.client
    import os
    import subprocess
    import sys

    from webhelpers import ROOT, free_port

    port = free_port()
    env = {**os.environ, "PYTHONPATH": str(ROOT / "src")}
    proc = subprocess.Popen([sys.executable, "-m", "stonegarden", "serve", "--host", "127.0.0.2",
                             "--port", str(port), "--db", str(tmp_path / "games.db"),
                             "--workers", "1"], env=env, stdout=subprocess.DEVNULL,
                            stderr=subprocess.DEVNULL)

    def status(host: str | None) -> int:
        conn = http.client.HTTPConnection("127.0.0.2", port, timeout=10)
        try:
            conn.request("GET", "/api/meta", headers={"Host": host} if host else {})
            return conn.getresponse().status
        finally:
            conn.close()

    try:
        for _ in range(300):  # bounded wait for the port to answer
            try:
                assert status(None) == 200  # its own address, 127.0.0.2:PORT
                break
            except OSError:
                assert proc.poll() is None, "serve exited"
                time.sleep(0.1)
        assert status(f"localhost:{port}") == 200
        assert status("evil.example") == 400
    finally:
        proc.terminate()
        proc.wait(timeout=30)


def test_resume_in_a_game_between_people_needs_no_room_in_the_job_queue(db):
    from stonegarden.jobs import Limits

    with TestClient(create_app(db, workers=1, warm_up=False,
                               limits=Limits(per_client=1))) as client:
        new_game(client, ["mcts:time=3", "human"])  # its agent's job is this client's one
        made = new_game(client, ["human", "human"])
        r = client.post(f"/api/games/{made['id']}/resume", json={"secret": made["secrets"]["1"]})
        assert r.status_code == 200, r.text


def test_agent_seats_cannot_be_moved_for_by_a_human(client, db):
    made = new_game(client, ["random", "human"])
    gid = made["id"]
    wait_for_agent(client, gid)
    before = stored(db, gid)
    r = client.post(f"/api/games/{gid}/move", json={"secret": made["secrets"]["1"], "move": "Ra1"})
    assert (r.status_code == 409 and "agent" in r.json()["error"]) or "turn" in r.json()["error"]
    assert stored(db, gid) == before



def test_one_clients_requests_at_once_get_no_more_jobs_than_its_share(db, monkeypatch):
    """A new game's room in the job queue is checked before its row is written (off the
    event loop) and its agent's job is queued after: requests sent at once must not all pass
    the check before any of their jobs exists."""
    from concurrent.futures import ThreadPoolExecutor

    from stonegarden.store.sql import SQLStore

    written = SQLStore.create_game

    def slow_create_game(self, new):  # a database that takes a moment to write
        time.sleep(0.2)
        return written(self, new)

    monkeypatch.setattr(SQLStore, "create_game", slow_create_game)
    with TestClient(create_app(db, workers=1, warm_up=False)) as client:
        def create(_: int) -> int:
            return client.post("/api/games", json={"game": "blooms", "params": SMALL,
                                                   "seats": ["mcts:time=5", "human"]}).status_code

        with ThreadPoolExecutor(12) as pool:
            codes = list(pool.map(create, range(12)))
        # the client's share is 4 jobs (--client-jobs): each agent thinks for 5 s meanwhile
        assert sorted(codes) == [201] * 4 + [429] * 8, codes


def test_games_between_agents_keep_their_clients_places_between_moves(db, monkeypatch):
    """A game between two agents is one job at a time, each next one forced (the game was
    admitted). While a move was stored, between two jobs, the client's count fell by one and
    its next request took that place: new games sent one after another gave one client 46
    jobs against its share of 4 within 30 s, and the queue, full of them, then refused every
    other client. A game keeps its place from job to job."""
    from stonegarden.jobs import Limits
    from stonegarden.store.sql import SQLStore

    written = SQLStore.append_move

    def slow_append_move(self, *args, **kwargs):  # a database that takes a moment to write
        time.sleep(0.05)
        return written(self, *args, **kwargs)

    monkeypatch.setattr(SQLStore, "append_move", slow_append_move)
    long_game = {"game": "bridgego", "params": {"size": 19, "max_turns": 10000},
                 "seats": ["random", "random"]}
    with TestClient(create_app(db, workers=1, warm_up=False,
                               limits=Limits(per_client=2))) as client:
        made = []
        for _ in range(60):
            r = client.post("/api/games", json=long_game)
            assert r.status_code in (201, 429), r.text
            if r.status_code == 201:
                made.append(r.json()["id"])
            time.sleep(0.02)
        snaps = [client.get(f"/api/games/{gid}").json() for gid in made]
        assert len(made) == 2, [s["length"] for s in snaps]
        assert not any(s["over"] for s in snaps)  # both still going on: the places are theirs

def test_undo_takes_back_the_agent_reply_and_redo_replays_it(client, db):
    made = new_game(client, ["human", "random"], params={"size": 3, "target": 6})
    gid, key = made["id"], made["secrets"]["1"]
    client.post(f"/api/games/{gid}/move", json={"secret": key, "move": "Rc3"})
    wait_for_agent(client, gid)
    client.post(f"/api/games/{gid}/move",
                json={"secret": key, "move": first_legal("blooms", {"size": 3, "target": 6},
                                                         list(stored(db, gid)[0]))})
    played = wait_for_agent(client, gid)
    assert played["length"] == 4
    undone = client.post(f"/api/games/{gid}/undo", json={"secret": key}).json()
    assert undone["length"] == 2 and undone["to_move"] == 1 and undone["can_redo"]
    assert stored(db, gid)[0] == tuple(m["text"] for m in played["moves"][:2])
    redone = client.post(f"/api/games/{gid}/redo", json={"secret": key}).json()
    assert [m["text"] for m in redone["moves"]] == [m["text"] for m in played["moves"]]
    assert stored(db, gid)[0] == tuple(m["text"] for m in played["moves"])


def test_undo_is_offered_only_once_the_person_has_a_move_to_take_back(db):
    """The agent moves first (or a die is rolled first): until the person's own first move
    there is nothing to undo, so the page's Undo is not offered (it was, and said 409)."""
    with TestClient(create_app(db, workers=1, warm_up=False)) as client:
        for game, params, seats in (("blooms", {"size": 3, "target": 6}, ["random", "human"]),
                                    ("blobs", {"dice": 12, "tumbling": True},
                                     ["human", "random"])):
            made = new_game(client, seats, game=game, params=params)
            gid, key = made["id"], made["secrets"][str(seats.index("human") + 1)]
            for _ in range(600):
                snap = client.get(f"/api/games/{gid}", headers={"X-Seat-Secret": key}).json()
                if snap["can_play"]:
                    break
                time.sleep(0.05)
            assert snap["can_play"] and snap["length"] > 0, snap
            assert snap["can_undo"] is False, (game, snap["moves"])
            r = client.post(f"/api/games/{gid}/undo", json={"secret": key})
            assert r.status_code == 409 and "no move to undo" in r.json()["error"]
            move = first_legal(game, params, [m["text"] for m in snap["moves"]])
            r = client.post(f"/api/games/{gid}/move", json={"secret": key, "move": move})
            assert r.status_code == 200, r.text
            assert r.json()["can_undo"] is True


@pytest.mark.parametrize("ply", ["0", True, 0.0, 0.5, [0], {"ply": 0}, -1])
def test_a_ply_that_is_not_an_integer_is_a_400_not_a_game_moved_on(client, ply):
    """``ply`` guards a move against a stale page: a value of the wrong type, or a negative
    one, which no game ever had, is the client's mistake (400 naming the field), not a game
    that moved on (409, "read it again")."""
    made = new_game(client, ["human", "human"], game="freego", params={"size": 5})
    gid, key = made["id"], made["secrets"]["1"]
    r = client.post(f"/api/games/{gid}/move", json={"secret": key, "move": "C3", "ply": ply})
    assert r.status_code == 400 and "'ply' must be" in r.json()["error"], r.text
    r = client.post(f"/api/games/{gid}/move", json={"secret": key, "move": "C3", "ply": 1})
    assert r.status_code == 409 and "moved on: ply 0, not 1" in r.json()["error"], r.text
    r = client.post(f"/api/games/{gid}/move", json={"secret": key, "move": "C3", "ply": 0})
    assert r.status_code == 200 and r.json()["length"] == 1, r.text



def test_a_move_sent_again_with_its_ply_is_answered_as_the_first_and_played_once(client, db):
    """A proxy sends a move to another server process when its connection to the first broke
    (the first may have stored it), and a page may send it again when it did not hear the
    answer: the move the seat already played at that ply is answered with the game, as the
    first time, not refused as a game that moved on, nor played twice."""
    made = new_game(client, ["human", "human"], game="freego", params={"size": 5})
    gid, k1, k2 = made["id"], made["secrets"]["1"], made["secrets"]["2"]
    first = client.post(f"/api/games/{gid}/move", json={"secret": k1, "move": "c3", "ply": 0})
    assert first.status_code == 200, first.text
    again = client.post(f"/api/games/{gid}/move", json={"secret": k1, "move": "C3", "ply": 0})
    assert again.status_code == 200, again.text
    assert again.json()["moves"] == first.json()["moves"] and again.json()["length"] == 1
    assert stored(db, gid)[0] == ("C3",)
    # another move at that ply, or the same one by the other seat, is still out of date
    for key, move in ((k1, "D4"), (k2, "C3")):
        r = client.post(f"/api/games/{gid}/move", json={"secret": key, "move": move, "ply": 0})
        assert r.status_code == 409 and "moved on" in r.json()["error"], r.text
    assert stored(db, gid)[0] == ("C3",)

def test_the_link_to_an_agents_seat_cannot_undo_and_leave_no_one_to_move(db):
    """Two agents to watch: the creator's link holds seat 1, an agent's. An undo there would
    go back to that agent's turn with no one to think for it: it is refused, and the game
    goes on."""
    with TestClient(create_app(db, workers=1, budgets=Budgets(max_think=60))) as client:
        made = new_game(client, ["random", "mcts:sims=10000000"],
                        params={"size": 5, "target": 20})
        gid, key = made["id"], made["secrets"]["1"]
        for _ in range(600):
            snap = client.get(f"/api/games/{gid}", headers={"X-Seat-Secret": key}).json()
            if snap["thinking"] is not None and snap["thinking"]["seat"] == 2:
                break
            time.sleep(0.05)
        assert snap["length"] == 1 and not snap["can_undo"]
        r = client.post(f"/api/games/{gid}/undo", json={"secret": key})
        assert r.status_code == 409 and "player 1 is the agent 'random'" in r.json()["error"]
        snap = client.get(f"/api/games/{gid}").json()
        assert snap["length"] == 1 and snap["thinking"]["seat"] == 2
        assert stored(db, gid)[0] == (snap["moves"][0]["text"],)
        client.post(f"/api/games/{gid}/cancel", json={"secret": key})


def test_an_agents_seconds_count_its_search_not_its_wait_for_a_worker(db):
    """The one worker searches another game of this client for 2 s: this game's agent waits
    (``queued``), then its seconds, which the --max-think limit bounds, start at its search."""
    with TestClient(create_app(db, workers=1)) as client:
        for _ in range(1200):  # bounded: the worker loads every game's kernels first
            if client.get("/api/engine").json()["ready"]:
                break
            time.sleep(0.05)
        for game in ("blooms", "freego"):
            made = new_game(client, ["mcts:time=2", "human"], game=game, params={"size": 5})
        waited = None
        seen = time.monotonic()
        for _ in range(400):
            asked = time.monotonic()
            thinking = client.get(f"/api/games/{made['id']}").json()["thinking"]
            if thinking is not None and thinking["queued"]:
                waited, seen = thinking["elapsed"], asked
            elif thinking is not None and waited is not None:
                break
            time.sleep(0.02)
        assert thinking is not None and waited is not None and waited >= 1.5
        # from its search's start, after the last look that saw it queued: not from its wait
        # (a fixed bound of 1 s left a loaded machine's polls a few tenths)
        assert thinking["elapsed"] <= time.monotonic() - seen + 0.05


def test_a_cancel_offers_undo_only_where_there_is_a_move_to_take_back(db):
    """Before the person's first move (the agent plays first), and to the link of a computer's
    seat (two agents), there is nothing to undo: the notice offers only to let it move. It
    names a level as the page does ("cancelled: 'level:6' stopped thinking" named its spec)."""
    slow = "mcts:sims=10000000"
    with TestClient(create_app(db, workers=1, budgets=Budgets(max_think=60))) as client:
        for seats, key, named in (([slow, "human"], "2", f"the agent {slow!r}"),
                                  (["random", slow], "1", f"the agent {slow!r}"),
                                  (["level:6", "human"], "2", "the computer (level 6)")):
            made = new_game(client, seats, params={"size": 5, "target": 20})
            gid = made["id"]
            for _ in range(600):
                thinking = client.get(f"/api/games/{gid}").json()["thinking"]
                if thinking is not None and thinking["spec"] in (slow, "level:6"):
                    break
                time.sleep(0.05)
            r = client.post(f"/api/games/{gid}/cancel", json={"secret": made["secrets"][key]})
            assert r.json()["notice"] == f"cancelled: {named} stopped thinking; let it move"
            assert not r.json()["can_undo"]


def test_the_agent_thinking_shows_its_search_budget_in_this_game(db):
    """A level's budget is the game's own (Bridge Go's level 6: 4 s), not its number; an
    ``mcts`` spec's is its simulations or seconds, not its other options."""
    with TestClient(create_app(db, workers=1, budgets=Budgets(max_think=60))) as client:
        for spec, budget in (("level:6", {"time": "4"}),
                             ("mcts:sims=10000000,c=0.3", {"sims": "10000000"})):
            made = new_game(client, [spec, "human"], game="bridgego", params={"size": 9})
            gid, key = made["id"], made["secrets"]["2"]
            snap = client.get(f"/api/games/{gid}").json()
            assert snap["thinking"]["options"] == budget, spec
            client.post(f"/api/games/{gid}/cancel", json={"secret": key})


def test_hint_names_a_legal_move_and_marks_its_cells(client):
    made = new_game(client, ["human", "random"], params={"size": 3, "target": 6})
    gid, key = made["id"], made["secrets"]["1"]
    r = client.post(f"/api/games/{gid}/hint", json={"secret": key})
    assert r.status_code == 200, r.text
    hint = r.json()["hint"]
    assert hint["cells"] and all(f'data-cell="{c}"' in r.json()["svg"] for c in hint["cells"])
    assert "hint-ring" in r.json()["svg"]
    ok = client.post(f"/api/games/{gid}/move", json={"secret": key, "move": hint["move"]})
    assert ok.status_code == 200


def test_an_undo_that_meets_the_agents_move_being_written_leaves_the_game_going(db,
                                                                               monkeypatch):
    """Tumbling Dice: the agent's move is written (slowly) when the player asks for an undo.
    The move came first, so the undo is refused; the dice are then rolled for the player as
    always, instead of the game waiting for a roll no one makes. The rolls (always the likeliest
    face) and the agent are seeded: with random ones about one game in 80 ends at the agent's
    move (six dice, a circle made), which left nothing to roll."""
    import threading

    from stonegarden.store.sql import SQLStore
    from stonegarden.web import service, study_tools

    class Likeliest:
        """The dice: always the likeliest face."""

        @staticmethod
        def choices(population, weights):
            return [max(zip(weights, population))[1]]

    monkeypatch.setattr(service.random, "SystemRandom", Likeliest)

    append = SQLStore.append_move
    writing, undoing = threading.Event(), threading.Event()

    def slow_append(self, game_id, ply, *args, **kwargs):
        if ply == 5:  # the agent's second move: written once the undo has been asked for
            writing.set()
            undoing.wait(30)
        return append(self, game_id, ply, *args, **kwargs)

    monkeypatch.setattr(SQLStore, "append_move", slow_append)
    undo = study_tools.undo

    def asked_to_undo(*args):
        # the undo reads the game before it awaits anything: the move it meets is still being
        # written, however long its request took to arrive (a fixed 0.5 s raced it)
        undoing.set()
        return undo(*args)

    monkeypatch.setattr(study_tools, "undo", asked_to_undo)
    params = {"dice": 6, "tumbling": True}
    with TestClient(create_app(db, workers=1, warm_up=False)) as client:
        made = new_game(client, ["human", "random:seed=1"], game="blobs", params=params)
        gid, key = made["id"], made["secrets"]["1"]
        for _ in range(600):  # the agent's move, then the roll after it: not the moment between
            snap = wait_for_agent(client, gid)
            if snap["to_move"] == 1:
                break
            time.sleep(0.05)
        assert snap["length"] == 3 and snap["to_move"] == 1  # a roll, the agent's, a roll
        moves = [m["text"] for m in snap["moves"]]
        r = client.post(f"/api/games/{gid}/move",
                        json={"secret": key, "move": first_legal("blobs", params, moves)})
        assert r.status_code == 200, r.text
        assert writing.wait(30)
        r = client.post(f"/api/games/{gid}/undo", json={"secret": key})
        assert r.status_code == 409, r.text
        for _ in range(100):
            snap = client.get(f"/api/games/{gid}").json()
            if snap["to_move"] == 1:
                break
            time.sleep(0.05)
        assert snap["length"] == 7 and snap["to_move"] == 1 and snap["thinking"] is None


def test_a_hint_that_comes_back_after_its_position_was_undone_is_not_shown(db):
    """The hint asked at ply 2 searches for three seconds; meanwhile the player takes
    the moves back and reaches ply 2 again by another move: the hint was for another
    position, and is neither answered nor shown as this one's. (Two workers for the client, as a server of four has:
    the agent replies while the hint searches.)"""
    from concurrent.futures import ThreadPoolExecutor

    from stonegarden.jobs import Limits

    app = create_app(db, workers=2, hint_spec="mcts:time=3", budgets=Budgets(hint_seconds=6),
                     limits=Limits(running_per_client=2))
    with TestClient(app) as client:
        made = new_game(client, ["human", "random"], params={"size": 3, "target": 6})
        gid, key = made["id"], made["secrets"]["1"]
        assert client.post(f"/api/games/{gid}/move",
                           json={"secret": key, "move": "Rc3"}).status_code == 200
        wait_for_agent(client, gid)
        until(lambda: jobs_running(client) == 0, "the agent's job never ended")
        with ThreadPoolExecutor(1) as pool:
            asked = pool.submit(client.post, f"/api/games/{gid}/hint", json={"secret": key})
            # the hint's job is searching the position of ply 2 (a fixed pause raced it: the
            # hint asked after the undo was another position's, or none)
            until(lambda: jobs_running(client) == 1, "the hint's job never started")
            assert client.post(f"/api/games/{gid}/undo", json={"secret": key}).status_code == 200
            assert client.post(f"/api/games/{gid}/move",
                               json={"secret": key, "move": "Ra1"}).status_code == 200
            again = wait_for_agent(client, gid)
            assert again["length"] == 2 and not asked.done()
            old = asked.result()
        assert old.status_code == 409 and "moved on" in old.json()["error"]
        snap = client.get(f"/api/games/{gid}", headers={"X-Seat-Secret": key}).json()
        assert snap["moves"][0]["text"] == "Ra1"
        assert snap["hint"] is None


def test_a_hint_searches_with_the_threads_a_job_may_take(db):
    """Hints take every core the server gives a job (--job-threads), as levels 5 and 6 do."""
    with TestClient(create_app(db, workers=1, warm_up=False,
                               budgets=Budgets(job_threads=2))) as client:
        made = new_game(client, ["human", "random"], params={"size": 3, "target": 6})
        r = client.post(f"/api/games/{made['id']}/hint", json={"secret": made["secrets"]["1"]})
        assert r.status_code == 200, r.text
        assert r.json()["hint"]["agent"] == "mcts:threads=2"
    with TestClient(create_app(db, workers=1, warm_up=False)) as client:  # one thread a job
        made = new_game(client, ["human", "random"], params={"size": 3, "target": 6})
        r = client.post(f"/api/games/{made['id']}/hint", json={"secret": made["secrets"]["1"]})
        assert r.status_code == 200 and r.json()["hint"]["agent"] == "mcts"


def test_record_upload_replays_then_stores_and_a_bad_one_stores_nothing(client, db):
    made = new_game(client, ["human", "human"], params={"size": 3, "target": 6})
    gid, k1, k2 = made["id"], made["secrets"]["1"], made["secrets"]["2"]
    client.post(f"/api/games/{gid}/move", json={"secret": k1, "move": "Rc3"})
    client.post(f"/api/games/{gid}/move", json={"secret": k2, "move": "Ka1,Gb1"})
    text = client.get(f"/api/games/{gid}/record").text
    r = client.post("/api/records", content=text.encode(),
                    headers={"Content-Type": "application/json"})
    assert r.status_code == 201, r.text
    assert stored(db, r.json()["id"])[0] == ("Rc3", "Ka1,Gb1")
    count = len(open_store(db).list_games(listed_only=False))
    bad = json.loads(text)
    bad["moves"].append("Rc3")  # occupied
    r = client.post("/api/records", content=json.dumps(bad).encode(),
                    headers={"Content-Type": "application/json"})
    assert r.status_code == 400 and "move 2" in r.json()["error"]
    assert len(open_store(db).list_games(listed_only=False)) == count


def test_an_upload_with_a_key_a_record_does_not_have_is_refused_by_name(client, db):
    count = len(open_store(db).list_games(listed_only=False))
    record = {"format": "stonegarden-record", "version": 1, "game": "freego",
              "params": {"size": 5}, "moves": ["C3"], "reslt": {"winner": 2}}
    r = client.post("/api/records", json=record)
    assert r.status_code == 400 and "unknown key 'reslt'" in r.json()["error"], r.text
    assert len(open_store(db).list_games(listed_only=False)) == count


def test_an_sgf_upload_without_its_game_names_it_in_the_request(client, db):
    """Go's own SGF (no RU[stonegarden ...]) says nothing of our games: ?game= says which."""
    go = b"(;GM[1]FF[4]SZ[9]KM[6.5];B[ee];W[dc])"
    sgf, record = {"Content-Type": "application/x-go-sgf"}, {"Content-Type": "application/json"}
    r = client.post("/api/records", content=go, headers=sgf)
    assert r.status_code == 400 and "choose the game when uploading it" in r.json()["error"]
    count = len(open_store(db).list_games(listed_only=False))
    for query, headers, why in (("?game=chess", sgf, "unknown game 'chess'"),
                                ("?game=", sgf, "unknown game ''"),
                                ("?game=freego", record, "'game' is for an SGF file")):
        r = client.post("/api/records" + query, content=go, headers=headers)
        assert r.status_code == 400 and why in r.json()["error"], (query, r.text)
    assert len(open_store(db).list_games(listed_only=False)) == count
    r = client.post("/api/records?game=freego", content=go, headers=sgf)
    assert r.status_code == 201, r.text
    snap = client.get(f"/api/games/{r.json()['id']}").json()
    assert snap["game"] == "freego" and snap["params"]["size"] == 9
    assert [m["text"] for m in snap["moves"]] == ["E5", "D7"]


def test_an_upload_of_a_game_lost_on_time_or_resigned_is_over_as_its_record_says(client,
                                                                                  db):
    """A record whose game ended outside its rules (``meta.ended``, SGF's ``RE[B+R]``) is
    uploaded over, as it ended: not a game going on that its uploader may play on."""
    record = {"format": "stonegarden-record", "version": 1, "game": "freego",
              "params": {"size": 5}, "moves": ["C3", "D4", "B2"],
              "meta": {"ended": {"winner": 1, "reason": "time"}}}
    aborted = {**record, "moves": ["C3"], "meta": {"ended": {"winner": None,
                                                             "reason": "aborted"}}}
    resigned = b"(;GM[1]FF[4]SZ[5]RU[stonegarden freego size=5]RE[W+R];B[cc];W[dd])"
    json_type, sgf_type = "application/json", "application/x-go-sgf"
    for body, kind, words in ((json.dumps(record).encode(), json_type, "White ran out of time"),
                              (resigned, sgf_type, "Black resigned"),
                              (json.dumps(aborted).encode(), json_type,
                               "it was aborted before it started: no one wins or loses")):
        r = client.post("/api/records", content=body, headers={"Content-Type": kind})
        assert r.status_code == 201, r.text
        made = r.json()
        key = {"X-Seat-Secret": made["secrets"]["1"]}
        snap = client.get(f"/api/games/{made['id']}", headers=key).json()
        assert snap["terminal"] and snap["outcome"]["detail"] == words, snap["outcome"]
        assert not snap["can_play"] and not snap["can_abort"] and snap["to_move"] is None
        r = client.post(f"/api/games/{made['id']}/move",
                        json={"secret": made["secrets"]["2"], "move": "E5"})
        assert r.status_code == 409, r.text
        assert stored(db, made["id"])[1]["reason"] in ("time", "resign", "aborted")
    # downloaded again, the record says how it ended
    again = client.get(f"/api/games/{made['id']}/record").json()
    assert again["meta"]["ended"] == {"winner": None, "reason": "aborted"}


def test_a_record_giving_a_loss_on_time_as_its_result_is_told_where_it_goes(client):
    """A record written by hand with ``"result": {"winner": 2, "reason": "time"}`` was refused
    as "result winner 2 disagrees with the replay (no winner yet: the game is not over)",
    which did not say how such a record says it."""
    record = {"format": "stonegarden-record", "version": 1, "game": "freego",
              "params": {"size": 5}, "moves": ["C3"],
              "result": {"winner": 2, "reason": "time"}}
    r = client.post("/api/records", json=record)
    assert r.status_code == 400, r.text
    assert r.json()["error"] == (
        "bad record: result winner 2 disagrees with the replay (no winner yet: the game is not "
        "over); a game that ended outside its rules (on time, resigned on the opponent's "
        """turn, aborted) says so in 'meta.ended', as {"winner": 2, "reason": "time"}, with """
        "no 'result'")
    del record["result"]
    r = client.post("/api/records", json={**record, "meta": {"ended": {"winner": 2,
                                                                      "reason": "time"}}})
    assert r.status_code == 201, r.text


def test_a_downloaded_record_says_when_and_on_which_clock_and_an_upload_keeps_its_day(
        client):
    """A record downloaded from the web app did not say when its game was played nor on
    which clock (a game lost on time, with no time control); an uploaded record's day was
    lost, and its download said nothing of it either."""
    today = time.strftime("%Y-%m-%d", time.gmtime())
    for clock, props in (({"initial": 600, "increment": 5}, "TM[600]OT[Fischer: +5 s a move]"),
                         ({"days_per_move": 3}, "OT[correspondence: 3 days a move]"),
                         (None, "")):
        body = {"game": "freego", "params": {"size": 5}, "seats": ["human", "human"]}
        made = client.post("/api/games", json={**body, **({"clock": clock} if clock else {})})
        assert made.status_code == 201, made.text
        gid = made.json()["id"]
        meta = client.get(f"/api/games/{gid}/record").json()["meta"]
        assert meta["date"] == today and meta.get("clock") == clock, meta
        sgf = client.get(f"/api/games/{gid}/record.sgf").text
        assert f"DT[{today}]{props})" in sgf, sgf  # the root node, with no move after it
    # an upload keeps the day its record gives (SGF's DT too), and lists the game on it
    record = {"format": "stonegarden-record", "version": 1, "game": "freego",
              "params": {"size": 5}, "moves": ["C3"], "meta": {"date": "2024-03-01"}}
    sgf_type = {"Content-Type": "application/x-go-sgf"}
    old = {**record, "meta": {"date": "1846-09-11"}}  # a day before 1970 too
    for body, headers, day in (
            (json.dumps(record).encode(), {"Content-Type": "application/json"}, "2024-03-01"),
            (b"(;GM[1]SZ[5]RU[stonegarden freego]DT[2024-03-01,02];B[cc])", sgf_type,
             "2024-03-01"),
            (json.dumps(old).encode(), {"Content-Type": "application/json"}, "1846-09-11")):
        r = client.post("/api/records", content=body, headers=headers)
        assert r.status_code == 201, r.text
        gid = r.json()["id"]
        assert client.get(f"/api/games/{gid}/record").json()["meta"]["date"] == day
        listed = client.get(f"/api/games?ids={gid}").json()["games"][0]
        assert time.strftime("%Y-%m-%d", time.gmtime(listed["created"])) == day
    # a day not to be read as one, or not come yet, is the day of the upload
    for date in ("sometime", "2024-02-30", "9999-01-01"):
        r = client.post("/api/records", json={**record, "meta": {"date": date}})
        assert r.status_code == 201, r.text
        again = client.get(f"/api/games/{r.json()['id']}/record").json()["meta"]
        assert again["date"] == today, (date, again)
    # the day where the record was made, which may be ahead of UTC's (Kiribati's UTC+14)
    there = time.strftime("%Y-%m-%d", time.gmtime(time.time() + 14 * 3600))
    r = client.post("/api/records", json={**record, "meta": {"date": there}})
    assert client.get(f"/api/games/{r.json()['id']}/record").json()["meta"]["date"] == there


def test_a_bad_upload_is_named_in_json_words_and_a_file_of_another_kind_as_such(client):
    """Another program's JSON was refused as "record 'format' is None", and a record's
    null or true values in Python's words ("not None", "{'1': None}")."""
    base = {"format": "stonegarden-record", "version": 1, "game": "freego", "moves": []}
    for body, why in (
            ({"game": {"name": "Go"}, "moves": ["pd"]},
             "record has no 'format' (expected 'stonegarden-record'): it is not a stonegarden "
             "record"),
            ({"format": "stonegarden-record", "game": "freego", "moves": []},
             "record has no 'version'"),
            ({**base, "version": True}, "record 'version' true is not supported (only 1)"),
            ({**base, "game": None}, "record 'game' must be a string, not null"),
            ({**base, "moves": None}, "record 'moves' must be a list, not null"),
            ({**base, "moves": ["E5", None]}, "move 1 (null) is not a string"),
            ({**base, "players": {"1": None}},
             """record 'players' must map '1'/'2' to text, not {"1": null}"""),
            ({**base, "result": {"winner": False}},
             "result 'winner' must be 1, 2, 0 (draw) or null, not false")):
        r = client.post("/api/records", json=body)
        assert r.status_code == 400 and r.json()["error"] == f"bad record: {why}", r.text


def test_a_record_that_gives_a_key_twice_is_refused_not_read_as_its_last_value(client, db):
    """A record giving ``game`` (or ``moves``) twice was stored as its last value without a
    word, a game the uploader may not have meant; a request's own body is refused so."""
    count = len(open_store(db).list_games(listed_only=False))
    for body, key in (
            (b'{"format": "stonegarden-record", "version": 1, "game": "freego", '
             b'"game": "bridgego", "params": {"size": 5}, "moves": ["C3"]}', "game"),
            (b'{"format": "stonegarden-record", "version": 1, "game": "freego", '
             b'"params": {"size": 5, "size": 7}, "moves": []}', "size")):
        r = client.post("/api/records", content=body, headers={"Content-Type": "application/json"})
        assert r.status_code == 400, r.text
        assert r.json()["error"] == (f"bad record: record gives '{key}' twice in one object: "
                                     "give each key once")
    assert len(open_store(db).list_games(listed_only=False)) == count


def test_a_record_download_refuses_a_query_it_does_not_take(client):
    """``/record?ply=2`` answered the whole game's record, as if it were the record of the
    first two moves; the download takes no query, and says so as the other requests do."""
    made = new_game(client, ["human", "human"], game="freego", params={"size": 5})
    gid, key = made["id"], made["secrets"]["1"]
    client.post(f"/api/games/{gid}/move", json={"secret": key, "move": "C3"})
    for path in ("record", "record.sgf"):
        r = client.get(f"/api/games/{gid}/{path}?ply=0")
        assert r.status_code == 400, r.text
        assert r.json()["error"] == "unknown query parameter 'ply': this request takes none"
        assert client.get(f"/api/games/{gid}/{path}").status_code == 200


def test_an_empty_record_is_refused_as_empty(client):
    """An empty file (a save that failed, the wrong file picked) was refused as "record is
    not valid JSON: 'Expecting value: line 1 column 1 (char 0)'"."""
    for body in (b"", b" \n", b"\xef\xbb\xbf"):
        r = client.post("/api/records", content=body, headers={"Content-Type": "application/json"})
        assert r.status_code == 400, r.text
        assert r.json()["error"] == "bad record: record is empty: the file holds no text"


def test_an_abstract_play_game_lost_on_time_is_uploaded_over_on_its_day(client):
    """An AP record that ended by a timeout was served as a game going on (both seats to
    play on) and dated on the day of the upload; one with a byte order mark was refused."""
    ap = json.loads((Path(__file__).resolve().parents[1] / "data" / "abstractplay"
                     / "ap-blooms-size4-s1.json").read_text())
    ap["moves"] = [*ap["moves"][:3], ["timeout", ""]]  # player 2 won: the header's results
    # saved by an editor with a byte order mark, which convert skips: it was read as a record
    # of ours ("record 'format' is None")
    r = client.post("/api/records", content=b"\xef\xbb\xbf" + json.dumps(ap).encode(),
                    headers={"Content-Type": "application/json"})
    assert r.status_code == 201, r.text
    gid = r.json()["id"]
    snap = client.get(f"/api/games/{gid}").json()
    assert snap["outcome"]["detail"] == "Player 1 ran out of time" and not snap["can_play"]
    meta = client.get(f"/api/games/{gid}/record").json()["meta"]
    assert meta["date"] == "2026-01-01" and meta["ended"] == {"winner": 2, "reason": "time"}


def test_an_uploaded_records_players_are_its_people_and_downloaded_again(client):
    """PB and PW (a record's ``players``) name the seats' people, shown on the page and in the
    record and SGF downloaded again; the web app's own ``human`` names no one."""
    sgf = (b"(;GM[1]FF[4]SZ[5]RU[stonegarden freego size=5]PB[Lee Sedol]PW[Cho Hunhyun]"
           b";B[cc];W[dd])")
    r = client.post("/api/records", content=sgf, headers={"Content-Type": "application/x-go-sgf"})
    assert r.status_code == 201, r.text
    gid = r.json()["id"]
    assert client.get(f"/api/games/{gid}").json()["names"] == {"1": "Lee Sedol",
                                                               "2": "Cho Hunhyun"}
    record = client.get(f"/api/games/{gid}/record").json()
    assert record["players"] == {"1": "Lee Sedol", "2": "Cho Hunhyun"}
    assert "PB[Lee Sedol]PW[Cho Hunhyun]" in client.get(f"/api/games/{gid}/record.sgf").text
    # a record of the web app's own, of a game between two unnamed people
    made = new_game(client, ["human", "human"], params={"size": 5})
    text = client.get(f"/api/games/{made['id']}/record").text
    assert json.loads(text)["players"] == {"1": "human", "2": "human"}
    r = client.post("/api/records", content=text.encode(),
                    headers={"Content-Type": "application/json"})
    assert client.get(f"/api/games/{r.json()['id']}").json()["names"] == {"1": None,
                                                                          "2": None}


def test_an_uploaded_sgf_in_the_charset_its_ca_names_is_read_with_its_players(client):
    """An older program's SGF (``CA[GB2312]``, ``CA[ISO-8859-1]``) is read as ``convert``
    reads it, its players' names with it, not refused as "not UTF-8 text"."""
    base = "(;GM[1]FF[4]CA[{}]SZ[5]RU[stonegarden freego size=5]PB[{}]PW[{}];B[cc];W[dd])"
    for charset, black, white in (("GB2312", "李昌镐", "曹薰铉"), ("ISO-8859-1", "Müller", "Löw")):
        raw = base.format(charset, black, white).encode(charset)
        r = client.post("/api/records", content=raw,
                        headers={"Content-Type": "application/x-go-sgf"})
        assert r.status_code == 201, r.text
        gid = r.json()["id"]
        assert client.get(f"/api/games/{gid}").json()["names"] == {"1": black, "2": white}
    r = client.post("/api/records", content=base.format("KOI8-X", "a", "b").encode() + b"\xff",
                    headers={"Content-Type": "application/x-go-sgf"})
    assert r.status_code == 400
    assert r.json()["error"] == ("bad record: 'the SGF file' is neither UTF-8 text nor text in "
                                 "the charset its CA[KOI8-X] names")


def test_an_uploaded_sgf_is_read_in_the_charset_its_request_declares(client):
    """A file without ``CA[]`` sent as ``application/x-go-sgf; charset=GB2312`` was read as
    ISO-8859-1, SGF's default, and its players' names garbled without a word."""
    raw = "(;GM[1]FF[4]SZ[5]RU[stonegarden freego size=5]PB[李昌镐]PW[曹薰铉];B[cc])".encode("gb2312")
    r = client.post("/api/records", content=raw,
                    headers={"Content-Type": "application/x-go-sgf; charset=GB2312"})
    assert r.status_code == 201, r.text
    assert client.get(f"/api/games/{r.json()['id']}").json()["names"] == {"1": "李昌镐",
                                                                        "2": "曹薰铉"}
    r = client.post("/api/records", content=raw,
                    headers={"Content-Type": "application/x-go-sgf; charset=nosuch"})
    assert r.status_code == 400
    assert r.json()["error"] == ("bad record: 'the SGF file' is neither UTF-8 text nor text in "
                                 "the charset 'nosuch' declared for it")
    # a codec that decodes nothing, declared or named by CA[]: refused the same way, not a 500
    for headers, body in (({"Content-Type": "application/x-go-sgf; charset=undefined"}, raw),
                          ({"Content-Type": "application/x-go-sgf"},
                           raw.replace(b"SZ[5]", b"CA[undefined]SZ[5]"))):
        r = client.post("/api/records", content=body, headers=headers)
        assert r.status_code == 400, r.text
        assert "nor text in the charset" in r.json()["error"] and "undefined" in r.json()["error"]


def test_an_uploaded_records_long_or_broken_player_names_are_kept_in_short(client):
    """A record's player name longer than a display name, or over two lines (SGF text may
    be), names its seat in short and one line, and the record downloaded again keeps it."""
    sgf = (b"(;GM[1]FF[4]SZ[5]RU[stonegarden freego size=5]"
           b"PB[Christopher Alexander the Longnamed]PW[Lee\nSedol];B[cc];W[dd])")
    r = client.post("/api/records", content=sgf, headers={"Content-Type": "application/x-go-sgf"})
    assert r.status_code == 201, r.text
    gid = r.json()["id"]
    names = {"1": "Christopher Alexander t…", "2": "Lee Sedol"}
    assert client.get(f"/api/games/{gid}").json()["names"] == names
    assert client.get(f"/api/games/{gid}/record").json()["players"] == names


def test_an_uploaded_records_player_name_loses_only_the_characters_no_name_holds(client):
    """A name with a right-to-left mark (as a Hebrew name in an SGF file often has) or a
    zero-width space, or a long one cut in the middle of a region's flag, named no one: the
    page said "a person". The characters no name may hold are left out, not the name."""
    flag = "\U0001F3F4\U000E0067\U000E0062\U000E0065\U000E006E\U000E0067\U000E007F"
    players = {"1": "\u200f\u05e9\u05e8\u05d4\u200f", "2": "Zero\u200bWidth"}
    long = {"1": "abcdefghijklmnopqrstu" + flag + "zz", "2": "Ann " + flag}
    for sent, shown in ((players, {"1": "\u05e9\u05e8\u05d4", "2": "ZeroWidth"}),
                        (long, {"1": "abcdefghijklmnopqrstu\U0001F3F4…", "2": "Ann " + flag})):
        record = {"format": "stonegarden-record", "version": 1, "game": "freego",
                  "params": {"size": 5}, "moves": ["C3"], "players": sent}
        r = client.post("/api/records", json=record)
        assert r.status_code == 201, r.text
        assert client.get(f"/api/games/{r.json()['id']}").json()["names"] == shown


def test_an_sgf_upload_is_read_as_sgf_whatever_the_case_of_its_media_type(client):
    sgf = b"(;GM[1]FF[4]SZ[5]RU[stonegarden freego size=5];B[aa];W[bb])"
    r = client.post("/api/records", content=sgf,
                    headers={"Content-Type": "Application/X-Go-SGF; charset=UTF-8"})
    assert r.status_code == 201, r.text
    snap = client.get(f"/api/games/{r.json()['id']}").json()
    assert snap["game"] == "freego" and len(snap["moves"]) == 2


def test_territory_rules_offer_pass_and_two_passes_end_the_game(client, db):
    made = new_game(client, ["human", "human"], game="blooms-territory", params={"size": 2})
    gid, k1, k2 = made["id"], made["secrets"]["1"], made["secrets"]["2"]
    client.post(f"/api/games/{gid}/move", json={"secret": k1, "move": "Rb2"})
    snap = client.get(f"/api/games/{gid}", headers={"X-Seat-Secret": k2}).json()
    assert snap["builder"]["can_pass"] and snap["can_play"]
    assert snap["builder"]["pass_ends"] is False  # the first pass: the game goes on
    client.post(f"/api/games/{gid}/move", json={"secret": k2, "move": "pass"})
    # the second would end it: the builder says so, and the page asks with that said
    snap = client.get(f"/api/games/{gid}", headers={"X-Seat-Secret": k1}).json()
    assert snap["builder"]["pass_ends"] is True
    end = client.post(f"/api/games/{gid}/move", json={"secret": k1, "move": "pass"}).json()
    assert end["terminal"] and end["reason"] == "two-passes"
    assert stored(db, gid)[1]["winner"] == end["winner"]


def test_cancel_discards_the_agent_and_pauses_it_until_resumed_or_undone(db):
    with TestClient(create_app(db, workers=1, budgets=Budgets(max_think=60))) as client:
        made = new_game(client, ["human", "mcts:sims=10000000"],
                        params={"size": 5, "target": 20})
        gid, key = made["id"], made["secrets"]["1"]
        first = first_legal("blooms", {"size": 5, "target": 20}, [])
        snap = client.post(f"/api/games/{gid}/move", json={"secret": key, "move": first}).json()
        assert snap["thinking"]["spec"] == "mcts:sims=10000000"
        assert snap["thinking"]["budget"] == 60
        assert client.post(f"/api/games/{gid}/cancel", json={"secret": "x"}).status_code == 403
        r = client.post(f"/api/games/{gid}/cancel", json={"secret": key}).json()
        assert r["thinking"] is None and r["paused"] and "cancel" in r["notice"]
        r = client.post(f"/api/games/{gid}/undo", json={"secret": key}).json()
        assert r["length"] == 0 and r["to_move"] == 1 and not r["paused"]
        assert stored(db, gid)[0] == ()


@pytest.mark.slow
def test_cancel_and_undo_stop_the_search_in_its_worker(db):
    """With one worker, a hint asked (in another game) after cancelling or undoing a search of
    ten million simulations (a minute of thinking, allowed by --max-think 60) is answered at
    once: the search stopped in the worker instead of running on. The board is big enough
    that the solver cannot end the search early."""
    params = {"size": 5, "target": 20}
    first = first_legal("blooms", params, [])
    with TestClient(create_app(db, workers=1, budgets=Budgets(max_think=60))) as client:
        made = new_game(client, ["human", "mcts:sims=10000000"], params=params)
        gid, key = made["id"], made["secrets"]["1"]

        def hint_elsewhere() -> float:
            other = new_game(client, ["human", "random"], params=params)
            t0 = time.monotonic()
            r = client.post(f"/api/games/{other['id']}/hint",
                            json={"secret": other["secrets"]["1"]})
            assert r.status_code == 200, r.text
            return time.monotonic() - t0

        hint_elsewhere()  # the worker is up and the kernels are loaded
        for stop in ("cancel", "undo"):
            snap = client.post(f"/api/games/{gid}/move", json={"secret": key, "move": first})
            assert snap.json()["thinking"]["spec"] == "mcts:sims=10000000"
            time.sleep(1.5)  # the idle worker has started the search
            r = client.post(f"/api/games/{gid}/{stop}", json={"secret": key})
            assert r.status_code == 200 and r.json()["thinking"] is None
            if stop == "cancel":
                assert r.json()["paused"]
                client.post(f"/api/games/{gid}/undo", json={"secret": key})
            assert hint_elsewhere() < 15  # the hint's own 2 s and its search: not the minute
            assert stored(db, gid)[0] == ()


BIG = "9" * 5000  # more digits than Python converts from text
ISSUE_500S = [  # (label, method, path (GID: a game), raw body, content type)
    ("an integer of 5000 digits in params", "POST", "/api/games",
     '{"game": "blooms", "params": {"size": ' + BIG + '}}', "application/json"),
    ("an integer of 5000 digits in ply", "GET", "/api/games/GID?ply=" + BIG, None, None),
    ("an integer of 5000 digits in a body's ply", "POST", "/api/games/GID/move",
     '{"secret": "x", "move": "Rc3", "ply": ' + BIG + "}", "application/json"),
    ("an integer of 5000 digits in a record", "POST", "/api/records",
     '{"format": "stonegarden-record", "version": 1, "game": "blooms", "params": {"target": '
     + BIG + '}, "moves": []}', "application/json"),
    ("a parameter named self", "POST", "/api/games",
     '{"game": "blooms", "params": {"self": 1}}', "application/json"),
    ("a parameter named game_id", "POST", "/api/games",
     '{"game": "blooms", "params": {"game_id": 1}}', "application/json"),
    ("a parameter named self in SGF RU[]", "POST", "/api/records",
     "(;GM[1]FF[4]SZ[9]RU[stonegarden freego self=1])", "application/x-go-sgf"),
    ("a lone surrogate in a secret", "POST", "/api/games/GID/move",
     '{"secret": "\\ud800", "move": "Rc3"}', "application/json"),
    ("deeply nested JSON in holes", "POST", "/api/games",
     '{"game": "blooms", "params": {"holes": "' + "[" * 5000 + '"}}', "application/json"),
    ("the seat random:seed=-1", "POST", "/api/games",
     '{"game": "blooms", "seats": ["human", "random:seed=-1"]}', "application/json"),
    ("target 2**63", "POST", "/api/games",
     '{"game": "blooms", "params": {"target": 9223372036854775808}}', "application/json"),
    ("NaN and a float too large", "POST", "/api/games",
     '{"game": "blooms", "params": {"size": NaN, "target": 1e999}}', "application/json"),
]


@pytest.mark.parametrize("label, method, path, body, ctype", ISSUE_500S,
                         ids=[c[0] for c in ISSUE_500S])
def test_inputs_that_once_gave_a_500_get_a_400(client, label, method, path, body, ctype):
    made = new_game(client, ["human", "human"], params={"size": 3})
    headers = {"Content-Type": ctype} if ctype else {}
    r = client.request(method, path.replace("GID", made["id"]),
                       content=body.encode() if body else None, headers=headers)
    assert r.status_code in (400, 403, 413), (label, r.status_code, r.text[:300])
    assert r.json()["error"]
    assert "sys." not in r.json()["error"]  # no advice to change the server's Python


def test_rules_pictures_of_an_install_without_the_docs_folder_are_404(client, monkeypatch,
                                                                      tmp_path):
    import stonegarden.web.app as web_app

    monkeypatch.setattr(web_app, "DOCS", tmp_path / "no-docs")
    # ".." escaped: a plain one is resolved by the client, to the rules index
    for name in ("blobs-t1.svg", "x", "%2E%2E", "a" * 300):
        assert client.get(f"/rules/img/{name}").status_code == 404


def test_a_tumbling_dice_move_stays_marked_past_the_roll_with_its_auto_moves(client):
    """Under Tumbling Dice a roll follows every move: the move before it is still the one
    marked, with the dice it placed by itself, and the mover is told the face rolled."""
    moves = ["roll:R", "h9R", "roll:M", "g8M", "roll:M", "i9M", "roll:B"]
    record = make_record(make("blobs", tumbling=True), moves)
    up = client.post("/api/records", content=record.to_json().encode(),
                     headers={"Content-Type": "application/json"})
    assert up.status_code == 201, up.text
    made = up.json()
    snap = client.get(f"/api/games/{made['id']}",
                      headers={"X-Seat-Secret": made["secrets"]["1"]}).json()
    assert snap["moves"][-1]["text"] == "roll:B" and snap["can_play"]
    assert snap["last"] == ["i9"] and snap["auto"] == ["i8"]
    assert [m["auto"] for m in snap["moves"]] == [[], [], [], [], [], ["i8B"], []]
    assert 'class="die last" data-cell="i9"' in snap["svg"]
    assert 'data-cell="i8" role="button" tabindex="-1" aria-label="i8, Blue face: ' in snap["svg"]
    assert "filled automatically" in snap["svg"]
    assert snap["builder"]["roll"] == "Blue face"
    assert snap["moves"][-1]["words"] == "a Blue face was rolled"


def test_a_game_at_the_servers_move_limit_can_still_be_resigned(db):
    """No move can be stored past ``max_moves``; without a resignation the game would wait for
    ever, between people and against a paused agent alike."""
    with TestClient(create_app(db, workers=1, budgets=Budgets(max_moves=2))) as client:
        made = new_game(client, ["human", "human"], params={"size": 3, "target": 20})
        gid, k1, k2 = made["id"], made["secrets"]["1"], made["secrets"]["2"]
        moves: list[str] = []
        for key in (k1, k2):
            move = first_legal("blooms", {"size": 3, "target": 20}, moves)
            r = client.post(f"/api/games/{gid}/move", json={"secret": key, "move": move})
            assert r.status_code == 200, r.text
            moves.append(move)
        move = first_legal("blooms", {"size": 3, "target": 20}, moves)
        r = client.post(f"/api/games/{gid}/move", json={"secret": k1, "move": move})
        assert r.status_code == 409 and "2 moves, the most this server keeps" in r.text, r.text
        assert "resign to end it" in r.json()["error"]
        snap = client.get(f"/api/games/{gid}", headers={"X-Seat-Secret": k1}).json()
        assert not snap["can_play"] and snap["can_resign"] and "the most" in snap["notice"]
        r = client.post(f"/api/games/{gid}/move", json={"secret": k1, "move": "resign"})
        assert r.status_code == 200, r.text
        snap = client.get(f"/api/games/{gid}").json()
        assert snap["over"] and snap["winner"] == 2 and snap["reason"] == "resign"
        assert stored(db, gid)[0] == tuple(moves)  # the resignation took no move

        made = new_game(client, ["random", "human"], params={"size": 3, "target": 20})
        gid, key = made["id"], made["secrets"]["2"]
        moves = [m["text"] for m in wait_for_agent(client, gid)["moves"]]
        move = first_legal("blooms", {"size": 3, "target": 20}, moves)
        assert client.post(f"/api/games/{gid}/move",
                           json={"secret": key, "move": move}).status_code == 200
        snap = client.get(f"/api/games/{gid}", headers={"X-Seat-Secret": key}).json()
        assert snap["length"] == 2 and snap["to_move"] == 1 and snap["paused"]  # the agent's turn
        assert not snap["can_play"] and snap["can_resign"] and "the most" in snap["notice"]
        r = client.post(f"/api/games/{gid}/move", json={"secret": key, "move": "resign"})
        assert r.status_code == 200, r.text
        snap = client.get(f"/api/games/{gid}").json()
        assert snap["over"] and snap["winner"] == 1 and snap["reason"] == "resign"
        # a resignation ends it: its moves are not taken back, and it is not played on after
        # a restart
        snap = client.get(f"/api/games/{gid}", headers={"X-Seat-Secret": key}).json()
        assert not snap["can_undo"] and not snap["can_redo"]
        assert not snap["paused"] and snap["notice"] == ""  # no agent is waited for
        for tool in ("undo", "redo"):
            r = client.post(f"/api/games/{gid}/{tool}", json={"secret": key})
            assert r.status_code == 409 and "the game is over" in r.json()["error"], r.text
        assert len(stored(db, gid)[0]) == 2
    with TestClient(create_app(db, workers=1, budgets=Budgets(max_moves=2))) as client:
        snap = client.get(f"/api/games/{gid}", headers={"X-Seat-Secret": key}).json()
        assert snap["over"] and snap["reason"] == "resign" and not snap["can_play"]


@pytest.mark.parametrize(("path", "allow"), [
    ("/api/games", {"GET", "HEAD", "POST"}),
    ("/api/games/GID", {"GET", "HEAD"}),
    ("/api/games/GID/analysis", {"GET", "HEAD", "POST"}),
    ("/api/games/GID/move", {"POST"}),
    ("/api/records", {"POST"}),
    ("/api/lobby", {"GET", "HEAD"}),
    ("/api/meta", {"GET", "HEAD"}),
    ("/", {"GET", "HEAD"}),
    ("/static/style.css", {"GET", "HEAD"}),
])
def test_a_method_a_path_does_not_take_is_a_405_naming_the_ones_it_does(client, path, allow):
    """RFC 9110: a 405 carries ``Allow``; a path that reads and acts names both (it was
    missing everywhere, and would have named only the first of two routes)."""
    path = path.replace("GID", new_game(client, ["human", "human"])["id"])
    for method in ("PUT", "DELETE", "PATCH", "OPTIONS"):
        r = client.request(method, path)
        assert r.status_code == 405, (method, r.text)
        assert {m.strip() for m in r.headers["allow"].split(",")} == allow, method
        if path.startswith("/api/"):  # it said "Method Not Allowed", and nothing more
            error = r.json()["error"]
            assert error.startswith(f"{method} is not a method of '/api/"), error
            assert error.endswith(f"it takes {r.headers['allow']}"), error
            assert ("cross-origin" in error) == (method == "OPTIONS"), error


def test_an_api_path_that_does_not_exist_says_so(client):
    """``GET /api/gmaes`` was answered ``{"error": "Not Found"}``, as an unknown game's id is
    not: the path is named, and where the paths are listed."""
    for method in ("GET", "POST"):
        r = client.request(method, "/api/gmaes")
        assert r.status_code == 404
        assert r.json() == {"error": "no API path '/api/gmaes': docs/web.md lists them"}


def test_every_field_of_a_snapshot_is_documented(client):
    """docs/web.md's row of ``GET /api/games/ID`` names every field a client reads (ten of
    them, ``length`` and ``position`` among them, were left to a "...")."""
    doc = (Path(__file__).resolve().parents[2] / "docs" / "web.md").read_text(encoding="utf-8")
    row = next(line for line in doc.splitlines() if line.startswith("| `GET /api/games/ID[?ply"))
    documented = set(re.findall(r"`([a-z_]+)`", row)) | set(re.findall(r'"([a-z_]+)"', row))
    made = new_game(client, ["human", "human"])
    key = made["secrets"]["1"]
    r = client.post(f"/api/games/{made['id']}/move", json={"secret": key, "move": "Rb2"})
    snap = r.json()
    assert set(snap) - documented == set()
    assert set(snap["moves"][0]) - documented == set()
    r = client.post(f"/api/games/{made['id']}/move", json={"secret": key, "move": "resign"})
    assert set(r.json()["outcome"]) - documented == set()


def test_a_game_that_never_had_an_open_seat_is_not_said_to_have_been_joined(client):
    """A join or a withdrawal of a game made for two people at one board (no open seat ever)
    was refused with "someone has joined it"."""
    made = new_game(client, ["human", "human"])
    gid = made["id"]
    for path, body in (("join", {"name": "Bob"}), ("withdraw", {"secret": made["secrets"]["1"]})):
        r = client.post(f"/api/games/{gid}/{path}", json=body)
        assert r.status_code == 409, r.text
        assert "or it never had one" in r.json()["error"], r.text


def test_answers_say_how_a_cache_may_keep_them(client):
    """A snapshot is the game now (and a seat's own hint): no cache stores it. A script is
    asked for again on each use, a 304 while unchanged: with no ``Cache-Control`` a browser
    guessed a lifetime from the file's age and ran old scripts after an update."""
    made = new_game(client, ["human", "human"])
    square = new_game(client, ["human", "human"], "freego", {"size": 5})["id"]
    # a record too: it grows with the game, and holds the analysis only for whoever may see it
    for path in (f"/api/games/{made['id']}", "/api/meta", "/api/lobby", "/api/games/nope",
                 f"/api/games/{made['id']}/record", f"/api/games/{square}/record.sgf"):
        r = client.get(path)
        assert r.headers["cache-control"] == "no-store", path
    r = client.get("/static/game/main.js")
    assert r.status_code == 200 and r.headers["cache-control"] == "no-cache"
    again = client.get("/static/game/main.js", headers={"If-None-Match": r.headers["etag"]})
    assert again.status_code == 304 and again.headers["cache-control"] == "no-cache"


def test_games_asked_for_by_id_beyond_the_limit_are_refused_not_dropped(client):
    """``GET /api/games?ids=`` answered the first 100 of 101 ids, and left out an id of the
    wrong shape, without a word: a client took the rest for games that do not exist."""
    gid = new_game(client, ["human", "human"])["id"]
    assert [g["id"] for g in client.get(f"/api/games?ids={gid},nosuchgame").json()["games"]] == [gid]
    assert client.get("/api/games?ids=").json() == {"games": []}
    r = client.get("/api/games?ids=" + ",".join([gid] + [f"g{i}" for i in range(100)]))
    assert r.status_code == 400 and r.json()["error"] == "'ids' must name 1-100 games, not 101"
    r = client.get(f"/api/games?ids={gid},no%20such")
    assert r.status_code == 400 and r.json()["error"] == "'no such' is not a game id"


@pytest.mark.parametrize("body", [{}, {"game": None}, {"game": 5}])
def test_a_game_left_out_of_a_creation_is_named_as_the_missing_field(client, body):
    """``POST /api/games`` without ``game`` said "unknown game None", a Python word a client
    never sent; the message names the field and the games."""
    r = client.post("/api/games", json=body)
    assert r.status_code == 400
    assert r.json()["error"].startswith("'game' must name a game (blooms, ")
    assert "None" not in r.json()["error"]


def test_a_snapshot_says_its_seats_in_words_as_the_lists_of_games_do(client):
    made = new_game(client, ["human", "level:2"])
    snap = client.get(f"/api/games/{made['id']}").json()
    assert snap["seats"] == ["human", "level:2"]
    assert snap["seat_words"] == ["a person", "computer, level 2"]


def test_a_level_written_in_capitals_or_spaced_is_seated_as_the_level(client):
    """``LEVEL:3``, ``level: 3`` and ``level:03`` play level 3, but were stored as written: the
    page and the lists said "computer (LEVEL:3)" and the record named that spec."""
    level3 = ("level:3", "computer, level 3")
    for spec, (seated, words) in (("LEVEL:3", level3), ("level: 3", level3), ("level:03", level3),
                                  ("Level:4, Seed=07",
                                   ("level:4,seed=7", "computer (level:4,seed=7)"))):
        made = new_game(client, ["human", spec])
        assert made["seats"] == ["human", seated], made
        snap = client.get(f"/api/games/{made['id']}").json()
        assert snap["seats"] == ["human", seated] and snap["seat_words"][1] == words, snap
        record = client.get(f"/api/games/{made['id']}/record").json()
        assert record["players"]["2"] == seated


@pytest.mark.parametrize("path, body, field, close", [
    ("/api/games", {"game": "blooms", "params": SMALL, "seats": ["human", "human"],
                    "publik": True}, "publik", "public"),
    ("/api/games", {"game": "blooms", "params": SMALL, "seats": ["human", "human"],
                    "Hints": True}, "Hints", "hints"),
    ("move", {"move": "Rb2", "Ply": 0}, "Ply", "ply"),
    ("undo", {"move": "Rb2"}, "move", None),
    ("name", {"name": "Ann", "nmae": "Bob"}, "nmae", "name"),
    ("join", {"name": "Ann", "secret": "x"}, "secret", None),
    ("rematch", {"game": "blooms"}, "game", None),
    ("analysis", {"secrets": "x"}, "secrets", "secret"),
])
def test_a_field_a_request_does_not_take_is_refused_not_ignored(client, db, path, body, field,
                                                                close):
    """A misspelt ``"publik": true`` made an unlisted game, and a move's ``"Ply"`` was played
    without the staleness check it asked for, without a word: every body's fields are known,
    and one that is not is refused with the field it may have meant."""
    made = new_game(client, ["human", "human"])
    gid, key = made["id"], made["secrets"]["1"]
    url = path if path.startswith("/") else f"/api/games/{gid}/{path}"
    sent = body if path.startswith("/") or path == "join" else {"secret": key, **body}
    r = client.post(url, json=sent)
    assert r.status_code == 400, r.text
    error = r.json()["error"]
    assert error.startswith(f"unknown field {field!r}"), error
    assert (f"did you mean {close!r}?" in error) if close else "did you mean" not in error
    assert stored(db, gid) == ((), None, ())
    assert client.get("/api/games").json()["games"] == []  # nothing made, nothing listed


def test_a_query_parameter_given_twice_is_refused_not_half_read(client):
    """``?ids=A&ids=B`` listed B alone, answering as if A were no game, and ``?ply=0&ply=3``
    showed ply 3: the last of them was taken without a word. Which one was meant cannot be
    known, so a parameter given twice is refused."""
    made = new_game(client, ["human", "human"])
    other = new_game(client, ["human", "human"])["id"]
    gid = made["id"]
    for path, name in ((f"/api/games?ids={gid}&ids={other}", "ids"),
                       (f"/api/events?ids={gid}&ids={other}", "ids"),
                       (f"/api/games/{gid}?ply=0&ply=0", "ply")):
        r = client.get(path)
        assert r.status_code == 400, path
        assert r.json()["error"].startswith(f"{name!r} is given 2 times in the query"), r.text
    r = client.post("/api/records?game=freego&game=blooms", content=b"(;GM[1]SZ[5])",
                    headers={"Content-Type": "application/x-go-sgf"})
    assert r.status_code == 400 and r.json()["error"].startswith("'game' is given 2 times")
    listed = client.get(f"/api/games?ids={gid},{other}").json()["games"]
    assert sorted(g["id"] for g in listed) == sorted([gid, other])  # as the docs say


def test_a_body_giving_a_field_twice_is_refused_not_half_read(client):
    """``{"move": "Rb2", "move": "Ka1"}`` played Ka1 and ``"size"`` given twice in ``params``
    made a game of the last: the last value was taken without a word, as the query's was."""
    made = new_game(client, ["human", "human"])
    gid, key = made["id"], made["secrets"]["1"]
    for path, body, field in (
            (f"/api/games/{gid}/move", f'{{"secret": "{key}", "move": "Rb2", "move": "Ka1"}}',
             "move"),
            (f"/api/games/{gid}/move", f'{{"secret": "x", "secret": "{key}", "move": "Rb2"}}',
             "secret"),
            ("/api/games", '{"game": "blooms", "params": {"size": 3, "size": 4}}', "size")):
        r = client.post(path, content=body, headers={"Content-Type": "application/json"})
        assert r.status_code == 400, r.text
        assert r.json()["error"].startswith(f"the body gives {field!r} twice"), r.text
    assert client.get(f"/api/games/{gid}").json()["length"] == 0  # nothing was played


def test_an_error_quotes_a_long_input_in_a_bounded_message(client):
    """An SGF move of 500,000 characters was answered with an error of a megabyte (the move
    twice), an unknown game or a clock's key of 60,000 with one of 60,000: an error says what
    was refused and why in at most 1,000 characters, whatever it quotes."""
    big = "x" * 500_000
    sgf = {"Content-Type": "application/x-go-sgf"}
    game = {"game": "blooms", "params": SMALL, "seats": ["human", "human"]}
    for r, start, end in (
            (client.post("/api/records?game=freego", headers=sgf,
                         content=f"(;GM[1]SZ[5];B[{big}])".encode()),
             "bad record: 'upload': SGF move 1 (B[xxx", "is not an SGF point"),
            (client.post("/api/records", headers=sgf, content=f"(;GM[{big}]SZ[5])".encode()),
             "bad record: 'upload': GM[xxx", "is not Go (GM[1])"),
            (client.post("/api/games", json={**game, "game": big[:60_000]}),
             "unknown game 'xxx", "(known: blooms, blooms-territory, freego, bridgego, blobs)"),
            (client.post("/api/games", json={**game, "clock": {big[:60_000]: 1}}),
             "'clock' is {", "not an object with keys ['xxx")):
        error = r.json()["error"]
        assert r.status_code == 400 and len(error) <= 1000, (r.status_code, len(error))
        assert error.startswith(start) and end in error, error[:200]


@pytest.mark.parametrize("path, body, said", [
    ("/api/games", {"game": True}, "'game' must name a game (blooms, blooms-territory, freego, "
                                   "bridgego, blobs), not true"),
    ("/api/games", {"game": "blooms", "params": None}, "'params' must be an object, not null"),
    ("/api/games", {"game": "blooms", "seats": ["human", None]},
     "'seats' must be a list of two strings, not [\"human\", null]"),
    ("/api/games", {"game": "blooms", "seats": ["human", "human"], "public": 1},
     "'public' must be true or false, not 1"),
    ("/api/games", {"game": "blooms", "seats": ["human", "human"], "hints": None},
     "'hints' must be true or false, not null"),
    ("/api/games", {"game": "blooms", "seats": ["human", "human"], "seat": True},
     "'seat' must be the number of a 'human' seat, not true"),
    ("/api/games", {"game": "blooms", "seats": ["human", "human"], "clock": {"initial": None}},
     "clock 'initial' must be a number in 10..10800, not null"),
    ("/api/games", {"game": "blooms", "seats": ["human", "human"],
                    "clock": {"days_per_move": False}},
     "clock 'days_per_move' must be an integer in 1..14, not false"),
    ("move", {"move": None}, "'move' must be move text of at most 200 characters, not null"),
    ("move", {"move": ["Rb2"]},
     "'move' must be move text of at most 200 characters, not [\"Rb2\"]"),
    ("move", {"move": "Rb2", "ply": True},
     "'ply' must be the number of moves so far (an integer, 0 or more), not true"),
])
def test_a_refused_value_is_quoted_as_json_writes_it(client, path, body, said):
    """A client that sent ``null`` or ``true`` was told "not None", "not True", and a list
    was shown in Python's quotes: a refused value is shown as JSON writes it."""
    made = new_game(client, ["human", "human"])
    if not path.startswith("/"):
        path, body = f"/api/games/{made['id']}/{path}", {"secret": made["secrets"]["1"], **body}
    r = client.post(path, json=body)
    assert r.status_code == 400 and r.json()["error"] == said


def test_a_body_that_starts_with_a_byte_order_mark_is_read(client, db):
    """A body saved by Windows' Notepad (a UTF-8 byte order mark first) was refused with
    Python's advice, "Unexpected UTF-8 BOM (decode using utf-8-sig)", while an uploaded
    record with one was read: a body's mark is read past too (RFC 8259 allows it)."""
    body = json.dumps({"game": "blooms", "params": SMALL, "seats": ["human", "human"]})
    r = client.post("/api/games", content=b"\xef\xbb\xbf" + body.encode(),
                    headers={"Content-Type": "application/json"})
    assert r.status_code == 201, r.text
    made = r.json()
    r = client.post(f"/api/games/{made['id']}/move", headers={"Content-Type": "application/json"},
                    content="\ufeff".encode() + json.dumps({"secret": made["secrets"]["1"],
                                                           "move": "Rb2"}).encode())
    assert r.status_code == 200, r.text
    assert stored(db, made["id"])[0] == ("Rb2",)


def test_a_body_not_in_utf8_is_refused_in_words_a_client_can_act_on(client):
    """A UTF-16 body (a file written by Windows PowerShell's ``>``) was refused with Python's
    codec message, "'utf-8' codec can't decode byte 0xff in position 0: invalid start byte"."""
    body = json.dumps({"game": "blooms", "params": SMALL, "seats": ["human", "human"]})
    for encoding, first in (("utf-16", 0xff), ("latin-1", 0xe9)):
        text = body if encoding == "utf-16" else body.replace("blooms", "bl\u00e9ooms")
        r = client.post("/api/games", content=text.encode(encoding),
                        headers={"Content-Type": "application/json"})
        assert r.status_code == 400
        error = r.json()["error"]
        assert error.startswith(f"the body is not UTF-8 text (byte 0x{first:02x} at offset "), error
        assert error.endswith("): send JSON in UTF-8") and "codec" not in error, error


def test_a_body_nested_too_deeply_is_refused_in_words_a_client_can_act_on(client):
    """A body of 30,000 nested arrays was refused with Python's words, "maximum recursion
    depth exceeded while decoding a JSON array from a unicode string"."""
    deep = "[" * 30_000 + "]" * 30_000
    r = client.post("/api/games", content=f'{{"game": "blooms", "params": {deep}}}'.encode(),
                    headers={"Content-Type": "application/json"})
    assert r.status_code == 400
    assert r.json()["error"] == ("the body nests arrays or objects too deeply for this server: "
                                 "no request needs more than a few levels")


def test_a_query_parameter_a_request_does_not_take_is_refused(client):
    """``GET /api/games/ID?plies=3`` showed the game now, as if no ply were asked for: a
    request that reads a query parameter refuses another."""
    gid = new_game(client, ["human", "human"])["id"]
    for path, takes in ((f"/api/games/{gid}?plies=0", "ply"), (f"/api/games?id={gid}", "ids"),
                        (f"/api/events?ids={gid}&x=1", "ids")):
        r = client.get(path)
        assert r.status_code == 400, path
        assert r.json()["error"].endswith(f": this request takes only {takes!r}"), r.text
    r = client.post("/api/records?games=freego", content=b"(;GM[1]SZ[5])",
                    headers={"Content-Type": "application/x-go-sgf"})
    assert r.status_code == 400 and r.json()["error"].startswith("unknown query parameter 'games'")
    assert client.get(f"/api/games/{gid}?ply=0").json()["ply"] == 0
