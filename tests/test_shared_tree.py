"""One tree searched by several threads (``mcts:threads=N,parallel=tree``): virtual loss leaves
no trace, each thread allocates in its own range, every simulation is backed up once, proofs
and tactics are found, full and kept pools, the option, no thread left behind, and the default."""

from __future__ import annotations

import threading

import numpy as np
import pytest

import stonegarden
from stonegarden.agents import make_agent
from stonegarden.agents.search_agents import SearchAgent
from stonegarden.analysis_engine import answer
from stonegarden.errors import ParameterError
from stonegarden.search.config import Budget, SearchConfig
from stonegarden.search.engines import make_engine
from stonegarden.search.parallel import RootParallel, new_searcher, reproducible_parallel
from stonegarden.search.pools import Pools
from stonegarden.search.profile import profile_for
from stonegarden.search.shared_tree import SharedTree
from stonegarden.search.tree_kernels import expand, new_node, prove

from .tree_helpers import interrupt_after, reachable

TREE_GAMES = [("blooms", {"size": 4}), ("blooms-territory", {"size": 3}), ("freego", {"size": 7})]


def _shared(game, seed=1, threads=2, pools=None) -> SharedTree:
    spec = profile_for(game).tree(SearchConfig())
    make_engine(game, SearchConfig(), 0)  # loads the kernels
    return SharedTree(game, SearchConfig(), seed, spec, threads, pools)


def _tree_arrays(engine):
    P = engine.pools
    n, e = int(P.counters[0]), int(P.counters[1])
    return (P.nd_n[:n].tolist(), P.nd_first[:n].tolist(), P.ed_n[:e].tolist(),
            P.ed_w[:e].tolist(), P.ed_rn[:e].tolist(), P.ed_child[:e].tolist())


@pytest.mark.parametrize("game_id,params", TREE_GAMES)
def test_virtual_loss_on_one_thread_leaves_the_tree_as_it_was(game_id, params):
    # one thread's virtual loss is taken back before the backup and is never read by its own
    # walk (it lies above the node being chosen): the tree must be the plain search's exactly
    game = stonegarden.make(game_id, **params)
    state = game.initial_state()
    plain = make_engine(game, SearchConfig(), 5)
    marked = make_engine(game, SearchConfig(), 5)
    marked.vloss = 3  # type: ignore[attr-defined]
    a = plain.search(state, Budget(sims=1500))
    b = marked.search(state, Budget(sims=1500))
    assert a.moves == b.moves and a.pv == b.pv
    assert _tree_arrays(plain) == _tree_arrays(marked)


@pytest.mark.parametrize("game_id,params", TREE_GAMES)
def test_every_simulation_is_backed_up_once_and_no_virtual_loss_is_left(game_id, params):
    game = stonegarden.make(game_id, **params)
    engine = _shared(game)
    res = engine.search(game.initial_state(), Budget(sims=20_000))
    P = engine.pools
    root_visits = int(P.nd_n[engine.root])
    edge_visits = sum(int(P.ed_n[e]) for e in P.edge_range(engine.root))
    assert res.sims == 20_000
    # statistics are updated without locks, so a race may lose an increment (or a virtual
    # loss's removal: one visit too many), but virtual losses left behind would add thousands
    assert 0.99 * res.sims <= root_visits <= 1.01 * res.sims
    assert 0.99 * res.sims <= edge_visits <= 1.01 * res.sims
    used = int(P.counters[1])
    assert (P.ed_n[:used] >= 0).all() and (P.nd_n[:int(P.counters[0])] >= 0).all()
    engine.close()


@pytest.mark.parametrize("game_id,params", TREE_GAMES)
def test_each_thread_allocates_in_its_own_range(game_id, params):
    game = stonegarden.make(game_id, **params)
    engine = _shared(game, pools=Pools(400_000, 4_000_000))
    engine.search(game.initial_state(), Budget(sims=20_000))
    ranges = [(s, (int(r[0]), int(r[3]))) for s, r in zip(engine._starts, engine.ranges)]
    # both threads made nodes, each from its own range, and the ranges do not overlap
    (s0, (n0, end0)), (s1, (n1, end1)) = ranges
    assert s0[0] < n0 <= end0 <= s1[0] < n1 <= end1
    nodes, parents = reachable(engine)
    assert any(s1[0] <= n < n1 for n in nodes) and any(s0[0] <= n < n0 for n in nodes)
    # no slot handed out twice: without a transposition table every node has one parent
    assert all(count == 1 for node, count in parents.items() if node != engine.root)
    assert all(n < s0[0] or s0[0] <= n < n0 or s1[0] <= n < n1 for n in nodes)
    engine.close()


def test_a_node_expanded_meanwhile_by_another_thread_keeps_that_threads_edges():
    P = Pools(100, 1_000)
    node = new_node(*P.nodes(), P.counters, 1, 0, 0)
    moves, priors = np.arange(5, dtype=np.int32), np.zeros(5)
    theirs = P.counters.copy()
    theirs[1] = 500  # the other thread's range of edges
    assert expand(node, moves, priors, 5, 0, P.nd_first, P.nd_count, *P.edges(), theirs)
    assert (int(P.nd_first[node]), int(P.nd_count[node])) == (500, 5)
    # this thread read the node unexpanded and wrote its own edges: the node keeps the
    # first set, and this thread's slots are given back to its range
    assert expand(node, moves[:3], priors, 3, 0, P.nd_first, P.nd_count, *P.edges(), P.counters)
    assert (int(P.nd_first[node]), int(P.nd_count[node]), int(P.counters[1])) == (500, 5, 0)


def test_an_edge_outside_the_nodes_set_proves_nothing():
    # a set of edges that lost the race to expand a node is no longer the node's: a win
    # found through it must not prove the node, whose own edges would not show it
    P = Pools(100, 1_000)
    node = new_node(*P.nodes(), P.counters, 1, 0, 0)
    won = new_node(*P.nodes(), P.counters, 2, 0, 1)  # a child proven won for player 1
    moves, priors = np.arange(3, dtype=np.int32), np.zeros(3)
    expand(node, moves, priors, 3, 0, P.nd_first, P.nd_count, *P.edges(), P.counters)
    P.ed_child[601] = won  # the losing set's edge to the won child
    assert not prove(node, 601, P.nd_player, P.nd_first, P.nd_count, P.nd_proven, P.ed_child)
    assert int(P.nd_proven[node]) == 0
    P.ed_child[1] = won  # through the node's own edge it is a proof
    assert prove(node, 1, P.nd_player, P.nd_first, P.nd_count, P.nd_proven, P.ed_child)
    assert int(P.nd_proven[node]) == 1


def test_a_shared_tree_proves_the_forced_win_and_plays_it():
    game = stonegarden.make("blooms", size=3, target=1)
    state = game.replay(["Ra2", "Ka1"])[-1]
    engine = _shared(game)
    res = engine.search(state, Budget(sims=100_000))
    assert res.proven == 1 and res.value == 1.0 and res.sims < 100_000
    assert game.action_to_text(state, res.best) in ("Rb1,Yb2", "Rb2,Yb1")
    engine.close()


@pytest.mark.parametrize("game_id,params", TREE_GAMES)
def test_full_pools_still_give_a_legal_move(game_id, params):
    game = stonegarden.make(game_id, **params)
    engine = _shared(game, pools=Pools(300, 3_000))
    state = game.initial_state()
    res = engine.search(state, Budget(sims=5_000))
    assert res.sims == 5_000 and game.is_legal(state, res.best)
    assert all(int(r[0]) <= int(r[3]) and int(r[1]) <= int(r[4]) for r in engine.ranges)
    engine.close()


def test_a_kept_tree_is_compacted_even_at_the_same_root():
    # the threads' ranges leave gaps; searching one position again and again must not
    # run the pools out
    game = stonegarden.make("blooms", size=4)
    engine = _shared(game, pools=Pools(30_000, 400_000))
    state = game.initial_state()
    for _ in range(6):
        res = engine.search(state, Budget(sims=4_000))
        assert int(engine.pools.counters[0]) < 30_000 and res.sims == 4_000
    again = engine.search(state, Budget(sims=10))
    assert again.reused > 4_000 and engine.root == 0
    nodes, _ = reachable(engine)
    assert again.extra["nodes"] >= len(nodes)
    state = game.play(state, again.best)
    assert engine.search(state, Budget(sims=500)).reused > 0
    engine.close()


def test_the_option_chooses_the_shared_tree_where_the_game_has_compiled_kernels():
    blooms = stonegarden.make("blooms", size=4)
    agent = make_agent("mcts:threads=2,parallel=tree,sims=300,seed=1")
    assert isinstance(agent, SearchAgent)
    assert isinstance(agent.engine(blooms), SharedTree)
    res = agent.choose(blooms, blooms.initial_state())
    assert blooms.is_legal(blooms.initial_state(), res)
    # through the protocol there is no compiled tree to share: a tree each
    bridge = stonegarden.make("bridgego", size=5)
    assert isinstance(new_searcher(bridge, SearchConfig(), 1, 2, "tree"), RootParallel)
    assert isinstance(new_searcher(blooms, SearchConfig(), 1, 2, "root"), RootParallel)
    # one thread is the plain search whatever the mode
    assert not isinstance(new_searcher(blooms, SearchConfig(), 1, 1, "tree"), SharedTree)
    for spec in ("mcts:parallel=leaf", "mcts:threads=2,parallel="):
        with pytest.raises(ParameterError, match="parallel"):
            make_agent(spec)
    with pytest.raises(ParameterError):
        new_searcher(blooms, SearchConfig(), 1, 2, "both")
    with pytest.raises(ParameterError):
        SharedTree(blooms, SearchConfig(), 1, profile_for(blooms).tree(SearchConfig()), 1)


def test_an_error_mid_search_leaves_no_thread_in_the_tree():
    game = stonegarden.make("blooms", size=5)
    engine = _shared(game)
    with pytest.raises(KeyboardInterrupt):
        engine.search(game.initial_state(), Budget(sims=10_000_000, stop=interrupt_after(3)))
    # the other thread has ended its share: the tree no longer changes
    before = np.array(engine.pools.ed_n[:int(engine.pools.counters[1])])
    threading.Event().wait(0.1)
    assert (engine.pools.ed_n[:before.shape[0]] == before).all()
    res = engine.search(game.initial_state(), Budget(sims=500))
    assert game.is_legal(game.initial_state(), res.best)
    threads = list(engine._pool._threads)
    assert threads
    engine.close()
    assert not any(t.is_alive() for t in threads)


def test_an_error_in_another_thread_ends_every_threads_search_and_is_raised():
    game = stonegarden.make("blooms", size=5)
    engine = _shared(game)
    plain = engine._runner
    calls = [0]

    def runner(k):
        run = plain(k)
        if k == 0:
            def counted(want, solver):
                calls[0] += 1
                return run(want, solver)
            return counted

        def failing(want, solver):
            raise MemoryError("thread 1")
        return failing

    engine._runner = runner  # type: ignore[method-assign]
    with pytest.raises(MemoryError, match="thread 1"):
        engine.search(game.initial_state(), Budget(seconds=60))
    # the caller stopped at once (its first chunks at most), not at the 60 s deadline
    assert calls[0] < 20
    engine._runner = plain  # type: ignore[method-assign]
    res = engine.search(game.initial_state(), Budget(sims=500))
    assert res.sims == 500 and game.is_legal(game.initial_state(), res.best)
    engine.close()


def test_every_thread_searches_until_the_deadline():
    game = stonegarden.make("freego", size=7)
    engine = _shared(game)
    before = [int(r[2]) for r in engine.ranges]
    res = engine.search(game.initial_state(), Budget(seconds=0.4))
    # both threads ran simulations (their AMAF stamps count them) and stopped at the
    # deadline, within a chunk (~20 ms) and the slack of a machine busy with other tests
    ran = [int(r[2]) - b for r, b in zip(engine.ranges, before)]
    assert all(n > 0 for n in ran) and sum(ran) == res.sims
    assert 0.4 <= res.seconds < 1.0
    engine.close()


def test_the_default_is_the_shared_tree_but_a_seeded_count_of_simulations_is_reproducible():
    blooms = stonegarden.make("blooms", size=4)
    agent = make_agent("mcts:threads=2")
    assert isinstance(agent, SearchAgent) and isinstance(agent.engine(blooms), SharedTree)
    assert reproducible_parallel(3, None) == "root"
    assert reproducible_parallel(3, 1.0) == reproducible_parallel(None, None) == "tree"
    # the engine promises that a seed and a count of simulations give the same answer
    query = {"game": "blooms", "params": {"size": 4}, "sims": 400, "seed": 3}
    a, b = answer(query, threads=2), answer(query, threads=2)
    assert a["candidates"] == b["candidates"] and a["pv"] == b["pv"]


def test_a_search_stopped_before_it_starts_runs_no_other_thread():
    game = stonegarden.make("blooms", size=5)
    engine = _shared(game)

    def slow_yes() -> bool:
        # a caller held up in its poll (a loaded machine) while the others would search
        threading.Event().wait(0.05)
        return True

    res = engine.search(game.initial_state(), Budget(sims=10_000_000, stop=slow_yes))
    assert res.sims <= 1 + 16, "the root's expansion and the caller's first chunk, no more"
    engine.close()
