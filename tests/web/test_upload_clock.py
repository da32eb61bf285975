"""An uploaded record's time control: kept apart from the running clock (no clock runs for an
upload), said on the game's page, in its record and its SGF, and read again from the store."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

pytest.importorskip("httpx2", reason="starlette's TestClient needs httpx2 (test extra)")
from starlette.testclient import TestClient

from stonegarden.web.app import create_app

RECORD = {"format": "stonegarden-record", "version": 1, "game": "freego",
          "params": {"size": 5}, "moves": ["C3", "D4"]}
SGF = {"Content-Type": "application/x-go-sgf"}


def test_an_uploaded_records_time_control_is_kept_said_and_given_back(client, db: Path):
    """A record downloaded from a clock game and uploaded again lost its time control: the
    game's page, its record and its SGF said nothing of it."""
    uploads = (
        (json.dumps({**RECORD, "meta": {"clock": {"initial": 600, "increment": 5}}}).encode(),
         {"Content-Type": "application/json"}, {"initial": 600, "increment": 5},
         "10 min + 5 s", "TM[600]OT[Fischer: +5 s a move]"),
        (b"(;GM[1]SZ[5]RU[stonegarden freego]OT[correspondence: 3 days a move];B[cc])", SGF,
         {"days_per_move": 3}, "3 days a move", "OT[correspondence: 3 days a move]"),
    )
    ids = []
    for body, headers, clock, words, props in uploads:
        r = client.post("/api/records", content=body, headers=headers)
        assert r.status_code == 201, r.text
        gid = r.json()["id"]
        ids.append((gid, clock, words))
        snap = client.get(f"/api/games/{gid}").json()
        assert snap["played_under"] == words and snap["clock"] is None, snap
        assert client.get(f"/api/games/{gid}/record").json()["meta"]["clock"] == clock
        assert props in client.get(f"/api/games/{gid}/record.sgf").text
    # read again from the store by a server started anew
    with TestClient(create_app(db, workers=1)) as again:
        for gid, clock, words in ids:
            assert again.get(f"/api/games/{gid}").json()["played_under"] == words
            assert again.get(f"/api/games/{gid}/record").json()["meta"]["clock"] == clock


def test_an_upload_without_a_time_control_or_with_one_no_clock_here_runs_says_none(client):
    """Another program's time control (a byo-yomi, a 5 s game) is no clock of this server's:
    the record is taken all the same, and says none."""
    for meta in ({}, {"clock": {"initial": 5, "increment": 0}}, {"clock": "5 min"},
                 {"clock": {"periods": 5}}):
        r = client.post("/api/records", json={**RECORD, "meta": meta})
        assert r.status_code == 201, r.text
        gid = r.json()["id"]
        assert client.get(f"/api/games/{gid}").json()["played_under"] is None
        assert "clock" not in client.get(f"/api/games/{gid}/record").json()["meta"]
