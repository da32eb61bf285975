"""How well Free Go's learned value and its playouts each predict who wins, and their mix: on
the positions of the games a training run held out (``stonegarden train freego --out RUN``),
the Brier score (mean squared error against the mover's result, a draw a half) of the model's
value, of the mean of 1, 4 and 16 playouts of the search's playout policy (its default
options; the last good replies, which a search learns as it goes, left out), and of
``(1 - w) * playouts + w * value`` for w = 0, 0.1 .. 1: the share ``mcts:value`` gives the
value in each leaf's result.

    PYTHONPATH=src python3 benchmarks/value_mix.py --run RUN [--out FILE]

A constant guess of one half scores 0.25."""

from __future__ import annotations

import argparse
import json
import time
from pathlib import Path

import numpy as np
from provenance import code_version, command, emit

import stonegarden
from stonegarden.games.freego.model import FreeGoLearner
from stonegarden.games.freego.playouts import freego_playouts
from stonegarden.games.freego.search import CAPTURES, SAFE
from stonegarden.geometry.square import SIDE_TO_MOVE_KEY
from stonegarden.learn.model import load_model
from stonegarden.learn.train import HOLD_OUT

PLAYOUTS = (1, 4, 16)


def held_out_games(run: Path) -> list[dict]:
    records = [json.loads(line) for path in sorted((run / "data").glob("games-*.jsonl"))
               for line in path.read_text().splitlines() if line.strip()]
    return sorted((r for r in records if r["index"] % HOLD_OUT == HOLD_OUT - 1),
                  key=lambda r: r["index"])


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--run", type=Path, required=True, help="a training run's --out")
    ap.add_argument("--out", type=Path)
    args = ap.parse_args()
    game = stonegarden.make("freego")
    weights = load_model(args.run / "freego.npz").arrays["value"].astype(np.float64)
    learner = FreeGoLearner()
    nb, target = game.board.neighbours, int(game.params["target"])
    values, results, means = [], [], {k: [] for k in PLAYOUTS}
    games = held_out_games(args.run)
    for number, record in enumerate(games, 1):
        state, actions = game.initial_state(), []
        states = []
        for text in record["moves"]:
            action = game.parse_action(state, text)
            states.append(state)
            actions.append(action)
            state = game.play(state, action)
        rows, movers = learner.value_rows(game, actions)
        values.extend(1 / (1 + np.exp(-weights[rows].sum(axis=1))))
        for s, mover in zip(states, movers, strict=True):
            results.append(1.0 if record["winner"] == mover else
                           0.5 if record["winner"] == 0 else 0.0)
            prev = s.history[-2] if len(s.history) >= 2 else 0
            for count in PLAYOUTS:
                seed = record["index"] * 100_003 + len(results) * 17 + count
                totals = freego_playouts(
                    s.cells().copy(), nb, game.board.zobrist, SIDE_TO_MOVE_KEY, s.player,
                    np.array(s.scores, np.int64), target, game.ko_mode,
                    np.int64(game.position_hash(s)), np.int64(prev),
                    np.array(s.history[:-1], np.int64), game.max_game_length, count, seed,
                    CAPTURES.default, SAFE.default)
                means[count].append((totals[mover - 1] + 0.5 * totals[2]) / count)
        if number % 20 == 0 or number == len(games):
            print(f"game {number}/{len(games)}: {len(results)} positions", flush=True)
    y, v = np.array(results), np.array(values)

    def brier(e: np.ndarray) -> float:
        return round(float(np.mean((e - y) ** 2)), 4)

    mixes = {str(count): {f"{w / 10:.1f}": brier((1 - w / 10) * np.array(means[count])
                                                 + w / 10 * v) for w in range(11)}
             for count in PLAYOUTS}
    emit({"command": command(), "code": code_version(),
          "date": time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime()),
          "run": str(args.run), "games": len(games), "positions": len(y),
          "policy": {"captures": CAPTURES.default, "safe": SAFE.default},
          "brier": {"value": brier(v), "one_half": brier(np.full(len(y), 0.5)),
                    **{f"playouts_{k}": brier(np.array(means[k])) for k in PLAYOUTS}},
          "brier_of_the_mix_by_value_share": mixes}, args.out)


if __name__ == "__main__":
    main()
