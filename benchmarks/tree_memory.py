"""What a search's tree holds in memory (docs/ai.md, "The memory of a search"): for each case,
one search of ``--seconds`` from a position, in a process of its own, and the resident bytes it
added per node it made, the node cap its budget of bytes gives (``Pools.node_cap``), the nodes
at which the tree is full (its cap, or its edges used up at the edges a node it has made so
far) and, for the protocol tree, the position size it reckoned (``position_bytes``). Prints the figures, the
command and the code version as JSON (written to ``--out`` too when given).

    PYTHONPATH=src python3 benchmarks/tree_memory.py [--seconds 10] [--out FILE]

Resident bytes grow as the pools' pages are first written and as positions are kept, so a
short search's bytes a node, times the cap, is what a full tree holds (the pools' untouched
pages cost nothing). One thread: a search of N trees gives each 1/N of the budget."""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
from pathlib import Path
from typing import Any

from provenance import code_version, command, emit, positive_float, progress, run_main

#: (name, game, params, moves played first, agent spec): a tree of each kind in each game
CASES = [
    ("compiled: Blooms n=5", "blooms", {"size": 5}, [], "mcts"),
    ("compiled: Free Go 9x9", "freego", {"size": 9}, [], "mcts"),
    ("protocol: Blobs", "blobs", {}, ["h9R"], "mcts"),
    ("protocol: Bridge Go 9x9", "bridgego", {"size": 9}, [], "mcts"),
    ("protocol: Free Go 9x9 with superko", "freego", {"size": 9, "ko": "superko"}, [], "mcts"),
    ("protocol: Free Go 19x19 with superko", "freego", {"size": 19, "ko": "superko"}, [],
     "mcts"),
    ("protocol: Blooms territory n=4 with superko", "blooms-territory",
     {"size": 4, "superko": True}, [], "mcts:split=off"),
]


def resident() -> int:
    """This process's resident bytes."""
    with open("/proc/self/statm") as f:
        return int(f.read().split()[1]) * 4096


def measure(case: list[Any], seconds: float) -> dict[str, Any]:
    """One search of ``seconds`` in this process (``--case``)."""
    import stonegarden
    from stonegarden.agents import make_agent
    from stonegarden.search.config import Budget
    from stonegarden.search.protocol_tree import ProtocolTree, position_bytes

    name, game_id, params, moves, spec = case
    game = stonegarden.make(game_id, **params)
    state = game.replay(moves)[-1]
    agent = make_agent(spec)
    agent.analyse(game, state, Budget(sims=50))  # kernels loaded, before the measure
    agent.forget()
    engine = agent.engine(game)
    before = resident()
    res = agent.analyse(game, state, Budget(seconds=seconds))
    grown = resident() - before
    P = engine.pools
    nodes, edges = int(P.counters[0]), int(P.counters[1])
    protocol = isinstance(engine, ProtocolTree)
    # the tree is full at its node cap or when its edges run out, whichever comes first
    full = min(int(P.counters[3]), int(nodes * P.size[1] / max(edges, 1)))
    return {"case": name, "seconds": round(res.seconds, 2), "sims": res.sims, "nodes": nodes,
            "edges": edges, "resident_bytes_added": grown,
            "bytes_a_node": round(grown / max(nodes, 1)),
            "position_reckoned": position_bytes(game, state) if protocol else 0,
            "node_cap": int(P.counters[3]), "nodes_when_full": full,
            "memory_when_full_mb": round(grown / max(nodes, 1) * full / 1e6)}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--seconds", type=positive_float, default=10.0)
    ap.add_argument("--out", type=Path, default=None, help="also write the JSON here")
    ap.add_argument("--case", default=None, help=argparse.SUPPRESS)  # a child's one case
    args = ap.parse_args()
    if args.case is not None:
        print(json.dumps(measure(json.loads(args.case), args.seconds)))
        return
    rows = []
    with progress(len(CASES), "searches", "cases") as step:
        for case in CASES:
            out = subprocess.run([sys.executable, __file__, "--seconds", str(args.seconds),
                                  "--case", json.dumps(case)], capture_output=True, text=True)
            if out.returncode != 0:
                sys.exit(f"tree_memory.py: {case[0]}: {out.stderr.strip().splitlines()[-1:]}")
            rows.append(json.loads(out.stdout.strip().splitlines()[-1]))
            step()
    emit({"command": command(), "code_version": code_version(), "seconds": args.seconds,
          "rows": rows}, args.out)


if __name__ == "__main__":
    run_main(main)
