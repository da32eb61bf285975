"""README command 1 (`bash scripts/serve.sh`) on a fresh virtual environment, as on a fresh
Debian or Ubuntu machine: it is run with the system Python (/usr/bin/python3, which refuses
`pip install` outside a virtual environment under PEP 668) when there is one, installs
stonegarden into a new environment and serves the app."""

from __future__ import annotations

import json
import os
import re
import signal
import socket
import subprocess
import sys
import time
import urllib.error
import urllib.request
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
SYSTEM_PYTHON = "/usr/bin/python3"


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


@pytest.mark.slow
@pytest.mark.timeout(1500)
def test_serve_script_installs_into_a_fresh_venv_and_serves(tmp_path):
    python = SYSTEM_PYTHON if os.path.exists(SYSTEM_PYTHON) else sys.executable
    if subprocess.run([python, "-c", "import sys; sys.exit(sys.version_info < (3, 11))"]).returncode:
        pytest.skip(f"{python} is older than 3.11")
    venv = tmp_path / "venv"
    port = free_port()
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "VIRTUAL_ENV")}
    env.update(PYTHON=python, STONEGARDEN_VENV=str(venv), BROWSER="true")
    log = (tmp_path / "serve.log").open("w")
    proc = subprocess.Popen(["bash", str(ROOT / "scripts" / "serve.sh"), "--port", str(port),
                             "--db", str(tmp_path / "games.db")],
                            env=env, stdout=log, stderr=subprocess.STDOUT, start_new_session=True)
    try:
        meta = None
        deadline = time.monotonic() + 1200  # a first install downloads the dependencies
        while time.monotonic() < deadline and proc.poll() is None:
            try:
                with urllib.request.urlopen(f"http://127.0.0.1:{port}/api/meta", timeout=5) as r:
                    meta = json.loads(r.read())
                    break
            except (urllib.error.URLError, ConnectionError, TimeoutError):
                time.sleep(1)
        assert meta is not None, (tmp_path / "serve.log").read_text()[-3000:]
        assert "blooms" in [g["id"] for g in meta["games"]]
        # the app runs from the new environment, not from the interpreter running the tests
        assert (venv / "bin" / "stonegarden").exists()
        served = subprocess.run([str(venv / "bin" / "python"), "-c",
                                 "import stonegarden, sys; print(stonegarden.__file__)"],
                                capture_output=True, text=True, env=env)
        assert served.stdout.strip().startswith(str(ROOT / "src")), served
    finally:
        os.killpg(proc.pid, signal.SIGTERM)
        try:
            proc.wait(timeout=30)
        except subprocess.TimeoutExpired:
            os.killpg(proc.pid, signal.SIGKILL)
            proc.wait(timeout=30)
        log.close()


def _externally_managed(python: str) -> bool:
    """scripts/venv.sh's verdict on ``python``: whether command 2 must install into a venv."""
    done = subprocess.run(["bash", "-c", "source scripts/venv.sh && externally_managed"],
                          cwd=ROOT, env={**os.environ, "PYTHON": python})
    assert done.returncode in (0, 1)
    return done.returncode == 0


def test_the_test_command_installs_into_a_venv_only_under_a_pep668_python(tmp_path):
    """README command 2 (scripts/test.sh) installs with the Python it is given, unless that
    Python refuses `pip install` (PEP 668, as Debian's system Python does): then into a
    virtual environment of its own."""
    # the Python running these tests could install them, so it needs no other environment
    assert not _externally_managed(sys.executable)
    marker = Path("/usr/lib/python3.11/EXTERNALLY-MANAGED")
    if not (os.path.exists(SYSTEM_PYTHON) and marker.exists()):
        pytest.skip("no Debian system Python 3.11 with its PEP 668 marker here")
    assert _externally_managed(SYSTEM_PYTHON)
    # inside a virtual environment made from it, pip may install: no second environment
    subprocess.run([SYSTEM_PYTHON, "-m", "venv", "--without-pip", str(tmp_path / "v")],
                   check=True)
    assert not _externally_managed(str(tmp_path / "v" / "bin" / "python"))


def _stub_venv(venv: Path, log: Path) -> None:
    """A virtual environment of this Python in which stonegarden counts as installed, whose
    ``stonegarden`` command writes where it runs and its arguments to ``log``."""
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(venv)], check=True,
                   timeout=120)
    stub = venv / "bin" / "stonegarden"
    stub.write_text(f'#!/bin/sh\necho "$PWD $*" >> {log}\n')
    stub.chmod(0o755)
    (venv / ".stonegarden-installed").touch()  # installed after pyproject.toml last changed


def _script_env(venv: Path) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "VIRTUAL_ENV")}
    # nothing to install from: a pip install fails at once instead of downloading
    empty = venv.parent / "empty"
    empty.mkdir(exist_ok=True)
    env.update(PYTHON=sys.executable, STONEGARDEN_VENV=str(venv), PIP_NO_INDEX="1",
               PIP_FIND_LINKS=str(empty), PIP_CONFIG_FILE=os.devnull)
    return env


def test_a_rerun_serves_from_where_it_was_started_with_its_arguments(tmp_path):
    """A run after the first installs nothing; a relative --db names a file where the
    command was given (not in the checkout), and no argument means --open."""
    venv, log, here = tmp_path / "venv", tmp_path / "log", tmp_path / "here"
    _stub_venv(venv, log)
    here.mkdir()
    for args in (["--db", "games.db", "--port", "8080"], []):
        done = subprocess.run(["bash", str(ROOT / "scripts" / "serve.sh"), *args], cwd=here,
                              env=_script_env(venv), capture_output=True, text=True, timeout=60)
        assert done.returncode == 0, done.stderr
        assert "installing" not in done.stderr
    assert log.read_text().splitlines()[1::2] == [
        f"{here} serve --db games.db --port 8080", f"{here} serve --open"]


def test_a_venv_left_by_an_upgraded_python_is_made_again(tmp_path):
    """After a system upgrade (Python 3.11 to 3.13), the environment's python3 is the new one,
    which sees none of its packages: it is made again and stonegarden installed again,
    instead of failing at each run on a module not found."""
    venv, log = tmp_path / "venv", tmp_path / "log"
    _stub_venv(venv, log)
    cfg = venv / "pyvenv.cfg"
    other = f"3.{sys.version_info.minor - 1}.9"
    cfg.write_text(re.sub(r"(?m)^version = .*$", f"version = {other}", cfg.read_text()))
    done = subprocess.run(["bash", str(ROOT / "scripts" / "serve.sh"), "--port", "8080"],
                          cwd=tmp_path, env=_script_env(venv), capture_output=True, text=True,
                          timeout=300)
    assert "was made with a Python that is no longer there" in done.stderr, done.stderr
    assert "installing stonegarden" in done.stderr
    assert done.returncode != 0  # the install has nothing to install from here
    assert not log.exists()  # the old environment's command was not run
    assert f"version = {sys.version_info.major}.{sys.version_info.minor}." in cfg.read_text()
