"""Helpers shared by the web tests: a real server process on a free port, and legal moves."""

from __future__ import annotations

import http.client
import json
import os
import signal
import socket
import subprocess
import sys
import tempfile
import time
import urllib.error
import urllib.request
from pathlib import Path
from typing import Any

from stonegarden.core.registry import make
from stonegarden.jobs.procs import alive, cpu_seconds, descendants, resident

__all__ = ["Server", "alive", "cpu_seconds", "descendants", "first_legal", "free_port", "legal",
           "resident"]

ROOT = Path(__file__).resolve().parents[2]


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


class Server:
    """``stonegarden serve`` as a real process (this checkout's code) on 127.0.0.1."""

    def __init__(self, db: Path | str, port: int | None = None, *extra: str,
                 log: Path | None = None) -> None:
        self.db = db
        self.chosen_port = port is None  # a free port found here may be taken before serve binds it
        self.port = port or free_port()
        self.extra = extra
        #: where the server's output goes (appended; ``None``: discarded)
        self.log = log
        self.proc: subprocess.Popen[bytes] | None = None

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def start(self) -> Server:
        for _ in range(3):
            log = self.log or (Path(tempfile.gettempdir())
                               / f"stonegarden-serve-{os.getpid()}-{self.port}.log")
            if self._start(log):
                return self
            why = log.read_text(errors="replace")
            if not (self.chosen_port and "address already in use" in why.lower()):
                raise RuntimeError(f"server exited with {self.proc.returncode if self.proc else '?'}"
                                   f": {why[-2000:]}")
            self.port = free_port()  # another process took the port between the check and bind
        raise RuntimeError("server did not start: no free port three times")

    def _start(self, log: Path) -> bool:
        """Whether ``serve`` came up on ``self.port`` (False when it exited first)."""
        env = dict(os.environ)
        env["PYTHONPATH"] = str(ROOT / "src") + os.pathsep + env.get("PYTHONPATH", "")
        # the test's own log (appended, several starts) or one for this start
        with log.open("ab" if self.log is not None else "wb") as err:
            self.proc = subprocess.Popen(
                [sys.executable, "-m", "stonegarden", "serve", "--port", str(self.port),
                 "--db", str(self.db), "--workers", "1", *self.extra],
                env=env, stdout=subprocess.DEVNULL, stderr=err)
        for _ in range(300):  # bounded wait for the port to answer
            if self.proc.poll() is not None:
                return False
            try:
                urllib.request.urlopen(self.url + "/api/meta", timeout=2).read()
                return True
            except (urllib.error.URLError, ConnectionError, TimeoutError,
                    http.client.HTTPException):
                time.sleep(0.1)
        raise RuntimeError("server did not start")

    def kill9(self) -> None:
        assert self.proc is not None
        self.proc.send_signal(signal.SIGKILL)
        self.proc.wait(timeout=30)

    def stop(self) -> None:
        if self.proc is not None and self.proc.poll() is None:
            self.proc.terminate()
            try:
                self.proc.wait(timeout=15)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait(timeout=15)

    def request(self, method: str, path: str, body: Any = None,
                headers: dict[str, str] | None = None, source: str = "127.0.0.1",
                timeout: float = 60) -> tuple[int, Any]:
        """(status, decoded JSON); ``source`` is the client's address (127.0.0.x are distinct
        clients to the server's job limits)."""
        status, answer, _ = self.exchange(method, path, body, headers, source, timeout)
        return status, answer

    def exchange(self, method: str, path: str, body: Any = None,
                 headers: dict[str, str] | None = None, source: str = "127.0.0.1",
                 timeout: float = 60) -> tuple[int, Any, dict[str, str]]:
        """(status, decoded JSON, headers in lower case)."""
        data = None if body is None else (body if isinstance(body, bytes)
                                          else json.dumps(body).encode())
        conn = http.client.HTTPConnection("127.0.0.1", self.port, timeout=timeout,
                                          source_address=(source, 0))
        try:
            conn.request(method, path, body=data,
                         headers={"Content-Type": "application/json", **(headers or {})})
            r = conn.getresponse()
            return r.status, json.loads(r.read()), {k.lower(): v for k, v in r.getheaders()}
        finally:
            conn.close()

    def below(self) -> list[int]:
        """The processes below the server (its workers)."""
        assert self.proc is not None
        return descendants(self.proc.pid)


def first_line_of_serve(args: list[str], env: dict[str, str] | None = None,
                        cwd: Path | None = None) -> str:
    """The line ``serve`` prints as it starts (where it serves, and where its games are kept),
    on any free port; the server is stopped once it is read."""
    env = {**os.environ, **(env or {}), "PYTHONPATH": str(ROOT / "src")}
    proc = subprocess.Popen([sys.executable, "-m", "stonegarden", "serve", "--port", "0",
                             "--workers", "1", *args], cwd=cwd, env=env,
                            stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
    try:
        assert proc.stdout is not None
        return proc.stdout.readline()
    finally:
        proc.terminate()
        proc.wait(timeout=30)


def first_legal(game_id: str, params: dict[str, Any], moves: list[str]) -> str:
    """The first legal move (in action order) after ``moves``: a deterministic human player."""
    game = make(game_id, **params)
    state = game.replay(moves)[-1]
    return game.action_to_text(state, int(game.legal_actions(state)[0]))


def legal(game_id: str, params: dict[str, Any], moves: list[str]) -> list[str]:
    """Every legal move after ``moves``, in action order."""
    game = make(game_id, **params)
    state = game.replay(moves)[-1]
    return [game.action_to_text(state, int(a)) for a in game.legal_actions(state)]
