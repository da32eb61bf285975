"""Free Go random playouts per second against OpenSpiel's C++ ``go`` driven from Python.

Both measured in one run on the same machine:

- ours: ``make("freego", size=9).random_playouts`` (the numba kernel behind
  ``stonegarden bench playouts freego``), uniform over the legal moves, from the empty board;
- OpenSpiel: ``pyspiel.load_game("go", {"board_size": 9})`` played to the end by a Python loop
  that picks a uniformly random action from ``state.legal_actions()`` (pass included) and calls
  ``state.apply_action`` -- what a Python user of OpenSpiel writes for random playouts.

The games differ in length (Free Go ends at 10 captures, OpenSpiel's Go at two passes or 162
moves), so moves per second are printed too. OpenSpiel is optional: ``pip install open_spiel``.

    PYTHONPATH=src python benchmarks/bench_go_openspiel.py --seconds 5 --rounds 3
"""

from __future__ import annotations

import argparse
import json
import random
import time

from provenance import nonnegative_int, positive_float, positive_int, progress, run_main

import stonegarden


def bench_ours(size: int, seconds: float, seed: int) -> dict[str, float]:
    game = stonegarden.make("freego", size=size)
    start = game.initial_state()
    game.random_playouts(start, 2, 0)  # compile / load the kernel outside the timing
    count = moves = 0
    batch = 16
    t0 = time.perf_counter()
    while time.perf_counter() - t0 < seconds:
        totals = game.random_playouts(start, batch, seed + count)
        count += batch
        moves += int(totals[3])
        batch = min(batch * 2, 4096)
    elapsed = time.perf_counter() - t0
    return {"playouts": count, "seconds": elapsed, "playouts_per_s": count / elapsed,
            "moves_per_s": moves / elapsed, "mean_moves": moves / count}


def bench_openspiel(size: int, seconds: float, seed: int) -> dict[str, float]:
    import pyspiel

    game = pyspiel.load_game("go", {"board_size": size})
    rng = random.Random(seed)
    count = moves = 0
    t0 = time.perf_counter()
    while time.perf_counter() - t0 < seconds:
        state = game.new_initial_state()
        while not state.is_terminal():
            state.apply_action(rng.choice(state.legal_actions()))
            moves += 1
        count += 1
    elapsed = time.perf_counter() - t0
    return {"playouts": count, "seconds": elapsed, "playouts_per_s": count / elapsed,
            "moves_per_s": moves / elapsed, "mean_moves": moves / count}


def median_run(runs: list[dict[str, float]]) -> dict[str, float]:
    """The run with the median playouts per second."""
    return sorted(runs, key=lambda r: r["playouts_per_s"])[len(runs) // 2]


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--size", type=int, default=9)
    ap.add_argument("--seconds", type=positive_float, default=5.0, help="per side and round")
    ap.add_argument("--rounds", type=positive_int, default=3,
                    help="alternate the two sides this many times and report medians "
                         "(steadier on a shared machine)")
    ap.add_argument("--seed", type=nonnegative_int, default=1)
    ap.add_argument("--json", action="store_true", help="one JSON line")
    args = ap.parse_args()
    ours_runs, theirs_runs = [], []
    with progress(2 * args.rounds, f"freego {args.size}x{args.size}", "measures") as step:
        for r in range(args.rounds):
            ours_runs.append(bench_ours(args.size, args.seconds, args.seed + r))
            step()
            theirs_runs.append(bench_openspiel(args.size, args.seconds, args.seed + r))
            step()
    ours, theirs = median_run(ours_runs), median_run(theirs_runs)
    out = {
        "size": args.size,
        "rounds": len(ours_runs),
        "stonegarden_freego": ours,
        "openspiel_go_python_loop": theirs,
        "playouts_ratio": ours["playouts_per_s"] / theirs["playouts_per_s"],
        "moves_ratio": ours["moves_per_s"] / theirs["moves_per_s"],
    }
    if args.json:
        print(json.dumps(out))
        return
    n = args.size
    print(f"stonegarden freego {n}x{n} (numba kernel): {ours['playouts_per_s']:10.1f} playouts/s "
          f"{ours['moves_per_s']:12.0f} moves/s  (mean {ours['mean_moves']:.1f} moves)")
    print(f"OpenSpiel go {n}x{n} (Python random loop):  {theirs['playouts_per_s']:10.1f} "
          f"playouts/s {theirs['moves_per_s']:12.0f} moves/s  "
          f"(mean {theirs['mean_moves']:.1f} moves)")
    print(f"ratio (medians of {len(ours_runs)} alternating rounds): "
          f"{out['playouts_ratio']:.1f}x playouts/s, {out['moves_ratio']:.1f}x moves/s")


if __name__ == "__main__":
    run_main(main)
