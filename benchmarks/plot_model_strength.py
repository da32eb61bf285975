"""Plot every 200-game match of a learned model against the search without it (0.5 s a move)
as its score and Wilson 95% interval, from the result files in ``benchmarks/results/``, beside
the 65% target and its 55% floor for the interval's lower bound.

    python3 benchmarks/plot_model_strength.py [--out benchmarks/results/model-strength.png]

Each file's 200-game summary (``a_wins``, ``b_wins``, ``draws``) is read as written by
``stonegarden match --json``; draws count half."""

from __future__ import annotations

import argparse
import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import matplotlib

matplotlib.use("Agg")  # files only, no display
import matplotlib.pyplot as plt
from provenance import ROOT, png_metadata, run_main

from stonegarden.stats import wilson_bounds

RESULTS = ROOT / "benchmarks/results"

#: (label, result file), top to bottom; the shipped models are marked in their labels
MATCHES = (
    ("Blooms n=5, shipped", "model-strength-blooms.json"),
    ("Bridge Go 9x9, shipped", "model-strength-bridgego.json"),
    ("Blooms territory n=5, shipped", "model-strength-blooms-territory.json"),
    ("Free Go, 3,000-sim self-play (shipped)", "model-strength-freego-deep.json"),
    ("Free Go, 200 games of 1,000 sims", "model-strength-freego.json"),
    ("Free Go, 1,500 games of 1,000 sims", "model-strength-freego-1500.json"),
    ("Free Go, + nearness codes", "model-strength-freego-near.json"),
    ("Free Go, 400 games of 10,000 sims", "model-strength-freego-10k.json"),
    ("Free Go, + hand-made priors", "model-strength-freego-hand.json"),
    ("Free Go, + learned value", "model-strength-freego-value.json"),
    ("Free Go, fitted to root visits", "model-strength-freego-visits.json"),
    ("Free Go, expert iteration", "model-strength-freego-iteration.json"),
    ("Free Go, prior=300", "model-strength-freego-prior.json"),
    ("Free Go, patterns=3 in the playouts", "model-strength-freego-patterns.json"),
    ("Blobs, 30 visits", "model-strength-blobs.json"),
    ("Blobs, 5 visits", "model-strength-blobs-prior5.json"),
)


def _summaries(x: Any) -> Iterator[dict[str, Any]]:
    if isinstance(x, dict):
        if x.get("games") == 200 and "a_wins" in x:
            yield x
        for v in x.values():
            yield from _summaries(v)
    elif isinstance(x, list):
        for v in x:
            yield from _summaries(v)


def score_of(path: Path) -> tuple[float, float, float]:
    """(score, low, high) of the file's one 200-game match.

    Raises:
        ValueError: the file holds no 200-game summary, or more than one.
    """
    found = list(_summaries(json.loads(path.read_text())))
    if len(found) != 1:
        raise ValueError(f"{path.name}: {len(found)} summaries of 200 games, not one")
    s = found[0]
    points = s["a_wins"] + s["draws"] / 2
    low, high = wilson_bounds(points, 200)
    return points / 200, low, high


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--out", default=str(RESULTS / "model-strength.png"))
    args = ap.parse_args()
    rows = [(label, *score_of(RESULTS / name)) for label, name in MATCHES]
    fig, ax = plt.subplots(figsize=(7.5, 0.32 * len(rows) + 1.2))
    y = list(range(len(rows)))[::-1]
    scores = [r[1] for r in rows]
    ax.errorbar(scores, y, xerr=[[r[1] - r[2] for r in rows], [r[3] - r[1] for r in rows]],
                fmt="o", color="#4c72b0", capsize=3)
    ax.axvline(0.5, color="grey", linewidth=0.8)
    ax.axvline(0.65, color="#c44e52", linestyle="--", label="target 0.65")
    ax.axvline(0.55, color="#dd8452", linestyle=":", label="lower bound above 0.55")
    ax.set_yticks(y, [r[0] for r in rows])
    ax.set_xlim(0, 1)
    ax.set_xlabel("score, model against none: 200 games, 0.5 s a move, 95% interval")
    ax.legend(loc="lower right", fontsize="small")
    fig.tight_layout()
    out = Path(args.out)
    fig.savefig(out, dpi=110, metadata=png_metadata())
    print(f"wrote {out}")
    for label, score, low, high in rows:
        print(f"{label:42} {score:.3f} ({low:.3f}-{high:.3f})")


if __name__ == "__main__":
    run_main(main)
