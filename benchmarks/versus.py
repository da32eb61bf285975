"""A match between the same agent spec run by two checkouts of stonegarden (``--a SRC`` and
``--b SRC``), to show that a change kept the search's strength: each side is a worker process
with that checkout's ``src`` on its ``PYTHONPATH``; the games are kept by this process (with
the rules of the checkout it runs in). Seats alternate (A moves first in even-numbered games);
the player moving first in game ``i`` searches with seed ``2i + 1``, the other with ``2i + 2``,
whichever checkout it is. Prints A's score with its Wilson 95% interval, and writes the JSON
(with the command and both checkouts' commits) to ``--out``.

    python benchmarks/versus.py --a src --b OLD_CHECKOUT/src freego "mcts:sims=1000" --games 200 \\
        --workers 2 --out benchmarks/results/versus-freego.json
"""

from __future__ import annotations

import argparse
import json
import math
import os
import subprocess
import sys
import tempfile
import threading
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import numpy as np
from provenance import checkout_src, code_version, positive_int, run_main

from stonegarden.errors import JobError

WORKER = r"""
import json, signal, sys
signal.signal(signal.SIGINT, signal.SIG_IGN)  # Ctrl-C is the match's to handle: it ends us
import stonegarden
from stonegarden.agents import make_agent
game = agent = None
for line in sys.stdin:
    q = json.loads(line)
    if q["cmd"] == "new":
        game = stonegarden.make(q["game"], **q["params"])
        agent = make_agent(q["spec"])
        out = {"ok": True}
    else:
        state = game.replay(q["moves"])[-1]
        out = {"move": game.action_to_text(state, agent.choose(game, state))}
    sys.stdout.write(json.dumps(out) + "\n")
    sys.stdout.flush()
"""


class Worker:
    def __init__(self, src: Path) -> None:
        env = dict(os.environ, PYTHONPATH=str(src))
        self.src = src
        self.stderr = tempfile.TemporaryFile()  # noqa: SIM115 (open while the worker runs)
        self.proc = subprocess.Popen([sys.executable, "-c", WORKER], stdin=subprocess.PIPE,
                                     stdout=subprocess.PIPE, stderr=self.stderr, text=True,
                                     env=env)

    def ask(self, query: dict) -> dict:
        assert self.proc.stdin is not None and self.proc.stdout is not None
        try:
            self.proc.stdin.write(json.dumps(query) + "\n")
            self.proc.stdin.flush()
            line = self.proc.stdout.readline()
        except OSError:  # its end of the pipe is gone: it died
            line = ""
        if not line:
            raise JobError(f"the worker of {self.src} ended: {self.last_words()}", reason="died")
        return json.loads(line)

    def last_words(self) -> str:
        """The last line the worker wrote on stderr (why it ended), or its exit status."""
        self.proc.wait(timeout=60)
        self.stderr.seek(0)
        said = self.stderr.read().decode(errors="replace").strip().splitlines()
        return said[-1] if said else f"exit status {self.proc.returncode}"

    def close(self) -> None:
        if self.proc.stdin is not None:
            self.proc.stdin.close()
        self.proc.wait(timeout=60)

    def kill(self) -> None:
        """End the worker now, mid-search (a stopped match)."""
        self.proc.kill()
        self.proc.wait()


def wilson(score: float, n: int, z: float = 1.96) -> tuple[float, float]:
    if n == 0:
        return 0.0, 1.0
    centre = (score + z * z / (2 * n)) / (1 + z * z / n)
    half = z * math.sqrt(score * (1 - score) / n + z * z / (4 * n * n)) / (1 + z * z / n)
    return centre - half, centre + half


def play(game_id: str, params: dict, spec: str, index: int, workers: dict[str, Worker]) -> dict:
    import stonegarden
    from stonegarden.core.protocol import CHANCE

    game = stonegarden.make(game_id, **params)
    seats = {1: "a", 2: "b"} if index % 2 == 0 else {1: "b", 2: "a"}
    sep = "," if ":" in spec else ":"
    for player, side in seats.items():
        workers[side].ask({"cmd": "new", "game": game_id, "params": params,
                           "spec": f"{spec}{sep}seed={2 * index + player}"})
    rng = np.random.default_rng(index)
    state = game.initial_state()
    moves: list[str] = []
    while not game.is_terminal(state):
        if game.current_player(state) == CHANCE:
            outcomes = game.chance_outcomes(state)
            p = np.array([q for _, q in outcomes])
            action = outcomes[int(rng.choice(len(outcomes), p=p / p.sum()))][0]
            text = game.action_to_text(state, action)
        else:
            text = workers[seats[game.current_player(state)]].ask({"cmd": "move",
                                                                   "moves": moves})["move"]
        moves.append(text)
        state = game.play_text(state, text)
    winner = game.winner(state)
    a_score = 0.5 if not winner else (1.0 if seats[winner] == "a" else 0.0)
    return {"game": index, "a_first": seats[1] == "a", "winner": winner, "a_score": a_score,
            "plies": len(moves)}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--a", type=checkout_src, required=True, help="src directory of checkout A")
    ap.add_argument("--b", type=checkout_src, required=True, help="src directory of checkout B")
    ap.add_argument("game")
    ap.add_argument("spec", help="the agent spec both sides play (without seed)")
    ap.add_argument("--param", action="append", default=[], metavar="K=V")
    ap.add_argument("--games", type=positive_int, default=200)
    ap.add_argument("--workers", type=positive_int, default=2)
    ap.add_argument("--out", type=Path)
    args = ap.parse_args()
    params = {}
    for item in args.param:
        key, _, value = item.partition("=")
        params[key] = json.loads(value) if value[:1].isdigit() or value in ("true", "false") \
            else value
    import stonegarden
    from stonegarden.agents.registry import agent_for

    # a game or spec this checkout refuses stops the match before any worker starts
    agent_for(stonegarden.make(args.game, **params), args.spec)
    local = threading.local()
    pool_workers: list[dict[str, Worker]] = []
    lock = threading.Lock()

    def run(index: int) -> dict:
        if not hasattr(local, "workers"):
            local.workers = {"a": Worker(args.a.resolve()), "b": Worker(args.b.resolve())}
            with lock:
                pool_workers.append(local.workers)
        return play(args.game, params, args.spec, index, local.workers)

    t0 = time.time()
    results = []
    pool = ThreadPoolExecutor(args.workers)
    try:
        for done, r in enumerate(pool.map(run, range(args.games)), start=1):
            results.append(r)
            score = sum(x["a_score"] for x in results)
            print(f"{done}/{args.games}: A {score:g} of {done}", file=sys.stderr, flush=True)
    except BaseException:  # Ctrl-C, or a worker that died: no game is started after it
        pool.shutdown(wait=False, cancel_futures=True)
        with lock:
            for w in pool_workers:
                for worker in w.values():
                    worker.kill()
        raise
    pool.shutdown()
    for w in pool_workers:
        for worker in w.values():
            worker.close()
    n = len(results)
    score = sum(r["a_score"] for r in results) / n
    lo, hi = wilson(score, n)
    out = {
        "command": " ".join([Path(sys.argv[0]).name, *sys.argv[1:]]),
        "date": time.strftime("%Y-%m-%d %H:%M:%S"),
        "a": code_version(args.a), "b": code_version(args.b),
        "game": args.game, "params": params, "spec": args.spec, "games": n,
        "a_wins": sum(r["a_score"] == 1.0 for r in results),
        "b_wins": sum(r["a_score"] == 0.0 for r in results),
        "draws": sum(r["a_score"] == 0.5 for r in results),
        "a_score": round(score, 4), "a_score_ci95": [round(lo, 4), round(hi, 4)],
        "contains_half": lo <= 0.5 <= hi,
        "seconds": round(time.time() - t0, 1),
        "results": results,
    }
    text = json.dumps(out, indent=1)
    print(json.dumps({k: v for k, v in out.items() if k != "results"}))
    if args.out is not None:
        args.out.parent.mkdir(parents=True, exist_ok=True)
        args.out.write_text(text + "\n")


if __name__ == "__main__":
    run_main(main)
