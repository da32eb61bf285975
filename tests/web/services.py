"""Real PostgreSQL, nginx and Caddy servers for the tests, from the Debian packages, started and
stopped by the tests themselves (each in a temporary directory, on a free loopback port).

``scripts/install-services.sh`` installs the packages on a fresh machine. PostgreSQL refuses to
run as root, so as root the cluster belongs to the ``postgres`` user the package creates.
"""

from __future__ import annotations

import contextlib
import glob
import os
import shutil
import signal
import subprocess
import tempfile
import time
from pathlib import Path
from typing import Self

from webhelpers import free_port


def _pg_bin() -> Path | None:
    """The newest installed PostgreSQL's binaries (``/usr/lib/postgresql/<major>/bin``)."""
    found = sorted(glob.glob("/usr/lib/postgresql/*/bin/pg_ctl"),
                   key=lambda p: int(Path(p).parts[-3]))
    if found:
        return Path(found[-1]).parent
    ctl = shutil.which("pg_ctl")
    return Path(ctl).parent if ctl else None


def postgres_available() -> bool:
    return _pg_bin() is not None


def nginx_available() -> bool:
    return shutil.which("nginx") is not None or Path("/usr/sbin/nginx").exists()


class Postgres:
    """A throw-away PostgreSQL cluster (trust authentication on 127.0.0.1 only)."""

    def __init__(self, root: Path) -> None:
        if os.geteuid() == 0:
            # the postgres user cannot enter a root-private temporary directory (pytest's
            # tmp_path is 0700): the cluster gets a directory of its own under /tmp
            root = Path(tempfile.mkdtemp(prefix="stonegarden-pg-"))
            shutil.chown(root, "postgres")
        self.root = root
        self.data = root / "data"
        self.port = free_port()
        bin_dir = _pg_bin()
        if bin_dir is None:
            raise RuntimeError("PostgreSQL is not installed (scripts/install-services.sh)")
        self.bin = bin_dir

    @property
    def dsn(self) -> str:
        return f"postgresql://postgres@127.0.0.1:{self.port}/postgres"

    def _run(self, *args: str) -> None:
        cmd = [str(self.bin / args[0]), *args[1:]]
        if os.geteuid() == 0:
            cmd = ["runuser", "-u", "postgres", "--", *cmd]
        done = subprocess.run(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, timeout=120)
        if done.returncode != 0:
            raise RuntimeError(f"{args[0]} failed: {done.stderr.decode(errors='replace')}")

    def start(self) -> Postgres:
        self.root.mkdir(parents=True, exist_ok=True)
        self._run("initdb", "-D", str(self.data), "-A", "trust", "-U", "postgres", "--no-sync",
                  "-E", "UTF8")
        self.resume()
        return self

    def halt(self) -> None:
        """Stop the server as its service does (``fast``: connections are cut off), keeping
        the cluster for ``resume``."""
        self._run("pg_ctl", "-D", str(self.data), "-m", "fast", "-w", "stop")

    def resume(self) -> None:
        """Start the cluster's server (again), on the same port."""
        opts = (f"-p {self.port} -k {self.root} -c listen_addresses=127.0.0.1 -c fsync=off "
                "-c max_connections=200")
        self._run("pg_ctl", "-D", str(self.data), "-o", opts, "-l", str(self.root / "log"),
                  "-w", "-t", "60", "start")

    def freeze(self) -> None:
        """Stop every process of the server (``SIGSTOP``): connections are accepted by the
        machine's kernel and never answered, as by a server frozen or swapping, until
        ``thaw``. The postmaster first, seen stopped before its children are listed: one it
        forked between a listing and its stop (a connection the server's pool was opening)
        would answer on, as a frozen server's does not."""
        from stonegarden.jobs.procs import descendants, state

        master = self._processes()[0]
        os.kill(master, signal.SIGSTOP)
        deadline = time.monotonic() + 10
        while state(master) != "T":
            assert time.monotonic() < deadline, "the postmaster did not stop"
            time.sleep(0.01)
        for pid in descendants(master):
            with contextlib.suppress(ProcessLookupError):  # a backend that ended meanwhile
                os.kill(pid, signal.SIGSTOP)

    def thaw(self) -> None:
        """Let the processes ``freeze`` stopped go on (``SIGCONT``)."""
        for pid in reversed(self._processes()):
            with contextlib.suppress(ProcessLookupError):  # ended meanwhile
                os.kill(pid, signal.SIGCONT)

    def answer_again(self) -> None:
        """Answering again, as a test may have left it: thawed if frozen, started if stopped."""
        if (self.data / "postmaster.pid").exists():
            self.thaw()
        else:
            self.resume()

    def _processes(self) -> list[int]:
        """The postmaster, then every process below it."""
        from stonegarden.jobs.procs import descendants

        master = int((self.data / "postmaster.pid").read_text().split()[0])
        return [master, *descendants(master)]

    def create_database(self, name: str) -> str:
        """A fresh database in this cluster; its DSN."""
        import psycopg

        with psycopg.connect(self.dsn, autocommit=True) as con:
            con.execute(f'CREATE DATABASE "{name}"')
        return f"postgresql://postgres@127.0.0.1:{self.port}/{name}"

    def stop(self) -> None:
        if (self.data / "postmaster.pid").exists():
            self.thaw()  # a test that failed while it was frozen
            self._run("pg_ctl", "-D", str(self.data), "-m", "immediate", "-w", "stop")
        if os.geteuid() == 0:
            shutil.rmtree(self.root, ignore_errors=True)


NGINX_CONF = """
{user}worker_processes 1;
daemon off;
pid {root}/nginx.pid;
error_log {root}/error.log warn;
events {{ worker_connections 512; }}
http {{
    access_log off;
    client_body_temp_path {root}/body;
    proxy_temp_path {root}/proxy;
    fastcgi_temp_path {root}/fastcgi;
    uwsgi_temp_path {root}/uwsgi;
    scgi_temp_path {root}/scgi;
{body}
}}
"""


class _Foreground:
    """A server program a test runs in the foreground on a free port, from the files it
    writes in ``root``, until ``stop``."""

    name = ""

    def __init__(self, root: Path) -> None:
        self.root = root
        self.port = free_port()
        self.proc: subprocess.Popen[bytes] | None = None

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def _launch(self) -> subprocess.Popen[bytes]:
        raise NotImplementedError

    def start(self) -> Self:
        import urllib.error
        import urllib.request

        self.root.mkdir(parents=True, exist_ok=True)
        self.proc = self._launch()
        for _ in range(200):
            if self.proc.poll() is not None:
                err = self.proc.stderr.read().decode() if self.proc.stderr else ""
                raise RuntimeError(f"{self.name} exited with {self.proc.returncode}: "
                                   f"{err[-2000:]}")
            try:
                urllib.request.urlopen(self.url + "/", timeout=2)
                return self
            except urllib.error.HTTPError:
                return self  # it answered (an upstream's error is still an answer)
            except (urllib.error.URLError, ConnectionError, TimeoutError):
                time.sleep(0.05)
        raise RuntimeError(f"{self.name} did not start")

    def stop(self) -> None:
        if self.proc is not None and self.proc.poll() is None:
            self.proc.terminate()
            try:
                self.proc.wait(timeout=10)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait(timeout=10)


class Nginx(_Foreground):
    """nginx in the foreground with a configuration of the test's: ``body`` is the inside of
    the ``http`` block (its ``server`` blocks), with ``{port}`` for the port it listens on."""

    name = "nginx"

    def __init__(self, root: Path, body: str) -> None:
        super().__init__(root)
        self.body = body.replace("{port}", str(self.port))

    def _launch(self) -> subprocess.Popen[bytes]:
        conf = self.root / "nginx.conf"
        # as root, workers would drop to "nobody", who cannot write in a private temporary directory
        user = "user root;\n" if os.geteuid() == 0 else ""
        conf.write_text(NGINX_CONF.format(user=user, root=self.root, body=self.body))
        exe = shutil.which("nginx") or "/usr/sbin/nginx"
        return subprocess.Popen([exe, "-c", str(conf), "-p", str(self.root)],
                                stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)


def caddy_available() -> bool:
    return shutil.which("caddy") is not None


class Caddy(_Foreground):
    """Caddy in the foreground with a Caddyfile of the test's (``{port}``: the port it listens
    on), with no admin endpoint and its state in ``root``."""

    name = "caddy"

    def __init__(self, root: Path, site: str) -> None:
        super().__init__(root)
        self.site = site.replace("{port}", str(self.port))

    def _launch(self) -> subprocess.Popen[bytes]:
        conf = self.root / "Caddyfile"
        conf.write_text("{\n    admin off\n    auto_https off\n}\n" + self.site)
        env = {**os.environ, "HOME": str(self.root), "XDG_DATA_HOME": str(self.root),
               "XDG_CONFIG_HOME": str(self.root)}
        return subprocess.Popen(["caddy", "run", "--config", str(conf), "--adapter",
                                 "caddyfile"], env=env, stdout=subprocess.DEVNULL,
                                stderr=subprocess.PIPE)
