"""The rules answer one question along two paths, which must agree (properties over random
games): the kernels' list of legal moves (``legal_actions``) and the checked rules' verdict on
each action (``illegal_reason``); and, in Blobs, the judgement of a move made after its dice
alone (``play``) and the judgement of the whole board read back from its position text."""

from __future__ import annotations

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import stonegarden
from stonegarden import CHANCE

#: small boards, holes, handicaps, superko, every Blobs win rule and Tumbling Dice: the
#: parameters each path treats on its own
VARIANTS = [
    ("blooms", {"size": 2}),
    ("blooms", {"size": 3, "holes": ["c3", "a1"], "target": 4, "start_scores": [1, 2]}),
    ("blooms-territory", {"size": 2, "superko": True}),
    ("blooms-territory", {"size": 3, "holes": ["c3"], "superko": True, "max_turns": 12}),
    ("blobs", {"dice": 12}),
    ("blobs", {"dice": 16, "tumbling": True, "win": "white"}),
    ("blobs", {"dice": 30, "max_grid": 3, "win": "enemy"}),
    ("blobs", {"dice": 20, "max_grid": 4, "win": "own", "tumbling": True}),
]


def next_action(game, state, data):
    if game.current_player(state) == CHANCE:
        return data.draw(st.sampled_from([a for a, _ in game.chance_outcomes(state)]))
    legal = game.legal_actions(state)
    return int(legal[data.draw(st.integers(0, len(legal) - 1))])


@pytest.mark.parametrize(("game_id", "params"), VARIANTS, ids=lambda v: str(v))
@settings(max_examples=8, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(data=st.data())
@pytest.mark.slow
def test_the_legal_moves_are_the_actions_the_rules_find_no_fault_with(game_id, params, data):
    game = stonegarden.make(game_id, **params)
    state = game.initial_state()
    for _ in range(24):
        if game.is_terminal(state):
            break
        listed = set(game.legal_actions(state).tolist())
        judged = {a for a in range(game.num_distinct_actions)
                  if game.illegal_reason(state, a) is None}
        assert listed == judged, game.position_text(state)
        state = game.play(state, next_action(game, state, data))


@pytest.mark.parametrize("params", [p for g, p in VARIANTS if g == "blobs"], ids=str)
@settings(max_examples=10, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(data=st.data())
@pytest.mark.slow
def test_blobs_judges_a_move_as_the_whole_board_read_back(params, data):
    game = stonegarden.make("blobs", **params)
    state = game.initial_state()
    while not game.is_terminal(state):
        state = game.play(state, next_action(game, state, data))
        again = game.parse_position(game.position_text(state))
        assert (game.winner(again), game.result_reason(again)) == (
            game.winner(state), game.result_reason(state)), game.position_text(state)
