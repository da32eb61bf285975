"""A study: N self-play games of one game with fixed parameters between two agents (or one
agent against itself), stored as they finish, summarised with intervals, reported with plots."""

from __future__ import annotations

import contextlib
import functools
import html
import json
import re
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from rich.console import Console

from ..agents import agent_for
from ..agents.registry import parse_agent_spec
from ..core.params import params_text
from ..core.protocol import Game
from ..core.record import make_record, save_record
from ..core.registry import make
from ..errors import JobError, ParameterError, StonegardenError
from . import plots
from .runner import MAX_GAMES, run_tasks
from .selfplay import agent_identity, changed_input, model_inputs
from .statistics import balance_text, seat_text, summarise, wld
from .study_store import StudyStore


@dataclass(frozen=True)
class StudySpec:
    """What defines a study's games; the number of games is not part of it, so asking for
    more games later extends the same study."""

    game: str
    params: dict[str, Any]
    agents: tuple[str, str]
    seed: int = 0
    extra: dict[str, Any] = field(default_factory=dict)
    resign: list[float | int] | None = None  # ResignRule.as_list(), None: games played out

    def key_spec(self) -> dict[str, Any]:
        key = {"game": self.game, "params": self.params, "agents": list(self.agents),
               "seed": self.seed}
        if self.resign is not None:  # absent otherwise, so older stores keep their keys
            key["resign"] = self.resign
        return key

    def same_games(self) -> bool:
        """Whether both seats hold one agent (self-play), however each is spelt (``mcts``
        and ``mcts:c=0.2`` where the game's ``c`` is 0.2)."""
        game = make(self.game, **self.params)
        return agent_identity(self.agents[0], game) == agent_identity(self.agents[1], game)

    def seats(self, index: int) -> dict[str, str]:
        a, b = self.agents
        return {"1": a, "2": b} if index % 2 == 0 else {"1": b, "2": a}

    def task(self, index: int, study: str = "") -> dict[str, Any]:
        return {"game": self.game, "params": self.params, "seats": self.seats(index),
                "seed": self.seed * 1_000_003 + index, "index": index, "study": study,
                "resign": self.resign}


def check_spec(game_id: str, params: dict[str, Any], agents: tuple[str, str]) -> dict[str, Any]:
    """Validate before any work starts; returns the record-form (non-default) params.

    Raises:
        ParameterError: bad game, parameter or agent; an agent that sets its own seed.
    """
    game = make(game_id, **params)
    for a in agents:
        agent_for(game, a)
        if "seed" in parse_agent_spec(a)[1]:  # the same seed in every game: the same game
            raise ParameterError(
                f"agent {a!r} sets its own seed: it would play the same way in every game (in a "
                "game without chance, the same game again and again, each counted in the "
                "intervals); leave seed= out: the lab seeds each game's agents from --seed")
    return game.non_default_params()


def check_games(games: int, studies: int) -> None:
    """Refuse, before anything is written, ``games`` for each of ``studies`` studies where a
    run would not play them.

    Raises:
        ParameterError: fewer than one game, or more than ``MAX_GAMES`` in all.
    """
    if games < 1:
        raise ParameterError(f"--games must be at least 1, not {games!r}")
    if games * studies > MAX_GAMES:
        raise ParameterError(f"--games {games} for each of {studies} studies is "
                             f"{games * studies} games, more than one run plays "
                             f"({MAX_GAMES}); ask for fewer, and for more later: the same "
                             "command with a larger --games extends the studies")


def run_studies(specs: Sequence[StudySpec], games: int, store: StudyStore, *, workers: int = 1,
                backend: str = "local", address: str | None = None,
                console: Console | None = None, description: str = "games",
                progress: bool = True) -> list[list[dict[str, Any]]]:
    """Play, in one run of the workers, the games the store lacks for each study (up to
    ``games`` each); return each study's ``games`` games (``progress``: a bar, or in a log
    its lines)."""
    check_games(games, len(specs))
    keys, todo = [], []
    fingerprints: dict[str, dict[str, Any]] = {}  # each model file read once in a sweep
    for spec in specs:
        key = store.open_study(spec.key_spec(), identity=study_identity)
        _hold_inputs(store, key, spec, fingerprints)
        keys.append(key)
        have = store.done(key)
        todo += [spec.task(i, key) for i in range(games) if i not in have]
    # game 0 of every study, then game 1 of every study ...: a run stopped half way has half
    # the games of every cell of a sweep (not all of the first cells and none of the last),
    # and the time left is measured on games of every cell, not on the first (small) ones
    todo.sort(key=lambda task: task["index"])
    # a resumed run's bar starts at the games already stored, so its count and ETA are true
    played = games * len(specs) - len(todo)
    try:
        run_tasks(todo, lambda t, r: store.add(t["study"], t["index"], r), workers=workers,
                  backend=backend, address=address, console=console, description=description,
                  done_before=played, progress=progress)
    except KeyboardInterrupt:
        raise LabStopped(_stored(store, keys, games), games * len(specs), store.path) from None
    except JobError as exc:  # a worker died: what was stored is kept, and the run goes on
        raise JobError(f"{exc}; {_stored(store, keys, games)} of {games * len(specs)} games "
                       f"are stored in {str(store.path)!r}, and the same command goes on "
                       "from them", reason=exc.reason) from None
    return [store.games(key, limit=games) for key in keys]


def _hold_inputs(store: StudyStore, key: str, spec: StudySpec,
                 fingerprints: dict[str, dict[str, Any]]) -> None:
    """Refuse to go on with the study ``key`` if a model file its games were played with has
    changed since (an edited .json prior makes other games as much as other tables do).

    Raises:
        ParameterError: naming the file, what of it changed, and what to do.
    """
    inputs = model_inputs(spec.agents, fingerprints)
    changed = store.hold_inputs(key, inputs)
    if changed is None:
        return
    what = changed_input(changed, store.recorded_inputs(key).get(changed), inputs.get(changed))
    raise ParameterError(
        f"{what} is not the one the {len(store.done(key))} games stored in "
        f"{str(store.path)!r} for this study were played with: restore it to go on with "
        "them, or use another --out (or the changed model at another path, which is "
        "another study)")


def study_identity(key_spec: dict[str, Any]) -> dict[str, Any]:
    """A study's ``key_spec`` with its agents as ``agent_identity`` knows them in its game: a
    study asked for again with its agents spelt otherwise (options in another order,
    ``0.50`` for ``0.5``, a default written out) goes on with its games instead of playing
    them all again as another study."""
    agents = key_spec.get("agents")
    if not isinstance(agents, list):
        return key_spec
    game = _game_of(key_spec)
    return {**key_spec, "agents": [agent_identity(a, game) if isinstance(a, str) else a
                                   for a in agents]}


def _game_of(key_spec: dict[str, Any]) -> Game | None:
    """The game a stored study was played in, ``None`` if it is no longer made (a game or a
    parameter of another version): its agents are then known by their spelling."""
    params = key_spec.get("params")
    try:
        return _made(str(key_spec.get("game")), json.dumps(params if isinstance(params, dict)
                                                           else {}, sort_keys=True))
    except StonegardenError:
        return None


@functools.lru_cache(maxsize=256)
def _made(game_id: str, params: str) -> Game:
    """``make`` of a stored study's game, once each: a sweep's store holds thousands."""
    return make(game_id, **json.loads(params))


def _stored(store: StudyStore, keys: list[str], games: int) -> int:
    """The games of the studies ``keys`` a run of ``games`` each has in the store."""
    return sum(len([i for i in store.done(key) if i < games]) for key in keys)


class LabStopped(KeyboardInterrupt):
    """A run was interrupted; ``stored`` of its ``asked`` games are in the database at
    ``path``, and the same command goes on from them."""

    def __init__(self, stored: int, asked: int, path: Path) -> None:
        super().__init__(f"stopped: {stored} of {asked} games are stored in {str(path)!r}; "
                         "the same command goes on from them")
        self.stored, self.asked, self.path = stored, asked, path


def run_study(spec: StudySpec, games: int, store: StudyStore, *, description: str | None = None,
              **run: Any) -> list[dict[str, Any]]:
    """Play the games the store lacks (up to ``games``) and return all ``games`` of them."""
    description = description or f"{spec.game} {params_text(spec.params)}"
    return run_studies([spec], games, store, description=description, **run)[0]


def save_records(spec: StudySpec, results: list[dict[str, Any]], out: Path) -> None:
    """The study's games as records in ``out/records``; records left there by another study
    (another experiment run into the same folder, or more games) are removed, so that the
    folder holds this study's games and no others."""
    game = make(spec.game, **spec.params)
    folder = out / "records"
    folder.mkdir(parents=True, exist_ok=True)
    written = set()
    for r in results:
        states = game.replay(r["moves"])
        rec = make_record(game, r["moves"], states[-1], players=r["seats"],
                          meta={"seed": str(r["seed"]), "study_index": str(r["index"])})
        name = f"game-{r['index']:05d}.json"
        save_record(rec, folder / name)
        written.add(name)
    for old in folder.glob("game-*.json"):
        if old.name not in written:
            old.unlink()


#: what each kind of run writes into its ``--out`` beside ``lab.sqlite`` (which keeps the
#: games of every run, each study under its own key), as patterns under the folder
OUTPUTS = {
    "study": ("summary.json", "records/game-*.json", "plots/length.*", "plots/branching.*",
              "plots/reasons.*"),
    "sweep": ("sweep.json", "plots/sweep.*", "plots/sweep-*.*"),
    "ladder": ("ladder.json", "plots/ladder.*"),
}


#: the keys of each kind's JSON (its first file in ``OUTPUTS``) that say the lab wrote it:
#: a study's summary and a sweep's table are objects, a ladder's a list of steps
MARKS = {"study": {"spec", "game_params", "summary"},
         "sweep": {"game", "grid", "cells", "recommendation"},
         "ladder": {"strong", "weak", "score"}}


def wrote(out: Path, kind: str) -> bool:
    """Whether ``out`` holds a run of ``kind``: its JSON is there, as the lab writes it (a
    ``summary.json`` of the user's own in the folder is not a study's)."""
    try:
        data = json.loads((out / OUTPUTS[kind][0]).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return False
    rows = data if kind == "ladder" and isinstance(data, list) and data else [data]
    return all(isinstance(r, dict) and MARKS[kind] <= set(r) for r in rows)


def clear_other_runs(out: Path, kind: str) -> None:
    """Remove from ``out`` what a run of another kind than ``kind`` wrote there (a sweep run
    into a study's folder left the study's summary, records and figures beside its own
    table, as if they were of the sweep); files of those names that no such run wrote (its
    JSON is not there, or not the lab's) are the user's, and kept."""
    for other, patterns in OUTPUTS.items():
        if other == kind or not wrote(out, other):
            continue
        for pattern in patterns:
            for old in out.glob(pattern):
                if old.is_file() and old.suffix in (".json", ".png", ".svg"):
                    old.unlink()
    if kind != "study":
        with contextlib.suppress(OSError):  # a study's records folder, unless not empty now
            (out / "records").rmdir()


def full_params(game_id: str, params: dict[str, Any]) -> dict[str, Any]:
    """Every parameter of the game as played, defaults and derived values included (a
    report says what was measured: ``--param size=4``, the default, is not lost), as JSON
    writes it."""
    game = make(game_id, **params)
    return {k: list(v) if isinstance(v, tuple) else v for k, v in game.params.items()}


def resign_text(resign: list[float | int] | None) -> str:
    """How a report ends its first sentence: whether games were adjudicated, which changes
    what their lengths and ends measure."""
    if resign is None:
        return "."
    below, moves = resign
    return f"; a player resigns after {moves} own moves its search rates below {below}."


def seat_note(game_id: str, params: dict[str, Any]) -> str:
    """A report's line on who "the first player" is where that player does not make the first
    choice (Blobs: Red's opening die is part of the initial position, and Blue chooses first),
    '' where it does."""
    game = make(game_id, **params)
    state = game.first_decision()
    if game.is_terminal(state) or game.current_player(state) == 1:
        return ""
    return (f"In `{game_id}` player 2 makes the first choice: \"first player\" and \"moving "
            "first\" below are player 1, who moves second.")


def _verdict(summary: dict[str, Any]) -> str:
    """The study's answer in a sentence: which player is favoured, how sure, how many draws."""
    s, draws, n = summary["first_player_score"], summary["draw_rate"], summary["games"]
    text = (f"The first player's score (draws counting half) is {s['value']:.3f} "
            f"[{s['low']:.3f}, {s['high']:.3f}] over {n} game{'s' if n != 1 else ''}: "
            f"{balance_text(s)}; {round(draws['value'] * n)} drawn.")
    if "a_score" not in summary:
        return text
    a = summary["a_score"]  # two agents: which is stronger is the other question
    which = ("A is the stronger (the whole interval is above 1/2)" if a["low"] > 0.5
             else "B is the stronger (the whole interval is below 1/2)" if a["high"] < 0.5
             else "no difference in strength shown (1/2 is within the interval)")
    return f"{text} A's score is {a['value']:.3f} [{a['low']:.3f}, {a['high']:.3f}]: {which}."


def _fmt(e: dict[str, Any] | None) -> tuple[str, str]:
    if not e or e["value"] is None:  # not measured, or of no games
        return "n/a", ""
    if e["low"] is None:  # a mean of one value has no interval
        return f"{e['value']:.3f}", "n/a (one value)"
    return f"{e['value']:.3f}", f"[{e['low']:.3f}, {e['high']:.3f}]"


def _leader_label(e: dict[str, Any] | None) -> str:
    """The mid-game leader's row names the games it is of: only those with a leader."""
    label = "player ahead at mid-game wins"
    if not e:
        return label
    games = "the one game" if e["n"] == 1 else f"the {e['n']} games"  # not "the 1 games"
    return f"{label} (of {games} with a player ahead)"


def summary_rows(summary: dict[str, Any]) -> list[tuple[str, str, str]]:
    rows = [
        ("games", str(summary["games"]), ""),
        ("first player wins", *_fmt(summary["first_player_win_rate"])),
        ("first player's score (draw = 1/2)", *_fmt(summary["first_player_score"])),
        ("draws", *_fmt(summary["draw_rate"])),
        ("mean game length (entries)", *_fmt(summary["length"])),
        ("mean branching factor", *_fmt(summary["branching_factor"])),
        (_leader_label(summary["midgame_leader_wins"]), *_fmt(summary["midgame_leader_wins"])),
        ("lead changes per game", *_fmt(summary["lead_changes"])),
    ]
    for reason, e in summary["end_reasons"].items():
        rows.append((f"games ending by '{reason}'", *_fmt(e)))
    if "elo_a_minus_b" in summary:
        rows.append(("A's score (draw = 1/2)", *_fmt(summary["a_score"])))
        e = summary["elo_a_minus_b"]
        # a clean sweep's open end has no finite Elo (null in the JSON)
        low = "-inf" if e["low"] is None else f"{e['low']:.0f}"
        high = "+inf" if e["high"] is None else f"{e['high']:.0f}"
        rows.append(("Elo A minus B", f"{e['value']:.0f}", f"[{low}, {high}]"))
        seats = summary["a_by_seat"]
        rows.append(("A's wins-losses-draws moving first / second",
                     f"{wld(seats['first'])} / {wld(seats['second'])}",
                     seat_text(summary["a_seat_adjusted"]).removeprefix("; ")))
    return rows


def write_report(title: str, intro: list[str], rows: list[tuple[str, str, str]],
                 images: list[tuple[str, str]], out: Path, extra_md: str = "") -> None:
    """report.md and report.html with the same table and figures."""
    md = [f"# {title}", "", *(line for line in intro if line), "",
          "| measure | value | 95% interval |", "|---|---|---|"]
    md += [f"| {a} | {b} | {c} |" for a, b, c in rows]
    md.append("")
    if extra_md:
        md += [extra_md, ""]
    for caption, path in images:
        md += [f"![{caption}]({path})", ""]
    (out / "report.md").write_text("\n".join(md))
    h = [f"<!doctype html><meta charset='utf-8'><title>{html.escape(title)}</title>",
         "<style>body{font-family:system-ui,sans-serif;max-width:60rem;margin:2rem auto}"
         "table{border-collapse:collapse}td,th{border:1px solid #ccc;padding:.3rem .6rem}"
         "</style>", f"<h1>{html.escape(title)}</h1>"]
    h += [f"<p>{_inline_html(line)}</p>" for line in intro if line]
    h.append("<table><tr><th>measure</th><th>value</th><th>95% interval</th></tr>")
    h += [f"<tr><td>{html.escape(a)}</td><td>{html.escape(b)}</td><td>{html.escape(c)}</td></tr>"
          for a, b, c in rows]
    h.append("</table>")
    if extra_md:  # a paragraph and its list (a sweep's recommendation)
        items = [line.removeprefix("- ") for line in extra_md.splitlines() if line.startswith("- ")]
        h += [f"<p>{_inline_html(line)}</p>" for line in extra_md.splitlines()
              if line and not line.startswith("- ")]
        h += ["<ul>", *(f"<li>{_inline_html(item)}</li>" for item in items), "</ul>"]
    for caption, path in images:
        h.append(f"<figure><img src='{html.escape(path)}' alt='{html.escape(caption)}'>"
                 f"<figcaption>{html.escape(caption)}</figcaption></figure>")
    (out / "report.html").write_text("\n".join(h))


def _inline_html(text: str) -> str:
    """A line of the Markdown report in HTML: escaped, its `code` spans as code (the HTML
    report showed the backticks)."""
    return re.sub(r"`([^`]*)`", r"<code>\1</code>", html.escape(text))


def report_study(spec: StudySpec, results: list[dict[str, Any]], out: Path,
                 command: str) -> dict[str, Any]:
    """Summary JSON, records, plots and the Markdown/HTML report in ``out``."""
    out.mkdir(parents=True, exist_ok=True)
    clear_other_runs(out, "study")
    agents = None if spec.same_games() else list(spec.agents)
    summary = summarise(results, agents, make(spec.game, **spec.params))
    game_params = full_params(spec.game, spec.params)
    (out / "summary.json").write_text(json.dumps(
        {"spec": spec.key_spec(), "game_params": game_params, "summary": summary}, indent=1))
    save_records(spec, results, out)
    figs = out / "plots"
    images = [
        ("game length", plots.length_histogram(summary, figs)),
        ("legal moves by ply", plots.branching_by_ply(summary, figs)),
        ("how games end", plots.end_reasons(summary, figs)),
    ]
    who = (f"{spec.agents[0]} against itself" if agents is None
           else f"A = {spec.agents[0]}, B = {spec.agents[1]}, seats alternating")
    intro = [f"Game `{spec.game}` with parameters `{json.dumps(game_params)}`; {who}"
             f"{resign_text(spec.resign)}",
             seat_note(spec.game, spec.params), _verdict(summary), f"Reproduce: `{command}`"]
    write_report(f"Study: {spec.game}", intro, summary_rows(summary), images, out)
    return summary
