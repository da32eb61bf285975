"""MCTS simulations per second from the empty Blooms board (n=5 by default), for every
technique switched off in turn (the learned model, which plain ``mcts`` loads, among them), next
to the baseline ``uct-flat`` measured in the same run.

    PYTHONPATH=src python benchmarks/bench_search.py [--size 5] [--seconds 3]

Target: at least 10,000 simulations per second for ``mcts`` on one core."""

from __future__ import annotations

import argparse

from provenance import positive_float, run_main

import stonegarden
from stonegarden.agents import make_agent
from stonegarden.search.config import Budget

VARIANTS = [
    "uct-flat",
    "mcts",
    "mcts:model=none",
    "mcts:split=off",
    "mcts:rave=off",
    "mcts:solver=off",
    "mcts:captures=4",
    "mcts:grave=20",
    "mcts:fast=off",
]


def rate(game, spec: str, seconds: float) -> float:
    agent = make_agent(spec)
    agent.analyse(game, game.initial_state(), Budget(sims=2))  # compile / warm up
    agent = make_agent(spec)
    res = agent.analyse(game, game.initial_state(), Budget(seconds=seconds))
    return res.sims / res.seconds


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--size", type=int, default=5)
    ap.add_argument("--seconds", type=positive_float, default=3.0)
    args = ap.parse_args()
    game = stonegarden.make("blooms", size=args.size)  # the switches are the Blooms race's
    base = rate(game, "uct-flat", args.seconds)
    print(f"blooms size={args.size}: simulations per second from the empty board")
    for spec in VARIANTS:
        r = base if spec == "uct-flat" else rate(game, spec, args.seconds)
        print(f"  {spec:<18} {r:>10.0f}/s   x{r / base:.2f} of uct-flat")


if __name__ == "__main__":
    run_main(main)
