"""The search: determinism with seed and simulations, the solver, chance nodes, tree reuse,
and every technique switch, on tiny Blooms boards and a toy chance game, with the compiled
tree and through the protocol."""

from __future__ import annotations

import dataclasses
import math
from dataclasses import dataclass

import numpy as np
import pytest

import stonegarden
from stonegarden.agents import make_agent
from stonegarden.core.params import Param
from stonegarden.core.protocol import CHANCE, Game, State
from stonegarden.search.config import FLAT, Budget, SearchConfig
from stonegarden.search.engines import make_engine
from stonegarden.search.pools import Pools
from stonegarden.search.profile import profile_for
from stonegarden.search.protocol_tree import ProtocolTree
from stonegarden.search.tree import CompiledTree

from .exact_helpers import exact_winner
from .tree_helpers import edges, reachable

FAST = SearchConfig()
GENERIC = dataclasses.replace(SearchConfig(), fast=False)
WHOLE_TURNS = FAST.with_game_options({"split": 0})
SWITCHES = [
    pytest.param(FAST, id="all-on"),
    pytest.param(WHOLE_TURNS, id="split-off"),
    pytest.param(dataclasses.replace(FAST, rave=False), id="rave-off"),
    pytest.param(dataclasses.replace(FAST, grave=20), id="grave"),
    pytest.param(dataclasses.replace(FAST, solver=False), id="solver-off"),
    pytest.param(FAST.with_game_options({"captures": 4}), id="capture-playouts"),
    pytest.param(GENERIC, id="protocol"),
    pytest.param(FLAT, id="uct-flat"),
]


def capture_to_win():
    """Size 3, target 1: player 2's lone stone on the corner a1 has liberties b1 and b2 only,
    so player 1 wins at once with Rb1,Yb2 or Rb2,Yb1 and by nothing else."""
    game = stonegarden.make("blooms", size=3, target=1)
    return game, game.replay(["Ra2", "Ka1"])[-1]


def result_key(res):
    return [(m.action, m.visits, round(m.value, 9)) for m in res.moves], res.pv, round(res.value, 9)


@pytest.mark.parametrize("config", SWITCHES)
def test_fixed_seed_and_sims_give_the_same_search(config):
    game = stonegarden.make("blooms", size=4)
    state = game.replay(["Rd4", "Kc3,Gd5"])[-1]
    a = make_engine(game, config, 7).search(state, Budget(sims=400))
    b = make_engine(game, config, 7).search(state, Budget(sims=400))
    assert a.sims == b.sims == 400
    assert result_key(a) == result_key(b)
    assert game.is_legal(state, a.best)


def test_different_seeds_usually_search_differently():
    game = stonegarden.make("blooms", size=4)
    state = game.initial_state()
    keys = {str(result_key(make_engine(game, FAST, s).search(state, Budget(sims=300))))
            for s in range(3)}
    assert len(keys) > 1


@pytest.mark.parametrize("config", SWITCHES)
def test_search_finds_the_capture_that_wins(config):
    game, state = capture_to_win()
    res = make_engine(game, config, 1).search(state, Budget(sims=3000))
    after = game.play(state, res.best)
    assert game.winner(after) == 1, game.action_to_text(state, res.best)
    assert game.action_to_text(state, res.best) in ("Rb1,Yb2", "Rb2,Yb1")


@pytest.mark.parametrize("config", [FAST, GENERIC, WHOLE_TURNS],
                         ids=["fast-split", "protocol", "fast-whole-turns"])
def test_solver_proves_the_forced_win_and_stops(config):
    game, state = capture_to_win()
    res = make_engine(game, config, 1).search(state, Budget(sims=100_000))
    assert res.proven == 1
    assert res.value == 1.0
    assert res.sims < 100_000, "a proven root ends the search early"
    assert res.moves[0].proven == 1


#: exhaustive values of the 7-cell Blooms positions (size 2, target 3, the only game solved
#: here: its key leaves the parameters out), shared by the tests that solve them: solving is
#: most of their time, and each solved much the same positions afresh
SOLVED: dict = {}


def _exact(game, state, memo):
    """Exhaustive game value (winner, 0 draw) of a tiny Blooms position."""
    return exact_winner(game, state, memo,
                        lambda s: (s.board, s.scores, s.player, s.ply == 0))


@pytest.mark.parametrize("config", [FAST, GENERIC, dataclasses.replace(GENERIC, tt=True),
                                    WHOLE_TURNS],
                         ids=["fast-split", "protocol", "protocol-tt", "fast-whole-turns"])
@pytest.mark.slow
def test_solver_proofs_agree_with_exhaustive_search(config):
    """On the 7-cell board every proof the solver makes is the true game value, and a proven
    win is played."""
    game = stonegarden.make("blooms", size=2, target=3)
    rng = np.random.default_rng(0)
    memo = SOLVED
    proofs = 0
    for _ in range(25):
        state = game.initial_state()
        for _ in range(int(rng.integers(0, 5))):
            if game.is_terminal(state):
                break
            legal = game.legal_actions(state)
            state = game.play(state, int(legal[int(rng.integers(len(legal)))]))
        if game.is_terminal(state):
            continue
        res = make_engine(game, config, 1).search(state, Budget(sims=20_000))
        truth = _exact(game, state, memo)
        if res.proven is not None:
            proofs += 1
            assert res.proven == truth, game.position_text(state)
            if truth == state.player:
                assert _exact(game, game.play(state, res.best), memo) == truth
    assert proofs > 5


@pytest.mark.slow
def test_a_proven_loss_is_searched_on():
    """Proven lost positions still get their whole budget (to find the most resistant move)."""
    game = stonegarden.make("blooms", size=2, target=3)
    memo = SOLVED
    state = game.initial_state()
    lost = None
    for a in game.legal_actions(state):
        after = game.play(state, int(a))
        if _exact(game, after, memo) == 1:
            lost = after  # player 2 to move, and player 1 wins whatever happens
            break
    assert lost is not None
    for config in (FAST, GENERIC):
        res = make_engine(game, config, 1).search(lost, Budget(sims=3000))
        assert res.sims == 3000
        assert game.is_legal(lost, res.best)


def test_solver_off_never_claims_a_proof():
    game, state = capture_to_win()
    engine = make_engine(game, dataclasses.replace(FAST, solver=False), 1)
    res = engine.search(state, Budget(sims=500))
    assert res.proven is None
    assert res.sims == 500


@pytest.mark.parametrize("config", [FAST, GENERIC], ids=["fast", "protocol"])
@pytest.mark.slow
def test_tree_reuse_keeps_the_visits_below_the_moves_played(config):
    game = stonegarden.make("blooms", size=3)
    engine = make_engine(game, config, 3)
    state = game.replay(["Rb3"])[-1]
    first = engine.search(state, Budget(sims=4000))
    assert first.reused == 0
    mine = game.play(state, first.best)
    assert engine.search(mine, Budget(sims=100)).reused > 0
    reply = engine.search(mine, Budget(sims=1)).best
    after = game.play(mine, reply)
    second = engine.search(after, Budget(sims=100))
    assert second.reused > 0
    again = engine.search(after, Budget(sims=100))
    assert again.reused >= second.reused + 100


@pytest.mark.parametrize("config", [FAST, GENERIC], ids=["fast", "protocol"])
def test_tree_reuse_off_starts_afresh(config):
    game = stonegarden.make("blooms", size=4)
    engine = make_engine(game, dataclasses.replace(config, reuse=False), 3)
    state = game.initial_state()
    engine.search(state, Budget(sims=200))
    assert engine.search(state, Budget(sims=200)).reused == 0


def test_reuse_survives_an_unexpected_reply():
    """The opponent's reply is found from the board, even one the tree never tried."""
    game = stonegarden.make("blooms", size=4)
    engine = make_engine(game, FAST, 3)
    state = game.initial_state()
    res = engine.search(state, Budget(sims=500))
    mine = game.play(state, res.best)
    legal = game.legal_actions(mine)
    reply = game.play(mine, int(legal[-1]))
    res2 = engine.search(reply, Budget(sims=200))
    assert game.is_legal(reply, res2.best)


def _blobs_tree(tt, sims=3000):
    game = stonegarden.make("blobs")
    engine = ProtocolTree(game, dataclasses.replace(GENERIC, tt=tt), 5)
    engine.search(game.replay(["h9R", "h7B"])[-1], Budget(sims=sims))
    return game, engine


@pytest.mark.parametrize("tt", [True, False])
@pytest.mark.slow
def test_transpositions_share_one_node_per_position(tt):
    """Blobs moves commute, so a position is reached by several orders of moves: with ``tt``
    the tree holds one node for it (entered by several edges), without, one per path."""
    game, engine = _blobs_tree(tt)
    nodes, parents = reachable(engine)
    key = profile_for(game).transposition_key
    keys = {key(engine.states[n]) for n in nodes}
    shared = sum(1 for k in parents.values() if k > 1)
    if tt:
        assert len(keys) == len(nodes)
        assert shared > 50
        assert all(engine.table[key(engine.states[n])] == n for n in nodes)
    else:
        assert len(keys) < 0.9 * len(nodes)
        assert shared == 0


@pytest.mark.slow
def test_a_shared_node_keeps_every_path_s_visits_and_each_parent_its_own():
    """A node entered by several edges has been visited by the simulations of all of them,
    and each parent's statistics count only its own: a node's visits are the sum over the
    edges into it."""
    _, engine = _blobs_tree(True)
    P = engine.pools
    nodes, parents = reachable(engine)
    into: dict[int, int] = {}
    for node in nodes:
        for e, _, child in edges(engine, node):
            if child >= 0:
                into[child] = into.get(child, 0) + int(P.ed_n[e])
    assert sum(1 for n in nodes if parents[n] > 1) > 50
    for node in nodes:
        if node != engine.root:  # the root's visits are the search's
            assert int(P.nd_n[node]) == into[node]


@pytest.mark.slow
def test_without_transpositions_the_table_changes_nothing():
    """Bridge Go states carry their superko history in order, so no two paths meet: the
    search with the table is the search without it, simulation for simulation."""
    game = stonegarden.make("bridgego", size=5)
    state = game.replay(["C3", "B2"])[-1]
    a = ProtocolTree(game, dataclasses.replace(GENERIC, tt=True), 4).search(
        state, Budget(sims=800))
    b = ProtocolTree(game, dataclasses.replace(GENERIC, tt=False), 4).search(
        state, Budget(sims=800))
    assert result_key(a) == result_key(b)


@pytest.mark.parametrize("game_id, tt, shares", [("blobs", None, True), ("blobs", False, False),
                                                 ("bridgego", None, False),
                                                 ("bridgego", True, True)])
def test_the_table_is_the_game_s_default_unless_the_agent_says(game_id, tt, shares):
    """``tt`` unset follows the game's search profile (on in Blobs only); ``tt=on|off``
    overrides."""
    game = stonegarden.make(game_id, **({"size": 5} if game_id == "bridgego" else {}))
    engine = ProtocolTree(game, dataclasses.replace(GENERIC, tt=tt), 1)
    engine.search(game.initial_state(), Budget(sims=300))
    assert (len(engine.table) > 100) == shares


def _depth_two(game, engine):
    """(state reached by playing the two moves, the tree's node there) for every path of two
    moves below the root."""
    root = engine.root
    for _, a, child in edges(engine, root):
        if child < 0:
            continue
        for _, b, grandchild in edges(engine, child):
            if grandchild >= 0:
                state = game.play(game.play(engine.states[root], a), b)
                yield state, grandchild


@pytest.mark.slow
def test_reuse_finds_a_position_the_table_reached_by_another_order():
    """With the table a kept node may hold the state of another order of the same moves (Blobs
    records the last move's auto moves, which the key leaves out): the next search still
    starts from it, with every visit it had."""
    game, engine = _blobs_tree(True)
    P = engine.pools
    other_order = [(s, n) for s, n in _depth_two(game, engine)
                   if s != engine.states[n] and P.nd_n[n] > 1]
    assert other_order  # such nodes exist, or this test proves nothing
    state, node = max(other_order, key=lambda sn: int(P.nd_n[sn[1]]))
    visits = int(P.nd_n[node])
    assert engine.search(state, Budget(sims=10)).reused == visits


@pytest.mark.slow
def test_reuse_without_the_table_starts_from_the_most_visited_copy():
    """Without the table a position reached by two orders has two nodes: the kept tree is
    the busier one, whichever the search meets first."""
    game = stonegarden.make("blobs")
    start = game.replay(["h9R", "h7B"])[-1]

    def searched():
        engine = ProtocolTree(game, dataclasses.replace(GENERIC, tt=False), 5)
        engine.search(start, Budget(sims=3000))
        return engine

    engine = searched()
    copies: dict = {}
    for state, node in _depth_two(game, engine):
        if engine.states[node] == state:
            copies.setdefault(state, {})[node] = int(engine.pools.nd_n[node])
    uneven = [(s, max(v.values())) for s, v in copies.items() if len(set(v.values())) > 1]
    assert len(uneven) >= 3
    for state, most in uneven[:6]:
        assert searched().search(state, Budget(sims=10)).reused == most


@pytest.mark.parametrize("tt", [True, False])
@pytest.mark.slow
def test_a_kept_tree_is_compacted_into_what_the_new_root_reaches(tt):
    """Once a third of the pools is used, the kept subtree is copied into fresh pools: only
    what the new root reaches (a shared node once), with its visits, and (with the table)
    the table points at the copies."""
    game = stonegarden.make("blobs")
    engine = ProtocolTree(game, dataclasses.replace(GENERIC, tt=tt), 2,
                          pools=Pools(6_000, 200_000))
    state = game.replay(["h9R"])[-1]
    compacted = 0
    for _ in range(4):
        res = engine.search(state, Budget(sims=1500))
        state = game.play(state, res.best)
        used = int(engine.pools.counters[0])
        again = engine.search(state, Budget(sims=1))
        assert again.reused > 0
        nodes, _ = reachable(engine)
        if engine.root == 0:  # compacted: the pools hold just the kept tree
            compacted += 1
            assert int(engine.pools.counters[0]) == len(nodes) < used
        key = profile_for(game).transposition_key
        assert all(engine.states[n].ply >= state.ply for n in nodes)
        if tt:
            assert all(engine.table[key(engine.states[n])] == n for n in nodes)
    assert compacted > 0


@pytest.mark.parametrize("game_id,params", [("blooms", {"size": 3}),
                                            ("blooms-territory", {"size": 3, "max_turns": 12})])
@pytest.mark.parametrize("config", SWITCHES)
def test_searches_play_legal_moves_to_the_end(game_id, params, config):
    game = stonegarden.make(game_id, **params)
    engine = make_engine(game, config, 2)
    state = game.initial_state()
    while not game.is_terminal(state):
        res = engine.search(state, Budget(sims=60))
        assert 0.0 <= res.value <= 1.0
        assert game.is_legal(state, res.best)
        assert all(game.is_legal(state, m.action) for m in res.moves)
        state = game.play(state, res.best)


def test_the_compiled_tree_is_chosen_only_when_asked_and_the_game_has_one():
    game = stonegarden.make("blooms", size=3)
    assert isinstance(make_engine(game, FAST, 1), CompiledTree)
    assert isinstance(make_engine(game, GENERIC, 1), ProtocolTree)
    other = stonegarden.make("bridgego", size=5)
    assert isinstance(make_engine(other, FAST, 1), ProtocolTree)


@pytest.mark.parametrize("rave", [True, False], ids=["rave", "no-rave"])
@pytest.mark.parametrize("game_id, options", [
    ("freego", {"captures": 0, "safe": 0, "patterns": 0}),
    ("freego", {"captures": 5, "safe": 0, "patterns": 0}),
    ("blobs", {"safe": 0}), ("blobs", {"safe": 6}), ("bridgego", {"bridges": 0}),
    ("bridgego", {"bridges": 1})])
def test_the_protocol_tree_plays_out_with_the_configured_policy(monkeypatch, game_id, options,
                                                               rave):
    game = stonegarden.make(game_id, **({} if game_id == "blobs" else {"size": 5}))
    profile = profile_for(game)
    seen = []
    config = dataclasses.replace(GENERIC, rave=rave).with_game_options(options)
    real = profile.playout

    def spy(state, seed, opts, replies=None, last=-1):
        seen.append(tuple(sorted(opts.items())))
        return real(state, seed, opts, replies, last)

    monkeypatch.setattr(profile, "playout", spy)
    engine = make_engine(game, config, 1)
    engine.search(game.initial_state(), Budget(sims=50))
    assert seen and set(seen) == {tuple(sorted(options.items()))}


def test_a_time_budget_ends_and_reports_simulations():
    game = stonegarden.make("blooms", size=4)
    res = make_agent("mcts:time=0.2,seed=1").analyse(game, game.initial_state())
    assert res.sims > 0
    assert game.is_legal(game.initial_state(), res.best)


def _slowed(monkeypatch, engine, seconds: float) -> list[int]:
    """Make each of ``engine``'s simulations take ``seconds`` more; the simulations each chunk
    asked for, in order (filled as the engine searches)."""
    import time

    wants: list[int] = []
    run = engine._run

    def slow(want, state, solver):
        wants.append(want)
        done = run(want, state, solver)
        if want:
            time.sleep(seconds * want)
        return done

    monkeypatch.setattr(engine, "_run", slow)
    return wants


@pytest.mark.parametrize("config", [FAST, GENERIC], ids=["compiled", "protocol"])
def test_a_time_budget_starts_with_one_simulation(monkeypatch, config):
    """A search of seconds ran a first chunk of 16 simulations whatever their cost: on a
    large board, a 0.05 s budget took half a second. It starts with one, which sizes the
    rest; a slow simulation here overruns the budget at once, and the search ends after it."""
    game = stonegarden.make("blooms", size=4)
    engine = make_engine(game, config, 1)
    wants = _slowed(monkeypatch, engine, 0.05)
    res = engine.search(game.initial_state(), Budget(seconds=0.01))
    assert wants == [0, 1] and res.sims == 1


def _in_pieces(monkeypatch, engine, wants):
    """Run ``engine``'s chunks a few simulations at a time (1, 2, 3, 1, ...), each piece as
    a chunk of its own (whether it solves asked again), noting each chunk in ``wants``."""
    run = engine._run

    def pieces(want, state, solver):
        wants.append(want)
        done, size = 0, 1
        while done < want:
            part = min(size, want - done)
            ran = run(part, state, solver and engine._solving(state))
            done += ran
            if ran < part:
                break
            size = size % 3 + 1
        return done

    monkeypatch.setattr(engine, "_run", pieces)


@pytest.mark.parametrize("config", [FAST, GENERIC], ids=["compiled", "protocol"])
@pytest.mark.parametrize("where", ["open", "lost"])
def test_where_chunks_begin_changes_no_seeded_search(monkeypatch, config, where):
    """A search runs in chunks sized by their time; a seeded search of simulations is the
    same whatever its chunks, so on any machine, a root proven lost mid-search included
    (the proofs were turned off only where the next chunk began)."""
    if where == "open":
        game = stonegarden.make("blooms", size=4)
        state = game.replay(["Rd4", "Kc3,Gd5"])[-1]
    else:
        game = stonegarden.make("blooms", size=2, target=1)
        state = game.replay(["Rb2"])[-1]  # player 2 to move loses, proven in a few hundred
    whole = make_engine(game, config, 5).search(state, Budget(sims=1500))
    engine = make_engine(game, config, 5)
    _in_pieces(monkeypatch, engine, [])
    cut = engine.search(state, Budget(sims=1500))
    assert where == "open" or whole.proven == 1
    assert result_key(cut) == result_key(whole)


def test_a_search_of_simulations_sees_a_stop_within_a_chunk_of_its_time(monkeypatch):
    """Chunks of a budget of simulations doubled up to 4,096 simulations, whatever they
    cost: on a large board a stop (the web server's time limit, a cancel) was seen seconds
    late. They are sized by time as a budget of seconds' are."""
    game = stonegarden.make("blooms", size=4)
    engine = make_engine(game, FAST, 1)
    wants = _slowed(monkeypatch, engine, 0.01)  # 10 ms a simulation: two make a 20 ms chunk
    res = engine.search(game.initial_state(),
                        Budget(sims=100_000, stop=lambda: len(wants) > 8))
    assert len(wants) == 9 and max(wants[2:]) <= 2, wants
    assert res.sims == sum(wants)


# -- a toy game with a chance node ---------------------------------------------------------

@dataclass(frozen=True, kw_only=True)
class CoinState(State):
    stage: int = 0  # 0: player 1 chooses; 1: the coin is due; 2: over
    outcome: int = 0  # 1 player 1 won, 2 player 2 won, 0 draw


class CoinGame(Game):
    """Player 1 either takes a sure draw (``safe``) or gambles (``coin``): a chance node then
    gives player 1 the win with probability ``p``."""

    id = "coin-toy"
    title = "Coin toy"
    param_specs = (Param("p", "float", 0.7, "probability that the gamble wins"),)
    has_chance = True

    num_distinct_actions = 4  # safe, coin, heads, tails
    max_game_length = 2

    def initial_state(self):
        return CoinState(player=1)

    def current_player(self, state):
        return CHANCE if state.stage == 1 else state.player

    def _is_over(self, state):
        return state.stage == 2

    def _winner_when_over(self, state):
        return state.outcome

    def _reason_when_over(self, state):
        return "coin"

    def scores(self, state):
        return (0, 0)

    def legal_actions(self, state):
        if self.is_terminal(state):
            return np.empty(0, np.int64)
        return np.array([2, 3] if state.stage == 1 else [0, 1], np.int64)

    def illegal_reason(self, state, action):
        return None if action in self.legal_actions(state) else "no"

    def chance_outcomes(self, state):
        p = self.params["p"]
        return [(2, p), (3, 1 - p)] if state.stage == 1 else []

    def play_unchecked(self, state, action):
        if action == 0:
            return dataclasses.replace(state, stage=2, outcome=0, ply=state.ply + 1)
        if action == 1:
            return dataclasses.replace(state, stage=1, ply=state.ply + 1)
        return dataclasses.replace(state, stage=2, outcome=1 if action == 2 else 2,
                                   ply=state.ply + 1)

    def action_to_text(self, state, action):
        return ["safe", "coin", "heads", "tails"][action]

    def parse_action(self, state, text):
        return ["safe", "coin", "heads", "tails"].index(text)

    def position_text(self, state):
        return f"{state.stage}"

    def parse_position(self, text):
        raise NotImplementedError

    def diagram(self, state):
        return self.position_text(state)

    def parse_diagram(self, text):
        raise NotImplementedError


def _coin(p):
    game = CoinGame.__new__(CoinGame)
    game.params = {"p": p}
    return game


@pytest.mark.parametrize("mover, p, contempt, best", [
    (1, 0.45, 0.0, "safe"), (1, 0.45, 0.1, "coin"), (1, 0.35, 0.1, "safe"),
    (2, 0.55, 0.0, "safe"), (2, 0.55, 0.1, "coin"), (2, 0.65, 0.1, "safe"),
])
def test_contempt_trades_a_sure_draw_for_a_gamble_worth_more_than_the_draw_less_contempt(
        mover, p, contempt, best):
    """The gamble is worth p to player 1 (1 - p to player 2); a draw is worth 0.5 - contempt
    to the player searching, whichever seat that is."""
    game = _coin(p)
    start = CoinState(player=mover)
    res = ProtocolTree(game, SearchConfig(c=1.0, contempt=contempt), 1).search(
        start, Budget(sims=2000))
    assert game.action_to_text(start, res.best) == best
    safe = next(m for m in res.moves if m.action == 0)
    assert safe.value == pytest.approx(0.5 - contempt, abs=1e-5)  # float32 sums


def test_a_kept_tree_is_not_reused_for_the_other_player_under_contempt():
    """Rewards in a kept tree value draws for the player it searched for: a search for the
    other player (self-play with one engine) starts afresh, one for the same player reuses."""
    game = _coin(0.45)
    engine = ProtocolTree(game, SearchConfig(c=1.0, contempt=0.1), 1)
    engine.search(CoinState(player=1), Budget(sims=200))
    assert engine.search(CoinState(player=1), Budget(sims=10)).reused > 0
    assert engine.search(CoinState(player=2), Budget(sims=10)).reused == 0


@pytest.mark.parametrize("p,best", [(0.7, "coin"), (0.3, "safe")])
def test_chance_nodes_value_the_gamble_at_its_expectation(p, best):
    game = _coin(p)
    # a wide exploration constant so the gamble is sampled enough whichever way it looks
    res = ProtocolTree(game, SearchConfig(c=1.0, chance=True), 1).search(game.initial_state(),
                                                                         Budget(sims=400))
    assert game.action_to_text(game.initial_state(), res.best) == best
    coin = next(m for m in res.moves if m.action == 1)
    assert coin.value == pytest.approx(p)
    # every outcome is proven, but with two results: an expectation, which is no proof
    assert res.proven is None and (res.value > 0.5) == (p > 0.5)


def test_chance_outcomes_are_visited_in_proportion_to_their_probability():
    game = _coin(0.7)
    engine = ProtocolTree(game, dataclasses.replace(SearchConfig(), solver=False), 1)
    engine.search(game.initial_state(), Budget(sims=1001))
    chance = next(child for _, move, child in edges(engine, engine.root) if move == 1)
    n = np.array([engine.pools.ed_n[e] for e, _, _ in edges(engine, chance)], np.float64)
    assert n.sum() > 100
    assert abs(n[0] / n.sum() - 0.7) < 0.01


@pytest.mark.parametrize("tt", [False, True])
@pytest.mark.parametrize("reuse", [False, True])
def test_chance_expectations_on_edges_equal_the_weighted_mean(reuse, tt):
    """With ``chance`` on, the edge into a chance node holds that node's expectation (the
    probability-weighted mean of its visited outcomes, for the parent's player) times its
    visits, recomputed from the outcome statistics (Tumbling Dice, with tree reuse across
    moves), for every parent that last came through it."""
    game = stonegarden.make("blobs", dice=12, tumbling=True)
    config = dataclasses.replace(SearchConfig(), chance=True, reuse=reuse, solver=False, tt=tt)
    engine = ProtocolTree(game, config, 3)
    state = game.initial_state()
    checked = 0
    for _ in range(3):
        if game.current_player(state) == CHANCE:
            state = game.play(state, int(game.chance_outcomes(state)[0][0]))
            continue
        res = engine.search(state, Budget(sims=300))
        P = engine.pools
        nodes, parents = reachable(engine)
        for node in nodes:
            for e, _, child in edges(engine, node):
                if (child < 0 or P.nd_player[child] != CHANCE or P.nd_first[child] < 0
                        or parents[child] > 1):
                    continue
                out = edges(engine, child)
                n = np.array([P.ed_n[f] for f, _, _ in out], np.float64)
                w = np.array([P.ed_w[f] for f, _, _ in out], np.float64)
                seen = n > 0
                p = engine.probs[child][seen]
                want = (p * w[seen] / n[seen]).sum() / p.sum()
                if P.nd_player[node] == 2:
                    want = 1 - want
                assert P.ed_w[e] / P.ed_n[e] == pytest.approx(want, rel=1e-5)
                checked += 1
        state = game.play(state, res.best)
    assert checked > 10


@pytest.mark.nojit
@pytest.mark.slow
def test_the_search_kernels_run_as_plain_python():
    """The numba tree runs unchanged with NUMBA_DISABLE_JIT=1 (coverage and debuggers)."""
    code = (
        "import stonegarden\n"
        "from stonegarden.search.engines import make_engine\n"
        "from stonegarden.search.config import SearchConfig, Budget\n"
        "g = stonegarden.make('blooms', size=3, target=1)\n"
        "s = g.replay(['Ra2', 'Ka1'])[-1]\n"
        "r = make_engine(g, SearchConfig(), 1).search(s, Budget(sims=2000))\n"
        "print(r.proven, g.action_to_text(s, r.best))\n"
    )
    import os
    import subprocess
    import sys
    from pathlib import Path

    src = str(Path(__file__).resolve().parents[1] / "src")
    env = dict(os.environ, NUMBA_DISABLE_JIT="1",
               PYTHONPATH=src + os.pathsep + os.environ.get("PYTHONPATH", ""))
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         env=env, timeout=600)
    assert out.returncode == 0, out.stderr
    proven, move = out.stdout.split()
    assert proven == "1" and move in ("Rb1,Yb2", "Rb2,Yb1")


def test_grave_borrows_statistics_only_from_a_visited_ancestor():
    """With GRAVE the search still finds the winning capture and differs from plain RAVE."""
    game = stonegarden.make("blooms", size=3)
    state = game.replay(["Rb3"])[-1]
    deep = dataclasses.replace(FAST, c=0.1)  # a deep enough tree for ancestors to matter
    plain = make_engine(game, deep, 4).search(state, Budget(sims=4000))
    config = dataclasses.replace(deep, grave=10)
    grave = make_engine(game, config, 4).search(state, Budget(sims=4000))
    assert result_key(plain) != result_key(grave)
    game, state = capture_to_win()
    res = make_engine(game, config, 1).search(state, Budget(sims=5000))
    assert res.proven == 1


@pytest.mark.slow
def test_a_lost_side_still_prefers_resistance():
    """In a proven-lost position every move loses, yet the search spreads its simulations and
    reports values from playouts (not all zero), as it would without a solver."""
    game = stonegarden.make("blooms", size=2, target=3)
    memo = SOLVED
    state = game.initial_state()
    lost = next(game.play(state, int(a)) for a in game.legal_actions(state)
                if _exact(game, game.play(state, int(a)), memo) == 1)
    for config in (FAST, GENERIC):
        res = make_engine(game, config, 1).search(lost, Budget(sims=30_000))
        assert res.proven == 1
        assert res.sims == 30_000
        assert len(res.moves) > 1
        assert any(m.value > 0 for m in res.moves)


@pytest.mark.parametrize(("game_id", "params", "config", "first_check"), [
    # asked between chunks of simulations (a search of seconds starts with one)
    ("blooms", {"size": 5}, FAST, 1),
    ("blooms", {"size": 5}, GENERIC, 1),
    ("freego", {"size": 9}, GENERIC, 1),
])
def test_a_stop_request_ends_a_long_search_at_the_next_check(game_id, params, config,
                                                               first_check):
    game = stonegarden.make(game_id, **params)
    state = game.initial_state()
    asked = []

    def stop() -> bool:
        asked.append(True)
        return True

    result = make_engine(game, config, seed=1).search(state, Budget(seconds=600, stop=stop))
    assert result.sims == first_check and len(asked) == 1
    assert result.best in set(int(a) for a in game.legal_actions(state))
    never = make_engine(game, config, seed=1).search(state, Budget(sims=64, stop=lambda: False))
    assert never.sims == 64  # a stop that says no changes nothing


@pytest.mark.parametrize("seed", range(20))
def test_selection_picks_what_the_ucb_formula_picks(seed):
    """The selection kernel scores ``q + c sqrt(ln(N + 1) / n)`` for the node's player (an
    untried edge first), takes a proven win at once and a proven loss never; equal scores go
    to the first from a random offset, so over many draws each of them."""
    from stonegarden.search.tree_kernels import seed_numba, select

    rng = np.random.default_rng(seed)
    k = int(rng.integers(2, 40))
    P = Pools(k + 1, k)
    P.nd_player[0] = 1 + seed % 2
    P.nd_first[0], P.nd_count[0] = 0, k
    P.ed_move[:k] = np.arange(k)
    P.ed_n[:k] = rng.integers(1, 6, k)
    P.ed_w[:k] = np.floor(rng.random(k) * (P.ed_n[:k] + 1) * 2) / 2  # ties happen
    P.ed_child[:k] = np.arange(1, k + 1)
    P.nd_proven[1:k + 1] = rng.choice([0, 0, 0, 1, 2], k) if seed % 3 else 0
    P.nd_n[0] = int(P.ed_n[:k].sum())
    c = 0.2
    q = P.ed_w[:k].astype(np.float64) / P.ed_n[:k]
    score = q + c * np.sqrt(math.log(P.nd_n[0] + 1.0) / P.ed_n[:k])
    mover = int(P.nd_player[0])
    proofs = P.nd_proven[1:k + 1]
    if (proofs == mover).any():
        want = set(np.flatnonzero(proofs == mover).tolist())
    else:
        open_ = proofs == 0
        pool = score if not open_.any() else np.where(open_, score, -np.inf)
        best = pool.max()
        want = set(np.flatnonzero(np.isclose(pool, best, rtol=0, atol=1e-12)).tolist())
    picks = set()
    for draw in range(60):
        seed_numba(draw)
        picks.add(int(select(0, P.nd_player, P.nd_first, P.nd_count, P.nd_n, P.nd_proven,
                             P.ed_move, P.ed_child, P.ed_n, P.ed_w, P.ed_rn, P.ed_rw, c, False,
                             300.0, True, 0)))
    if (proofs == mover).any():
        assert picks <= want
    else:
        assert picks == want


class _Interrupted(Exception):
    pass


def _interrupt() -> bool:
    raise _Interrupted


@pytest.mark.parametrize("enabled", [True, False])
def test_the_search_leaves_the_garbage_collector_as_it_found_it(enabled):
    """The protocol tree pauses the cyclic collector while it searches (what it keeps has no
    cycles) and restores the caller's setting afterwards, also when the search fails."""
    import gc

    game = stonegarden.make("blobs")
    engine = ProtocolTree(game, GENERIC, 1)
    was = gc.isenabled()
    try:
        (gc.enable if enabled else gc.disable)()
        engine.search(game.initial_state(), Budget(sims=50))
        assert gc.isenabled() == enabled
        with pytest.raises(_Interrupted):
            engine.search(game.initial_state(), Budget(seconds=60, stop=_interrupt))
        assert gc.isenabled() == enabled
    finally:
        (gc.enable if was else gc.disable)()


def _paused_until(started, release, ended) -> None:
    """A stand-in search: pauses the collector until ``release`` is set."""
    from stonegarden.search.gc_pause import collector_paused

    with collector_paused():
        started.set()
        release.wait(10)
    ended.set()


def test_overlapping_searches_turn_the_collector_back_on_only_when_the_last_ends():
    """Searches in two threads that start and end in either order: the collector is off
    while either runs and on again once both have ended (never left off for good)."""
    import gc
    import threading

    from stonegarden.search.gc_pause import collector_paused

    was = gc.isenabled()
    gc.enable()
    try:
        for first_to_end in (0, 1):
            started = [threading.Event(), threading.Event()]
            release = [threading.Event(), threading.Event()]
            ended = [threading.Event(), threading.Event()]

            threads = [threading.Thread(target=_paused_until, args=(
                started[k], release[k], ended[k])) for k in (0, 1)]
            for k in (0, 1):
                threads[k].start()
                assert started[k].wait(10)
                assert not gc.isenabled()
            other = 1 - first_to_end
            release[first_to_end].set()
            assert ended[first_to_end].wait(10)
            assert not gc.isenabled()  # the other search still runs
            release[other].set()
            assert ended[other].wait(10)
            assert gc.isenabled()
            for t in threads:
                t.join(10)
        with collector_paused(), collector_paused():  # nested: one thread, a search in a search
            assert not gc.isenabled()
        assert gc.isenabled()
    finally:
        (gc.enable if was else gc.disable)()


@pytest.mark.slow
def test_small_searches_break_ties_at_random_not_by_action_index():
    """With one simulation per move every move whose playout won ties; the first index used to
    win every such tie, so small Bridge Go searches played a1, b1, c1, ... (an edge crawl that
    beat searches of more simulations 19-1). Now the choice spreads over the board. (RAVE off,
    so every move is tried once; test_rave_generic has the RAVE case.)"""
    game = stonegarden.make("bridgego", size=9)
    state = game.initial_state()
    k = len(game.legal_actions(state))
    picks = []
    for seed in range(12):
        config = SearchConfig(rave=False)
        result = ProtocolTree(game, config, seed).search(state, Budget(sims=k))
        assert result.moves[0].visits == 1  # every move tried once: a tie among the winners
        picks.append(int(np.flatnonzero(game.legal_actions(state) == result.best)[0]))
    first_row = sum(i < 9 for i in picks)
    assert first_row <= 3, picks
    assert len(set(picks)) >= 8, picks


def test_the_compiled_tree_breaks_final_ties_by_seed_not_by_cell():
    """The final choice takes of equal edges the one a hash salted by the search's seed
    ranks first, not the first (the lowest cell). Whole turns in the tree and one simulation
    per turn (RAVE off, so every edge is tried once) make every turn whose playout won tie at
    the root."""
    game = stonegarden.make("blooms", size=5)
    state = game.initial_state()
    config = dataclasses.replace(WHOLE_TURNS, rave=False)
    k = len(game.legal_actions(state))
    picks = []
    for seed in range(12):
        result = make_engine(game, config, seed).search(state, Budget(sims=k))
        assert result.moves[0].visits == 1  # every edge tried once: a tie among the winners
        picks.append(int(np.flatnonzero(game.legal_actions(state) == result.best)[0]))
    assert sum(i < 20 for i in picks) <= 6, picks  # the 10 lowest cells, both colours
    assert len(set(picks)) >= 8, picks


@pytest.mark.parametrize("budget,words", [
    ({"sims": 10.5}, "sims must be a whole number, 1..16,000,000, not 10.5"),
    ({"sims": "10"}, "sims must be a whole number, 1..16,000,000, not '10'"),
    ({"sims": True}, "sims must be a whole number, 1..16,000,000, not True"),
    ({"sims": 0}, "sims must be a whole number, 1..16,000,000, not 0"),
    ({"seconds": "1"}, "seconds must be a positive number, at most 86,400, not '1'"),
    ({"seconds": True}, "seconds must be a positive number, at most 86,400, not True"),
    ({"seconds": math.nan}, "seconds must be a positive number, at most 86,400, not nan"),
    ({"seconds": math.inf}, "seconds must be a positive number, at most 86,400, not inf"),
    ({"seconds": 1e9}, "seconds must be a positive number, at most 86,400, not 1000000000.0"),
    ({"sims": 10**12}, "sims must be a whole number, 1..16,000,000, not 1000000000000"),
])
def test_a_budget_that_is_no_count_or_time_is_refused_in_words(budget, words):
    """``Budget(sims=10.5)`` was taken: Free Go's tree compiled a kernel of its own for a
    float (half a minute) and Bridge Go's failed with ``TypeError``, as text did at once."""
    with pytest.raises(stonegarden.ParameterError, match=f"^{words}$"):
        Budget(**budget)
    taken = Budget(sims=np.int64(5), seconds=np.float32(2))
    assert (taken.sims, taken.seconds) == (5, 2.0) and type(taken.sims) is int


@pytest.mark.parametrize("game_id,config,threads", [
    ("blooms", FAST, 1), ("blooms", FAST, 2), ("bridgego", GENERIC, 1)])
def test_a_search_ends_once_its_root_has_the_most_visits_a_tree_counts(monkeypatch, game_id,
                                                                       config, threads):
    """A tree sums rewards in 32-bit floats and visits in 32-bit integers: a search of
    seconds (or of a kept tree) went on past the point where a win no longer counted, and its
    values went wrong. It ends there, one tree or several threads in one, a kept tree's
    visits counted."""
    from stonegarden.search import config as search_config
    from stonegarden.search.parallel import new_searcher

    monkeypatch.setattr(search_config, "MAX_TREE_VISITS", 300)
    game = stonegarden.make(game_id, size=5)
    state = game.initial_state()
    engine = new_searcher(game, config, 1, threads)
    try:
        first = engine.search(state, Budget(seconds=60))  # ends at the cap, long before
        assert first.sims <= 300 and int(engine.pools.nd_n[engine.root]) <= 300
        state = game.play(state, first.best)
        again = engine.search(state, Budget(sims=1000))
        assert again.reused > 0 and again.sims == 300 - again.reused
        assert int(engine.pools.nd_n[engine.root]) <= 300
    finally:
        if threads > 1:
            engine.close()


def test_every_win_up_to_the_most_visits_a_tree_takes_still_counts():
    """The cap was 32,000,000, said to be where the 32-bit sums stop counting; they stop at
    2**24 (16,777,216): an edge's sum of wins past it gained nothing from another win, and a
    long search's best move lost value as it won."""
    from stonegarden.search.config import MAX_TREE_VISITS
    from stonegarden.search.pools import Pools

    sums = Pools(nodes=2, edges=2).ed_w  # the type the tree sums an edge's rewards in
    sums[0] = MAX_TREE_VISITS - 1  # the most wins an edge of a full tree has but one
    assert int(sums[0]) == MAX_TREE_VISITS - 1
    sums[0] += 1.0  # one more win, as the backup adds it
    assert int(sums[0]) == MAX_TREE_VISITS


def test_a_budget_of_numpy_numbers_searches():
    game = stonegarden.make("bridgego", size=5)
    res = make_agent("mcts:seed=1").analyse(game, game.initial_state(), Budget(sims=np.int64(8)))
    assert res.sims == 8


@pytest.mark.parametrize("settings, words", [
    ({"rave": "off"}, "search setting 'rave' is True or False, not 'off'"),
    ({"solver": 0}, "search setting 'solver' is True or False, not 0"),
    ({"tt": "no"}, r"search setting 'tt' is True, False or None \(the game's\), not 'no'"),
    ({"game_defaults": None}, "search setting 'game_defaults' is True or False, not None"),
])
def test_a_search_switch_that_is_not_on_or_off_is_refused(settings, words):
    """``SearchConfig(rave="off")`` was taken, and searched with RAVE on (text is true)."""
    with pytest.raises(stonegarden.ParameterError, match=f"^{words}$"):
        SearchConfig(**settings)
    taken = SearchConfig(rave=np.bool_(False), lgr=None)
    assert taken.rave is False and taken.lgr is None


def test_a_game_option_that_is_not_a_whole_number_is_refused():
    """``with_game_options({"split": "off"})`` was kept, and the search read it as on."""
    with pytest.raises(stonegarden.ParameterError, match=r"^search option 'split' is a whole "
                       r"number \(1 or 0 for on or off\), not 'off'$"):
        SearchConfig().with_game_options({"split": "off"})
    taken = SearchConfig().with_game_options({"split": False, "captures": np.int64(3)})
    assert taken.game == (("captures", 3), ("split", 0))
    assert all(type(value) is int for _, value in taken.game)


@pytest.mark.parametrize("settings, words", [
    ({"c": "1"}, r"search setting 'c' is a number above 0, at most 100, not '1'"),
    ({"c": 0}, r"search setting 'c' is a number above 0, at most 100, not 0"),
    ({"contempt": "0.1"}, r"search setting 'contempt' is a number in 0\.\.0\.5, not '0\.1'"),
    ({"grave": "2"}, r"search setting 'grave' is a whole number in 0\.\.1000000, not '2'"),
    ({"prior": 1.5}, r"search setting 'prior' is a whole number in 0\.\.10000, not 1\.5"),
    ({"model": 5}, r"search setting 'model' is 'none', a model file's path or None "
                   r"\(the game's\), not 5"),
])
def test_a_search_number_that_is_not_one_is_refused(settings, words):
    """``SearchConfig(contempt="0.1")`` failed with ``TypeError`` in the search, and
    ``grave="2"`` with numba's ``TypingError``, pages long."""
    with pytest.raises(stonegarden.ParameterError, match=f"^{words}$"):
        SearchConfig(**settings)
    taken = SearchConfig(c=np.float32(0.5), prior=np.int64(3), grave=2, contempt=0)
    assert (taken.c, taken.prior, taken.contempt) == (0.5, 3, 0.0) and type(taken.prior) is int
