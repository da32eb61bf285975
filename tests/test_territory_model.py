"""The territory rules' learned move model: its decisions over the legal turns, its priors at
each stage of the compiled tree (the very logits of the fit's rows), for whole turns in the
protocol tree, and priors as virtual visits in a search without RAVE."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

import stonegarden
from stonegarden.errors import ParameterError
from stonegarden.games.blooms.features import PATTERNS, TACTICS
from stonegarden.games.blooms.search import TerritoryProfile
from stonegarden.games.blooms.territory_model import NONE_FIRST, PASS, TerritoryLearner, TurnPriors
from stonegarden.games.blooms.territory_tree import (
    territory_begin,
    territory_moves,
    territory_scratch,
)
from stonegarden.learn.model import load_model, save_model
from stonegarden.learn.priors import logit_priors
from stonegarden.search.config import Budget, SearchConfig
from stonegarden.search.engines import new_engine
from stonegarden.search.profile import profile_for
from stonegarden.search.protocol_tree import ProtocolTree
from stonegarden.search.tree import CompiledTree
from stonegarden.search.tree_kernels import NO_MOVE

from .conftest import played


def test_choices_follow_the_compiled_tree_and_the_pass_has_its_own_weight():
    game = stonegarden.make("blooms-territory", size=3)
    learner = TerritoryLearner()
    assert learner.num_features == 2 * learner.classes + 2 * TACTICS + 3
    _, actions = played(game, ["Ra1", "Ka2,Ga3", "Yb2", "pass"])
    data = learner.choices(game, actions)
    # the first turn: 19 cells for the first colour and none (no pass yet); its stone alone
    # ends the turn. Then stage 0 has the empty cells, the pass and none; after a first
    # stone, the other cells and none; after none, the cells alone; after the pass, nothing
    assert list(np.diff(data.starts)) == [20, 20, 18, 18, 16, 17]
    base = 2 * learner.classes + 2 * TACTICS
    assert data.rows[data.chosen[-1], 0] == base + PASS  # the pass, at stage 0
    assert data.rows[data.chosen[-2], 0] >= learner.classes  # Yb2: a second-colour stone
    assert data.rows[data.chosen[-3], 0] == base + NONE_FIRST  # ... after no first stone
    assert data.rows.max() == learner.num_features  # the padding of a one-weight row


def _model(tmp_path: Path, none: tuple[float, float, float], tactic: np.ndarray | None = None):
    path = tmp_path / "territory.npz"
    save_model(path, {"pattern": np.zeros((2, PATTERNS), np.float32),
                      "tactic": np.zeros((2, TACTICS), np.float32) if tactic is None else tactic,
                      "none": np.array(none, np.float32)},
               {"kind": TerritoryLearner.kind, "prior": 30})
    return path


def test_a_turn_is_rated_by_the_sum_of_its_stones_and_the_pass_by_its_weights(tmp_path):
    game = stonegarden.make("blooms-territory", size=3)
    state, _ = played(game, ["Ra1"])
    actions = np.asarray(game.legal_actions(state))
    priors = TurnPriors(game, load_model(_model(tmp_path, (0.0, 0.0, 5.0))))(state, actions)
    assert ((priors > 0) & (priors < 1)).all()
    assert game.action_to_text(state, int(actions[np.argmax(priors)])) == "pass"
    # no stone weighted: every turn but the pass alike
    assert len(set(np.round(priors, 9))) == 2
    # a second stone alone costs "no first stone"; a first stone alone "no second stone"
    path = _model(tmp_path, (-3.0, 0.0, 0.0))
    priors = TurnPriors(game, load_model(path))(state, actions)
    texts = [game.action_to_text(state, int(x)) for x in actions]
    alone_second = priors[texts.index("Ga3")]
    alone_first = priors[texts.index("Ka3")]
    pair = priors[texts.index("Ka2,Ga3")]
    assert alone_second < alone_first == pair


def test_without_rave_the_priors_count_as_visits_and_lead_the_search(tmp_path):
    game = stonegarden.make("blooms-territory", size=3)
    state, _ = played(game, ["Ra1"])
    path = _model(tmp_path, (0.0, 5.0, 0.0))  # a first stone alone: 18 of the 343 turns
    profile = profile_for(game)
    assert not profile.amaf  # the territory rules search without RAVE
    assert profile.prior_values_for(SearchConfig(model="none"))(state, np.arange(3)) is None
    tree = ProtocolTree(game, SearchConfig(model=str(path)).with_game_options({"split": 0}),
                        seed=3)
    assert tree.prior == 30 and isinstance(tree.prior_values, TurnPriors)

    def lone_first(action: int) -> bool:
        text = game.action_to_text(state, action)
        return "," not in text and text.startswith("K")

    def lone_first_share(result) -> float:
        return sum(m.visits for m in result.moves if lone_first(m.action)) / result.sims

    # every move starts at 30 virtual visits of its prior value: the lone first stones' near 1
    # lead, and 60 playouts cannot undo that; without the model the search is led by nothing
    # (18 of 343 turns, so a share of about 5% of its visits)
    with_model = tree.search(state, Budget(sims=60))
    assert lone_first(int(with_model.best)) and lone_first_share(with_model) > 0.5
    plain = ProtocolTree(game, SearchConfig(model="none"), seed=3)
    assert lone_first_share(plain.search(state, Budget(sims=60))) < 0.2


def test_the_shipped_model_is_the_compiled_trees_default_and_the_protocol_trees_if_asked():
    """Measured only in the compiled tree, the model is its default; the protocol tree
    (superko, ``split=off``) reads it only when a model is named."""
    game = stonegarden.make("blooms-territory", size=3)
    profile = profile_for(game)
    shipped = load_model(profile.shipped_model_path())
    assert shipped.kind == TerritoryLearner.kind
    spec = profile.tree(SearchConfig())
    assert spec is not None and np.array_equal(spec.consts[5], shipped.arrays["pattern"])
    assert profile.tree(SearchConfig(model="none")).consts[5].shape == (2, 0)
    state = game.initial_state()
    actions = np.asarray(game.legal_actions(state))
    for config in (SearchConfig(), SearchConfig(model="none")):  # the game knows nothing
        assert profile.prior_values_for(config)(state, actions) is None
    named = profile.prior_values_for(SearchConfig(model="shipped"))
    assert isinstance(named, TurnPriors) and named(state, actions).shape == actions.shape


def test_shipped_is_refused_in_a_game_that_ships_no_model(monkeypatch):
    monkeypatch.setattr(TerritoryProfile, "shipped_model", None)
    game = stonegarden.make("blooms-territory")
    profile = profile_for(game)
    assert profile.model_for(SearchConfig()) is None
    with pytest.raises(ParameterError, match="ships no learned model"):
        profile.model_for(SearchConfig(model="shipped"))
    with pytest.raises(ParameterError, match="ships no learned model"):
        ProtocolTree(game, SearchConfig(model="shipped"), seed=1)


def test_the_compiled_tree_reads_each_decision_as_the_fit_rows_it(tmp_path):
    """With random weights, the tree's prior values at every stage along a game are the
    ``logit_priors`` of the logits the fit computes from the learner's rows of that
    decision: the search reads the model exactly as it was trained."""
    game = stonegarden.make("blooms-territory", size=3)
    learner = TerritoryLearner()
    rng = np.random.default_rng(7)
    weights = rng.normal(size=learner.num_features)
    path = tmp_path / "random.npz"
    save_model(path, learner.arrays(weights), {"kind": TerritoryLearner.kind, "prior": 30})
    spec = profile_for(game).tree(SearchConfig(model=str(path)))
    assert spec is not None and spec.consts[5].shape == (2, PATTERNS)
    state = game.initial_state()
    actions = []
    for _ in range(14):
        legal = game.legal_actions(state)
        actions.append(int(rng.choice(legal)))
        state = game.play(state, actions[-1])
    data = learner.choices(game, actions)
    padded = np.append(weights, 0.0)
    want = []
    for i in range(data.decisions):
        logits = padded[data.rows[data.starts[i]:data.starts[i + 1]]].sum(axis=1)
        priors = np.empty(len(logits))
        logit_priors(logits, len(logits), 1.0, priors)
        want.append(priors)
    got = []
    moves = np.empty(spec.max_moves, np.int32)
    priors = np.empty(spec.max_moves)
    state = game.initial_state()
    for action in actions:
        board, info = spec.root_position(state)
        scratch = territory_scratch(spec.consts)
        territory_begin(board, info, spec.consts, scratch)
        stones = game.decode(action)
        a, b = stones if stones is not None else (game.num_cells, NO_MOVE)
        for stage, choice in ((0, a), (1, b)):
            count = territory_moves(board, info, state.player, stage, spec.consts, scratch,
                                    moves, priors, True)
            if count > 1:
                got.append(priors[:count].copy())
            assert choice in moves[:count]
            info[3] = a
            if a == game.num_cells:
                break
        state = game.play(state, action)
    assert len(got) == len(want) == data.decisions
    for g, w in zip(got, want, strict=True):
        np.testing.assert_allclose(g, w, rtol=1e-5, atol=1e-6)


def test_a_model_gives_the_compiled_tree_its_priors_as_rave_samples(tmp_path):
    game = stonegarden.make("blooms-territory", size=3)
    path = _model(tmp_path, (0.0, 0.0, 0.0))
    engine = new_engine(game, SearchConfig(model=str(path)), 1)
    assert isinstance(engine, CompiledTree) and engine.prior == 30
    state, _ = played(game, ["Ra1"])
    engine.search(state, Budget(sims=2))
    P = engine.pools
    first = int(P.nd_first[engine.root])
    assert (P.ed_rn[first:first + int(P.nd_count[engine.root])] >= 30).all()
