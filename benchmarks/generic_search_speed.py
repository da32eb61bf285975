"""Simulations per CPU second of the protocol tree (``search/protocol_tree.py``, ``mcts:fast=off``;
the default of games without compiled tree kernels) and, in a game that has them, of its
compiled tree (``search/tree.py``, the default there),
from positions after 0, 20 and 40 random plies, at a fixed simulation budget, next to the
game's own batched numba playouts from the same positions in the same run (the baseline: a
simulation is one playout plus the tree's work, so the ratio is the share of raw playout
speed the tree keeps, and compares across loaded or noisy machines). CPU time
(``time.process_time``) rather than wall time, so a busy second core moves the figures less;
the search itself is the same for a fixed seed (the first move and its visits are printed, so
two builds can be checked to search alike).

    PYTHONPATH=src python benchmarks/generic_search_speed.py freego --sims 4000 --repeat 3
"""

from __future__ import annotations

import argparse
import json
import statistics
import time

import numpy as np
from provenance import positive_int, run_main

import stonegarden
from stonegarden.core.params import parse_param_options
from stonegarden.search.config import Budget, SearchConfig
from stonegarden.search.engines import new_engine as make


def positions(game, plies_list):
    for plies in plies_list:
        s = game.initial_state()
        rng = np.random.default_rng(plies)
        for _ in range(plies):
            acts = game.legal_actions(s)
            if len(acts) == 0:
                break
            s = game.play_unchecked(s, int(acts[rng.integers(len(acts))]))
        yield plies, s


def new_engine(game, kind: str):
    return make(game, SearchConfig(fast=kind == "compiled"), 1)


def rate(game, state, sims: int, kind: str) -> tuple[float, int, int, int]:
    new_engine(game, kind).search(state, Budget(sims=20))  # kernels loaded
    engine = new_engine(game, kind)
    t = time.process_time()
    res = engine.search(state, Budget(sims=sims))
    # the simulations made: a search may stop short of its budget (a proven root)
    return (res.sims / (time.process_time() - t), res.moves[0].action, res.moves[0].visits,
            res.sims)


def playout_rate(game, state, count: int) -> float:
    game.random_playouts(state, 10, 0)  # kernel loaded
    t = time.process_time()
    game.random_playouts(state, count, 1)
    return count / (time.process_time() - t)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    ap.add_argument("game")
    ap.add_argument("--param", action="append", default=[])
    ap.add_argument("--sims", type=positive_int, default=4000)
    ap.add_argument("--repeat", type=positive_int, default=3, help="median of this many runs")
    args = ap.parse_args()
    game = stonegarden.make(args.game, **dict(parse_param_options(args.param)))
    for plies, state in positions(game, (0, 20, 40)):
        if game.is_terminal(state):
            continue
        base = statistics.median(playout_rate(game, state, args.sims)
                                 for _ in range(args.repeat))
        kinds = ["protocol"] + (["compiled"] if type(new_engine(game, "compiled")).__name__
                                == "CompiledTree" else [])
        for kind in kinds:
            ours = [rate(game, state, args.sims, kind) for _ in range(args.repeat)]
            mcts = statistics.median(r[0] for r in ours)
            print(json.dumps({"game": args.game, "plies": plies, "engine": kind,
                              "sims": args.sims, "sims_made": ours[0][3],
                              "sims_per_cpu_s": round(mcts),
                              "playouts_per_cpu_s": round(base), "ratio": round(mcts / base, 2),
                              "first_move": ours[0][1], "first_move_visits": ours[0][2]}))


if __name__ == "__main__":
    run_main(main)
