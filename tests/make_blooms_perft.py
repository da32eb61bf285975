"""Regenerate tests/data/blooms_perft.tsv with the naive reference implementation (not the
engine), so the perft counts are an independent check: ``python -m tests.make_blooms_perft``."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np

import stonegarden

from . import reference_blooms as ref
from .test_blooms_reference import random_states, to_ref

OUT = Path(__file__).parent / "data" / "blooms_perft.tsv"


def ref_perft(board, cells, player, ply, territory, depth, scores, target, passed=False):
    """Leaf count of the reference game tree; ``passed``: the last turn was a pass."""
    if depth == 0:
        return 1
    if not territory and not any(c not in board for c in cells):
        return 0
    total = 0
    for t in ref.legal_turns(board, cells, player, ply == 0, territory):
        if depth == 1:
            total += 1
        elif t is None:
            # a second pass in a row ends the game: nothing below it
            if not passed:
                total += ref_perft(board, cells, 3 - player, ply + 1, territory, depth - 1,
                                   scores, target, True)
        else:
            nb, removed, _ = ref.apply(board, cells, player, sorted(t))
            s = list(scores)
            if not territory:
                s[player - 1] += removed
                if s[player - 1] >= target:
                    continue
            total += ref_perft(nb, cells, 3 - player, ply + 1, territory, depth - 1, s, target)
    return total


def rows():
    cases = [
        ("blooms", {"size": 2}, None, 2),
        ("blooms", {"size": 3}, None, 2),
        ("blooms", {"size": 4}, None, 1),
        ("blooms", {"size": 3, "holes": ["b2", "d2"]}, None, 2),
        ("blooms-territory", {"size": 2}, None, 3),
        ("blooms-territory", {"size": 3}, None, 2),
        ("blooms-territory", {"size": 3, "holes": ["c3"]}, None, 2),
    ]
    for seed in range(4):
        cases.append(("blooms", {"size": 3, "target": 8}, seed, 2))
        cases.append(("blooms-territory", {"size": 3}, seed, 2))
    for game_id, params, seed, depth in cases:
        game = stonegarden.make(game_id, **params)
        if seed is None:
            state = game.initial_state()
        else:
            states = [s for s in random_states(game, seed, limit=30) if not game.is_terminal(s)]
            state = states[len(states) * 2 // 3]
        board, cells = to_ref(game, state)
        territory = game_id == "blooms-territory"
        count = ref_perft(board, cells, state.player, state.ply, territory, depth,
                          list(state.scores), game.params.get("target"), state.passes > 0)
        yield game_id, params, game.position_text(state), depth, count


def main():
    np.random.seed(0)
    lines = ["# game\tparams\tposition\tdepth\tcount  (made by tests/make_blooms_perft.py)"]
    for game_id, params, pos, depth, count in rows():
        lines.append(f"{game_id}\t{json.dumps(params)}\t{pos}\t{depth}\t{count}")
        print(lines[-1])
    OUT.write_text("\n".join(lines) + "\n")


if __name__ == "__main__":
    main()
