"""The computer's analysis with two ``serve`` processes sharing one PostgreSQL database: what one
stores is what the other serves of a game it holds (its pages are told), not the analysis it
read when it first opened the game."""

from __future__ import annotations

import time
from collections.abc import Iterator
from pathlib import Path

import pytest
from test_analysis_cancel import study_record
from webhelpers import Server


@pytest.fixture
def pair(pg_database: str, tmp_path: Path) -> Iterator[tuple[Server, Server]]:
    a = Server(pg_database, None, log=tmp_path / "a.log").start()
    b = Server(pg_database, None, log=tmp_path / "b.log").start()
    yield a, b
    a.stop()
    b.stop()


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
    t0 = time.monotonic()  # b hears of it (NOTIFY), and reads it again
    while (there := analysis(b, gid))["points"] != done["points"]:
        assert time.monotonic() - t0 < 10, there
        time.sleep(0.1)
    assert there["done"] and not there["running"]
    status, record = b.request("GET", f"/api/games/{gid}/record")
    assert status == 200 and record["meta"]["analysis"]["points"] == done["points"]
