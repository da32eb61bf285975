"""The computer's analysis (``web/review_job.py``, ``web/review_runner.py``): who may ask for it
and see it, the points and their judgements, storage across a restart, the record's export,
Abstract Play records reviewed like any other game, no undo after the end, and hostile requests
(4xx, never 500)."""

from __future__ import annotations

import json
import time
from pathlib import Path
from typing import Any

import pytest
from starlette.testclient import TestClient

from stonegarden.core.protocol import CHANCE
from stonegarden.core.record import make_record
from stonegarden.core.registry import make
from stonegarden.search.config import Budget
from stonegarden.search.result import MoveStat, SearchResult
from stonegarden.web import review_job
from stonegarden.web.app import create_app
from stonegarden.web.live import History, Live
from stonegarden.web.review_runner import Reviewer

DATA = Path(__file__).resolve().parents[1] / "data" / "abstractplay"
TINY = {"size": 2}  # Blooms on 7 cells: a whole game in a few moves


@pytest.fixture
def db(tmp_path: Path) -> Path:
    return tmp_path / "games.db"


def wait(check, limit: float = 120.0, step: float = 0.2) -> Any:
    t0 = time.monotonic()
    while time.monotonic() - t0 < limit:
        value = check()
        if value:
            return value
        time.sleep(step)
    raise AssertionError(f"not within {limit} s")


def finished_game(client: TestClient) -> dict[str, Any]:
    """A tiny Blooms game between two random movers, played to its end."""
    made = client.post("/api/games", json={"game": "blooms", "params": TINY,
                                           "seats": ["random", "random"]}).json()
    wait(lambda: client.get(f"/api/games/{made['id']}").json()["terminal"])
    return made


def analysed(client: TestClient, gid: str, headers: dict[str, str] | None = None
             ) -> dict[str, Any]:
    return wait(lambda: (lambda a: a if a["done"] or a["error"] else None)(
        client.get(f"/api/games/{gid}/analysis", headers=headers or {}).json()))


def test_judgements_follow_the_stated_thresholds():
    assert review_job.judgement(None) is None
    assert review_job.judgement(0.0) is None and review_job.judgement(0.059) is None
    assert review_job.judgement(0.06) == "inaccuracy" and review_job.judgement(0.119) == "inaccuracy"
    assert review_job.judgement(0.12) == "mistake" and review_job.judgement(0.249) == "mistake"
    assert review_job.judgement(0.25) == "blunder" and review_job.judgement(1.0) == "blunder"


def test_losses_are_the_movers_winning_chances_given_away():
    r = review_job.Review("x", {
        0: {"ply": 0, "p1_win": 0.6, "best_move": "a"},
        1: {"ply": 1, "p1_win": 0.4, "best_move": "b"},   # player 1 played "z": lost 0.2
        2: {"ply": 2, "p1_win": 0.45, "best_move": "c"},  # player 2 played "b", the best: 0
        3: {"ply": 3, "p1_win": None, "best_move": None},  # a chance event is due
        5: {"ply": 5, "p1_win": 0.9, "best_move": None},  # ply 4 missing: no loss
    })
    points = review_job.judged(r, ["z", "b", "q", "d", "e"], [1, 2, 1, 2, 1])
    assert [p["ply"] for p in points] == [0, 1, 2, 3, 5]
    assert points[0]["played_loss"] is None
    assert points[1]["played_loss"] == 0.2 and points[1]["judgement"] == "mistake"
    assert points[2]["played_loss"] == 0.0 and points[2]["judgement"] is None
    assert points[3]["played_loss"] is None and points[4]["played_loss"] is None
    # player 2 moving from 0.4 to 0.9 for player 1 gave away 0.5: a blunder
    r2 = review_job.Review("x", {0: {"ply": 0, "p1_win": 0.4, "best_move": "a"},
                             1: {"ply": 1, "p1_win": 0.9, "best_move": "b"}})
    assert review_job.judged(r2, ["z"], [2])[1]["judgement"] == "blunder"


class _Searcher:
    """An agent whose search of every position tries its first legal move 800 times, worth
    ``best`` to the player to move, and its second ``tries`` times, worth 0.1; ``root`` is the
    average of every move it tried, as a search reports it."""

    def __init__(self, root: float, best: float, tries: int = 200) -> None:
        self.root, self.best, self.tries = root, best, tries

    def budget_for(self, game) -> Budget:
        return Budget(sims=1000)

    def analyse(self, game, state, budget) -> SearchResult:
        first, second = (int(a) for a in game.legal_actions(state)[:2])
        return SearchResult(self.root, [MoveStat(first, 800, self.best),
                                        MoveStat(second, self.tries, 0.1)], [first], 1000, 0.1)


def test_a_moves_loss_is_reckoned_as_the_command_lines_review_reckons_it():
    """A loss was the difference of the two positions' winning chances, each the search's
    average over every move it tried, weaker ones too: a few points below its best move's
    value on both sides of the move, so each loss read low by the two (0.07 on average over
    16 moves of Blooms, against ``analyse --review``'s), and fewer moves were judged."""
    game = make("freego", size=5)
    start = game.initial_state()
    second = game.action_to_text(start, int(game.legal_actions(start)[1]))
    after = game.play_text(start, second)

    def loss(searcher: _Searcher, played: str = second, then=None) -> float:
        points = {0: review_job.position_point(game, start, searcher, 0, played),
                  1: review_job.position_point(game, after, then or _Searcher(0.55, 0.6), 1)}
        return review_job.judged(review_job.Review("x", points), [second], [1])[1]["played_loss"]

    # the best move's value (0.6) minus the played one's (0.1), both in the search before it
    assert loss(_Searcher(0.55, 0.6)) == 0.5
    # a move tried too seldom there is valued by the position after it: player 2's 0.55
    assert loss(_Searcher(0.55, 0.6, tries=10)) == round(0.6 - 0.45, 4)
    # a value of another move (valued before an undo) counts for nothing: the same
    assert loss(_Searcher(0.55, 0.6), played="A1") == round(0.6 - 0.45, 4)
    # a point stored before moves were valued: the positions' difference, as then
    old = {0: {"ply": 0, "p1_win": 0.55, "best_move": "A1"},
           1: {"ply": 1, "p1_win": 0.45, "best_move": "B1"}}
    assert review_job.judged(review_job.Review("x", old), [second], [1])[1]["played_loss"] == 0.1


@pytest.mark.slow
def test_tumbling_dice_moves_are_judged_against_the_rolls_expectation(db: Path):
    """A roll follows every Tumbling Dice move: a point where it is due is worth the
    expectation over the rolls, so each move has a loss (none was judged when such a point
    had no value), and the rolls themselves have none."""
    game = make("blobs", tumbling=True)
    moves = ["roll:B", "i8B", "roll:M", "h7M", "roll:M", "g7M"]
    record = make_record(game, moves, game.replay(moves)[-1])
    with TestClient(create_app(db, workers=1)) as client:
        up = client.post("/api/records", content=record.to_json(),
                         headers={"Content-Type": "application/json"})
        assert up.status_code == 201, up.text
        gid = up.json()["id"]
        assert client.post(f"/api/games/{gid}/analysis", json={}).status_code == 202
        points = analysed(client, gid)["points"]
        played = [m["text"] for m in client.get(f"/api/games/{gid}").json()["moves"]]
    assert played[:len(moves)] == moves  # and the server may have rolled the next roll
    states = game.replay(played)
    assert [p["ply"] for p in points] == list(range(len(played) + 1))
    for p in points:
        assert 0.0 <= p["p1_win"] <= 1.0
        state = states[p["ply"]]
        if game.current_player(state) == CHANCE:  # a roll is due: no best move
            assert p["best_move"] is None
        else:
            assert p["best_move"] and p["played_loss"] is None  # after a roll
        if p["ply"] > 0 and game.current_player(states[p["ply"] - 1]) != CHANCE:  # a move
            assert p["played_loss"] is not None and p["played_loss"] >= 0
            assert p["judgement"] == review_job.judgement(p["played_loss"])


def test_a_rolls_point_stored_without_a_value_is_analysed_again(db: Path):
    """Before rolls were valued, a roll's point was stored with ``p1_win`` null: it counts as
    not analysed, so asking again values it and judges the move before it."""
    from stonegarden.store import open_store

    game = make("blobs", tumbling=True)
    moves = ["roll:B", "i8B", "roll:M"]
    record = make_record(game, moves)
    with TestClient(create_app(db, workers=1, warm_up=False)) as client:
        up = client.post("/api/records", content=record.to_json(),
                         headers={"Content-Type": "application/json"})
        assert up.status_code == 201, up.text
        gid = up.json()["id"]
    old = [{"ply": 0, "p1_win": None, "best_move": None},
           {"ply": 1, "p1_win": 0.5, "best_move": "h7B"},
           {"ply": 2, "p1_win": None, "best_move": None}]
    open_store(db).put_analysis(gid, review_job.ENGINE, old)
    with TestClient(create_app(db, workers=1)) as client:
        a = client.get(f"/api/games/{gid}/analysis").json()
        assert [p["ply"] for p in a["points"]] == [1] and not a["done"]
        assert client.post(f"/api/games/{gid}/analysis", json={}).status_code == 202
        points = analysed(client, gid)["points"]
    assert [p["ply"] for p in points][:3] == [0, 1, 2]
    assert points[2]["p1_win"] is not None and points[2]["played_loss"] is not None


@pytest.mark.slow
def test_a_resignation_is_not_judged(db: Path):
    """Resigning is no move on the board: the graph ends at the result, and the move list
    marks no loss, though player 1 gave up a game won by A1 (first capture wins)."""
    with TestClient(create_app(db, workers=1)) as client:
        made = client.post("/api/games", json={"game": "freego",
                                               "params": {"size": 5, "target": 1},
                                               "seats": ["human", "human"]}).json()
        gid, keys = made["id"], made["secrets"]
        for seat, move in [("1", "B2"), ("2", "B1"), ("1", "C1"), ("2", "E5"), ("1", "resign")]:
            r = client.post(f"/api/games/{gid}/move", json={"secret": keys[seat], "move": move})
            assert r.status_code == 200, r.text
        assert client.post(f"/api/games/{gid}/analysis", json={}).status_code == 202
        points = analysed(client, gid)["points"]
        assert points[4]["best_move"] == "A1" and points[4]["p1_win"] == 1.0
        assert points[5] == {"ply": 5, "p1_win": 0.0, "best_move": None,
                             "played_loss": None, "judgement": None}


@pytest.mark.slow
def test_players_wait_for_the_end_spectators_do_not(db: Path):
    with TestClient(create_app(db, workers=1)) as client:
        made = client.post("/api/games", json={"game": "blooms", "params": TINY,
                                               "seats": ["human", "random"]}).json()
        gid, k1 = made["id"], made["secrets"]["1"]
        # a player of a game in progress: refused, and shown nothing
        r = client.post(f"/api/games/{gid}/analysis", json={"secret": k1})
        assert r.status_code == 403 and "over" in r.json()["error"]
        assert client.get(f"/api/games/{gid}/analysis",
                          headers={"X-Seat-Secret": k1}).status_code == 403
        # a spectator may, and gets the engine, one point per position so far
        r = client.post(f"/api/games/{gid}/analysis", json={})
        assert r.status_code == 202 and r.json()["engine"] == review_job.ENGINE
        a = analysed(client, gid)
        assert a["done"] and [p["ply"] for p in a["points"]] == [0]
        assert set(a["points"][0]) == {"ply", "p1_win", "best_move", "played_loss",
                                       "judgement"}
        # the player still sees none of it in the game's snapshot
        snap = client.get(f"/api/games/{gid}", headers={"X-Seat-Secret": k1}).json()
        assert snap["review"] is None and snap["analysis"] is None
        assert not snap["analysis_open"]
        spectator = client.get(f"/api/games/{gid}").json()
        assert spectator["analysis_open"] and spectator["review"]["best_move"]


def test_a_game_between_two_people_is_analysed_for_no_one_until_it_ends(db: Path):
    """A player could watch as a spectator (its seat link less the secret): unless both
    seats agreed to the computer's help, the analysis of a game between two people waits for
    the end, for the spectators too."""
    with TestClient(create_app(db, workers=1)) as client:
        made = client.post("/api/games", json={"game": "blooms", "params": TINY,
                                               "seats": ["human", "human"]}).json()
        gid, k1, k2 = made["id"], made["secrets"]["1"], made["secrets"]["2"]
        r = client.post(f"/api/games/{gid}/analysis", json={})
        assert r.status_code == 403 and "over" in r.json()["error"]
        assert client.get(f"/api/games/{gid}/analysis").status_code == 403
        snap = client.get(f"/api/games/{gid}").json()
        assert not snap["analysis_open"] and snap["review"] is None
        assert "analysis" not in client.get(f"/api/games/{gid}/record").json()["meta"]
        # between two people either may resign, on the other's turn too
        assert client.post(f"/api/games/{gid}/move",
                           json={"secret": k2, "move": "resign"}).status_code == 200
        assert client.get(f"/api/games/{gid}").json()["terminal"]
        # over: open to everyone, spectators and players alike
        assert client.post(f"/api/games/{gid}/analysis", json={}).status_code == 202
        assert analysed(client, gid)["done"]
        for headers in ({}, {"X-Seat-Secret": k1}, {"X-Seat-Secret": k2}):
            snap = client.get(f"/api/games/{gid}", headers=headers).json()
            assert snap["analysis_open"] and snap["analysis"] is not None
        # both seats' agreement to hints, given at creation, opens it to spectators at once
        agreed = client.post("/api/games", json={"game": "blooms", "params": TINY, "hints": True,
                                                 "seats": ["human", "human"]}).json()
        assert client.post(f"/api/games/{agreed['id']}/analysis", json={}).status_code == 202
        # so does an upload, whose seats are both the uploader's: an unfinished game to study
        game = make("blooms", **TINY)
        state = game.initial_state()
        first = game.action_to_text(state, int(game.legal_actions(state)[0]))
        record = make_record(game, [first], game.play_text(state, first))
        up = client.post("/api/records", content=record.to_json(),
                         headers={"Content-Type": "application/json"})
        assert up.status_code == 201, up.text
        assert not client.get(f"/api/games/{up.json()['id']}").json()["terminal"]
        assert client.post(f"/api/games/{up.json()['id']}/analysis", json={}).status_code == 202


@pytest.mark.slow
def test_a_finished_game_is_analysed_stored_shown_and_exported(db: Path):
    with TestClient(create_app(db, workers=2)) as client:
        made = finished_game(client)
        gid = made["id"]
        snap = client.get(f"/api/games/{gid}").json()
        n, winner = snap["length"], snap["winner"]
        assert client.post(f"/api/games/{gid}/analysis",
                           json={"secret": made["secrets"]["1"]}).status_code == 202
        a = analysed(client, gid)
        assert a["done"] and not a["error"] and a["of"] == n + 1
        points = a["points"]
        assert [p["ply"] for p in points] == list(range(n + 1))
        assert all(p["p1_win"] is None or 0.0 <= p["p1_win"] <= 1.0 for p in points)
        assert points[-1]["p1_win"] == {1: 1.0, 2: 0.0}.get(winner, 0.5)
        assert points[-1]["best_move"] is None  # the end
        game = make("blooms", **TINY)
        states = game.replay([m["text"] for m in snap["moves"]])
        for p in points[:-1]:  # every best move is legal where it is given
            game.play_text(states[p["ply"]], p["best_move"])
        for p in points[1:]:
            assert p["played_loss"] is not None and p["played_loss"] >= 0
            assert p["judgement"] == review_job.judgement(p["played_loss"])
        # asking again starts nothing new
        again = client.post(f"/api/games/{gid}/analysis", json={}).json()
        assert again["done"] and again["points"] == points
        # the position's snapshot shows its point and draws the best move on the board
        first = client.get(f"/api/games/{gid}?ply=0").json()
        assert first["review"]["best_move"] == points[0]["best_move"]
        assert first["review"]["cells"] and "hint" in first["svg"]
        # the record's export holds it
        record = json.loads(client.get(f"/api/games/{gid}/record").text)
        assert record["meta"]["analysis"] == {"engine": review_job.ENGINE, "points": points}
    # stored with the game: a new server shows it, and never recomputes it
    with TestClient(create_app(db, workers=1, warm_up=False)) as client:
        a = client.get(f"/api/games/{gid}/analysis").json()
        assert a["done"] and not a["running"] and a["points"] == points


def test_no_undo_after_the_end(db: Path):
    with TestClient(create_app(db, workers=1)) as client:
        made = client.post("/api/games", json={"game": "blooms", "params": TINY,
                                               "seats": ["human", "random"]}).json()
        gid, key = made["id"], made["secrets"]["1"]
        game = make("blooms", **TINY)
        while True:  # the person plays the first legal move until the game ends
            snap = wait(lambda: (lambda s: s if s["thinking"] is None else None)(
                client.get(f"/api/games/{gid}", headers={"X-Seat-Secret": key}).json()))
            if snap["terminal"]:
                break
            state = game.replay([m["text"] for m in snap["moves"]])[-1]
            move = game.action_to_text(state, int(game.legal_actions(state)[0]))
            assert client.post(f"/api/games/{gid}/move",
                               json={"secret": key, "move": move}).status_code == 200
        assert snap["can_undo"] is False
        r = client.post(f"/api/games/{gid}/undo", json={"secret": key})
        assert r.status_code == 409 and "over" in r.json()["error"]
        after = client.get(f"/api/games/{gid}").json()
        assert after["length"] == snap["length"] and after["terminal"]


@pytest.mark.slow
def test_an_abstract_play_record_is_uploaded_and_reviewed(db: Path):
    text = (DATA / "ap-blooms-size4-s1.json").read_text()
    with TestClient(create_app(db, workers=2)) as client:
        r = client.post("/api/records", content=text,
                        headers={"Content-Type": "application/json"})
        assert r.status_code == 201, r.text
        gid = r.json()["id"]
        snap = client.get(f"/api/games/{gid}").json()
        assert snap["game"] == "blooms" and snap["params"]["size"] == 4 and snap["length"] > 0
        ap = json.loads(text)
        assert sum(len(round_) for round_ in ap["moves"]) >= snap["length"] - 1
        assert client.post(f"/api/games/{gid}/analysis", json={}).status_code == 202
        # the first job's positions arrive, in order from the start
        a = wait(lambda: (lambda a: a if a["points"] else None)(
            client.get(f"/api/games/{gid}/analysis").json()), 300)
        plies = [p["ply"] for p in a["points"]]
        assert plies == list(range(len(plies)))
        assert a["of"] == min(snap["length"], review_job.MAX_PLIES) + 1


def test_a_game_over_before_its_first_move_has_nothing_to_analyse(db: Path):
    """Blobs with one die is drawn before anyone moves: its analysis was one position, the
    result, said as "Red's winning chances: 50%". It is refused; a game aborted before its
    first move (its first position has a move to find) is analysed."""
    with TestClient(create_app(db, workers=1)) as client:
        record = {"format": "stonegarden-record", "version": 1, "game": "blobs",
                  "params": {"dice": 1}, "moves": []}
        up = client.post("/api/records", json=record)
        assert up.status_code == 201, up.text
        gid = up.json()["id"]
        r = client.post(f"/api/games/{gid}/analysis", json={})
        assert r.status_code == 409, r.text
        assert r.json()["error"] == ("there is nothing to analyse: the game was over before "
                                     "its first move")
        assert client.get(f"/api/games/{gid}/analysis").json()["engine"] is None
        made = client.post("/api/games", json={"game": "freego", "params": {"size": 5},
                                               "seats": ["human", "human"]}).json()
        r = client.post(f"/api/games/{made['id']}/abort", json={"secret": made["secrets"]["1"]})
        assert r.json()["reason"] == "aborted"
        r = client.post(f"/api/games/{made['id']}/analysis", json={})
        assert r.status_code == 202, r.text


@pytest.mark.parametrize("body, ctype, status", [
    ("[]", "application/json", 400),
    ("{", "application/json", 400),
    ('{"secret": 5}', "application/json", 400),  # a secret is text: a malformed request
    ('{"secret": "x"}', "application/json", 202),  # no seat's secret: a spectator's request
    ('{"secret": "\\ud800"}', "application/json", 202),
    ("{}", "text/plain", 415),
    ("x" * 70_000, "application/json", 413),
])
def test_hostile_requests_are_refused_with_4xx(db: Path, body: str, ctype: str, status: int):
    with TestClient(create_app(db, workers=1, warm_up=False)) as client:
        made = client.post("/api/games", json={"game": "blooms", "params": TINY,
                                               "seats": ["human", "random"]}).json()
        r = client.post(f"/api/games/{made['id']}/analysis", content=body.encode(),
                        headers={"Content-Type": ctype})
        assert r.status_code == status, r.text
        assert client.post("/api/games/" + "x" * 100 + "/analysis", json={}).status_code == 404
        assert client.get("/api/games/nope/analysis").status_code == 404
        assert client.put(f"/api/games/{made['id']}/analysis", json={}).status_code == 405
        r = client.get(f"/api/games/{made['id']}/analysis",
                       headers={"X-Seat-Secret": "%00" * 50})
        assert r.status_code == 200  # no seat's secret: a spectator


def test_an_analysis_done_as_its_cancel_came_reads_done_not_cancelled():
    """A cancel that came as the last job ended (its points stored) left the analysis done
    and cancelled at once: the page said "The analysis was cancelled: 3 of 3 positions
    analysed are kept; ask for it again", and asking again had nothing to do."""
    game = make("freego", size=5)
    moves = ["C3", "D4"]
    live = Live("g", game, ("human", "human"), ("k1", "k2"), History.replay(game, moves), [],
                0.0, hints_agreed=True)
    live.review = review_job.Review("x", {p: {"ply": p, "p1_win": 0.5, "best_move": "B2"}
                                          for p in range(3)}, cancelled=True)
    a = Reviewer(None).analysis(live, None)  # type: ignore[arg-type]
    assert a["done"] and not a["cancelled"], a
    live.review.truncate(1)  # not all of it: the cancel says what it stopped
    a = Reviewer(None).analysis(live, None)  # type: ignore[arg-type]
    assert a["cancelled"] and not a["done"], a


def test_a_query_parameter_on_the_analysis_is_refused(db: Path):
    """/analysis?ply=3 answered the whole analysis, as if it were the point of move 3 (the
    record's download refuses a query parameter, as the other requests do)."""
    with TestClient(create_app(db, workers=1, warm_up=False)) as client:
        made = client.post("/api/games", json={"game": "blooms", "params": TINY,
                                               "seats": ["human", "random"]}).json()
        base = f"/api/games/{made['id']}/analysis"
        for r in (client.get(base + "?ply=3"), client.post(base + "?ply=3", json={}),
                  client.post(base + "/cancel?secret=x", json={})):
            assert r.status_code == 400, r.text
            assert "unknown query parameter" in r.json()["error"]
        assert client.get(base).json()["engine"] is None  # nothing was asked for


def test_a_client_without_room_in_the_queue_gets_429(db: Path):
    from stonegarden.jobs import Limits

    with TestClient(create_app(db, workers=1, warm_up=False,
                               limits=Limits(per_client=1))) as client:
        thinker = client.post("/api/games", json={"game": "blooms", "params": TINY,
                                                  "seats": ["mcts:time=5", "human"]})
        assert thinker.status_code == 201  # its agent's job holds this client's one place
        made = client.post("/api/games", json={"game": "blooms", "params": TINY,
                                               "seats": ["human", "human"],
                                               "hints": True}).json()
        r = client.post(f"/api/games/{made['id']}/analysis", json={})
        assert r.status_code == 429 and int(r.headers["retry-after"]) >= 1
        assert client.get(f"/api/games/{made['id']}/analysis").json()["running"] is False


def test_an_undo_drops_the_points_after_the_kept_position(db: Path):
    with TestClient(create_app(db, workers=1)) as client:
        made = client.post("/api/games", json={"game": "blooms", "params": TINY,
                                               "seats": ["human", "random"]}).json()
        gid, key = made["id"], made["secrets"]["1"]
        game = make("blooms", **TINY)
        state = game.initial_state()
        move = game.action_to_text(state, int(game.legal_actions(state)[0]))
        client.post(f"/api/games/{gid}/move", json={"secret": key, "move": move})
        snap = wait(lambda: (lambda s: s if s["thinking"] is None else None)(
            client.get(f"/api/games/{gid}").json()))
        assert not snap["terminal"] and snap["length"] == 2
        assert client.post(f"/api/games/{gid}/analysis", json={}).status_code == 202
        assert [p["ply"] for p in analysed(client, gid)["points"]] == [0, 1, 2]
        assert client.post(f"/api/games/{gid}/undo", json={"secret": key}).status_code == 200
        a = client.get(f"/api/games/{gid}/analysis").json()
        assert [p["ply"] for p in a["points"]] == [0] and a["done"]  # ply 0 is all there is
    with TestClient(create_app(db, workers=1, warm_up=False)) as client:
        assert [p["ply"] for p in client.get(f"/api/games/{gid}/analysis").json()["points"]] == [0]


def test_a_move_made_while_an_undo_stores_the_analysis_clears_the_redo_line(db: Path,
                                                                             monkeypatch):
    """An undo wrote the trimmed analysis after the moves (it trims it with them now); a move
    made meanwhile must find the undo's redo line in place and clear it, or a redo (here while
    the agent thinks about its reply) would play the undone moves, the agent's among them,
    into another position."""
    import threading

    from stonegarden.store.sql import SQLStore

    game_id, params = "freego", {"size": 5}
    game = make(game_id, **params)
    with TestClient(create_app(db, workers=1, warm_up=False)) as client:
        made = client.post("/api/games", json={"game": game_id, "params": params,
                                               "seats": ["human", "mcts:time=2"]}).json()
        gid, key = made["id"], made["secrets"]["1"]

        seat = {"X-Seat-Secret": key}

        def snap() -> dict[str, Any]:
            s = client.get(f"/api/games/{gid}", headers=seat).json()
            return {**s, "moves": [m["text"] for m in s["moves"]]}

        def settled() -> dict[str, Any]:
            return wait(lambda: (lambda s: s if s["thinking"] is None else None)(snap()))

        for _ in range(2):
            moves = settled()["moves"]
            state = game.replay(moves)[-1]
            move = game.action_to_text(state, int(game.legal_actions(state)[0]))
            assert client.post(f"/api/games/{gid}/move",
                               json={"secret": key, "move": move}).status_code == 200
        line = settled()["moves"]
        assert len(line) == 4
        assert client.post(f"/api/games/{gid}/analysis", json={}).status_code == 202
        assert analysed(client, gid)["done"]

        written, go_on = SQLStore.put_analysis, threading.Event()

        def held_put_analysis(self, *args):  # any write of the analysis waits here
            assert go_on.wait(30)
            return written(self, *args)

        monkeypatch.setattr(SQLStore, "put_analysis", held_put_analysis)
        undone: dict[str, int] = {}
        t = threading.Thread(target=lambda: undone.update(status=client.post(
            f"/api/games/{gid}/undo", json={"secret": key}).status_code))
        t.start()
        try:
            wait(lambda: (lambda s: s if s["length"] == 2 else None)(snap()))
            state = game.replay(line[:2])[-1]
            other = next(m for m in (game.action_to_text(state, int(a))
                                     for a in reversed(game.legal_actions(state)))
                         if m not in (line[2], "pass", "resign"))
            assert client.post(f"/api/games/{gid}/move",
                               json={"secret": key, "move": other}).status_code == 200
        finally:
            go_on.set()
            t.join(30)
        assert undone["status"] == 200
        # the agent is still thinking about its reply to that move
        after = snap()
        assert after["moves"] == [*line[:2], other] and after["thinking"] is not None
        assert not after["can_redo"]
        r = client.post(f"/api/games/{gid}/redo", json={"secret": key})
        assert r.status_code == 409 and "nothing to redo" in r.json()["error"]
        assert snap()["moves"][:3] == [*line[:2], other]


def upload_one_move(client: TestClient) -> dict[str, Any]:
    """An unfinished record of one move uploaded to study: the answer (both seats' links)."""
    game = make("blooms", **TINY)
    state = game.initial_state()
    first = game.action_to_text(state, int(game.legal_actions(state)[0]))
    record = make_record(game, [first], game.play_text(state, first))
    r = client.post("/api/records", content=record.to_json(),
                    headers={"Content-Type": "application/json"})
    assert r.status_code == 201, r.text
    return r.json()


def test_who_studies_a_game_in_progress_sees_its_analysis_from_the_seat(db: Path):
    """An uploaded unfinished record is its uploader's to study (both seats), and a game
    between two people who agreed to hints is the players' to study: the seat link that
    opens sees the analysis as the spectator link does. The link to a seat of one of two
    computers watches them; a person playing an agent still waits for the end."""
    with TestClient(create_app(db, workers=1)) as client:
        up = upload_one_move(client)
        agreed = client.post("/api/games", json={"game": "blooms", "params": TINY,
                                                 "hints": True,
                                                 "seats": ["human", "human"]}).json()
        machines = client.post("/api/games", json={"game": "blooms", "params": {"size": 5},
                                                   "seats": ["mcts:time=5"] * 2}).json()
        for made, seat in [(up, "1"), (up, "2"), (agreed, "2"), (machines, "1")]:
            key = {"X-Seat-Secret": made["secrets"][seat]}
            snap = client.get(f"/api/games/{made['id']}", headers=key).json()
            assert snap["analysis_open"] and not snap["terminal"], (made["seats"], seat)
            assert client.get(f"/api/games/{made['id']}/analysis",
                              headers=key).status_code == 200
        assert not client.get(f"/api/games/{up['id']}").json()["terminal"]
        r = client.post(f"/api/games/{up['id']}/analysis", json={"secret": up["secrets"]["1"]})
        assert r.status_code == 202, r.text
        assert analysed(client, up["id"], {"X-Seat-Secret": up["secrets"]["1"]})["done"]
        snap = client.get(f"/api/games/{up['id']}?ply=0",
                          headers={"X-Seat-Secret": up["secrets"]["1"]}).json()
        assert snap["review"]["best_move"]
        # a person playing an agent: refused, with the rule in words
        vs = client.post("/api/games", json={"game": "blooms", "params": TINY,
                                              "seats": ["human", "random"]}).json()
        r = client.post(f"/api/games/{vs['id']}/analysis", json={"secret": vs["secrets"]["1"]})
        assert r.status_code == 403
        assert r.json()["error"] == (
            "the computer's analysis opens once the game is over (while it goes on, to its "
            "players only where both agreed to hints, and to spectators also in a game "
            "against an agent)")


@pytest.mark.slow
def test_an_analysis_waiting_for_a_free_worker_says_so(db: Path):
    """With the only worker thinking for an agent, the analysis' job waits: the answer says it
    is queued (and how many jobs are ahead), not only "running" with no position done."""
    with TestClient(create_app(db, workers=1)) as client:
        up = upload_one_move(client)
        busy = client.post("/api/games", json={"game": "freego", "params": {"size": 9},
                                               "seats": ["mcts:time=4", "human"]}).json()
        wait(lambda: (client.get(f"/api/games/{busy['id']}").json()["thinking"] or {})
             .get("queued") is False)
        assert client.post(f"/api/games/{up['id']}/analysis", json={}).status_code == 202
        a = wait(lambda: (lambda a: a if a["queued"] else None)(
            client.get(f"/api/games/{up['id']}/analysis").json()), limit=2)
        assert a["running"] and a["waiting"] == 0 and a["points"] == []
        assert client.get(f"/api/games/{busy['id']}").json()["thinking"]  # still
        a = analysed(client, up["id"])
        assert a["done"] and not a["queued"] and a["waiting"] == 0


def test_an_analysis_stored_as_an_undo_takes_its_moves_back_keeps_no_point_past_them(
        db: Path, monkeypatch):
    """The analysis' store of a chunk, under way as an undo took back the moves it analysed,
    landed after the undo: the stored analysis held points of positions no longer played,
    which a restart showed as those of the moves played there since."""
    import threading

    from stonegarden.store import open_store
    from stonegarden.store.sql import SQLStore

    game = make("blooms", **TINY)
    with TestClient(create_app(db, workers=1, warm_up=False)) as client:
        made = client.post("/api/games", json={"game": "blooms", "params": TINY,
                                               "seats": ["human", "random"]}).json()
        gid, key = made["id"], made["secrets"]["1"]

        def play() -> list[str]:
            moves = [m["text"] for m in client.get(f"/api/games/{gid}").json()["moves"]]
            state = game.replay(moves)[-1]
            move = game.action_to_text(state, int(game.legal_actions(state)[-1]))
            assert client.post(f"/api/games/{gid}/move",
                               json={"secret": key, "move": move}).status_code == 200
            snap = wait(lambda: (lambda s: s if s["thinking"] is None else None)(
                client.get(f"/api/games/{gid}").json()))
            assert not snap["terminal"]
            return [m["text"] for m in snap["moves"]]

        play()
        assert client.post(f"/api/games/{gid}/analysis", json={}).status_code == 202
        assert [p["ply"] for p in analysed(client, gid)["points"]] == [0, 1, 2]
        play()
        written, held, go_on = SQLStore.put_analysis, threading.Event(), threading.Event()

        def held_put_analysis(self, *args, **kwargs):  # the analysis' next store waits here
            if not held.is_set():
                held.set()
                assert go_on.wait(30)
            return written(self, *args, **kwargs)

        monkeypatch.setattr(SQLStore, "put_analysis", held_put_analysis)
        assert client.post(f"/api/games/{gid}/analysis", json={}).status_code == 202
        assert held.wait(60)
        try:
            assert client.post(f"/api/games/{gid}/undo", json={"secret": key}).status_code == 200
        finally:
            go_on.set()
        wait(lambda: not client.get(f"/api/games/{gid}/analysis").json()["running"])
        assert [p["ply"] for p in client.get(f"/api/games/{gid}/analysis").json()["points"]
                ] == [0, 1, 2]
    assert [p["ply"] for p in open_store(db).get_analysis(gid)[1]] == [0, 1, 2]
