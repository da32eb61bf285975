"""Free Go's compiled tree (``games/freego/tree.py`` in ``search/tree.py``): the tree it builds
holds exactly the rules' legal moves and results at every node (its board replay agrees with
the game's, ko and scores included), it finds and proves wins, it is reproducible for a seed,
it keeps its tree between moves, and what it does not support goes to the protocol tree."""

from __future__ import annotations

import dataclasses

import numpy as np
import pytest

import stonegarden
from stonegarden.agents.registry import make_agent
from stonegarden.search.config import Budget, SearchConfig
from stonegarden.search.engines import new_engine
from stonegarden.search.pools import Pools
from stonegarden.search.profile import profile_for
from stonegarden.search.protocol_tree import ProtocolTree
from stonegarden.search.tree import CompiledTree

from .exact_helpers import exact_winner


def _engine(game, config=None, seed=1, pools=None):
    config = config or SearchConfig()
    spec = profile_for(game).tree(config)
    assert spec is not None
    return CompiledTree(game, config, seed, spec, pools or Pools(200_000, 4_000_000))


def _walk(engine, state, node, depth, visit):
    """Call ``visit(state, node)`` on every node of the tree down to ``depth`` moves."""
    visit(state, node)
    if depth == 0:
        return
    P = engine.pools
    first = int(P.nd_first[node])
    if first < 0:
        return
    for e in range(first, first + int(P.nd_count[node])):
        child = int(P.ed_child[e])
        if child >= 0:
            nxt = engine.game.play_unchecked(state, int(P.ed_move[e]))
            _walk(engine, nxt, child, depth - 1, visit)


KO = [".....", "..XO.", ".XO.O", "..XO.", "....."]  # Black takes at D3, White may not retake


@pytest.mark.parametrize("ko", ["simple", "none"])
@pytest.mark.parametrize("config", [SearchConfig(), SearchConfig(rave=False, lgr=False),
                                    SearchConfig(prior=20).with_game_options({"captures": 4}),
                                    SearchConfig().with_game_options({"safe": 0}),
                                    SearchConfig(grave=5)], ids=str)
def test_every_node_holds_the_rules_legal_moves_and_results(ko, config):
    g = stonegarden.make("freego", size=5, target=3, ko=ko)
    s = g.parse_position("/".join(KO) + " 1 1,1 10")
    s = g.play_text(s, "D3")  # a ko capture: White's retake at C3 is banned under simple ko
    engine = _engine(g, config)
    engine.search(s, Budget(sims=3000))
    checked = {"expanded": 0, "terminal": 0}

    def visit(state, node):
        P = engine.pools
        assert int(P.nd_player[node]) == state.player or g.is_terminal(state)
        code = int(P.nd_proven[node])
        if g.is_terminal(state):
            checked["terminal"] += 1
            assert code == {1: 1, 2: 2, 0: 3}[g.winner(state)]
        first = int(P.nd_first[node])
        if first >= 0 and not g.is_terminal(state):
            checked["expanded"] += 1
            moves = sorted(int(m) for m in P.ed_move[first:first + int(P.nd_count[node])])
            assert moves == sorted(int(a) for a in g.legal_actions(state))

    _walk(engine, s, engine.root, 4, visit)
    assert checked["expanded"] > 20 and checked["terminal"] > 0
    retake = g.board.point("C3")
    root_moves = engine.pools.ed_move[:int(engine.pools.nd_count[engine.root])]
    assert (retake in root_moves) == (ko == "none")


def test_the_engine_finds_and_proves_the_winning_capture():
    g = stonegarden.make("freego", size=5, target=1)
    state = g.replay(["b1", "a1"])[-1]
    res = _engine(g).search(state, Budget(sims=3000))
    assert g.action_to_text(state, res.best).lower() == "a2"
    assert res.proven == 1 and res.value == 1.0


def test_a_fixed_seed_and_simulation_count_give_the_same_search():
    g = stonegarden.make("freego", size=7)
    s = g.replay(["d4", "c3"])[-1]
    a = _engine(g, seed=5).search(s, Budget(sims=2000))
    b = _engine(g, seed=5).search(s, Budget(sims=2000))
    c = _engine(g, seed=6).search(s, Budget(sims=2000))
    stats = [[(m.action, m.visits, m.value) for m in r.moves] for r in (a, b, c)]
    assert stats[0] == stats[1] and stats[0] != stats[2]
    assert a.pv == b.pv and a.sims == 2000


def test_the_tree_is_kept_after_the_engine_s_move_and_the_opponent_s_reply():
    g = stonegarden.make("freego", size=7)
    engine = _engine(g)
    s = g.initial_state()
    first = engine.search(s, Budget(sims=3000))
    reply = first.pv[1]  # a reply the tree has explored
    s2 = g.play_unchecked(g.play_unchecked(s, first.best), reply)
    second = engine.search(s2, Budget(sims=500))
    assert second.reused > 0
    fresh = _engine(g, dataclasses.replace(SearchConfig(), reuse=False))
    fresh.search(s, Budget(sims=300))
    assert fresh.search(s2, Budget(sims=300)).reused == 0
    # one move on (a game reviewed move by move) is found too, and a position that is not a
    # few moves on from the last one starts a fresh tree
    s3 = g.play_unchecked(s2, second.best)
    assert engine.search(s3, Budget(sims=100)).reused > 0
    assert engine.search(g.replay(["a1", "g7"])[-1], Budget(sims=100)).reused == 0


@pytest.mark.slow
def test_compaction_keeps_the_subtree_of_the_new_root():
    g = stonegarden.make("freego", size=7)
    engine = _engine(g, seed=3, pools=Pools(6_000, 200_000))
    s = g.initial_state()
    reused, compacted = [], []
    for _ in range(4):
        res = engine.search(s, Budget(sims=1500))
        reused.append(res.reused)
        compacted.append(engine.root == 0 and res.reused > 0)  # the kept root copied first
        mid = g.play_unchecked(s, res.best)
        s = g.play_unchecked(mid, res.pv[1] if len(res.pv) > 1 else int(g.legal_actions(mid)[0]))
    # a search that finds more than a third of the 6,000 nodes used starts by copying the
    # kept subtree to fresh pools; what it kept is still counted
    assert all(r > 0 for r in reused[1:]) and any(compacted)
    assert int(engine.pools.counters[0]) <= 6_000


@pytest.mark.parametrize("options", [{"ko": "superko"}, {}])
def test_what_the_compiled_tree_does_not_serve_goes_to_the_protocol_tree(options):
    g = stonegarden.make("freego", size=5, **options)
    assert isinstance(new_engine(g, SearchConfig(), 1), CompiledTree) == (not options)
    assert isinstance(new_engine(g, SearchConfig(tt=True), 1), ProtocolTree)
    assert isinstance(new_engine(g, SearchConfig(fast=False), 1), ProtocolTree)
    # contempt changes only the value of a draw, which the kernels take
    assert isinstance(new_engine(g, SearchConfig(contempt=0.1), 1), CompiledTree) == (
        not options)
    agent = make_agent("mcts:sims=50,seed=1")
    engine = agent.engine(g)
    assert isinstance(engine, CompiledTree if not options else ProtocolTree)


@pytest.mark.slow
def test_the_compiled_and_the_protocol_tree_value_a_position_alike():
    # the same search in two implementations (different random streams): a reward counted
    # for the wrong player, or a RAVE sample for the wrong moves, would move the root value
    # and the preferred move far apart
    g = stonegarden.make("freego", size=5, target=3)
    s = g.replay(["c3", "b2", "d2"])[-1]
    fast = _engine(g).search(s, Budget(sims=6000))
    slow = ProtocolTree(g, SearchConfig(), 1).search(s, Budget(sims=6000))
    assert abs(fast.value - slow.value) < 0.05
    top = {m.action for m in slow.moves[:5]}
    assert fast.best in top


@pytest.mark.parametrize("lgr", [True, False])
def test_the_reply_table_learns_only_with_last_good_replies_on(lgr):
    g = stonegarden.make("freego", size=5)
    engine = _engine(g, SearchConfig(lgr=lgr))
    engine.search(g.initial_state(), Budget(sims=500))
    if lgr:
        assert engine.replies.shape == (3, 25) and (engine.replies[1:] >= 0).sum() > 10
    else:
        assert engine.replies.size == 0


def test_priors_start_a_new_node_s_moves_with_virtual_rave_samples():
    g = stonegarden.make("freego", size=5, target=10)
    s = g.parse_position("/".join([".....", "..X..", ".XOX.", "O....", ".O..."]) + " 1 0,0 10")

    def root_samples(config):
        engine = _engine(g, config)
        engine.search(s, Budget(sims=1))  # the root is expanded on the first simulation
        P = engine.pools
        first, count = int(P.nd_first[engine.root]), int(P.nd_count[engine.root])
        return {g.board.names[int(P.ed_move[e])]: (int(P.ed_rn[e]), float(P.ed_rw[e]))
                for e in range(first, first + count)}

    # the hand-made priors (no learned model)
    by_point = root_samples(SearchConfig(prior=7, model="none"))
    assert all(rn >= 7 for rn, _ in by_point.values())
    # the one simulation adds at most one real sample: the capture C2 stays near 1, the
    # suicide A1 near 0
    assert by_point["C2"][1] / by_point["C2"][0] >= 7 / 8
    assert by_point["A1"][1] / by_point["A1"][0] <= 1 / 8
    # the shipped learned model rates the capture above the average move and the suicide
    # below it
    learned = root_samples(SearchConfig(prior=7, model="shipped"))
    assert learned["C2"][1] / learned["C2"][0] > 0.5 > learned["A1"][1] / learned["A1"][0]


def _exact(game, state, memo):
    """Exhaustive game value (winner, 0 draw) of a small Free Go position; the key holds what
    the legal moves depend on: stones, scores, the mover and the board before the last move
    (simple ko)."""
    return exact_winner(game, state, memo,
                        lambda s: (s.cells().tobytes(), tuple(s.scores), s.player,
                                   s.history[-2] if len(s.history) >= 2 else 0))


@pytest.mark.parametrize("ko", ["simple", "none"])
@pytest.mark.slow
def test_solver_proofs_agree_with_exhaustive_search(ko):
    """Positions with six empty points left (captures, suicides and ko still to come): every
    proof the engine makes is the exact game value, and a proven win is played. A wrong proof
    would make a player resign a won game (``match --resign``)."""

    g = stonegarden.make("freego", size=5, target=4, ko=ko)
    rng = np.random.default_rng(0)
    memo: dict = {}
    proofs = 0
    for _ in range(16):
        s = g.initial_state()
        while not g.is_terminal(s) and int((s.cells() == 0).sum()) > 6:
            legal = g.legal_actions(s)
            s = g.play(s, int(legal[int(rng.integers(len(legal)))]))
        if g.is_terminal(s):
            continue
        truth = _exact(g, s, memo)
        res = _engine(g).search(s, Budget(sims=20_000))
        if res.proven is not None:
            proofs += 1
            assert res.proven == truth, g.position_text(s)
            if truth == s.player:
                assert _exact(g, g.play_unchecked(s, res.best), memo) == truth
    assert proofs >= 10
