"""The Ray backend, on a local Ray instance and on a cluster of Ray nodes started as a designer
starts them (``ray start --head``, ``ray start --address``), runs the same worker function as
local processes and gives the same games."""

from __future__ import annotations

import contextlib
import http.server
import json
import os
import secrets
import signal
import socket
import sqlite3
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path

import pytest

from stonegarden import __version__

from .conftest import SRC, cli_env, run_cli

# one Ray at a time on this machine: two (a cluster's head and a Ray of a command's own, on two
# workers of the suite) would both ask for Ray's fixed ports (its dashboard agent's, 52365), and
# the module's cluster is started once, not once by each worker; ``--dist loadgroup`` in
# scripts/test.sh keeps the group on one worker
pytestmark = pytest.mark.xdist_group("ray")


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


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


@dataclass
class Cluster:
    """Ray nodes on this machine, each a ``ray start --block`` in a process group of its own
    (which holds every process of the node), sharing the head's temp dir. The head finds a
    token of Ray's where it starts, as on a machine where Ray has run before (a Ray of the
    command's own leaves one), and so asks for it (Ray's token authentication)."""

    folder: Path
    temp: Path
    pythonpath: str
    address: str = ""
    nodes: list[subprocess.Popen[bytes]] = field(default_factory=list)

    @property
    def token(self) -> dict[str, str]:
        """The environment of a process on the head's machine: its token (in the place of
        ``~/.ray/auth_token``, which the machine's other users of Ray share)."""
        path = self.folder / "auth_token"
        if not path.exists():
            path.write_text(secrets.token_hex(32))
        return {"RAY_AUTH_TOKEN_PATH": str(path)}

    def start(self, cpus: int) -> None:
        """One more node with ``cpus`` CPUs: the head first, then nodes joining it."""
        env = {**cli_env(**self.token), "PYTHONPATH": self.pythonpath}
        env.pop("RAY_AUTH_MODE", None)
        if self.address:  # as docs/lab.md says a machine joins a head that asks for a token
            where = [f"--address={self.address}"]
            env["RAY_AUTH_MODE"] = "token"
        else:
            self.address = f"127.0.0.1:{_free_port()}"
            where = ["--head", f"--port={self.address.rpartition(':')[2]}",
                     "--include-dashboard=false", f"--temp-dir={self.temp}"]
        log = self.folder / f"node-{len(self.nodes)}.log"
        with log.open("wb") as out:
            node = subprocess.Popen(
                [sys.executable, "-m", "ray.scripts.scripts", "start", *where,
                 f"--num-cpus={cpus}", "--disable-usage-stats", "--block"],
                stdout=out, stderr=subprocess.STDOUT, start_new_session=True,
                env=env)
        self.nodes.append(node)
        deadline = time.monotonic() + 120
        while "Ray runtime started" not in log.read_text(errors="replace"):
            assert node.poll() is None and time.monotonic() < deadline, log.read_text()[-3000:]
            time.sleep(0.2)

    def stop(self) -> None:
        """End every node's process group, and any process of the cluster left outside one
        (each names the temp dir in its command line)."""
        for node in self.nodes:
            with contextlib.suppress(ProcessLookupError):
                os.killpg(node.pid, signal.SIGKILL)
            node.wait()
        for pid in _processes_naming(self.temp):
            with contextlib.suppress(ProcessLookupError):
                os.kill(pid, signal.SIGKILL)


def _processes_naming(text: Path) -> list[int]:
    """The processes whose command line holds ``text`` (read from /proc: ``pgrep`` is procps',
    which a machine may not have)."""
    found = []
    for cmdline in Path("/proc").glob("[0-9]*/cmdline"):
        try:
            args = cmdline.read_bytes().replace(b"\0", b" ").decode(errors="replace")
        except OSError:  # it ended meanwhile
            continue
        if str(text) in args and int(cmdline.parent.name) != os.getpid():
            found.append(int(cmdline.parent.name))
    return found


@contextlib.contextmanager
def ray_cluster(folder: Path, cpus: list[int], pythonpath: str = str(SRC)) -> Iterator[Cluster]:
    """A head with ``cpus[0]`` CPUs and a node joined to it for each other entry; stopped, with
    every process of it, however the test ends. Ray's temp dir is under ``folder`` where its
    sockets' paths fit (107 bytes), else in the system's temp dir."""
    temp = folder / "ray"
    short = len(str(temp)) + 70 <= 107  # + /session_<date>_<pid>/sockets/plasma_store
    temp = temp if short else Path(tempfile.mkdtemp(prefix="sg-ray-"))
    cluster = Cluster(folder, temp, pythonpath)
    try:
        for n in cpus:
            cluster.start(n)
        yield cluster
    finally:
        cluster.stop()
        if not short:
            subprocess.run(["rm", "-rf", str(temp)], check=False)
    assert not _processes_naming(temp), "a Ray process outlived its cluster"


@pytest.fixture(scope="module")
def cluster(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Cluster]:
    """Two nodes of one CPU each, as `ray start` makes them on two machines."""
    pytest.importorskip("ray", reason="ray is in the test extra; install it")
    with ray_cluster(tmp_path_factory.mktemp("ray"), [1, 1]) as c:
        yield c


def _played_on(stderr: str, address: str) -> dict[str, int]:
    """The games the command says each node of the cluster played (by node id)."""
    head = f"played on the Ray cluster at {address}: "
    line = next(ln for ln in stderr.splitlines() if ln.startswith(head))
    counts = {}
    for part in line.removeprefix(head).split(", "):
        node, games, _ = part.rsplit(" ", 2)
        counts[node] = int(games)
    return counts


@pytest.mark.timeout(300)
@pytest.mark.slow
def test_a_study_on_a_cluster_is_played_on_all_its_nodes(cluster, tmp_path):
    """The docs' way to many machines had never been run: the games go to every node of the
    cluster at --address (not to a Ray of the command's own), which the command says."""
    on_cluster = run_cli("study", "blooms", "--param", "size=4", "--agent", "mcts:sims=40",
                         "--games", "8", "--quiet", "--backend", "ray", "--address",
                         cluster.address, "--workers", "4", "--out", str(tmp_path),
                         timeout=200, **cluster.token)
    assert on_cluster.returncode == 0, on_cluster.stderr[-3000:]
    assert (f"--workers 4 is not used on the Ray cluster at {cluster.address}"
            in on_cluster.stderr)
    nodes = _played_on(on_cluster.stderr, cluster.address)
    assert len(nodes) == 2 and sum(nodes.values()) == 8, on_cluster.stderr  # both nodes
    assert json.loads((tmp_path / "summary.json").read_text())["summary"]["games"] == 8


def _stored(db: Path) -> int:
    try:
        with contextlib.closing(sqlite3.connect(f"file:{db}?mode=ro", uri=True)) as c:
            return int(c.execute("SELECT count(*) FROM games").fetchone()[0])
    except sqlite3.Error:  # not made yet
        return 0


@pytest.mark.timeout(300)
@pytest.mark.slow
def test_a_sweep_on_a_cluster_stopped_by_sigterm_goes_on_from_its_stored_games(cluster,
                                                                              tmp_path):
    """Ray put its own SIGTERM handler in place: `timeout` or `kill` ended a run on Ray with
    a stack dump, and without saying how many games were stored. It stops as Ctrl-C does, the
    same command plays the games left only, and they are the local backend's games."""
    out = tmp_path / "ray"
    args = [sys.executable, "-m", "stonegarden", "sweep", "blooms", "--param", "size=4",
            "--grid", "target=6,8", "--agent", "mcts:sims=40", "--games", "6", "--seed", "2",
            "--quiet"]
    run = subprocess.Popen([*args, "--backend", "ray", "--address", cluster.address, "--out",
                            str(out)], env=cli_env(**cluster.token), stderr=subprocess.PIPE, text=True)
    try:
        deadline = time.monotonic() + 150
        while _stored(out / "lab.sqlite") < 1 and time.monotonic() < deadline:
            time.sleep(0.05)
        run.send_signal(signal.SIGTERM)
        _, stderr = run.communicate(timeout=60)
    finally:
        run.kill()
    assert run.returncode == 130, stderr[-3000:]
    stored = _stored(out / "lab.sqlite")
    assert 1 <= stored < 12, stderr
    assert stderr.splitlines()[-1] == (
        f"stopped: {stored} of 12 games are stored in {str(out / 'lab.sqlite')!r}; the same "
        "command goes on from them")
    again = subprocess.run([*args, "--backend", "ray", "--address", cluster.address, "--out",
                            str(out)], env=cli_env(**cluster.token), capture_output=True, text=True,
                           timeout=200)
    assert again.returncode == 0, again.stderr[-3000:]
    assert sum(_played_on(again.stderr, cluster.address).values()) == 12 - stored
    local = subprocess.run([*args, "--out", str(tmp_path / "local")], env=cli_env(),
                           capture_output=True, text=True, timeout=200)
    assert local.returncode == 0, local.stderr
    a, b = (json.loads((tmp_path / f / "sweep.json").read_text()) for f in ("ray", "local"))
    assert a["cells"] == b["cells"]


@pytest.mark.timeout(300)
@pytest.mark.slow
def test_a_cluster_without_cpus_or_this_stonegarden_is_refused_in_one_line(tmp_path):
    """With no CPU in the cluster Ray waited for ever at 0 games; a node without stonegarden
    ended the run in Ray's traceback; one with another version played its games into the
    study. Each is refused, naming what to do."""
    fake = tmp_path / "other" / "stonegarden"  # the nodes' stonegarden: only its version
    fake.mkdir(parents=True)
    (fake / "__init__.py").write_text('__version__ = "0.0.9"\n')

    def run(cluster: Cluster) -> str:
        out = run_cli("study", "blooms", "--param", "size=3", "--agent", "random", "--games",
                      "2", "--backend", "ray", "--address", cluster.address, "--out",
                      str(tmp_path / "o"), timeout=200, **cluster.token)
        assert out.returncode == 2, out.stderr[-3000:]
        assert "Traceback" not in out.stderr
        return out.stderr.splitlines()[-1]

    with ray_cluster(tmp_path, [0], pythonpath=str(fake.parent)) as cluster:
        assert run(cluster) == (
            f"error: --address '{cluster.address}': the Ray cluster there has no CPU to play "
            "games on (its nodes were started with --num-cpus 0?); join a machine to it with "
            f"`ray start --address {cluster.address}`")
        cluster.start(1)
        line = run(cluster)
        assert line.startswith(f"error: --address '{cluster.address}': the Ray cluster's node ")
        assert line.endswith("cannot import stonegarden (ModuleNotFoundError: No module named "
                             f"'stonegarden.lab'); install stonegarden {__version__} with [ray] "
                             "on each machine of the cluster")
        (fake / "lab").mkdir()
        (fake / "lab" / "__init__.py").write_text("")
        (fake / "lab" / "ray_backend.py").write_text("")
        assert run(cluster).endswith(
            f"has stonegarden 0.0.9, this command {__version__}; install the same version on "
            "each machine of the cluster (its games would be mixed with this version's)")


def test_a_dashboard_address_is_refused_before_anything_is_written(tmp_path):
    """`ray start --head` prints the dashboard's address (port 8265) too: given as --address,
    Ray retried it for ever ("Failed to connect to GCS") at 0 games."""
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), http.server.SimpleHTTPRequestHandler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    address = f"127.0.0.1:{server.server_address[1]}"
    try:
        out = run_cli("study", "blooms", "--param", "size=3", "--agent", "random", "--games",
                      "2", "--backend", "ray", "--address", address, "--out",
                      str(tmp_path / "o"), timeout=120)
    finally:
        server.shutdown()
        server.server_close()
    assert out.returncode == 2, out.stderr[-2000:]
    assert out.stderr.splitlines() == [
        f"error: --address '{address}' is not a Ray cluster's address (a web server answers): "
        "give the one `ray start --head` printed (port 6379 unless it was given --port), not "
        "its dashboard's (8265)"]
    assert not (tmp_path / "o").exists()
