"""Layer 2: perft counts for fixed positions (tests/data/blooms_perft.tsv, made by the naive
reference implementation) against the engine, with a per-move divide on failure."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

import stonegarden

DATA = Path(__file__).parent / "data" / "blooms_perft.tsv"


def perft(game, state, depth):
    if depth == 0:
        return 1
    actions = game.legal_actions(state)
    if depth == 1:
        return len(actions)
    return sum(perft(game, game.play_unchecked(state, int(a)), depth - 1) for a in actions)


def cases():
    for line in DATA.read_text().splitlines():
        if line.startswith("#") or not line.strip():
            continue
        game_id, params, pos, depth, count = line.split("\t")
        yield pytest.param(game_id, json.loads(params), pos, int(depth), int(count),
                           id=f"{game_id}-{pos.split()[0][:12]}-d{depth}")


@pytest.mark.parametrize("game_id,params,position,depth,count", list(cases()))
def test_perft(game_id, params, position, depth, count):
    game = stonegarden.make(game_id, **params)
    state = game.parse_position(position)
    got = perft(game, state, depth)
    if got != count:
        divide = {
            game.action_to_text(state, int(a)): perft(game, game.play_unchecked(state, int(a)), depth - 1)
            for a in game.legal_actions(state)
        }
        print("divide:", json.dumps(divide, indent=0))
    assert got == count
