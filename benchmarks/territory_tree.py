"""The territory rules' compiled split tree against the tree through the protocol, in one run:
``mcts`` simulations per second from the same positions (the empty board and those after 10
and 20 turns of a seeded random game), both with the eye playouts, one core, fresh trees.
Rounds alternate the two so that a change in the machine's load falls on both alike; prints
the ratio, then the figures, the command and the code version as JSON (written to ``--out``
too when given: the files in ``benchmarks/results/`` are kept as measured).

    PYTHONPATH=src python3 benchmarks/territory_tree.py [--size 5] [--seconds 2] [--rounds 2]
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

KINDS = {"compiled": 1, "protocol": 0}  # the ``split`` option


def search_rate(game: stonegarden.Game, state: stonegarden.State, split: int,
                seconds: float) -> tuple[int, float]:
    config = SearchConfig().with_game_options({"split": split})
    res = make_engine(game, config, 1).search(state, Budget(seconds=seconds))
    return res.sims, res.seconds


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--size", type=int, default=5)
    ap.add_argument("--seconds", type=positive_float, default=2.0)
    ap.add_argument("--rounds", type=positive_int, default=2)
    ap.add_argument("--out", type=Path, default=None, help="also write the JSON here")
    args = ap.parse_args()
    game = stonegarden.make("blooms-territory", size=args.size)
    states = positions(game)
    totals = {k: [0, 0.0] for k in KINDS}
    with progress(args.rounds * len(states) * len(KINDS), f"blooms-territory n={args.size}",
                  "searches") as step:
        for _ in range(args.rounds):
            for state in states:
                for kind, split in KINDS.items():
                    sims, secs = search_rate(game, state, split, args.seconds)
                    totals[kind] = [totals[kind][0] + sims, totals[kind][1] + secs]
                    step()
    rates = {k: round(v[0] / v[1]) for k, v in totals.items()}
    ratio = round(rates["compiled"] / rates["protocol"], 2)
    print(f"blooms-territory n={args.size}: mcts {rates['compiled']:,} sims/s in the compiled "
          f"tree, {rates['protocol']:,} through the protocol ({ratio:.2f}x)")
    emit({"command": command(), "code": code_version(),
          "date": time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime()),
          "loadavg": [round(x, 2) for x in os.getloadavg()], "size": args.size,
          "seconds": args.seconds, "rounds": args.rounds, "positions": len(states),
          "sims_per_s": rates, "ratio": ratio}, args.out)


if __name__ == "__main__":
    run_main(main)
