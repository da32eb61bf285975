"""OpenSpiel adapter: every game loads by name and passes OpenSpiel's own tools."""

from __future__ import annotations

import numpy as np
import pytest

import stonegarden

pyspiel = pytest.importorskip("pyspiel", reason="open_spiel is in the test extra; install it")
from open_spiel.python.algorithms import evaluate_bots, mcts  # noqa: E402
from open_spiel.python.bots import uniform_random  # noqa: E402

from stonegarden.errors import IllegalMoveError, ParameterError  # noqa: E402
from stonegarden.interop import openspiel as adapter  # noqa: E402

SMALL = {
    "blooms": "size=3,target=6",
    "blooms-territory": "size=3,max_turns=40",
    "freego": "size=5,target=4",
    "bridgego": "size=5",
    "blobs": "dice=16,max_grid=5",
}


def load(game_id: str):
    return pyspiel.load_game(f"{adapter.openspiel_name(game_id)}({SMALL.get(game_id, '')})")


@pytest.mark.parametrize("game_id", stonegarden.available_games())
@pytest.mark.slow
def test_random_sim_test_passes(game_id):
    pyspiel.random_sim_test(load(game_id), num_sims=3, serialize=False, verbose=False)


@pytest.mark.parametrize("game_id", stonegarden.available_games())
def test_game_info_matches_the_stonegarden_game(game_id):
    g = load(game_id)
    sg = g.sg
    assert g.num_distinct_actions() == sg.num_distinct_actions
    assert g.max_game_length() == sg.max_game_length
    assert g.num_players() == 2
    assert g.get_type().utility == pyspiel.GameType.Utility.ZERO_SUM
    s = g.new_initial_state()
    obs = np.array(s.observation_tensor(0))
    assert obs.size == int(np.prod(sg.observation_shape))


def test_load_game_with_parameters_derives_the_target():
    g = pyspiel.load_game("stonegarden_blooms(size=5)")
    assert g.sg.params["target"] == 20 and g.num_distinct_actions() == 2 * 61 + 61 * 61 + 1


def test_holes_use_semicolons_in_game_strings():
    g = pyspiel.load_game("stonegarden_blooms(size=4,holes=d4;a1)")
    assert g.sg.params["holes"] == ("a1", "d4")


def test_unknown_parameter_is_refused():
    with pytest.raises(Exception, match="colour"):
        pyspiel.load_game("stonegarden_blooms(colour=3)")


def test_action_strings_name_the_movers_colours():
    g = load("blooms")
    s = g.new_initial_state()
    a = s.legal_actions()[0]
    assert s.action_to_string(0, a) == "Ra1"
    assert s.action_to_string(1, a) == "Ka1"


@pytest.mark.slow
def test_openspiel_mcts_bot_beats_random_on_a_small_board():
    g = pyspiel.load_game("stonegarden_blooms(size=3,target=6)")
    rng = np.random.default_rng(0)
    evaluator = mcts.RandomRolloutEvaluator(n_rollouts=1, random_state=np.random.RandomState(1))
    bot = mcts.MCTSBot(g, uct_c=2, max_simulations=60, evaluator=evaluator,
                       random_state=np.random.RandomState(2))
    wins = 0
    for i in range(4):
        rand = uniform_random.UniformRandomBot(1 - i % 2, np.random.RandomState(i))
        bots = [bot, rand] if i % 2 == 0 else [rand, bot]
        returns = evaluate_bots.evaluate_bots(g.new_initial_state(), bots, rng)
        wins += returns[i % 2] > 0
    assert wins >= 3


def test_tumbling_dice_chance_nodes_pass_random_sim_test():
    g = pyspiel.load_game("stonegarden_blobs(dice=16,max_grid=5,tumbling=true)")
    assert g.get_type().chance_mode == pyspiel.GameType.ChanceMode.EXPLICIT_STOCHASTIC
    s = g.new_initial_state()
    assert s.is_chance_node()
    assert abs(sum(p for _, p in s.chance_outcomes()) - 1) < 1e-9
    pyspiel.random_sim_test(g, num_sims=3, serialize=False, verbose=False)


def test_blobs_without_tumbling_dice_is_deterministic_for_openspiels_tools():
    g = pyspiel.load_game("stonegarden_blobs(dice=4,max_grid=3)")
    assert g.get_type().chance_mode == pyspiel.GameType.ChanceMode.DETERMINISTIC
    from open_spiel.python.algorithms import minimax

    value, action = minimax.alpha_beta_search(g, maximizing_player_id=0)
    assert value in (-1.0, 0.0, 1.0) and action is not None


def test_a_clone_shares_the_game_and_a_game_pickles_by_its_string():
    import pickle

    g = pyspiel.load_game("stonegarden_blooms(size=3)")
    s = g.new_initial_state()
    s.apply_action(s.legal_actions()[0])
    c = s.clone()
    assert c.sg is s.sg and str(c) == str(s)
    c.apply_action(c.legal_actions()[0])
    assert str(c) != str(s)  # the clone's position is its own
    again = pickle.loads(pickle.dumps(g))
    assert str(again) == str(g) and again.num_distinct_actions() == g.num_distinct_actions()


def test_observation_parameters_are_refused_with_a_typed_error():
    """Observation parameters, which no game takes, raised a bare ValueError, outside the
    one error hierarchy."""
    game = load("blooms")
    with pytest.raises(stonegarden.ParameterError, match="observation parameters"):
        game.make_py_observer(None, {"perfect_recall": True})
    assert game.make_py_observer(None, None).tensor.size > 0


def test_a_pickled_game_loads_in_a_process_that_never_imported_the_adapter():
    """Unpickling called ``pyspiel.load_game`` before anything had registered the games, so a
    spawned worker or a Ray task that received a game met "Unknown game 'stonegarden_blobs'"."""
    import pickle
    import subprocess
    import sys

    from .conftest import cli_env

    g = pyspiel.load_game("stonegarden_blobs(dice=16,tumbling=true)")
    code = ("import pickle, sys; g = pickle.loads(sys.stdin.buffer.read()); "
            "print(g, g.new_initial_state().chance_outcomes())")
    out = subprocess.run([sys.executable, "-c", code], input=pickle.dumps(g),
                         capture_output=True, timeout=120, env=cli_env())
    assert out.returncode == 0, out.stderr.decode()[-500:]
    assert out.stdout.decode().startswith(f"{g} [(0, 0.16")


def test_a_chance_outcome_out_of_range_is_named_as_given():
    s = pyspiel.load_game("stonegarden_blobs(tumbling=True)").new_initial_state()
    for call in (lambda: s.apply_action(5), lambda: s.action_to_string(-1, 5)):
        with pytest.raises(IllegalMoveError, match=r"^illegal move 'chance outcome 5': the "
                           r"outcomes here are 0 \(roll:R\), 1 \(roll:B\), 2 \(roll:M\)"):
            call()
    with pytest.raises(IllegalMoveError, match="'chance outcome 3'"):
        s.apply_action(3)
    assert s.is_chance_node() and s.action_to_string(-1, 2) == "roll:M"
    s.apply_action(2)
    assert s.history() == [2] and not s.is_chance_node()


@pytest.mark.parametrize("game_string", ["stonegarden_blooms(size=3)", "stonegarden_freego(size=5)"])
def test_an_action_string_for_no_player_is_refused_in_words(game_string):
    """Blooms' ``action_to_string(5, 0)`` failed with ``IndexError`` (its texts read the
    mover's colours from the player); every game names the player and the ones there are."""
    s = pyspiel.load_game(game_string).new_initial_state()
    action = s.legal_actions()[0]
    for player in (2, 5):
        with pytest.raises(ParameterError, match=f"player {player} is not one of this game's "
                                                 "players, 0 and 1"):
            s.action_to_string(player, action)
    assert s.action_to_string(0, action) == s.action_to_string(action)


def test_an_openspiel_state_given_to_the_game_is_refused_by_its_type():
    """``game.sg.is_terminal(state)`` (the OpenSpiel state for its ``.state``) failed with
    ``AttributeError``; the error quoted the state's diagram, many lines, where it names
    the object."""
    game = pyspiel.load_game("stonegarden_freego(size=5)")
    state = game.new_initial_state()
    for use in (game.sg.is_terminal, game.sg.legal_actions, game.sg.returns):
        with pytest.raises(stonegarden.PositionError,
                           match=r"^an OpenSpielState is not a state of make\('freego', size=5\)$"):
            use(state)
    assert not game.sg.is_terminal(state.state)


def played_to_the_end(s) -> list[tuple[int, int, str]]:
    """Play ``s`` to its end by seeded random actions; each as (player, action, its text as
    its player read it then)."""
    rng = np.random.default_rng(0)
    said = []
    while not s.is_terminal():
        player, action = s.current_player(), int(rng.choice(s.legal_actions()))
        said.append((player, action, s.action_to_string(player, action)))
        s.apply_action(action)
    return said


@pytest.mark.parametrize("tumbling", [False, True])
def test_a_finished_games_moves_read_as_moves(tumbling):
    """``action_to_string(action)`` once the game is over (the terminal's player id) read a
    Blobs placement as a chance outcome: 509 as the roll 1409, a ``NotationError``."""
    s = pyspiel.load_game(f"stonegarden_blobs(dice=4,tumbling={tumbling})").new_initial_state()
    said = played_to_the_end(s)
    for player, action, text in said:
        if player >= 0:
            assert s.action_to_string(action) == text
            assert s.action_to_string(pyspiel.PlayerId.TERMINAL, action) == text
        assert s.action_to_string(player, action) == text


@pytest.mark.parametrize("game_string", ["stonegarden_blooms(size=3,target=1)",
                                         "stonegarden_blooms_territory(size=2,max_turns=6)"])
def test_a_finished_blooms_game_reads_each_move_as_its_players(game_string):
    """At a finished Blooms game ``action_to_string(action)`` (the terminal's player id) read
    every move as the move of the player the state names, so player 2's came out in player
    1's colours (``Rc2`` for ``Kc2``); the player who made it reads it as it was played, and
    the terminal's id, which names no player, is refused saying to give one."""
    s = pyspiel.load_game(game_string).new_initial_state()
    said = played_to_the_end(s)
    assert {player for player, _, _ in said} == {0, 1}
    for player, action, text in said:
        assert s.action_to_string(player, action) == text
        with pytest.raises(ParameterError, match="the game is over, and the text of action "
                           f"{action} names the player who made it: give that player"):
            s.action_to_string(action)


def test_an_agent_given_the_openspiel_game_names_it():
    """``agent.choose(openspiel_game, state.state)`` failed with ``AttributeError``."""
    from stonegarden.agents import make_agent

    game = pyspiel.load_game("stonegarden_blooms(size=3)")
    state = game.new_initial_state()
    with pytest.raises(ParameterError, match=r"^OpenSpiel_blooms is not a stonegarden game, "
                       r"which an agent plays .*an OpenSpiel game's is its \.sg\)$"):
        make_agent("random:seed=1").choose(game, state.state)
    assert state.state.ply == 0 and make_agent("random:seed=1").choose(game.sg, state.state) >= 0


def _random_states(game):
    """Every state of a random game of ``game``, chance events included."""
    s = game.new_initial_state()
    rng = np.random.default_rng(3)
    states = [s.clone()]
    while not s.is_terminal():
        outcomes = [o for o, _ in s.chance_outcomes()] if s.is_chance_node() else s.legal_actions()
        s.apply_action(int(rng.choice(outcomes)))
        states.append(s.clone())
    return states


@pytest.mark.parametrize("game_string", [
    *(f"{adapter.openspiel_name(g)}({SMALL.get(g, '')})" for g in stonegarden.available_games()),
    "stonegarden_blobs(dice=16,max_grid=5,tumbling=true)",
])
def test_a_serialized_state_is_its_history_and_loads_exactly(game_string):
    """``state.serialize()`` was OpenSpiel's default for a Python game, a pickle, which
    ``game.deserialize_state`` loaded; it is the actions, one a line, replayed through the
    rules, and the [State] text of ``pyspiel.serialize_game_and_state`` loads the same way."""
    game = pyspiel.load_game(game_string)
    states = _random_states(game)
    assert any(s.is_chance_node() for s in states) == ("tumbling=true" in game_string)
    for s in states:
        text = s.serialize()
        assert text == "".join(f"{a}\n" for a in s.history())
        for loaded in (game.deserialize_state(text),
                       game.deserialize_state(pyspiel.serialize_game_and_state(game, s)
                                              .split("[State]\n", 1)[1])):
            assert loaded.state == s.state and loaded.history() == s.history()
            assert str(loaded) == str(s) and loaded.current_player() == s.current_player()


class _RunsCode:
    def __init__(self, path):
        self.path = path

    def __reduce__(self):
        import os

        return os.mkdir, (str(self.path),)


def test_a_saved_state_from_an_untrusted_file_runs_no_code(tmp_path):
    """``game.deserialize_state`` unpickled the pickled ``__dict__`` of OpenSpiel's text for a
    Python game's state, running whatever code a file held; only its history is read."""
    import base64
    import pickle

    game = pyspiel.load_game("stonegarden_blooms(size=3)")
    ran = tmp_path / "ran"
    payload = base64.b64encode(pickle.dumps({"x": _RunsCode(ran)})).decode()
    state = game.deserialize_state(f"history=0:32,1:240\nmove_number=2\n__dict__={payload}")
    assert not ran.exists()
    assert state.history() == [32, 240] and state.state.ply == 2


def test_a_whole_file_of_serialize_game_and_state_loads_with_its_game_checked(tmp_path):
    """docs/interop.md says to load a file of ``pyspiel.serialize_game_and_state`` with
    ``game.deserialize_state``: the whole file was read as a history, and refused at its first
    line, OpenSpiel's comment. Its [State] is read, once its [Game] is this game."""
    game = pyspiel.load_game("stonegarden_blobs(tumbling=true,dice=6)")
    for s in _random_states(game):
        path = tmp_path / "state.txt"
        path.write_text(pyspiel.serialize_game_and_state(game, s))
        loaded = game.deserialize_state(path.read_text())
        assert loaded.state == s.state and loaded.history() == s.history()
    other = pyspiel.load_game("stonegarden_blooms(size=3)")
    with pytest.raises(ParameterError, match=r"the file's \[Game\] is 'stonegarden_blobs\("):
        other.deserialize_state(path.read_text())


@pytest.mark.parametrize("text,error,message", [
    ("32\nx\n", ParameterError, r"entry 2 of the history, 'x', is not an action number"),
    ("32\n1_0\n", ParameterError, "entry 2 of the history, '1_0', is not an action number"),
    ("history=0:3a\nmove_number=1\n", ParameterError, "entry 1 of the history, '3a'"),
    ("32\n32\n", IllegalMoveError, r"action 32 \(entry 2 of the history\)"),
])
def test_a_serialized_state_that_is_not_a_history_is_refused_naming_its_entry(text, error,
                                                                               message):
    with pytest.raises(error, match=message):
        pyspiel.load_game("stonegarden_blooms(size=3)").deserialize_state(text)
