"""Shared test helpers: running the real CLI, playing a game from move texts, and the
registered games."""

from __future__ import annotations

import errno
import io
import os
import signal
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
SRC = ROOT / "src"
DATA = Path(__file__).resolve().parent / "data"


def played(game, texts) -> tuple[object, list[int]]:
    """The state after ``texts`` (move texts) from the initial state, and their actions."""
    state, actions = game.initial_state(), []
    for text in texts:
        action = game.parse_action(state, text)
        actions.append(action)
        state = game.play(state, action)
    return state, actions


def cli_env(**extra: str) -> dict[str, str]:
    env = dict(os.environ)
    env["PYTHONPATH"] = str(SRC) + os.pathsep + env.get("PYTHONPATH", "")
    env.update(extra)
    return env


def ctrl_c_as_in_a_terminal() -> None:
    """``preexec_fn`` of a command a test stops with Ctrl-C (SIGINT): the command takes it as
    from a terminal's foreground job even when the tests themselves run in the background,
    where the shell hands every child SIGINT ignored and Python then installs no
    KeyboardInterrupt handler (the command would go on as if nothing were sent)."""
    signal.signal(signal.SIGINT, signal.SIG_DFL)


def read_terminal(main: int) -> bytes:
    """Everything a pseudo-terminal's program wrote, read from its ``main`` end as it comes (a
    full terminal would block the program) until the other end closes."""
    seen = b""
    while True:
        try:
            chunk = os.read(main, 65536)
        except OSError:  # the terminal's other end closed: all read
            break
        if not chunk:
            break
        seen += chunk
    return seen


def run_cli(*args: str, input: str | None = None, timeout: float = 300,
            **env: str) -> subprocess.CompletedProcess[str]:
    """Run ``python -m stonegarden ARGS`` as a user would (a real process, this checkout's code)."""
    return subprocess.run(
        [sys.executable, "-m", "stonegarden", *args],
        input=input, capture_output=True, text=True, timeout=timeout, env=cli_env(**env),
    )


def refused_as_in_use(result: subprocess.CompletedProcess[str], folder: Path,
                      option: str) -> bool:
    """Whether a command was refused (status 2) in one line for a folder that a run of this
    process holds (``lab.folder_lock.folder_held``)."""
    return result.returncode == 2 and result.stderr.splitlines() == [
        f"error: {option} {str(folder)!r} is in use by another run (process {os.getpid()}): "
        "two runs in one folder would write over each other's files; wait for it to end, or "
        "use another folder"]


@pytest.fixture
def cli():
    return run_cli


@pytest.fixture
def read_only_folder(tmp_path, monkeypatch):
    """A folder that behaves as one on a read-only disk, where the tests cannot put one (as
    root, permissions stop no write): making, writing or removing a file there fails with
    ``EROFS``, even where the file does not exist."""
    folder = tmp_path / "read-only"
    folder.mkdir()

    def guarded(real, writes):
        def call(path, *args, **kwargs):
            if str(path).startswith(str(folder)) and writes(*args, **kwargs):
                raise OSError(errno.EROFS, os.strerror(errno.EROFS), str(path))
            return real(path, *args, **kwargs)
        return call

    write_flags = os.O_WRONLY | os.O_RDWR | os.O_CREAT
    monkeypatch.setattr(io, "open", guarded(
        io.open, lambda mode="r", *a, **k: any(c in mode for c in "wax+")))
    monkeypatch.setattr(os, "open", guarded(
        os.open, lambda flags, *a, **k: bool(flags & write_flags)))
    monkeypatch.setattr(os, "unlink", guarded(os.unlink, lambda *a, **k: True))
    return folder
