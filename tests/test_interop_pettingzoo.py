"""PettingZoo adapter: every game passes PettingZoo's own API test."""

from __future__ import annotations

import numpy as np
import pytest

import stonegarden

pytest.importorskip("pettingzoo", reason="pettingzoo is in the test extra; install it")
from stonegarden.interop.pettingzoo import env

from .test_conformance import SMALL


@pytest.fixture
def api_test():
    """PettingZoo's API test, imported by the tests that run it: at collection it cost every
    worker of the suite a second."""
    from pettingzoo.test import api_test

    return api_test


@pytest.mark.parametrize("game_id", stonegarden.available_games())
def test_pettingzoo_api_test_passes(game_id, api_test):
    api_test(env(game_id, **SMALL.get(game_id, {})), num_cycles=300)


@pytest.mark.parametrize("game_id", stonegarden.available_games())
def test_a_masked_random_game_ends_with_opposite_rewards(game_id):
    e = env(game_id, **SMALL.get(game_id, {}))
    e.reset(seed=3)
    rng = np.random.default_rng(3)
    totals = {a: 0.0 for a in e.possible_agents}
    for agent in e.agent_iter(max_iter=5000):
        obs, reward, terminated, truncated, _ = e.last()
        totals[agent] += reward
        if terminated or truncated:
            e.step(None)
            continue
        legal = np.flatnonzero(obs["action_mask"])
        e.step(int(rng.choice(legal)))
    assert not e.agents, "the game ended within the iteration budget"
    assert sum(totals.values()) == 0


def test_illegal_action_raises_the_typed_error():
    e = env("blooms", size=3)
    e.reset(seed=0)
    first = int(np.flatnonzero(e.last()[0]["action_mask"])[0])
    e.step(first)
    with pytest.raises(stonegarden.IllegalMoveError):
        e.step(first)  # the cell is taken now


def test_tumbling_dice_rolls_inside_the_environment_are_seeded(api_test):
    def first_masks(seed):
        e = env("blobs", dice=16, max_grid=5, tumbling=True)
        e.reset(seed=seed)
        out = []
        for _ in range(6):
            obs = e.last()[0]
            out.append(obs["action_mask"].tobytes())
            e.step(int(np.flatnonzero(obs["action_mask"])[0]))
        return out

    assert first_masks(5) == first_masks(5)
    api_test(env("blobs", dice=16, max_grid=5, tumbling=True), num_cycles=200)


def test_a_game_over_at_reset_ends_every_agent_at_once():
    """Blobs with one die is a draw before any move: no agent may be left waiting."""
    for tumbling in (False, True):
        e = env("blobs", dice=1, tumbling=tumbling)
        e.reset(seed=1)
        seen = []
        for agent in e.agent_iter(max_iter=10):
            _, reward, terminated, truncated, _ = e.last()
            assert terminated and not truncated and reward == 0.0
            seen.append(agent)
            e.step(None)
        assert sorted(seen) == ["player_1", "player_2"] and e.agents == []


def test_the_global_state_method_is_the_apis_not_a_position():
    """``state()`` is AECEnv's (no global state here), not shadowed by the game's position."""
    e = env("freego", size=5)
    e.reset(seed=0)
    with pytest.raises(NotImplementedError):
        e.state()


def test_resets_without_a_seed_go_on_with_the_seeded_dice():
    """The Gymnasium way: ``reset(seed=S)`` once, then plain resets; every episode follows
    from S."""
    def episodes(seed):
        e = env("blobs", dice=12, max_grid=4, tumbling=True)
        out = []
        for i in range(3):
            e.reset(seed=seed if i == 0 else None)
            played = []
            for _ in e.agent_iter(max_iter=100):
                obs, _, terminated, truncated, _ = e.last()
                if terminated or truncated:
                    e.step(None)
                    continue
                played.append(obs["observation"].tobytes())
                e.step(int(np.flatnonzero(obs["action_mask"])[0]))
            out.append(played)
        return out

    first, again = episodes(7), episodes(7)
    assert first == again and first[1] != first[2]


@pytest.mark.parametrize("action", [3.7, "3", None, True])
def test_an_action_that_is_not_an_integer_is_refused_not_rounded(action):
    e = env("blooms", size=3)
    e.reset(seed=0)
    with pytest.raises(stonegarden.NotationError):
        e.step(action)


def test_a_step_before_reset_and_an_unknown_render_mode_are_refused():
    with pytest.raises(stonegarden.ParameterError, match="reset"):
        env("blooms", size=3).step(0)
    with pytest.raises(stonegarden.ParameterError, match="render_mode"):
        env("blooms", size=3, render_mode="rgb_array")
    e = env("blooms", size=3, render_mode="ansi")
    e.reset(seed=0)
    assert "to_move=1" in e.render()


def test_human_render_mode_prints_the_diagram_and_passes_pettingzoos_render_test(capsys):
    """``render_mode="human"``, as PettingZoo's tutorials and its own ``render_test`` make
    every environment, was refused."""
    from pettingzoo.test import render_test

    render_test(lambda render_mode=None: env("freego", size=5, render_mode=render_mode))
    e = env("freego", size=5, render_mode="human")
    capsys.readouterr()
    e.reset(seed=0)
    e.step(int(np.flatnonzero(e.last()[0]["action_mask"])[0]))
    printed = capsys.readouterr().out
    assert printed.count("to_move=") == 2 and "to_move=2" in printed
    assert e.render() is None


@pytest.mark.parametrize("seed", [-1, "a", 1.5, True])
def test_a_seed_that_is_not_a_natural_number_is_refused(seed):
    e = env("blobs", tumbling=True)
    with pytest.raises(stonegarden.ParameterError,
                       match=r"^reset: seed must be an integer, 0 or more, not "):
        e.reset(seed=seed)
    e.reset(seed=np.int64(2))
    assert e.agent_selection in ("player_1", "player_2")


def test_an_unknown_agent_is_refused_naming_the_agents():
    e = env("freego", size=5)
    e.reset(seed=0)
    for call in (e.observe, e.observation_space, e.action_space):
        with pytest.raises(stonegarden.ParameterError,
                           match=r"^unknown agent 'player_3' \(the agents are player_1, player_2\)"):
            call("player_3")
    assert e.observe("player_2")["action_mask"].sum() == 0


def test_a_step_or_last_after_the_game_and_a_dead_agents_action_are_refused_in_words():
    """A terminated agent stepped with an action met PettingZoo's bare ValueError, and a
    ``step`` or ``last`` once both agents had left the game (a loop that stepped on past the
    end) a ``KeyError``; ``last`` before ``reset`` an ``AttributeError``."""
    e = env("freego", size=5, target=1)
    with pytest.raises(stonegarden.ParameterError, match=r"reset\(\) the environment before "
                                                         r"the first last\(\)"):
        e.last()
    e.reset(seed=0)
    rng = np.random.default_rng(0)
    while not any(e.terminations.values()):
        e.step(int(rng.choice(np.flatnonzero(e.last()[0]["action_mask"]))))
    with pytest.raises(stonegarden.NotationError,
                       match=r"^player_\d's game is over: its only action is None, not 3$"):
        e.step(3)
    e.step(None)
    e.step(None)
    assert e.agents == []
    for call, name in ((lambda: e.step(None), "step"), (e.last, "last")):
        with pytest.raises(stonegarden.ParameterError, match=r"^the game is over and every agent "
                           rf"has left it: reset\(\) the environment before {name}\(\)$"):
            call()
    e.reset(seed=0)
    assert e.last()[2] is False


def test_each_agent_has_an_observation_space_of_its_own():
    """Both agents were given one space object: seeding one agent's reseeded the other's,
    and a change to one bound was the other's too."""
    e = env("blooms", size=3)
    first, second = e.observation_space("player_1"), e.observation_space("player_2")
    assert first is not second and first == second
    first.seed(1)
    second.seed(1)
    drawn = first.sample()
    assert np.array_equal(second.sample()["observation"], drawn["observation"])
    first["observation"].high[...] = 0.5
    assert second["observation"].high.max() == 1.0


def test_an_observation_before_reset_is_refused_in_words():
    """``observe`` before the first ``reset`` failed with ``AttributeError``."""
    e = env("blooms", size=3)
    with pytest.raises(stonegarden.ParameterError,
                       match=r"^reset\(\) the environment before the first observe\(\)$"):
        e.observe("player_1")
    e.reset(seed=0)
    assert e.observe("player_1")["action_mask"].sum() == 38
