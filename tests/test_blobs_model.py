"""Blobs' learned move model: its four feature codes checked against the rules' own blobs,
its decisions (rolls are not decisions), and its priors leading the protocol tree."""

from __future__ import annotations

from itertools import combinations_with_replacement
from pathlib import Path

import numpy as np
import pytest

import stonegarden
from stonegarden.agents.registry import make_agent
from stonegarden.errors import ParameterError
from stonegarden.games.blobs.features import FEATURE_BASES, NUM_FEATURES
from stonegarden.games.blobs.lattice import FACE_MIXED, cell_rc, face_of, on_board
from stonegarden.games.blobs.model import BlobsLearner, ModelPriors
from stonegarden.learn.model import load_model, save_model
from stonegarden.search.config import Budget, SearchConfig
from stonegarden.search.profile import profile_for
from stonegarden.search.protocol_tree import ProtocolTree

from .conftest import played

WHITE_PAIRS = list(combinations_with_replacement(range(9), 2))


def _expected_codes(game, state, action) -> tuple[int, int, int, int]:
    """The four codes of ``action`` worked out from the position after it and the rules' own
    list of blobs (``BlobsGame.blobs``), not from the feature kernel."""
    after = game.play(state, action)
    mover = state.to_place
    verdict = 0
    if game.is_terminal(after) and after.reason != "no-placement":
        winner = game.winner(after)
        verdict = 1 if winner == mover else 2 if winner else 3
    blob_of = {p: b for b in game.blobs(after) for p in b.points}
    filled = set(after.placements())

    def openings(blob) -> int:
        around = {(r + dr, c + dc) for r, c in blob.points for dr in (-1, 0) for dc in (-1, 0)}
        if not all(on_board(*cell) for cell in around):
            return 3  # a blob at the rim of the virtual board never closes
        return min(len(around - filled), 3)

    def white_state(point) -> int:
        blob = blob_of[point]
        if blob.borders == {mover}:
            return openings(blob)
        if blob.borders == {3 - mover}:
            return 4 + openings(blob)
        return 8

    cell, placement = divmod(action, 4)
    r, c = cell_rc(cell)
    corners = {"nw": (r, c), "ne": (r, c + 1), "sw": (r + 1, c), "se": (r + 1, c + 1)}
    backslash = (r + c) % 2 == 0  # coloured at NW and SE
    north, south = (corners["nw"], corners["se"]) if backslash else (corners["ne"], corners["sw"])
    whites = (corners["ne"], corners["sw"]) if backslash else (corners["nw"], corners["se"])
    face = face_of(placement)
    if face == FACE_MIXED:
        own, enemy = ((north, south) if blob_of[north].colour == mover else (south, north))
        coloured = 8 + 4 * openings(blob_of[own]) + openings(blob_of[enemy])
        white = 90 + white_state(whites[0])
    else:
        enemy_face = int(face != mover - 1)
        coloured = 4 * enemy_face + openings(blob_of[north])
        pair = tuple(sorted(white_state(p) for p in whites))
        white = 45 * enemy_face + WHITE_PAIRS.index(pair)
    return verdict, min(len(after.auto), 3), coloured, white


@pytest.mark.parametrize("params", [{}, {"win": "enemy"}, {"win": "white", "tumbling": True}])
def test_the_codes_agree_with_the_rules_blobs_on_every_placement_of_random_games(params):
    game = stonegarden.make("blobs", **params)
    coder = ModelPriors(game, None)
    rng = np.random.default_rng(5)
    verdicts = np.zeros(4, int)
    for _ in range(6):
        state = game.initial_state()
        while not game.is_terminal(state):
            legal = game.legal_actions(state)
            if state.player == 0:  # a roll
                state = game.play(state, int(rng.choice(legal)))
                continue
            codes = coder.codes(state, legal)
            for action, row in zip(legal, codes, strict=True):
                assert tuple(row) == _expected_codes(game, state, int(action))
                verdicts[row[0]] += 1
            state = game.play(state, int(rng.choice(legal)))
    # the games reached placements that win and that hand the opponent a win
    assert verdicts[1] > 0 and verdicts[2] > 0


def test_a_blob_at_the_rim_of_the_virtual_board_never_closes():
    # the dice reach column o, the board's last: the white disc at the north-east corner of
    # o7 touches cells off the board, so Red's o7R leaves it open, as the rules judge it
    game = stonegarden.make("blobs")
    state, _ = played(game, ["i8M", "j8R", "j9M", "j7M", "k9M", "l8R", "k7M", "m8R", "m9M",
                             "n8R", "n7M", "o8R", "n9M"])
    action = game.parse_action(state, "o7R")
    assert not game.is_terminal(game.play(state, action))
    row = ModelPriors(game, None).codes(state, np.array([action]))[0]
    assert tuple(row) == _expected_codes(game, state, action)
    assert row[0] == 0  # no verdict
    # an own face: the white discs are the own-bordered rim one (3+) and a both-bordered one
    assert row[3] == WHITE_PAIRS.index((3, 8))


def test_choices_are_the_placements_and_rolls_are_not_decisions():
    game = stonegarden.make("blobs", tumbling=True)
    rng = np.random.default_rng(2)
    state, actions, placements = game.initial_state(), [], []
    for _ in range(12):
        legal = game.legal_actions(state)
        if state.player != 0:
            placements.append((state, legal))
        action = int(rng.choice(legal))
        actions.append(action)
        state = game.play(state, action)
    data = BlobsLearner().choices(game, actions)
    decisions = [(s, legal) for s, legal in placements if len(legal) > 1]
    assert data.decisions == len(decisions) > 0
    assert list(np.diff(data.starts)) == [len(legal) for _, legal in decisions]
    first_state, first_legal = decisions[0]
    codes = ModelPriors(game, None).codes(first_state, first_legal)
    np.testing.assert_array_equal(data.rows[:len(first_legal)], codes + FEATURE_BASES)
    assert data.rows.max() < NUM_FEATURES


def test_a_model_gives_the_protocol_tree_its_priors_as_visits(tmp_path: Path):
    game = stonegarden.make("blobs")
    state = game.initial_state()
    legal = game.legal_actions(state)
    codes = ModelPriors(game, None).codes(state, legal)[:, 2]
    favoured = 3  # an own face (Blue's), whose blob has 3+ openings: 2 of the 8 placements
    assert (codes == favoured).sum() == 2
    weights = np.zeros(NUM_FEATURES, np.float32)
    weights[FEATURE_BASES[2] + favoured] = 5.0
    path = tmp_path / "blobs.npz"
    save_model(path, {"weights": weights}, {"kind": BlobsLearner.kind, "prior": 30})
    priors = ModelPriors(game, load_model(path))(state, legal)
    # sigmoid(logit - log mean exp logits): a quarter of the moves at +5, the rest at 0
    mean = np.log(0.25 * np.exp(5.0) + 0.75)
    np.testing.assert_allclose(priors, 1 / (1 + np.exp(mean - 5.0 * (codes == favoured))),
                               rtol=1e-6)

    tree = ProtocolTree(game, SearchConfig(model=str(path)), seed=3)
    assert tree.prior == 30 and isinstance(tree.prior_values, ModelPriors)

    def favoured_share(result) -> float:
        picked = {int(a) for a in legal[codes == favoured]}
        return sum(m.visits for m in result.moves if m.action in picked) / result.sims

    # 30 virtual visits near a win for the two favoured moves lead 40 playouts; without the
    # model the search has no priors and spreads its visits
    with_model = tree.search(state, Budget(sims=40))
    assert int(with_model.best) in legal[codes == favoured]
    assert favoured_share(with_model) > 0.5
    plain = ProtocolTree(game, SearchConfig(model="none"), seed=3)
    assert plain.prior_values is None or plain.prior_values(state, legal, -1) is None
    assert favoured_share(plain.search(state, Budget(sims=40))) < 0.5


def test_as_a_bias_the_priors_order_the_untried_moves_and_lead_the_search(tmp_path: Path):
    game = stonegarden.make("blobs")
    state = game.initial_state()
    legal = game.legal_actions(state)
    codes = ModelPriors(game, None).codes(state, legal)[:, 2]
    favoured = {int(a) for a in legal[codes == 3]}  # the two placements of the test above
    weights = np.zeros(NUM_FEATURES, np.float32)
    weights[FEATURE_BASES[2] + 3] = 5.0
    path = tmp_path / "blobs.npz"
    save_model(path, {"weights": weights}, {"kind": BlobsLearner.kind, "prior": 30})
    config = SearchConfig(model=str(path), bias=True)
    priors = ModelPriors(game, load_model(path))(state, legal)

    tree = ProtocolTree(game, config, seed=3)
    first_two = tree.search(state, Budget(sims=2))
    assert {m.action for m in first_two.moves if m.visits} == favoured, "likeliest first"
    P = tree.pools
    root = list(P.edge_range(tree.root))
    assert all(int(P.ed_rn[e]) == 0 for e in root), "no virtual visits"
    np.testing.assert_allclose([float(P.ed_rw[e]) for e in root], 30 * priors, rtol=1e-6)

    # every placement is tried before any is tried twice: a bias orders, it prunes nothing
    once = ProtocolTree(game, config, seed=3).search(state, Budget(sims=len(legal)))
    assert sorted(m.visits for m in once.moves) == [1] * len(legal)
    led = ProtocolTree(game, config, seed=3).search(state, Budget(sims=40))
    assert sum(m.visits for m in led.moves if m.action in favoured) > 20


def test_the_bias_switch_is_an_agent_option_and_needs_a_search_without_rave():
    assert make_agent("mcts:sims=10,bias=on").config.bias is True
    assert make_agent("mcts:sims=10").config.bias is False
    with pytest.raises(ParameterError, match="bias"):
        make_agent("mcts:sims=10,bias=sometimes")
    go = stonegarden.make("freego", size=5, target=10)
    with_rave = ProtocolTree(go, SearchConfig(fast=False, prior=20, bias=True), seed=1)
    assert with_rave.rave and not with_rave.bias, "RAVE games keep priors as RAVE samples"


def test_the_shipped_model_loads_with_its_metadata_and_rates_a_losing_placement_low():
    game = stonegarden.make("blobs")
    profile = profile_for(game)
    model = profile.model_for(SearchConfig(model="shipped"))
    assert model is not None and model.kind == BlobsLearner.kind
    assert Path(model.path).stat().st_size < 10_000_000
    meta = model.meta
    assert meta["game"] == "blobs" and meta["games"] >= 100
    assert meta["fit"]["held_out"]["log_loss"] < meta["fit"]["held_out"]["uniform_log_loss"]
    weights = model.arrays["weights"]
    # handing the opponent a win is the worst verdict, winning the best
    verdicts = weights[FEATURE_BASES[0]:FEATURE_BASES[1]]
    assert verdicts[1] == verdicts.max() and verdicts[2] == verdicts.min()
    assert profile.model_for(SearchConfig(model="none")) is None
