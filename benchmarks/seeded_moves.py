"""What seeded searches choose, as JSON, so two checkouts can be compared move for move.

Each case is a game, a position (reached by seeded uniformly random moves from the start), an
agent spec with a seed and a simulation budget; the output lists the move ranked first, the
root moves' visits and the principal variation, and, for a few cases, the moves of a short
self-play game in which one agent keeps its tree between moves. Run it under each checkout's
``PYTHONPATH`` and compare the two files:

    PYTHONPATH=OLD_CHECKOUT/src python benchmarks/seeded_moves.py > old.json
    PYTHONPATH=src python benchmarks/seeded_moves.py > new.json
    python benchmarks/seeded_moves.py --compare old.json new.json
"""

from __future__ import annotations

import argparse
import json
import signal
import subprocess
import sys
from pathlib import Path

import numpy as np

#: (game, params, random plies before the search, agent spec, simulations)
CASES: list[tuple[str, dict, int, str, int]] = [
    ("blooms", {"size": 5}, 0, "mcts:seed=7", 3000),
    ("blooms", {"size": 5}, 12, "mcts:seed=7", 3000),
    ("blooms", {"size": 5}, 30, "mcts:seed=3", 3000),
    ("blooms", {"size": 5}, 12, "mcts:seed=7,split=off", 2000),
    ("blooms", {"size": 5}, 12, "mcts:seed=7,captures=4", 2000),
    ("blooms", {"size": 5}, 12, "mcts:seed=7,grave=20", 2000),
    ("blooms", {"size": 5}, 12, "mcts:seed=7,rave=off", 2000),
    ("blooms", {"size": 4}, 20, "mcts:seed=5", 20000),
    ("freego", {}, 0, "mcts:seed=7", 3000),
    ("freego", {}, 24, "mcts:seed=7", 3000),
    ("freego", {}, 24, "mcts:seed=7,lgr=off,prior=0", 2000),
    ("freego", {"ko": "superko"}, 24, "mcts:seed=7", 1000),
    ("bridgego", {}, 10, "mcts:seed=7", 1000),
    ("bridgego", {"size": 7}, 20, "mcts:seed=2", 1000),
    ("blobs", {}, 4, "mcts:seed=7", 1000),
    ("blobs", {"dice": 12, "tumbling": True}, 3, "mcts:seed=7", 500),
    ("blooms-territory", {"size": 4}, 6, "mcts:seed=7", 500),
    ("blooms", {"size": 5}, 12, "uct-flat:seed=7", 2000),
    ("freego", {}, 24, "uct-flat:seed=7", 1000),
]

#: (game, params, agent spec, simulations per move, moves): self-play with tree reuse
GAMES: list[tuple[str, dict, str, int, int]] = [
    ("blooms", {"size": 5}, "mcts:seed=11", 1500, 12),
    ("freego", {}, "mcts:seed=11", 1500, 16),
    ("bridgego", {"size": 7}, "mcts:seed=11", 500, 10),
    ("blobs", {}, "mcts:seed=11", 500, 8),
]


def position(game, plies: int, seed: int = 1):
    from stonegarden.core.protocol import CHANCE

    rng = np.random.default_rng(seed)
    state = game.initial_state()
    for _ in range(plies):
        if game.is_terminal(state):
            break
        if game.current_player(state) == CHANCE:
            outcomes = game.chance_outcomes(state)
            state = game.play(state, int(outcomes[int(rng.integers(len(outcomes)))][0]))
            continue
        acts = game.legal_actions(state)
        state = game.play(state, int(acts[int(rng.integers(len(acts)))]))
    while game.current_player(state) == CHANCE:
        state = game.play(state, int(game.chance_outcomes(state)[0][0]))
    return state


def search_agent(spec: str):
    from stonegarden.agents import make_agent
    from stonegarden.agents.search_agents import SearchAgent

    agent = make_agent(spec)
    assert isinstance(agent, SearchAgent)
    return agent


def code_version(package: Path) -> str:
    """The commit of the checkout ``package`` (the stonegarden imported) is in, ``+dirty`` with
    changes in its ``src``: which checkout's moves these are (this script runs under another
    checkout's ``PYTHONPATH``)."""
    src = package.parent
    try:
        rev = subprocess.run(["git", "-C", str(src), "rev-parse", "HEAD"], capture_output=True,
                             text=True, check=True).stdout.strip()
        dirty = subprocess.run(["git", "-C", str(src), "status", "--porcelain", "--", "."],
                               capture_output=True, text=True).stdout.strip()
    except (subprocess.CalledProcessError, FileNotFoundError):
        return f"unknown ({src})"
    return rev + ("+dirty" if dirty else "")


def run() -> dict:
    import stonegarden
    from stonegarden.search.config import Budget

    package = Path(stonegarden.__file__).resolve().parent
    out: dict = {"command": " ".join([Path(sys.executable).name, *sys.argv]),
                 "code": code_version(package), "src": str(package.parent),
                 "searches": [], "games": []}
    for number, (game_id, params, plies, spec, sims) in enumerate(CASES, start=1):
        print(f"search {number}/{len(CASES)}: {game_id} {spec}", file=sys.stderr, flush=True)
        game = stonegarden.make(game_id, **params)
        state = position(game, plies)
        res = search_agent(spec).analyse(game, state, Budget(sims=sims))
        out["searches"].append({
            "game": game_id, "params": params, "plies": plies, "agent": spec, "sims": sims,
            "best": game.action_to_text(state, res.best),
            "visits": [[game.action_to_text(state, m.action), m.visits] for m in res.moves[:8]],
            "value": round(res.value, 6), "proven": res.proven,
        })
    for number, (game_id, params, spec, sims, moves) in enumerate(GAMES, start=1):
        print(f"game {number}/{len(GAMES)}: {game_id} {spec}", file=sys.stderr, flush=True)
        game = stonegarden.make(game_id, **params)
        from stonegarden.core.protocol import CHANCE

        agent = search_agent(spec)
        state = game.initial_state()
        played = []
        for _ in range(moves):
            if game.is_terminal(state):
                break
            if game.current_player(state) == CHANCE:
                action = int(game.chance_outcomes(state)[0][0])
            else:
                action = agent.analyse(game, state, Budget(sims=sims)).best
            played.append(game.action_to_text(state, action))
            state = game.play(state, action)
        out["games"].append({"game": game_id, "params": params, "agent": spec, "sims": sims,
                             "moves": played})
    return out


def compare(a_path: str, b_path: str) -> int:
    try:
        a, b = (json.loads(Path(p).read_text()) for p in (a_path, b_path))
    except (OSError, ValueError) as exc:
        sys.exit(f"seeded_moves.py: error: --compare: {exc}")
    print(f"a: {a.get('code', 'code not recorded')}, b: {b.get('code', 'code not recorded')}")
    same = differ = 0
    for x, y in zip(a["searches"] + a["games"], b["searches"] + b["games"]):
        key = f"{x['game']} {x['params']} {x['agent']}"
        if x == y:
            same += 1
        else:
            differ += 1
            print(f"differs: {key}\n  a: {x}\n  b: {y}")
    print(f"{same} identical, {differ} different")
    return 1 if differ else 0


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--compare", nargs=2, metavar=("A", "B"))
    args = ap.parse_args()
    if args.compare:
        sys.exit(compare(*args.compare))
    print(json.dumps(run(), indent=1))


def _interrupt(signum: int, frame: object) -> None:
    raise KeyboardInterrupt


if __name__ == "__main__":
    # as provenance.run_main does (not imported: it would put this checkout's src first)
    signal.signal(signal.SIGTERM, _interrupt)
    try:
        main()
    except KeyboardInterrupt:
        print("\nseeded_moves.py: stopped, nothing measured is kept", file=sys.stderr)
        sys.exit(130)
