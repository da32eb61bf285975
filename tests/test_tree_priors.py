"""Move priors (``mcts:prior=N``): Free Go's move kinds and Bridge Go's bridge-saving reply on
named positions, the virtual RAVE samples a new node gets from them, the move into the node
the profile is told, and the switch."""

from __future__ import annotations

import dataclasses

import numpy as np
import pytest

import stonegarden
from stonegarden.agents.registry import make_agent
from stonegarden.errors import ParameterError
from stonegarden.games.freego.priors import CAPTURE, QUIET, SUICIDE, move_kinds
from stonegarden.search.config import Budget, SearchConfig
from stonegarden.search.profile import profile_for
from stonegarden.search.protocol_tree import ProtocolTree

from .tree_helpers import edges

RAVE = dataclasses.replace(SearchConfig(), fast=False)


def _position(game, rows, to_move):
    return game.parse_position("/".join(rows) + f" {to_move} 0,0 {10 + to_move - 1}")


def _kinds(game, state, names):
    points = np.array([game.board.point(n) for n in names], np.int64)
    out = np.empty(len(points), np.int8)
    move_kinds(state.cells(), game.board.neighbours, game.board.zobrist, state.player, points,
               out)
    return dict(zip(names, out.tolist()))


def test_move_kinds_tell_captures_suicides_and_quiet_moves_apart():
    g = stonegarden.make("freego", size=5, target=10)
    s = _position(g, [".....",
                      "..X..",
                      ".XOX.",
                      "O....",
                      ".O..."], to_move=1)
    kinds = _kinds(g, s, ["C2", "A1", "E5", "D2"])
    assert kinds["C2"] == CAPTURE  # the last liberty of White's C3
    assert kinds["A1"] == SUICIDE  # a black stone between White's A2 and B1, no capture
    assert kinds["E5"] == QUIET and kinds["D2"] == QUIET


def test_a_stone_joining_its_chain_keeps_the_chain_s_liberties():
    g = stonegarden.make("freego", size=5, target=10)
    # Black's A1 joins A2 (liberty A3) and B1 (liberty C1): no suicide; White's A1 has only
    # Black beside it and captures neither chain: a suicide
    s = _position(g, [".....",
                      ".....",
                      ".....",
                      "XO...",
                      ".X..."], to_move=1)
    assert _kinds(g, s, ["A1"]) == {"A1": QUIET}
    w = _position(g, [".....",
                      ".....",
                      ".....",
                      "XO...",
                      ".X..."], to_move=2)
    assert _kinds(g, w, ["A1"]) == {"A1": SUICIDE}


def test_no_suicide_is_claimed_while_an_opponent_chain_waits_for_removal():
    g = stonegarden.make("freego", size=5, target=10)
    # Black at E5 between White's D5 and E4 dies uncapturing; but with White's A1 left without
    # a liberty (White's suicide, removed on Black's turn) the rule makes no such claim
    rows = ["...O.", "....O", ".....", "X....", "{}X..."]
    quiet = _position(g, [r.format(".") for r in rows], to_move=1)
    assert _kinds(g, quiet, ["E5"]) == {"E5": SUICIDE}
    waiting = _position(g, [r.format("O") for r in rows], to_move=1)
    assert _kinds(g, waiting, ["E5"]) == {"E5": QUIET}


def test_free_go_prior_values_rate_a_capture_as_a_win_and_a_suicide_as_a_loss():
    g = stonegarden.make("freego", size=5, target=10)
    s = _position(g, [".....", "..X..", ".XOX.", "O....", ".O..."], to_move=1)
    acts = g.legal_actions(s)
    values = dict(zip((g.board.names[a] for a in acts), profile_for(g).prior_values(s, acts)))
    assert values["C2"] == 1.0 and values["A1"] == 0.0 and values["E5"] == 0.5
    blobs = stonegarden.make("blobs")
    assert profile_for(blobs).prior_values(blobs.initial_state(), np.arange(3)) is None


def test_bridge_go_prior_values_rate_the_bridge_saving_reply_as_a_win():
    g = stonegarden.make("bridgego", size=5)
    s = g.play_text(g.replay(["B2", "A1", "C3"])[-1], "C2")  # White intrudes into B2-C3
    acts = g.legal_actions(s)
    names = [g.board.names[a] for a in acts]
    values = profile_for(g).prior_values(s, acts, g.board.point("C2"))
    assert {n for n, v in zip(names, values) if v != 0.5} == {"B3"}
    assert values[names.index("B3")] == 1.0
    assert set(profile_for(g).prior_values(s, acts).tolist()) == {0.5}, "no last move known"


def test_the_tree_tells_the_game_the_move_into_the_node_it_expands(monkeypatch):
    g = stonegarden.make("bridgego", size=5)
    seen = []
    profile = profile_for(g)
    real = profile.prior_values

    def spy(state, actions, last=-1):
        seen.append((state.ply, last))
        return real(state, actions, last)

    monkeypatch.setattr(profile, "prior_values", spy)
    s = g.replay(["B2", "A1"])[-1]
    # the bridge reply's priors (the profile's), not the learned model's
    engine = ProtocolTree(g, dataclasses.replace(RAVE, prior=5, model="none"), 3)
    engine.search(s, Budget(sims=60))
    assert seen[0] == (s.ply, -1), "the root: the move into it is not known"
    for ply, last in seen[1:]:
        assert ply > s.ply and last >= 0
    children = {move: child for _, move, child in edges(engine, engine.root)
                if child >= 0 and engine.pools.nd_first[child] >= 0}
    assert children, "some child was expanded"
    for action, child in children.items():
        assert (engine.states[child].ply, action) in seen


@pytest.mark.parametrize("player", [1, 2])
def test_a_new_node_counts_the_priors_as_rave_samples_of_its_player_s_reward(player):
    g = stonegarden.make("freego", size=5, target=10)
    s = _position(g, [".....", "..X..", ".XOX.", "O....", ".O..."], to_move=1)
    if player == 2:  # the same shape with the colours swapped, White to move
        s = _position(g, [".....", "..O..", ".OXO.", "X....", ".X..."], to_move=2)
    engine = ProtocolTree(g, dataclasses.replace(RAVE, prior=7), 1)
    engine.search(s, Budget(sims=1))  # the root is expanded on the first simulation
    P = engine.pools
    by_name = {g.board.names[m]: e for e, m, _ in edges(engine, engine.root)}
    mean = {name: float(P.ed_rw[e]) / max(int(P.ed_rn[e]), 1) for name, e in by_name.items()}
    assert min(int(P.ed_rn[e]) for e in by_name.values()) >= 7  # 7 virtual samples each
    # the one simulation adds at most one real sample to a move: the prior still decides
    assert mean["C2"] >= 7 / 8 and mean["A1"] <= 1 / 8


def test_priors_change_the_search_only_when_switched_on():
    g = stonegarden.make("freego", size=5, target=10)
    s = g.replay(["c3", "b2"])[-1]

    def visits(config):
        res = ProtocolTree(g, config, 9).search(s, Budget(sims=300))
        return [(m.action, m.visits) for m in res.moves]

    profile = profile_for(g)
    assert RAVE.prior is None and profile.prior_for(RAVE) == profile.prior
    off = dataclasses.replace(RAVE, prior=0)
    assert visits(dataclasses.replace(RAVE, prior=profile.prior)) == visits(RAVE)
    assert visits(dataclasses.replace(RAVE, prior=20)) != visits(off)
    assert profile.prior_for(make_agent("mcts:sims=10,prior=20").config) == 20
    with pytest.raises(ParameterError, match="prior"):
        make_agent("mcts:sims=10,prior=-1")
    with pytest.raises(ParameterError, match="prior"):
        make_agent("mcts:sims=10,prior=many")
