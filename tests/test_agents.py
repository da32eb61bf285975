"""Agents by spec string: construction, bad specs, greedy's choices, legal play in every game."""

from __future__ import annotations

import dataclasses
import itertools
import subprocess
import sys
import time

import pytest

import stonegarden
from stonegarden.agents import agent_names, make_agent
from stonegarden.agents.search_agents import FORCED_SIMS, SearchAgent, level_budget
from stonegarden.errors import ParameterError
from stonegarden.search.profile import LEVELS, profile_for

from .conftest import cli_env

SPECS = ["random:seed=1", "greedy:seed=1", "uct-flat:sims=40,seed=1", "mcts:sims=40,seed=1",
         "mcts:sims=40,seed=1,split=off,rave=off,solver=off,chance=off,reuse=off,captures=0",
         "mcts:sims=40,seed=1,captures=3,safe=3,contempt=0.1", "mcts:sims=40,contempt=0",
         "mcts:sims=40,seed=1,fast=off", "mcts:sims=40,seed=1,grave=5", "level:1,seed=1", "level:2"]


def test_the_bridges_playout_policy_is_an_mcts_switch():
    game = stonegarden.make("bridgego", size=5)
    profile = profile_for(game)
    agent = make_agent("mcts:sims=60,seed=2")
    assert isinstance(agent, SearchAgent)
    assert profile.option(agent.config, "bridges") == 1  # on by default
    off = make_agent("mcts:sims=60,bridges=off")
    assert isinstance(off, SearchAgent) and profile.option(off.config, "bridges") == 0
    flat = make_agent("uct-flat:sims=60")
    assert isinstance(flat, SearchAgent)
    assert profile.option(flat.config, "bridges") == 0  # the baseline plays uniformly
    state = game.replay(["b2", "c2", "c3", "b3"])[-1]
    assert game.is_legal(state, agent.choose(game, state))


def test_every_agent_is_listed_with_a_description():
    names = agent_names()
    for name in ("random", "greedy", "uct-flat", "mcts", "level"):
        assert names[name]


def test_mcts_is_described_with_every_option_a_game_declares():
    """The games' own options are read from their profiles (a list written in the agents
    missed ``eyes`` and ``patterns``)."""
    from stonegarden.search.profile import declared_options

    own = agent_names()["mcts"].partition("the game's own: ")[2]
    assert [o for o in declared_options() if f"{o}=" not in own] == []


@pytest.mark.parametrize("game_id,params", [("blooms", {"size": 3}),
                                            ("blooms-territory", {"size": 3, "max_turns": 10})])
@pytest.mark.parametrize("spec", SPECS)
@pytest.mark.slow
def test_agents_play_legal_moves_to_the_end(game_id, params, spec):
    game = stonegarden.make(game_id, **params)
    agent = make_agent(spec)
    assert agent.spec == spec
    state = game.initial_state()
    while not game.is_terminal(state):
        state = game.play(state, agent.choose(game, state))


@pytest.mark.parametrize("spec", ["random:seed=1", "greedy:seed=1", "uct-flat:sims=20,seed=1",
                                  "mcts:sims=20,seed=1", "level:1,seed=1"])
def test_an_agent_refuses_a_finished_game_and_a_chance_event(spec):
    """On a finished game the searches played a move (mcts, level) or crashed with
    ZeroDivisionError (uct-flat) and random and greedy with numpy's ValueError; at a chance
    node random and greedy picked a roll uniformly, against its probabilities."""
    agent = make_agent(spec)
    assert repr(agent) == f"make_agent({spec!r})"
    game = stonegarden.make("bridgego", size=5)
    over = game.play_text(game.initial_state(), "resign")
    with pytest.raises(stonegarden.PositionError, match="the game is over"):
        agent.choose(game, over)
    if isinstance(agent, SearchAgent):
        with pytest.raises(stonegarden.PositionError, match="the game is over"):
            agent.analyse(game, over)
    blobs = stonegarden.make("blobs", tumbling=True, dice=16, max_grid=5)
    roll = blobs.initial_state()
    assert blobs.current_player(roll) == stonegarden.CHANCE
    with pytest.raises(stonegarden.PositionError, match="a chance event is due"):
        agent.choose(blobs, roll)
    after = blobs.play_text(roll, "roll:M")
    assert blobs.is_legal(after, agent.choose(blobs, after))


@pytest.mark.parametrize("spec,message", [
    ("", "empty"),
    ("nosuch", "unknown agent 'nosuch'"),
    ("mcts:time=abc", "'time' must be a number"),
    ("mcts:time=-1", "'time' must be 0.001..600"),
    ("mcts:time=1e-9", "'time' must be 0.001..600"),  # positive, below the documented range
    ("mcts:time=nan", "'time' must be a number, not 'nan'"),
    ("mcts:time=inf", "'time' must be a number, not 'inf'"),
    # Python reads these as numbers: an underscore between digits, and Unicode digits
    ("mcts:time=0_5", "'time' must be a number, not '0_5'"),
    ("mcts:time=١", "'time' must be a number"),
    ("mcts:sims=5_0", "'sims' must be an integer"),
    ("mcts:sims=٥٠", "'sims' must be an integer"),
    ("mcts:seed=1_2", "'seed' must be an integer"),
    ("mcts:sims=0", "'sims' must be at least 1"),
    ("mcts:sims=many", "'sims' must be an integer"),
    # the message names every word a switch takes: it said "on/off (1/0)", and true/false and
    # yes/no, which it takes too, were nowhere said
    ("mcts:rave=maybe", r"'rave' must be on or off \(or 1/0, true/false, yes/no\), not 'maybe'"),
    ("mcts:bridges=2", r"'bridges' must be on or off \(or 1/0, true/false, yes/no\)"),
    ("mcts:bogus=1", "unknown option"),
    ("mcts:captures=99", "'captures' must be 0..64"),
    ("mcts:safe=-1", "'safe' must be 0..64"),
    ("mcts:patterns=65", "'patterns' must be 0..64, not '65'"),  # bounded as captures is
    ("mcts:contempt=0.6", "'contempt' must be 0..0.5"),
    ("mcts:contempt=-0.1", "'contempt' must be 0 or more"),
    ("mcts:contempt=nan", "'contempt' must be a number, not 'nan'"),
    ("mcts:grave=-3", "'grave' must be 0"),
    ("uct-flat:rave=on", "unknown option"),
    ("level", "say which level"),
    ("level:0", "say which level"),
    ("level:7", "say which level"),
    ("level:x", "say which level"),
    ("level:²", "say which level"),   # a digit to isdigit, not to int: was a ValueError
    ("level:٤", "say which level"),   # an Arabic-Indic 4, which int reads as 4
    ("greedy:seed=x", "'seed' must be an integer"),
    ("random:seed=1,", "an empty option"),  # was "unknown option(s) _"
    ("level:3,", "an empty option"),        # was "two bare values, '3' and ''"
    ("mcts:sims=5,,seed=1", "an empty option"),
    # a value without its name was "unknown option(s) _"
    ("mcts:sims", r"'sims' is not an option: give each as key=value \(sims=500\)"),
    ("random:3", "'3' is not an option: give each as key=value"),
])
def test_bad_specs_raise_parameter_errors_naming_the_spec(spec, message):
    with pytest.raises(ParameterError, match=message) as info:
        make_agent(spec)
    assert repr(spec) in str(info.value) or not spec


@pytest.mark.parametrize("on,off", [("on", "off"), ("1", "0"), ("true", "false"), ("YES", "No")])
def test_a_switch_takes_the_words_its_refusal_names(on, off):
    """The words a refusal names are the ones taken, in any case, switches of the game's
    own (``split``) as the search's (``rave``)."""
    config = make_agent(f"mcts:rave={on},split={on}").config
    assert config.rave is True and config.game == (("split", 1),)
    agent = make_agent(f"mcts:rave={off},split={off}")
    assert agent.config.rave is False and agent.config.game == (("split", 0),)


@pytest.mark.parametrize("table", [LEVELS, *(profile_for(stonegarden.make(g)).levels
                                              for g in stonegarden.available_games())])
def test_levels_grow_in_simulations_and_in_time(table):
    """Both limits grow from each level to the next, so whichever ends a search (simulations
    in fast games, time in slow ones) each level searches more than the one below."""
    assert sorted(table) == sorted(LEVELS)
    budgets = [table[k] for k in sorted(table)]
    sims = [float("inf") if s is None else s for s, _ in budgets]
    seconds = [t for _, t in budgets]
    assert all(a < b for a, b in itertools.pairwise(sims))
    assert all(a < b for a, b in itertools.pairwise(seconds))


@pytest.mark.parametrize("game_id", [
    "blooms", "blooms-territory", "freego", "bridgego", "blobs"])
def test_a_level_searches_with_its_game_s_budget(game_id):
    """A level's budget is the game's profile's, and its search stops there: with the time cap
    lifted, level 1 makes exactly its simulations."""
    game = stonegarden.make(game_id)
    table = profile_for(game).levels
    for k in LEVELS:
        agent = make_agent(f"level:{k}")
        assert isinstance(agent, SearchAgent)
        budget = agent.budget_for(game)
        assert table[k] == level_budget(k, game)
        # a level with several trees gives each the level's simulations
        sims, seconds = table[k]
        assert (budget.sims, budget.seconds) == (
            None if sims is None else sims * agent.threads, seconds)
    agent = make_agent("level:1,seed=3")
    state = game.initial_state()
    sims = table[1][0]
    assert sims is not None
    budget = dataclasses.replace(agent.budget_for(game), seconds=600.0)
    result = agent.analyse(game, state, budget)
    assert result.sims == sims or result.proven is not None
    assert game.is_legal(state, result.best)


def test_a_level_keeps_its_stop_request_in_every_game():
    agent = make_agent("level:6")
    assert isinstance(agent, SearchAgent)
    agent.stop_when(lambda: True)
    for game_id in ("blooms", "blobs"):
        game = stonegarden.make(game_id)
        assert agent.budget_for(game).stop is not None
        assert agent.analyse(game, game.initial_state()).sims <= 64


def test_greedy_takes_the_immediate_win():
    # size 3, target 1: player 2's corner stone a1 has liberties b1 and b2 only
    game = stonegarden.make("blooms", size=3, target=1)
    state = game.replay(["Ra2", "Ka1"])[-1]
    for seed in range(3):
        move = make_agent(f"greedy:seed={seed}").choose(game, state)
        assert game.winner(game.play(state, move)) == 1


def test_greedy_takes_the_biggest_capture():
    # player 1 to move; player 2's corner stones Ka1 and Gb1 are nearly fenced by Ra2 and Rc1,
    # so some turns capture one stone, some both: greedy must take a largest capture
    game = stonegarden.make("blooms", size=3)
    state = game.replay(["Ra2", "Ka1,Gb1", "Rc1", "Kc5"])[-1]
    move = make_agent("greedy:seed=1").choose(game, state)
    after = game.play(state, move)
    best = max(game.play(state, int(a)).captured for a in game.legal_actions(state))
    assert after.captured == best > 0


def test_search_agents_reuse_their_engine_for_the_same_game():
    game = stonegarden.make("blooms", size=3)
    agent = make_agent("mcts:sims=50,seed=1")
    assert isinstance(agent, SearchAgent)
    assert agent.engine(game) is agent.engine(game)
    other = stonegarden.make("blooms", size=3)
    assert agent.engine(other) is not agent.engine(game)


@pytest.mark.slow
def test_play_command_runs_agents_with_a_thinking_status(cli):
    r = cli("play", "blooms", "--param", "size=3", "--p1", "level:1,seed=1",
            "--p2", "mcts:sims=30,seed=2", "--seed", "1")
    assert r.returncode == 0, r.stderr
    assert "Game over" in r.stdout


@pytest.mark.slow
def test_play_command_rejects_a_bad_agent_with_exit_2(cli):
    r = cli("play", "blooms", "--p2", "mcts:time=soon")
    assert r.returncode == 2
    assert "'time' must be a number" in r.stderr


_FIRST_SEARCH = """
from stonegarden.agents import make_agent
from stonegarden.core.registry import make
game = make("freego")
agent = make_agent("mcts:time=0.3,seed=1")
agent.choose(game, game.initial_state())
print(agent.last.sims)
"""


@pytest.mark.slow
def test_the_first_timed_search_of_a_process_is_not_spent_loading_kernels():
    # a fresh process loads the numba kernels (about a second) before its first search's clock
    # starts: a 0.3 s search used to make no simulation at all and play a random move
    out = subprocess.run([sys.executable, "-c", _FIRST_SEARCH], capture_output=True, text=True,
                         timeout=300, env=cli_env())
    assert out.returncode == 0, out.stderr
    assert int(out.stdout.strip()) >= 16  # the clock is read between chunks, 16 at first


def test_an_agent_is_checked_against_a_game_before_any_search():
    """``SearchAgent.check`` refuses what the game's search cannot do, and passes every
    level and the default search in every game."""
    territory = stonegarden.make("blooms-territory", size=3)
    freego = stonegarden.make("freego", size=5)
    with pytest.raises(ParameterError, match="no model file"):
        make_agent("mcts:model=/nonexistent/model.npz").check(territory)
    for spec in ("mcts:model=none,patterns=3", "mcts:patterns=3,tt=on",
                 "mcts:patterns=3,fast=off"):
        with pytest.raises(ParameterError, match="patterns"):
            make_agent(spec).check(freego)
    make_agent("mcts:patterns=3").check(freego)
    for game_id in stonegarden.available_games():
        game = stonegarden.make(game_id)
        for spec in ("mcts", "mcts:model=none", *(f"level:{n}" for n in range(1, 7))):
            make_agent(spec).check(game)


@pytest.mark.parametrize("spec", ["random:", "mcts:", " mcts: "])
def test_a_seed_added_to_a_spec_ending_in_a_colon_makes_one_option(spec):
    """``with_seed("random:", 5)`` wrote ``random:,seed=5``, an empty option before the seed:
    a study or a match of ``random:`` and the engine's seeded query of ``mcts:`` were refused."""
    from stonegarden.analysis_engine import answer
    from stonegarden.lab.selfplay import with_seed

    assert with_seed(spec, 5) == f"{spec.strip()}seed=5"
    assert make_agent(with_seed(spec, 5)).spec == f"{spec.strip()}seed=5"
    if spec.strip().startswith("mcts"):
        out = answer({"game": "blooms", "params": {"size": 3}, "agent": spec, "seed": 2,
                      "sims": 20})
        assert "error" not in out, out


@pytest.mark.parametrize("budget", [100, 2.5, "100", {"sims": 100}])
def test_analyse_refuses_a_budget_that_is_not_one(budget):
    # a bare 100 could be simulations or seconds; it failed with AttributeError in the search
    game = stonegarden.make("blooms", size=3)
    agent = make_agent("mcts:sims=8,seed=1")
    with pytest.raises(ParameterError) as refused:
        agent.analyse(game, game.initial_state(), budget)
    assert str(refused.value) == f"a search budget is a Budget(sims=..., seconds=...), not {budget!r}"
    assert agent.last is None


@pytest.mark.parametrize("spec", ["mcts:seed=1", "mcts:seed=1,threads=2,parallel=root"])
def test_a_search_from_a_chance_event_runs_its_simulations(spec):
    """A chance root's player (0) read as its proof (0, unproven): the solver took the root
    for won and the search ran no simulation (value 0.5, an arbitrary roll "best"), which
    valued a move followed by a roll at 0.5 in a review; the root-parallel search stopped
    its other trees at once."""
    from stonegarden.search.config import Budget

    dice = stonegarden.make("blobs", tumbling=True)
    roll = dice.initial_state()
    assert dice.current_player(roll) == stonegarden.CHANCE
    result = make_agent(spec).analyse(dice, roll, Budget(sims=60))
    assert result.sims == 60 == sum(m.visits for m in result.moves)
    assert result.proven is None and result.value != 0.5


@pytest.mark.parametrize("spec", ["random:seed=1", "greedy:seed=1", "mcts:sims=8,seed=1"])
def test_an_agent_given_what_is_not_a_game_says_so(spec):
    """An OpenSpiel game given in place of its ``.sg`` (or ``None``) failed with
    ``AttributeError``."""
    game = stonegarden.make("blooms", size=3)
    for wrong, name in ((None, "NoneType"), ("blooms", "str")):
        with pytest.raises(ParameterError, match=rf"^{name} is not a stonegarden game, which "
                           r"an agent plays \(stonegarden\.make\(\.\.\.\); an OpenSpiel "
                           r"game's is its \.sg\)$"):
            make_agent(spec).choose(wrong, game.initial_state())
    assert game.is_legal(game.initial_state(), make_agent(spec).choose(game, game.initial_state()))


@pytest.mark.parametrize("player,proven,won", [
    (0, 0, False),  # a chance root, unproven: its player's 0 is no proof of its own
    (1, 0, False), (1, 1, True), (2, 2, True), (1, 2, False), (2, 3, False), (0, 1, False),
])
def test_only_a_win_of_the_roots_player_ends_a_search(player, proven, won):
    """The compiled loop, the protocol tree and the root-parallel search ask one check when
    the solver ends a search; the compiled loop's read a chance root's player (0) as its
    proof, as the protocol tree's did till it was mended (its trees have no chance node)."""
    from stonegarden.search.pools import Pools
    from stonegarden.search.tree_kernels import root_won

    pools = Pools(4, 4)
    pools.nd_player[0], pools.nd_proven[0] = player, proven
    assert root_won(0, pools.nd_proven, pools.nd_player) is won


@pytest.mark.parametrize("spec", ["mcts:time=30", "mcts:sims=1000000", "level:6",
                                  "mcts:threads=2,time=30", "mcts:split=off,time=30"])
def test_a_forced_move_is_played_without_spending_the_move_s_budget(spec):
    # a pass that is Red's only move under the territory rules: the search thought for the
    # whole budget (a level's seconds) before playing it
    game = stonegarden.make("blooms-territory", size=2)
    state = game.initial_state()
    for move in ["Rb1", "Ga2", "Rc1,Yc2", "Gb2", "Rb3,Ya1", "Ga2"]:
        state = game.play_text(state, move)
    assert game.legal_moves_text(state) == ["pass"]
    agent = make_agent(spec)
    t0 = time.perf_counter()
    assert game.action_to_text(state, agent.choose(game, state)) == "pass"
    assert time.perf_counter() - t0 < 10
    assert agent.last is not None and 1 <= agent.last.sims <= FORCED_SIMS


def test_a_move_with_a_choice_searches_its_whole_budget():
    game = stonegarden.make("blooms-territory", size=2)
    agent = make_agent("mcts:sims=300")
    agent.choose(game, game.initial_state())
    assert agent.last is not None and agent.last.sims == 300
