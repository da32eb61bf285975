"""Layer 4: a seeded random game per registered game, dumped as text (moves and diagrams) and
compared with tests/data/golden/<game>.txt. Regenerate after a deliberate change with
``STONEGARDEN_UPDATE_GOLDEN=1 pytest tests/test_golden.py`` and review the diff."""

from __future__ import annotations

import difflib
import os

import numpy as np
import pytest

import stonegarden
from stonegarden import CHANCE

from .conftest import DATA
from .test_conformance import SMALL

GOLDEN = DATA / "golden"


def playthrough(game_id: str, seed: int = 7, limit: int = 60) -> str:
    game = stonegarden.make(game_id, **SMALL.get(game_id, {}))
    rng = np.random.default_rng(seed)
    s = game.initial_state()
    lines = [repr(game), game.diagram(s), ""]
    while not game.is_terminal(s) and s.ply < limit:
        if game.current_player(s) == CHANCE:
            outcomes = game.chance_outcomes(s)
            a = outcomes[int(rng.integers(len(outcomes)))][0]
        else:
            acts = game.legal_actions(s)
            a = int(acts[int(rng.integers(len(acts)))])
        text = game.action_to_text(s, a)
        s = game.play(s, a)
        lines += [f"{s.ply}. {text}  captured={s.captured} scores={list(game.scores(s))}",
                  game.diagram(s), ""]
    lines.append(f"result: winner={game.winner(s)} reason={game.result_reason(s)}")
    return "\n".join(lines) + "\n"


@pytest.mark.parametrize("game_id", stonegarden.available_games())
def test_golden_playthrough(game_id):
    path = GOLDEN / f"{game_id}.txt"
    text = playthrough(game_id)
    if os.environ.get("STONEGARDEN_UPDATE_GOLDEN") == "1":
        path.write_text(text)
    assert path.exists(), f"no golden file {path}: run with STONEGARDEN_UPDATE_GOLDEN=1"
    expected = path.read_text()
    if text != expected:
        diff = "".join(difflib.unified_diff(expected.splitlines(True), text.splitlines(True),
                                            "golden", "now"))
        pytest.fail("playthrough differs from the golden file:\n" + diff[:5000])
