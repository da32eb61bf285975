"""The memory bound of a search's tree (``search/pools.py``): a node cap from a budget of bytes,
and a full tree that simulates on from its leaves with its counts and values right."""

from __future__ import annotations

import numpy as np
import pytest

import stonegarden
from stonegarden.search.config import Budget, SearchConfig
from stonegarden.search.parallel import RootParallel
from stonegarden.search.pools import EDGE_BYTES, NODE_BYTES, NODE_POOL, TREE_BYTES, Pools
from stonegarden.search.profile import profile_for
from stonegarden.search.protocol_tree import ProtocolTree, position_bytes
from stonegarden.search.tree import CompiledTree


def _budget_for(nodes: int, edges: int, cap: int, position: int) -> int:
    """The budget of pools of ``nodes`` and ``edges`` that holds ``cap`` positions."""
    return nodes * NODE_BYTES + edges * EDGE_BYTES + cap * position


def _check_full_result(engine, res, sims):
    """Every simulation ran and was backed up through the root, the first move is the most
    visited and every value is a probability."""
    P = engine.pools
    assert res.sims == sims
    visits = sum(int(P.ed_n[e]) for e in P.edge_range(engine.root))
    assert visits == int(P.nd_n[engine.root]) == sims
    assert res.moves[0].visits == max(m.visits for m in res.moves)
    assert all(0.0 <= m.value <= 1.0 for m in res.moves)
    assert 0.0 <= res.value <= 1.0


def test_the_pools_bytes_are_their_arrays_and_fit_the_budget():
    P = Pools(3, 5)
    assert sum(a.itemsize for a in P.nodes()) == NODE_BYTES
    assert sum(a.itemsize for a in P.edges()) == EDGE_BYTES
    default = Pools()
    assert default.budget == TREE_BYTES
    assert default.node_cap(0) == NODE_POOL  # a compiled tree: the pools alone
    assert sum(a.nbytes for a in default.arrays) <= TREE_BYTES


def _blobs_tree(cap: int):
    """Blobs after one placement, and a protocol tree of small pools whose budget holds ``cap``
    of its positions."""
    game = stonegarden.make("blobs")
    state = game.replay(["h9R"])[-1]
    position = position_bytes(game, state)
    pools = Pools(20_000, 400_000, _budget_for(20_000, 400_000, cap, position))
    return game, state, ProtocolTree(game, SearchConfig(fast=False), 3, pools=pools)


def test_a_protocol_tree_makes_no_node_past_its_budget_and_simulates_on():
    """Blobs' positions take most of its memory: the budget beside the pools caps its nodes,
    and the full tree goes on simulating from its leaves without keeping another position."""
    _, state, engine = _blobs_tree(150)
    res = engine.search(state, Budget(sims=3_000))
    assert int(engine.pools.counters[3]) == 150
    assert res.extra["nodes"] == len(engine.states) == len(engine.table) == 150
    _check_full_result(engine, res, 3_000)


def test_a_kept_full_tree_is_compacted_and_grows_again():
    """A kept tree is compacted once a third of the nodes it may make is used (not of the
    pools', which a capped tree never reaches), so that the next search makes nodes again."""
    game, state, engine = _blobs_tree(300)
    res = engine.search(state, Budget(sims=2_000))
    state = game.play(state, res.best)
    again = engine.search(state, Budget(sims=2_000))
    assert again.reused > 0 and engine.root == 0  # compacted
    assert len(engine.states) == again.extra["nodes"] <= int(engine.pools.counters[3])
    assert again.extra["nodes"] > 100  # it grew past what it kept


@pytest.mark.parametrize("game_id", ["blooms", "freego"])
def test_a_full_compiled_tree_simulates_on_from_its_leaves(game_id):
    game = stonegarden.make(game_id)
    spec = profile_for(game).tree(SearchConfig())
    engine = CompiledTree(game, SearchConfig(), 5, spec, Pools(200, 20_000))
    res = engine.search(game.initial_state(), Budget(sims=4_000))
    assert res.extra["nodes"] == 200
    _check_full_result(engine, res, 4_000)


def test_a_search_below_the_cap_is_the_search_without_one():
    """The cap changes nothing until the tree reaches it: a seeded search of simulations is
    the same in pools whose budget holds every node as in pools far past it."""
    game = stonegarden.make("blobs")
    state = game.replay(["h9R"])[-1]
    runs = []
    for budget in (TREE_BYTES, 1 << 40):
        engine = ProtocolTree(game, SearchConfig(fast=False), 7, pools=Pools(20_000, 400_000,
                                                                              budget))
        res = engine.search(state, Budget(sims=1_500))
        runs.append(([(m.action, m.visits, m.value) for m in res.moves], res.pv,
                     res.extra["nodes"]))
    assert runs[0] == runs[1]


def test_the_trees_of_a_parallel_search_share_one_budget():
    game = stonegarden.make("blooms")
    searcher = RootParallel(game, SearchConfig(), 1, 2)
    try:
        budgets = [searcher.first.pools.budget] + [h.engine.pools.budget
                                                    for h in searcher.helpers]
    finally:
        searcher.close()
    assert budgets == [TREE_BYTES // 2] * 2
    assert np.all([b > 0 for b in budgets])
