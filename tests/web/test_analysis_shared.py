"""The computer's analysis with two ``serve`` processes sharing one PostgreSQL database: what one
stores is what the other serves of a game it holds (its pages are told), not the analysis it
read when it first opened the game."""

from __future__ import annotations

import itertools
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
from test_analysis_cancel import study_record, until
from webhelpers import Server

#: a worker of ``pytest -n`` sent other modules' tests between two batches of these sets the
#: module's pair up again: each pair on a database of its own
_pairs = itertools.count()


def two_servers(dsn: str, folder: Path) -> Iterator[tuple[Server, Server]]:
    a = Server(dsn, None, log=folder / "a.log").start()
    b = Server(dsn, None, log=folder / "b.log").start()
    yield a, b
    a.stop()
    b.stop()


@pytest.fixture(scope="module")
def pair(postgres, tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[Server, Server]]:
    """Two servers on one database for the tests that share them (two starts are seconds of
    a loaded machine): each studies its own game, leaves no analysis running, and stops
    neither."""
    yield from two_servers(postgres.create_database(f"analysis_pair{next(_pairs)}"),
                           tmp_path_factory.mktemp("pair"))


@pytest.fixture
def own_pair(pg_database: str, tmp_path: Path) -> Iterator[tuple[Server, Server]]:
    """Two servers of the test's own, for a test that kills one."""
    yield from two_servers(pg_database, tmp_path)


def analysis(server: Server, gid: str) -> dict:
    status, a = server.request("GET", f"/api/games/{gid}/analysis")
    assert status == 200, a
    return a


def test_an_analysis_stored_through_one_server_is_served_by_the_other(pair):
    a, b = pair
    status, made = a.request("POST", "/api/records", study_record(4))
    assert status == 201, made
    gid = made["id"]
    assert analysis(b, gid)["points"] == []  # b holds the game now, with no analysis
    assert a.request("POST", f"/api/games/{gid}/analysis", {})[0] == 202
    t0 = time.monotonic()
    while not (done := analysis(a, gid))["done"]:
        assert time.monotonic() - t0 < 120 and not done["error"], done
        time.sleep(0.2)
    # b hears of it (NOTIFY) and reads it again: the last points, then the run's end, each a
    # change of its own (b may show the points, still running, for a moment between them)
    t0 = time.monotonic()
    while not ((there := analysis(b, gid))["points"] == done["points"]
               and there["done"] and not there["running"]):
        assert time.monotonic() - t0 < 10, there
        time.sleep(0.1)
    status, record = b.request("GET", f"/api/games/{gid}/record")
    assert status == 200 and record["meta"]["analysis"]["points"] == done["points"]


def running_on(server: Server, gid: str) -> bool:
    return bool(analysis(server, gid)["running"])


def test_an_analysis_running_through_one_server_runs_for_the_other(pair):
    """Through b, the analysis a runs shows running (its points as a stores them), asking
    again there starts no second one, and a cancel there stops it in a."""
    a, b = pair
    status, made = a.request("POST", "/api/records", study_record(40))
    assert status == 201, made
    gid = made["id"]
    assert analysis(b, gid)["engine"] is None  # b holds the game, with no analysis
    assert a.request("POST", f"/api/games/{gid}/analysis", {})[0] == 202
    until(lambda: running_on(b, gid), 10)  # b hears of the claim, and shows it running
    there = analysis(b, gid)
    assert there["can_cancel"] and not there["done"], there
    status, asked = b.request("POST", f"/api/games/{gid}/analysis", {})
    assert status == 202 and asked["running"], asked
    status, snap = b.request("GET", f"/api/games/{gid}")
    assert status == 200 and snap["analysis"]["running"], snap["analysis"]
    status, cancelled = b.request("POST", f"/api/games/{gid}/analysis/cancel", {})
    assert status == 200 and cancelled["cancelled"] and not cancelled["running"], cancelled
    assert not running_on(a, gid)  # a stopped it: its cancel is a's
    assert analysis(a, gid)["cancelled"]
    # no process runs it now: a second cancel is refused, and asking again through b runs it
    assert b.request("POST", f"/api/games/{gid}/analysis/cancel", {})[0] == 409
    assert b.request("POST", f"/api/games/{gid}/analysis", {})[0] == 202
    assert running_on(b, gid)
    until(lambda: running_on(a, gid), 10)
    assert b.request("POST", f"/api/games/{gid}/analysis/cancel", {})[0] == 200


def test_an_analysis_whose_server_was_killed_is_offered_again(own_pair):
    a, b = own_pair
    status, made = a.request("POST", "/api/records", study_record(40))
    assert status == 201, made
    gid = made["id"]
    assert analysis(b, gid)["engine"] is None
    assert a.request("POST", f"/api/games/{gid}/analysis", {})[0] == 202
    until(lambda: running_on(b, gid), 10)
    a.kill9()
    t0 = time.monotonic()  # its claim, renewed no more, runs out: b offers it again
    until(lambda: not running_on(b, gid), 60)
    assert time.monotonic() - t0 > 1  # not at once: the claim outlived a's last renewal
    assert b.request("POST", f"/api/games/{gid}/analysis", {})[0] == 202
    assert running_on(b, gid)
    assert b.request("POST", f"/api/games/{gid}/analysis/cancel", {})[0] == 200


def test_a_cancel_and_the_run_after_it_show_alike_through_every_server(pg_database, tmp_path):
    """Cancelled through b while a ran it, a third server c showed it neither running nor
    cancelled ("12 of 41 positions analysed"); asked for again and done, b still showed it
    cancelled (its own cancel, kept over the new run's points)."""
    servers = [Server(pg_database, None, log=tmp_path / f"{n}.log").start() for n in "abc"]
    try:
        a, b, c = servers
        status, made = a.request("POST", "/api/records", study_record(14))
        assert status == 201, made
        gid = made["id"]
        for s in (b, c):
            assert analysis(s, gid)["engine"] is None  # each holds the game
        assert a.request("POST", f"/api/games/{gid}/analysis", {})[0] == 202
        until(lambda: running_on(b, gid) and running_on(c, gid), 10)
        status, cancelled = b.request("POST", f"/api/games/{gid}/analysis/cancel", {})
        assert status == 200 and cancelled["cancelled"], cancelled
        for s in (a, c):
            until(lambda s=s: analysis(s, gid)["cancelled"], 10)
        assert a.request("POST", f"/api/games/{gid}/analysis", {})[0] == 202
        until(lambda: analysis(a, gid)["done"], 120)
        for s in (b, c):
            there = until(lambda s=s: (x := analysis(s, gid))["done"] and x, 10)
            assert not there["cancelled"], there
    finally:
        for s in servers:
            s.stop()
