"""New games one client may make in an hour (``--client-games``): a token bucket per client."""

from __future__ import annotations

from pathlib import Path

import pytest
from starlette.testclient import TestClient

from stonegarden.jobs.pool import Limits
from stonegarden.web.app import create_app
from stonegarden.web.rate_limit import RateLimit
from stonegarden.web.service import Budgets

SMALL = {"size": 3}
RECORD = '{"format": "stonegarden-record", "version": 1, "game": "blooms", ' \
         '"params": {"size": 3}, "players": {"1": "human", "2": "human"}, "moves": ["Rb1"]}'


def test_a_client_may_make_its_hours_games_at_once_then_one_as_each_comes_due():
    limit = RateLimit(per_hour=4)
    assert [limit.take("a", now=0.0) for _ in range(4)] == [0.0] * 4
    assert limit.take("a", now=0.0) == 900.0           # the next in a quarter of an hour
    assert limit.take("b", now=0.0) == 0.0             # another client is not held back
    assert limit.take("a", now=600.0) == pytest.approx(300.0)        # a refusal spends nothing
    assert limit.take("a", now=900.0) == 0.0
    assert limit.take("a", now=900.0) == 900.0
    assert limit.take("a", now=10 * 3600.0) == 0.0     # a quiet hour fills it, and no more
    assert [limit.take("a", now=10 * 3600.0) for _ in range(4)] == [0.0] * 3 + [900.0]


def test_the_clients_remembered_are_bounded_forgetting_the_longest_unseen():
    limit = RateLimit(per_hour=1, most_clients=3)
    for client in "abcd":
        assert limit.take(client, now=0.0) == 0.0
    assert len(limit) == 3
    assert limit.take("a", now=1.0) == 0.0     # forgotten: a full bucket again
    assert limit.take("d", now=1.0) > 0        # remembered


def test_past_its_games_an_hour_a_client_is_refused_429_with_retry_after(db: Path):
    app = create_app(db, workers=1, warm_up=False, budgets=Budgets(games_per_client=3),
                     forwarded_allow_ips=["*"])
    ana, bo = {"X-Forwarded-For": "203.0.113.7"}, {"X-Forwarded-For": "198.51.100.9"}
    with TestClient(app) as c:
        game = {"game": "blooms", "params": SMALL, "seats": ["human", "human"]}
        for _ in range(2):
            assert c.post("/api/games", json=game, headers=ana).status_code == 201
        upload = c.post("/api/records", content=RECORD,
                        headers={**ana, "Content-Type": "application/json"})
        assert upload.status_code == 201, upload.text  # an upload is a new game too
        for refused in (c.post("/api/games", json=game, headers=ana),
                        c.post("/api/records", content=RECORD,
                               headers={**ana, "Content-Type": "application/json"})):
            assert refused.status_code == 429, refused.text
            assert "faster than the 3 an hour one client may" in refused.json()["error"]
            assert 1100 <= int(refused.headers["retry-after"]) <= 1200
        assert c.post("/api/games", json=game, headers=bo).status_code == 201
        assert c.get("/api/meta").json()["limits"]["games_per_client_hour"] == 3


def test_a_rematch_is_a_new_game_so_resigning_and_rematching_makes_no_more(db: Path):
    """A game resigned at once and its rematch, again and again, made games without end
    while rematches were not counted. The opponent's request for the same rematch is not a
    new game; one made again after an aborted rematch is."""
    app = create_app(db, workers=1, warm_up=False, budgets=Budgets(games_per_client=4))
    with TestClient(app) as c:
        made = c.post("/api/games", json={"game": "blooms", "params": SMALL,
                                          "seats": ["human", "human"]}).json()
        gid, mine, theirs = made["id"], made["secrets"]["1"], made["secrets"]["2"]
        for _ in range(2):  # two rematches: with the game, three of the four
            assert c.post(f"/api/games/{gid}/move",
                          json={"secret": mine, "move": "resign"}).is_success
            rematch = c.post(f"/api/games/{gid}/rematch", json={"secret": mine})
            assert rematch.status_code == 201, rematch.text
            accepted = c.post(f"/api/games/{gid}/rematch", json={"secret": theirs})
            assert accepted.status_code == 200, accepted.text  # the same game: not counted
            gid, mine, theirs = rematch.json()["id"], rematch.json()["secret"], \
                accepted.json()["secret"]
        assert c.post(f"/api/games/{gid}/move", json={"secret": mine, "move": "resign"}).is_success
        rematch = c.post(f"/api/games/{gid}/rematch", json={"secret": mine})
        assert rematch.status_code == 201, rematch.text  # the fourth
        assert c.post(f"/api/games/{rematch.json()['id']}/abort",
                      json={"secret": rematch.json()["secret"]}).is_success
        refused = c.post(f"/api/games/{gid}/rematch", json={"secret": mine})
        assert refused.status_code == 429 and "faster than the 4 an hour" in refused.text
        assert int(refused.headers["retry-after"]) > 0


def test_a_game_refused_for_another_reason_is_not_counted(db: Path):
    """A public game refused because the client has its games waiting in the lobby spent one
    of the hour's games: a page retrying it used up the client's hour making nothing."""
    app = create_app(db, workers=1, warm_up=False,
                     budgets=Budgets(games_per_client=3, lobby_per_client=1))
    with TestClient(app) as c:
        waiting = {"game": "blooms", "params": SMALL, "seats": ["human", "open"], "public": True}
        assert c.post("/api/games", json=waiting).status_code == 201
        for _ in range(4):
            refused = c.post("/api/games", json=waiting)
            assert refused.status_code == 429 and "lobby" in refused.json()["error"]
        game = {"game": "blooms", "params": SMALL, "seats": ["human", "human"]}
        for _ in range(2):
            assert c.post("/api/games", json=game).status_code == 201
        assert c.post("/api/games", json=game).status_code == 429


def test_an_upload_refused_for_a_full_job_queue_is_not_counted(db: Path):
    """An upload the job queue had no room for spent one of the hour's games, though nothing
    was replayed or made: a page retrying it used up the client's hour."""
    app = create_app(db, workers=1, warm_up=False, budgets=Budgets(games_per_client=2),
                     limits=Limits(queue=0))
    upload = {"content": RECORD, "headers": {"Content-Type": "application/json"}}
    with TestClient(app) as c:
        for _ in range(4):
            refused = c.post("/api/records", **upload)
            assert refused.status_code == 429 and "queue is full" in refused.json()["error"]
        game = {"game": "blooms", "params": SMALL, "seats": ["human", "human"]}
        for _ in range(2):
            assert c.post("/api/games", json=game).status_code == 201
        refused = c.post("/api/games", json=game)
        assert refused.status_code == 429 and "faster than the 2 an hour" in refused.text


def test_a_game_given_back_is_one_more_the_client_may_make_and_no_more_than_its_hour():
    limit = RateLimit(per_hour=2)
    assert limit.take("a", now=0.0) == 0.0
    limit.give_back("a")
    limit.give_back("a")  # never past the hour's games
    assert [limit.take("a", now=0.0) for _ in range(3)] == [0.0, 0.0, 1800.0]
    limit.give_back("b")  # a client never seen: nothing to give back
    assert len(limit) == 1
