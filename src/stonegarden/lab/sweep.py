"""Balance sweeps: a study per cell of a parameter grid, one progress bar for all of them,
a table and a picture of the first player's score per cell, and a recommended value."""

from __future__ import annotations

import itertools
import json
from collections.abc import Iterable
from pathlib import Path
from typing import Any

from rich.console import Console

from ..core.numbers import whole_number
from ..errors import ParameterError
from . import plots
from .adjudication import ResignRule
from .runner import check_backend
from .statistics import balance_text, summarise
from .study import (
    StudySpec,
    check_games,
    check_spec,
    clear_other_runs,
    full_params,
    resign_text,
    run_studies,
    seat_note,
    write_report,
)
from .study_store import StudyStore

#: cells a sweep may have: checked before a range's values are made, so that a typo such as
#: ``target=1:100000000000`` is refused at once instead of filling the memory
MAX_CELLS = 10_000


def parse_grid(options: list[str]) -> dict[str, list[Any]]:
    """``size=4,5,6`` and ``target=10:40:5`` (inclusive range) into value lists; values that
    are lists themselves are parted by semicolons: ``start_scores=0,0;0,1``.

    Raises:
        ParameterError: malformed option, empty or non-integer range, one value or a value
        twice, more than ``MAX_CELLS`` cells.
    """
    grid: dict[str, list[Any]] = {}
    for opt in options:
        key, sep, text = opt.partition("=")
        key = key.strip()
        if not sep or not key or not text.strip():
            raise ParameterError(f"--grid {opt!r} is not of the form name=v1,v2 or "
                                 "name=a:b:step (lists: name=a,b;c,d)")
        if key in grid:
            raise ParameterError(f"--grid names {key!r} twice: give its values in one --grid")
        if ";" in text:  # values that are lists: "0,0;0,1", each parsed by the game; an
            # empty one is the empty list: 'holes=;a1' is no hole, then a hole at a1
            grid[key] = [v.strip() for v in text.split(";")]
        elif ":" in text:
            parts = text.split(":")
            if len(parts) == 2:
                parts.append("1")
            try:
                lo, hi, step = (int(p) for p in parts)
            except ValueError:
                raise ParameterError(f"--grid {opt!r}: a range is integers a:b[:step]") from None
            if step <= 0:
                raise ParameterError(f"--grid {opt!r}: the step must be 1 or more, not {step}")
            if hi < lo:
                raise ParameterError(f"--grid {opt!r}: empty range (a:b needs a <= b)")
            if (hi - lo) // step + 1 > MAX_CELLS:
                raise ParameterError(f"--grid {opt!r}: more than {MAX_CELLS} values")
            grid[key] = list(range(lo, hi + 1, step))
        else:
            grid[key] = [_value(v.strip()) for v in text.split(",") if v.strip()]
        if key in grid and not grid[key]:
            raise ParameterError(f"--grid {opt!r} has no values")
        if len(set(map(repr, grid[key]))) != len(grid[key]):
            raise ParameterError(f"--grid {opt!r} gives a value twice")
        if len(grid[key]) == 1:  # the same in every cell: nothing is compared along it
            raise ParameterError(
                f"--grid {opt!r} gives one value: a sweep compares two or more; for that "
                f"value in every cell give --param {key}={plots.value_label(grid[key][0])}")
    if not grid:
        raise ParameterError("a sweep needs at least one --grid")
    count = 1
    for values in grid.values():
        count *= len(values)
        if count > MAX_CELLS:
            raise ParameterError(f"the grid has more than {MAX_CELLS} cells")
    return grid


def _value(text: str) -> Any:
    try:
        return whole_number(text)
    except ValueError:
        low = text.lower()
        return {"true": True, "false": False}.get(low, text)


def cells(base: dict[str, Any], grid: dict[str, list[Any]]) -> list[dict[str, Any]]:
    keys = list(grid)
    return [{**base, **dict(zip(keys, combo))} for combo in itertools.product(*grid.values())]


def recommend(rows: list[dict[str, Any]], by: str | None, max_draws: float) -> list[dict[str, Any]]:
    """Per value of ``by`` (or overall): the decisive cell whose first-player score is closest to
    1/2. Decisive: draw rate at most ``max_draws``."""
    groups: dict[str, list[dict[str, Any]]] = {}  # keyed by JSON: a value may be a list
    for r in rows:
        groups.setdefault(json.dumps(r["params"].get(by) if by else None), []).append(r)
    out = []
    for key, group in groups.items():
        value = json.loads(key)
        decisive = [r for r in group if r["summary"]["draw_rate"]["value"] <= max_draws]
        if not decisive:
            out.append({"group": value, "cell": None, "why": "no decisive cell"})
            continue
        # min keeps the first of equals: of cells as near 1/2 (0.3 and 0.7), the grid's first,
        # not the one the rounding of 0.7 - 0.5 put a hair nearer
        best = min(decisive, key=_off_half)
        s = best["summary"]["first_player_score"]
        # as near 1/2 as the pick: one is not fairer than the other, whichever way they lean
        tied = [r["params"] for r in decisive if r is not best and _off_half(r) == _off_half(best)]
        # the pick among cells whose intervals all hold 1/2 is a coin toss: they are named
        also = [r["params"] for r in decisive if r is not best
                and r["summary"]["first_player_score"]["low"] <= 0.5
                <= r["summary"]["first_player_score"]["high"]]
        out.append({"group": value, "cell": best["params"], "first_player_score": s,
                    "fair_within_interval": s["low"] <= 0.5 <= s["high"],
                    "also_fair_within_interval": also, "equally_close": tied})
    return out


def _off_half(row: dict[str, Any]) -> float:
    """How far a cell's first-player score is from 1/2, to the precision its games give (a
    sweep's scores are multiples of 1/(2n))."""
    return round(abs(row["summary"]["first_player_score"]["value"] - 0.5), 9)


def run_sweep(game_id: str, base: dict[str, Any], grid: dict[str, list[Any]],
              agents: tuple[str, str], games: int, out: Path, *, workers: int = 1,
              backend: str = "local", address: str | None = None, seed: int = 0,
              max_draws: float = 0.1, command: str = "",
              console: Console | None = None, progress: bool = True,
              resign: ResignRule | None = None) -> dict[str, Any]:
    """Run (or resume) every cell and write the table, plot and recommendation.

    Raises:
        ParameterError: a parameter both fixed (``base``) and swept (``grid``), or an
        unusable ``out``.
    """
    both = sorted(set(base) & set(grid))
    if both:
        names = " and ".join(map(repr, both))
        raise ParameterError(f"{names} {'is' if len(both) == 1 else 'are'} both fixed (--param) "
                             "and swept (--grid): give each once")
    specs = []
    same: dict[str, dict[str, Any]] = {}  # a cell by its game, to find two that are one
    for params in cells(base, grid):
        try:
            canonical = check_spec(game_id, params, agents)
        except ParameterError as exc:  # which cell: a limit may follow another swept value
            raise ParameterError(f"{exc} (in the cell {_cell_text(params, grid)})") from None
        twin = same.setdefault(json.dumps(canonical, sort_keys=True), params)
        if twin is not params:
            raise ParameterError(f"--grid: the cells {_cell_text(twin, grid)} and "
                                 f"{_cell_text(params, grid)} are the same game: give each "
                                 "value once")
        specs.append(StudySpec(game_id, canonical, agents, seed,
                               resign=None if resign is None else resign.as_list()))
    check_games(games, len(specs))
    check_backend(backend, address)
    # every parameter as played (typed: "4" from the command line is 4): those the same in
    # every cell are said once; one that is not swept but differs between cells (a default
    # derived from a swept one, such as Blooms' target from the size) is shown per cell
    played_params = [full_params(game_id, spec.params) for spec in specs]
    follow = [k for k in played_params[0] if k not in grid
              and len({json.dumps(p[k]) for p in played_params}) > 1]
    fixed = {k: v for k, v in played_params[0].items() if k not in grid and k not in follow}
    with StudyStore(out / "lab.sqlite") as store:  # the folder is this run's till the end
        played = run_studies(specs, games, store, workers=workers, backend=backend, address=address,
                             console=console, description=f"sweep {game_id} ({len(specs)} cells)",
                             progress=progress)
        rows = []
        for spec, results, params, full in zip(specs, played, cells(base, grid), played_params):
            shown = {k: full[k] for k in [*params, *follow]}
            rows.append({"params": shown, "record_params": spec.params, "game_params": full,
                         "summary": summarise(results)})
        keys_ = list(grid)
        by = keys_[0] if len(keys_) > 1 else None
        rec = recommend(rows, by, max_draws)
        clear_other_runs(out, "sweep")
        (out / "sweep.json").write_text(json.dumps(
            {"game": game_id, "base": {k: fixed.get(k, v) for k, v in base.items()}, "grid": grid,
             "fixed": fixed, "agents": list(agents), "games": games, "max_draws": max_draws,
             "cells": rows, "recommendation": rec}, indent=1, default=str))
        table = table_rows(rows, [*keys_, *follow])
        for stale in (out / "plots").glob("sweep*.*"):  # an earlier sweep's pictures (other cells)
            if stale.suffix in (".png", ".svg"):
                stale.unlink()
        # the figures mark the recommended cells, and the cells that drew too much to be
        # candidates (a cell of all draws has a score of exactly 1/2: the fairest-looking)
        marks: dict[str, Any] = {"picked": [r["cell"] for r in rec if r["cell"] is not None],
                                 "max_draws": max_draws}
        if len(keys_) == 2:
            images = [("first player's score per cell",
                       plots.sweep_heatmap(rows, keys_[1], keys_[0], out / "plots", **marks))]
        elif len(keys_) > 2:  # a heatmap of the first two parameters per value of the others
            groups: dict[tuple[int, ...], list[dict[str, Any]]] = {}
            places = itertools.product(*(range(len(grid[key])) for key in keys_))  # rows' order
            for place, row in zip(places, rows):
                groups.setdefault(place[2:], []).append(row)
            images = []
            for k, subset in enumerate(groups.values()):
                title = ", ".join(f"{key}={plots.value_label(subset[0]['params'][key])}"
                                  for key in keys_[2:])
                images.append((f"first player's score per cell, {title}",
                               plots.sweep_heatmap(subset, keys_[1], keys_[0], out / "plots",
                                                   name=f"sweep-{k}", title=title, **marks)))
        else:
            images = [("first player's score per cell",
                       plots.sweep_lines(rows, keys_[0], out / "plots", **marks))]
        swept = ", ".join(f"`{k}`" for k in keys_)
        per_cell = (f" ({', '.join(f'`{k}`' for k in follow)} follow{'s' if len(follow) == 1 else ''}"
                    " the swept values: shown per cell)" if follow else "")
        intro = [f"Game `{game_id}`, swept {swept}, in every cell `{json.dumps(fixed)}`{per_cell}; agents "
                 f"{agents[0]} / {agents[1]} (seats alternating), {games} games per cell"
                 f"{resign_text(specs[0].resign)}",
                 seat_note(game_id, specs[0].params), f"Reproduce: `{command}`"]
        rec_md = ["Recommendation (decisive cells: draws at most "
                  f"{max_draws * 100:g}%; closest first-player score to 1/2):"]  # 2.5%, not 2%
        for r in rec:
            if r["cell"] is None:
                where = f"{by}={plots.value_label(r['group'])}: " if by else ""
                rec_md.append(f"- {where}{r['why']} (every cell drew more; see --max-draws)")
            else:
                s = r["first_player_score"]
                rec_md.append(f"- {_cell_text(r['cell'], r['cell'])}: first player's score "
                              f"{s['value']:.3f} "
                              f"[{s['low']:.3f}, {s['high']:.3f}]: {balance_text(s)}"
                              + _also_text(r["also_fair_within_interval"], grid)
                              + _tied_text(r, grid))
        write_report(f"Sweep: {game_id}", intro, table, images,
                     out, extra_md="\n".join(rec_md))
        return {"cells": rows, "recommendation": rec}


def _also_text(cells: list[dict[str, Any]], grid: dict[str, list[Any]]) -> str:
    """The other decisive cells whose intervals hold 1/2: the pick is no surer than they are."""
    if not cells:
        return ""
    return ("; also fair within their intervals, so the pick among them is within noise: "
            + "; ".join(_cell_text(c, grid) for c in cells))


def _tied_text(rec: dict[str, Any], grid: dict[str, list[Any]]) -> str:
    """The other decisive cells as near 1/2 as the pick that its text has not named: the pick
    among them is the grid's order, nothing more."""
    cells = [c for c in rec["equally_close"] if c not in rec["also_fair_within_interval"]]
    if not cells:
        return ""
    return ("; as near 1/2, so the pick among them is the grid's order: "
            + "; ".join(_cell_text(c, grid) for c in cells))


def _cell_text(params: dict[str, Any], keys: Iterable[str]) -> str:
    """A cell as its values of ``keys`` (the swept ones, or all it shows), as given on the
    command line."""
    return ", ".join(f"{k}={plots.value_label(params[k])}" for k in keys)


def table_rows(rows: list[dict[str, Any]], keys: list[str]) -> list[tuple[str, str, str]]:
    out = []
    for r in rows:
        s = r["summary"]
        label = ", ".join(f"{k}={plots.value_label(r['params'][k])}" for k in keys)
        fp = s["first_player_score"]
        out.append((f"{label}: first player's score", f"{fp['value']:.3f}",
                    f"[{fp['low']:.3f}, {fp['high']:.3f}]"))
        d, ln = s["draw_rate"], s["length"]
        out.append((f"{label}: draws / mean length", f"{d['value']:.3f} / {ln['value']:.1f}",
                    f"n={s['games']}"))
        # a target too high for the board ends games by a full board (or a draw), not by it
        ends = s["end_reasons"]
        out.append((f"{label}: games ending by", ", ".join(
            f"'{reason}' {round(e['value'] * s['games'])}" for reason, e in ends.items()),
            f"n={s['games']}"))
    return out
