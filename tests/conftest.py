"""Shared test helpers: running the real CLI, playing a game from move texts, and the
registered games."""

from __future__ import annotations

import os
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


def run_cli(*args: str, input: str | None = None, timeout: float = 300,
            **env: str) -> subprocess.CompletedProcess[str]:
    """Run ``python -m stonegarden ARGS`` as a user would (a real process, this checkout's code)."""
    return subprocess.run(
        [sys.executable, "-m", "stonegarden", *args],
        input=input, capture_output=True, text=True, timeout=timeout, env=cli_env(**env),
    )


@pytest.fixture
def cli():
    return run_cli
