"""``stonegarden warm-up --jobs``: the games compile in processes at once (numba compiles in
one thread), and none of them outlives the command, however it ends."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from stonegarden import warmup
from stonegarden.jobs import procs

from .conftest import cli_env, ctrl_c_as_in_a_terminal

MEETING = "STONEGARDEN_TEST_MEETING"


def meet(game: object) -> None:
    """A step that waits for the other process's step: it finishes only if both run at
    once (one process doing the games in turn would wait here in vain)."""
    room = Path(os.environ[MEETING])
    (room / str(os.getpid())).touch()
    deadline = time.monotonic() + 60
    while len(list(room.iterdir())) < 2:
        if time.monotonic() > deadline:
            raise AssertionError("the other game's process never came")
        time.sleep(0.05)


def test_two_games_are_warmed_in_two_processes_at_once(tmp_path, monkeypatch):
    monkeypatch.setenv(MEETING, str(tmp_path))  # the processes are spawned with it
    done = list(warmup.warm_up_in_processes(["blooms", "freego"], 2, (meet,)))
    assert sorted(done) == ["blooms", "freego"]
    pids = {int(p.name) for p in tmp_path.iterdir()}
    assert len(pids) == 2 and os.getpid() not in pids
    assert not any(procs.alive(pid) for pid in pids)  # left behind by nothing


@pytest.mark.slow
@pytest.mark.parametrize("stop", [signal.SIGINT, signal.SIGTERM], ids=["ctrl-c", "sigterm"])
def test_a_warm_up_stopped_while_compiling_ends_its_processes(tmp_path, stop):
    """From an empty cache the processes compile for minutes: Ctrl-C (to the whole terminal
    group, as a terminal sends it) or SIGTERM (to the command alone, as a service manager
    sends it) ends the command with status 130 and its processes with it."""
    proc = subprocess.Popen(
        [sys.executable, "-m", "stonegarden", "warm-up", "--jobs", "2"],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, start_new_session=True,
        env=cli_env(NUMBA_CACHE_DIR=str(tmp_path / "cache")), preexec_fn=ctrl_c_as_in_a_terminal)
    try:
        deadline = time.monotonic() + 120
        while True:  # until two of them are into their work
            workers = procs.descendants(proc.pid)
            if sum(procs.cpu_seconds(pid) > 1.5 for pid in workers) >= 2:
                break
            assert proc.poll() is None and time.monotonic() < deadline, "no processes working"
            time.sleep(0.1)
        if stop == signal.SIGINT:
            os.killpg(proc.pid, stop)
        else:
            proc.send_signal(stop)
        _, err = proc.communicate(timeout=60)
    finally:
        if proc.poll() is None:
            os.killpg(proc.pid, signal.SIGKILL)
    assert proc.returncode == 130, err
    assert err.splitlines()[-1] == "interrupted"
    deadline = time.monotonic() + 10
    while (left := [pid for pid in workers if procs.alive(pid)]) and time.monotonic() < deadline:
        time.sleep(0.1)
    assert left == []


def test_the_default_jobs_are_the_cores_this_process_may_run_on(monkeypatch):
    """``warm-up`` without ``--jobs`` counted the host's cores (``os.cpu_count``): limited to
    one core (``taskset``, a CPU affinity, a container's cpuset) on a machine of many, it
    compiled in a process a game on that one core."""
    from click.testing import CliRunner

    from stonegarden.cli.warmup import warm_up

    ran: list[object] = []
    monkeypatch.setattr(os, "cpu_count", lambda: 8)
    monkeypatch.setattr(os, "sched_getaffinity", lambda pid: {0})
    monkeypatch.setattr(warmup, "warm_up", lambda games, steps, progress: ran.append(1))
    monkeypatch.setattr(warmup, "warm_up_in_processes",
                        lambda games, jobs, steps: ran.append(jobs) or (g for g in games))
    out = CliRunner().invoke(warm_up, ["--game", "blooms", "--game", "freego", "--quiet"])
    assert out.exit_code == 0, out.output
    assert ran == [1]  # in this process, one game after the other
    monkeypatch.setattr(os, "sched_getaffinity", lambda pid: {0, 1, 2})
    ran.clear()
    out = CliRunner().invoke(warm_up, ["--game", "blooms", "--game", "freego", "--quiet"])
    assert out.exit_code == 0, out.output
    assert ran == [2]  # a process a game, as many as there are cores
