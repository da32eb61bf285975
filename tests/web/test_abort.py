"""Aborting a game between two people before both have moved, through the API (starlette's
TestClient, SQLite): who may, until when, what the snapshot, the record and the SGF say, no
rematch; races with a move, a resignation and a second abort; a clock game whose first move
never comes aborts itself; a public game waiting for a week leaves the lobby."""

from __future__ import annotations

import sqlite3
import threading
import time
from typing import Any

import pytest

pytest.importorskip("httpx2", reason="starlette's TestClient needs httpx2 (test extra)")
from starlette.testclient import TestClient

from stonegarden.core.record import parse_record, replay_record
from stonegarden.sgf import sgf_to_record
from stonegarden.store import open_store
from stonegarden.web import clock_keeper
from stonegarden.web.app import create_app
from stonegarden.web.pages import result_words

GO = {"game": "freego", "params": {"size": 5}}
ABORTED = {"winner": None, "reason": "aborted"}


def two_people(client: TestClient, **extra: Any) -> tuple[str, str, str]:
    r = client.post("/api/games", json={**GO, "seats": ["human", "human"], **extra})
    assert r.status_code == 201, r.text
    made = r.json()
    return made["id"], made["secrets"]["1"], made["secrets"]["2"]


def post(client: TestClient, gid: str, action: str, **body: Any) -> Any:
    return client.post(f"/api/games/{gid}/{action}", json=body)


def snapshot(client: TestClient, gid: str, secret: str | None = None) -> dict[str, Any]:
    r = client.get(f"/api/games/{gid}", headers={"X-Seat-Secret": secret} if secret else {})
    assert r.status_code == 200, r.text
    return r.json()


def assert_replays(client: TestClient, gid: str) -> dict[str, Any]:
    record = client.get(f"/api/games/{gid}/record").json()
    replay_record(parse_record(record))  # raises if it does not
    return record


def waited(abort_in: float, wait: float, since: float) -> bool:
    """Whether ``abort_in``, as a snapshot answered just now gave it (to a tenth of a second),
    is a wait of ``wait`` seconds that began after ``since`` (``time.monotonic()``): a loaded
    machine may take a while over the requests in between, and fixed margins raced it."""
    return wait - (time.monotonic() - since) - 0.05 <= abort_in <= wait + 0.05


def test_either_player_aborts_before_both_have_moved_and_no_one_wins(client, db):
    gid, k1, k2 = two_people(client, clock={"initial": 300, "increment": 5})
    assert snapshot(client, gid, k1)["can_abort"] and snapshot(client, gid, k2)["can_abort"]
    assert not snapshot(client, gid)["can_abort"]  # a spectator's page offers nothing
    assert post(client, gid, "move", secret=k1, move="C3").status_code == 200
    # player 1 has moved, player 2 not yet: player 1 may still abort (lichess does the same)
    assert snapshot(client, gid, k1)["can_abort"]
    r = post(client, gid, "abort", secret=k1)
    assert r.status_code == 200, r.text
    for secret in (k1, k2, None):
        snap = snapshot(client, gid, secret)
        assert snap["terminal"] and snap["winner"] is None and snap["reason"] == "aborted"
        assert snap["outcome"] == {"winner": None, "reason": "aborted", "detail":
                                   "Black aborted it before it started: no one wins or loses"}
        assert not snap["can_abort"] and not snap["can_play"] and not snap["can_resign"]
        assert snap["clock"]["running"] is None
    record = assert_replays(client, gid)
    assert record["moves"] == ["C3"] and "result" not in record
    assert record["meta"]["ended"] == ABORTED
    sgf = client.get(f"/api/games/{gid}/record.sgf").text
    assert "RE[Void]" in sgf and "RE[B" not in sgf and "RE[W" not in sgf
    assert sgf_to_record(sgf).moves == ("C3",)  # and it reads back
    assert open_store(db).get(gid).result == {**ABORTED, "scores": None, "by": 1}
    # "my games" lists it as aborted, with no winner
    listed = client.get(f"/api/games?ids={gid}").json()["games"][0]
    assert listed["result"]["reason"] == "aborted" and listed["result"]["winner"] is None
    assert result_words("freego", ["human", "human"], listed["result"]) == "aborted (no result)"
    # over: nothing more, and no rematch (it never started: a new game instead)
    for action, body in (("move", {"secret": k2, "move": "D4"}), ("abort", {"secret": k2}),
                         ("move", {"secret": k2, "move": "resign"})):
        assert post(client, gid, action, **body).status_code == 409
    r = post(client, gid, "rematch", secret=k2)
    assert r.status_code == 409 and "aborted" in r.json()["error"]


def test_once_both_have_moved_abort_is_refused_and_resign_is_the_way(client):
    gid, k1, k2 = two_people(client)  # no clock: abort is the players' own, with or without
    assert post(client, gid, "move", secret=k1, move="C3").status_code == 200
    assert post(client, gid, "move", secret=k2, move="D4").status_code == 200
    assert not snapshot(client, gid, k1)["can_abort"]
    for key in (k1, k2):
        r = post(client, gid, "abort", secret=key)
        assert r.status_code == 409 and "both players have moved" in r.json()["error"]
        assert "resign" in r.json()["error"]
    assert not snapshot(client, gid)["terminal"]


@pytest.mark.parametrize("body, status", [({}, 403), ({"secret": "wrong"}, 403),
                                          ({"secret": None}, 403),
                                          ({"secret": 7}, 400)])  # malformed: not text
def test_only_a_seats_holder_may_abort(client, body, status):
    gid, _, _ = two_people(client)
    r = post(client, gid, "abort", **body)
    assert r.status_code == status, r.text
    assert post(client, "nosuchgame", "abort", secret="x").status_code == 404
    assert not snapshot(client, gid)["terminal"]


def test_abort_is_for_two_people_who_have_both_taken_their_seats(client):
    r = client.post("/api/games", json={**GO, "seats": ["human", "random"]})
    gid, key = r.json()["id"], r.json()["secrets"]["1"]
    r = post(client, gid, "abort", secret=key)
    assert r.status_code == 409 and "two people" in r.json()["error"]
    assert not snapshot(client, gid, key)["can_abort"]
    r = client.post("/api/games", json={**GO, "seats": ["human", "open"], "public": True})
    gid, key = r.json()["id"], r.json()["secrets"]["1"]
    r = post(client, gid, "abort", secret=key)
    assert r.status_code == 409 and "withdraw" in r.json()["error"]


def race(client: TestClient, *requests: tuple[str, str, dict[str, Any]]) -> list[Any]:
    """The requests sent at once from threads; their answers, in order."""
    answers: list[Any] = [None] * len(requests)
    start = threading.Barrier(len(requests))

    def send(i: int, gid: str, action: str, body: dict[str, Any]) -> None:
        start.wait()
        answers[i] = post(client, gid, action, **body)

    threads = [threading.Thread(target=send, args=(i, *r)) for i, r in enumerate(requests)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(30)
    return answers


@pytest.mark.parametrize("other", ["move", "resign", "abort"])
def test_abort_racing_a_move_a_resignation_or_an_abort_ends_one_way_only(client, db, other):
    for _ in range(5):
        gid, k1, k2 = two_people(client, clock={"initial": 300, "increment": 0})
        assert post(client, gid, "move", secret=k1, move="C3").status_code == 200
        body = {"move": {"secret": k2, "move": "D4"}, "resign": {"secret": k2, "move": "resign"},
                "abort": {"secret": k2}}[other]
        answers = race(client, (gid, "abort", {"secret": k1}),
                       (gid, "abort" if other == "abort" else "move", body))
        codes = sorted(a.status_code for a in answers)
        assert codes == [200, 409], [a.text for a in answers]  # one way, never a 500
        row = open_store(db).get(gid)
        record = assert_replays(client, gid)
        if answers[0].status_code == 200:  # aborted: the other request came too late
            assert row.result["reason"] == "aborted" and row.moves == ("C3",)
            assert record["meta"]["ended"] == ABORTED
        elif other == "move":  # the move came first: both have moved, the game goes on
            assert row.result is None and row.moves == ("C3", "D4")
            assert "both players have moved" in answers[0].json()["error"]
        else:  # the resignation (or the other abort) came first
            assert row.result is not None and row.result["reason"] == other.replace(
                "abort", "aborted")


def test_an_abort_racing_a_join_is_refused_or_aborts_the_joined_game(client, db):
    for _ in range(5):
        r = client.post("/api/games", json={**GO, "seats": ["human", "open"], "public": True})
        gid, key = r.json()["id"], r.json()["secrets"]["1"]
        aborted, joined = race(client, (gid, "abort", {"secret": key}),
                               (gid, "join", {"name": "Bo"}))
        assert joined.status_code == 201, joined.text  # an abort never takes a seat away
        row = open_store(db).get(gid)
        assert row.seats == ("human", "human")
        if aborted.status_code == 200:  # it saw the join: an abort like any other
            assert row.result["reason"] == "aborted"
        else:  # no one had joined yet: the creator withdraws a game waiting in the lobby
            assert aborted.status_code == 409 and "withdraw" in aborted.json()["error"]
            assert row.result is None
        assert_replays(client, gid)


def test_an_untouched_clock_game_aborts_itself_and_the_page_says_so(db, monkeypatch):
    monkeypatch.setattr(clock_keeper, "FIRST_MOVE_WAIT", (0.5, 0.5))
    with TestClient(create_app(db, workers=1, warm_up=False)) as client:
        gid, k1, _ = two_people(client, clock={"initial": 300, "increment": 0})
        snapshot(client, gid, k1)  # her page is open: her first move is waited for
        row = wait_for_result(db, gid)
        # whose first move did not come is said ("the first move did not come in time" named no one)
        assert row.result == {**ABORTED, "scores": None, "by": None, "late": 1}
        # the game in memory takes the result once the store has it (the keeper writes it
        # first): a snapshot asked for in between still shows the game going on
        snap = snapshot(client, gid, k1)
        for _ in range(50):
            if snap["reason"] is not None:
                break
            time.sleep(0.1)
            snap = snapshot(client, gid, k1)
        assert snap["reason"] == "aborted" and snap["winner"] is None
        assert snap["outcome"]["detail"] == ("Black did not make a first move in time: no one "
                                             "wins or loses")
        assert snap["clock"]["1"] == snap["clock"]["2"] == 300  # no one was charged
        assert_replays(client, gid)
        # player 1 moved, player 2 never did: his turn began with her move
        gid, k1, k2 = two_people(client, clock={"initial": 300, "increment": 0})
        snapshot(client, gid, k2)
        assert post(client, gid, "move", secret=k1, move="C3").status_code == 200
        assert wait_for_result(db, gid).result["late"] == 2
        # both moved: the clock runs, nothing aborts (the game is lost on time instead)
        gid, k1, k2 = two_people(client, clock={"initial": 300, "increment": 0})
        assert post(client, gid, "move", secret=k1, move="C3").status_code == 200
        assert post(client, gid, "move", secret=k2, move="D4").status_code == 200
        time.sleep(1.5)
        assert open_store(db).get(gid).result is None


def test_the_snapshot_says_how_long_a_first_move_may_wait(client):
    # the page had nothing to show of it: a player who took a while over a first move found
    # the game aborted without a word of warning
    gid, k1, k2 = two_people(client, clock={"initial": 120, "increment": 0})
    snapshot(client, gid, k1)  # her page is open
    c = snapshot(client, gid, k2)["clock"]
    assert 118 <= c["abort_in"] <= 120 and c["running"] is None
    assert post(client, gid, "move", secret=k1, move="C3").status_code == 200
    assert 118 <= snapshot(client, gid)["clock"]["abort_in"] <= 120  # player 2's, from now
    assert post(client, gid, "move", secret=k2, move="D4").status_code == 200
    c = snapshot(client, gid)["clock"]
    assert c["abort_in"] is None and c["running"] == 1  # the clock runs instead
    gid, k1, _ = two_people(client, clock={"initial": 120, "increment": 0})
    assert post(client, gid, "abort", secret=k1).status_code == 200
    assert snapshot(client, gid)["clock"]["abort_in"] is None
    gid, k1, _ = two_people(client, clock={"days_per_move": 1})
    # its first move, once its player has opened it, is never aborted for
    assert snapshot(client, gid, k1)["clock"]["abort_in"] is None


def test_a_first_move_is_waited_for_from_when_its_player_opens_the_game(db, monkeypatch):
    # a friend's link opened later than the wait lasted (a few minutes) led to a game
    # already aborted: "the first move did not come in time"
    monkeypatch.setattr(clock_keeper, "FIRST_MOVE_WAIT", (1.0, 1.0))
    with TestClient(create_app(db, workers=1, warm_up=False)) as client:
        gid, k1, k2 = two_people(client, clock={"initial": 300, "increment": 0})
        snapshot(client, gid, k2)  # the friend opens his link; it is not his turn
        time.sleep(1.5)  # she has not opened hers: nothing is waited for
        assert open_store(db).get(gid).result is None
        c = snapshot(client, gid)["clock"]
        # the page says so, and how long she has to open it (a day) before the game aborts
        assert c["abort_in"] > 86000 and c["not_here"] == 1
        opened = time.monotonic()
        c = snapshot(client, gid, k1)["clock"]
        assert waited(c["abort_in"], 1.0, opened) and c["not_here"] is None
        moved = time.monotonic()
        assert post(client, gid, "move", secret=k1, move="C3").status_code == 200
        # his, from her move
        assert waited(snapshot(client, gid)["clock"]["abort_in"], 1.0, moved)
        assert wait_for_result(db, gid).result["reason"] == "aborted"
        # a friend's link checked by whoever made it (the page says so) is no arrival
        gid, k1, k2 = two_people(client, clock={"initial": 300, "increment": 0})
        r = client.get(f"/api/games/{gid}", headers={"X-Seat-Secret": k2, "X-Seat-Present": "0"})
        assert r.json()["you"] == 2
        assert post(client, gid, "move", secret=k1, move="C3").status_code == 200
        time.sleep(1.5)
        assert open_store(db).get(gid).result is None
        assert post(client, gid, "move", secret=k2, move="D4").status_code == 200


def wait_for_result(db: Any, gid: str, seconds: float = 20) -> Any:
    end = time.time() + seconds
    row = open_store(db).get(gid)
    while row.result is None and time.time() < end:
        time.sleep(0.2)
        row = open_store(db).get(gid)
    return row


def test_a_joined_game_waits_for_its_first_move_from_the_join_not_the_creation(db, monkeypatch):
    monkeypatch.setattr(clock_keeper, "FIRST_MOVE_WAIT", (1.0, 1.0))
    with TestClient(create_app(db, workers=1, warm_up=False)) as client:
        r = client.post("/api/games", json={**GO, "seats": ["human", "open"], "public": True,
                                            "clock": {"initial": 60, "increment": 0}})
        gid, k1 = r.json()["id"], r.json()["secrets"]["1"]
        time.sleep(1.5)  # waiting in the lobby: nothing aborts (no one is held)
        assert open_store(db).get(gid).result is None
        joined = time.monotonic()
        assert post(client, gid, "join", name="Bo").status_code == 201
        # its creator waits for an opponent, her page open or not: she is held to it
        assert waited(snapshot(client, gid)["clock"]["abort_in"], 1.0, joined)
        assert post(client, gid, "move", secret=k1, move="C3").status_code == 200
        assert open_store(db).get(gid).result is None


def test_a_game_stored_before_turns_were_timed_takes_its_first_move(client, db):
    """Its clock has no time its turn began (``since`` 0) and no deadline: its first move is
    played, and the next first move is timed."""
    from stonegarden.store import NewGame

    clock = {"spec": {"initial": 60, "increment": 0}, "left": [60, 60], "running": None,
             "since": 0.0}
    open_store(db).create_game(NewGame("old", "freego", {"size": 5}, ("human", "human"),
                                       ("k1", "k2"), to_move=1, clock=clock))
    assert snapshot(client, "old")["clock"]["abort_in"] is None  # it waits, untimed
    assert post(client, "old", "move", secret="k1", move="C3").status_code == 200
    snap = snapshot(client, "old", "k2")
    assert not snap["terminal"] and snap["can_abort"]
    assert 50 <= snap["clock"]["abort_in"] <= 60
    assert open_store(db).get("old").deadline is not None  # player 2's first move is timed


@pytest.mark.parametrize("clock", [None, {"days_per_move": 1}])
def test_without_a_real_time_clock_nothing_aborts_by_itself(db, monkeypatch, clock):
    monkeypatch.setattr(clock_keeper, "FIRST_MOVE_WAIT", (0.2, 0.2))
    with TestClient(create_app(db, workers=1, warm_up=False)) as client:
        gid, k1, k2 = two_people(client, clock=clock)
        snapshot(client, gid, k1), snapshot(client, gid, k2)  # both players have opened it
        time.sleep(1.5)
        assert open_store(db).get(gid).result is None and open_store(db).get(gid).deadline is None


@pytest.mark.parametrize("clock", [{"initial": 300, "increment": 0}, {"days_per_move": 2}])
def test_a_game_whose_player_to_move_never_opens_it_aborts_itself(db, monkeypatch, clock):
    # a friend who never followed the link held the game for ever: its creator's "my games"
    # said "Their turn" and its page "has not opened the game yet" without end
    monkeypatch.setattr(clock_keeper, "FIRST_MOVE_WAIT", (60.0, 60.0))
    # a second to open it, or a correspondence game's two days of 0.75 s: time enough for
    # the requests below on a loaded machine (half a second raced them)
    monkeypatch.setattr(clock_keeper, "UNOPENED_WAIT", 1.0)
    monkeypatch.setattr(clock_keeper, "DAY", 0.75)  # a correspondence game's days per move
    wait = 1.5 if "days_per_move" in clock else 1.0
    with TestClient(create_app(db, workers=1, warm_up=False)) as client:
        # she opens her board and moves first; he never opens his link
        gid, k1, _ = two_people(client, clock=clock)
        snapshot(client, gid, k1)
        moved = time.monotonic()
        assert post(client, gid, "move", secret=k1, move="C3").status_code == 200
        c = snapshot(client, gid, k1)["clock"]
        assert c["not_here"] == 2 and waited(c["abort_in"], wait, moved)
        row = wait_for_result(db, gid)
        assert row.result == {**ABORTED, "scores": None, "by": None, "unopened": 2}
        snap = snapshot(client, gid, k1)
        assert snap["outcome"]["detail"] == ("White did not open the game in time: no one "
                                             "wins or loses")
        assert snap["clock"]["1"] == snap["clock"]["2"]  # no one was charged
        listed = client.get(f"/api/games?ids={gid}").json()["games"][0]
        assert listed["result"]["reason"] == "aborted" and listed["to_move"] is None
        assert_replays(client, gid)
        # he is to move first: the game he never opens aborts as well, from its making
        gid, _, k2 = two_people(client, clock=clock)
        snapshot(client, gid, k2)
        assert wait_for_result(db, gid).result["unopened"] == 1
        # opened in time: his first move is waited for from then, as before (a minute here)
        gid, k1, k2 = two_people(client, clock=clock)
        snapshot(client, gid, k1), snapshot(client, gid, k2)
        time.sleep(wait + 0.6)  # past the wait to open it, and the keeper's next look
        row = open_store(db).get(gid)
        assert row.result is None and snapshot(client, gid)["clock"]["not_here"] is None


def test_a_public_game_waiting_a_week_leaves_the_lobby_but_stays_playable(client, db):
    made = [client.post("/api/games", json={**GO, "seats": ["human", "open"], "public": True,
                                            "name": n}).json() for n in ("Old", "New")]
    old, new = made[0]["id"], made[1]["id"]
    with sqlite3.connect(db) as con:  # made eight days ago
        con.execute("UPDATE games SET created = ? WHERE id = ?", (time.time() - 8 * 86400, old))
    con.close()
    listed = [g["id"] for g in client.get("/api/lobby").json()["games"]]
    assert listed == [new]
    assert post(client, old, "join", name="Bo").status_code == 201  # by its link


def test_a_public_game_a_week_old_is_not_said_to_be_in_the_lobby(client, db):
    # its page said public games are listed in the lobby, where its creator waited in vain
    made = client.post("/api/games", json={**GO, "seats": ["human", "open"], "public": True,
                                           "name": "Old"}).json()
    gid = made["id"]
    assert client.get(f"/api/games/{gid}").json()["in_lobby"] is True
    assert client.get(f"/api/games?ids={gid}").json()["games"][0]["in_lobby"] is True
    with sqlite3.connect(db) as con:  # made eight days ago
        con.execute("UPDATE games SET created = ? WHERE id = ?", (time.time() - 8 * 86400, gid))
    con.close()
    with TestClient(create_app(db, workers=1, warm_up=False)) as later:  # read anew
        snap = later.get(f"/api/games/{gid}").json()
        assert snap["open"] == 2 and snap["public"] is True and snap["in_lobby"] is False
        listed = later.get(f"/api/games?ids={gid}").json()["games"][0]  # "my games" reads it
        assert listed["public"] is True and listed["in_lobby"] is False
        assert later.post(f"/api/games/{gid}/join", json={"name": "Bo"}).status_code == 201
        assert later.get(f"/api/games/{gid}").json()["in_lobby"] is False
    private = client.post("/api/games", json={**GO, "seats": ["human", "open"]}).json()
    assert client.get(f"/api/games/{private['id']}").json()["in_lobby"] is False
