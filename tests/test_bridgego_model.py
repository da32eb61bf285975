"""Bridge Go's learned move model: its features, its choices, and its priors in the protocol
tree in place of the bridge reply's."""

from __future__ import annotations

from pathlib import Path

import numpy as np

import stonegarden
from stonegarden.games.bridgego.features import PATTERNS, TACTICS
from stonegarden.games.bridgego.model import BridgeGoLearner, ModelPriors
from stonegarden.learn.model import save_model
from stonegarden.search.config import SearchConfig
from stonegarden.search.profile import profile_for
from stonegarden.search.protocol_tree import ProtocolTree

from .conftest import played
from .square_go_helpers import board_of


def _state(game, stones: dict[str, int], player: int = 1):
    board = board_of(game, stones)
    text = game.position_text(game.initial_state())
    state = game.parse_position(text)
    return type(state)(board=board.tobytes(), player=player, ply=len(stones))


def _tactics(game, state, points: list[str], last: str | None = None) -> dict[str, tuple]:
    """Each point's tactics decoded: (chains joined, sides, contact, edge, reply)."""
    priors = ModelPriors(game, None)
    index = np.array([game.board.point(p) for p in points], np.int64)
    _, tac = priors.codes(state, index, game.board.point(last) if last else -1)
    out = {}
    for name, t in zip(points, tac, strict=True):
        t = int(t)
        out[name] = (t // 48, (t // 16) % 3, (t // 8) % 2, (t // 2) % 4, t % 2)
    return out


def test_a_stone_joining_chains_on_opposite_sides_is_coded_as_a_win():
    game = stonegarden.make("bridgego", size=5)
    state = _state(game, {"C1": 1, "C2": 1, "C4": 1, "C5": 1, "B3": 2})
    codes = _tactics(game, state, ["C3", "D3", "A4"])
    assert codes["C3"] == (2, 2, 1, 2, 0)  # joins two chains, north and south, beside B3
    assert codes["D3"] == (0, 0, 0, 1, 0)  # alone, no side, one step from the east edge
    assert codes["A4"] == (0, 1, 0, 0, 0)  # on the west side
    white = _tactics(game, _state(game, {"C1": 1, "C2": 1, "C4": 1, "C5": 1, "B3": 2}, 2),
                     ["C3", "A3"])
    assert white["C3"] == (1, 0, 1, 2, 0)  # joins B3, which touches no side; Black all round
    assert white["A3"] == (1, 1, 0, 0, 0)


def test_the_bridge_saving_reply_to_the_last_move_is_flagged():
    game = stonegarden.make("bridgego", size=5)
    # Black B2 and C3 form a bridge; White's C2 intrudes: B3 saves it
    state = _state(game, {"B2": 1, "C3": 1, "C2": 2})
    codes = _tactics(game, state, ["B3", "D4", "B4"], last="C2")
    assert [codes[p][4] for p in ("B3", "D4", "B4")] == [1, 0, 0]
    assert _tactics(game, state, ["B3"])["B3"][4] == 0  # no last move known


def test_choices_are_one_per_move_among_the_legal_points():
    game = stonegarden.make("bridgego", size=5)
    learner = BridgeGoLearner()
    assert learner.num_features == learner.classes + TACTICS
    _, actions = played(game, ["C3", "C4", "D3", "B3"])
    data = learner.choices(game, actions)
    assert data.decisions == 4
    assert list(np.diff(data.starts)) == [25, 24, 23, 22]
    assert data.rows.max() < learner.num_features
    # the chosen rows are the points played: D3 (the third move) joins C3, touches no White
    # stone (C4 is diagonal) and lies one step from the east edge
    third = data.rows[data.chosen[2], 1] - learner.classes
    assert third == ((1 * 3 + 0) * 2 + 0) * 4 * 2 + 1 * 2


def _model(tmp_path: Path, tactic: np.ndarray) -> Path:
    path = tmp_path / "bg.npz"
    save_model(path, {"pattern": np.zeros(PATTERNS, np.float32), "tactic": tactic},
               {"kind": BridgeGoLearner.kind, "prior": 25})
    return path


def test_a_model_gives_the_protocol_tree_its_priors_and_none_keeps_the_bridge_reply(tmp_path):
    game = stonegarden.make("bridgego", size=5)
    tactic = np.zeros(TACTICS, np.float32)
    tactic[(np.arange(TACTICS) // 16) % 3 == 2] = 4.0  # every winning move
    path = _model(tmp_path, tactic)
    state = _state(game, {"C1": 1, "C2": 1, "C4": 1, "C5": 1, "B3": 2})
    actions = np.asarray(game.legal_actions(state))

    tree = ProtocolTree(game, SearchConfig(model=str(path)), seed=1)
    assert tree.prior == 25
    values = tree.prior_values(state, actions, -1)
    assert ((values > 0) & (values < 1)).all()
    assert game.board.names[int(actions[np.argmax(values)])] == "C3"
    assert len(set(np.round(values, 6))) == 2  # the win, and every other move alike

    plain = ProtocolTree(game, SearchConfig(model="none", prior=20), seed=1)
    assert plain.prior_values == profile_for(game).prior_values
    assert set(plain.prior_values(state, actions, -1)) == {0.5}  # no bridge to save
    assert ProtocolTree(game, SearchConfig(model="none"), seed=1).prior_values is None


def test_the_shipped_model_loads_by_default_with_its_metadata_and_none_turns_it_off():
    game = stonegarden.make("bridgego")
    profile = profile_for(game)
    model = profile.model_for(SearchConfig())  # by default: it beat the search without it
    assert model is not None and model.kind == BridgeGoLearner.kind
    assert Path(model.path).stat().st_size < 10_000_000
    meta = model.meta
    assert meta["game"] == "bridgego" and meta["games"] >= 100
    assert meta["fit"]["held_out"]["log_loss"] < meta["fit"]["held_out"]["uniform_log_loss"]
    assert profile.prior_for(SearchConfig()) == model.prior > 0
    assert profile.model_for(SearchConfig(model="none")) is None
    assert profile.prior_for(SearchConfig(model="none")) == 0
