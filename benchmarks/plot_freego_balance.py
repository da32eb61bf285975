"""Plot Free Go 9x9's first-player score against the search's budget, one line per target,
with Wilson 95% intervals, from the sweeps' result files in ``benchmarks/results/``:

    python3 benchmarks/plot_freego_balance.py [--out benchmarks/results/balance-freego-9.png]

``balance-freego-9-earlier.json`` holds the 500- and 2,000-simulation sweeps,
``balance-freego-9-s10000.json`` the 10,000-simulation one; draws count half."""

from __future__ import annotations

import argparse
import json
from collections import defaultdict

import matplotlib

matplotlib.use("Agg")  # files only, no display
import matplotlib.pyplot as plt
from provenance import ROOT

from stonegarden.stats import wilson_bounds

RESULTS = ROOT / "benchmarks/results"


def sweeps() -> list[tuple[int, list[dict]]]:
    """(simulations a move, cells) of every sweep, weakest first."""
    earlier = json.loads((RESULTS / "balance-freego-9-earlier.json").read_text())["sweeps"]
    found = [(s["sims"], s["cells"]) for s in earlier]
    latest = json.loads((RESULTS / "balance-freego-9-s10000.json").read_text())
    found.append((10_000, latest["cells"]))
    return sorted(found, key=lambda s: s[0])


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--out", default=str(RESULTS / "balance-freego-9.png"))
    args = ap.parse_args()
    lines: dict[int, list[tuple[int, float, float, float]]] = defaultdict(list)
    for sims, cells in sweeps():
        for c in cells:
            points = c["first_player_wins"] + c["draws"] / 2
            low, high = wilson_bounds(points, c["games"])
            lines[c["target"]].append((sims, points / c["games"], low, high))
    fig, ax = plt.subplots(figsize=(6.4, 3.6))
    for k, (target, rows) in enumerate(sorted(lines.items())):
        shift = 1 + 0.04 * (k - 1)  # side by side, so the intervals do not hide each other
        ax.errorbar([r[0] * shift for r in rows], [r[1] for r in rows],
                    yerr=[[r[1] - r[2] for r in rows], [r[3] - r[1] for r in rows]],
                    fmt="o-", capsize=3, label=f"X={target}" + (" (default)" if target == 10
                                                                else ""))
    ax.axhline(0.5, color="grey", linewidth=0.8, linestyle=":")
    ax.set_xscale("log")
    ax.set_xticks([500, 2000, 10_000], ["500", "2,000", "10,000"])
    ax.set_ylim(0.3, 0.9)
    ax.set_xlabel("simulations a move (mcts self-play, 100 games a point)")
    ax.set_ylabel("first player's score, 95% interval")
    ax.set_title("Free Go 9x9: the first player's edge by target and strength", fontsize="medium")
    ax.legend(fontsize="small", loc="upper left")
    fig.tight_layout()
    fig.savefig(args.out, dpi=110)
    print(f"wrote {args.out}")
    for target, rows in sorted(lines.items()):
        for sims, score, low, high in rows:
            print(f"X={target:<3} sims={sims:<6} {score:.3f} ({low:.3f}-{high:.3f})")


if __name__ == "__main__":
    main()
