"""Free Go's learned value: its codes, its fit beside the move model, and its share of the
compiled tree's leaf results (``mcts:value``)."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

import stonegarden
from stonegarden.errors import ParameterError
from stonegarden.games.freego.features import PATTERNS, TACTICS
from stonegarden.games.freego.model import FreeGoLearner, model_tables
from stonegarden.games.freego.value import (
    CODES,
    FAMILIES,
    VALUE_FEATURES,
    mover_value,
    value_codes,
    value_scratch,
)
from stonegarden.learn.learner import value_choices
from stonegarden.learn.model import load_model, save_model
from stonegarden.search.config import Budget, SearchConfig
from stonegarden.search.engines import make_engine

from .conftest import played, run_cli
from .square_go_helpers import board_of

#: where each family's codes start
BASE = np.concatenate([[0], np.cumsum(FAMILIES)])
GAPS, OWN_ATARI, OPP_ATARI, OWN_TWO, OPP_TWO, WIN_NOW, THREAT, EMPTIES, SIDE = range(CODES)


def _codes(game, board, player, own, opp) -> list[int]:
    """Each family's code (its index less the family's start)."""
    out = np.empty(CODES, np.int64)
    value_codes(board, game.board.neighbours, player, own, opp, game.params["target"],
                value_scratch(len(board)), out)
    return [int(out[k] - BASE[k]) for k in range(CODES)]


def test_a_chain_in_atari_that_reaches_the_target_is_a_win_now_for_the_mover():
    game = stonegarden.make("freego")  # 9x9, target 10
    # White A2, A3 in atari (A4 their liberty), Black A1, B2, B3 round them
    board = board_of(game, {"A2": 2, "A3": 2, "A1": 1, "B2": 1, "B3": 1})
    codes = _codes(game, board, 1, 8, 3)  # Black needs 2, White 7
    assert codes[GAPS] == (2 - 1) * 10 + (7 - 1)
    assert codes[OPP_ATARI] == 2 and codes[OWN_ATARI] == 1  # Black A1: B1 its liberty
    assert codes[WIN_NOW] == 1 and codes[THREAT] == 0
    assert codes[EMPTIES] == 7 and codes[SIDE] == 0  # 76 empty points; Black to move
    codes = _codes(game, board, 1, 7, 3)  # Black needs 3: the two stones are not enough
    assert codes[WIN_NOW] == 0
    # White to move needing 1 wins by taking A1; Black needs 2, which A2, A3 would give
    codes = _codes(game, board, 2, 9, 8)
    assert codes[OWN_ATARI] == 2 and codes[OPP_ATARI] == 1 and codes[SIDE] == 1
    assert codes[WIN_NOW] == 1 and codes[THREAT] == 1
    assert _codes(game, board, 2, 9, 7)[THREAT] == 0  # Black needs 3


def test_the_opponents_suicide_awaiting_removal_counts_for_the_mover():
    game = stonegarden.make("freego", size=5)  # target 3
    # White A1 without a liberty (its own suicide), Black A2 and B1 round it
    board = board_of(game, {"A1": 2, "A2": 1, "B1": 1})
    assert _codes(game, board, 1, 0, 0)[GAPS] == (2 - 1) * 10 + (3 - 1)
    assert _codes(game, board, 2, 0, 0)[GAPS] == (3 - 1) * 10 + (3 - 1)  # not White's own
    # two-liberty chains count in pairs of stones: Black A2 (A3, B2) and B1 (B2, C1)
    assert _codes(game, board, 1, 0, 0)[OWN_TWO] == 1


def test_the_value_is_the_logistic_of_its_codes_weights():
    game = stonegarden.make("freego")
    board = board_of(game, {"E5": 1, "D5": 2, "E4": 2})
    weights = np.random.default_rng(3).normal(size=VALUE_FEATURES)
    buf = value_scratch(len(board))
    scores = np.array([2, 5], np.int64)
    out = np.empty(CODES, np.int64)
    for player in (1, 2):
        value_codes(board, game.board.neighbours, player, scores[player - 1],
                    scores[2 - player], 10, buf, out)
        expected = 1 / (1 + np.exp(-weights[out].sum()))
        got = mover_value(board, game.board.neighbours, player, scores, 10, weights, buf)
        assert got == pytest.approx(expected, abs=1e-12)


def test_each_position_is_a_choice_between_the_mover_winning_and_not():
    game = stonegarden.make("freego", size=5)
    learner = FreeGoLearner()
    _, actions = played(game, ["C3", "C4", "D3", "B3", "D4"])
    rows, movers = learner.value_rows(game, actions)
    assert rows.shape == (5, CODES) and list(movers) == [1, 2, 1, 2, 1]
    assert rows.max() < VALUE_FEATURES
    data = value_choices(rows, movers, 2, VALUE_FEATURES)
    assert list(data.starts) == [0, 2, 4, 6, 8, 10]
    # White won: a Black position chose "not" (its second row), a White one "wins" (its first)
    assert list(data.chosen) == [1, 2, 5, 6, 9]
    assert (data.rows[1::2] == VALUE_FEATURES).all()  # "not": the padding alone


def _model(tmp_path: Path, value: np.ndarray | None) -> str:
    arrays = {"pattern": np.zeros(PATTERNS, np.float32), "tactic": np.zeros(TACTICS, np.float32)}
    if value is not None:
        arrays["value"] = value.astype(np.float32)
    name = "plain.npz" if value is None else "valued.npz"
    save_model(tmp_path / name, arrays, {"kind": FreeGoLearner.kind})
    return str(tmp_path / name)


def _root_edges(game, state, model: str, value: int) -> tuple[np.ndarray, np.ndarray]:
    config = SearchConfig(model=model).with_game_options({"value": value})
    engine = make_engine(game, config, 7)
    engine.search(state, Budget(sims=1500))
    P = engine.pools
    edges = [e for e in P.edge_range(engine.root) if P.ed_move[e] >= 0]
    return P.ed_n[edges].copy(), P.ed_w[edges].copy()


def test_a_leafs_result_takes_the_values_share(tmp_path: Path):
    """A value sure that Black wins whoever is to move: at ``value=100`` every playout's
    result gives way to it, at 0 the search is the one without a value, move for move."""
    game = stonegarden.make("freego", size=7)
    state, _ = played(game, ["D4", "C4"])
    sure = np.zeros(VALUE_FEATURES)
    sure[BASE[SIDE]] = 12.0  # Black to move: Black wins
    sure[BASE[SIDE] + 1] = -12.0  # White to move: White loses
    valued, plain = _model(tmp_path, sure), _model(tmp_path, None)
    n0, w0 = _root_edges(game, state, plain, 50)
    n1, w1 = _root_edges(game, state, valued, 0)
    assert np.array_equal(n0, n1) and np.array_equal(w0, w1)
    n, w = _root_edges(game, state, valued, 100)
    assert w.sum() / n.sum() > 0.999  # Black to move at the root: every result is Black's win
    assert w0.sum() / n0.sum() < 0.9
    n, w = _root_edges(game, state, valued, 50)
    mixed = w.sum() / n.sum()
    assert 0.5 < mixed < 0.999


def test_a_model_without_a_value_table_still_loads_and_a_bad_one_is_refused(tmp_path: Path):
    tables = model_tables(load_model(_model(tmp_path, None)))
    assert tables[3].shape == (0,)
    tables = model_tables(load_model(_model(tmp_path, np.ones(VALUE_FEATURES))))
    assert tables[3].shape == (VALUE_FEATURES,)
    bad = tmp_path / "bad.npz"
    save_model(bad, {"pattern": np.zeros(PATTERNS, np.float32),
                     "tactic": np.zeros(TACTICS, np.float32),
                     "value": np.zeros(VALUE_FEATURES - 1, np.float32)},
               {"kind": FreeGoLearner.kind})
    with pytest.raises(ParameterError, match="value"):
        model_tables(load_model(bad))


def test_train_fits_the_value_beside_the_move_model_and_the_search_reads_it(tmp_path: Path):
    out = tmp_path / "run"
    done = run_cli("train", "freego", "--param", "size=5", "--games", "4", "--sims", "30",
                   "--steps", "20", "--out", str(out), "--quiet")
    assert done.returncode == 0, done.stderr
    meta = json.loads(done.stdout)
    assert meta["value"]["weights"] == VALUE_FEATURES
    assert meta["value"]["positions"] == meta["positions"]
    assert meta["value"]["train"]["log_loss"] < meta["value"]["train"]["uniform_log_loss"]
    model = load_model(out / "freego.npz")
    assert model.arrays["value"].shape == (VALUE_FEATURES,)
    assert np.abs(model.arrays["value"]).max() > 0
    played = run_cli("match", "freego", f"mcts:model={out / 'freego.npz'},value=50,sims=30",
                     "mcts:model=none,sims=30", "--param", "size=5", "--games", "2", "--json",
                     "--quiet")
    assert played.returncode == 0, played.stderr
    bad = run_cli("match", "freego", "mcts:value=101,sims=30", "random", "--param", "size=5",
                  "--games", "1")
    assert bad.returncode == 2 and "value" in bad.stderr and "Traceback" not in bad.stderr
