"""Plot Free Go 9x9's first-player score against the search's budget, one line per target,
with Wilson 95% intervals, from the sweeps' result files in ``benchmarks/results/``:

    python3 benchmarks/plot_freego_balance.py [--out benchmarks/results/balance-freego-9.png]

``balance-freego-9-earlier.json`` holds the 500- and 2,000-simulation sweeps,
``balance-freego-9-s10000.json`` and ``balance-freego-9-small-s10000.json`` the
10,000-simulation ones; draws count half."""

from __future__ import annotations

import argparse
import json
from collections import defaultdict

import matplotlib

matplotlib.use("Agg")  # files only, no display
import matplotlib.pyplot as plt
from provenance import ROOT, png_metadata, run_main

from stonegarden.stats import wilson_bounds

RESULTS = ROOT / "benchmarks/results"
#: the sweeps at 10,000 simulations: X=6 and 10, then X=3 to 5
LATEST = ("balance-freego-9-s10000.json", "balance-freego-9-small-s10000.json")


def sweeps() -> list[tuple[int, list[dict]]]:
    """(simulations a move, cells) of every sweep, weakest first."""
    earlier = json.loads((RESULTS / "balance-freego-9-earlier.json").read_text())["sweeps"]
    found = [(s["sims"], s["cells"]) for s in earlier]
    cells = []
    for name in LATEST:
        cells += json.loads((RESULTS / name).read_text())["cells"]
    found.append((10_000, cells))
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
    fig, (by_budget, by_target) = plt.subplots(1, 2, figsize=(10, 3.8), sharey=True)
    several = {t: rows for t, rows in sorted(lines.items()) if len(rows) > 1}
    for k, (target, rows) in enumerate(several.items()):
        shift = 1 + 0.03 * (k - len(several) // 2)  # side by side: intervals stay apart
        by_budget.errorbar([r[0] * shift for r in rows], [r[1] for r in rows],
                           yerr=[[r[1] - r[2] for r in rows], [r[3] - r[1] for r in rows]],
                           fmt="o-", capsize=3,
                           label=f"X={target}" + (" (default)" if target == 10 else ""))
    by_budget.set_xscale("log")
    by_budget.set_xticks([500, 2000, 10_000], ["500", "2,000", "10,000"])
    by_budget.set_xlabel("simulations a move")
    by_budget.set_ylabel("first player's score, 95% interval")
    by_budget.set_title("by budget", fontsize="medium")
    by_budget.legend(fontsize="small", loc="upper left")
    strong = sorted((t, r) for t, rows in lines.items() for r in rows if r[0] == 10_000)
    by_target.errorbar([t for t, _ in strong], [r[1] for _, r in strong],
                       yerr=[[r[1] - r[2] for _, r in strong], [r[3] - r[1] for _, r in strong]],
                       fmt="o-", capsize=3, color="#4c72b0")
    by_target.set_xticks([t for t, _ in strong])
    by_target.set_xlabel("target X (captures to win; 10 by default)")
    by_target.set_title("by target, at 10,000 simulations a move", fontsize="medium")
    for ax in (by_budget, by_target):
        ax.axhline(0.5, color="grey", linewidth=0.8, linestyle=":")
        ax.set_ylim(0.3, 0.9)
    fig.suptitle("Free Go 9x9: the first player's score in mcts self-play, 100 games a point",
                 fontsize="medium")
    fig.tight_layout()
    fig.savefig(args.out, dpi=110, metadata=png_metadata())
    print(f"wrote {args.out}")
    for target, rows in sorted(lines.items()):
        for sims, score, low, high in rows:
            print(f"X={target:<3} sims={sims:<6} {score:.3f} ({low:.3f}-{high:.3f})")


if __name__ == "__main__":
    run_main(main)
