"""Simulations per second of ``mcts`` with its learned move model and without
(``mcts:model=none``), measured in one run from the same positions: the initial one and those
after 10 and 20 turns of a seeded random game. Rounds alternate the two so that a change in
the machine's load falls on both alike. Prints the ratio with / without per game, then
the figures, the command and the code version as JSON (written to ``--out`` too when given).

    PYTHONPATH=src python3 benchmarks/model_speed.py [--games blooms] [--seconds 2] [--rounds 3]
        [--model PATH]

``--model PATH`` measures that model file (one game) instead of the game's shipped model;
``--options K=V,..`` gives the search with the model the game's options too (for example
``patterns=4`` in Free Go, whose playouts then read the model).

Target: the ratio is at least 0.5 (the model may cost at most half the simulations)."""

from __future__ import annotations

import argparse
import os
import time
from pathlib import Path

import numpy as np
from provenance import code_version, command, emit, positive_float, positive_int, progress, run_main

import stonegarden
from stonegarden.agents.registry import agent_for
from stonegarden.core.protocol import State
from stonegarden.search.config import Budget, SearchConfig
from stonegarden.search.engines import make_engine
from stonegarden.search.profile import profile_for

GAMES: dict[str, dict[str, object]] = {"blooms": {"size": 5}, "freego": {}}


def positions(game: stonegarden.Game, seed: int = 7) -> list[State]:
    rng = np.random.default_rng(seed)
    state, out = game.initial_state(), []
    for turn in range(21):
        if turn in (0, 10, 20):
            out.append(state)
        if game.is_terminal(state):
            break
        acts = game.legal_actions(state)
        state = game.play(state, int(acts[rng.integers(len(acts))]))
    return out


def rate(game: stonegarden.Game, config: SearchConfig, state: State,
         seconds: float) -> tuple[int, float]:
    engine = make_engine(game, config, 1)
    engine.search(state, Budget(sims=50))  # load the kernels outside the measure
    engine = make_engine(game, config, 1)
    res = engine.search(state, Budget(seconds=seconds))
    return res.sims, res.seconds


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--games", default="blooms")
    ap.add_argument("--seconds", type=positive_float, default=2.0)
    ap.add_argument("--rounds", type=positive_int, default=3)
    ap.add_argument("--model", default="shipped", help="a model file (one game), or shipped")
    ap.add_argument("--options", default="", help="game options of the search with the model")
    ap.add_argument("--out", type=Path, default=None, help="also write the JSON here")
    args = ap.parse_args()
    if args.model.lower() in ("none", "shipped"):
        args.model = args.model.lower()
    if args.model == "none":  # the search without a model is what the model is measured against
        ap.error("--model none measures the search without a model against itself: give "
                 "shipped or a model file")
    if args.model != "shipped" and "," in args.games:
        ap.error("--model PATH measures one game")
    rows = []
    for game_id in args.games.split(","):
        game = stonegarden.make(game_id, **GAMES.get(game_id, {}))
        # the options as the search's spec takes them, checked against the game
        options = dict(agent_for(game, f"mcts:{args.options}").config.game) if args.options else {}
        configs = {"model": SearchConfig(model=args.model).with_game_options(options),
                   "none": SearchConfig(model="none")}
        if args.model == "shipped" and profile_for(game).shipped_model_path() is None:
            print(f"{game_id}: no shipped model, skipped")
            continue
        measured = profile_for(game).model_for(SearchConfig(model=args.model))
        assert measured is not None
        totals = {"model": [0, 0.0], "none": [0, 0.0]}
        states = positions(game)
        with progress(args.rounds * len(states) * len(configs), game_id, "searches") as step:
            for _ in range(args.rounds):
                for state in states:
                    for key, config in configs.items():
                        sims, secs = rate(game, config, state, args.seconds)
                        totals[key][0] += sims
                        totals[key][1] += secs
                        step()
        with_model = totals["model"][0] / totals["model"][1]
        without = totals["none"][0] / totals["none"][1]
        ratio = with_model / without
        print(f"{game_id}: {with_model:,.0f} sims/s with the model, {without:,.0f} without: "
              f"ratio {ratio:.2f}")
        rows.append({"game": game_id, "params": GAMES.get(game_id, {}),
                     "sims_per_s_model": round(with_model), "sims_per_s_none": round(without),
                     "ratio": round(ratio, 3), "model": Path(measured.path).name,
                     "options": options,
                     "weights": measured.meta.get("fit", {}).get("weights")})
    result = {"command": command(), "code": code_version(),
              "date": time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime()),
              "loadavg": [round(x, 2) for x in os.getloadavg()],
              "seconds": args.seconds, "rounds": args.rounds, "games": rows}
    emit(result, args.out)


if __name__ == "__main__":
    run_main(main)
