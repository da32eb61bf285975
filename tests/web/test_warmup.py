"""The engine's warm-up: workers run it before taking jobs (reporting progress, surviving a
bug in it), the shared warm-up steps, the server's readiness on ``/api/engine`` and in the game
snapshot, and ``stonegarden warm-up``."""

from __future__ import annotations

import asyncio
import os
import time
from pathlib import Path

import pytest
from click.testing import CliRunner
from starlette.testclient import TestClient

from stonegarden import warmup
from stonegarden.cli.main import cli
from stonegarden.jobs import JobPool, Limits
from stonegarden.web.app import create_app

HERE = Path(__file__).resolve().parent
SRC = HERE.parents[1] / "src"


def env(**extra: str) -> dict[str, str]:
    return dict(os.environ, PYTHONPATH=f"{SRC}{os.pathsep}{HERE}", **extra)


@pytest.mark.slow
def test_a_worker_takes_no_job_before_its_warm_up_and_reports_its_progress():
    async def main():
        p = JobPool(2, ["job_kinds"], Limits(kill_grace=1.0), env=env(WARM_SECONDS="3"),
                    warm_up="test-warm-up")
        await p.start()
        try:
            t0 = time.monotonic()
            job = p.submit("test-echo", {"x": 1}, client="a", deadline=5)
            seen = []
            while job.state == "queued" and time.monotonic() - t0 < 60:
                seen.extend(s for s in p.warm_up_states() if s)
                await asyncio.sleep(0.05)
            assert (await job.result())["x"] == 1
            assert time.monotonic() - t0 >= 2.5  # it waited for a warm-up to end
            assert p.ready_workers() >= 1
            assert {s["slot"] for s in seen} == {0, 1}  # each worker its own place
            assert {s["of"] for s in seen} == {3} and any(s["done"] >= 1 for s in seen)
        finally:
            await p.close()

    asyncio.run(main())


def test_a_failing_warm_up_still_lets_the_worker_take_jobs():
    async def main():
        p = JobPool(1, ["job_kinds"], Limits(kill_grace=1.0),
                    env=env(WARM_SECONDS="0.3", WARM_FAIL="1"), warm_up="test-warm-up")
        await p.start()
        try:
            job = p.submit("test-echo", {"x": 2}, client="a", deadline=5)
            assert (await asyncio.wait_for(job.result(), 60))["x"] == 2
            assert p.warm_up_states() == [None]
        finally:
            await p.close()

    asyncio.run(main())


def test_warm_up_runs_every_step_of_every_game_in_order_and_stops_between_games():
    calls: list[tuple[str, str]] = []
    reports: list[tuple[int, int, str]] = []
    steps = (lambda g: calls.append(("a", g.id)), lambda g: calls.append(("b", g.id)))
    games = ["blooms", "freego"]
    assert warmup.warm_up(games, steps, lambda *r: reports.append(r)) == 2
    assert calls == [("a", "blooms"), ("b", "blooms"), ("a", "freego"), ("b", "freego")]
    assert reports == [(0, 2, "blooms"), (1, 2, "freego"), (2, 2, "")]
    calls.clear()
    assert warmup.warm_up(games, steps, stop=lambda: bool(calls)) == 1
    assert [c[1] for c in calls] == ["blooms", "blooms"]


def test_rotated_starts_each_worker_at_its_share_and_keeps_every_game():
    games = ["a", "b", "c", "d", "e"]
    assert warmup.rotated(games, 0, 2) == games
    assert warmup.rotated(games, 1, 2) == ["c", "d", "e", "a", "b"]
    assert warmup.rotated(games, 3, 1) == games
    for slot in range(4):
        assert sorted(warmup.rotated(games, slot, 4)) == games


def test_random_game_plays_legal_moves_to_its_end_or_the_limit():
    from stonegarden.core.registry import make

    for gid in ("blooms", "bridgego"):
        game = make(gid)
        moves, states = warmup.random_game(game, seed=3)
        assert len(states) == len(moves) + 1 and 0 < len(moves) <= warmup.MOVES
        assert game.is_terminal(states[-1]) or len(moves) == warmup.MOVES
        assert game.replay(moves)[-1].ply == states[-1].ply


@pytest.mark.slow
def test_the_server_says_when_its_engine_is_ready(tmp_path: Path):
    with TestClient(create_app(tmp_path / "g.db", workers=1)) as client:
        first = client.get("/api/engine").json()
        assert set(first) == {"ready", "done", "of", "server", "workers"}
        assert first["of"] == 2 * len(warmup.available_games())  # the server and one worker
        t0 = time.monotonic()
        status = first
        while not status["ready"] and time.monotonic() - t0 < 600:
            time.sleep(0.2)
            status = client.get("/api/engine").json()
        assert status["ready"] and status["done"] == status["of"]
        assert status["workers"] == [{"ready": True}]
        made = client.post("/api/games", json={"game": "blooms", "params": {"size": 3},
                                               "seats": ["human", "random"]}).json()
        snap = client.get(f"/api/games/{made['id']}").json()
        assert snap["engine_ready"] is True


def test_a_server_without_warm_up_is_ready_with_its_first_worker(tmp_path: Path):
    with TestClient(create_app(tmp_path / "g.db", workers=1, warm_up=False)) as client:
        t0 = time.monotonic()
        while not client.get("/api/engine").json()["ready"] and time.monotonic() - t0 < 60:
            time.sleep(0.1)
        assert client.get("/api/engine").json()["ready"]


def test_the_warm_up_command_marks_the_cache_and_skips_when_asked(tmp_path: Path,
                                                                    monkeypatch):
    from stonegarden.cli import warmup as command

    marker = tmp_path / "warmed-up"
    monkeypatch.setattr(command, "_marker", lambda: marker)
    runner = CliRunner()
    # one game: warms it, and does not claim the whole cache is warm
    assert runner.invoke(cli, ["warm-up", "--game", "blooms", "--quiet"]).exit_code == 0
    assert not marker.exists()
    marker.touch()

    def refuse(*args: object, **kwargs: object) -> int:
        raise AssertionError("warmed up again")

    monkeypatch.setattr(warmup, "warm_up", refuse)
    assert runner.invoke(cli, ["warm-up", "--if-needed"]).exit_code == 0
    # without the flag it runs again (in this process, --jobs 1, where warm_up is replaced)
    assert runner.invoke(cli, ["warm-up", "--jobs", "1"]).exit_code != 0


def test_the_warm_up_mark_is_of_these_source_files(tmp_path: Path, monkeypatch):
    """Numba files a kernel's cache by its source file's path and time: the same code in
    another checkout (or written again by a reinstall) shares the cache's folder but none of
    its kernels, so ``--if-needed`` warms it up (it skipped, and its server compiled)."""
    import shutil

    from numba.core import config

    from stonegarden import kernel_cache

    monkeypatch.setattr(config, "CACHE_DIR", str(tmp_path / "cache"))
    warmed: list[object] = []
    monkeypatch.setattr(warmup, "warm_up", lambda *args, **kwargs: warmed.append(args))
    runner = CliRunner()  # each run in this process (--jobs 1), where warm_up is replaced
    assert runner.invoke(cli, ["warm-up", "--if-needed", "--quiet", "--jobs", "1"]).exit_code == 0
    assert runner.invoke(cli, ["warm-up", "--if-needed", "--quiet", "--jobs", "1"]).exit_code == 0
    assert len(warmed) == 1  # this checkout, once
    other = tmp_path / "other" / "stonegarden"
    shutil.copytree(kernel_cache.PACKAGE, other)  # the same code, with its files' times
    assert kernel_cache.kernel_hash(other) == kernel_cache.kernel_hash()
    monkeypatch.setattr(kernel_cache, "PACKAGE", other)
    assert runner.invoke(cli, ["warm-up", "--if-needed", "--quiet", "--jobs", "1"]).exit_code == 0
    assert len(warmed) == 2
    source = kernel_cache.kernel_sources(other)[0]
    os.utime(source, ns=(source.stat().st_atime_ns, source.stat().st_mtime_ns + 10**9))
    assert runner.invoke(cli, ["warm-up", "--if-needed", "--quiet", "--jobs", "1"]).exit_code == 0
    assert len(warmed) == 3
