"""Layer 1: every registered game keeps the protocol's invariants in seeded random games."""

from __future__ import annotations

import dataclasses
import json
import pickle

import numpy as np
import pytest

import stonegarden
from stonegarden import CHANCE
from stonegarden.core.record import make_record, parse_record, replay_record
from stonegarden.search.profile import profile_for

# small parameters so each random game is quick; games not listed use their defaults
SMALL = {
    "blooms": {"size": 3, "target": 6},
    "blooms-territory": {"size": 3, "max_turns": 60},
    "freego": {"size": 5, "target": 4},
    "bridgego": {"size": 5},
    "blobs": {"dice": 16, "max_grid": 5},
}


def games():
    return [pytest.param(g, id=g) for g in stonegarden.available_games()]


#: variants whose rules differ in kind from the game's defaults: chance nodes (Tumbling Dice)
VARIANTS = [pytest.param("blobs", {"tumbling": True, "dice": 16, "max_grid": 5},
                         id="blobs-tumbling")]


def random_game(game, seed, limit=400):
    rng = np.random.default_rng(seed)
    state = game.initial_state()
    states, moves = [state], []
    while not game.is_terminal(state) and len(moves) < limit:
        if game.current_player(state) == CHANCE:
            outcomes = game.chance_outcomes(state)
            assert outcomes and abs(sum(p for _, p in outcomes) - 1) < 1e-9
            action = outcomes[int(rng.integers(len(outcomes)))][0]
        else:
            legal = game.legal_actions(state)
            assert len(legal) > 0, game.position_text(state)
            assert game.count_legal_actions(state) == len(legal)
            assert np.all(np.diff(legal) > 0), "legal actions are sorted and distinct"
            action = int(legal[int(rng.integers(len(legal)))])
        text = game.action_to_text(state, action)
        assert game.parse_action(state, text) == action
        assert game.parse_action(state, f"  {text.lower()} ") == action
        before = dataclasses.astuple(state)
        state = game.play(state, action)
        assert dataclasses.astuple(states[-1]) == before, "play must not mutate"
        moves.append(text)
        states.append(state)
    return states, moves


@pytest.mark.parametrize("game_id,params", [pytest.param(g, SMALL.get(g, {}), id=g)
                                            for g in stonegarden.available_games()] + VARIANTS)
@pytest.mark.parametrize("seed", range(3))
@pytest.mark.slow
def test_random_games_keep_invariants(game_id, params, seed):
    game = stonegarden.make(game_id, **params)
    states, moves = random_game(game, seed)
    final = states[-1]
    assert game.is_terminal(final), "small games end"
    assert game.winner(final) in (0, 1, 2)
    r = game.returns(final)
    assert len(r) == 2 and sum(r) == 0
    assert len(game.legal_actions(final)) == 0
    for s in states[::7]:
        again = game.parse_position(game.position_text(s))
        assert game.position_text(again) == game.position_text(s)
        assert game.position_text(game.parse_diagram(game.diagram(s))) == game.position_text(s)
    record = make_record(game, moves, final)
    g2, replayed = replay_record(parse_record(record.to_json()))
    assert game.position_text(replayed[-1]) == game.position_text(final)
    assert g2.winner(replayed[-1]) == game.winner(final)


@pytest.mark.parametrize("game_id", games())
def test_the_terminals_diagram_reads_back(game_id):
    """What the terminal and ``replay`` draw (``display_diagram``: Blooms adds cell numbers) is
    what a player copies into a file: ``parse_diagram`` reads it as it reads ``diagram``."""
    game = stonegarden.make(game_id, **SMALL.get(game_id, {}))
    states, _ = random_game(game, 0)
    for s in states[:6]:
        again = game.parse_diagram(game.display_diagram(s))
        assert game.position_text(again) == game.position_text(s)


@pytest.mark.parametrize("game_id", games())
def test_a_position_saved_by_an_editor_with_a_byte_order_mark_reads(game_id):
    """Notepad saves a position text or a diagram with a byte order mark (and CRLF): it was
    refused as a first row one cell too long, or a first line that is no row."""
    game = stonegarden.make(game_id, **SMALL.get(game_id, {}))
    states, _ = random_game(game, 1)
    s = states[min(4, len(states) - 1)]
    saved = "\ufeff" + game.position_text(s) + "\r\n"
    assert game.position_text(game.parse_position(saved)) == game.position_text(s)
    drawn = "\ufeff" + game.display_diagram(s).replace("\n", "\r\n")
    assert game.position_text(game.parse_diagram(drawn)) == game.position_text(s)


@pytest.mark.parametrize("game_id", games())
def test_default_game_has_sane_sizes(game_id):
    game = stonegarden.make(game_id)
    s = game.initial_state()
    assert game.num_distinct_actions > 0
    assert game.max_game_length > 0
    if game.current_player(s) != CHANCE:
        assert all(0 <= a < game.num_distinct_actions for a in game.legal_actions(s))
    assert not game.is_terminal(s)
    assert game.winner(s) is None
    assert game.returns(s) == (0.0, 0.0)


@pytest.mark.parametrize("game_id", games())
@pytest.mark.slow
def test_random_playouts_kernel_finishes_games(game_id):
    game = stonegarden.make(game_id, **SMALL.get(game_id, {}))
    totals = game.random_playouts(game.initial_state(), 20, seed=3)
    assert totals.shape == (4,)
    assert totals[:3].sum() == 20
    assert totals[3] > 0
    again = game.random_playouts(game.initial_state(), 20, seed=3)
    assert np.array_equal(totals, again), "seeded playouts are reproducible"


def _same_future(game, a, b, depth=2):
    """Whether two states agree on everything the search sees, ``depth`` moves deep."""
    if (game.current_player(a), game.is_terminal(a), game.winner(a)) != (
            game.current_player(b), game.is_terminal(b), game.winner(b)):
        return False
    if game.is_terminal(a):
        return True
    if game.current_player(a) == CHANCE:
        acts = [x for x, _ in game.chance_outcomes(a)]
        if game.chance_outcomes(a) != game.chance_outcomes(b):
            return False
    else:
        acts = game.legal_actions(a)
        if not np.array_equal(acts, game.legal_actions(b)):
            return False
    return depth == 0 or all(
        profile_for(game).transposition_key(game.play(a, int(x))) == profile_for(game).transposition_key(game.play(b, int(x)))
        and _same_future(game, game.play(a, int(x)), game.play(b, int(x)), depth - 1)
        for x in acts[:4])


@pytest.mark.parametrize("game_id", games())
def test_transposition_keys_join_only_positions_with_one_future(game_id):
    """The search shares a node between states with equal ``transposition_key``: such states
    must have the same moves and results, and a key never joins different plies (no cycles).
    Orders of moves are swapped (the mover's two moves around the opponent's) to find states
    that meet; in Blobs they do."""
    game = stonegarden.make(game_id, **SMALL.get(game_id, {}))
    met = 0
    for seed in range(3):
        states, _ = random_game(game, seed)
        for s in states[: len(states) - 1 : 3]:
            if game.is_terminal(s) or game.current_player(s) == CHANCE:
                continue
            legal = game.legal_actions(s)
            if len(legal) < 2:  # one move: no two orders to swap
                continue
            rng = np.random.default_rng(seed)
            for _ in range(4):
                a1, a2 = (int(x) for x in rng.choice(legal, 2, replace=False))
                ends = []
                for first, last in ((a1, a2), (a2, a1)):
                    t = game.play(s, first)
                    if game.is_terminal(t) or game.current_player(t) == CHANCE:
                        break
                    t = game.play(t, int(game.legal_actions(t)[0]))
                    if game.is_terminal(t) or not game.is_legal(t, last):
                        break
                    ends.append(game.play(t, last))
                if len(ends) == 2 and profile_for(game).transposition_key(ends[0]) == profile_for(game).transposition_key(
                        ends[1]):
                    met += 1
                    assert _same_future(game, ends[0], ends[1]), game.position_text(ends[0])
        keys = {}
        for s in states:
            assert keys.setdefault(profile_for(game).transposition_key(s), s.ply) == s.ply
    if game_id == "blobs":
        assert met > 5


@pytest.mark.parametrize("game_id", stonegarden.available_games())
@pytest.mark.parametrize("player", [0, 3, -1, True])
def test_an_observation_for_no_player_is_refused_in_every_game(game_id, player):
    """An OpenSpiel index (0) passed by mistake raised IndexError or KeyError in some games
    and gave planes for nobody in others."""
    game = stonegarden.make(game_id, **SMALL.get(game_id, {}))
    with pytest.raises(stonegarden.ParameterError, match="player 1 or 2"):
        game.observation_tensor(game.initial_state(), player)
    assert game.observation_tensor(game.initial_state(), 2).shape == game.observation_shape


# a game of each other board for every game with a board size (Blobs' board is fixed)
OTHER_BOARD = {"blooms": {"size": 5}, "blooms-territory": {"size": 6}, "freego": {"size": 7},
               "bridgego": {"size": 7}}


@pytest.mark.parametrize("game_id", games())
def test_a_state_of_another_game_or_board_is_refused(game_id):
    """States hold no reference to their game: a Blooms size-5 state given to a size-4 game
    made its kernels write past their tables (the process aborted), and smaller boards gave
    garbage; now every entry point refuses it."""
    game = stonegarden.make(game_id, **SMALL.get(game_id, {}))
    strangers = [stonegarden.make("freego" if game_id != "freego" else "blooms").initial_state()]
    if game_id in OTHER_BOARD:
        other = stonegarden.make(game_id, **OTHER_BOARD[game_id])
        strangers.append(other.initial_state())
    for state in strangers:
        for use in (game.legal_actions, game.count_legal_actions, game.position_text,
                    game.diagram, game.scores, game.winner, lambda s: game.play(s, 0),
                    lambda s: game.observation_tensor(s, 1), lambda s: game.random_playouts(s, 2, 1)):
            with pytest.raises(stonegarden.PositionError, match="is not a state of"):
                use(state)


@pytest.mark.parametrize("game_id", games())
def test_whether_a_game_is_over_is_asked_of_its_own_states_only(game_id):
    """``is_terminal``, ``winner``, ``returns``, ``result_reason`` and ``resign`` read the
    state's resignation before checking it was one: given ``None`` (or an OpenSpiel state)
    they failed with ``AttributeError``, and a resigned state of another game was "over"."""
    game = stonegarden.make(game_id, **SMALL.get(game_id, {}))
    other = stonegarden.make("freego" if game_id != "freego" else "blooms")
    resigned = other.resign(other.initial_state())
    for stranger in (None, object(), resigned):
        for use in (game.is_terminal, game.winner, game.returns, game.result_reason,
                    game.resign):
            with pytest.raises(stonegarden.PositionError, match="is not a state of"):
                use(stranger)
    assert game.is_terminal(game.resign(game.first_decision()))


@pytest.mark.parametrize("game_id", games())
@pytest.mark.parametrize("count,seed,bad", [(3, None, "seed"), (3, -1, "seed"), (3, 2**64, "seed"),
                                            (3, "7", "seed"), (-1, 1, "count"), (2.5, 1, "count"),
                                            (2**64, 1, "count")])
def test_playouts_refuse_a_count_or_seed_out_of_range(game_id, count, seed, bad):
    """A seed of None failed deep in numba's type inference with a page of its diagnostics, one
    of 2**64 with OverflowError, and a negative seed was taken, but not at a finished game."""
    game = stonegarden.make(game_id, **SMALL.get(game_id, {}))
    with pytest.raises(stonegarden.ParameterError, match=f"playouts: {bad} must be an integer"):
        game.random_playouts(game.initial_state(), count, seed)
    assert game.random_playouts(game.initial_state(), 2, 2**63 - 1)[:3].sum() == 2


@pytest.mark.parametrize("game_id", games())
def test_a_game_s_parameters_are_read_only_and_pickle(game_id):
    """``game.params["size"] = 9`` was taken: the repr and the records then said size 9 while
    the board kept its old size."""
    game = stonegarden.make(game_id, **SMALL.get(game_id, {}))
    name = game.param_specs[0].name
    with pytest.raises(TypeError):
        game.params[name] = game.params[name]  # type: ignore[index]
    again = pickle.loads(pickle.dumps(game))
    assert repr(again) == repr(game) and dict(again.params) == dict(game.params)
    with pytest.raises(TypeError):
        again.params[name] = None  # type: ignore[index]
    assert again.position_text(again.initial_state()) == game.position_text(game.initial_state())


@pytest.mark.parametrize("game_id", games())
def test_games_with_equal_parameters_are_equal(game_id):
    """Two ``make`` calls with one game's parameters gave unequal games (compared by identity),
    so a game could not key a dict or be checked against a record's."""
    small = SMALL.get(game_id, {})
    game = stonegarden.make(game_id, **small)
    twin = stonegarden.make(game_id, **small)
    assert game == twin and hash(game) == hash(twin) and len({game, twin}) == 1
    assert pickle.loads(pickle.dumps(game)) == game
    assert game != stonegarden.make(game_id) and game != game_id
    if game_id == "blooms":  # the derived default equals the same value given
        assert stonegarden.make("blooms", size=3) == stonegarden.make("blooms", size=3, target=10)


@pytest.mark.parametrize("game_id", games())
def test_a_state_s_repr_is_compact_and_evaluates_to_it(game_id):
    """A state's repr printed its board as byte escapes, four characters a cell."""
    game = stonegarden.make(game_id, **SMALL.get(game_id, {}))
    states, _ = random_game(game, seed=1, limit=6)
    state = states[-1]
    text = repr(state)
    assert "\\x" not in text and "bytes.fromhex(" in text
    assert eval(text, {type(state).__name__: type(state)}) == state


@pytest.mark.parametrize("game_id", games())
@pytest.mark.parametrize("garbage", ["Z" * 5000, "a1" * 3000, "x\n" * 2000],
                         ids=["letters", "cells", "lines"])
def test_long_garbage_is_quoted_short_in_the_error(game_id, garbage):
    """A 5,000-character move or position was quoted whole in its ``NotationError``, so a
    web reply or a terminal line carried all of it back."""
    game = stonegarden.make(game_id)
    state = game.first_decision()
    for read in (lambda: game.parse_move(state, garbage), lambda: game.parse_position(garbage)):
        with pytest.raises(stonegarden.StonegardenError) as caught:
            read()
        assert len(str(caught.value)) < 400, str(caught.value)[:400]


@pytest.mark.parametrize("game_id", games())
def test_replay_refuses_one_string_of_moves(game_id):
    """``game.replay("D4 E5")`` read each character as a move and refused the first letter."""
    game = stonegarden.make(game_id, **SMALL.get(game_id, {}))
    with pytest.raises(stonegarden.NotationError, match="a list of move texts, not one string"):
        game.replay("a1 b2")
    for nothing in (None, 3):  # raised TypeError: not iterable
        with pytest.raises(stonegarden.NotationError, match=f"a list of move texts, not {nothing}"):
            game.replay(nothing)
    assert game.replay([]) == [game.initial_state()]


@pytest.mark.parametrize("game_id", games())
def test_none_for_a_derived_parameter_gives_its_default(game_id):
    """``make("blooms", size=5, target=None)``, the natural way to ask for the default in a
    function of its own, was refused: "None is not an integer"."""
    for spec in stonegarden.make(game_id).param_specs:
        if spec.default is None:
            game = stonegarden.make(game_id, **{spec.name: None})
            assert game.params == stonegarden.make(game_id).params
            assert repr(game) == f"make({game_id!r})"


@pytest.mark.parametrize("game_id", games())
def test_a_whole_list_given_for_one_move_is_quoted_short(game_id):
    """``play_text(state, moves)`` with the game's whole move list (or ``play`` with it) quoted
    every move in its message."""
    game = stonegarden.make(game_id, **SMALL.get(game_id, {}))
    moves = ["resign"] * 1000
    for use in (game.play_text, game.play, game.is_legal):
        with pytest.raises(stonegarden.NotationError) as info:
            use(game.initial_state(), moves)
        assert len(str(info.value)) < 200 and "['resign', 'resign'" in str(info.value)


@pytest.mark.parametrize("game_id", games())
def test_the_first_decision_is_a_players_reached_by_chance_alone(game_id):
    """``first_decision`` (what the warm-up searches and the lab's reports ask who makes):
    the start, past the first outcome of each chance event before any player moves."""
    game = stonegarden.make(game_id, **SMALL.get(game_id, {}))
    state, chances = game.initial_state(), 0
    while game.current_player(state) == CHANCE and not game.is_terminal(state):
        state = game.play(state, game.chance_outcomes(state)[0][0])
        chances += 1
    first = game.first_decision()
    assert first == state and first.ply == chances
    assert game.is_terminal(first) or game.current_player(first) in (1, 2)


@pytest.mark.parametrize("game_id", games())
def test_numpy_numbers_are_taken_as_parameters(game_id):
    """``make("blooms", size=np.int64(5))``, a size from ``np.arange`` in a sweep, was refused:
    "np.int64(5) is not an integer"; a NumPy boolean was "not a boolean"."""
    small = SMALL.get(game_id, {})
    as_numpy = {name: np.bool_(value) if isinstance(value, bool)
                else np.int64(value) if isinstance(value, int) else value
                for name, value in stonegarden.make(game_id, **small).params.items()
                if value is not None}
    game = stonegarden.make(game_id, **as_numpy)
    assert game == stonegarden.make(game_id, **small)
    assert all(type(v) in (int, bool, str, tuple) for v in game.params.values() if v is not None)
    json.dumps(game.non_default_params())  # what a record writes
    with pytest.raises(stonegarden.ParameterError, match="is not an integer"):
        stonegarden.make(game_id, **{game.param_specs[0].name: np.float64(5)})


@pytest.mark.parametrize("game_id", games())
def test_a_parameter_as_text_takes_ascii_digits_only(game_id):
    """``size="5_0"`` was a board of size 50, and a full-width or Arabic-Indic 5 a board of 5:
    Python's ``int`` reads them, and a record kept the odd spelling's value."""
    small = SMALL.get(game_id, {})
    game = stonegarden.make(game_id, **small)
    spec = next(p for p in game.param_specs if p.kind == "int"
                and isinstance(game.params[p.name], int))
    value = str(game.params[spec.name])
    assert stonegarden.make(game_id, **{**small, spec.name: f" {value}"}) == game
    for text in (value + "_0", value.translate({d: d + 0xFEE0 for d in range(48, 58)}),
                 value.translate({d: d - 48 + 0x0660 for d in range(48, 58)}), value + ".0"):
        with pytest.raises(stonegarden.ParameterError, match="is not an integer"):
            stonegarden.make(game_id, **{**small, spec.name: text})


@pytest.mark.parametrize("game_id", games())
def test_every_method_refuses_a_state_of_another_game_or_board(game_id):
    """``current_player``, ``action_to_text``, ``parse_action``, ``chance_outcomes``,
    ``keeps_scores``, ``status_words`` and ``replay_extras`` answered for a state of another
    game or board as if it were theirs (Blobs' ``replay_extras`` failed an assertion)."""
    game = stonegarden.make(game_id, **SMALL.get(game_id, {}))
    own = game.first_decision()
    text = game.action_to_text(own, int(game.legal_actions(own)[0]))
    strangers = [stonegarden.make("freego" if game_id != "freego" else "blooms").initial_state()]
    if game_id in OTHER_BOARD:
        strangers.append(stonegarden.make(game_id, **OTHER_BOARD[game_id]).initial_state())
    for state in strangers:
        for use in (game.current_player, game.chance_outcomes, game.keeps_scores,
                    game.status_words, lambda s: game.replay_extras(s, s),
                    lambda s: game.replay_extras(own, s), lambda s: game.action_to_text(s, 0),
                    lambda s: game.parse_action(s, text), game.is_terminal, game.returns,
                    game.result_reason, game.resign, game.legal_moves_text):
            with pytest.raises(stonegarden.PositionError, match="is not a state of"):
                use(state)
