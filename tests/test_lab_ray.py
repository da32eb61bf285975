"""The Ray backend on a local Ray instance runs the same worker function as local processes
and gives the same games."""

from __future__ import annotations

import json

import pytest

from .conftest import run_cli


@pytest.fixture(autouse=True)
def _ray_installed() -> None:
    """Checked by the tests, not at collection: importing Ray there cost every worker of the
    suite seconds, for four tests (which run Ray in the command's process anyway)."""
    pytest.importorskip("ray", reason="ray is in the test extra; install it")


@pytest.mark.timeout(600)
@pytest.mark.slow
def test_study_on_local_ray_equals_local_processes(tmp_path):
    args = ["study", "blooms", "--param", "size=3", "--agent", "random", "--games", "6",
            "--seed", "11"]
    local = run_cli(*args, "--out", str(tmp_path / "local"))
    assert local.returncode == 0, local.stderr
    ray = run_cli(*args, "--backend", "ray", "--workers", "2", "--out", str(tmp_path / "ray"),
                  timeout=500)
    assert ray.returncode == 0, ray.stderr[-3000:]
    a = json.loads((tmp_path / "local" / "summary.json").read_text())["summary"]
    b = json.loads((tmp_path / "ray" / "summary.json").read_text())["summary"]
    assert a == b


@pytest.mark.timeout(300)
@pytest.mark.slow
@pytest.mark.parametrize("backend", ["local", "ray"])
def test_an_agent_that_does_not_fit_the_game_ends_in_one_line(tmp_path, backend):
    """A model of another game is refused in one line of ours on either backend, not Ray's
    remote traceback (it is now found before any game starts)."""
    from stonegarden.core.registry import make
    from stonegarden.search.profile import profile_for

    other = profile_for(make("freego")).shipped_model_path()
    out = run_cli("study", "blooms", "--param", "size=3", "--agent",
                  f"mcts:sims=20,model={other}", "--games", "2", "--workers", "2",
                  "--backend", backend, "--out", str(tmp_path), timeout=250)
    assert out.returncode != 0
    assert "Traceback" not in out.stderr and "ray::" not in out.stderr, out.stderr[-2000:]
    assert out.stderr.startswith("error: agent ") and "'freego-patterns' model" in out.stderr
    assert len(out.stderr.strip().splitlines()) == 1


@pytest.mark.timeout(300)
@pytest.mark.slow
def test_without_an_address_the_command_runs_a_ray_of_its_own(tmp_path):
    """With RAY_ADDRESS set (or a `ray start` on the machine), Ray joined that cluster and
    refused the CPUs the command asks for (--workers): a traceback of Ray's ValueError."""
    out = run_cli("study", "blooms", "--param", "size=3", "--agent", "random", "--games", "2",
                  "--backend", "ray", "--workers", "2", "--out", str(tmp_path), timeout=250,
                  RAY_ADDRESS="127.0.0.1:6399")
    assert out.returncode == 0, out.stderr[-3000:]
    assert json.loads((tmp_path / "summary.json").read_text())["summary"]["games"] == 2


@pytest.mark.timeout(300)
@pytest.mark.parametrize("command", [
    ["study", "blooms", "--param", "size=3", "--agent", "random"],
    ["ladder", "blooms", "--param", "size=3", "--agent", "mcts", "--key", "sims", "--base",
     "5", "--steps", "1"],
])
def test_an_address_where_no_cluster_answers_is_refused_before_anything_is_written(
        tmp_path, command):
    """Ray's init retries an address where nothing listens for ever ("Failed to connect to
    GCS" every 40 s): the command waited at 0 games until it was killed. It is refused at
    once, naming the address, and the output folder is not made."""
    import socket
    import time

    with socket.socket() as s:  # a port of this machine where nothing listens
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    started = time.monotonic()
    out = run_cli(*command, "--games", "2", "--backend", "ray", "--address",
                  f"127.0.0.1:{port}", "--out", str(tmp_path / "o"), timeout=120)
    assert out.returncode == 2, out.stderr[-2000:]
    assert out.stderr.splitlines()[-1] == (
        f"error: --address '127.0.0.1:{port}': no Ray cluster answers (connection refused); "
        "start one there with `ray start --head`, or leave --address out to run Ray on this "
        "machine")
    assert time.monotonic() - started < 100  # no wait of Ray's
    assert not (tmp_path / "o").exists()
