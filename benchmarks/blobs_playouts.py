"""Blobs random playouts per second: the numba kernel against the generic protocol loop
(``Game.random_playouts``, which goes through ``play_unchecked``), measured in the same run.

    PYTHONPATH=src python benchmarks/blobs_playouts.py [--seconds 3]

Prints one line per variant (default rules, Tumbling Dice) with both rates and their ratio.
"""

from __future__ import annotations

import argparse
import time

from provenance import positive_float, run_main

import stonegarden
from stonegarden.core.protocol import Game


def rate(run, seconds: float) -> float:
    """Playouts per second of ``run(count, seed)`` over about ``seconds``."""
    run(1, 0)  # compile or warm up outside the timing
    count, batch, t0 = 0, 1, time.perf_counter()
    while time.perf_counter() - t0 < seconds:
        run(batch, count)
        count += batch
        batch = min(batch * 2, 4096)
    return count / (time.perf_counter() - t0)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seconds", type=positive_float, default=3.0)
    args = parser.parse_args()
    for params in ({}, {"tumbling": True}):
        game = stonegarden.make("blobs", **params)
        s = game.initial_state()
        fast = rate(lambda n, seed, g=game, s=s: g.random_playouts(s, n, seed), args.seconds)
        slow = rate(lambda n, seed, g=game, s=s: Game.random_playouts(g, s, n, seed),
                    args.seconds)
        print(f"blobs {game.non_default_params()}: kernel {fast:,.0f}/s, protocol loop "
              f"{slow:,.0f}/s, ratio {fast / slow:.0f}x")


if __name__ == "__main__":
    run_main(main)
