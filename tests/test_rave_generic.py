"""RAVE in the generic tree (Free Go, Bridge Go): the AMAF playouts replay through the rules,
the statistics count exactly the moves each player made later in a simulation, the blended
selection kernel matches its formula, and the search still finds wins."""

from __future__ import annotations

import dataclasses
import functools
import math

import numpy as np
import pytest

import stonegarden
from stonegarden.agents.registry import make_agent
from stonegarden.search.config import Budget, SearchConfig
from stonegarden.search.generic import GenericMcts
from stonegarden.search.ucb import amaf_mark, amaf_update, rave_pick

RAVE = dataclasses.replace(SearchConfig(), fast=False)
NO_RAVE = dataclasses.replace(RAVE, rave=False)
AMAF_GAMES = [("freego", {"size": 5, "target": 6}), ("freego", {"size": 5, "ko": "superko"}),
              ("bridgego", {"size": 5}), ("bridgego", {"size": 4, "superko": False,
                                                       "max_turns": 12})]


def _mid_game(game, seed):
    state = game.initial_state()
    rng = np.random.default_rng(seed)
    for _ in range(int(rng.integers(0, 8))):
        acts = game.legal_actions(state)
        nxt = game.play(state, int(acts[int(rng.integers(len(acts)))]))
        if game.is_terminal(nxt):
            break
        state = nxt
    return state


@pytest.mark.parametrize("game_id,params", AMAF_GAMES, ids=str)
@pytest.mark.parametrize("seed", range(5))
def test_amaf_playout_moves_replay_through_the_rules_to_its_winner(game_id, params, seed):
    game = stonegarden.make(game_id, **params)
    state = _mid_game(game, seed)
    winner, moves = game.amaf_playout(state, seed, captures=4 if game_id == "freego" else 0)
    again = game.amaf_playout(state, seed, captures=4 if game_id == "freego" else 0)
    assert again[0] == winner and list(again[1]) == list(moves)  # the seed decides
    for m in moves:
        state = game.play(state, int(m))  # raises if the playout made an illegal move
    assert game.is_terminal(state)
    assert (game.winner(state) or 0) == winner


def test_a_finished_game_plays_out_to_no_moves():
    game = stonegarden.make("freego", size=5, target=1)
    done = game.replay(["b1", "a1", "a2"])[-1]
    assert game.is_terminal(done)
    winner, moves = game.amaf_playout(done, 1)
    assert winner == 1 and len(moves) == 0


def test_games_without_amaf_playouts_search_without_rave():
    blobs = stonegarden.make("blobs")
    assert not blobs.has_amaf
    with pytest.raises(NotImplementedError):
        blobs.amaf_playout(blobs.initial_state(), 1)
    engine = GenericMcts(blobs, RAVE, 1)
    engine.search(blobs.initial_state(), Budget(sims=100))
    assert len(engine.root.rn) == 0


def test_rave_statistics_count_the_tree_move_and_the_same_player_s_playout_moves(monkeypatch):
    """One simulation from the root: the root's player (Black) chose ``a`` in the tree; the
    playout from the child went White x, Black y, White z. The root's RAVE samples are exactly
    ``a`` and ``y``, with Black's reward (player 1's sums, a Black win)."""
    game = stonegarden.make("freego", size=5)
    state = game.initial_state()
    x, y, z = 20, 21, 22
    monkeypatch.setattr(game, "amaf_playout", lambda s, seed, *policy:
                        (1, np.array([x, y, z], np.int32)))
    engine = GenericMcts(game, dataclasses.replace(RAVE, prior=0), 3)  # no virtual samples
    engine.search(state, Budget(sims=1))
    root = engine.root
    (i,) = root.children  # the one action tried
    a = int(root.actions[i])
    assert a not in (x, y, z) or a == y
    sampled = {int(root.actions[j]) for j in np.flatnonzero(root.rn)}
    assert sampled == {a, y}
    assert root.rn.sum() == len(sampled) and root.rw.sum() == len(sampled)
    assert root.n[i] == 1 and root.n.sum() == 1


@pytest.mark.parametrize("game_id", ["freego", "bridgego"])
def test_every_visit_through_an_action_is_also_a_rave_sample_of_it(game_id):
    game = stonegarden.make(game_id, size=5)
    engine = GenericMcts(game, RAVE, 2)
    engine.search(game.initial_state(), Budget(sims=600))
    root = engine.root
    assert np.all(root.rn >= root.n)
    assert np.all(root.rn <= root.visits)
    assert np.all((root.rw >= 0) & (root.rw <= root.rn))
    plain = GenericMcts(game, NO_RAVE, 2)
    plain.search(game.initial_state(), Budget(sims=600))
    assert len(plain.root.rn) == 0


@pytest.mark.parametrize("game_id", ["freego", "bridgego"])
def test_a_fixed_seed_and_simulation_count_give_the_same_rave_search(game_id):
    game = stonegarden.make(game_id, size=5)
    state = game.replay(["c3", "b2"])[-1]
    a = GenericMcts(game, RAVE, 5).search(state, Budget(sims=500))
    b = GenericMcts(game, RAVE, 5).search(state, Budget(sims=500))
    assert [(m.action, m.visits, m.value) for m in a.moves] == \
        [(m.action, m.visits, m.value) for m in b.moves]
    c = GenericMcts(game, NO_RAVE, 5).search(state, Budget(sims=500))
    assert [(m.action, m.visits) for m in a.moves] != [(m.action, m.visits) for m in c.moves]


def _root_visits(game, state, config):
    """(action, visits) of the root's moves after a 400-simulation search with ``config``."""
    result = GenericMcts(game, config, 9).search(state, Budget(sims=400))
    return [(m.action, m.visits) for m in result.moves]


@pytest.mark.parametrize("game_id", ["freego", "bridgego"])
def test_rave_k_defaults_to_the_game_s_own_and_an_agent_option_overrides_it(game_id):
    game = stonegarden.make(game_id, size=5)
    state = game.replay(["c3", "b2"])[-1]

    visits = functools.partial(_root_visits, game, state)

    own = dataclasses.replace(RAVE, rave_k=game.default_rave_k)
    assert RAVE.rave_k is None and visits(RAVE) == visits(own)
    assert visits(dataclasses.replace(RAVE, rave_k=5.0)) != visits(own)
    agent = make_agent("mcts:sims=10,rave_k=5")
    assert agent.config.rave_k == 5.0 and agent.config.rave_k_for(game) == 5.0
    assert make_agent("mcts:sims=10").config.rave_k_for(game) == game.default_rave_k


@pytest.mark.parametrize("game_id", ["freego", "bridgego"])
def test_c_defaults_to_the_game_s_own_and_an_agent_option_overrides_it(game_id):
    game = stonegarden.make(game_id, size=5)
    state = game.replay(["c3", "b2"])[-1]

    visits = functools.partial(_root_visits, game, state)

    own = dataclasses.replace(RAVE, c=game.default_c)
    assert RAVE.c is None and visits(RAVE) == visits(own)
    assert visits(dataclasses.replace(RAVE, c=3.0)) != visits(own)
    assert make_agent("mcts:sims=10,c=0.3").config.c_for(game) == 0.3
    assert make_agent("mcts:sims=10").config.c_for(game) == game.default_c


def test_rave_search_finds_and_proves_the_winning_capture():
    """5x5, target 1: White's corner stone a1 has one liberty left (a2); Black to move."""
    game = stonegarden.make("freego", size=5, target=1)
    state = game.replay(["b1", "a1"])[-1]
    res = GenericMcts(game, RAVE, 1).search(state, Budget(sims=3000))
    assert game.action_to_text(state, res.best).lower() == "a2"
    assert res.proven == 1


def test_rave_search_blocks_a_bridge_one_move_from_completion():
    """Bridge Go 5x5: Black's column a1-a4 needs a5 to join the bottom and top sides; White
    to move must take a5 (any other move loses at once)."""
    game = stonegarden.make("bridgego", size=5)
    state = game.replay(["a1", "e1", "a2", "e2", "a3", "d4", "a4"])[-1]
    assert game.winner(game.play_text(state, "e5")) is None
    assert game.winner(game.play_text(game.play_text(state, "e5"), "a5")) == 1
    res = GenericMcts(game, RAVE, 1).search(state, Budget(sims=3000))
    assert game.action_to_text(state, res.best).lower() == "a5"


@pytest.mark.parametrize("seed", range(20))
def test_the_rave_kernel_picks_what_the_numpy_formula_picks(seed):
    rng = np.random.default_rng(seed)
    k = int(rng.integers(1, 40))
    n = rng.integers(0, 6, k).astype(np.float64)
    rn = n + rng.integers(0, 8, k)
    w = np.floor(rng.random(k) * (n + 1) * 2) / 2
    rw = np.floor(rng.random(k) * (rn + 1) * 2) / 2
    w, rw = np.minimum(w, n), np.minimum(rw, rn)
    bonus = rng.choice([0.0, 0.0, math.inf, -math.inf], k)
    log_n = math.log(n.sum() + 1)
    for flip in (False, True):
        for use_bonus in (False, True):
            with np.errstate(divide="ignore", invalid="ignore"):
                beta = rn / (n + rn + n * rn / 300.0)
                q = np.where(n > 0, w / n, 0.0)
                rq = np.where(rn > 0, rw / rn, 0.0)
            if flip:
                q, rq = 1.0 - q, 1.0 - rq
            score = (1 - beta) * q + beta * rq + 0.2 * np.sqrt(log_n / (n + 1))
            score = np.where((n == 0) & (rn == 0), 2.0, score)
            if use_bonus:
                score = score + bonus
            order = rng.permutation(k)
            got = rave_pick(w, n, rw, rn, flip, 0.2, log_n, 300.0, bonus, use_bonus, order)
            assert got == int(order[np.argmax(score[order])])


def test_amaf_kernels_stamp_alternating_players_and_update_only_stamped_actions():
    seen = np.zeros((3, 10), np.int64)
    amaf_mark(seen, np.array([4, 5, 6], np.int32), 2, 7)
    assert list(np.flatnonzero(seen[2] == 7)) == [4, 6]
    assert list(np.flatnonzero(seen[1] == 7)) == [5]
    rn, rw = np.zeros(3), np.zeros(3)
    amaf_update(rn, rw, np.array([6, 5, 4]), seen[2], 7, 0.5)
    assert list(rn) == [1, 0, 1] and list(rw) == [0.5, 0, 0.5]
    amaf_update(rn, rw, np.array([6, 5, 4]), seen[2], 8, 1.0)  # another simulation's stamp
    assert list(rn) == [1, 0, 1]


def test_small_rave_searches_break_ties_at_random_not_by_action_index():
    """Before any statistics every untried move scores the same; the node's random order, not
    the action index, decides, so tiny Bridge Go searches do not crawl along the first row."""
    game = stonegarden.make("bridgego", size=9)
    state = game.initial_state()
    picks = [GenericMcts(game, RAVE, seed).search(state, Budget(sims=20)).best
             for seed in range(12)]
    assert sum(p < 9 for p in picks) <= 3, picks
    assert len(set(picks)) >= 8, picks
