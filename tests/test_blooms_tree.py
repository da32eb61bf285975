"""The capture race's compiled tree (``games/blooms/tree.py`` in ``search/tree.py``) walked
against the rules: every node's player and proof, every expanded node's moves (the stage
decisions of a split turn, or whole turns) and every turn in the tree must be what the rules
say, captures and scores included."""

from __future__ import annotations

import dataclasses

import numpy as np
import pytest

import stonegarden
from stonegarden.search.config import Budget, SearchConfig
from stonegarden.search.pools import Pools
from stonegarden.search.profile import profile_for
from stonegarden.search.tree import CompiledTree
from stonegarden.search.tree_kernels import NO_MOVE

from .tree_helpers import edges, walk_on

SPLIT = SearchConfig()
WHOLE = SearchConfig().with_game_options({"split": 0})


def _engine(game, config, seed=1):
    spec = profile_for(game).tree(config)
    assert spec is not None
    return CompiledTree(game, config, seed, spec, Pools(200_000, 4_000_000))


def _code(game, state):
    w = game.winner(state)
    return 0 if w is None else {1: 1, 2: 2, 0: 3}[w]


def _walk(engine, game, state, node, depth, counts):
    """Check ``node`` (at a turn's first decision) and the turns below it, ``depth`` turns
    deep."""
    if not walk_on(engine, game, state, node, counts, _code):
        return
    P = engine.pools
    empties = [int(c) for c in np.flatnonzero(state.cells() == 0)]
    turns = []
    if engine.spec.levels_per_turn == 1:
        moves = sorted(m for _, m, _ in edges(engine, node))
        legal = sorted(int(a) for a in game.legal_actions(state))
        assert sorted(engine.spec.turn_action(state, (m,)) for m in moves) == legal
        turns = [((m,), child) for _, m, child in edges(engine, node)]
    else:
        assert [m for _, m, _ in edges(engine, node)] == [*empties, NO_MOVE]
        for _, a, mid in edges(engine, node):
            if mid < 0 or P.nd_first[mid] < 0:
                continue
            assert int(P.nd_player[mid]) == state.player and int(P.nd_stage[mid]) == 1
            if a == NO_MOVE:
                want = empties
            elif state.ply == 0:
                want = [NO_MOVE]
            else:
                want = [*(c for c in empties if c != a), NO_MOVE]
            assert [m for _, m, _ in edges(engine, mid)] == want
            turns += [((a, b), child) for _, b, child in edges(engine, mid)]
    for moves, child in turns:
        if child < 0:
            continue
        action = engine.spec.turn_action(state, moves)
        assert game.is_legal(state, action)
        if depth > 1:
            _walk(engine, game, game.play(state, action), child, depth - 1, counts)


@pytest.mark.parametrize("config", [SPLIT, WHOLE, dataclasses.replace(SPLIT, grave=8),
                                    SPLIT.with_game_options({"captures": 4})], ids=str)
@pytest.mark.parametrize("size,target,moves", [(3, 1, ["Ra2", "Ka1"]), (3, 3, ["Rb3"]),
                                               (4, 5, ["Rc3", "Kd4,Gd3", "Yc4,Rb4"])])
@pytest.mark.slow
def test_every_node_holds_the_rules_moves_and_results(config, size, target, moves):
    game = stonegarden.make("blooms", size=size, target=target)
    state = game.replay(moves)[-1]
    engine = _engine(game, config)
    engine.search(state, Budget(sims=4000))
    counts = {"expanded": 0, "terminal": 0}
    _walk(engine, game, state, engine.root, 3, counts)
    assert counts["expanded"] > 0
    assert counts["terminal"] > 0 or target > 1


def test_a_kept_tree_continues_from_the_turns_played():
    """After a search and two turns (the search's choice and a reply it explored), the next
    search starts from the node of the new position, which the walk checks again."""
    game = stonegarden.make("blooms", size=3, target=4)
    engine = _engine(game, SPLIT, 2)
    state = game.replay(["Rb3"])[-1]
    res = engine.search(state, Budget(sims=3000))
    mine = game.play(state, res.best)
    reply = engine.search(mine, Budget(sims=500))
    after = game.play(mine, reply.best)
    again = engine.search(after, Budget(sims=500))
    assert again.reused > 0
    counts = {"expanded": 0, "terminal": 0}
    _walk(engine, game, after, engine.root, 2, counts)
    assert counts["expanded"] > 0


@pytest.mark.parametrize("game_id,moves", [("blooms", []), ("blooms", ["Rc3"]),
                                           ("blooms-territory", ["Rc3"])])
@pytest.mark.parametrize("sims", [1, 2, 5, 16, 17, 40])
def test_every_simulation_counts_as_a_visit_of_a_whole_turn(game_id, moves, sims):
    """A turn of two stones is two levels of the tree; a simulation reaching the first stone's
    node for the first time decides the second stone there too, so the root's whole turns
    hold every simulation (a search of fewer than about 17 reported 0 visits for every move,
    and its best move was a turn of the first stone alone, chosen by no simulation)."""
    from stonegarden.agents.analysis import analyse_position
    from stonegarden.agents.registry import make_agent

    game = stonegarden.make(game_id)
    state = game.replay(moves)[-1]
    engine = _engine(game, SearchConfig(model="none") if game_id == "blooms" else SPLIT)
    assert engine.spec.levels_per_turn == 2
    res = engine.search(state, Budget(sims=sims))
    assert res.sims == sims
    assert sum(m.visits for m in res.moves) == sims
    assert res.moves[0].visits >= 1
    out = analyse_position(make_agent("mcts:seed=3"), game, state, Budget(sims=sims),
                           top=100)
    assert sum(m["visits"] for m in out["best_moves"]) == sims
