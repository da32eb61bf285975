"""Parallel search (``mcts:threads=N,parallel=root``, root parallelism): a legal move in every game, the
merged root is the sum of the trees', a stop ends every tree, the option's range, the levels'
thread counts, reproducible seeded searches, and no helper process left behind."""

from __future__ import annotations

import json
import os
import time

import pytest

import stonegarden
from stonegarden.agents import make_agent
from stonegarden.agents.search_agents import SearchAgent
from stonegarden.core.record import make_record, save_record
from stonegarden.errors import ParameterError
from stonegarden.jobs.procs import descendants
from stonegarden.search import helpers
from stonegarden.search.config import Budget, SearchConfig, default_threads
from stonegarden.search.parallel import RootParallel, merge_results, share_sims
from stonegarden.search.profile import profile_for
from stonegarden.search.result import MoveStat, SearchResult
from stonegarden.search.tree import TreeSearch

from .conftest import run_cli
from .tree_helpers import interrupt_after

#: small boards keep the helper processes' searches short
SMALL = {"blooms": {"size": 3}, "blooms-territory": {"size": 3}, "freego": {"size": 5},
         "bridgego": {"size": 5}, "blobs": {}}


def _agent(spec: str) -> SearchAgent:
    agent = make_agent(spec)
    assert isinstance(agent, SearchAgent)
    return agent


@pytest.fixture(scope="module", autouse=True)
def _no_helpers_left():
    yield
    helpers.close_all()


@pytest.mark.slow
@pytest.mark.parametrize("game_id", sorted(SMALL))
def test_two_trees_find_a_legal_move_in_every_game(game_id):
    game = stonegarden.make(game_id, **SMALL[game_id])
    state = game.initial_state()
    agent = _agent("mcts:threads=2,parallel=root,sims=200,seed=3")
    res = agent.analyse(game, state, Budget(sims=200))
    assert isinstance(agent.engine(game), RootParallel)
    assert game.is_legal(state, res.best)
    # each tree searched its share of the simulations
    parts = agent.engine(game).last_parts  # type: ignore[union-attr]
    assert [p.sims for p in parts] == [100, 100]
    assert res.sims == 200 and res.extra["threads"] == 2


@pytest.mark.parametrize("game_id", ["blooms", "bridgego"])
def test_the_merged_root_is_the_sum_of_the_trees(game_id):
    game = stonegarden.make(game_id, **SMALL[game_id])
    state = game.initial_state()
    agent = _agent("mcts:threads=2,parallel=root,sims=600,seed=5")
    res = agent.analyse(game, state)
    parts = agent.engine(game).last_parts  # type: ignore[union-attr]
    assert len(parts) == 2
    for m in res.moves:
        assert m.visits == sum(s.visits for p in parts for s in p.moves if s.action == m.action)
    assert {m.action for m in res.moves} == {s.action for p in parts for s in p.moves}
    assert sum(m.visits for m in res.moves) == sum(s.visits for p in parts for s in p.moves)
    # ranked by visits (no proofs this early)
    assert [m.visits for m in res.moves] == sorted((m.visits for m in res.moves), reverse=True)


def test_merging_sums_visits_weights_values_and_keeps_proofs():
    a = SearchResult(0.6, [MoveStat(1, 30, 0.6), MoveStat(2, 10, 0.4)], [1, 5], 40, 1.0,
                     extra={"nodes": 7, "edges": 20})
    b = SearchResult(0.5, [MoveStat(2, 25, 0.5), MoveStat(3, 5, 1.0, proven=1)], [2], 30, 1.2,
                     extra={"nodes": 3, "edges": 9})
    res = merge_results([a, b], mover=1)
    assert [m.action for m in res.moves] == [3, 2, 1]  # the proven win first, then visits
    by = {m.action: m for m in res.moves}
    assert by[2].visits == 35 and by[2].value == pytest.approx((10 * 0.4 + 25 * 0.5) / 35)
    assert by[1].visits == 30 and by[3].proven == 1
    assert res.sims == 70 and res.seconds == 1.2
    assert res.value == pytest.approx((40 * 0.6 + 30 * 0.5) / 70)
    assert res.extra == {"threads": 2, "nodes": 10, "edges": 29}
    proven = SearchResult(1.0, [MoveStat(4, 3, 1.0, proven=2)], [4], 3, 0.1, proven=2)
    assert merge_results([a, proven], mover=2).proven == 2
    assert merge_results([a, proven], mover=2).value == 1.0


@pytest.mark.parametrize("game_id", ["blooms", "bridgego"])
def test_a_stop_ends_every_tree_promptly(game_id):
    game = stonegarden.make(game_id, **SMALL[game_id])
    state = game.initial_state()
    agent = _agent("mcts:threads=2,parallel=root,seed=1")
    agent.analyse(game, state, Budget(sims=4))  # helpers started, kernels loaded
    t0 = time.perf_counter()
    res = agent.analyse(game, state, Budget(seconds=60, stop=lambda: time.perf_counter() - t0 > 0.3))
    took = time.perf_counter() - t0
    parts = agent.engine(game).last_parts  # type: ignore[union-attr]
    assert len(parts) == 2 and all(p.seconds < 2.0 for p in parts)
    assert took < 2.0 and game.is_legal(state, res.best)


def test_a_stop_with_a_budget_of_simulations_ends_the_helpers_too():
    game = stonegarden.make("bridgego", size=5)
    state = game.initial_state()
    agent = _agent("mcts:threads=2,seed=1")
    agent.analyse(game, state, Budget(sims=4))
    t0 = time.perf_counter()
    agent.analyse(game, state, Budget(sims=10_000_000,
                                      stop=lambda: time.perf_counter() - t0 > 0.3))
    assert time.perf_counter() - t0 < 2.0


@pytest.mark.parametrize("spec", ["mcts:threads=0", "mcts:threads=65", "mcts:threads=-1",
                                  "mcts:threads=two", "mcts:threads=99999999999999999999"])
def test_threads_out_of_range_is_a_parameter_error(spec):
    with pytest.raises(ParameterError, match="threads"):
        make_agent(spec)


def test_levels_one_to_four_take_one_thread_and_five_six_every_core():
    game = stonegarden.make("blooms", size=3)
    for level in (1, 2, 3, 4):
        agent = _agent(f"level:{level}")
        assert agent.threads == 1
        assert isinstance(agent.engine(game), TreeSearch)
    for level in (5, 6):
        assert _agent(f"level:{level}").threads == default_threads()
    assert _agent("mcts").threads == 1


def test_a_level_loads_the_game_s_model_only_where_it_was_measured_with_it(monkeypatch):
    game = stonegarden.make("bridgego", size=5)
    profile = profile_for(game)
    assert profile.model_levels == {6}  # Bridge Go's level 6 was measured with its model
    six, five = _agent("level:6"), _agent("level:5")
    assert profile.model_for(six.config_for(game)) is not None
    assert profile.model_for(five.config_for(game)) is None
    assert six.engine(game) is six.engine(game) and six.config.model is None
    monkeypatch.setattr(type(profile), "model_levels", frozenset())
    assert profile.model_for(_agent("level:6").config_for(game)) is None


def test_a_seeded_parallel_search_is_reproducible_and_one_thread_is_the_plain_search():
    game = stonegarden.make("blooms", size=4)
    state = game.initial_state()
    two = [_agent("mcts:threads=2,parallel=root,seed=9,sims=800").analyse(game, state) for _ in range(2)]
    assert two[0].moves == two[1].moves and two[0].pv == two[1].pv
    one = _agent("mcts:threads=1,seed=9,sims=800").analyse(game, state)
    plain = _agent("mcts:seed=9,sims=800").analyse(game, state)
    assert one.moves == plain.moves and one.value == plain.value


def test_fewer_simulations_than_trees_use_fewer_trees():
    assert share_sims(3, 4) == [1, 1, 1]
    assert share_sims(10, 3) == [4, 3, 3]
    game = stonegarden.make("blooms", size=3)
    res = _agent("mcts:threads=4,parallel=root,seed=1").analyse(game, game.initial_state(), Budget(sims=2))
    assert res.sims == 2 and res.extra["threads"] == 2


def test_no_helper_process_outlives_the_pool():
    game = stonegarden.make("bridgego", size=5)
    _agent("mcts:threads=2,sims=50,seed=1").analyse(game, game.initial_state())
    assert helpers._procs and all(p.alive() for p in helpers._procs)
    pids = [p.proc.pid for p in helpers._procs]
    helpers.close_all()
    assert not set(pids) & set(descendants(os.getpid()))


@pytest.mark.slow
def test_the_commands_take_threads(tmp_path):
    out = run_cli("bench", "search", "bridgego", "--param", "size=5", "--threads", "2",
                  "--seconds", "0.3", "--json")
    assert out.returncode == 0, out.stderr
    row = json.loads(out.stdout)
    assert row["threads"] == 2 and row["sims"] > 0
    bad = run_cli("bench", "search", "blooms", "--threads", "65")
    assert bad.returncode == 2 and "65" in bad.stderr
    query = {"game": "blooms", "params": {"size": 3}, "sims": 60, "seed": 1}
    out = run_cli("engine", "--threads", "2", input=json.dumps(query) + "\n")
    assert out.returncode == 0, out.stderr
    answer = json.loads(out.stdout)
    assert answer["sims"] == 60 and answer["best_move"]
    record = tmp_path / "g.json"
    game = stonegarden.make("blooms", size=3)
    save_record(make_record(game, [], game.initial_state()), record)
    out = run_cli("analyse", str(record), "--sims", "80", "--threads", "2", "--json")
    assert out.returncode == 0, out.stderr
    assert json.loads(out.stdout)["sims"] == 80


def test_a_parallel_level_gives_each_tree_the_level_s_simulations():
    game = stonegarden.make("blooms", size=5)
    agent = _agent("level:5")
    agent.threads = 2
    one = _agent("level:5")
    one.threads = 1
    assert agent.budget_for(game).sims == 2 * one.budget_for(game).sims
    assert agent.budget_for(game).seconds == one.budget_for(game).seconds


def test_protocol_trees_can_also_run_in_threads_for_comparison():
    # the alternative the benchmark measures: trees sharing the GIL instead of processes
    game = stonegarden.make("bridgego", size=5)
    state = game.initial_state()
    search = RootParallel(game, SearchConfig(), 4, 2, processes=False)
    res = search.search(state, Budget(sims=300))
    assert game.is_legal(state, res.best) and res.sims == 300
    assert [p.sims for p in search.last_parts] == [150, 150]
    search.close()


def test_an_error_in_the_first_tree_stops_the_others():
    # Ctrl-C in the calling thread must not wait for the other trees' shares
    game = stonegarden.make("blooms", size=5)
    search = RootParallel(game, SearchConfig(), 1, 2)
    search.search(game.initial_state(), Budget(sims=4))
    t0 = time.perf_counter()
    with pytest.raises(KeyboardInterrupt):
        search.search(game.initial_state(), Budget(sims=10_000_000, stop=interrupt_after(2)))
    assert time.perf_counter() - t0 < 5.0
    assert all(h.done() for h in search.helpers)
    search.close()


@pytest.mark.parametrize("parallel", ["root", "tree"])
def test_an_agent_of_threads_pickles_after_a_search(parallel):
    """After its first search a ``threads=2`` agent held its threads' queues, and pickling it
    (to hand it to a worker process) raised ``TypeError``."""
    import pickle

    game = stonegarden.make("blooms", size=3)
    agent = make_agent(f"mcts:sims=64,threads=2,parallel={parallel},seed=1")
    agent.choose(game, game.initial_state())
    copy = pickle.loads(pickle.dumps(agent))
    assert copy.last is not None and copy.last.best == agent.last.best
    assert game.is_legal(game.initial_state(), copy.choose(game, game.initial_state()))
