"""The territory rules' playouts with ``eyes`` (never fill the mover's own eye, pass once
nothing else is left) against the uniform ones, in one run: playouts per second and their
mean length, and ``mcts`` simulations per second with ``eyes=on`` and without, from the same
positions (the empty board and those after 10 and 20 turns of a seeded random game). Rounds
alternate the two so that a change in the machine's load falls on both alike; prints the
ratios, then the figures, the command and the code version as JSON (written to ``--out`` too
when given: the files in ``benchmarks/results/`` are kept as measured).

    PYTHONPATH=src python3 benchmarks/territory_eyes.py [--size 5] [--seconds 2] [--rounds 2]
        [--out FILE]
"""

from __future__ import annotations

import argparse
import os
import time
from pathlib import Path

from model_speed import positions
from provenance import code_version, command, emit, positive_float, positive_int, progress, run_main

import stonegarden
from stonegarden.search.config import Budget, SearchConfig
from stonegarden.search.engines import make_engine

KINDS = {"eyes": True, "uniform": False}


def playout_rate(game: stonegarden.Game, state: stonegarden.State, eyes: bool,
                 seconds: float) -> tuple[int, int, float]:
    """(playouts, their turns, seconds) in batches of 200 for about ``seconds``."""
    game.eye_playouts(state, 2, 0, eyes)  # load the kernel outside the measure
    count = turns = 0
    start = time.perf_counter()
    while time.perf_counter() - start < seconds:
        totals = game.eye_playouts(state, 200, count + 1, eyes)
        count += 200
        turns += int(totals[3])
    return count, turns, time.perf_counter() - start


def search_rate(game: stonegarden.Game, state: stonegarden.State, eyes: bool,
                seconds: float) -> tuple[int, float]:
    config = SearchConfig().with_game_options({"eyes": int(eyes)})
    make_engine(game, config, 1).search(state, Budget(sims=20))
    res = make_engine(game, config, 1).search(state, Budget(seconds=seconds))
    return res.sims, res.seconds


def measure(game_name: str, doc: str | None) -> None:
    """The command line of this benchmark for ``game_name`` (whose game has ``eye_playouts``
    and whose search the ``eyes`` option)."""
    ap = argparse.ArgumentParser(description=doc,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--size", type=int, default=5)
    ap.add_argument("--seconds", type=positive_float, default=2.0)
    ap.add_argument("--rounds", type=positive_int, default=2)
    ap.add_argument("--out", type=Path, default=None, help="also write the JSON here")
    args = ap.parse_args()
    game = stonegarden.make(game_name, size=args.size)
    states = positions(game)
    play = {k: [0, 0, 0.0] for k in KINDS}
    search = {k: [0, 0.0] for k in KINDS}
    with progress(args.rounds * len(states) * len(KINDS), f"{game_name} n={args.size}",
                  "measures") as step:
        for _ in range(args.rounds):
            for state in states:
                for kind, eyes in KINDS.items():
                    n, t, s = playout_rate(game, state, eyes, args.seconds)
                    play[kind] = [play[kind][0] + n, play[kind][1] + t, play[kind][2] + s]
                    sims, secs = search_rate(game, state, eyes, args.seconds)
                    search[kind] = [search[kind][0] + sims, search[kind][1] + secs]
                    step()
    rows = {}
    for kind in KINDS:
        n, t, s = play[kind]
        rows[kind] = {"playouts_per_s": round(n / s), "mean_turns": round(t / n, 1),
                      "sims_per_s": round(search[kind][0] / search[kind][1])}
    e, u = rows["eyes"], rows["uniform"]
    ratios = {"playouts_per_s": round(e["playouts_per_s"] / u["playouts_per_s"], 3),
              "mean_turns": round(e["mean_turns"] / u["mean_turns"], 3),
              "sims_per_s": round(e["sims_per_s"] / u["sims_per_s"], 3)}
    print(f"{game_name} n={args.size}: playouts {e['playouts_per_s']:,}/s with eyes, "
          f"{u['playouts_per_s']:,}/s uniform ({ratios['playouts_per_s']:.2f}x); "
          f"{e['mean_turns']} against {u['mean_turns']} turns; mcts {e['sims_per_s']:,} "
          f"against {u['sims_per_s']:,} sims/s ({ratios['sims_per_s']:.2f}x)")
    emit({"command": command(), "code": code_version(),
          "date": time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime()),
          "loadavg": [round(x, 2) for x in os.getloadavg()], "game": game_name,
          "size": args.size,
          "seconds": args.seconds, "rounds": args.rounds, "positions": len(states),
          "eyes": e, "uniform": u, "ratio": ratios}, args.out)


if __name__ == "__main__":
    run_main(lambda: measure("blooms-territory", __doc__))
