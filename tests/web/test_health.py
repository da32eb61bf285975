"""The health check a load balancer or a monitor asks: whether this process serves games."""

from __future__ import annotations

from pathlib import Path

from starlette.testclient import TestClient

from stonegarden.errors import StoreError
from stonegarden.store.sql import SQLStore
from stonegarden.web.app import create_app


def test_a_serving_process_is_healthy_and_says_whether_its_engine_is_ready(tmp_path: Path):
    with TestClient(create_app(tmp_path / "games.db", workers=1)) as client:
        r = client.get("/api/health")
        assert r.status_code == 200, r.text
        body = r.json()
        assert body["ok"] is True and isinstance(body["engine_ready"], bool)
        assert body["workers"] in (0, 1)
        assert r.headers["cache-control"] == "no-store"


def test_a_process_whose_database_does_not_answer_is_unhealthy(tmp_path: Path, monkeypatch):
    with TestClient(create_app(tmp_path / "games.db", workers=1)) as client:
        def down(self, game_id):
            raise StoreError("the database does not answer")

        monkeypatch.setattr(SQLStore, "get", down)
        r = client.get("/api/health")
        assert r.status_code == 503
        assert "does not answer" in r.json()["error"]


def test_a_stopping_process_is_unhealthy_so_the_balancer_sends_no_more(tmp_path: Path):
    with TestClient(create_app(tmp_path / "games.db", workers=1)) as client:
        assert client.get("/api/health").status_code == 200
        client.app.state.begin_shutdown()  # what the server's SIGTERM calls first
        for _ in range(100):  # it runs on the loop's next step
            r = client.get("/api/health")
            if r.status_code != 200:
                break
        assert r.status_code == 503
        assert "stopping" in r.json()["error"]
