"""``stonegarden train``: self-play data from the lab, a fitted move model, its metadata.

The data are games of the search without a learned model (``mcts:sims=S,model=none`` in both
seats, seeded by the game's index) or, with a ``teacher``, of the search guided by a model
(the game's shipped one or a file: one round of expert iteration), appended to
``OUT/data/games-NNNN.jsonl`` in chunks of ``CHUNK`` as they finish, so an interrupted run
continues where it stopped. The fit then reads every game (one in ten held out to measure
the model), fits the game's learner (``learn/learner.py``) to the moves played or
(``targets="visits"``) to the shares of the root visits the self-play's searches gave each
move, and writes ``OUT/GAME.npz`` and ``OUT/GAME.json``."""

from __future__ import annotations

import json
import platform
import shlex
import subprocess
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numba
import numpy as np

from .. import __version__
from ..agents.registry import MAX_SPEC, OPTION_RANGES
from ..core.protocol import Game
from ..core.registry import make
from ..errors import ParameterError, RecordError, StonegardenError
from ..lab.folder_lock import folder_held
from ..lab.runner import progress_bar, progress_line, run_tasks
from ..search.profile import profile_for
from .devices import parse_device
from .fit import FitReport, evaluate
from .learner import Choices, Learner
from .model import DEFAULT_PRIOR, load_model, model_fingerprint, save_model

#: games per data file
CHUNK = 50
#: one game in this many is held out of the fit to measure the model
HOLD_OUT = 10
#: what identifies a teacher's games: its tables and the prior and scale its .json gives them
FINGERPRINT = ("sha256", "prior", "scale")
#: what the fit matches: the move played, or the self-play search's root visits
TARGETS = ("move", "visits")
#: the largest ``seed``: game ``i`` is seeded ``seed * 1_000_003 + i`` and its seats twice that
#: and one more, which an agent's seed (at most 2**63 - 1) must hold
MAX_SEED = 2**40


def code_version() -> str:
    """The package's version and, in a git checkout of it, its commit (``+dirty`` with changes).
    Only where git tracks this very file: a package installed inside another project's
    repository (a virtualenv there) is no checkout of stonegarden, and that commit not its."""
    here = Path(__file__).resolve()
    src = here.parents[1]
    try:
        tracked = subprocess.run(["git", "-C", str(src), "ls-files", "--error-unmatch", "--",
                                  str(here)], capture_output=True, timeout=10)
        if tracked.returncode != 0:
            return __version__
        rev = subprocess.run(["git", "-C", str(src), "rev-parse", "HEAD"], capture_output=True,
                             text=True, check=True, timeout=10).stdout.strip()
        dirty = subprocess.run(["git", "-C", str(src), "status", "--porcelain", "--", "."],
                               capture_output=True, text=True, timeout=10).stdout.strip()
        return f"{__version__} {rev}{'+dirty' if dirty else ''}"
    except (OSError, subprocess.SubprocessError):
        return __version__


def _param_text(value: Any) -> str:
    """A parameter's JSON value as ``--param`` reads it back (a list as ``a,b``)."""
    if isinstance(value, (list, tuple)):
        return ",".join(str(v) for v in value)
    return str(value).lower() if isinstance(value, bool) or value is None else str(value)


def learner_for(game: Game) -> Learner:
    """The game's learner.

    Raises:
        ParameterError: the game has no learned model.
    """
    learner = profile_for(game).learner()
    if learner is None:
        raise ParameterError(f"game {game.id!r} has no learned model to train")
    return learner


def teacher_model(game: Game, learner: Learner, teacher: str) -> dict[str, Any]:
    """What identifies ``teacher`` (``none``, ``shipped`` or a model file): the search's
    ``model`` option and the file's hash (``{"model": ..., "sha256": ...}``, so that data
    made by another model's search are refused); ``{}`` for none.

    Raises:
        ParameterError: the game ships no model, or the file is no model of this game.
    """
    if not teacher.strip():  # an unset variable: not the current folder, which it resolves to
        raise ParameterError("teacher '': an empty name is no model file (an unset "
                             "variable?): none, shipped or a model file")
    if teacher.lower() == "none":
        return {}
    if teacher.lower() == "shipped":
        path, option = profile_for(game).shipped_model_path(), "shipped"
        if path is None:
            raise ParameterError(f"{game.id!r} ships no learned model to teach with")
    else:
        path = option = str(Path(teacher).expanduser().resolve())
        if "," in option:  # it would cut the agent spec it goes into (':' and '=' do not)
            raise ParameterError(f"teacher {teacher!r}: a model file's path may not hold ','")
    model = load_model(path)
    if model.kind != learner.kind:
        raise ParameterError(f"teacher {teacher!r} is a {model.kind!r} model, not the "
                             f"{learner.kind!r} model of {game.id}")
    model.require(learner.kind, learner.table_shapes())  # before the data folder is made
    if len(self_play_spec(int(OPTION_RANGES["sims"][1]), {"model": option})) > MAX_SPEC:
        raise ParameterError(f"teacher {teacher!r}: its path, {option!r}, is too long for the "
                             f"self-play's agent spec (at most {MAX_SPEC} characters in all): "
                             "copy or link the model to a shorter path")
    # the tables by their SHA-256, and the prior and scale the .json gives them: an edited
    # .json makes other games as much as other tables do
    return {"model": option, **model_fingerprint(path)}


def self_play_spec(sims: int, teacher: dict[str, Any] | None) -> str:
    """The agent both seats of the self-play use: the search, with the teacher's model."""
    return f"mcts:sims={sims},model={teacher['model'] if teacher else 'none'}"


def _append_line(path: Path, line: str) -> None:
    """Append ``line`` to ``path``, on a line of its own even after a write cut short."""
    with path.open("a+b") as f:
        if f.seek(0, 2) > 0:
            f.seek(-1, 2)
            if f.read(1) != b"\n":
                f.write(b"\n")
        f.write(line.encode() + b"\n")


def read_games(data: Path) -> dict[int, dict[str, Any]]:
    """The self-play games kept in the folder ``data``, by index; a line that holds no game
    (cut short by an interruption, edited, or bytes that are not text) is left out, and that
    game played again.

    Raises:
        ParameterError: a data file that cannot be read (a folder of its name, say).
    """
    games: dict[int, dict[str, Any]] = {}
    for path in sorted(data.glob("games-*.jsonl")):
        try:
            lines = path.read_bytes().splitlines()  # lines as bytes: one damaged line alone
        except OSError as exc:
            raise ParameterError(f"cannot read the self-play data {str(path)!r}: "
                                 f"{exc.strerror or exc}") from None
        for line in lines:
            try:
                record: Any = json.loads(line) if line.strip() else None
            except ValueError:  # not JSON, or not UTF-8
                continue
            if _is_game(record):
                games[record["index"]] = record
    return games


def _is_game(record: Any) -> bool:
    """Whether ``record`` is a self-play game as ``self_play`` writes it: its index, its
    moves, its seconds (a number) and, where kept, one entry of root visits a move (none,
    or counts by move)."""
    if not isinstance(record, dict):
        return False
    index, moves, visits = record.get("index"), record.get("moves"), record.get("visits", [])
    seconds = record.get("seconds", 0.0)
    return (type(index) is int and index >= 0 and isinstance(moves, list)
            and all(isinstance(m, str) for m in moves)
            and type(seconds) in (int, float) and seconds >= 0
            and isinstance(visits, list) and len(visits) in (0, len(moves))
            and all(v is None or (isinstance(v, dict) and all(
                type(n) is int and n >= 0 for n in v.values())) for v in visits))


def _alike(settings: dict[str, Any], recorded: tuple[str, ...] = FINGERPRINT) -> dict[str, Any]:
    """A data folder's ``settings`` as they decide its games: the teacher by its contents
    (``model_fingerprint``'s ``recorded`` fields), not by where its file is (a teacher moved
    or copied elsewhere, or the shipped model named by its path, makes the same games; a
    rerun naming it there was refused)."""
    teacher = settings.get("teacher")
    if isinstance(teacher, dict):
        return {**settings, "teacher": {k: teacher.get(k) for k in recorded}}
    return settings


def _teacher_text(teacher: Any) -> str:
    """A teacher as a refusal names it: its file and what the search reads of it."""
    if not isinstance(teacher, dict):
        return "no teacher"
    return (f"the teacher {teacher.get('model')!r} (tables {str(teacher.get('sha256'))[:12]}, "
            f"prior {teacher.get('prior', '?')}, scale {teacher.get('scale', '?')})")


def self_play(game: Game, data: Path, *, games: int, sims: int, seed: int, workers: int,
              progress: bool = True, visits: bool = False,
              teacher: dict[str, Any] | None = None) -> dict[int, dict[str, Any]]:
    """Play the games of ``data`` not played yet (all ``games`` of them in the end); returns
    every game by index. With ``visits``, or in a folder made with them, each record keeps
    its moves' root visits too. ``teacher``: the model both seats' searches read, as
    ``teacher_model`` identifies it (none if empty).

    Raises:
        ParameterError: ``data`` holds games made with other settings, or cannot be made
            or written (the games written before it are kept).
    """
    try:
        data.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise ParameterError(f"--out: cannot make {str(data)!r}: {exc.strerror}") from None
    settings: dict[str, Any] = {"game": game.id, "params": game.non_default_params(),
                                "sims": sims, "seed": seed}
    if visits:  # only then, so that data made before visits were kept stays valid
        settings["visits"] = True
    if teacher:  # likewise
        settings["teacher"] = teacher
    stamp = data / "settings.json"
    done = read_games(data)
    if done:  # the games kept hold the folder to the settings they were made with
        try:
            known = json.loads(stamp.read_text())
        except (OSError, ValueError):
            known = None
        if not isinstance(known, dict):
            raise ParameterError(f"{str(data)!r} holds games but {str(stamp)!r} is missing or "
                                 "not the settings of stonegarden train's self-play; use "
                                 "another --out")
        if known.get("visits") and not visits:  # its games serve either fit: keep them alike
            visits = settings["visits"] = True
        if visits:  # a game kept without them is played again
            done = {i: r for i, r in done.items() if len(r.get("visits", [])) == len(r["moves"])}
        # a folder made before the teacher's prior and scale were recorded holds it to its
        # tables alone
        taught = known.get("teacher")
        recorded = (tuple(k for k in FINGERPRINT if k in taught) if isinstance(taught, dict)
                    else FINGERPRINT)
        before, now = _alike(known, recorded), _alike(settings, recorded)
        if before != now:
            differ = sorted(k for k in {*known, *settings} if before.get(k) != now.get(k))
            if differ == ["teacher"]:  # say which file, and what of it changed
                raise ParameterError(f"{str(data)!r} holds games made with "
                                     f"{_teacher_text(taught)}, not with "
                                     f"{_teacher_text(teacher)}: a teacher's tables or its "
                                     ".json's prior or scale make other games; restore it, "
                                     "or use another --out")
            if differ == ["visits"]:  # no option is named so: --targets visits asks for them
                raise ParameterError(f"{str(data)!r} holds games whose self-play kept no root "
                                     "visits, which --targets visits fits: use another --out")

            def text(values: dict[str, Any]) -> str:
                return ", ".join(_teacher_text(values.get(k)) if k == "teacher"
                                 else f"{k}={json.dumps(values.get(k))}" for k in differ)

            raise ParameterError(f"{str(data)!r} holds games made with {text(known)}, not "
                                 f"{text(settings)}; use another --out")
    else:  # no game yet: the settings are this run's, whatever a run that played none said
        part = stamp.with_suffix(".part")  # written whole or not at all
        try:
            part.write_text(json.dumps(settings, sort_keys=True) + "\n")
            part.replace(stamp)
        except OSError as exc:  # a folder that cannot be written (read-only, full)
            raise ParameterError(f"--out: cannot write {str(stamp)!r}: "
                                 f"{exc.strerror or exc}") from None
    spec = self_play_spec(sims, teacher)
    tasks = [{"game": game.id, "params": game.non_default_params(),
              "seats": {"1": spec, "2": spec}, "seed": seed * 1_000_003 + i, "index": i,
              **({"visits": True} if visits else {})}
             for i in range(games) if i not in done]

    def keep(task: dict[str, Any], result: dict[str, Any]) -> None:
        record = {"index": task["index"], "seed": task["seed"], "moves": result["moves"],
                  "winner": result["winner"], "seconds": result["seconds"],
                  **({"visits": result["visits"]} if visits else {})}
        chunk = data / f"games-{task['index'] // CHUNK:04d}.jsonl"
        try:
            _append_line(chunk, json.dumps(record))
        except OSError as exc:  # a full disk, say: the games written before are kept
            kept = sum(i < games for i in done)
            raise ParameterError(f"cannot write the self-play data {str(chunk)!r}: "
                                 f"{exc.strerror or exc}; {kept} of {games} games are kept, "
                                 "and the same command goes on from there") from None
        done[task["index"]] = record

    run_tasks(tasks, keep, workers=workers, description="self-play",
              done_before=games - len(tasks), progress=progress)
    return {i: done[i] for i in range(games)}


def choices_of(game: Game, learner: Learner, records: list[dict[str, Any]],
               targets: str = "move", advance: Callable[[], None] | None = None) -> Choices:
    """The decisions of the games ``records`` as ``learner`` sees them, with the search's
    visit shares as targets if ``targets`` is ``visits``; ``advance()`` after each game.

    Raises:
        RecordError: a game whose moves do not replay (made by other rules or code).
    """
    parts = []
    for record in records:
        state = game.initial_state()
        actions = []
        visits: list[dict[int, int]] = []
        for i, text in enumerate(record["moves"]):
            try:
                action = game.parse_action(state, text)
                if targets == "visits":
                    visits.append({game.parse_action(state, t): n
                                   for t, n in (record["visits"][i] or {}).items()})
            except StonegardenError as exc:
                raise RecordError(f"self-play game {record['index']}, move {i + 1} does not "
                                  f"replay ({exc}): data made by another version? use another "
                                  "--out", i, text) from None
            actions.append(action)
            state = game.play(state, action)
        parts.append(learner.choices(game, actions, visits if targets == "visits" else None))
        if advance is not None:
            advance()
    return Choices.concat(parts, 2 if not parts else parts[0].rows.shape[1])


def train(game_id: str, params: dict[str, Any], *, games: int, sims: int, out: Path,
          seed: int = 0, workers: int = 1, steps: int = 400, prior: int = DEFAULT_PRIOR,
          targets: str = "move", teacher: str = "none", device: str = "numpy",
          progress: bool = True,
          report: Callable[[str], None] = print) -> dict[str, Any]:
    """Make the data (resuming), fit, write ``out/GAME.npz`` and ``out/GAME.json``; returns
    the metadata. ``teacher``: the model the self-play's search reads (``none``,
    ``shipped`` or a model file). ``device``: where the fit runs (``devices.parse_device``).

    Raises:
        ParameterError: a bad game, parameter or setting; another run in ``out``.
    """
    if (games < 2 or not 1 <= sims <= OPTION_RANGES["sims"][1] or steps < 1
            or not 0 <= prior <= 10_000):
        raise ParameterError("train needs games >= 2, sims 1..10000000, steps >= 1, "
                             "prior 0..10000")
    if not 0 <= seed <= MAX_SEED:
        raise ParameterError(f"seed must be 0..{MAX_SEED}, not {seed!r}")
    if targets not in TARGETS:
        raise ParameterError(f"targets must be one of {', '.join(TARGETS)}, not {targets!r}")
    game = make(game_id, **params)
    learner = learner_for(game)
    if targets == "visits" and not learner.takes_visits:
        raise ParameterError(f"the {game.id} model is fitted only to the moves played, not to "
                             "the search's visits; use --targets move")
    taught_by = teacher_model(game, learner, teacher)
    fit_on = parse_device(device)  # refused now rather than after hours of self-play
    # one run at a time in the folder: two played every game twice into the same files and
    # wrote the model's files over each other's
    with folder_held(out, "--out"):
        t0 = time.perf_counter()
        records = self_play(game, out / "data", games=games, sims=sims, seed=seed, workers=workers,
                            progress=progress, visits=targets == "visits", teacher=taught_by)
        t1 = time.perf_counter()
        held = [r for i, r in records.items() if i % HOLD_OUT == HOLD_OUT - 1]
        fitted = [r for i, r in records.items() if i % HOLD_OUT != HOLD_OUT - 1]
        with progress_bar(disable=not progress) as bar:
            reading = bar.add_task("reading games", total=len(records), tally="")
            lines = progress and not bar.console.is_terminal  # a log sees no bar: lines there

            def read() -> None:
                bar.update(reading, advance=1)
                if lines:
                    progress_line(bar, reading, max(1, len(records) // 10))

            train_set = choices_of(game, learner, fitted, targets, read)
            valid_set = choices_of(game, learner, held, advance=read)  # the moves played, either way
        if not train_set.decisions:
            raise ParameterError(f"the {len(fitted)} fitted games hold no choice between two or more "
                                 "candidates, so there is nothing to fit: more games, or other "
                                 "parameters")
        report(f"fitting {learner.kind}: {learner.num_features} weights, "
               f"{train_set.decisions} decisions ({len(train_set.rows)} candidates) on {fit_on.name}")
        with progress_bar(disable=not progress) as bar:
            task = bar.add_task("fit", total=steps, tally="")
            lines = progress and not bar.console.is_terminal

            measure = "log-loss" if targets == "move" else "cross-entropy"

            def fitted_to(step: int, loss: float) -> None:
                bar.update(task, completed=step, tally=f"{measure} {loss:.4f}")
                if lines:
                    progress_line(bar, task, max(1, steps // 10), "steps")

            weights = fit_on.fit(train_set, learner.num_features, steps=steps, progress=fitted_to)
        t2 = time.perf_counter()

        def figures(r: FitReport) -> dict[str, float]:
            return {"log_loss": round(r.log_loss, 4), "accuracy": round(r.accuracy, 4),
                    "uniform_log_loss": round(r.uniform_log_loss, 4)}

        meta = {
            "kind": learner.kind, "game": game.id, "params": game.non_default_params(),
            "games": games, "held_out_games": len(held),
            "positions": sum(len(r["moves"]) for r in records.values()),
            "decisions": train_set.decisions + valid_set.decisions, "sims": sims, "seed": seed,
            "self_play": self_play_spec(sims, taught_by), "teacher": taught_by or None,
            "targets": targets, "prior": prior,
            "scale": 1.0,
            "fit": {"steps": steps, "weights": learner.num_features, "device": fit_on.name,
                    "train": figures(evaluate(weights, train_set)),
                    "held_out": (figures(evaluate(weights, valid_set)) if valid_set.decisions
                                 else None)},
            # data: this run's self-play (a resumed run plays only the missing games); games: the
            # wall time of every game, summed over the workers, where the records have it
            "seconds": {"data": round(t1 - t0, 1), "fit": round(t2 - t1, 1),
                        "games": round(sum(float(r.get("seconds", 0.0)) for r in records.values()),
                                       1)},
            "code": code_version(),
            "versions": {"python": platform.python_version(), "numpy": np.__version__,
                         "numba": numba.__version__,
                         **({"torch": fit_on.version} if fit_on.torch_device else {})},
            "command": f"stonegarden train {game.id}"
                       + "".join(f" --param {shlex.quote(f'{k}={_param_text(v)}')}"
                                 for k, v in game.non_default_params().items())
                       + f" --games {games} --sims {sims} --seed {seed}"
                       + (f" --steps {steps}" if steps != 400 else "")
                       + (f" --prior {prior}" if prior != DEFAULT_PRIOR else "")
                       + (f" --targets {targets}" if targets != "move" else "")
                       + (f" --teacher {shlex.quote(taught_by['model'])}" if taught_by else "")
                       + (f" --device {fit_on.name}" if fit_on.torch_device else ""),
        }
        save_model(out / f"{game.id}.npz", learner.arrays(weights[:-1]), meta)
        return meta
