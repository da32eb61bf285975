"""A job's search takes at most the server's ``--job-threads``: a seat asking for more is
refused, levels 5 and 6 take that many, and a game searched through the protocol starts no
more helper processes than that allows (each extra tree of such a search is a process)."""

from __future__ import annotations

import os
import threading
import time
from pathlib import Path

import pytest

pytest.importorskip("httpx2", reason="starlette's TestClient needs httpx2 (test extra)")
from click.testing import CliRunner
from starlette.testclient import TestClient

from stonegarden.cli.serve import cores_per_worker, serve
from stonegarden.errors import ParameterError
from stonegarden.jobs.kinds import JobContext
from stonegarden.search.config import default_threads
from stonegarden.web import job_kinds
from stonegarden.web.app import create_app
from stonegarden.web.service import Budgets

HELPER = b"stonegarden.search.helpers"
WORKER = b"stonegarden.jobs.worker"


def seat_status(client: TestClient, spec: str) -> tuple[int, str]:
    r = client.post("/api/games", json={"game": "blooms", "params": {"size": 2, "target": 2},
                                        "seats": ["human", spec]})
    return r.status_code, r.text


@pytest.mark.parametrize("job_threads", [1, 2])
def test_a_seat_asking_for_more_threads_than_a_job_may_take_is_refused(db, job_threads):
    budgets = Budgets(job_threads=job_threads)
    with TestClient(create_app(db, workers=1, budgets=budgets)) as client:
        assert client.get("/api/meta").json()["limits"]["job_threads"] == job_threads
        for n in range(1, job_threads + 1):
            assert seat_status(client, f"mcts:threads={n},sims=5")[0] == 201
        status, text = seat_status(client, f"mcts:threads={job_threads + 1},sims=5")
        assert status == 400 and "--job-threads" in text and f"1..{job_threads}" in text
        for level in ("level:5", "level:6"):  # a level takes what it is given
            assert seat_status(client, level)[0] == 201


def test_levels_take_the_jobs_threads_and_explicit_counts_are_checked():
    assert job_kinds.server_agent("level:6", 1).threads == 1
    assert job_kinds.server_agent("level:5", 64).threads == default_threads()
    assert job_kinds.server_agent("level:6", 2).threads == min(2, default_threads())
    assert job_kinds.server_agent("level:4", 8).threads == 1  # levels 1-4: one thread anywhere
    assert job_kinds.server_agent("mcts:threads=3", 3).threads == 3
    with pytest.raises(ParameterError, match=r"1\.\.2 on this server"):
        job_kinds.server_agent("mcts:threads=3", 2)


def test_an_agent_move_job_refuses_a_stored_seat_with_more_threads():
    """A seat stored under a larger --job-threads: the worker's job refuses it (the server
    then pauses the agent with the reason) instead of searching with more threads."""
    ctx = JobContext(threading.Event(), lambda value: None)
    args = {"game": "freego", "params": {"size": 5}, "moves": ["c3"]}
    with pytest.raises(ParameterError, match="--job-threads"):
        job_kinds.agent_move({**args, "spec": "mcts:threads=2,sims=20", "threads": 1}, ctx)
    assert job_kinds.agent_move({**args, "spec": "mcts:threads=2,sims=20,seed=1", "threads": 2}, ctx)


def test_the_default_shares_the_cores_out_among_the_workers():
    cores = default_threads()
    assert cores_per_worker(1) == cores
    assert cores_per_worker(cores) == 1
    assert cores_per_worker(cores + 1) == 1  # at least one
    if cores >= 2:
        assert cores_per_worker(2) == cores // 2


def test_serve_refuses_a_hint_agent_with_more_threads_than_a_job_may_take(tmp_path):
    result = CliRunner().invoke(serve, ["--db", str(tmp_path / "g.db"), "--job-threads", "1",
                                        "--hint-agent", "mcts:threads=2,time=1"])
    assert result.exit_code == 2 and "--job-threads" in result.output, result.output


def helpers_of_workers_of(root: int) -> list[int]:
    """Search helper processes whose parent is a job worker that ``root`` started (``/proc``;
    the helpers ``root`` may have started for its own searches are not counted)."""
    parents: dict[int, int] = {}
    commands: dict[int, bytes] = {}
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            stat = (entry / "stat").read_text()
            commands[int(entry.name)] = (entry / "cmdline").read_bytes()
        except OSError:  # ended meanwhile
            continue
        parents[int(entry.name)] = int(stat.rsplit(")", 1)[1].split()[1])
    workers = {pid for pid, cmd in commands.items()
               if WORKER in cmd and parents.get(pid) == root}
    return [pid for pid, cmd in commands.items() if HELPER in cmd and parents.get(pid) in workers]


@pytest.mark.skipif(not Path("/proc/self/stat").exists(), reason="reads /proc")
@pytest.mark.parametrize(("job_threads", "helpers"), [(1, 0), (2, 1)])
def test_a_level_6_search_through_the_protocol_starts_helpers_only_as_the_jobs_threads_allow(
        db, job_threads, helpers):
    """Blobs is searched through the protocol, so each tree past the first is a helper
    process in the worker; with one thread a job there is none (two: one, the control that
    shows the count can be seen). Blobs' opening die leaves the first turn to seat 2."""
    if job_threads > default_threads():
        pytest.skip("needs two cores")
    budgets = Budgets(job_threads=job_threads, max_think=0.5)
    with TestClient(create_app(db, workers=1, budgets=budgets)) as client:
        made = client.post("/api/games", json={"game": "blobs", "seats": ["human", "level:6"]})
        assert made.status_code == 201, made.text
        gid = made.json()["id"]
        for _ in range(1200):
            snap = client.get(f"/api/games/{gid}").json()
            if snap["length"] >= 1:
                break
            assert not snap.get("paused"), snap.get("notice")
            time.sleep(0.05)
        assert snap["length"] == 1, "level 6 never moved"
        assert len(helpers_of_workers_of(os.getpid())) == helpers
