"""README command 1 (`bash scripts/serve.sh`) on a fresh virtual environment, as on a fresh
Debian or Ubuntu machine: it is run with the system Python (/usr/bin/python3, which refuses
`pip install` outside a virtual environment under PEP 668) when there is one, installs
stonegarden into a new environment and serves the app."""

from __future__ import annotations

import json
import os
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
