"""Our `mcts` against OpenSpiel's MCTSBot (random rollouts) through the OpenSpiel adapter, at
the same wall time per move, seats alternating.

OpenSpiel's MCTSBot budgets simulations, not time, so its simulation count is re-tuned after
every move to keep its mean time per move at the target (both sides' mean times are printed).

    python benchmarks/peer_openspiel.py --games 40 --time 0.5 --workers 2
"""

from __future__ import annotations

import argparse
import concurrent.futures as cf
import json
import multiprocessing
import time

import numpy as np
from provenance import positive_float, positive_int, run_main

GAMES = {"freego-9": ("freego", {"size": 9}), "blooms-4": ("blooms", {"size": 4})}


def play(task: dict) -> dict:
    import pyspiel
    from open_spiel.python.algorithms import mcts

    import stonegarden
    from stonegarden.agents import make_agent
    from stonegarden.interop.openspiel import openspiel_name

    game_id, params = GAMES[task["game"]]
    budget, i = task["time"], task["index"]
    ours_seat = 1 if i % 2 == 0 else 2
    game = stonegarden.make(game_id, **params)
    os_game = pyspiel.load_game(
        f"{openspiel_name(game_id)}({','.join(f'{k}={v}' for k, v in params.items())})")
    agent = make_agent(f"mcts:time={budget},seed={i}")
    sims = 50
    bot = mcts.MCTSBot(os_game, uct_c=2.0, max_simulations=sims,
                       evaluator=mcts.RandomRolloutEvaluator(1, np.random.RandomState(i)),
                       random_state=np.random.RandomState(1000 + i), solve=True)
    for _ in range(3):  # calibrate the simulation count on the opening before the game
        t0 = time.perf_counter()
        bot.max_simulations = sims
        bot.step(os_game.new_initial_state())
        sims = max(10, int(sims * min(4.0, budget / max(time.perf_counter() - t0, 1e-3))))
    state, os_state = game.initial_state(), os_game.new_initial_state()
    times: dict[str, list[float]] = {"ours": [], "openspiel": []}
    while not game.is_terminal(state):
        t0 = time.perf_counter()
        if game.current_player(state) == ours_seat:
            action = agent.choose(game, state)
            times["ours"].append(time.perf_counter() - t0)
        else:
            bot.max_simulations = sims
            action = bot.step(os_state)
            spent = time.perf_counter() - t0
            times["openspiel"].append(spent)
            # steer the simulation count toward the time budget
            sims = max(10, int(sims * min(2.0, max(0.5, budget / max(spent, 1e-3)))))
        state = game.play(state, int(action))
        os_state.apply_action(int(action))
    w = game.winner(state)
    return {"game": task["game"], "index": i, "ours_seat": ours_seat, "winner": w,
            "ours_won": w == ours_seat, "draw": w == 0, "moves": state.ply,
            "ours_s_per_move": float(np.mean(times["ours"])),
            "openspiel_s_per_move": float(np.mean(times["openspiel"])),
            "openspiel_last_sims": sims}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--games", type=positive_int, default=40)
    ap.add_argument("--time", type=positive_float, default=0.5)
    ap.add_argument("--workers", type=positive_int, default=2)
    ap.add_argument("--only", choices=list(GAMES), default=None)
    args = ap.parse_args()
    from stonegarden.lab.statistics import elo_estimate, wilson

    names = [args.only] if args.only else list(GAMES)
    tasks = [{"game": g, "index": i, "time": args.time} for g in names for i in range(args.games)]
    results: dict[str, list[dict]] = {g: [] for g in names}
    ctx = multiprocessing.get_context("spawn")
    with cf.ProcessPoolExecutor(args.workers, mp_context=ctx) as pool:
        for r in pool.map(play, tasks):
            results[r["game"]].append(r)
            print(json.dumps(r), flush=True)
    print("| game | games | mcts wins | draws | OpenSpiel wins | mcts score [95%] | Elo [95%] "
          "| s/move mcts / OpenSpiel |")
    print("|---|---|---|---|---|---|---|---|")
    for g, rs in results.items():
        wins = sum(r["ours_won"] for r in rs)
        draws = sum(r["draw"] for r in rs)
        losses = len(rs) - wins - draws
        s = wilson(wins + 0.5 * draws, len(rs))
        e = elo_estimate(wins, losses, draws)
        print(f"| {g} | {len(rs)} | {wins} | {draws} | {losses} | {s.value:.3f} "
              f"[{s.low:.3f}, {s.high:.3f}] | {e.value:+.0f} [{e.low:+.0f}, {e.high:+.0f}] | "
              f"{np.mean([r['ours_s_per_move'] for r in rs]):.2f} / "
              f"{np.mean([r['openspiel_s_per_move'] for r in rs]):.2f} |")


if __name__ == "__main__":
    run_main(main)
