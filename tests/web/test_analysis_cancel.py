"""Cancelling the computer's analysis (``POST /api/games/ID/analysis/cancel``) on a real server:
who may (the client that asked, a player with a seat's secret), what is kept (the positions
stored before; those of the job it stopped go, as a restart drops them), and that its worker is
free again at once, no process ended or left behind."""

from __future__ import annotations

import random
import time
from pathlib import Path
from typing import Any

import pytest
from webhelpers import Server

from stonegarden import make

ASKER, OTHER = "127.0.0.2", "127.0.0.3"


def study_record(length: int = 30) -> dict[str, Any]:
    """An unfinished Free Go record of ``length`` random moves: its analysis takes a while, and
    its uploader holds both seats."""
    game = make("freego", size=5)
    rng = random.Random(5)
    state, moves = game.initial_state(), []
    while len(moves) < length and not game.is_terminal(state):
        actions = [int(a) for a in game.legal_actions(state)
                   if game.action_to_text(state, int(a)) not in ("pass", "resign")]
        moves.append(game.action_to_text(state, rng.choice(actions)))
        state = game.play_text(state, moves[-1])
    return {"format": "stonegarden-record", "version": 1, "game": "freego",
            "params": {"size": 5}, "moves": moves}


def until(check, seconds: float = 120.0) -> Any:
    t0 = time.monotonic()
    while time.monotonic() - t0 < seconds:
        value = check()
        if value:
            return value
        time.sleep(0.1)
    raise AssertionError(f"not within {seconds} s")


@pytest.fixture
def served(tmp_path: Path):
    s = Server(tmp_path / "games.db").start()
    yield s
    s.stop()


def uploaded(server: Server) -> dict[str, Any]:
    status, made = server.request("POST", "/api/records", study_record(), source=ASKER)
    assert status == 201, made
    return made


def analysis(server: Server, gid: str) -> dict[str, Any]:
    status, a = server.request("GET", f"/api/games/{gid}/analysis", source=ASKER)
    assert status == 200, a
    return a


def busy_workers(server: Server) -> int:
    return int(server.request("GET", "/api/meta")[1]["limits"]["busy"])


def test_who_asked_cancels_what_is_stored_stays_and_the_worker_is_free(served):
    made = uploaded(served)
    gid, path = made["id"], f"/api/games/{made['id']}/analysis"
    workers = sorted(served.below())
    status, a = served.request("POST", path, {}, source=ASKER)
    assert status == 202 and a["running"] and a["can_cancel"] and not a["cancelled"], a
    # a stranger sees it run, and may not stop it
    status, theirs = served.request("GET", path, source=OTHER)
    assert status == 200 and theirs["running"] and not theirs["can_cancel"]
    status, refused = served.request("POST", path + "/cancel", {}, source=OTHER)
    assert status == 403 and "who asked" in refused["error"], refused
    # once its first job's positions are stored, and the next job runs
    until(lambda: analysis(served, gid)["points"] and busy_workers(served) == 1)
    stored = len(analysis(served, gid)["points"])
    status, a = served.request("POST", path + "/cancel", {}, source=ASKER)
    assert status == 200, a
    assert not a["running"] and a["cancelled"] and not a["can_cancel"] and not a["done"]
    assert len(a["points"]) == stored < a["of"], a  # the running job's positions went
    # its worker stopped the search and is free (none ended, none left behind)
    until(lambda: busy_workers(served) == 0, 10)
    assert sorted(served.below()) == workers
    time.sleep(1.5)  # nothing goes on
    assert len(analysis(served, gid)["points"]) == stored
    status, again = served.request("POST", path + "/cancel", {}, source=ASKER)
    assert status == 409 and "no analysis of this game is running" in again["error"], again
    # asked for again, it goes on from the positions stored
    status, a = served.request("POST", path, {}, source=ASKER)
    assert status == 202 and a["running"] and not a["cancelled"] and len(a["points"]) == stored


def test_a_player_cancels_with_the_seats_secret(served):
    made = uploaded(served)
    path = f"/api/games/{made['id']}/analysis"
    assert served.request("POST", path, {}, source=ASKER)[0] == 202
    status, refused = served.request("POST", path + "/cancel", {"secret": "x" * 20},
                                     source=OTHER)
    assert status == 403 and "not a secret" in refused["error"], refused
    status, refused = served.request("POST", path + "/cancel", {"secrets": "1"}, source=OTHER)
    assert status == 400, refused
    status, a = served.request("POST", path + "/cancel", {"secret": made["secrets"]["2"]},
                               source=OTHER)
    assert status == 200 and not a["running"] and a["cancelled"], a
    until(lambda: busy_workers(served) == 0, 10)


@pytest.mark.parametrize("body, ctype, status", [
    ("[]", "application/json", 400),
    ("{", "application/json", 400),
    ('{"secret": 5}', "application/json", 400),  # a secret is text: a malformed request
    ('{"secret": "x"}', "application/json", 403),  # no seat's secret
    ('{"secret": "\\ud800"}', "application/json", 403),
    ("{}", "application/json", 403),  # asked by no one: not this client's to cancel
    ("{}", "text/plain", 415),
    ("x" * 70_000, "application/json", 413),
])
def test_hostile_cancels_are_refused_with_4xx(db: Path, body: str, ctype: str, status: int):
    from starlette.testclient import TestClient

    from stonegarden.web.app import create_app

    with TestClient(create_app(db, workers=1, warm_up=False)) as client:
        made = client.post("/api/games", json={"game": "blooms", "params": {"size": 2},
                                               "seats": ["human", "random"]}).json()
        path = f"/api/games/{made['id']}/analysis/cancel"
        r = client.post(path, content=body.encode(), headers={"Content-Type": ctype})
        assert r.status_code == status, r.text
        # a player may cancel, but nothing runs
        r = client.post(path, json={"secret": made["secrets"]["1"]})
        assert r.status_code == 409 and "no analysis" in r.json()["error"], r.text
        assert client.post("/api/games/nope/analysis/cancel", json={}).status_code == 404
        r = client.get(path)
        assert r.status_code == 405 and "takes POST" in r.json()["error"], r.text
