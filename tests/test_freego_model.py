"""Free Go's learned move model: its features, its priors in the compiled tree in place of
the hand-made ones, and where it does not apply (the protocol tree)."""

from __future__ import annotations

import functools
import hashlib
import json
from pathlib import Path

import numpy as np
import pytest

import stonegarden
from stonegarden.agents.registry import make_agent
from stonegarden.errors import ParameterError
from stonegarden.games.blooms.search import TerritoryProfile
from stonegarden.games.freego.features import (
    PATTERNS,
    TACTICS,
    canonical_patterns,
    point_codes,
    ring_table,
)
from stonegarden.games.freego.model import FreeGoLearner, feature_scratch
from stonegarden.games.freego.priors import PRIOR_OF_KIND
from stonegarden.games.freego.tree import freego_moves, freego_scratch
from stonegarden.geometry.edges import edge_distance
from stonegarden.geometry.flood import label_groups
from stonegarden.geometry.square_patterns import OPP, OWN
from stonegarden.lab.selfplay import play_game
from stonegarden.learn.model import load_model, save_model
from stonegarden.learn.train import train
from stonegarden.search.config import SearchConfig
from stonegarden.search.profile import profile_for

from .conftest import played
from .square_go_helpers import board_of, root_visits


def _codes(game, board, player, point):
    nb = game.board.neighbours
    feat = feature_scratch(len(board))
    label_groups(board, nb, feat[0], feat[1], feat[2], feat[3], feat[4])
    return point_codes(board, nb, ring_table(nb), edge_distance(nb), player,
                       game.board.point(point), feat[0], feat[1], feat[2], feat[5])


def test_the_ring_goes_round_the_point_and_a_capture_counts_its_stones():
    game = stonegarden.make("freego", size=5)
    ring = ring_table(game.board.neighbours)
    names = [game.board.names[p] if p >= 0 else None for p in ring[game.board.point("B2")]]
    assert names == ["B3", "C3", "C2", "C1", "B1", "A1", "A2", "A3"]
    # White A1, B1 with one liberty left, C1 (A2, B2 Black)
    board = board_of(game, {"A1": 2, "B1": 2, "A2": 1, "B2": 1})
    pattern, tactics = _codes(game, board, 1, "C1")
    assert tactics // 64 == 2  # two stones
    # N, NE, E, SE, S, SW, W, NW of C1: C2, D2, D1, off, off, off, B1 (White), B2 (Black)
    digits = [(pattern >> (2 * (7 - j))) & 3 for j in range(8)]
    assert digits == [0, 0, 0, 3, 3, 3, OPP, OWN]
    _, tactics = _codes(game, board, 2, "C1")  # White extends its chain in atari
    assert (tactics // 4) % 2 == 1


def test_patterns_share_a_class_under_the_square_symmetries_only():
    index = canonical_patterns()
    weights = 4 ** np.arange(7, -1, -1)
    rng = np.random.default_rng(2)
    for _ in range(200):
        d = rng.integers(0, 4, 8)
        mirrored = d[[0, 7, 6, 5, 4, 3, 2, 1]]  # east and west swapped
        assert index[d @ weights] == index[np.roll(d, 2) @ weights] == index[mirrored @ weights]
    own = np.array([OWN, 0, 0, 0, 0, 0, 0, 0]) @ weights
    opp = np.array([OPP, 0, 0, 0, 0, 0, 0, 0]) @ weights
    corner = np.array([0, OWN, 0, 0, 0, 0, 0, 0]) @ weights
    assert len({index[own], index[opp], index[corner]}) == 3
    assert PATTERNS / 8 <= index.max() + 1 < PATTERNS / 6


def _moves(game, config, board, player=1):
    spec = profile_for(game).tree(config)
    moves = np.empty(spec.max_moves, np.int32)
    priors = np.empty(spec.max_moves)
    info = np.array([0, 0, 0, 0], np.int64)
    k = freego_moves(board, info, player, 0, spec.consts, freego_scratch(spec.consts), moves,
                     priors, True)
    return moves[:k], priors[:k]


def test_a_model_replaces_the_hand_made_priors_and_none_keeps_them(tmp_path: Path):
    game = stonegarden.make("freego", size=5)
    tactic = np.zeros(TACTICS, np.float32)
    tactic[64:] = 3.0  # every capture
    path = tmp_path / "fg.npz"
    save_model(path, {"pattern": np.zeros(PATTERNS, np.float32), "tactic": tactic},
               {"kind": FreeGoLearner.kind, "prior": 25})
    board = board_of(game, {"A1": 2, "B1": 2, "A2": 1, "B2": 1})
    moves, priors = _moves(game, SearchConfig(model="none"), board)
    assert set(np.round(priors, 6)) <= set(PRIOR_OF_KIND)
    moves, priors = _moves(game, SearchConfig(model=str(path)), board)
    best = int(moves[np.argmax(priors)])
    assert game.board.names[best] == "C1"
    assert ((priors > 0) & (priors < 1)).all() and len(set(np.round(priors, 6))) == 2
    profile = profile_for(game)
    assert profile.prior_for(SearchConfig(model=str(path))) == 25
    # the protocol tree (superko, or tt) keeps the hand-made priors and their count
    assert profile.prior_for(SearchConfig(model=str(path), tt=True)) == 20
    assert profile.prior_for(SearchConfig(model=str(path), fast=False)) == 20
    assert profile.prior_for(SearchConfig(model="none")) == 20


def test_choices_are_one_per_move_among_the_legal_points():
    game = stonegarden.make("freego", size=5)
    learner = FreeGoLearner()
    _, actions = played(game, ["C3", "C4", "D3", "B3"])
    data = learner.choices(game, actions)
    assert data.decisions == 4
    assert list(np.diff(data.starts)) == [25, 24, 23, 22]
    assert data.rows.max() < learner.num_features


def test_self_play_keeps_each_moves_root_visits_when_asked():
    task = {"game": "freego", "params": {"size": 5}, "seats": {"1": "mcts:sims=40",
                                                                "2": "mcts:sims=40"},
            "seed": 3, "index": 0}
    plain, kept = play_game(task), play_game({**task, "visits": True})
    assert "visits" not in plain and kept["moves"] == plain["moves"]  # keeping changes no move
    assert len(kept["visits"]) == len(kept["moves"])
    for move, visits in zip(kept["moves"], kept["visits"], strict=True):
        # the move played was searched and each move kept was visited (a search that proves
        # a win stops early; one that keeps the last move's tree starts with its visits)
        assert move in visits and min(visits.values()) > 0
    assert sum(kept["visits"][0].values()) == 40  # a fresh tree: this search's simulations


def test_visits_become_each_legal_points_share_as_the_target():
    game = stonegarden.make("freego", size=5)
    learner = FreeGoLearner()
    _, actions = played(game, ["C3", "C4"])
    start = game.initial_state()
    c3, d4 = game.parse_action(start, "C3"), game.parse_action(start, "D4")
    data = learner.choices(game, actions, [{c3: 3, d4: 1}, {actions[1]: 5}])
    assert data.target is not None and data.decisions == 2
    first = dict(zip(game.legal_actions(start), data.target[:25], strict=True))
    assert first[c3] == 0.75 and first[d4] == 0.25 and sum(first.values()) == 1.0
    second = data.target[25:]
    assert second[data.chosen[1] - 25] == 1.0 and second.sum() == 1.0
    assert learner.choices(game, actions).target is None
    unvisited = learner.choices(game, actions, [{}, {actions[1]: 5}])  # kept no visits
    assert unvisited.target is not None and unvisited.target[unvisited.chosen[0]] == 1.0


def test_training_on_visits_keeps_them_with_the_games_and_says_so(tmp_path: Path):
    meta = train("freego", {"size": 5}, games=2, sims=20, steps=5, out=tmp_path,
                 targets="visits", progress=False, report=lambda line: None)
    assert meta["targets"] == "visits" and meta["command"].endswith("--targets visits")
    # the command makes this model again: the fit's steps and prior are in it when not default
    assert " --steps 5 " in meta["command"] and "--prior" not in meta["command"]
    records = [json.loads(line) for line in
               (tmp_path / "data" / "games-0000.jsonl").read_text().splitlines()]
    assert [len(r["visits"]) for r in records] == [len(r["moves"]) for r in records]
    assert load_model(tmp_path / "freego.npz").meta["targets"] == "visits"


def test_a_teacher_model_guides_the_self_play_and_its_data_are_kept_apart(tmp_path: Path):
    quiet = {"progress": False, "report": lambda line: None}
    plain = train("freego", {"size": 5}, games=2, sims=20, steps=5, out=tmp_path / "plain",
                  **quiet)
    taught = train("freego", {"size": 5}, games=2, sims=20, steps=5, out=tmp_path / "taught",
                   teacher="shipped", **quiet)
    shipped = profile_for(stonegarden.make("freego")).shipped_model_path()
    digest = hashlib.sha256(Path(shipped).read_bytes()).hexdigest()
    assert plain["teacher"] is None and plain["self_play"] == "mcts:sims=20,model=none"
    meta = json.loads(Path(shipped).with_suffix(".json").read_text())  # what the search reads
    assert taught["teacher"] == {"model": "shipped", "sha256": digest,
                                 "prior": meta.get("prior", 30), "scale": meta.get("scale", 1.0)}
    assert taught["self_play"] == "mcts:sims=20,model=shipped"
    assert taught["command"].endswith("--teacher shipped")

    def moves(folder: str) -> list[list[str]]:
        lines = (tmp_path / folder / "data" / "games-0000.jsonl").read_text().splitlines()
        return [json.loads(line)["moves"] for line in lines]

    assert moves("plain") != moves("taught")  # the same seeds, searched with other priors
    with pytest.raises(ParameterError, match="another --out"):  # games of another teacher
        train("freego", {"size": 5}, games=2, sims=20, out=tmp_path / "taught", **quiet)
    with pytest.raises(ParameterError, match="another --out"):  # games without a teacher
        train("freego", {"size": 5}, games=2, sims=20, out=tmp_path / "plain",
              teacher=str(tmp_path / "taught" / "freego.npz"), **quiet)


def test_a_teacher_must_be_a_model_of_the_game(tmp_path: Path, monkeypatch):
    quiet = {"progress": False, "report": lambda line: None}
    blooms = profile_for(stonegarden.make("blooms")).shipped_model_path()
    with pytest.raises(ParameterError, match="not the 'freego-patterns' model"):
        train("freego", {"size": 5}, games=2, sims=5, out=tmp_path, teacher=blooms, **quiet)
    # every game ships a model: a game without one is one whose profile names no file
    monkeypatch.setattr(TerritoryProfile, "shipped_model", None)
    with pytest.raises(ParameterError, match="ships no learned model"):
        train("blooms-territory", {"size": 3}, games=2, sims=5, out=tmp_path,
              teacher="shipped", **quiet)
    with pytest.raises(ParameterError, match="no model file"):
        train("freego", {"size": 5}, games=2, sims=5, out=tmp_path,
              teacher=str(tmp_path / "nowhere.npz"), **quiet)
    assert not any(tmp_path.iterdir())  # refused before any game was played


def test_the_shipped_free_go_model_loads_by_default_and_in_level_six_only():
    game = stonegarden.make("freego")
    model = profile_for(game).model_for(SearchConfig())  # by default: it beat the hand-made
    assert model is not None and model.path == profile_for(game).model_for(
        SearchConfig(model="shipped")).path
    assert profile_for(game).model_for(SearchConfig(model="none")) is None
    for level in range(1, 6):  # calibrated without a model
        assert profile_for(game).model_for(make_agent(f"level:{level}").config_for(game)) is None
    # level 6 was measured with it on every core against the old level 6
    assert profile_for(game).model_for(make_agent("level:6").config_for(game)) is not None
    assert model is not None and model.kind == FreeGoLearner.kind
    assert model.meta["game"] == "freego" and model.meta["games"] >= 100
    held = model.meta["fit"]["held_out"]
    assert held["log_loss"] < held["uniform_log_loss"]
    assert profile_for(game).prior_for(SearchConfig(model="shipped")) == model.prior


def test_the_models_patterns_reach_the_playouts_only_when_asked():
    """``patterns=K`` changes the search with a model (its playouts read the pattern
    weights), ``patterns=0`` is the default search seed for seed, and where no playout could
    read the weights the option is refused with a typed error, never ignored."""
    from stonegarden.search.config import Budget

    game = stonegarden.make("freego", size=5, target=6)
    visits = functools.partial(root_visits, game=game, state=game.replay(["c3", "b2"])[-1])

    assert visits("mcts:seed=4,model=shipped") == visits("mcts:seed=4,model=shipped,patterns=0")
    assert visits("mcts:seed=4,model=shipped") != visits("mcts:seed=4,model=shipped,patterns=8")
    for spec in ("mcts:seed=4,model=none,patterns=8", "mcts:seed=4,patterns=8,tt=on",
                 "mcts:seed=4,patterns=8,fast=off"):
        with pytest.raises(ParameterError, match="patterns"):
            visits(spec)
    # where the default cannot apply it is dropped: the levels search without a model
    assert visits("mcts:seed=4,model=none") == visits("mcts:seed=4,model=none,patterns=0")
    assert visits("mcts:seed=4,tt=on") and visits("level:2,seed=4")
    superko = stonegarden.make("freego", size=5, target=6, ko="superko")
    with pytest.raises(ParameterError, match="patterns"):
        make_agent("mcts:seed=4,patterns=8").analyse(superko, superko.initial_state(),
                                                     Budget(sims=50))
    with pytest.raises(ParameterError):
        make_agent("mcts:patterns=65")
