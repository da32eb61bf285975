"""Layer 5: every parser round-trips its own output, and garbage gives a typed error only."""

from __future__ import annotations

import itertools
import json

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import stonegarden
from stonegarden import StonegardenError
from stonegarden.agents import make_agent
from stonegarden.agents.search_agents import SearchAgent
from stonegarden.core.params import parse_param_options
from stonegarden.core.record import parse_record, replay_record
from stonegarden.search.config import Budget

GAME_IDS = stonegarden.available_games()
SMALL = {"blooms": {"size": 3}, "blooms-territory": {"size": 3}}

garbage = st.one_of(
    st.text(max_size=60),
    st.text(alphabet="RYKGrykgabcdefghijklmnopqrstuvwxyz0123456789,:/.- \n", max_size=60),
    st.from_regex(r"[RYKG][a-m][0-9]{1,3}(,[RYKG][a-m][0-9]{1,3})?", fullmatch=True),
)


def states_of(game, seed, n=30):
    rng = np.random.default_rng(seed)
    s = game.initial_state()
    out = [s]
    for _ in range(n):
        if game.is_terminal(s) or game.current_player(s) == stonegarden.CHANCE:
            break
        acts = game.legal_actions(s)
        s = game.play(s, int(acts[rng.integers(len(acts))]))
        out.append(s)
    return out


def check_garbage_move_text(game, state, text):
    try:
        action = game.parse_move(state, text)
    except StonegardenError:
        return
    # anything accepted is legal and formats back to text that parses to the same action
    assert game.is_legal(state, action)
    assert game.parse_move(state, game.action_to_text(state, action)) == action


def check_play(game, state, action):
    """``play`` with any value: a typed error, or the state after a legal action (an integer
    that is no bool), one ply on, the other player to move or a chance event due."""
    try:
        after = game.play(state, action)
    except StonegardenError:
        return
    assert isinstance(action, (int, np.integer)) and not isinstance(action, bool)
    assert game.is_legal(state, int(action))
    assert after.ply == state.ply + 1
    assert after == game.play_unchecked(state, int(action))


def check_garbage_position_and_diagram(game, text):
    for parse in (game.parse_position, game.parse_diagram):
        try:
            state = parse(text)
        except StonegardenError:
            continue
        assert game.parse_position(game.position_text(state)) == state


@pytest.mark.parametrize("game_id", GAME_IDS)
@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(text=garbage, seed=st.integers(0, 50))
@pytest.mark.slow
def test_garbage_move_text_gives_a_typed_error(game_id, text, seed):
    game = stonegarden.make(game_id, **SMALL.get(game_id, {}))
    check_garbage_move_text(game, states_of(game, seed, n=seed % 7)[-1], text)


@pytest.mark.parametrize("game_id", GAME_IDS)
@settings(max_examples=60, deadline=None)
@given(text=garbage)
@pytest.mark.slow
def test_garbage_position_and_diagram_give_typed_errors(game_id, text):
    check_garbage_position_and_diagram(stonegarden.make(game_id, **SMALL.get(game_id, {})), text)


@pytest.mark.parametrize("game_id", GAME_IDS)
@settings(max_examples=30, deadline=None)
@given(seed=st.integers(0, 10_000))
@pytest.mark.slow
def test_position_text_and_diagram_round_trip(game_id, seed):
    game = stonegarden.make(game_id, **SMALL.get(game_id, {}))
    for s in states_of(game, seed):
        text = game.position_text(s)
        again = game.parse_position(text)
        assert game.position_text(again) == text
        assert game.position_text(game.parse_diagram(game.diagram(s))) == text
        # case and surrounding whitespace do not matter for moves
        if not game.is_terminal(s) and game.current_player(s) != stonegarden.CHANCE:
            for a in game.legal_actions(s)[:: max(1, len(game.legal_actions(s)) // 20)]:
                t = game.action_to_text(s, int(a))
                assert game.parse_move(s, f"\t{t.swapcase()}  ") == a


@pytest.mark.parametrize("game_id", GAME_IDS)
@settings(max_examples=40, deadline=None)
@given(action=st.one_of(st.integers(-10**6, 10**7), st.booleans(), st.floats(), st.text(max_size=5)))
def test_play_with_any_action_value_gives_a_typed_error_or_a_state(game_id, action):
    game = stonegarden.make(game_id, **SMALL.get(game_id, {}))
    check_play(game, game.initial_state(), action)


@pytest.mark.parametrize("game_id", GAME_IDS)
@settings(max_examples=40, deadline=None)
@given(action=st.one_of(st.integers(-10**6, 10**7), st.booleans(), st.floats(), st.text(max_size=5)))
def test_is_legal_and_action_to_text_with_any_value_give_a_typed_error_or_an_answer(game_id, action):
    """Blooms' ``action_to_text(state, 1.5)`` raised TypeError, ``is_legal(state, "D4")``
    TypeError in every game and ``illegal_reason`` TypeError or IndexError in all but Blooms."""
    game = stonegarden.make(game_id, **SMALL.get(game_id, {}))
    state = game.initial_state()
    reason = game.illegal_reason(state, action)
    assert reason is None or isinstance(reason, str)
    assert reason is None or not isinstance(action, (int, np.integer)) or isinstance(action, bool) \
        or not game.is_legal(state, action)
    try:
        legal = game.is_legal(state, action)
    except StonegardenError:
        legal = None
    assert legal in (True, False, None)
    try:
        text = game.action_to_text(state, action)
    except StonegardenError:
        return
    assert isinstance(text, str) and game.parse_action(state, text) == action


# -- the square-board Go games on 5x5, with garbage from Go notation's alphabet ----------------

SQUARE_GO = {game_id: stonegarden.make(game_id, size=5) for game_id in ("freego", "bridgego")}

go_garbage = st.one_of(
    st.text(max_size=60),
    st.text(alphabet="ABCDEFGHIJKTXOxo.0123456789/ ,=_\n-toveplyscr", max_size=60),
    st.from_regex(r"[A-Za-z][0-9]{1,3}", fullmatch=True),
)


def some_go_state(game, seed):
    rng = np.random.default_rng(seed)
    s = game.initial_state()
    for _ in range(int(rng.integers(0, 20))):
        if game.is_terminal(s):
            break
        acts = game.legal_actions(s)
        s = game.play(s, int(acts[int(rng.integers(len(acts)))]))
    return s


@pytest.mark.parametrize("game_id", SQUARE_GO)
@settings(max_examples=150, deadline=None)
@given(text=go_garbage, seed=st.integers(0, 100))
@pytest.mark.slow
def test_garbage_go_move_text_gives_a_typed_error_or_a_legal_move(game_id, text, seed):
    game = SQUARE_GO[game_id]
    check_garbage_move_text(game, some_go_state(game, seed), text)


@pytest.mark.parametrize("game_id", SQUARE_GO)
@settings(max_examples=150, deadline=None)
@given(text=go_garbage)
@pytest.mark.slow
def test_garbage_go_positions_and_diagrams_give_typed_errors(game_id, text):
    check_garbage_position_and_diagram(SQUARE_GO[game_id], text)


@pytest.mark.parametrize("game_id", SQUARE_GO)
@settings(max_examples=40, deadline=None)
@given(seed=st.integers(0, 10_000))
def test_go_position_text_and_diagram_read_back_to_the_same_state(game_id, seed):
    game = SQUARE_GO[game_id]
    s = some_go_state(game, seed)
    text = game.position_text(s)
    assert game.position_text(game.parse_position(text)) == text
    assert game.position_text(game.parse_diagram(game.diagram(s))) == text
    assert game.parse_position(text) == game.parse_diagram(game.diagram(s))


@pytest.mark.parametrize("game_id", SQUARE_GO)
@settings(max_examples=60, deadline=None)
@given(action=st.one_of(st.integers(-10**6, 10**7), st.booleans(), st.floats(),
                       st.text(max_size=5)))
def test_play_on_5x5_go_with_any_action_value_gives_a_typed_error_or_a_state(game_id, action):
    game = SQUARE_GO[game_id]
    check_play(game, game.initial_state(), action)


json_values = st.recursive(
    st.one_of(st.none(), st.booleans(), st.integers(), st.floats(allow_nan=False), st.text(max_size=8)),
    lambda children: st.lists(children, max_size=4) | st.dictionaries(st.text(max_size=8), children, max_size=4),
    max_leaves=12,
)


@settings(max_examples=200, deadline=None)
@given(value=json_values)
@pytest.mark.slow
def test_record_reader_garbage_gives_record_error(value):
    for data in (value, json.dumps(value)):
        check_record(data)


def check_record(data):
    """A record read from anything: a typed error, or a record whose moves replay to one
    state per move, legal each, and which reads back from its own JSON."""
    try:
        record = parse_record(data)
        _, states = replay_record(record)
    except StonegardenError:
        return
    assert len(states) == len(record.moves) + 1
    assert parse_record(record.to_json()) == record
    for before, after in itertools.pairwise(states):
        assert after.ply == before.ply + 1


@settings(max_examples=150, deadline=None)
@given(
    game=st.sampled_from([*GAME_IDS, "chess", "", 3]),
    params=st.dictionaries(st.sampled_from(["size", "target", "holes", "superko", "max_turns",
                                            "start_scores", "bogus"]), json_values, max_size=3),
    moves=st.lists(st.one_of(garbage, st.just("resign"), st.just("Rc3")), max_size=5),
    result=json_values,
)
@pytest.mark.slow
def test_record_with_garbage_fields_gives_record_error(game, params, moves, result):
    record = {"format": "stonegarden-record", "version": 1, "game": game, "params": params,
              "moves": moves, "result": result}
    check_record(json.dumps(record))


@settings(max_examples=150, deadline=None)
@given(st.binary(max_size=200))
@pytest.mark.slow
def test_record_reader_binary_garbage(data):
    with pytest.raises(StonegardenError):
        parse_record(data)


@settings(max_examples=100, deadline=None)
@given(st.lists(st.text(max_size=12), max_size=4), st.sampled_from(GAME_IDS))
def test_param_options_garbage(options, game_id):
    try:
        game = stonegarden.make(game_id, **parse_param_options(options))
    except StonegardenError:
        return
    # accepted parameters are a game whose record form makes the same game again
    again = stonegarden.make(game_id, **game.non_default_params())
    assert again.params == game.params and repr(again) == repr(game)


@settings(max_examples=100, deadline=None)
@given(st.text(max_size=30))
def test_agent_spec_garbage(spec):
    try:
        agent = make_agent(spec)
    except StonegardenError:
        return
    # an accepted spec is an agent that names itself so and plays a legal move
    assert agent.spec == spec.strip()
    game = stonegarden.make("blooms", size=2)
    state = game.initial_state()
    if isinstance(agent, SearchAgent):
        agent.budget = Budget(sims=4)
    assert game.is_legal(state, agent.choose(game, state))


@pytest.mark.parametrize("game_id", GAME_IDS)
@pytest.mark.parametrize("space", ["\t", "  ", " \u00a0"])
def test_position_text_fields_apart_by_any_whitespace_read_alike(game_id, space):
    # a position pasted from a table or a chat has tabs or other spaces between its fields:
    # every game reads them, where Free Go and Bridge Go refused a tab that Blooms read
    game = stonegarden.make(game_id, **SMALL.get(game_id, {}))
    s = states_of(game, 7, n=4)[-1]
    text = game.position_text(s)
    assert game.parse_position(f" {text.replace(' ', space)}\t\n") == game.parse_position(text)


@pytest.mark.parametrize("game_id", GAME_IDS)
def test_a_resigned_games_position_and_diagram_read_back_as_the_position_it_was_made_in(game_id):
    # written with the ply one on and the same player to move, they read back as no position
    # ("at ply 2 player 1 is to move, not 2"): `replay`'s last diagram, the web app's `position`
    game = stonegarden.make(game_id, **SMALL.get(game_id, {}))
    s = next(s for s in reversed(states_of(game, 3, n=3))
             if game.current_player(s) != stonegarden.CHANCE)
    resigned = game.resign(s)
    text = game.position_text(resigned)
    assert text == game.position_text(s)
    assert game.position_text(game.parse_position(text)) == text
    assert game.position_text(game.parse_diagram(game.diagram(resigned))) == text
