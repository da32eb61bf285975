"""Online play against a player who tries to cheat or to hold others up: requests sent at once
to a real ``stonegarden serve`` (exactly one may win, the others are refused in words, and the
stored game agrees with what was answered)."""

from __future__ import annotations

from concurrent.futures import ThreadPoolExecutor
from typing import Any

from stonegarden.store import open_store

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

