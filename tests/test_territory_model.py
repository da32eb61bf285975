"""The territory rules' learned move model: its decisions over the legal turns, its priors for
whole turns in the protocol tree, and priors as virtual visits in a search without RAVE."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

import stonegarden
from stonegarden.errors import ParameterError
from stonegarden.games.blooms.features import PATTERNS, TACTICS
from stonegarden.games.blooms.territory_model import PASS, TerritoryLearner, TurnPriors
from stonegarden.learn.model import load_model, save_model
from stonegarden.search.config import Budget, SearchConfig
from stonegarden.search.profile import profile_for
from stonegarden.search.protocol_tree import ProtocolTree

from .conftest import played


def test_choices_follow_the_legal_turns_and_the_pass_has_its_own_weight():
    game = stonegarden.make("blooms-territory", size=3)
    learner = TerritoryLearner()
    assert learner.num_features == 2 * learner.classes + 2 * TACTICS + 3
    _, actions = played(game, ["Ra1", "Ka2,Ga3", "Yb2", "pass"])
    data = learner.choices(game, actions)
    sizes = list(np.diff(data.starts))
    # the first turn is one stone of either colour: 19 cells for the first colour and "none";
    # after none, 19 cells for the second colour (no pass yet); a stone alone ends the turn
    assert sizes[0] == 20
    # White: first colour on any of the 18 empty cells or none, then (after Ka2) the second
    # colour on the 17 others or none
    assert sizes[1:3] == [19, 18]
    base = 2 * learner.classes + 2 * TACTICS
    # the pass: "none" at both stages, the second one the pass's own weight
    last_first, last_second = data.chosen[-2], data.chosen[-1]
    assert data.rows[last_first, 0] == base + 0
    assert data.rows[last_second, 0] == base + PASS
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
    tree = ProtocolTree(game, SearchConfig(model=str(path)), seed=3)
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


def test_shipped_is_refused_where_no_model_is_shipped_and_the_default_is_none():
    game = stonegarden.make("blooms-territory")
    profile = profile_for(game)
    assert profile.model_for(SearchConfig()) is None
    with pytest.raises(ParameterError, match="ships no learned model"):
        profile.model_for(SearchConfig(model="shipped"))
    with pytest.raises(ParameterError, match="ships no learned model"):
        ProtocolTree(game, SearchConfig(model="shipped"), seed=1)
