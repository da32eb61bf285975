"""freego: every parser round-trips its own output, and garbage gives a typed error only."""

from __future__ import annotations

import contextlib

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

import stonegarden
from stonegarden.errors import StonegardenError

GAME = stonegarden.make("freego", size=5)

garbage = st.one_of(
    st.text(max_size=60),
    st.text(alphabet="ABCDEFGHIJKTXOxo.0123456789/ ,=_\n-toveplyscr", max_size=60),
    st.from_regex(r"[A-Za-z][0-9]{1,3}", fullmatch=True),
)


def some_state(seed):
    rng = np.random.default_rng(seed)
    s = GAME.initial_state()
    for _ in range(int(rng.integers(0, 20))):
        if GAME.is_terminal(s):
            break
        acts = GAME.legal_actions(s)
        s = GAME.play(s, int(acts[int(rng.integers(len(acts)))]))
    return s


@settings(max_examples=150, deadline=None)
@given(text=garbage, seed=st.integers(0, 100))
def test_garbage_move_text_gives_a_typed_error_or_a_legal_move(text, seed):
    state = some_state(seed)
    try:
        action = GAME.parse_move(state, text)
    except StonegardenError:
        return
    assert GAME.is_legal(state, action)
    assert GAME.parse_move(state, GAME.action_to_text(state, action)) == action


@settings(max_examples=150, deadline=None)
@given(text=garbage)
def test_garbage_positions_and_diagrams_give_typed_errors(text):
    for parse in (GAME.parse_position, GAME.parse_diagram):
        try:
            state = parse(text)
        except StonegardenError:
            continue
        assert GAME.parse_position(GAME.position_text(state)) == state


@settings(max_examples=40, deadline=None)
@given(seed=st.integers(0, 10_000))
def test_position_text_and_diagram_round_trip(seed):
    s = some_state(seed)
    text = GAME.position_text(s)
    assert GAME.position_text(GAME.parse_position(text)) == text
    assert GAME.position_text(GAME.parse_diagram(GAME.diagram(s))) == text
    assert GAME.parse_position(text) == GAME.parse_diagram(GAME.diagram(s))


@settings(max_examples=60, deadline=None)
@given(action=st.one_of(st.integers(-10**6, 10**7), st.booleans(), st.floats(),
                       st.text(max_size=5)))
def test_play_with_any_action_value_gives_a_typed_error_or_a_state(action):
    with contextlib.suppress(StonegardenError):
        GAME.play(GAME.initial_state(), action)
