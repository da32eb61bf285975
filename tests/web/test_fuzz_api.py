"""Every endpoint and every body field under fuzzed input (Hypothesis through starlette's
TestClient): no answer is a 5xx, every API error is JSON naming the problem, and the games the
fuzzing could not touch are unchanged."""

from __future__ import annotations

import json
from typing import Any
from urllib.parse import quote as urlquote

import pytest

pytest.importorskip("httpx2", reason="starlette's TestClient needs httpx2 (test extra)")
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from starlette.testclient import TestClient

from fuzz_values import AGENTS, game_id, json_value, params, weird_int, weird_text
from stonegarden.store import open_store
from stonegarden.web.app import create_app
from stonegarden.web.service import Budgets

ACTIONS = ("move", "undo", "redo", "cancel", "resume", "hint", "seat", "join", "withdraw",
           "rematch", "name", "analysis", "analysis/cancel", "abort")
#: clocks, right and wrong (their ranges are checked in test_online.py too)
clock_value = st.one_of(
    st.fixed_dictionaries({"initial": st.one_of(weird_int, st.floats(allow_nan=False,
                                                                     allow_infinity=False))},
                          optional={"increment": st.one_of(weird_int, json_value)}),
    st.fixed_dictionaries({"days_per_move": st.one_of(weird_int, json_value)}))


@pytest.fixture(scope="module")
def env(tmp_path_factory):
    """One server for the whole module; short budgets keep every job brief."""
    db = tmp_path_factory.mktemp("fuzz") / "games.db"
    app = create_app(db, workers=1, hint_spec="random",
                     budgets=Budgets(max_think=0.5, hint_seconds=0.5, analysis_seconds=2))
    with TestClient(app) as client:
        games = {}
        for name, seats, game, p in (("people", ["human", "human"], "blooms", {"size": 3}),
                                     ("open", ["human", "open"], "blooms", {"size": 3}),
                                     ("agent", ["human", "random"], "blooms", {"size": 3}),
                                     ("square", ["human", "human"], "freego", {"size": 5}),
                                     ("watched", ["human", "human"], "blooms", {"size": 3})):
            r = client.post("/api/games", json={"game": game, "params": p, "seats": seats,
                                                "hints": name == "people"})
            assert r.status_code == 201, r.text
            games[name] = r.json()
        key = games["watched"]["secrets"]["1"]
        client.post(f"/api/games/{games['watched']['id']}/move",
                    json={"secret": key, "move": "Rc3"})
        record = client.get(f"/api/games/{games['watched']['id']}/record").text
        yield {"client": client, "db": db, "games": games, "record": record}


def game_and_secret(games: dict[str, Any]) -> Any:
    real = st.sampled_from(["people", "agent", "square", "open"]).map(lambda n: games[n])
    return st.tuples(
        st.one_of(real.map(lambda g: g["id"]), weird_text),
        st.one_of(real.flatmap(lambda g: st.sampled_from(list(g["secrets"].values()))),
                  weird_text, json_value))


move_text = st.one_of(weird_text, st.sampled_from(["Rc3", "Ra1,Yb2", "Kb2", "Gc1", "C3", "A1",
                                                    "pass", "resign", "Rz9", "R", ""]))
content_types = st.sampled_from(["application/json", "application/json; charset=utf-8",
                                 "application/x-go-sgf", "text/plain", "",
                                 "multipart/form-data", "application/json;;"])


def body_of(value: Any) -> bytes:
    return json.dumps(value, allow_nan=False).encode()


def requests(env: dict[str, Any]) -> Any:
    """(method, path, raw body or None, headers)."""
    games, record = env["games"], env["record"]
    gs = game_and_secret(games)
    create = st.fixed_dictionaries({}, optional={
        "game": game_id, "params": st.one_of(params, json_value),
        "seats": st.one_of(st.lists(st.one_of(st.sampled_from([*AGENTS, "open"]), weird_text),
                                    min_size=0, max_size=3), json_value),
        "public": st.one_of(st.booleans(), json_value), "hints": json_value,
        "name": st.one_of(weird_text, json_value), "seat": st.one_of(weird_int, json_value),
        "clock": st.one_of(clock_value, json_value)})
    action_body = gs.flatmap(lambda g: st.tuples(
        st.just(g[0]), st.sampled_from(ACTIONS),
        st.fixed_dictionaries({}, optional={"secret": st.one_of(st.just(g[1]), json_value),
                                            "move": move_text, "ply": st.one_of(weird_int,
                                                                                json_value),
                                            "name": st.one_of(weird_text, json_value)})))
    mutated_record = st.tuples(st.sampled_from(["format", "version", "game", "params", "moves",
                                                "result", "players", "meta"]), json_value).map(
        lambda kv: {**json.loads(record), kv[0]: kv[1]})
    sgf = st.one_of(weird_text, st.sampled_from([
        "(;GM[1]FF[4]SZ[5]RU[stonegarden freego size=5];B[aa];W[bb])",
        "(;GM[1]FF[4]SZ[9]RU[stonegarden freego self=1])",
        "(;GM[1]FF[4]SZ[99]RU[stonegarden bridgego max_turns=100000000])",
        "(;GM[1]FF[4]RU[stonegarden freego target=99999999999999999999])",
        "(;GM[1]FF[4]SZ[5]RU[stonegarden freego size=5];B[zz])", "(" * 2000, "(;"]))
    return st.one_of(
        create.map(lambda b: ("POST", "/api/games", body_of(b), {})),
        action_body.map(lambda a: ("POST", f"/api/games/{_path(a[0])}"
                                   f"/{a[1]}", body_of(a[2]), {})),
        st.tuples(gs, st.one_of(weird_text, weird_int.map(str))).map(
            lambda t: ("GET", f"/api/games/{_path(t[0][0])}?ply="
                       f"{_path(t[1])}", None,
                       {"X-Seat-Secret": _header(t[0][1])})),
        st.tuples(gs, st.sampled_from(["analysis", "record", "record.sgf"])).map(
            lambda t: ("GET", f"/api/games/{_path(t[0][0])}/{t[1]}",
                       None, {})),
        mutated_record.map(lambda r: ("POST", "/api/records", body_of(r), {})),
        sgf.map(lambda t: ("POST", "/api/records", t.encode("utf-8", "surrogatepass"),
                           {"Content-Type": "application/x-go-sgf"})),
        st.tuples(st.binary(max_size=200), content_types,
                  st.sampled_from(["/api/games", "/api/records",
                                   f"/api/games/{games['people']['id']}/move"])).map(
            lambda t: ("POST", t[2], t[0], {"Content-Type": t[1]})),
        weird_text.map(lambda t: ("GET", f"/api/games?ids={_path(t)}",
                                  None, {})),
        st.just(("GET", "/api/lobby", None, {})),
        st.tuples(st.sampled_from(["/game/", "/rules/", "/rules/img/", "/api/games/",
                                   "/static/"]), weird_text).map(
            lambda t: ("GET", t[0] + _path(t[1]), None, {})),
    )


def _text(value: Any) -> str:
    """A value as URL or header text, cut short (clients refuse very long URLs themselves)."""
    return (value if isinstance(value, str) else json.dumps(value))[:300]


def _path(value: Any) -> str:
    """A value as one percent-encoded URL part (lone surrogates as their UTF-8-like bytes);
    ``.`` and ``..`` with their dots encoded, which the client would otherwise resolve as a
    path's dot segments (``/api/games/..`` is ``/api``, which is no API path but a page)."""
    part = urlquote(_text(value).encode("utf-8", "surrogatepass"), safe="")
    return part.replace(".", "%2E") if part in (".", "..") else part


def _header(value: Any) -> bytes:
    """A header value as raw bytes (any text, as its UTF-8-like bytes)."""
    return _text(value).encode("utf-8", "surrogatepass").replace(b"\r", b"").replace(b"\n", b"")


@pytest.mark.slow
def test_fuzzed_requests_never_get_a_5xx_and_errors_are_json(env):
    client: TestClient = env["client"]
    seen: dict[int, int] = {}

    @settings(max_examples=800, deadline=None, suppress_health_check=list(HealthCheck))
    @given(requests(env))
    def one(request):
        method, path, body, headers = request
        h = {"Content-Type": "application/json", **headers}
        r = client.request(method, path, content=body, headers=h)
        seen[r.status_code] = seen.get(r.status_code, 0) + 1
        assert r.status_code < 500, (method, path, (body or b"")[:200], r.text[:300])
        if path.startswith("/api/") and r.status_code >= 400:
            assert isinstance(r.json()["error"], str) and r.json()["error"]
        assert r.headers["x-content-type-options"] == "nosniff"

    one()
    assert sum(seen.values()) >= 800
    assert any(s < 300 for s in seen) and any(400 <= s < 500 for s in seen)
    # the game that no fuzzed request could move (its secrets were never drawn) is unchanged
    watched = env["games"]["watched"]
    row = open_store(env["db"]).get(watched["id"])
    assert row is not None and row.moves == ("Rc3",)
    for g in env["games"].values():  # and every game still answers
        assert client.get(f"/api/games/{g['id']}").status_code == 200


def test_the_event_stream_refuses_unknown_games_with_a_4xx(env):
    client: TestClient = env["client"]
    for gid in ("nope", "\u00e9" * 70, "%ff"):
        r = client.get(f"/api/games/{urlquote(gid, safe='')}/events")
        assert r.status_code == 404 and r.json()["error"]
