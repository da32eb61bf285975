"""Matplotlib figures for studies and sweeps, each saved as PNG and SVG. Matplotlib is imported
at the first figure, not with the module: the lab's modules import this one, and so does
``pytest --doctest-modules``, where matplotlib cost a second or more to import."""

from __future__ import annotations

import functools
import math
from pathlib import Path
from typing import Any


@functools.cache
def _pyplot() -> Any:
    """``matplotlib.pyplot``, drawing to files only (no display)."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    return plt


def _subplots(**options: Any) -> tuple[Any, Any]:
    """A new figure and its axes."""
    return _pyplot().subplots(**options)


def _errors(estimates: list[dict[str, Any]]) -> list[list[float]]:
    """Error bar lengths below and above (never negative: rounding can put a proportion of
    exactly 0 or 1 a hair outside its interval)."""
    return [[max(0.0, e["value"] - e["low"]) for e in estimates],
            [max(0.0, e["high"] - e["value"]) for e in estimates]]


def _score_axis(ax: Any) -> None:
    """0 to 1, with room beyond both ends: a score of 0 or 1 (a clean sweep, a strong
    handicap) showed half its dot and no cap on its bar, cut off by the frame."""
    ax.set_ylim(-0.04, 1.04)
    ax.axhline(0.5, color="grey", linestyle=":")


def _bound(value: float | None) -> float:
    return math.nan if value is None else value


def _whole(axis: Any) -> None:
    """Ticks at whole numbers only: a game length, a ply or an integer parameter has no
    value between them (matplotlib put ticks at 2.5 plies, 12.5 captures, -0.4 entries)."""
    from matplotlib.ticker import MaxNLocator

    axis.set_major_locator(MaxNLocator(integer=True, min_n_ticks=1))


def _save(fig: Any, out: Path, name: str) -> str:
    out.mkdir(parents=True, exist_ok=True)
    fig.tight_layout()
    fig.savefig(out / f"{name}.png", dpi=110)
    fig.savefig(out / f"{name}.svg")
    _pyplot().close(fig)
    return f"{out.name}/{name}.png"


def length_histogram(summary: dict[str, Any], out: Path) -> str:
    hist = summary["length_histogram"]
    fig, ax = _subplots(figsize=(6, 3.2))
    ax.bar([int(k) for k in hist], list(hist.values()), color="#4c72b0")
    m = summary["length"]
    ax.axvline(m["value"], color="#c44e52", linestyle="--", label=f"mean {m['value']:.1f}")
    ax.set_xlabel("game length (record entries)")
    ax.set_ylabel("games")
    _whole(ax.xaxis)
    _whole(ax.yaxis)  # games come whole
    ax.legend()
    return _save(fig, out, "length")


def branching_by_ply(summary: dict[str, Any], out: Path) -> str:
    from matplotlib.ticker import LogFormatter

    rows = [(i + 1, r) for i, r in enumerate(summary["branching_by_ply"]) if r]
    fig, ax = _subplots(figsize=(6, 3.2))
    if rows:
        x = [i for i, _ in rows]
        ax.plot(x, [r["value"] for _, r in rows], color="#4c72b0")
        # a ply only one game reached has no interval: the band stops there. A position
        # counted has a legal move at least, so the band does not go below 1 (its bound of
        # 0 has no place on the log axis: the band plunged off the figure there)
        ax.fill_between(x, [max(1.0, _bound(r["low"])) for _, r in rows],
                        [_bound(r["high"]) for _, r in rows],
                        color="#4c72b0", alpha=0.25, label="95% interval")
        ax.set_yscale("log")
        # 30 legal moves, not 3×10¹ (the minor ticks labelled where the axis has room)
        ax.yaxis.set_major_formatter(LogFormatter())
        ax.yaxis.set_minor_formatter(LogFormatter(labelOnlyBase=False))
        ax.legend()
    _whole(ax.xaxis)
    ax.set_xlabel("ply")
    ax.set_ylabel("legal moves")
    return _save(fig, out, "branching")


def end_reasons(summary: dict[str, Any], out: Path) -> str:
    reasons = summary["end_reasons"]
    fig, ax = _subplots(figsize=(6, 3.2))
    names = list(reasons)
    vals = [reasons[r]["value"] for r in names]
    ax.bar(names, vals, yerr=_errors([reasons[r] for r in names]), capsize=4, color="#55a868")
    ax.set_ylim(0, 1.04)  # room above 1: the cap of a bar of every game was on the frame
    ax.set_xlabel("how the games ended")
    ax.set_ylabel("share of games\n(bars: 95% interval)")
    return _save(fig, out, "reasons")


def value_label(value: Any) -> str:
    """A swept value as an axis shows it, as the command line writes it: a list (``holes``,
    ``start_scores``) as its items, a boolean as ``true`` or ``false`` (not Python's ``True``),
    no value (``max_turns``) as ``none`` (not ``None``)."""
    if isinstance(value, bool):
        return "true" if value else "false"
    if value is None:
        return "none"
    if isinstance(value, (list, tuple)):
        return ",".join(map(str, value)) or "none"
    return str(value)


def _is_number(value: Any) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool)


def _levels(rows: list[dict[str, Any]], key: str) -> list[str]:
    """The values of ``key`` once each, as labels: numbers in increasing order (an axis of
    ``--grid size=6,4,5`` read 6, 4, 5), other values in the rows' (the grid's) order."""
    values = list({value_label(r["params"][key]): r["params"][key] for r in rows}.items())
    if all(_is_number(v) for _, v in values):
        values.sort(key=lambda item: item[1])
    return [label for label, _ in values]


def _drawish(row: dict[str, Any], max_draws: float | None) -> bool:
    """Whether a sweep's cell drew more than ``max_draws`` (not a candidate for the
    recommendation, however near 1/2 its score: all draws is a score of exactly 1/2)."""
    rate = row["summary"].get("draw_rate")
    return max_draws is not None and rate is not None and not (
        rate["value"] is not None and rate["value"] <= max_draws)


def _percent(fraction: float) -> str:
    return f"{fraction * 100:g}%"  # 2.5%, not 2%


def sweep_heatmap(rows: list[dict[str, Any]], xkey: str, ykey: str, out: Path,
                  name: str = "sweep", title: str = "",
                  picked: list[dict[str, Any]] | tuple[()] = (),
                  max_draws: float | None = None) -> str:
    """The first player's score per cell; the ``picked`` cells (the recommendation's, by their
    ``params``) outlined, and those that drew more than ``max_draws`` hatched."""
    from matplotlib.patches import Patch, Rectangle

    xs, ys = _levels(rows, xkey), _levels(rows, ykey)
    grid = [[math.nan] * len(xs) for _ in ys]
    marks: list[tuple[int, int, str]] = []
    for r in rows:
        i = ys.index(value_label(r["params"][ykey]))
        j = xs.index(value_label(r["params"][xkey]))
        grid[i][j] = r["summary"]["first_player_score"]["value"]
        if _drawish(r, max_draws):
            marks.append((i, j, "draws"))
        if r["params"] in picked:
            marks.append((i, j, "picked"))
    # a column as wide as its longest label, and room for the rows' (win_check's
    # before-self-capture and after-self-capture were written over each other)
    column = max(0.6, 0.08 * max(map(len, xs)))
    labels = 0.08 * max(0, max(map(len, ys)) - 3)
    kinds = {kind for _, _, kind in marks}
    legend = 0.25 * len(kinds)  # a line under the axes per kind of mark
    fig, ax = _subplots(figsize=(1.8 + labels + column * len(xs),
                                 1.2 + legend + 0.5 * len(ys)))
    im = ax.imshow(grid, cmap="RdBu_r", vmin=0, vmax=1, aspect="auto", origin="lower")
    ax.set_xticks(range(len(xs)), xs)
    ax.set_yticks(range(len(ys)), ys)
    ax.set_xlabel(xkey)
    ax.set_ylabel(ykey)
    for i in range(len(ys)):
        for j in range(len(xs)):
            if not math.isnan(grid[i][j]):
                dark = abs(grid[i][j] - 0.5) > 0.25  # deep red or blue: white text reads
                ax.text(j, i, f"{grid[i][j]:.2f}", ha="center", va="center", fontsize=8,
                        color="white" if dark else "black")
    fig.colorbar(im, ax=ax, label="first player's score")
    for i, j, kind in marks:
        if kind == "draws":
            ax.add_patch(Rectangle((j - 0.5, i - 0.5), 1, 1, fill=False, hatch="xx",
                                   edgecolor="grey", linewidth=0))
        else:
            ax.add_patch(Rectangle((j - 0.46, i - 0.46), 0.92, 0.92, fill=False,
                                   edgecolor="black", linewidth=2.5))
    handles = []
    if "picked" in kinds:
        handles.append(Patch(fill=False, edgecolor="black", linewidth=2.5, label="recommended"))
    if "draws" in kinds and max_draws is not None:
        handles.append(Patch(fill=False, hatch="xx", edgecolor="grey",
                             label=f"draws above {_percent(max_draws)}: not a candidate"))
    if handles:  # under the axis' label, where it hides no cell
        from matplotlib.transforms import offset_copy

        below = offset_copy(ax.transAxes, fig=fig, y=-30, units="points")
        ax.legend(handles=handles, loc="upper center", bbox_to_anchor=(0.5, 0),
                  bbox_transform=below, fontsize="small", frameon=False)
    if title:
        ax.set_title(title, fontsize="small")
    return _save(fig, out, name)


def sweep_lines(rows: list[dict[str, Any]], xkey: str, out: Path,
                picked: list[dict[str, Any]] | tuple[()] = (),
                max_draws: float | None = None) -> str:
    """The first player's score per value with its interval; the ``picked`` cells (the
    recommendation's, by their ``params``) starred, and those that drew more than
    ``max_draws`` hollow."""
    fig, ax = _subplots(figsize=(6, 3.2))
    values = [r["params"][xkey] for r in rows]
    numbers = all(map(_is_number, values))
    if numbers:
        rows = sorted(rows, key=lambda r: r["params"][xkey])
        x: list[Any] = [r["params"][xkey] for r in rows]
        if all(isinstance(v, int) for v in x):
            _whole(ax.xaxis)
    else:  # names, booleans, lists: one place each, in the grid's order
        x = list(range(len(rows)))
        ax.set_xticks(x, [value_label(v) for v in values])
    s = [r["summary"]["first_player_score"] for r in rows]
    ax.errorbar(x, [v["value"] for v in s],
                yerr=_errors(s),
                marker="o", capsize=4)
    drawish = [(xi, v["value"]) for xi, v, r in zip(x, s, rows) if _drawish(r, max_draws)]
    if drawish and max_draws is not None:
        ax.plot(*zip(*drawish), linestyle="none", marker="o", markersize=7,
                markerfacecolor="white", markeredgecolor="grey", zorder=3,
                label=f"draws above {_percent(max_draws)}: not a candidate")
    best = [(xi, v["value"]) for xi, v, r in zip(x, s, rows) if r["params"] in picked]
    if best:
        ax.plot(*zip(*best), linestyle="none", marker="*", markersize=15, color="#c44e52",
                zorder=4, label="recommended")
    if drawish or best:
        ax.legend(fontsize="small")
    _score_axis(ax)
    ax.set_xlabel(xkey)
    ax.set_ylabel("first player's score\n(bars: 95% interval)")
    return _save(fig, out, "sweep")


def ladder_plot(steps: list[dict[str, Any]], out: Path, key: str = "") -> str:
    fig, ax = _subplots(figsize=(6, 3.2))
    labels = [s["label"] for s in steps]
    v = [s["score"] for s in steps]
    ax.errorbar(range(len(steps)), [x["value"] for x in v],
                yerr=_errors(v),
                marker="o", capsize=4)
    _score_axis(ax)
    ax.set_xticks(range(len(steps)), labels, rotation=20)
    ax.set_ylabel("stronger side's score\n(bars: 95% interval)")
    if key:
        ax.set_xlabel(f"{key}: the stronger side's vs the rung below's")
    return _save(fig, out, "ladder")
