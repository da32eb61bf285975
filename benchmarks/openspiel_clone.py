"""OpenSpiel ``State.clone()`` per second for a stonegarden game, against the same clone with
the game deep-copied as well (what a clone did while games were copied with their states),
measured in one run. OpenSpiel clones a Python state by deep-copying its attributes; the
state holds its game, which never changes, so a copy shares it.

    PYTHONPATH=src python benchmarks/openspiel_clone.py --game blooms --param size=6 \\
        --out benchmarks/results/openspiel-clone.json
"""

from __future__ import annotations

import argparse
import copy
import time
from pathlib import Path
from typing import Any

from provenance import code_version, command, emit, nonnegative_int, positive_float, run_main


def clones_per_second(state: Any, seconds: float, deep_copy_game: bool) -> float:
    count, t0 = 0, time.perf_counter()
    while time.perf_counter() - t0 < seconds:
        clone = state.clone()
        if deep_copy_game:  # the game object an independent copy of the state would carry
            copy.deepcopy(clone.sg.__getstate__())  # its data, as it pickles (params a dict)
        count += 1
    return count / (time.perf_counter() - t0)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--game", default="blooms")
    parser.add_argument("--param", action="append", default=[], help="NAME=VALUE")
    parser.add_argument("--moves", type=nonnegative_int, default=10,
                        help="moves played before cloning (fewer where the game ends first)")
    parser.add_argument("--seconds", type=positive_float, default=3.0)
    parser.add_argument("--out", type=Path, default=None)
    args = parser.parse_args()

    import pyspiel

    import stonegarden
    from stonegarden.core.params import parse_param_options
    from stonegarden.interop.openspiel import openspiel_name

    # refused here in one line: OpenSpiel answers a bad game with its list of every game
    stonegarden.make(args.game, **dict(parse_param_options(args.param)))
    params = ",".join(args.param)
    game = pyspiel.load_game(f"{openspiel_name(args.game)}({params})" if params
                             else openspiel_name(args.game))
    state = game.new_initial_state()
    played = 0
    while played < args.moves and not state.is_terminal():
        legal = state.legal_actions()
        state.apply_action(legal[len(legal) // 2])
        played += 1
    shared = clones_per_second(state, args.seconds, deep_copy_game=False)
    copied = clones_per_second(state, args.seconds, deep_copy_game=True)
    emit({"command": command(), "code": code_version(), "game": str(game),
          "moves": played, "clones_per_s_game_shared": round(shared),
          "clones_per_s_game_copied": round(copied), "ratio": round(shared / copied, 1)},
         args.out)


if __name__ == "__main__":
    run_main(main)
