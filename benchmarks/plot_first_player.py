"""Plot the first player's score in Bridge Go 9x9, Blobs and Tumbling Dice against the search's
budget, with Wilson 95% intervals, from the studies' result files in ``benchmarks/results/``:

    python3 benchmarks/plot_first_player.py [--out benchmarks/results/balance-first-player.png]

``balance-bridgego-blobs-earlier.json`` holds the earlier search's studies (hollow points);
``balance-bridgego-9-s2000.json``, ``balance-blobs-s12800.json`` and
``balance-tumbling-s*.json`` today's (filled). In Blobs the first player is Red, whose die
opens the game, and Blue makes the first choice. Draws count half."""

from __future__ import annotations

import argparse
import json

import matplotlib

matplotlib.use("Agg")  # files only, no display
import matplotlib.pyplot as plt
from provenance import ROOT, png_metadata, run_main

from stonegarden.stats import wilson_bounds

RESULTS = ROOT / "benchmarks/results"
#: today's studies: (label, simulations a move, result file)
TODAY = (("Bridge Go 9x9", 2000, "balance-bridgego-9-s2000.json"),
         ("Blobs", 12800, "balance-blobs-s12800.json"),
         ("Tumbling Dice", 2000, "balance-tumbling-s2000.json"),
         ("Tumbling Dice", 12800, "balance-tumbling-s12800.json"))
LABELS = {"bridgego": "Bridge Go 9x9", "blobs": "Blobs"}


def points() -> list[tuple[str, int, bool, int, float]]:
    """(game, simulations, today's search?, games, first player's points) of every study."""
    out = []
    earlier = json.loads((RESULTS / "balance-bridgego-blobs-earlier.json").read_text())
    for s in earlier["studies"]:
        out.append((LABELS[s["game"]], s["sims"], False, s["games"],
                    s["first_player_wins"] + s["draws"] / 2))
    for label, sims, name in TODAY:
        s = json.loads((RESULTS / name).read_text())["summary"]
        out.append((label, sims, True, s["games"], s["first_player_wins"] + s["draws"] / 2))
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--out", default=str(RESULTS / "balance-first-player.png"))
    args = ap.parse_args()
    fig, ax = plt.subplots(figsize=(7, 4))
    games = ("Bridge Go 9x9", "Blobs", "Tumbling Dice")
    colours = dict(zip(games, ("#4c72b0", "#dd8452", "#55a868")))
    rows = points()
    for k, label in enumerate(games):
        shift = 1 + 0.04 * (k - 1)  # side by side: intervals stay apart
        mine = sorted((r for r in rows if r[0] == label), key=lambda r: r[1])
        xs = [r[1] * shift for r in mine]
        ys = [r[4] / r[3] for r in mine]
        ax.plot(xs, ys, "-", color=colours[label], linewidth=1)
        for x, y, (_, _, today, n, pts) in zip(xs, ys, mine):
            low, high = wilson_bounds(pts, n)
            ax.errorbar([x], [y], yerr=[[y - low], [high - y]], fmt="o", capsize=3,
                        color=colours[label], markerfacecolor=colours[label] if today else "white")
        ax.plot([], [], "o-", color=colours[label], label=label)
    ax.plot([], [], "o", color="grey", markerfacecolor="white", label="earlier search")
    ax.plot([], [], "o", color="grey", label="today's search")
    ax.axhline(0.5, color="grey", linewidth=0.8, linestyle=":")
    ax.set_xscale("log")
    ax.set_xticks([300, 600, 2000, 12800], ["300", "600", "2,000", "12,800"])
    ax.set_xlabel("simulations a move")
    ax.set_ylabel("first player's score, 95% interval")
    ax.set_ylim(0.3, 0.8)
    ax.legend(fontsize="small", loc="upper left", ncol=2)
    ax.set_title("The first player's score in mcts self-play (Blobs: Red, whose die opens)",
                 fontsize="medium")
    fig.tight_layout()
    fig.savefig(args.out, dpi=110, metadata=png_metadata())
    print(f"wrote {args.out}")
    for label, sims, today, n, pts in sorted(rows):
        low, high = wilson_bounds(pts, n)
        print(f"{label:<14} sims={sims:<6} {'today' if today else 'earlier':<8} "
              f"{pts / n:.3f} ({low:.3f}-{high:.3f}) over {n}")


if __name__ == "__main__":
    run_main(main)
