"""The server while its database fails under it (a full disk, a database restarting): what
the answers say, what is stored, and that a game goes on once the database is back."""

from __future__ import annotations

from pathlib import Path

import pytest

pytest.importorskip("httpx2", reason="starlette's TestClient needs httpx2 (test extra)")
from starlette.testclient import TestClient

from stonegarden.core.registry import make
from stonegarden.errors import StoreError
from stonegarden.store import open_store
from stonegarden.store.sql import SQLStore
from stonegarden.web.app import create_app

TUMBLING = {"tumbling": True}  # Blobs rolls the face type before every move


def fail_the_next_roll(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """The store refuses the next roll it is asked to write, once, as a full disk would; the
    returned list gets the text of every move written."""
    written = SQLStore.append_move
    log: list[str] = []
    armed = [True]

    def append_move(self, game_id, ply, text, *args, **kwargs):
        if text.startswith("roll:") and armed[0]:
            armed[0] = False
            raise StoreError(f"{self.location}: database or disk is full")
        log.append(text)
        return written(self, game_id, ply, text, *args, **kwargs)

    monkeypatch.setattr(SQLStore, "append_move", append_move)
    return log


def test_a_move_stored_before_a_roll_that_failed_is_acknowledged_and_the_roll_comes_later(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch):
    db = tmp_path / "games.db"
    with TestClient(create_app(db, workers=1, warm_up=False)) as client:
        r = client.post("/api/games", json={"game": "blobs", "params": TUMBLING,
                                            "seats": ["human", "human"]})
        assert r.status_code == 201, r.text
        made = r.json()
        gid = made["id"]
        snap = client.get(f"/api/games/{gid}").json()
        seat = snap["to_move"]
        game = make("blobs", **TUMBLING)
        state = game.replay([m["text"] for m in snap["moves"]])[-1]
        move = game.action_to_text(state, int(game.legal_actions(state)[0]))
        written = fail_the_next_roll(monkeypatch)
        r = client.post(f"/api/games/{gid}/move",
                        json={"secret": made["secrets"][str(seat)], "move": move})
        # the move is stored: it is answered as made, not as a failure to retry
        assert r.status_code == 200, r.text
        assert written == [move]
        assert open_store(db).get(gid).moves[-1] == move
        # the game does not wait at the roll for ever: the next look at it rolls
        snap = client.get(f"/api/games/{gid}").json()
        assert snap["moves"][-2]["text"] == move
        assert snap["moves"][-1]["text"].startswith("roll:")
        assert snap["to_move"] == 3 - seat
