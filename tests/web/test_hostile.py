"""Online play against a player who tries to cheat or to hold others up: requests sent at once
to a real ``stonegarden serve`` (exactly one may win, the others are refused in words, and the
stored game agrees with what was answered), and a joiner who never moves."""

from __future__ import annotations

import time
from concurrent.futures import ThreadPoolExecutor
from typing import Any

import pytest

from stonegarden.store import open_store
from stonegarden.web import clock_keeper

GO = {"game": "freego", "params": {"size": 5}}


def at_once(server: Any, requests: list[tuple[str, str, Any]]) -> list[tuple[int, Any]]:
    """The answers of ``requests`` (method, path, body), all sent together."""
    with ThreadPoolExecutor(len(requests)) as pool:
        return list(pool.map(lambda r: server.request(*r), requests))


def test_racing_requests_of_one_player_are_played_once_and_stored_as_answered(server):
    status, made = server.request("POST", "/api/games", {**GO, "seats": ["human", "human"]})
    assert status == 201, made
    gid, k1, k2 = made["id"], made["secrets"]["1"], made["secrets"]["2"]
    move = f"/api/games/{gid}/move"
    # a seat's holder names it once: six names sent at once were each answered as kept,
    # and the name stored was the last one written, not the one the pages showed
    named = at_once(server, [("POST", f"/api/games/{gid}/name", {"secret": k1, "name": f"N{i}"})
                             for i in range(6)])
    kept = [a for s, a in named if s == 200]
    assert sorted(s for s, _ in named) == [200] + [409] * 5, named
    name = kept[0]["names"]["1"]
    assert all("already named" in a["error"] for s, a in named if s == 409), named
    assert server.request("GET", f"/api/games/{gid}")[1]["names"]["1"] == name
    assert open_store(server.db).get(gid).names[0] == name
    # two moves of one's own turn at once, with their ply and without: one is played
    assert server.request("POST", move, {"secret": k1, "move": "A1"})[0] == 200
    for ply, moves in ((None, ("C3", "D3", "E3")), (2, ("C2", "D2", "E2"))):
        extra = {} if ply is None else {"ply": ply}
        answers = at_once(server, [("POST", move, {"secret": k2, "move": m, **extra})
                                   for m in moves])
        assert sorted(s for s, _ in answers) == [200, 409, 409], answers
        k1, k2 = k2, k1
    # a move for the other seat, one sent again for a ply gone by, both seats resigning at once
    assert server.request("POST", move, {"secret": k1, "move": "E5"})[0] == 409
    assert server.request("POST", move, {"secret": k2, "move": "B1", "ply": 3})[0] == 200
    answers = at_once(server, [("POST", move, {"secret": k, "move": "resign"}) for k in (k1, k2)])
    assert sorted(s for s, _ in answers) == [200, 409], answers
    snap = server.request("GET", f"/api/games/{gid}")[1]
    assert snap["over"] and snap["reason"] == "resign"
    row = open_store(server.db).get(gid)
    assert list(row.moves) == [m["text"] for m in snap["moves"]]
    assert row.result["winner"] == snap["winner"]
    assert server.request("POST", move, {"secret": k1, "move": "E5"})[0] == 409


def test_a_joiner_who_lets_games_abort_for_want_of_a_first_move_is_held_to_eight(db,
                                                                                monkeypatch):
    """Else a client joined eight games of the lobby, never moved, and had each abort itself
    a minute or three later, free to join eight more, as it was not for an abort of its own."""
    pytest.importorskip("httpx2", reason="starlette's TestClient needs httpx2 (test extra)")
    from starlette.testclient import TestClient

    from stonegarden.web.app import create_app

    monkeypatch.setattr(clock_keeper, "FIRST_MOVE_WAIT", (0.3, 0.3))
    creator = {"X-Forwarded-For": "203.0.113.9"}
    joiner = {"X-Forwarded-For": "203.0.113.66"}
    body = {**GO, "seats": ["open", "human"], "clock": {"initial": 60, "increment": 0}}
    with TestClient(create_app(db, workers=1, warm_up=False, forwarded_allow_ips=["*"])) as c:
        made = [c.post("/api/games", json={**body, "public": n < 8}, headers=creator).json()["id"]
                for n in range(9)]
        for gid in made[:8]:  # the joiner is Black: the first move is theirs
            r = c.post(f"/api/games/{gid}/join", json={"name": "Bo"}, headers=joiner)
            assert r.status_code == 201, r.text
        end = time.time() + 20
        while time.time() < end:
            rows = [open_store(db).get(gid) for gid in made[:8]]
            if all(row.result is not None for row in rows):
                break
            time.sleep(0.2)
        assert [row.result["late"] for row in rows] == [1] * 8
        r = c.post(f"/api/games/{made[8]}/join", json={"name": "Bo"}, headers=joiner)
        assert r.status_code == 429, r.text
        assert "first move you did not make in time" in r.json()["error"]
