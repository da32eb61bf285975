"""The learned move model: its features, the fit, the model files, the ``model`` option, the
priors it gives the capture race's tree, and ``stonegarden train`` end to end."""

from __future__ import annotations

import json
import os
import re
import shlex
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

import numpy as np
import pytest

import stonegarden
from stonegarden.agents import make_agent
from stonegarden.agents.registry import agent_for
from stonegarden.errors import ParameterError
from stonegarden.games.blooms.features import (
    OPP_FIRST,
    OPP_SECOND,
    OWN_OTHER,
    PATTERNS,
    SAME,
    TACTICS,
    canonical_patterns,
    stone_codes,
)
from stonegarden.games.blooms.model import RaceLearner, feature_scratch
from stonegarden.games.blooms.tree import race_moves, race_scratch
from stonegarden.geometry.edges import edge_distance
from stonegarden.geometry.flood import label_groups
from stonegarden.learn.fit import evaluate, fit_choices
from stonegarden.learn.learner import Choices
from stonegarden.learn.model import load_model, save_model
from stonegarden.learn.train import read_games, self_play, train
from stonegarden.search.config import Budget, SearchConfig
from stonegarden.search.engines import make_engine
from stonegarden.search.profile import profile_for
from stonegarden.search.tree_kernels import NO_MOVE

from .conftest import cli_env, played, refused_as_in_use, run_cli

KIND = RaceLearner.kind


def _board(game, stones: dict[str, int]) -> np.ndarray:
    board = np.zeros(game.num_cells, np.int8)
    for name, colour in stones.items():
        board[game.board.cell(name)] = colour
    return board


def _codes(game, board, player, stage, cell):
    n = game.num_cells
    nb = game.board.neighbours
    feat = feature_scratch(n)
    label_groups(board, nb, feat[0], feat[1], feat[2], feat[3], feat[4])
    return stone_codes(board, nb, edge_distance(nb), player, stage, game.board.cell(cell),
                       feat[0], feat[1], feat[2], feat[5])


def _tactics(t):
    """(captured bucket, liberties bucket, atari, save, edge distance) of a tactics code."""
    return (t // 64, (t // 16) % 4, (t // 8) % 2, (t // 4) % 2, t % 4)


# -- features ---------------------------------------------------------------------------------
def test_filling_the_last_liberty_of_an_enemy_bloom_counts_its_stones():
    game = stonegarden.make("blooms", size=3)
    # K on a1 and a2 (one bloom); R round them but for b3, their last liberty
    board = _board(game, {"a1": 3, "a2": 3, "a3": 1, "b1": 1, "b2": 1})
    _, t = _codes(game, board, 1, 0, "b3")
    assert _tactics(t)[0] == 2  # 2-3 stones
    _, t = _codes(game, board, 1, 0, "c1")  # not a liberty of that bloom
    assert _tactics(t)[0] == 0


def test_a_stone_that_fences_itself_has_no_liberty_and_one_that_extends_a_bloom_in_atari_saves():
    game = stonegarden.make("blooms", size=3)
    # a1 is surrounded by K on a2, b1, b2: R there fences itself
    board = _board(game, {"a2": 3, "b1": 4, "b2": 3})
    _, t = _codes(game, board, 1, 0, "a1")
    assert _tactics(t)[1] == 0 and _tactics(t)[4] == 0
    # R on a1 with one liberty (a2, b1 filled by K, b2 empty): R on b2 extends it
    board = _board(game, {"a1": 1, "a2": 3, "b1": 3})
    _, t = _codes(game, board, 1, 0, "b2")
    assert _tactics(t)[3] == 1
    # the other colour (Y) does not join R's bloom, so does not save it
    _, t = _codes(game, board, 1, 1, "b2")
    assert _tactics(t)[3] == 0


def test_patterns_share_a_class_under_rotation_reflection_and_enemy_colour_swap_only():
    index = canonical_patterns()
    assert index.shape == (PATTERNS,)
    weights = 6 ** np.arange(5, -1, -1)
    rng = np.random.default_rng(3)
    for _ in range(200):
        d = rng.integers(0, 6, 6)
        code = d @ weights
        rotated = np.roll(d, 2) @ weights
        reflected = d[::-1] @ weights
        swapped = np.where(d == OPP_FIRST, OPP_SECOND, np.where(d == OPP_SECOND, OPP_FIRST, d))
        assert index[code] == index[rotated] == index[reflected] == index[swapped @ weights]
    same = np.array([SAME, 0, 0, 0, 0, 0]) @ weights
    other = np.array([OWN_OTHER, 0, 0, 0, 0, 0]) @ weights
    assert index[same] != index[other]
    # orbits of 12 x 2 symmetries: at least PATTERNS / 24 classes, well under PATTERNS
    assert PATTERNS / 24 <= index.max() + 1 < PATTERNS / 10


# -- the fit ----------------------------------------------------------------------------------
def test_the_fit_learns_which_feature_is_chosen_and_beats_the_uniform_choice():
    rng = np.random.default_rng(0)
    b = Choices.builder()
    for _ in range(300):  # 5 candidates, features 0..4 in random order; 3 is chosen 80%
        feats = rng.permutation(5)
        rows = np.stack([feats, np.full(5, 5)], axis=1)  # 5 pads
        pick = int(np.flatnonzero(feats == 3)[0]) if rng.random() < 0.8 else int(rng.integers(5))
        b.add(rows, pick)
    data = b.build()
    w = fit_choices(data, 5, steps=300)
    assert int(np.argmax(w[:5])) == 3 and w[5] == 0.0
    report = evaluate(w, data)
    assert report.log_loss < report.uniform_log_loss - 0.5
    assert report.accuracy > 0.75


def test_a_choice_tied_first_with_others_counts_its_share_of_the_accuracy():
    b = Choices.builder()
    b.add(np.array([[0], [0], [1], [2]]), 1)  # tied first with row 0: half a hit
    b.add(np.array([[0], [1]]), 0)  # first alone: a hit
    b.add(np.array([[0], [1], [1]]), 1)  # rated below row 0: a miss
    data = b.build()
    assert evaluate(np.array([1.0, 0.0, -1.0, 0.0]), data).accuracy == pytest.approx(0.5)
    # the model that knows nothing has the uniform choice's accuracy, not every choice right
    assert evaluate(np.zeros(4), data).accuracy == pytest.approx((1 / 4 + 1 / 2 + 1 / 3) / 3)


def test_the_fit_matches_soft_targets_where_one_hot_choices_would_sharpen_them():
    rng = np.random.default_rng(1)
    share = {0: 0.7, 1: 0.3, 2: 0.0}  # a teacher that splits its visits between two moves
    soft, hard = Choices.builder(), Choices.builder()
    for _ in range(200):
        feats = rng.permutation(3)
        rows = np.stack([feats, np.full(3, 3)], axis=1)
        target = np.array([share[int(f)] for f in feats])
        soft.add(rows, int(np.argmax(target)), target * 10)  # normalised by the builder
        hard.add(rows, int(np.argmax(target)))
    data = soft.build()
    assert data.target is not None and np.allclose(np.add.reduceat(data.target,
                                                                   data.starts[:-1]), 1.0)

    def shares(w):
        e = np.exp(w[:3] - w[:3].max())
        return e / e.sum()

    fitted = shares(fit_choices(data, 3, steps=400, l2=1e-6))
    assert abs(fitted[0] - 0.7) < 0.02 and abs(fitted[1] - 0.3) < 0.02 and fitted[2] < 0.02
    assert shares(fit_choices(hard.build(), 3, steps=400, l2=1e-6))[0] > 0.9


def test_a_soft_target_is_given_to_every_decision_or_none_and_is_never_all_zero():
    rows = np.array([[0, 2], [1, 2]])
    with pytest.raises(ValueError, match="not all 0"):
        Choices.builder().add(rows, 0, np.zeros(2))
    with pytest.raises(ValueError, match="per candidate"):
        Choices.builder().add(rows, 0, np.ones(3))
    mixed = Choices.builder()
    mixed.add(rows, 0, np.ones(2))
    mixed.add(rows, 1)
    with pytest.raises(ValueError, match="some decisions"):
        mixed.build()
    parts = [Choices.builder(), Choices.builder(), Choices.builder()]
    parts[0].add(rows, 0, np.array([3.0, 1.0]))
    parts[1].add(rows, 1)
    parts[2].add(rows[:1], 0, np.ones(1))  # one candidate: no decision, and no target
    soft = Choices.concat([parts[2].build(), parts[0].build()], 2)  # width from the first used
    assert soft.decisions == 1 and list(soft.target) == [0.75, 0.25]
    with pytest.raises(ValueError, match="some decisions"):
        Choices.concat([p.build() for p in parts], 2)


# -- model files and the option ---------------------------------------------------------------
def _model(tmp_path: Path, tactic: np.ndarray | None = None, kind: str = KIND,
           name: str = "m.npz") -> Path:
    path = tmp_path / name
    save_model(path, {"pattern": np.zeros((2, PATTERNS), np.float32),
                      "tactic": np.zeros((2, TACTICS), np.float32) if tactic is None else tactic,
                      "none": np.zeros(2, np.float32)}, {"kind": kind, "prior": 40})
    return path


def test_the_shipped_model_loads_by_default_with_its_training_metadata():
    game = stonegarden.make("blooms", size=5)
    profile = profile_for(game)
    model = profile.model_for(SearchConfig())
    assert model is not None and model.kind == KIND
    assert Path(model.path).stat().st_size < 10_000_000
    meta = model.meta
    for key in ("game", "params", "games", "positions", "sims", "seed", "seconds", "code",
                "versions", "command", "fit"):
        assert key in meta, key
    assert meta["game"] == "blooms" and meta["games"] >= 100
    assert meta["fit"]["held_out"]["log_loss"] < meta["fit"]["held_out"]["uniform_log_loss"]
    assert profile.prior_for(SearchConfig()) == model.prior > 0
    assert profile.model_for(SearchConfig(model="none")) is None
    assert profile.prior_for(SearchConfig(model="none")) == 0


@pytest.mark.parametrize("game_id", stonegarden.available_games())
def test_every_shipped_model_is_its_games_small_and_says_how_it_was_made(game_id):
    game = stonegarden.make(game_id)
    profile = profile_for(game)
    learner = profile.learner()
    model = load_model(profile.shipped_model_path())
    meta = model.meta
    assert Path(model.path).stat().st_size < 10_000_000
    assert model.kind == learner.kind and meta["game"] == game_id
    assert meta["fit"]["weights"] == learner.num_features and meta["fit"]["steps"] == 400
    assert meta["command"].startswith(f"stonegarden train {game_id} --")
    assert f"--games {meta['games']} --sims {meta['sims']} " in meta["command"]
    assert meta["self_play"] == f"mcts:sims={meta['sims']},model=none"
    held = meta["fit"]["held_out"]
    assert meta["held_out_games"] == meta["games"] // 10 and held["log_loss"] < held[
        "uniform_log_loss"]
    assert {"python", "numpy", "numba"} <= set(meta["versions"]) and meta["code"]


def test_the_shipped_model_rates_a_capture_high_and_fencing_oneself_low():
    game = stonegarden.make("blooms", size=5)
    board = game.initial_state().cells().copy()
    # a K bloom of three on the edge whose last liberty is b3, R round it; K round the corner
    # i5, where R would fence itself without capturing
    for name, colour in {"a1": 3, "a2": 3, "a3": 3, "a4": 1, "b1": 1, "b2": 1, "b4": 1,
                         "c3": 2, "i4": 3, "h5": 4, "h6": 3, "e5": 4}.items():
        board[game.board.cell(name)] = colour
    spec = profile_for(game).tree(SearchConfig())
    moves = np.empty(spec.max_moves, np.int32)
    priors = np.empty(spec.max_moves)
    info = np.array([0, 0, 0, -1], np.int64)
    k = race_moves(board, info, 1, 0, spec.consts, race_scratch(spec.consts), moves, priors, True)
    assert k == int((board == 0).sum()) + 1
    assert ((priors[:k] > 0) & (priors[:k] < 1)).all()
    rank = {int(moves[j]): r for r, j in enumerate(np.argsort(-priors[:k]))}
    assert rank[game.board.cell("b3")] < 3
    assert rank[game.board.cell("i5")] >= 3 * k // 4
    # in the tables: fencing oneself without a capture is worse than a quiet stone with three
    # liberties, at either stage and any distance from the edge
    tactic = spec.consts[6]
    for stage in (0, 1):
        for dist in range(4):
            assert tactic[stage, dist] < tactic[stage, 3 * 16 + dist]


@pytest.mark.parametrize("stage", [0, 1])
def test_without_a_model_the_tree_gives_no_priors(stage):
    game = stonegarden.make("blooms", size=4)
    spec = profile_for(game).tree(SearchConfig(model="none"))
    board = game.initial_state().cells().copy()
    board[0] = 1
    moves = np.empty(spec.max_moves, np.int32)
    priors = np.full(spec.max_moves, 7.0)
    info = np.array([0, 0, 0, 0 if stage else -1], np.int64)
    k = race_moves(board, info, 1, stage, spec.consts, race_scratch(spec.consts), moves, priors,
                   True)
    assert k > 1 and moves[k - 1] == NO_MOVE
    assert (priors[:k] == -1.0).all()


def test_the_priors_steer_the_search(tmp_path):
    """A model that likes only the centre (distance 3+ from the edge: 7 cells of n=5) makes
    the search spend its first simulations there; without it they spread over the board."""
    tactic = np.zeros((2, TACTICS), np.float32)
    tactic[:, 3::4] = 6.0  # every tactics code whose edge distance is 3+
    path = _model(tmp_path, tactic)
    game = stonegarden.make("blooms", size=5)
    state = game.play_text(game.initial_state(), "Ra1")
    centre = {c for c, d in enumerate(edge_distance(game.board.neighbours)) if d >= 3}
    assert len(centre) == 7

    def top_first_stones(model: str) -> list[int]:
        engine = make_engine(game, SearchConfig(model=model), 5)
        engine.search(state, Budget(sims=300))
        P = engine.pools
        edges = [e for e in P.edge_range(engine.root) if P.ed_move[e] >= 0]
        edges.sort(key=lambda e: -int(P.ed_n[e]))
        return [int(P.ed_move[e]) for e in edges[:5]]

    assert set(top_first_stones(str(path))) <= centre
    assert not set(top_first_stones("none")) <= centre


def test_the_model_option_takes_none_or_a_model_file(tmp_path):
    game = stonegarden.make("blooms", size=3)
    make_agent("mcts:model=none,sims=10").choose(game, game.initial_state())
    path = _model(tmp_path)
    make_agent(f"mcts:model={path},sims=10").choose(game, game.initial_state())
    with pytest.raises(ParameterError, match="model"):
        make_agent(f"mcts:model={tmp_path / 'missing.npz'}")
    commas = tmp_path / "a,b"  # the spec's ',' cuts the path: it says so
    commas.mkdir()
    shutil.copy(path, commas / "m.npz")
    shutil.copy(path.with_suffix(".json"), commas / "m.json")
    with pytest.raises(ParameterError, match=re.escape(
            f"no model file {str(tmp_path / 'a')!r}; a ',' ends an option, so a model file's "
            "path cannot hold one")):
        make_agent(f"mcts:model={commas / 'm.npz'},sims=10")
    with pytest.raises(ParameterError, match="must be none, shipped or a model file: it is emp"):
        make_agent("mcts:model=,sims=10")
    with pytest.raises(ParameterError, match=r"is a folder: name the model's \.npz file in it"):
        make_agent(f"mcts:model={tmp_path}")  # the folder stonegarden train wrote it in
    with pytest.raises(ParameterError, match=r"is a model's metadata: name its \.npz file"):
        make_agent(f"mcts:model={path.with_suffix('.json')}")
    junk = tmp_path / "junk.npz"
    junk.write_text("not a model")
    (tmp_path / "junk.json").write_text("{}")
    with pytest.raises(ParameterError, match="not readable"):
        make_agent(f"mcts:model={junk}")
    other = _model(tmp_path, kind="freego-patterns", name="other.npz")
    agent = make_agent(f"mcts:model={other},sims=10")
    with pytest.raises(ParameterError, match="freego-patterns"):
        agent.choose(game, game.initial_state())
    bad_shape = _model(tmp_path, tactic=np.zeros((2, 3), np.float32), name="shape.npz")
    with pytest.raises(ParameterError, match="tactic"):
        profile_for(game).tree(SearchConfig(model=str(bad_shape)))
    text = _model(tmp_path, tactic=np.full((2, TACTICS), "x"), name="text.npz")
    with pytest.raises(ParameterError, match="table 'tactic' is missing, not finite numbers"):
        profile_for(game).tree(SearchConfig(model=str(text)))
    assert load_model(path).prior == 40
    meta = path.with_suffix(".json")  # a process that loaded it sees its metadata change too
    meta.write_text(json.dumps({"kind": KIND, "prior": 7}))
    os.utime(meta, ns=(2, 2))  # the tables untouched
    assert load_model(path).prior == 7


def test_a_model_whose_tables_are_not_its_kinds_is_refused_before_any_search(tmp_path):
    game = stonegarden.make("blooms", size=3)
    # another version's file, say: the right kind, a table of another shape
    path = _model(tmp_path, tactic=np.zeros((2, 3), np.float32))
    reason = f"model {str(path)!r}: table 'tactic' is missing, not finite numbers or not of shape"
    with pytest.raises(ParameterError, match=re.escape(reason)):
        agent_for(game, f"mcts:model={path},sims=10")
    # the terminal game refuses the seat before it shows the board, not at the agent's move
    done = run_cli("play", "blooms", "--param", "size=3", "--p1", f"mcts:model={path},sims=10",
                   "--p2", "human", input="quit\n")
    assert done.returncode == 2 and reason in done.stderr, done.stderr
    assert "to move" not in done.stdout, done.stdout
    with pytest.raises(ParameterError, match=re.escape(reason)):  # before any self-play
        train("blooms", {"size": 3}, games=2, sims=5, out=tmp_path / "run", teacher=str(path))
    assert not (tmp_path / "run").exists()
    for game_id in ("blooms", "blooms-territory", "freego", "bridgego", "blobs"):
        profile = profile_for(stonegarden.make(game_id))  # each shipped model passes
        assert profile.model_for(SearchConfig(model="shipped")) is not None


@pytest.mark.parametrize("damage, reason", [
    ("empty", "not a .npz archive"),  # np.load raised EOFError: click's "Aborted!"
    ("text", "not a .npz archive"),  # np.load read it as a pickle and advised loading it so
    ("cut", "not a .npz archive"),
    ("no-json", "no readable metadata"),
    ("json-list", "not a model's"),
    ("json-infinite-prior", "not a model's"),
])
def test_a_damaged_model_file_is_refused_in_one_line_through_match_and_the_engine(
        tmp_path, damage, reason):
    path = _model(tmp_path)
    whole = path.read_bytes()
    if damage == "empty":
        path.write_bytes(b"")
    elif damage == "text":
        path.write_text("not a model")
    elif damage == "cut":
        path.write_bytes(whole[: len(whole) // 2])
    elif damage == "no-json":
        path.with_suffix(".json").unlink()
    elif damage == "json-list":
        path.with_suffix(".json").write_text("[]")
    else:
        path.with_suffix(".json").write_text(f'{{"kind": "{KIND}", "prior": 1e999}}')
    spec = f"mcts:model={path},sims=10"
    with pytest.raises(ParameterError, match=re.escape(reason)):
        make_agent(spec)
    done = run_cli("match", "blooms", spec, "random", "--param", "size=3", "--games", "1",
                   "--quiet")
    assert done.returncode == 2 and reason in done.stderr, done.stderr
    assert len(done.stderr.strip().splitlines()) == 1 and "pickle" not in done.stderr
    query = {"id": 1, "game": "blooms", "params": {"size": 3}, "sims": 10,
             "agent": f"mcts:model={path}"}
    answer = json.loads(run_cli("engine", "--threads", "1", input=json.dumps(query)).stdout)
    assert answer["kind"] == "ParameterError" and reason in answer["error"]


def test_shipped_names_the_games_model_and_only_the_levels_measured_with_it_load_it():
    blooms, freego = stonegarden.make("blooms", size=5), stonegarden.make("freego")
    assert make_agent("mcts:model=shipped").config.model == "shipped"
    assert profile_for(blooms).model_for(SearchConfig(model="shipped")) is not None
    assert profile_for(freego).model_for(SearchConfig(model="shipped")) is not None
    assert profile_for(freego).model_for(SearchConfig()) is not None  # shown to win: default
    assert profile_for(blooms).model_for(make_agent("mcts").config) is not None
    for level in range(1, 6):  # calibrated without a model
        config = make_agent(f"level:{level}").config_for(blooms)
        assert profile_for(blooms).model_for(config) is None
    # level 6 was measured with it, on every core
    assert profile_for(blooms).model_for(make_agent("level:6").config_for(blooms)) is not None
    territory = stonegarden.make("blooms-territory", size=5)  # by default, at no level
    assert profile_for(territory).model_for(SearchConfig()) is not None
    for level in range(1, 7):
        config = make_agent(f"level:{level}").config_for(territory)
        assert profile_for(territory).model_for(config) is None


# -- training ---------------------------------------------------------------------------------
def test_self_play_resumes_and_refuses_other_settings(tmp_path):
    game = stonegarden.make("blooms", size=3)
    first = self_play(game, tmp_path, games=2, sims=20, seed=4, workers=1, progress=False)
    lines = sorted(tmp_path.glob("games-*.jsonl"))[0].read_text().splitlines()
    assert len(first) == 2 and len(lines) == 2
    chunk = sorted(tmp_path.glob("games-*.jsonl"))[0]
    with chunk.open("a") as f:
        f.write('{"index": 2, "mo')  # a write cut short: that game is played again
    more = self_play(game, tmp_path, games=3, sims=20, seed=4, workers=1, progress=False)
    assert [more[i]["moves"] for i in (0, 1)] == [first[i]["moves"] for i in (0, 1)]
    lines = chunk.read_text().splitlines()
    assert len(lines) == 4 and json.loads(lines[3])["index"] == 2
    again = self_play(game, tmp_path, games=3, sims=20, seed=4, workers=1, progress=False)
    assert again == more
    with pytest.raises(ParameterError, match="another --out"):
        self_play(game, tmp_path, games=3, sims=21, seed=4, workers=1, progress=False)
    with pytest.raises(ParameterError, match="another --out"):  # games kept without visits
        self_play(game, tmp_path, games=3, sims=20, seed=4, workers=1, progress=False,
                  visits=True)
    kept = tmp_path / "with-visits"
    self_play(game, kept, games=1, sims=20, seed=4, workers=1, progress=False, visits=True)
    both = self_play(game, kept, games=2, sims=20, seed=4, workers=1, progress=False)
    assert [len(both[i]["visits"]) for i in (0, 1)] == [len(both[i]["moves"]) for i in (0, 1)]


def test_a_teacher_moved_to_another_folder_goes_on_with_its_games_and_another_is_refused(
        tmp_path):
    """The data folder knows its teacher by its contents: a rerun naming the same model at
    its new place was refused as games of another teacher."""
    shipped = Path(profile_for(stonegarden.make("blooms")).shipped_model_path())
    first, moved = tmp_path / "first", tmp_path / "moved"
    first.mkdir()
    for suffix in (".npz", ".json"):
        shutil.copy(shipped.with_suffix(suffix), first / f"teacher{suffix}")
    quiet = {"progress": False, "report": lambda line: None}
    train("blooms", {"size": 3}, games=2, sims=5, steps=5, out=tmp_path / "run",
          teacher=str(first / "teacher.npz"), **quiet)
    data = tmp_path / "run" / "data"
    kept = read_games(data)
    first.rename(moved)
    meta = train("blooms", {"size": 3}, games=3, sims=5, steps=5, out=tmp_path / "run",
                 teacher=str(moved / "teacher.npz"), **quiet)
    assert meta["games"] == 3 and meta["teacher"]["model"] == str(moved / "teacher.npz")
    games = read_games(data)
    assert sorted(games) == [0, 1, 2] and {i: games[i] for i in kept} == kept  # not replayed
    other = np.load(moved / "teacher.npz")  # the same model but one weight: another teacher
    tables = {k: np.array(other[k]) for k in other.files}
    tables["tactic"].flat[0] += 1
    np.savez_compressed(moved / "teacher.npz", **tables)
    with pytest.raises(ParameterError, match=r"holds games made with the teacher .*tables "
                                             r".*another --out"):
        train("blooms", {"size": 3}, games=3, sims=5, out=tmp_path / "run",
              teacher=str(moved / "teacher.npz"), **quiet)


def test_a_teachers_edited_prior_is_another_teacher_and_an_older_folder_goes_on(tmp_path):
    """A teacher's .json prior edited between two runs was not seen: the data folder knew
    its teacher by the tables alone, and the run went on with games of both priors."""
    shipped = Path(profile_for(stonegarden.make("blooms")).shipped_model_path())
    for suffix in (".npz", ".json"):
        shutil.copy(shipped.with_suffix(suffix), tmp_path / f"teacher{suffix}")
    teacher, notes = tmp_path / "teacher.npz", tmp_path / "teacher.json"
    quiet = {"progress": False, "report": lambda line: None}
    train("blooms", {"size": 3}, games=2, sims=5, steps=5, out=tmp_path / "run",
          teacher=str(teacher), **quiet)
    meta = json.loads(notes.read_text())
    notes.write_text(json.dumps({**meta, "prior": meta.get("prior", 30) + 100}))
    with pytest.raises(ParameterError, match=r"holds games made with the teacher .*prior "
                                             rf"{meta.get('prior', 30)}, .* not with the "
                                             rf"teacher .*prior {meta.get('prior', 30) + 100}, "):
        train("blooms", {"size": 3}, games=3, sims=5, out=tmp_path / "run",
              teacher=str(teacher), **quiet)
    # a folder made when only the tables were recorded goes on: its stamp holds no prior
    stamp = tmp_path / "run" / "data" / "settings.json"
    settings = json.loads(stamp.read_text())
    settings["teacher"] = {k: settings["teacher"][k] for k in ("model", "sha256")}
    stamp.write_text(json.dumps(settings))
    assert train("blooms", {"size": 3}, games=3, sims=5, steps=5, out=tmp_path / "run",
                 teacher=str(teacher), **quiet)["games"] == 3


def test_a_rerun_with_other_settings_is_refused_naming_only_what_differs(tmp_path):
    game = stonegarden.make("blooms", size=3)
    self_play(game, tmp_path / "data", games=2, sims=5, seed=0, workers=1, progress=False)
    done = run_cli("train", "blooms", "--param", "size=3", "--games", "2", "--sims", "6",
                   "--out", str(tmp_path), "--quiet")
    assert done.returncode == 2
    assert done.stderr.strip() == (f"error: {str(tmp_path / 'data')!r} holds games made with "
                                   "sims=5, not sims=6; use another --out")


def test_a_rerun_fitting_visits_on_games_that_kept_none_says_so_in_the_options_words(tmp_path):
    game = stonegarden.make("freego", size=5)
    self_play(game, tmp_path / "data", games=2, sims=5, seed=0, workers=1, progress=False)
    done = run_cli("train", "freego", "--param", "size=5", "--games", "2", "--sims", "5",
                   "--targets", "visits", "--out", str(tmp_path), "--quiet")
    assert done.returncode == 2
    assert done.stderr.strip() == (f"error: {str(tmp_path / 'data')!r} holds games whose "
                                   "self-play kept no root visits, which --targets visits "
                                   "fits: use another --out")


@pytest.mark.parametrize("settings", ["", "[1]", '{"game": "blo', None])
def test_a_data_folder_with_games_and_damaged_settings_is_refused_in_one_line(tmp_path,
                                                                              settings):
    game = stonegarden.make("blooms", size=3)
    self_play(game, tmp_path / "data", games=1, sims=5, seed=0, workers=1, progress=False)
    stamp = tmp_path / "data" / "settings.json"
    if settings is None:
        stamp.unlink()
    else:
        stamp.write_text(settings)
    done = run_cli("train", "blooms", "--param", "size=3", "--games", "2", "--sims", "5",
                   "--out", str(tmp_path), "--quiet")
    assert done.returncode == 2, done.stderr
    assert done.stderr.strip().splitlines() == [
        f"error: {str(tmp_path / 'data')!r} holds games but {str(stamp)!r} is missing or not "
        "the settings of stonegarden train's self-play; use another --out"]


def test_a_data_folder_without_games_takes_the_settings_of_the_run(tmp_path):
    # a run stopped before its first game, or refused after the folder was made, binds nothing
    game = stonegarden.make("blooms", size=3)
    self_play(game, tmp_path, games=2, sims=5, seed=0, workers=1, progress=False)
    for chunk in tmp_path.glob("games-*.jsonl"):
        chunk.unlink()
    (tmp_path / "settings.json").write_text("")
    games = self_play(game, tmp_path, games=2, sims=6, seed=0, workers=1, progress=False)
    assert len(games) == 2
    assert json.loads((tmp_path / "settings.json").read_text())["sims"] == 6


def test_data_whose_moves_do_not_replay_are_refused_naming_the_game(tmp_path):
    game = stonegarden.make("blooms", size=3)
    self_play(game, tmp_path / "data", games=2, sims=5, seed=0, workers=1, progress=False)
    chunk = tmp_path / "data" / "games-0000.jsonl"
    records = [json.loads(line) for line in chunk.read_text().splitlines()]
    records[1]["moves"][2] = "Zz9"  # as rules of another version might have written it
    chunk.write_text("".join(json.dumps(r) + "\n" for r in records))
    done = run_cli("train", "blooms", "--param", "size=3", "--games", "2", "--sims", "5",
                   "--out", str(tmp_path), "--quiet")
    assert done.returncode == 2, done.stderr
    assert done.stderr.strip().startswith(
        "error: self-play game 1, move 3 does not replay ('Zz9': ")
    assert done.stderr.strip().endswith("data made by another version? use another --out")


def test_a_data_folder_that_cannot_be_written_is_said_in_one_line(tmp_path, monkeypatch):
    game = stonegarden.make("blooms", size=3)
    from stonegarden.learn import train as training

    write_text = Path.write_text

    def read_only(path, *args, **kwargs):
        if path.name == "settings.part":
            raise OSError(30, "Read-only file system")
        return write_text(path, *args, **kwargs)

    monkeypatch.setattr(Path, "write_text", read_only)
    stamp = tmp_path / "settings.json"
    with pytest.raises(ParameterError, match=re.escape(f"--out: cannot write {str(stamp)!r}: "
                                                       "Read-only file system")):
        self_play(game, tmp_path, games=2, sims=5, seed=0, workers=1, progress=False)
    monkeypatch.setattr(Path, "write_text", write_text)
    append = training._append_line
    written: list[str] = []

    def full_after_one(path, line):
        if written:
            raise OSError(28, "No space left on device")
        written.append(line)
        append(path, line)

    monkeypatch.setattr(training, "_append_line", full_after_one)
    chunk = tmp_path / "games-0000.jsonl"
    with pytest.raises(ParameterError, match=re.escape(
            f"cannot write the self-play data {str(chunk)!r}: No space left on device; 1 of 3 "
            "games are kept, and the same command goes on from there")):
        self_play(game, tmp_path, games=3, sims=5, seed=0, workers=1, progress=False)
    monkeypatch.setattr(training, "_append_line", append)
    assert len(self_play(game, tmp_path, games=3, sims=5, seed=0, workers=1,
                         progress=False)) == 3
    assert len(chunk.read_text().splitlines()) == 3


def test_a_data_line_that_is_no_game_record_is_played_again(tmp_path):
    game = stonegarden.make("blooms", size=3)
    first = self_play(game, tmp_path, games=2, sims=20, seed=4, workers=1, progress=False)
    chunk = sorted(tmp_path.glob("games-*.jsonl"))[0]
    lines = chunk.read_text().splitlines()
    # an edited line, or another program's: an index alone, moves that are no moves
    chunk.write_text("\n".join([lines[0], "[]", '{"moves": []}', '{"index": 1}',
                                '{"index": 1, "moves": [3]}', '{"index": true, "moves": []}'])
                     + "\n")
    again = self_play(game, tmp_path, games=2, sims=20, seed=4, workers=1, progress=False)
    assert [again[i]["moves"] for i in (0, 1)] == [first[i]["moves"] for i in (0, 1)]
    kept = tmp_path / "with-visits"  # a game whose visits are lost is played again for them
    first = self_play(game, kept, games=2, sims=20, seed=4, workers=1, progress=False,
                      visits=True)
    chunk = kept / "games-0000.jsonl"
    records = [json.loads(line) for line in chunk.read_text().splitlines()]
    del records[1]["visits"]
    chunk.write_text("".join(json.dumps(r) + "\n" for r in records))
    again = self_play(game, kept, games=2, sims=20, seed=4, workers=1, progress=False,
                      visits=True)
    assert [(again[i]["moves"], again[i]["visits"]) for i in (0, 1)] == [
        (first[i]["moves"], first[i]["visits"]) for i in (0, 1)]


def test_a_data_line_of_bytes_that_are_not_text_or_of_odd_figures_is_left_out(tmp_path):
    # a file edited in another encoding, or damaged on disk: its other lines are kept
    game = {"index": 0, "moves": ["a1"], "seconds": 1.5}
    (tmp_path / "games-0000.jsonl").write_bytes(b"\n".join([
        json.dumps(game).encode(), b'{"index": 1, "moves": ["caf\xe9"]}',
        json.dumps({**game, "index": 2, "seconds": "1.5"}).encode(),
        json.dumps({**game, "index": 3, "visits": [[["a1", 3]]]}).encode(),
        json.dumps({**game, "index": 4, "visits": [{"a1": "3"}]}).encode(),
        json.dumps({**game, "index": 5, "visits": [{"a1": 3}]}).encode()]) + b"\n")
    assert sorted(read_games(tmp_path)) == [0, 5]
    (tmp_path / "games-0001.jsonl").mkdir()
    with pytest.raises(ParameterError, match="cannot read the self-play data"):
        read_games(tmp_path)


def test_the_recorded_command_runs_as_written_with_list_and_pair_parameters(tmp_path):
    out = tmp_path / "run"
    done = run_cli("train", "blooms", "--param", "size=3", "--param", "holes=b2,c3",
                   "--param", "start_scores=1,0", "--games", "2", "--sims", "5", "--steps", "5",
                   "--out", str(out), "--quiet")
    assert done.returncode == 0, done.stderr
    meta = json.loads(done.stdout)
    assert meta["params"] == {"size": 3, "holes": ["b2", "c3"], "start_scores": [1, 0]}
    assert "--param holes=b2,c3 --param start_scores=1,0 " in meta["command"]
    again = run_cli(*shlex.split(meta["command"])[1:], "--out", str(out), "--quiet")
    assert again.returncode == 0, again.stderr  # the same settings: its games are reused
    assert json.loads(again.stdout)["command"] == meta["command"]


@pytest.mark.slow
def test_a_stopped_run_says_what_it_kept_and_goes_on_to_the_uninterrupted_model(tmp_path):
    def command(out: Path) -> list[str]:
        return [sys.executable, "-m", "stonegarden", "train", "blooms", "--param", "size=3",
                "--games", "12", "--sims", "1500", "--steps", "50", "--out", str(out),
                "--quiet"]

    stopped = tmp_path / "stopped"
    proc = subprocess.Popen(command(stopped), stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                            text=True, env=cli_env())
    chunk = stopped / "data" / "games-0000.jsonl"
    deadline = time.monotonic() + 120
    while not (chunk.exists() and chunk.read_text().count("\n") >= 2):
        assert proc.poll() is None and time.monotonic() < deadline
        time.sleep(0.05)
    proc.send_signal(signal.SIGTERM)
    _, err = proc.communicate(timeout=120)
    kept = len(chunk.read_text().splitlines())
    assert proc.returncode == 130 and 2 <= kept < 12, err
    assert err.splitlines() == [
        f"stopped with {kept} of 12 self-play games kept in {str(stopped / 'data')!r}; the same "
        "command goes on from there"]
    for out in (stopped, tmp_path / "whole"):
        done = subprocess.run(command(out), capture_output=True, text=True, env=cli_env())
        assert done.returncode == 0, done.stderr
    assert (stopped / "blooms.npz").read_bytes() == (tmp_path / "whole" / "blooms.npz").read_bytes()


def test_the_code_version_names_no_commit_of_another_projects_repository(tmp_path):
    project = tmp_path / "project"
    site = project / ".venv" / "site"
    shutil.copytree(Path(stonegarden.__file__).parent, site / "stonegarden",
                    ignore=shutil.ignore_patterns("__pycache__"))
    git = ["git", "-C", str(project), "-c", "user.name=u", "-c", "user.email=u@example.org"]
    subprocess.run([*git, "init", "-q"], check=True)
    (project / "README").write_text("a project that installs stonegarden in its .venv\n")
    subprocess.run([*git, "add", "README"], check=True)
    subprocess.run([*git, "commit", "-qm", "start"], check=True)
    shown = subprocess.run([sys.executable, "-c", "from stonegarden.learn.train import "
                            "code_version; print(code_version())"], capture_output=True,
                           text=True, env={**os.environ, "PYTHONPATH": str(site)}, check=True)
    assert shown.stdout.strip() == stonegarden.__version__


def test_a_seed_too_large_for_the_games_seeds_is_refused_as_the_option(tmp_path):
    done = run_cli("train", "blobs", "--games", "2", "--sims", "5", "--seed", str(2**62),
                   "--out", str(tmp_path / "run"), "--quiet")
    assert done.returncode == 2 and "Invalid value for '--seed'" in done.stderr, done.stderr
    assert "agent" not in done.stderr and not (tmp_path / "run").exists()
    done = run_cli("train", "blobs", "--games", "2", "--sims", "5", "--seed", str(2**40),
                   "--steps", "5", "--out", str(tmp_path / "run"), "--quiet")
    assert done.returncode == 0, done.stderr


def test_more_simulations_than_an_agent_takes_are_refused_as_the_option(tmp_path):
    done = run_cli("train", "blobs", "--games", "2", "--sims", "10000001", "--out",
                   str(tmp_path / "run"), "--quiet")
    assert done.returncode == 2 and "Invalid value for '--sims'" in done.stderr, done.stderr
    assert "agent" not in done.stderr and not (tmp_path / "run").exists()
    with pytest.raises(ParameterError, match=r"sims 1\.\.10000000"):
        train("blobs", {}, games=2, sims=10_000_001, out=tmp_path / "run")
    assert not (tmp_path / "run").exists()


def test_a_model_write_cut_short_leaves_the_model_that_was_there(tmp_path, monkeypatch):
    path = tmp_path / "blobs.npz"
    save_model(path, {"weights": np.ones(3, np.float32)}, {"kind": "k", "prior": 7})

    def cut_short(f, **arrays):
        f.write(b"PK\x03\x04 half a table")
        raise KeyboardInterrupt

    monkeypatch.setattr(np, "savez_compressed", cut_short)
    with pytest.raises(KeyboardInterrupt):
        save_model(path, {"weights": np.zeros(3, np.float32)}, {"kind": "k", "prior": 9})

    def full(f, **arrays):
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(np, "savez_compressed", full)
    with pytest.raises(ParameterError, match=f"cannot write the model {re.escape(repr(str(path)))}"
                                             ": No space left on device$"):
        save_model(path, {"weights": np.zeros(3, np.float32)}, {"kind": "k", "prior": 9})
    model = load_model(path)
    assert model.prior == 7 and model.arrays["weights"].tolist() == [1, 1, 1]
    assert sorted(p.name for p in tmp_path.iterdir()) == ["blobs.json", "blobs.npz"]


def test_a_run_stopped_in_the_fit_says_no_model_was_written(tmp_path):
    args = ["train", "blooms", "--param", "size=3", "--games", "2", "--sims", "5", "--out",
            str(tmp_path), "--quiet"]
    assert run_cli(*args, "--steps", "5").returncode == 0
    before = (tmp_path / "blooms.npz").read_bytes()
    proc = subprocess.Popen([sys.executable, "-m", "stonegarden", *args, "--steps", "1000000"],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                            env=cli_env())
    assert proc.stderr is not None
    assert proc.stderr.readline().startswith("fitting blooms-race-patterns")
    proc.send_signal(signal.SIGTERM)
    _, err = proc.communicate(timeout=60)
    assert proc.returncode == 130
    assert err.splitlines() == [
        f"stopped before the model was written: the 2 self-play games are kept in "
        f"{str(tmp_path / 'data')!r}; the same command fits them again"]
    assert (tmp_path / "blooms.npz").read_bytes() == before


def test_a_run_stopped_before_its_self_play_says_nothing_was_written(tmp_path, monkeypatch):
    from click.testing import CliRunner

    from stonegarden.cli.main import cli
    from stonegarden.learn import train as training

    def stopped(*args, **kwargs):  # Ctrl-C while the options are checked (importing PyTorch)
        raise KeyboardInterrupt

    monkeypatch.setattr(training, "train", stopped)
    out = tmp_path / "run"
    terminate = signal.getsignal(signal.SIGTERM)  # the command takes SIGTERM as Ctrl-C
    try:
        done = CliRunner().invoke(cli, ["train", "blobs", "--games", "2", "--out", str(out)])
    finally:
        signal.signal(signal.SIGTERM, terminate)
    assert done.exit_code == 130
    assert done.output.splitlines() == [
        "stopped before the self-play began: nothing was written"]
    assert not out.exists()


def test_a_second_run_in_the_folder_of_a_running_one_is_refused_and_writes_nothing(tmp_path):
    """Two runs at once in one --out played every game twice into the same data files and
    wrote the model's files over each other's half-written ones."""
    from stonegarden.lab.folder_lock import folder_held

    out = tmp_path / "run"
    args = ("train", "blooms", "--param", "size=3", "--games", "2", "--sims", "5", "--steps",
            "5", "--out", str(out), "--quiet")
    with folder_held(out, "--out"):  # a run of this process holds it
        refused = run_cli(*args)
    assert refused_as_in_use(refused, out, "--out"), refused.stderr
    assert not (out / "data").exists() and not (out / "blooms.npz").exists()
    done = run_cli(*args)  # the first run ended: its folder is free
    assert done.returncode == 0, done.stderr
    assert len(read_games(out / "data")) == 2


def test_games_beyond_games_of_an_earlier_longer_run_are_not_counted_as_this_runs(tmp_path):
    game = stonegarden.make("blooms", size=3)
    self_play(game, tmp_path / "data", games=4, sims=5, seed=0, workers=1, progress=False)
    chunk = tmp_path / "data" / "games-0000.jsonl"
    chunk.write_text("".join(line + "\n" for line in chunk.read_text().splitlines()[1:]))
    done = run_cli("train", "blooms", "--param", "size=3", "--games", "2", "--sims", "5",
                   "--steps", "5", "--out", str(tmp_path))
    assert done.returncode == 0, done.stderr
    assert "self-play: 2/2 games" in done.stderr and "3/3" not in done.stderr, done.stderr


def test_the_fits_progress_shows_the_log_loss_the_metadata_gives(tmp_path):
    done = run_cli("train", "blooms", "--param", "size=3", "--games", "4", "--sims", "5",
                   "--out", str(tmp_path))
    assert done.returncode == 0, done.stderr
    shown = re.findall(r"^fit: 400/400 steps, .* \(log-loss (\d\.\d{4})\)$", done.stderr,
                       re.M)
    fitted = json.loads(done.stdout)["fit"]["train"]["log_loss"]
    assert len(shown) == 1 and float(shown[0]) == pytest.approx(fitted, abs=0.005)


def test_games_without_a_choice_to_fit_are_refused_not_fitted_to_nan(tmp_path):
    # one die: the opening one, placed by the rules; no placement is ever chosen
    done = run_cli("train", "blobs", "--param", "dice=1", "--games", "2", "--sims", "5",
                   "--out", str(tmp_path), "--quiet")
    assert done.returncode == 2, done.stderr
    assert done.stderr.strip().splitlines()[-1] == (
        "error: the 2 fitted games hold no choice between two or more candidates, so there is "
        "nothing to fit: more games, or other parameters")
    assert not (tmp_path / "blobs.npz").exists() and not (tmp_path / "blobs.json").exists()


def test_a_model_of_split_turns_is_not_fitted_to_visits(tmp_path):
    with pytest.raises(ParameterError, match="blooms model is fitted only to the moves played"):
        train("blooms", {"size": 3}, games=2, sims=5, out=tmp_path, targets="visits")
    # a placement is a whole move in Blobs: the refusal does not say it is not
    with pytest.raises(ParameterError, match="blobs model is fitted only to the moves played"):
        train("blobs", {}, games=2, sims=5, out=tmp_path, targets="visits")
    with pytest.raises(ParameterError, match="targets must be"):
        train("freego", {"size": 5}, games=2, sims=5, out=tmp_path, targets="policy")
    with pytest.raises(ParameterError, match=r"seed must be 0\.\.1099511627776"):
        train("blobs", {}, games=2, sims=5, out=tmp_path, seed=2**40 + 1)
    with pytest.raises(ParameterError, match=r"teacher '': an empty name is no model file"):
        train("blobs", {}, games=2, sims=5, out=tmp_path, teacher="")  # "$MODEL" unset
    assert not any(tmp_path.iterdir())  # refused before any game was played


def test_choices_follow_the_split_turns_of_a_game():
    game = stonegarden.make("blooms", size=3)
    learner = RaceLearner()
    _, actions = played(game, ["Ra1", "Kb1,Gc1", "Yc2", "Kc3,Ga3"])
    data = learner.choices(game, actions)
    # the first turn has one decision (a stone placed, so the second is none), then two each
    # (Yc2: no first stone, then a second among the cells)
    assert data.decisions == 1 + 2 + 2 + 2
    assert data.rows.max() <= learner.num_features
    assert len(data.starts) == data.decisions + 1


@pytest.mark.slow
def test_train_runs_end_to_end_and_its_model_plays(tmp_path):
    out = tmp_path / "run"
    args = ("train", "blooms", "--param", "size=3", "--games", "4", "--sims", "30",
            "--steps", "20", "--out", str(out), "--quiet")
    done = run_cli(*args)
    assert done.returncode == 0, done.stderr
    meta = json.loads(done.stdout)
    assert meta == json.loads((out / "blooms.json").read_text())
    assert meta["games"] == 4 and meta["sims"] == 30 and meta["params"] == {"size": 3}
    assert meta["positions"] > 4 and meta["fit"]["held_out"] is None
    assert set(meta["versions"]) == {"python", "numpy", "numba"}
    data = sorted((out / "data").glob("*.jsonl"))
    before = [p.read_text() for p in data]
    again = run_cli(*args)  # every game is there: nothing is played again
    assert again.returncode == 0, again.stderr
    assert [p.read_text() for p in data] == before
    played = run_cli("match", "blooms", f"mcts:model={out / 'blooms.npz'},sims=30",
                     "mcts:model=none,sims=30", "--param", "size=3", "--games", "2", "--json",
                     "--quiet")
    assert played.returncode == 0, played.stderr
    assert json.loads(played.stdout)["games"] == 2
    bad = run_cli("match", "blooms", "mcts:model=nowhere.npz", "random", "--games", "1")
    assert bad.returncode == 2 and "model" in bad.stderr and "Traceback" not in bad.stderr


def test_train_into_a_log_writes_the_reading_and_the_fit_as_lines(tmp_path):
    done = run_cli("train", "blooms", "--param", "size=3", "--games", "4", "--sims", "5",
                   "--steps", "20", "--out", str(tmp_path))
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout)["fit"]["steps"] == 20  # stdout stays the metadata alone
    assert "reading games: 4/4 games" in done.stderr
    assert re.search(r"^fit: 2/20 steps, 0:00:\d\d elapsed.* \(log-loss \d\.\d{4}\)$",
                     done.stderr, re.M)
    assert "fit: 20/20 steps" in done.stderr
