"""Online play through the API (starlette's TestClient, SQLite): names, the lobby (open seats,
join once, withdraw), clocks (ranges, the snapshot's field, a flag with no one connected),
rematches, the public URL and path prefix, and which proxies' X-Forwarded-* headers count."""

from __future__ import annotations

import asyncio
import threading
import time
from typing import Any

import pytest

pytest.importorskip("httpx2", reason="starlette's TestClient needs httpx2 (test extra)")
from sse import Events
from starlette.testclient import TestClient
from webhelpers import Server, first_legal

from stonegarden.store import open_store
from stonegarden.web.app import create_app
from stonegarden.web.http import ApiError
from stonegarden.web.site import Site, check_forwarded_ips, trust_forwarded

SMALL = {"size": 2, "target": 2}
OPEN_SEAT = "open"


def create(client: TestClient, seats: list[str], status: int = 201,
           headers: dict[str, str] | None = None, **extra: Any) -> Any:
    r = client.post("/api/games", json={"game": "blooms", "params": SMALL, "seats": seats,
                                        **extra}, headers=headers)
    assert r.status_code == status, r.text
    return r.json()


def snapshot(client: TestClient, gid: str, secret: str | None = None) -> dict[str, Any]:
    r = client.get(f"/api/games/{gid}", headers={"X-Seat-Secret": secret} if secret else {})
    assert r.status_code == 200, r.text
    return r.json()


def test_an_open_seat_to_move_first_waits_for_a_person_not_an_agent(client):
    made = create(client, ["open", "human"], public=True)
    gid = made["id"]
    for _ in range(20):  # an agent's job for the seat would fail in its worker meanwhile
        snap = snapshot(client, gid)
        assert snap["thinking"] is None and not snap["paused"] and snap["notice"] == ""
        time.sleep(0.05)
    joined = client.post(f"/api/games/{gid}/join", json={"name": "Bo"}).json()
    r = client.post(f"/api/games/{gid}/move", json={"secret": joined["secret"], "move": "Rb2"})
    assert r.status_code == 200, r.text


def test_a_game_waiting_for_its_opponent_gives_its_creator_no_hint(client):
    made = create(client, ["human", "open"], public=True)
    gid, key = made["id"], made["secrets"]["1"]
    assert snapshot(client, gid, key)["hints_allowed"] is False
    r = client.post(f"/api/games/{gid}/hint", json={"secret": key})
    assert r.status_code == 403, r.text
    assert client.post(f"/api/games/{gid}/join", json={"name": "Bo"}).status_code == 201
    assert snapshot(client, gid, key)["hint"] is None


# -- names ------------------------------------------------------------------------------------
def test_the_creators_name_is_kept_and_shown(client):
    made = create(client, ["human", "human"], name="  Ana   María ", seat=2)
    snap = snapshot(client, made["id"])
    assert snap["names"] == {"1": None, "2": "Ana María"}
    listed = client.get(f"/api/games?ids={made['id']}").json()["games"][0]
    assert listed["names"] == {"1": None, "2": "Ana María"}


@pytest.mark.parametrize("name", ["", "   ", "x" * 25, "a\u202eb", "tab\there", 7, None, ["a"]])
def test_a_bad_name_is_refused_with_400(client, name):
    if name is None:  # no name at all is allowed: a null one is not a name
        create(client, ["human", "human"], name=None)
        return
    r = client.post("/api/games", json={"game": "blooms", "params": SMALL,
                                        "seats": ["human", "open"], "name": name})
    assert r.status_code == 400, r.text
    assert "name" in r.json()["error"]


def test_a_name_is_escaped_on_the_page(client):
    made = create(client, ["human", "open"], name="<b>x</b>", public=True)
    assert snapshot(client, made["id"])["names"]["1"] == "<b>x</b>"  # JSON keeps it as text
    page = client.get(f"/game/{made['id']}").text
    assert "<b>x</b>" not in page


# -- the lobby --------------------------------------------------------------------------------
def test_an_open_public_game_is_listed_joined_once_then_gone_from_the_lobby(client):
    made = create(client, ["human", "open"], name="Ana", public=True,
                  clock={"initial": 300, "increment": 3})
    gid = made["id"]
    assert made["seats"] == ["human", "open"]
    assert set(made["secrets"]) == {"1"} and set(made["links"]) == {"1", "spectator"}
    lobby = client.get("/api/lobby").json()["games"]
    entry = next(g for g in lobby if g["id"] == gid)
    assert entry["creator"] == "Ana" and entry["open_seat"] == 2
    assert entry["clock"] == {"initial": 300, "increment": 3}
    assert entry["game"] == "blooms" and entry["params"] == SMALL and 0 <= entry["age"] < 60
    # no one moves before the game starts
    r = client.post(f"/api/games/{gid}/move",
                    json={"secret": made["secrets"]["1"], "move": "Rb2"})
    assert r.status_code == 409
    joined = client.post(f"/api/games/{gid}/join", json={"name": "Bo"})
    assert joined.status_code == 201, joined.text
    j = joined.json()
    assert j["seat"] == 2 and j["link"] == f"/game/{gid}#key={j['secret']}"
    assert client.post(f"/api/games/{gid}/join", json={"name": "Cy"}).status_code == 409
    assert gid not in [g["id"] for g in client.get("/api/lobby").json()["games"]]
    snap = snapshot(client, gid, j["secret"])
    assert snap["names"] == {"1": "Ana", "2": "Bo"} and snap["open"] is None
    assert snap["seats"] == ["human", "human"] and snap["you"] == 2
    # now both play, each only for their own seat
    r = client.post(f"/api/games/{gid}/move", json={"secret": j["secret"], "move": "Rb2"})
    assert r.status_code == 409  # player 1 is to move
    r = client.post(f"/api/games/{gid}/move", json={"secret": made["secrets"]["1"],
                                                    "move": "Rb2"})
    assert r.status_code == 200, r.text


def test_a_private_open_game_is_joined_by_link_but_not_listed(client):
    made = create(client, ["open", "human"], name="Ana")
    assert made["id"] not in [g["id"] for g in client.get("/api/lobby").json()["games"]]
    r = client.post(f"/api/games/{made['id']}/join", json={"name": "Bo"})
    assert r.status_code == 201 and r.json()["seat"] == 1


@pytest.mark.parametrize("seats,extra", [
    (["open", "open"], {}),
    (["open", "random"], {}),
    (["human", "random"], {"clock": {"initial": 60, "increment": 0}}),
    (["human", "open"], {"seat": 2}),
    (["human", "open"], {"seat": True}),
    (["human", "human"], {"seat": 1.0}),  # equal to 1, but not a seat's number
    (["human", "human"], {"seat": 2.0, "name": "Ana"}),
    (["human", "open"], {"hints": True}),  # whoever joins has not agreed to hints
])
def test_impossible_seatings_are_refused_with_400(client, seats, extra):
    create(client, seats, status=400, **extra)


@pytest.mark.parametrize("body,status,said", [
    ({}, 400, "not given"), ({"name": ""}, 400, "not 0"), ({"name": "x" * 40}, 400, "not 40"),
    ({"name": 3}, 400, "not a number"), ({"name": None}, 400, "not given"),
    ({"name": ["Bo"]}, 400, "not an array"),
])
def test_a_join_without_a_good_name_is_refused(client, body, status, said):
    """In JSON's words: a join without a name was told "not NoneType"."""
    made = create(client, ["human", "open"], public=True)
    r = client.post(f"/api/games/{made['id']}/join", json=body)
    assert r.status_code == status
    assert r.json()["error"].startswith("'name' must be") and r.json()["error"].endswith(said)
    assert client.post(f"/api/games/{made['id']}/join", json={"name": "Bo"}).status_code == 201


def test_the_creator_withdraws_an_unjoined_game_and_no_one_else_can(client, db):
    made = create(client, ["human", "open"], public=True)
    gid = made["id"]
    assert client.post(f"/api/games/{gid}/withdraw", json={}).status_code == 403
    assert client.post(f"/api/games/{gid}/withdraw", json={"secret": "x" * 32}).status_code == 403
    r = client.post(f"/api/games/{gid}/withdraw", json={"secret": made["secrets"]["1"]})
    assert r.status_code == 200, r.text
    assert client.get(f"/api/games/{gid}").status_code == 404
    assert open_store(db).get(gid) is None
    assert gid not in [g["id"] for g in client.get("/api/lobby").json()["games"]]
    assert client.post(f"/api/games/{gid}/join", json={"name": "Bo"}).status_code == 404


def test_the_lobby_lists_the_newest_games_first_whatever_was_renamed(client):
    """Renaming a waiting game (a name chosen after its link was opened) once lifted it above
    newer ones: a creator could keep a game at the top by renaming it."""
    older = create(client, ["human", "open"], public=True)
    time.sleep(0.01)
    newer = create(client, ["human", "open"], public=True)
    r = client.post(f"/api/games/{older['id']}/name",
                    json={"secret": older["secrets"]["1"], "name": "Al"})
    assert r.status_code == 200, r.text
    listed = [g["id"] for g in client.get("/api/lobby").json()["games"]]
    assert listed.index(newer["id"]) < listed.index(older["id"])


def test_one_client_may_keep_only_a_few_games_waiting_in_the_lobby(db):
    """Else one client could bury everyone's open games under its own (the lobby shows the
    newest 200). A game joined or withdrawn no longer counts; private open games never do."""
    headers = {"X-Forwarded-For": "203.0.113.9"}
    with TestClient(create_app(db, workers=1, forwarded_allow_ips=["*"])) as c:
        made = [create(c, ["human", "open"], public=True) for _ in range(8)]
        r = c.post("/api/games", json={"game": "blooms", "params": SMALL,
                                       "seats": ["human", "open"], "public": True})
        assert r.status_code == 429 and r.headers["Retry-After"] == "60"
        assert "8 games waiting in the lobby" in r.json()["error"]
        create(c, ["human", "open"])  # not listed: not in the lobby
        create(c, ["human", "open"], public=True, headers=headers)  # another client
        gid, secret = made[0]["id"], made[0]["secrets"]["1"]
        assert c.post(f"/api/games/{gid}/withdraw", json={"secret": secret}).status_code == 200
        create(c, ["human", "open"], public=True)
        c.post(f"/api/games/{made[1]['id']}/join", json={"name": "Bo"})
        create(c, ["human", "open"], public=True)
        create(c, ["human", "open"], public=True, status=429)


def test_one_client_may_hold_only_a_few_joined_games_that_have_not_begun(db):
    """Else one client could take every open seat in the lobby at once. A game counts until
    it is over or both players have moved (one its joiner aborted or resigned, for an hour
    after); another client may still join."""
    creator = {"X-Forwarded-For": "203.0.113.9"}
    other = {"X-Forwarded-For": "203.0.113.77"}
    with TestClient(create_app(db, workers=1, forwarded_allow_ips=["*"])) as c:
        made = [create(c, ["human", "open"], public=True, headers=creator) for _ in range(8)]
        made += [create(c, ["human", "open"], headers=creator) for _ in range(3)]
        joined = [c.post(f"/api/games/{m['id']}/join", json={"name": "Bo"}) for m in made[:8]]
        assert [r.status_code for r in joined] == [201] * 8
        r = c.post(f"/api/games/{made[8]['id']}/join", json={"name": "Bo"})
        assert r.status_code == 429 and r.headers["Retry-After"] == "60", r.text
        # the way out costs nothing: abort (a resignation, which it said, is a loss)
        assert r.json()["error"] == ("you have joined 8 games that have not begun, the most one "
                                     "player may have: play a move in one, or abort one (no "
                                     "one wins or loses; a game you aborted or resigned before it began, or "
                                     "whose first move you did not make in time, counts for "
                                     "an hour)")
        assert OPEN_SEAT in snapshot(c, made[8]["id"])["seats"]  # the seat stays open
        r = c.post(f"/api/games/{made[8]['id']}/join", json={"name": "Cy"}, headers=other)
        assert r.status_code == 201, r.text
        # a game its joiner aborted still does: else one client joined and aborted every
        # open game in the lobby, eight at a time
        gid = made[2]["id"]
        r = c.post(f"/api/games/{gid}/abort", json={"secret": joined[2].json()["secret"]})
        assert r.status_code == 200, r.text
        assert c.post(f"/api/games/{made[9]['id']}/join", json={"name": "Bo"}).status_code == 429
        # as does one it resigned on its own first turn (the resignation is no move of its own)
        gid, key = made[3]["id"], made[3]["secrets"]["1"]
        assert c.post(f"/api/games/{gid}/move", json={"secret": key, "move": "Rb2"}).status_code == 200
        r = c.post(f"/api/games/{gid}/move",
                   json={"secret": joined[3].json()["secret"], "move": "resign"})
        assert r.status_code == 200 and snapshot(c, gid)["length"] == 2, r.text
        assert c.post(f"/api/games/{made[9]['id']}/join", json={"name": "Bo"}).status_code == 429
        # a game its creator aborted no longer counts
        gid, key = made[0]["id"], made[0]["secrets"]["1"]
        assert c.post(f"/api/games/{gid}/abort", json={"secret": key}).status_code == 200
        assert c.post(f"/api/games/{made[9]['id']}/join", json={"name": "Bo"}).status_code == 201
        # nor does one where both players have moved
        gid, key = made[1]["id"], made[1]["secrets"]["1"]
        assert c.post(f"/api/games/{gid}/move", json={"secret": key, "move": "Rb2"}).status_code == 200
        assert c.post(f"/api/games/{made[10]['id']}/join", json={"name": "Bo"}).status_code == 429
        key2 = joined[1].json()["secret"]
        r = c.post(f"/api/games/{gid}/move", json={"secret": key2, "move": "Ka1"})
        assert r.status_code == 200, r.text
        assert c.post(f"/api/games/{made[10]['id']}/join", json={"name": "Bo"}).status_code == 201


def test_the_lobby_limits_hold_for_requests_sent_all_at_once(db):
    """The count is taken before a request waits for the store: twenty games made, or twenty
    seats joined, by one client at once still give it only eight."""
    from concurrent.futures import ThreadPoolExecutor

    creator = {"X-Forwarded-For": "203.0.113.9"}
    body = {"game": "blooms", "params": SMALL, "seats": ["human", "open"], "public": True}
    with TestClient(create_app(db, workers=1, warm_up=False, forwarded_allow_ips=["*"])) as c:
        with ThreadPoolExecutor(20) as pool:
            made = list(pool.map(lambda _: c.post("/api/games", json=body), range(20)))
        assert sorted(r.status_code for r in made) == [201] * 8 + [429] * 12
        assert len(c.get("/api/lobby").json()["games"]) == 8
        ids = [create(c, ["human", "open"], headers=creator)["id"] for _ in range(20)]
        with ThreadPoolExecutor(20) as pool:
            joined = list(pool.map(
                lambda gid: c.post(f"/api/games/{gid}/join", json={"name": "Bo"}), ids))
        assert sorted(r.status_code for r in joined) == [201] * 8 + [429] * 12
        assert sum(OPEN_SEAT not in snapshot(c, gid)["seats"] for gid in ids) == 8


def test_a_joined_game_of_tumbling_dice_has_not_begun_until_its_joiner_moves(db):
    """Its rolls are moves no one made: the creator's first move and the roll after it
    leave the joiner's seat still counted, however many moves the game holds."""
    params = {"dice": 6, "tumbling": True}
    creator = {"X-Forwarded-For": "203.0.113.9"}
    with TestClient(create_app(db, workers=1, warm_up=False, forwarded_allow_ips=["*"])) as c:
        for n in range(9):
            r = c.post("/api/games", json={"game": "blobs", "params": params,
                                           "seats": ["open", "human"]}, headers=creator)
            gid, key = r.json()["id"], r.json()["secrets"]["2"]
            r = c.post(f"/api/games/{gid}/join", json={"name": "Bo"})
            if n == 8:
                assert r.status_code == 429, r.text
                assert "joined 8 games that have not begun" in r.json()["error"]
                break
            assert r.status_code == 201, r.text
            moves = [m["text"] for m in snapshot(c, gid)["moves"]]  # the first roll
            r = c.post(f"/api/games/{gid}/move", headers=creator,
                       json={"secret": key, "move": first_legal("blobs", params, moves)})
            assert r.status_code == 200, r.text
            assert snapshot(c, gid)["length"] == 3  # a roll, the creator's move, a roll


def test_a_withdrawal_sent_twice_at_once_is_not_told_someone_joined(db, monkeypatch):
    from concurrent.futures import ThreadPoolExecutor

    from stonegarden.store.sql import SQLStore

    withdraw = SQLStore.withdraw

    def slow_withdraw(self, game_id):  # both requests reach the store before either is done
        time.sleep(0.2)
        return withdraw(self, game_id)

    monkeypatch.setattr(SQLStore, "withdraw", slow_withdraw)
    with TestClient(create_app(db, workers=1, warm_up=False)) as c:
        made = create(c, ["human", "open"], public=True)
        body = {"secret": made["secrets"]["1"]}
        with ThreadPoolExecutor(2) as pool:
            answers = list(pool.map(
                lambda _: c.post(f"/api/games/{made['id']}/withdraw", json=body), range(2)))
    codes = sorted(r.status_code for r in answers)
    assert codes == [200, 404], [r.text for r in answers]
    assert "withdrawn" in max(answers, key=lambda r: r.status_code).json()["error"]


def test_one_move_sent_from_two_tabs_at_once_is_played_once_and_answered_to_both(db,
                                                                                   monkeypatch):
    # the second reached the game while the first was written: refused as "the game has moved
    # on", it told its player that the move they had played was not
    from concurrent.futures import ThreadPoolExecutor

    from stonegarden.store.sql import SQLStore

    append = SQLStore.append_move
    both_asked = threading.Barrier(2)

    def slow_append(self, *args, **kwargs):  # the other request is judged meanwhile
        time.sleep(0.3)
        return append(self, *args, **kwargs)

    monkeypatch.setattr(SQLStore, "append_move", slow_append)
    with TestClient(create_app(db, workers=1, warm_up=False)) as c:
        made = create(c, ["human", "human"], game="freego", params={"size": 5})
        gid, key = made["id"], made["secrets"]["1"]

        def send(_):
            both_asked.wait(10)
            return c.post(f"/api/games/{gid}/move", json={"secret": key, "move": "c3", "ply": 0})

        with ThreadPoolExecutor(2) as pool:
            answers = list(pool.map(send, range(2)))
        assert [r.status_code for r in answers] == [200, 200], [r.text for r in answers]
        assert [[m["text"] for m in r.json()["moves"]] for r in answers] == [["C3"], ["C3"]]
        assert c.get(f"/api/games/{gid}").json()["length"] == 1
    assert open_store(db).get(gid).moves == ("C3",)


def test_a_join_as_the_game_is_withdrawn_is_told_so(db, monkeypatch):
    from concurrent.futures import ThreadPoolExecutor

    from stonegarden.store.sql import SQLStore

    join = SQLStore.join
    joining_now, withdrawn = threading.Event(), threading.Event()

    def slow_join(self, *args):  # the withdrawal is written meanwhile (fixed pauses raced it)
        joining_now.set()
        assert withdrawn.wait(30)
        return join(self, *args)

    monkeypatch.setattr(SQLStore, "join", slow_join)
    with TestClient(create_app(db, workers=1, warm_up=False)) as c:
        made = create(c, ["human", "open"], public=True)
        gid = made["id"]
        with ThreadPoolExecutor(1) as pool:
            joining = pool.submit(c.post, f"/api/games/{gid}/join", json={"name": "Bo"})
            assert joining_now.wait(30)
            r = c.post(f"/api/games/{gid}/withdraw", json={"secret": made["secrets"]["1"]})
            withdrawn.set()
            assert r.status_code == 200, r.text
            late = joining.result()
    assert late.status_code == 404 and "withdrawn" in late.json()["error"], late.text


def test_a_joined_game_cannot_be_withdrawn(client):
    made = create(client, ["human", "open"], public=True)
    gid = made["id"]
    client.post(f"/api/games/{gid}/join", json={"name": "Bo"})
    r = client.post(f"/api/games/{gid}/withdraw", json={"secret": made["secrets"]["1"]})
    assert r.status_code == 409


def test_a_seat_without_a_name_is_named_by_its_holder_only(client):
    made = create(client, ["human", "human"])
    gid = made["id"]
    assert client.post(f"/api/games/{gid}/name", json={"name": "Bo"}).status_code == 403
    r = client.post(f"/api/games/{gid}/name", json={"secret": made["secrets"]["2"], "name": "Bo"})
    assert r.status_code == 200 and r.json()["names"] == {"1": None, "2": "Bo"}
    r = client.post(f"/api/games/{gid}/name", json={"secret": made["secrets"]["1"], "name": ""})
    assert r.status_code == 400


def test_an_agents_seat_takes_no_persons_name(client):
    """Spectators would read "Magnus" for the computer (the page of the agent seat's link named
    it after whoever opened it)."""
    made = create(client, ["human", "random"])
    gid = made["id"]
    r = client.post(f"/api/games/{gid}/name", json={"secret": made["secrets"]["2"], "name": "Mo"})
    assert r.status_code == 409 and "played by the agent 'random'" in r.json()["error"], r.text
    assert snapshot(client, gid)["names"] == {"1": None, "2": None}


def test_a_game_over_keeps_the_names_it_was_played_under(client):
    """The loser renamed herself after her resignation: the record, the page and every list
    then named someone else as the one who lost."""
    made = create(client, ["human", "human"], name="Ana")
    gid, k1, k2 = made["id"], made["secrets"]["1"], made["secrets"]["2"]
    assert client.post(f"/api/games/{gid}/name", json={"secret": k2, "name": "Bo"}).is_success
    assert client.post(f"/api/games/{gid}/move", json={"secret": k1, "move": "resign"}).is_success
    r = client.post(f"/api/games/{gid}/name", json={"secret": k1, "name": "Zed"})
    assert r.status_code == 409 and "over" in r.json()["error"], r.text
    assert snapshot(client, gid)["names"] == {"1": "Ana", "2": "Bo"}
    assert client.get(f"/api/games/{gid}/record").json()["players"] == {"1": "Ana", "2": "Bo"}


# -- clocks -----------------------------------------------------------------------------------
@pytest.mark.parametrize("clock", [
    {"initial": 5, "increment": 0}, {"initial": 99999, "increment": 0},
    {"initial": 60, "increment": -1}, {"initial": 60, "increment": 181},
    {"increment": 5}, {"days_per_move": 0}, {"days_per_move": 15}, {"days_per_move": 1.5},
    {"days_per_move": 2, "initial": 60}, {"initial": "60", "increment": 0},
    {"initial": True, "increment": 0}, [60, 0],
    "blitz", {},
])
def test_a_clock_out_of_range_is_refused_with_400(client, clock):
    r = client.post("/api/games", json={"game": "blooms", "params": SMALL,
                                        "seats": ["human", "human"], "clock": clock})
    assert r.status_code == 400, r.text
    assert "clock" in r.json()["error"] or "initial" in r.json()["error"] \
        or "days" in r.json()["error"] or "increment" in r.json()["error"]
    if not isinstance(clock, dict):  # in JSON's words, not Python's ("not list")
        assert r.json()["error"].endswith("not an array" if isinstance(clock, list)
                                          else "not a string")


@pytest.mark.parametrize("raw", [b'{"initial": 1e999}', b'{"initial": NaN}',
                                 b'{"initial": 60, "increment": -0.0001}'])
def test_a_clock_of_no_finite_number_is_refused_with_400(client, raw):
    body = b'{"game": "blooms", "seats": ["human", "human"], "clock": ' + raw + b"}"
    r = client.post("/api/games", content=body, headers={"Content-Type": "application/json"})
    assert r.status_code == 400, r.text


def test_the_snapshot_carries_the_clock_and_it_runs_after_each_players_first_move(client):
    made = create(client, ["human", "human"], clock={"initial": 600, "increment": 5})
    gid, k1, k2 = made["id"], made["secrets"]["1"], made["secrets"]["2"]
    c = snapshot(client, gid)["clock"]
    assert (c["1"], c["2"], c["running"]) == (600, 600, None)
    client.post(f"/api/games/{gid}/move", json={"secret": k1, "move": "Rb2"})
    c = snapshot(client, gid)["clock"]
    assert c["running"] is None and c["1"] == 605  # player 2 has not moved yet: no clock runs
    client.post(f"/api/games/{gid}/move", json={"secret": k2, "move": "Ka1"})
    c = snapshot(client, gid)["clock"]
    assert c["running"] == 1 and c["2"] == 605 and 599 <= c["1"] <= 605


def test_a_resignation_on_your_turn_adds_no_increment_to_your_clock(client):
    # the last move ends the game: its increment would show the loser with more time than
    # they had (70 s of 60 + 10 + 10 here)
    made = client.post("/api/games", json={
        "game": "freego", "params": {"size": 5}, "seats": ["human", "human"],
        "clock": {"initial": 60, "increment": 10}}).json()
    gid, k1, k2 = made["id"], made["secrets"]["1"], made["secrets"]["2"]
    for key, move in ((k1, "C3"), (k2, "D4"), (k1, "resign")):
        assert client.post(f"/api/games/{gid}/move", json={"secret": key, "move": move}).is_success
    snap = snapshot(client, gid)
    assert snap["terminal"] and snap["winner"] == 2
    assert 68 <= snap["clock"]["1"] <= 70 and snap["clock"]["2"] == 70


def started_clock_game(client: TestClient) -> tuple[str, str]:
    """A game on a 10 s clock in which both players have moved (player 1's clock runs):
    its id and player 1's secret."""
    made = create(client, ["human", "human"], clock={"initial": 10, "increment": 0})
    gid, k1, k2 = made["id"], made["secrets"]["1"], made["secrets"]["2"]
    assert client.post(f"/api/games/{gid}/move", json={"secret": k1, "move": "Rb2"}).is_success
    assert client.post(f"/api/games/{gid}/move", json={"secret": k2, "move": "Ka1"}).is_success
    return gid, k1


def ended_on_time(db: Any, gid: str) -> bool:
    """Whether the stored game ends on time within 30 s, player 1 losing, with no request
    made meanwhile: only a server's keeper can end it."""
    deadline = time.time() + 30
    row = open_store(db).get(gid)
    while row is not None and row.result is None and time.time() < deadline:
        time.sleep(0.25)
        row = open_store(db).get(gid)
    return row is not None and row.result == {"winner": 2, "reason": "time", "scores": None}


@pytest.mark.slow
def test_a_clock_flags_with_no_one_connected_and_the_opponent_wins_on_time(client, db):
    gid, k1 = started_clock_game(client)
    assert ended_on_time(db, gid)
    snap = snapshot(client, gid, k1)
    assert snap["terminal"] and snap["winner"] == 2 and snap["reason"] == "time"
    assert snap["clock"]["1"] == 0 and snap["clock"]["running"] is None
    assert snap["outcome"]["reason"] == "time"
    record = client.get(f"/api/games/{gid}/record").json()  # the rules did not end it
    assert "result" not in record and record["meta"]["ended"] == {"winner": 2, "reason": "time"}
    r = client.post(f"/api/games/{gid}/move", json={"secret": k1, "move": "Ra1"})
    assert r.status_code == 409
    assert len(open_store(db).get(gid).moves) == 2


def test_a_person_may_resign_on_the_opponents_turn_so_no_game_waits_for_ever(client, db):
    # Ana made the game and moves first; Bo joins, but Ana never comes back (her clock runs
    # only from her first move): Bo, who could not resign on her turn, was held for ever
    made = client.post("/api/games", json={
        "game": "freego", "params": {"size": 5}, "seats": ["human", "open"], "public": True,
        "name": "Ana", "clock": {"initial": 60, "increment": 5}}).json()
    gid, ana = made["id"], made["secrets"]["1"]
    bo = client.post(f"/api/games/{gid}/join", json={"name": "Bo"}).json()["secret"]
    snap = snapshot(client, gid, bo)
    assert snap["can_resign"] and not snap["can_play"] and snap["to_move"] == 1
    assert not snapshot(client, gid)["can_resign"]  # a spectator's page offers nothing
    r = client.post(f"/api/games/{gid}/move", json={"secret": bo, "move": "resign", "ply": 0})
    assert r.status_code == 200, r.text
    for secret, seat in ((ana, 1), (bo, 2)):
        snap = snapshot(client, gid, secret)
        assert snap["you"] == seat
        assert snap["terminal"] and snap["winner"] == 1 and snap["reason"] == "resign"
        assert snap["outcome"] == {"winner": 1, "reason": "resign", "detail": "White resigned"}
        assert not snap["can_resign"] and snap["clock"]["running"] is None
    assert snap["clock"]["1"] == snap["clock"]["2"] == 60  # no one's time was charged
    record = client.get(f"/api/games/{gid}/record").json()
    assert record["moves"] == [] and record["meta"]["ended"] == {"winner": 1, "reason": "resign"}
    assert "RE[B+R]" in client.get(f"/api/games/{gid}/record.sgf").text
    assert open_store(db).get(gid).result == {"winner": 1, "reason": "resign", "scores": None}
    for secret, move in ((ana, "C3"), (bo, "resign"), (ana, "resign")):
        r = client.post(f"/api/games/{gid}/move", json={"secret": secret, "move": move})
        assert r.status_code == 409, r.text
    assert client.post(f"/api/games/{gid}/rematch", json={"secret": bo}).status_code == 201


def test_against_an_agent_a_resignation_waits_for_your_turn(client):
    made = client.post("/api/games", json={"game": "freego", "params": {"size": 5},
                                           "seats": ["human", "mcts:time=5"]}).json()
    gid, key = made["id"], made["secrets"]["1"]
    assert client.post(f"/api/games/{gid}/move",
                       json={"secret": key, "move": "C3"}).status_code == 200
    assert client.post(f"/api/games/{gid}/cancel", json={"secret": key}).status_code == 200
    snap = snapshot(client, gid, key)  # the agent is to move, paused
    assert snap["to_move"] == 2 and snap["paused"] and not snap["can_resign"]
    r = client.post(f"/api/games/{gid}/move", json={"secret": key, "move": "resign"})
    assert r.status_code == 409 and "turn" in r.json()["error"]


def test_an_sgf_made_before_the_clock_ran_out_is_not_served_after_it(tmp_path):
    """The SGF of a position is made once and kept; a game lost on time at that position
    ends without a move, and its SGF then says so (RE[W+T])."""
    import asyncio

    from stonegarden.jobs import JobPool
    from stonegarden.web import clock_keeper
    from stonegarden.web.service import GameService

    async def main() -> None:
        store = open_store(tmp_path / "g.db")
        svc = GameService(store, JobPool(1))  # never started: a game of two people needs none
        live, keys = await svc.create("freego", {"size": 5}, ["human", "human"], "c",
                                      clock={"initial": 10, "increment": 0})
        await svc.play(live, keys["1"], "C3", client="c")
        await svc.play(live, keys["2"], "D4", client="c")
        assert "RE[" not in await svc.sgf(live)  # a spectator's download mid-game
        assert await clock_keeper.flag(svc, live, time.time() + 60)  # player 1's time runs out
        assert "RE[W+T]" in await svc.sgf(live)
        store.close()

    asyncio.run(main())


@pytest.mark.slow
def test_a_damaged_game_out_of_time_does_not_keep_the_keeper_from_the_others(db):
    """A game whose row no longer replays is that game's trouble alone: the keeper still ends
    the other games whose time runs out (the damaged one is due first, and stays due)."""
    import sqlite3

    with TestClient(create_app(db, workers=1, warm_up=False)) as client:
        damaged, _ = started_clock_game(client)
        healthy, _ = started_clock_game(client)
    with sqlite3.connect(db) as con:  # its first move no longer parses; it was due long ago
        con.execute("UPDATE moves SET text = 'Rz9' WHERE game_id = ? AND ply = 0", (damaged,))
        con.execute("UPDATE games SET deadline = 1.0 WHERE id = ?", (damaged,))
    con.close()
    with TestClient(create_app(db, workers=1, warm_up=False)) as client:
        assert ended_on_time(db, healthy)
        assert open_store(db).get(damaged).result is None
        assert client.get(f"/api/games/{damaged}").status_code == 503


# -- rematch ----------------------------------------------------------------------------------
def test_a_rematch_swaps_the_seats_and_is_offered_to_the_opponent(client):
    made = create(client, ["human", "human"], name="Ana", clock={"days_per_move": 2})
    gid, k1, k2 = made["id"], made["secrets"]["1"], made["secrets"]["2"]
    client.post(f"/api/games/{gid}/name", json={"secret": k2, "name": "Bo"})
    r = client.post(f"/api/games/{gid}/rematch", json={"secret": k1})
    assert r.status_code == 409  # the game goes on
    assert client.post(f"/api/games/{gid}/move", json={"secret": k1, "move": "resign"}).is_success
    assert client.post(f"/api/games/{gid}/rematch", json={}).status_code == 403
    r = client.post(f"/api/games/{gid}/rematch", json={"secret": k1})
    assert r.status_code == 201, r.text
    first = r.json()
    assert first["seat"] == 2 and first["id"] != gid  # Ana played 1, now plays 2
    assert snapshot(client, gid)["rematch"] == first["id"]  # the opponent's page is told
    r = client.post(f"/api/games/{gid}/rematch", json={"secret": k2})
    assert r.status_code == 200  # the same game, not a second one
    second = r.json()
    assert second["id"] == first["id"] and second["seat"] == 1
    assert second["secret"] != first["secret"]
    r = client.post(f"/api/games/{gid}/rematch", json={"secret": k1})  # a retry of the first
    assert r.status_code == 200 and r.json() == first
    snap = snapshot(client, first["id"], first["secret"])
    assert snap["names"] == {"1": "Bo", "2": "Ana"} and snap["you"] == 2
    assert snap["clock"]["days_per_move"] == 2 and snap["length"] == 0


def test_an_aborted_rematch_gives_way_to_a_new_one(client):
    made = create(client, ["human", "human"], name="Ana", clock={"initial": 60})
    gid, k1, k2 = made["id"], made["secrets"]["1"], made["secrets"]["2"]
    assert client.post(f"/api/games/{gid}/move", json={"secret": k1, "move": "resign"}).is_success
    dead = client.post(f"/api/games/{gid}/rematch", json={"secret": k2}).json()
    r = client.post(f"/api/games/{dead['id']}/abort", json={"secret": dead["secret"]})
    assert r.status_code == 200 and r.json()["reason"] == "aborted"
    # the pages of the old game no longer send its players to a game that never started,
    # and say what became of the offer: Bo (seat 2 here, seat 1 of the rematch) aborted it
    snap = snapshot(client, gid, k1)
    assert snap["rematch"] is None
    assert snap["rematch_aborted"] == {"by": 2, "unopened": None, "late": None}
    r = client.post(f"/api/games/{gid}/rematch", json={"secret": k1})
    assert r.status_code == 201, r.text  # a new rematch, in place of the aborted one
    again = r.json()
    assert again["id"] != dead["id"] and again["seat"] == 2
    assert snapshot(client, gid)["rematch"] == again["id"]
    r = client.post(f"/api/games/{gid}/rematch", json={"secret": k2})
    assert r.status_code == 200 and r.json()["id"] == again["id"] and r.json()["seat"] == 1
    assert snapshot(client, again["id"], again["secret"])["over"] is False
    assert snapshot(client, gid, k1)["rematch_aborted"] is None  # a rematch on offer again


def test_a_rematch_resigned_before_the_opponent_came_is_not_offered_to_play(client):
    # Ana offered a rematch and resigned it at once: Bo's page still offered it to play, and
    # took him to a finished game
    made = create(client, ["human", "human"], name="Ana")
    gid, k1, k2 = made["id"], made["secrets"]["1"], made["secrets"]["2"]
    assert client.post(f"/api/games/{gid}/move", json={"secret": k1, "move": "resign"}).is_success
    offered = client.post(f"/api/games/{gid}/rematch", json={"secret": k1}).json()
    assert snapshot(client, gid, k2)["rematch_over"] is False
    r = client.post(f"/api/games/{offered['id']}/move",
                    json={"secret": offered["secret"], "move": "resign"})
    assert r.status_code == 200, r.text
    snap = snapshot(client, gid, k2)
    assert snap["rematch"] == offered["id"] and snap["rematch_over"] is True


def test_a_lobby_stream_tells_a_burst_of_changes_at_most_once_a_second(tmp_path):
    # each change of the lobby made every open lobby read it anew at once: a burst of games
    # listed (or a seat renamed in a loop, as was allowed) had each of them read it tens of
    # times a second, the cost of one request times the lobby's viewers
    server = Server(tmp_path / "games.db").start()
    try:
        events = Events(server.port, "/api/lobby/events")
        events.update()  # the one a stream opens with
        began = time.monotonic()
        for i in range(30):  # thirty people list a game each
            status, _ = server.request("POST", "/api/games", {
                "game": "freego", "params": {"size": 5}, "seats": ["human", "open"],
                "public": True, "name": f"Ana {i}"}, source=f"127.0.0.{i + 2}")
            assert status == 201
        told: list[int] = []
        # until the last change is told (a pause of 1.5 s taken for the end raced a loaded
        # machine's next update, a second after the one before)
        while not told or told[-1] < 30:
            told.append(events.update(timeout=15))
        seconds = time.monotonic() - began
        assert told[-1] == 30  # the last change is told
        assert len(told) <= seconds + 1, (told, seconds)
        events.close()
    finally:
        server.stop()


def test_a_named_seat_keeps_its_name(client):
    # a seat renamed in a loop had every page of the game read it again at each name (and
    # could take the opponent's name in the middle of the game)
    made = create(client, ["human", "human"], name="Ana")
    gid, k1, k2 = made["id"], made["secrets"]["1"], made["secrets"]["2"]
    assert client.post(f"/api/games/{gid}/name", json={"secret": k2, "name": "Bo"}).is_success
    r = client.post(f"/api/games/{gid}/name", json={"secret": k1, "name": "Bo"})
    assert r.status_code == 409 and "already named 'Ana'" in r.json()["error"], r.text
    r = client.post(f"/api/games/{gid}/name", json={"secret": k2, "name": "Bo"})  # a retry
    assert r.status_code == 200, r.text
    assert snapshot(client, gid)["names"] == {"1": "Ana", "2": "Bo"}


# -- the public URL and the path prefix -------------------------------------------------------
def test_links_start_with_the_public_url_and_the_prefix_is_served(db):
    site = Site.parse("https://games.example.org/sg/")
    with TestClient(create_app(db, workers=1, site=site)) as c:
        r = c.post("/sg/api/games", json={"game": "blooms", "params": SMALL,
                                          "seats": ["human", "open"], "public": True})
        assert r.status_code == 201, r.text
        made = r.json()
        gid = made["id"]
        assert made["links"]["1"].startswith(f"https://games.example.org/sg/game/{gid}#key=")
        assert made["links"]["spectator"] == f"https://games.example.org/sg/game/{gid}"
        lobby = c.get("/sg/api/lobby").json()["games"]
        assert lobby[0]["link"] == f"https://games.example.org/sg/game/{gid}"
        joined = c.post(f"/sg/api/games/{gid}/join", json={"name": "Bo"}).json()
        assert joined["link"].startswith("https://games.example.org/sg/game/")
        page = c.get(f"/sg/game/{gid}").text
        assert 'src="/sg/static/game/main.js"' in page and 'data-base="/sg"' in page
        assert 'href="/static/' not in page and 'src="/static/' not in page
        # a proxy that strips the prefix: the same routes without it
        assert c.get(f"/api/games/{gid}").status_code == 200
        assert c.get("/sg/static/common.js").status_code == 200


def test_a_path_with_a_trailing_slash_is_redirected_under_the_prefix(db):
    """``/sg/games/`` was redirected to ``http://testserver/games``: the server's own address,
    without the prefix, which a proxy serving only ``/sg/`` does not pass on."""
    site = Site.parse("https://games.example.org/sg")
    with TestClient(create_app(db, workers=1, warm_up=False, site=site)) as c:
        for path, target in (("/sg/games/", "/sg/games"), ("/sg/api/meta/?x=1", "/sg/api/meta?x=1"),
                             ("/api/lobby/", "/sg/api/lobby")):
            r = c.get(path, follow_redirects=False)
            assert r.status_code == 307 and r.headers["location"] == target, (path, r.headers)
        r = c.post("/sg/api/games/", json={}, follow_redirects=False)
        assert r.status_code == 307 and r.headers["location"] == "/sg/api/games"
        r = c.get("/sg/api/nosuch/", follow_redirects=False)
        assert r.status_code == 404
        assert r.json() == {"error": "no API path '/api/nosuch/': docs/web.md lists them"}


def test_a_loopback_server_answers_to_its_ipv6_public_host_as_browsers_send_it(db):
    from stonegarden.cli.serve import loopback_hosts

    site = Site.parse("https://[2001:db8::5]/sg")
    hosts = loopback_hosts("127.0.0.1", site)
    with TestClient(create_app(db, workers=1, warm_up=False, site=site,
                               allowed_hosts=hosts)) as c:
        assert c.get("/sg/api/meta", headers={"Host": "[2001:db8::5]"}).status_code == 200
        assert c.get("/sg/api/meta", headers={"Host": "evil.example"}).status_code == 400


@pytest.mark.parametrize("url", ["ftp://x/y", "games.example.org", "https://h/a?b=1",
                                 "https://h/a#b", "https://h/a b", "https://"])
def test_a_bad_public_url_is_refused(url):
    from stonegarden.errors import ParameterError

    with pytest.raises(ParameterError):
        Site.parse(url)


# -- trusted proxies --------------------------------------------------------------------------
def test_forwarded_headers_count_only_from_trusted_proxies(db):
    headers = {"X-Forwarded-For": "203.0.113.9", "X-Forwarded-Proto": "https"}
    with TestClient(create_app(db, workers=1)) as c:  # no proxy trusted
        assert c.get("/api/meta", headers=headers).json()["client"] == "testclient"
    with TestClient(create_app(db, workers=1, forwarded_allow_ips=["10.0.0.1"])) as c:
        assert c.get("/api/meta", headers=headers).json()["client"] == "testclient"
    with TestClient(create_app(db, workers=1, forwarded_allow_ips=["*"])) as c:
        assert c.get("/api/meta", headers=headers).json()["client"] == "203.0.113.9"


def test_an_ipv6_client_counts_as_its_64_network(db):
    """A host given a /64 has more addresses than any limit: each is not another client."""
    with TestClient(create_app(db, workers=1, forwarded_allow_ips=["*"])) as c:
        def seen(address: str) -> str:
            return c.get("/api/meta", headers={"X-Forwarded-For": address}).json()["client"]

        assert seen("2001:db8:1:2::7") == seen("2001:db8:1:2:ffff::1") == "2001:db8:1:2::/64"
        assert seen("2001:db8:1:3::7") == "2001:db8:1:3::/64"
        assert seen("::ffff:203.0.113.9") == seen("203.0.113.9") == "203.0.113.9"


def test_a_client_cannot_choose_its_address_through_a_proxy_trusted_as_any_peer(db):
    # nginx's $proxy_add_x_forwarded_for adds the address it saw after the one the client sent
    spoofed = {"X-Forwarded-For": "198.51.100.7, 203.0.113.9"}
    with TestClient(create_app(db, workers=1, forwarded_allow_ips=["*"])) as c:
        assert c.get("/api/meta", headers=spoofed).json()["client"] == "203.0.113.9"


def client_seen(option: str, peer: str, forwarded: str) -> str:
    """The client address the app sees of a request from ``peer`` with ``X-Forwarded-For``
    ``forwarded``, under ``--forwarded-allow-ips option``."""
    seen: dict[str, Any] = {}

    async def app(scope: Any, receive: Any, send: Any) -> None:
        seen["client"] = scope["client"][0]

    scope = {"type": "http", "client": (peer, 5000),
             "headers": [(b"x-forwarded-for", forwarded.encode())]}
    asyncio.run(trust_forwarded(app, check_forwarded_ips(option))(scope, None, None))
    return str(seen["client"])


@pytest.mark.parametrize("option", [
    "10.1.2.3/8",  # a network written with host bits: the network it names
    "192.0.2.1, *",  # "*" among others: every peer
])
def test_a_proxy_in_the_trusted_networks_is_believed(option):
    assert client_seen(option, "10.9.9.9", "203.0.113.9") == "203.0.113.9"


# -- the "my games" stream --------------------------------------------------------------------
@pytest.mark.parametrize("ids", ["", ",,", ",".join(f"g{i}" for i in range(101)), "a/b",
                                 "x" * 41, "é"])
def test_a_many_games_stream_needs_1_to_100_game_ids(client, ids):
    r = client.get("/api/events", params={"ids": ids})
    assert r.status_code == 400, r.text


def test_the_lobby_and_my_games_pages_are_served(client):
    for path in ("/lobby", "/my-games"):
        r = client.get(path)
        assert r.status_code == 200 and 'id="name-form"' in r.text


def test_the_hub_keeps_versions_only_of_watched_games():
    """Every change another process makes reaches the hub, for games held here or not: an
    unwatched game's changes must leave nothing behind."""
    import asyncio

    from stonegarden.web.live import Hub

    async def main() -> None:
        hub = Hub()
        for i in range(1000):
            hub.publish(f"g{i}")
        assert hub.versions == {}
        q = hub.subscribe("g1")
        hub.publish("g1")
        hub.publish("g1")
        assert q.get_nowait() == 2  # the latest version only
        hub.unsubscribe("g1", q)
        assert hub.versions == {} and hub.listeners == {}

    asyncio.run(main())


def test_a_flood_of_changes_from_elsewhere_reads_a_held_game_once_or_twice(tmp_path):
    """Each change another process makes used to queue a read of the whole game: a burst of
    renames left thousands queued, and this process's own moves waited behind them."""
    import asyncio

    from stonegarden.jobs import JobPool
    from stonegarden.web.service import GameService

    async def main() -> None:
        store = open_store(tmp_path / "g.db")
        svc = GameService(store, JobPool(1))  # never started: a game of two people needs none
        live, _ = await svc.create("blooms", SMALL, ["human", "human"], "c")
        reads = []
        get = store.get
        store.get = lambda gid: reads.append(gid) or get(gid)  # type: ignore[method-assign]
        for _ in range(500):
            svc.elsewhere.changed("name", live.id)
        while svc._background:
            await asyncio.sleep(0.01)
        assert 1 <= len(reads) <= 2 and svc.live[live.id] is live
        store.close()

    asyncio.run(main())


def test_a_move_sent_again_to_a_process_that_has_not_heard_of_it_is_answered_as_played(
        tmp_path):
    """A proxy sends a move again to another process when its connection to the first broke
    after the move was stored; the other process, its notice of the move not come yet, wrote
    it again, was refused by the store, and answered 409 "the game has moved on"."""
    import asyncio

    from stonegarden.jobs import JobPool
    from stonegarden.web.service import GameService

    async def main() -> None:
        store = open_store(tmp_path / "g.db")
        first = GameService(store, JobPool(1))  # never started: a game of two people needs none
        other = GameService(store, JobPool(1))  # hears of no change: its notice never comes
        live, keys = await first.create("freego", {"size": 5}, ["human", "human"], "c")
        behind = await other.load(live.id)
        await first.play(live, keys["1"], "c3", 0, "c")
        answered = await other.play(behind, keys["1"], "c3", 0, "c")
        assert list(answered.moves) == ["C3"]
        assert store.get(live.id).moves == ("C3",)
        # another move at that ply is still out of date there
        with pytest.raises(ApiError, match="moved on"):
            await other.play(await other.load(live.id), keys["1"], "d4", 0, "c")
        store.close()

    asyncio.run(main())


def test_a_game_changed_elsewhere_as_it_is_read_is_still_answered(tmp_path):
    """Another process's move reaches this one while it reads a game whose agent is to move
    (the claim to think is being written): the game is let go here, and the request that read
    it is answered with what it read, not with an internal error."""
    import asyncio

    from stonegarden.jobs import JobPool
    from stonegarden.web.service import GameService

    async def main() -> None:
        store = open_store(tmp_path / "g.db")
        svc = GameService(store, JobPool(1))  # never started: the claim is not this process's
        live, _ = await svc.create("blooms", SMALL, ["random", "human"], "c")
        svc.invalidate(live.id)  # not in memory: the next request reads it
        loop = asyncio.get_running_loop()
        claim = store.claim_thinking

        def claim_as_a_move_lands(*args: Any) -> Any:
            heard = threading.Event()

            def move_lands() -> None:
                svc.elsewhere.changed("move", live.id)
                heard.set()

            loop.call_soon_threadsafe(move_lands)
            # the claim is written once the change is heard (a fixed 0.1 s raced a loaded
            # machine's event loop)
            assert heard.wait(30)
            return claim(*args)

        store.claim_thinking = claim_as_a_move_lands  # type: ignore[method-assign]
        read = await svc.load(live.id, "c")
        assert read.id == live.id and live.id not in svc.live
        store.close()

    asyncio.run(main())


def test_watched_games_do_not_pin_memory_beyond_the_bound(tmp_path):
    """Streams over many game ids (32 a client, 100 ids each) must not hold every game they
    watch in memory: the bound on games held counts watched ones too."""
    import asyncio

    from stonegarden.jobs import JobPool
    from stonegarden.web.service import Budgets, GameService

    async def main() -> None:
        store = open_store(tmp_path / "g.db")
        svc = GameService(store, JobPool(1), Budgets(live_games=4))
        ids = [(await svc.create("blooms", SMALL, ["human", "human"], "c"))[0].id
               for _ in range(12)]
        for gid in ids:
            svc.hub.subscribe(gid)
            await svc.load(gid)
        assert len(svc.live) == 4
        assert (await svc.load(ids[0])).id == ids[0]  # read again when asked for
        store.close()

    asyncio.run(main())


def test_a_listed_games_time_control_is_given_in_words(client):
    # "my games" shows it as the lobby does: 90 s is "1 min 30 s", not a rounded "2 min"
    fischer = create(client, ["human", "human"], clock={"initial": 90, "increment": 2})
    days = create(client, ["human", "human"], clock={"days_per_move": 3})
    none = create(client, ["human", "human"])
    ids = ",".join(g["id"] for g in (fischer, days, none))
    listed = {g["id"]: g["clock_text"] for g in client.get(f"/api/games?ids={ids}").json()["games"]}
    assert listed == {fischer["id"]: "1 min 30 s + 2 s", days["id"]: "3 days a move",
                      none["id"]: None}


def test_a_game_its_joiner_ended_before_it_began_counts_against_them_for_an_hour_only(tmp_path):
    """Aborted or resigned by its joiner (seat 2 here): else one client joined every game in
    the lobby and ended each at once."""
    from stonegarden.store import GameSummary
    from stonegarden.web.lobby import ENDED_COUNTS, _not_begun

    def ended(result: dict[str, Any], at: float, moves: int = 0) -> GameSummary:
        return GameSummary("g", "blooms", {}, ("human", "human"), moves,
                           {"scores": None, **result}, 0.0, at, True)

    store = open_store(tmp_path / "games.db")
    counts = _not_begun(store, {"g": 2}, now=10_000.0)
    lately, long_ago = 10_000.0 - ENDED_COUNTS + 1, 10_000.0 - ENDED_COUNTS - 1
    by_joiner = {"winner": None, "reason": "aborted", "by": 2}
    assert counts(ended(by_joiner, lately))
    assert not counts(ended(by_joiner, long_ago))
    assert not counts(ended({**by_joiner, "by": 1}, lately))      # by its creator
    assert not counts(ended({**by_joiner, "by": None}, lately))   # no first move in time
    resigned = {"winner": 1, "reason": "resign"}
    assert counts(ended(resigned, lately))
    assert not counts(ended(resigned, long_ago))
    assert not counts(ended({**resigned, "winner": 2}, lately))  # its creator resigned
    assert not counts(ended({"winner": 1, "reason": "time"}, lately))


def test_a_move_sent_as_the_opponent_resigns_is_told_the_game_is_over(db, monkeypatch):
    # the move passed its checks while the resignation was being stored, and waited for it:
    # it was refused as "the game has moved on: ply 2, not 2", a position no one had left
    from concurrent.futures import ThreadPoolExecutor

    from stonegarden.store.sql import SQLStore
    from stonegarden.web.service import GameService

    flag, append_move = SQLStore.flag, GameService.append_move
    resigning, moving = threading.Event(), threading.Event()

    def slow_flag(self, *args):  # the resignation is stored once the move waits behind it
        resigning.set()
        assert moving.wait(30)
        return flag(self, *args)

    async def spied_append_move(self, *args, **kwargs):
        moving.set()  # the move has passed its checks: it now waits for the game's lock
        return await append_move(self, *args, **kwargs)

    monkeypatch.setattr(SQLStore, "flag", slow_flag)
    monkeypatch.setattr(GameService, "append_move", spied_append_move)
    with TestClient(create_app(db, workers=1, warm_up=False)) as c:
        made = c.post("/api/games", json={
            "game": "freego", "params": {"size": 5}, "seats": ["human", "human"]}).json()
        gid, k1, k2 = made["id"], made["secrets"]["1"], made["secrets"]["2"]
        for key, move in ((k1, "C3"), (k2, "D4")):
            assert c.post(f"/api/games/{gid}/move", json={"secret": key, "move": move}).is_success
        with ThreadPoolExecutor(1) as pool:
            resign = pool.submit(c.post, f"/api/games/{gid}/move",
                                 json={"secret": k2, "move": "resign"})
            assert resigning.wait(30)
            late = c.post(f"/api/games/{gid}/move", json={"secret": k1, "move": "B2", "ply": 2})
            assert resign.result().is_success
    assert late.status_code == 409 and late.json()["error"] == "the game is over", late.text


@pytest.mark.parametrize("sent", ["C3", " c3 ", "resign"])
def test_a_move_sent_again_after_its_answer_was_lost_is_answered_as_played(client, sent):
    # a network cut or a proxy's 502 lost the answer, and the player sent the move again: it
    # was refused as "the game has moved on" and the page said "Your move was not played",
    # of the move it had played
    made = create(client, ["human", "human"], game="freego", params={"size": 5})
    gid, k1, k2 = made["id"], made["secrets"]["1"], made["secrets"]["2"]
    for _ in range(2):
        r = client.post(f"/api/games/{gid}/move", json={"secret": k1, "move": sent, "ply": 0})
        assert r.status_code == 200, r.text
        played = r.json()
        assert played["length"] == 1 and played["moves"][0]["text"] in ("C3", "resign")
    if sent == "resign":
        return
    # another move for that ply, or the opponent's, is still the game moved on
    for key, move in ((k1, "D4"), (k2, "C3")):
        r = client.post(f"/api/games/{gid}/move", json={"secret": key, "move": move, "ply": 0})
        assert r.status_code == 409 and "moved on" in r.json()["error"], r.text
    assert snapshot(client, gid)["length"] == 1


def test_the_lobby_forgets_clients_past_a_bound_and_those_holding_no_game(tmp_path):
    """A server up for weeks meets new addresses without end: the games each client holds in
    the lobby, or has joined, are remembered for the clients seen most recently (the one seen
    longest ago is forgotten, with its games' seats), and a client whose games are all gone
    is forgotten at once."""
    import asyncio

    from stonegarden.jobs import JobPool
    from stonegarden.web import lobby
    from stonegarden.web.service import GameService

    async def main() -> None:
        store = open_store(tmp_path / "g.db")
        svc = GameService(store, JobPool(1))  # never started: games of two people need none
        svc.in_lobby.most_clients = svc.joined.most_clients = 3
        for n in range(10):
            live, _ = await svc.create("blooms", SMALL, ["human", "open"], f"maker{n}",
                                       listed=True)
            await lobby.join(svc, live, "Bo", f"joiner{n}")
        assert list(svc.in_lobby.games) == ["maker7", "maker8", "maker9"]
        assert list(svc.joined.games) == ["joiner7", "joiner8", "joiner9"]
        assert len(svc.joined.seats) == 3
        # one client's eight games, all withdrawn: counted again, it holds none
        made = [await svc.create("blooms", SMALL, ["human", "open"], "w", listed=True)
                for _ in range(8)]
        for live, keys in made:
            await lobby.withdraw(svc, live, keys["1"])
        assert await svc.count_held(svc.in_lobby, "w", lambda r: True) == 0
        assert "w" not in svc.in_lobby.games
        store.close()

    asyncio.run(main())
