"""Test helpers shared by the square-board Go games (Free Go, Bridge Go): moves in notation,
boards from named stones, seeding the playout kernels, perft against the engine, and running
tests without the JIT."""

from __future__ import annotations

import subprocess
import sys

import numpy as np
import pytest
from numba import njit

from .conftest import ROOT, cli_env


def split_moves(text):
    """Move texts separated by spaces."""
    return text.split()


def board_of(game, stones: dict[str, int]) -> np.ndarray:
    """A board holding ``stones`` (point name: colour), empty elsewhere."""
    board = np.zeros(game.board.num_points, np.int8)
    for name, colour in stones.items():
        board[game.board.point(name)] = colour
    return board


def play(game, state, *moves):
    for m in moves:
        state = game.play_text(state, m)
    return state


def root_visits(spec, game, state, sims=300):
    """(move, visits) of each root move of agent ``spec``'s search of ``state``."""
    from stonegarden.agents.registry import make_agent
    from stonegarden.search.config import Budget

    res = make_agent(spec).analyse(game, state, Budget(sims=sims))
    return [(m.action, m.visits) for m in res.moves]


@njit
def seed_kernel_generator(seed):
    np.random.seed(seed)  # numba's own generator (numpy's without the JIT)


# -- perft: leaf counts stored in tests/data by each game's naive reference ---------------------

def engine_perft(game, state, depth):
    if depth == 0 or game.is_terminal(state):
        return 1
    return sum(engine_perft(game, game.play_unchecked(state, int(a)), depth - 1)
               for a in game.legal_actions(state))


def perft_data_rows(path):
    """The tab-separated fields of each row of a perft data file (none while it is missing)."""
    if not path.exists():
        return
    for line in path.read_text().splitlines():
        if line and not line.startswith("#"):
            yield line.split("\t")


def check_perft(game, text, depth, count):
    """The engine's leaf count from the position ``text`` is ``count``."""
    state = game.parse_position(text)
    got = engine_perft(game, state, depth)
    if got != count:  # divide: the count below each first move, to find the culprit
        divide = {game.action_to_text(state, int(a)):
                  engine_perft(game, game.play_unchecked(state, int(a)), depth - 1)
                  for a in game.legal_actions(state)}
        pytest.fail(f"perft {got} != {count}; divide: {divide}")


def run_without_jit(*files):
    """Run test files with NUMBA_DISABLE_JIT=1 in a subprocess (the kernels as plain Python,
    as coverage and debuggers see them) and check that they pass."""
    r = subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-p", "no:xdist", "-p", "no:cacheprovider",
         "-m", "not nojit", *files],
        cwd=ROOT, env=cli_env(NUMBA_DISABLE_JIT="1"), capture_output=True, text=True, timeout=900,
    )
    assert r.returncode == 0, r.stdout[-3000:] + r.stderr[-2000:]
    assert " passed" in r.stdout and "failed" not in r.stdout
