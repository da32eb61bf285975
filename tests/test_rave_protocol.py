"""RAVE on the protocol tree (Free Go, Bridge Go): the playouts' moves replay through the
rules, the statistics count exactly the moves each player made later in a simulation, the
blended selection kernel matches its formula, and the search still finds wins."""

from __future__ import annotations

import dataclasses
import functools
import math

import numpy as np
import pytest

import stonegarden
from stonegarden.agents.registry import make_agent
from stonegarden.agents.search_agents import SearchAgent
from stonegarden.search.config import Budget, SearchConfig
from stonegarden.search.pools import Pools
from stonegarden.search.profile import profile_for
from stonegarden.search.protocol_tree import ProtocolTree
from stonegarden.search.tree_kernels import backup, seed_numba, select
from stonegarden.search.ucb import amaf_mark

from .tree_helpers import edges

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
    options = {"captures": 4} if game_id == "freego" else {}
    winner, moves = profile_for(game).playout(state, seed, options)
    again = profile_for(game).playout(state, seed, options)
    assert again[0] == winner and list(again[1]) == list(moves)  # the seed decides
    for m in moves:
        state = game.play(state, int(m))  # raises if the playout made an illegal move
    assert game.is_terminal(state)
    assert (game.winner(state) or 0) == winner


def test_a_finished_game_plays_out_to_no_moves():
    game = stonegarden.make("freego", size=5, target=1)
    done = game.replay(["b1", "a1", "a2"])[-1]
    assert game.is_terminal(done)
    winner, moves = profile_for(game).playout(done, 1, {})
    assert winner == 1 and len(moves) == 0


def test_games_without_amaf_playouts_search_without_rave():
    blobs = stonegarden.make("blobs")
    assert not profile_for(blobs).amaf
    assert profile_for(blobs).playout(blobs.initial_state(), 1, {})[1] is None
    engine = ProtocolTree(blobs, RAVE, 1)
    engine.search(blobs.initial_state(), Budget(sims=100))
    assert not engine.rave and int(engine.pools.ed_rn[:engine.pools.counters[1]].sum()) == 0


def test_rave_statistics_count_the_tree_move_and_the_same_player_s_playout_moves(monkeypatch):
    """One simulation from the root: the root's player (Black) chose ``a`` in the tree; the
    playout from the child went White x, Black y, White z. The root's RAVE samples are exactly
    ``a`` and ``y``, with Black's reward (a Black win)."""
    game = stonegarden.make("freego", size=5)
    state = game.initial_state()
    x, y, z = 20, 21, 22
    monkeypatch.setattr(profile_for(game), "playout", lambda s, seed, *policy:
                        (1, np.array([x, y, z], np.int32)))
    engine = ProtocolTree(game, dataclasses.replace(RAVE, prior=0), 3)  # no virtual samples
    engine.search(state, Budget(sims=1))
    P = engine.pools
    root = edges(engine, engine.root)
    (tried,) = [(e, m) for e, m, child in root if child >= 0]  # the one action tried
    e, a = tried
    assert a not in (x, y, z) or a == y
    sampled = {m for f, m, _ in root if P.ed_rn[f]}
    assert sampled == {a, y}
    assert sum(int(P.ed_rn[f]) for f, _, _ in root) == len(sampled)
    assert sum(float(P.ed_rw[f]) for f, _, _ in root) == len(sampled)
    assert P.ed_n[e] == 1 and sum(int(P.ed_n[f]) for f, _, _ in root) == 1


@pytest.mark.parametrize("game_id", ["freego", "bridgego"])
def test_every_visit_through_an_action_is_also_a_rave_sample_of_it(game_id):
    game = stonegarden.make(game_id, size=5)
    engine = ProtocolTree(game, dataclasses.replace(RAVE, prior=0), 2)
    engine.search(game.initial_state(), Budget(sims=600))
    P = engine.pools
    es = [e for e, _, _ in edges(engine, engine.root)]
    rn, n, rw = P.ed_rn[es], P.ed_n[es], P.ed_rw[es]
    assert np.all(rn >= n)
    assert np.all(rn <= P.nd_n[engine.root])
    assert np.all((rw >= 0) & (rw <= rn))
    plain = ProtocolTree(game, NO_RAVE, 2)
    plain.search(game.initial_state(), Budget(sims=600))
    assert int(plain.pools.ed_rn[:plain.pools.counters[1]].sum()) == 0


@pytest.mark.parametrize("game_id", ["freego", "bridgego"])
@pytest.mark.slow
def test_a_fixed_seed_and_simulation_count_give_the_same_rave_search(game_id):
    game = stonegarden.make(game_id, size=5)
    state = game.replay(["c3", "b2"])[-1]
    a = ProtocolTree(game, RAVE, 5).search(state, Budget(sims=500))
    b = ProtocolTree(game, RAVE, 5).search(state, Budget(sims=500))
    assert [(m.action, m.visits, m.value) for m in a.moves] == \
        [(m.action, m.visits, m.value) for m in b.moves]
    c = ProtocolTree(game, NO_RAVE, 5).search(state, Budget(sims=500))
    assert [(m.action, m.visits) for m in a.moves] != [(m.action, m.visits) for m in c.moves]


def _root_visits(game, state, config):
    """(action, visits) of the root's moves after a 400-simulation search with ``config``."""
    result = ProtocolTree(game, config, 9).search(state, Budget(sims=400))
    return [(m.action, m.visits) for m in result.moves]


@pytest.mark.parametrize("key, other", [("rave_k", 5.0), ("c", 3.0)])
@pytest.mark.parametrize("game_id", ["freego", "bridgego"])
@pytest.mark.slow
def test_a_setting_defaults_to_the_game_s_own_and_an_agent_option_overrides_it(game_id, key,
                                                                               other):
    """``rave_k`` and ``c`` left unset search as the game's profile says; set, they change the
    search, as the agent options ``rave_k=K`` and ``c=C`` do."""
    game = stonegarden.make(game_id, size=5)
    state = game.replay(["c3", "b2"])[-1]
    visits = functools.partial(_root_visits, game, state)
    profile = profile_for(game)
    resolve = getattr(profile, f"{key}_for")
    own = dataclasses.replace(RAVE, **{key: getattr(profile, key)})
    assert getattr(RAVE, key) is None and visits(RAVE) == visits(own)
    assert visits(dataclasses.replace(RAVE, **{key: other})) != visits(own)
    agent = make_agent(f"mcts:sims=10,{key}={other:g}")
    assert isinstance(agent, SearchAgent) and resolve(agent.config) == other
    default = make_agent("mcts:sims=10")
    assert isinstance(default, SearchAgent) and resolve(default.config) == getattr(profile, key)


def test_rave_search_finds_and_proves_the_winning_capture():
    """5x5, target 1: White's corner stone a1 has one liberty left (a2); Black to move."""
    game = stonegarden.make("freego", size=5, target=1)
    state = game.replay(["b1", "a1"])[-1]
    res = ProtocolTree(game, RAVE, 1).search(state, Budget(sims=3000))
    assert game.action_to_text(state, res.best).lower() == "a2"
    assert res.proven == 1


def test_rave_search_blocks_a_bridge_one_move_from_completion():
    """Bridge Go 5x5: Black's column a1-a4 needs a5 to join the bottom and top sides; White
    to move must take a5 (any other move loses at once)."""
    game = stonegarden.make("bridgego", size=5)
    state = game.replay(["a1", "e1", "a2", "e2", "a3", "d4", "a4"])[-1]
    assert game.winner(game.play_text(state, "e5")) is None
    assert game.winner(game.play_text(game.play_text(state, "e5"), "a5")) == 1
    res = ProtocolTree(game, RAVE, 1).search(state, Budget(sims=3000))
    assert game.action_to_text(state, res.best).lower() == "a5"


@pytest.mark.parametrize("seed", range(20))
def test_the_rave_selection_picks_what_the_formula_picks(seed):
    """``beta = rn / (n + rn + n rn / rave_k)``, score ``(1 - beta) q + beta q_rave + c sqrt(ln
    (N + 1) / (n + 1))`` for the node's player, 2 with neither visits nor samples; of equal
    scores any, as the random offset falls."""
    rng = np.random.default_rng(seed)
    k = int(rng.integers(2, 40))
    P = Pools(2, k)
    P.nd_player[0] = 1 + seed % 2
    P.nd_first[0], P.nd_count[0] = 0, k
    P.ed_move[:k] = np.arange(k)
    P.ed_child[:k] = -1
    n = rng.integers(0, 6, k)
    rn = n + rng.integers(0, 8, k)
    P.ed_n[:k], P.ed_rn[:k] = n, rn
    P.ed_w[:k] = np.minimum(np.floor(rng.random(k) * (n + 1) * 2) / 2, n)
    P.ed_rw[:k] = np.minimum(np.floor(rng.random(k) * (rn + 1) * 2) / 2, rn)
    P.nd_n[0] = int(n.sum())
    with np.errstate(divide="ignore", invalid="ignore"):
        beta = rn / (n + rn + n * rn / 300.0)
        q = np.where(n > 0, P.ed_w[:k] / n, 0.0)
        rq = np.where(rn > 0, P.ed_rw[:k] / rn, 0.0)
    score = (1 - beta) * q + beta * rq + 0.2 * np.sqrt(math.log(n.sum() + 1) / (n + 1))
    score = np.where((n == 0) & (rn == 0), 2.0, score)
    want = set(np.flatnonzero(np.isclose(score, score.max(), rtol=0, atol=1e-9)).tolist())
    picks = set()
    for draw in range(60):
        seed_numba(draw)
        picks.add(int(select(0, P.nd_player, P.nd_first, P.nd_count, P.nd_n, P.nd_proven,
                             P.ed_move, P.ed_child, P.ed_n, P.ed_w, P.ed_rn, P.ed_rw, 0.2, True,
                             300.0, True, 0)))
    assert picks == want


def test_backup_samples_rave_for_the_moves_the_node_s_player_played_later():
    """``amaf_mark`` stamps a playout's moves for alternating players; the backup gives every
    path node's edges whose move its player played later (the edge taken included) a RAVE
    sample of that player's reward, and only those."""
    seen = np.zeros((3, 10), np.int64)
    amaf_mark(seen, np.array([4, 5, 6], np.int32), 2, 7)
    assert list(np.flatnonzero(seen[2] == 7)) == [4, 6]
    assert list(np.flatnonzero(seen[1] == 7)) == [5]
    P = Pools(3, 6)
    P.nd_player[:2] = [1, 2]
    P.nd_first[:2], P.nd_count[:2] = [0, 3], [3, 3]
    P.ed_move[:6] = [1, 5, 6, 4, 6, 9]
    P.ed_child[:6] = [1, -1, -1, 2, -1, -1]
    path_nodes, path_edges = np.array([0, 1]), np.array([0, 3])
    backup(path_nodes, path_edges, 2, 2, 1.0, *P.nodes(), *P.edges(), True, 1, 0, seen, 7, False)
    assert list(P.ed_n[:6]) == [1, 0, 0, 1, 0, 0]
    assert list(P.ed_w[:6]) == [1.0, 0, 0, 0.0, 0, 0]  # a player 1 win: 0 for player 2
    assert list(P.ed_rn[:6]) == [1, 1, 0, 1, 1, 0]  # player 1: 1 (tree), 5; player 2: 4, 6
    assert list(P.ed_rw[:6]) == [1.0, 1.0, 0, 0.0, 0.0, 0]
    assert list(P.nd_n[:3]) == [1, 1, 1]


def test_small_rave_searches_break_ties_at_random_not_by_action_index():
    """Before any statistics every untried move scores the same; the random offset of the
    selection, not the action index, decides, so tiny Bridge Go searches do not crawl along
    the first row."""
    game = stonegarden.make("bridgego", size=9)
    state = game.initial_state()
    plain = dataclasses.replace(RAVE, model="none")  # no priors: every move alike
    picks = [ProtocolTree(game, plain, seed).search(state, Budget(sims=20)).best
             for seed in range(12)]
    assert sum(p < 9 for p in picks) <= 3, picks
    assert len(set(picks)) >= 8, picks
