"""Whether a game's shipped move model points the way a deeper search goes: along seeded
games of a quick search (one move in five random), a deeper search without the model is run
at about half the positions with more than three moves; where it proves nothing, the share
of the moves the model rates above that search's first choice is recorded, with that move's
prior and the mean prior, by the player to move. For games whose protocol tree reads the
model (``SearchProfile.prior_values_for``): Blobs, Bridge Go, ``blooms-territory``.

    PYTHONPATH=src python3 benchmarks/model_ranks.py [--game blobs] [--games 12] [--sims 6000]

A share near 0 means the model rates the search's choice above nearly every other move; a
uniform guess gives one half."""

from __future__ import annotations

import argparse
import time
from pathlib import Path

import numpy as np
from provenance import code_version, command, emit, nonnegative_int, positive_int, run_main

import stonegarden
from stonegarden.agents.registry import make_agent
from stonegarden.core.protocol import CHANCE
from stonegarden.search.config import Budget, SearchConfig
from stonegarden.search.engines import make_engine
from stonegarden.search.profile import profile_for


def readers() -> list[str]:
    """The games whose protocol tree reads their shipped model."""
    out = []
    for game_id in stonegarden.available_games():
        profile = profile_for(stonegarden.make(game_id))
        if profile.prior_values_for(SearchConfig(model="shipped")) != profile.prior_values:
            out.append(game_id)
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--game", default="blobs")
    ap.add_argument("--games", type=positive_int, default=12)
    ap.add_argument("--sims", type=positive_int, default=6000, help="the deeper search's simulations")
    ap.add_argument("--seed", type=nonnegative_int, default=0)
    ap.add_argument("--out", type=Path)
    args = ap.parse_args()
    game = stonegarden.make(args.game)
    profile = profile_for(game)
    priors = profile.prior_values_for(SearchConfig(model="shipped"))
    if priors is None or priors == profile.prior_values:  # the hand-made priors, not a model
        ap.error(f"--game {args.game}: its protocol tree reads no model (the games whose "
                 f"tree does: {', '.join(readers())})")
    rng = np.random.default_rng(args.seed)
    quick = make_agent("mcts:sims=200,model=none,seed=3")
    rows: dict[int, list[tuple[float, float, float]]] = {1: [], 2: []}
    for number in range(1, args.games + 1):
        state = game.initial_state()
        while not game.is_terminal(state):
            if state.player == CHANCE:
                state = game.play(state, game.chance_outcomes(state)[0][0])
                continue
            acts = np.asarray(game.legal_actions(state), np.int64)
            if len(acts) > 3 and rng.random() < 0.5:
                deep = make_engine(game, SearchConfig(model="none"), 1).search(
                    state, Budget(sims=args.sims))
                if deep.proven is None:
                    pr = np.asarray(priors(state, acts, -1))
                    k = int(np.flatnonzero(acts == deep.moves[0].action)[0])
                    rows[state.player].append(
                        (float((pr > pr[k]).sum()) / len(acts), float(pr[k]), float(pr.mean())))
            move = quick.choose(game, state) if rng.random() < 0.8 else int(rng.choice(acts))
            state = game.play(state, move)
        print(f"game {number}/{args.games}: {sum(map(len, rows.values()))} positions", flush=True)
    by_player = {}
    for player, got in rows.items():
        a = np.array(got).reshape(-1, 3)
        by_player[str(player)] = {
            "positions": len(a),
            "share_rated_above": round(float(a[:, 0].mean()), 3) if len(a) else None,
            "prior_of_search_first": round(float(a[:, 1].mean()), 3) if len(a) else None,
            "mean_prior": round(float(a[:, 2].mean()), 3) if len(a) else None}
    emit({"command": command(), "code": code_version(),
          "date": time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime()),
          "game": args.game, "games": args.games, "sims": args.sims, "seed": args.seed,
          "by_player_to_move": by_player}, args.out)


if __name__ == "__main__":
    run_main(main)
