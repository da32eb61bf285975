"""Simulations per second of ``mcts`` with 1 and with N trees (``mcts:threads=N``), for every
game, from its initial position, measured in one run: the rounds alternate 1 and N so that a
change in the machine's load falls on both alike. Prints the ratio N / 1 per game, then
the figures, the command, the code version and the load average as JSON (written to
``--out`` too when given).

    PYTHONPATH=src python3 benchmarks/threads.py [--threads 2] [--seconds 3] [--rounds 3]
        [--games blooms,freego] [--protocol-in-threads] [--sims N] [--parallel root|tree]

``--sims N`` gives each search N simulations (shared out between the trees) instead of
seconds: no tree's work is cut at a deadline, so "simulations per CPU second" compares the
work the trees do without what a late helper loses.

``--parallel tree`` measures one tree shared by the threads (``mcts:threads=N,parallel=tree``)
instead of a tree each; games searched through the protocol have only the latter.

``--protocol-in-threads`` measures the alternative the search does not take: the extra trees
of games searched through the protocol in threads (sharing the GIL) instead of processes.

Target on a 2-core machine: the ratio at 2 threads is at least 1.7 in every game. The
machine's other work shows in ``loadavg`` (1, 5, 15 minutes; above the core count, the
threads compete with it for the cores). Each run also records the CPU seconds it used (this
process's and its helper processes') per second of wall time, ``cores``: about N when the N
trees had a core each, less when the machine's other work took them (Linux gives each session
an equal share of the CPU when ``sched_autogroup`` is on, however many threads it runs)."""

from __future__ import annotations

import argparse
import os
import time
from pathlib import Path

from provenance import (
    code_version,
    command,
    emit,
    positive_float,
    positive_int,
    progress,
    run_main,
)

import stonegarden
from stonegarden.jobs.procs import cpu_seconds, descendants
from stonegarden.search.config import MAX_THREADS, Budget, SearchConfig
from stonegarden.search.engines import make_engine
from stonegarden.search.parallel import PARALLEL_MODES, RootParallel, Searcher, new_searcher
from stonegarden.search.profile import profile_for
from stonegarden.search.shared_tree import SharedTree

#: the games and parameters measured (Blooms at n=5, where the single-core figures are kept)
GAMES: list[tuple[str, dict[str, object]]] = [
    ("blooms", {"size": 5}),
    ("freego", {}),
    ("blooms-territory", {}),
    ("bridgego", {}),
    ("blobs", {}),
]


def searcher(game: stonegarden.Game, threads: int, processes: bool | None,
             parallel: str) -> Searcher:
    """The search ``mcts:threads=N,parallel=P`` runs (``processes``: as ``RootParallel``
    takes it)."""
    if threads == 1:
        return make_engine(game, SearchConfig(), None)
    if parallel == "tree":
        return new_searcher(game, SearchConfig(), None, threads, parallel)
    return RootParallel(game, SearchConfig(), None, threads, processes)


def has_shared_tree(game: stonegarden.Game) -> bool:
    """Whether ``parallel=tree`` shares one tree between the threads in ``game`` (its compiled
    tree kernels), rather than searching a tree each as ``parallel=root`` does."""
    return profile_for(game).tree(SearchConfig()) is not None


def cpu_now() -> float:
    """CPU seconds of this process and the processes below it (the helper processes)."""
    return time.process_time() + sum(cpu_seconds(p) for p in descendants(os.getpid()))


def rate(game: stonegarden.Game, threads: int, budget: Budget, processes: bool | None,
         parallel: str) -> tuple[int, float, float]:
    """(simulations, seconds, CPU seconds) of one search of fresh trees from the initial
    position."""
    search = searcher(game, threads, processes, parallel)
    c0 = cpu_now()
    res = search.search(game.initial_state(), budget)
    used = cpu_now() - c0
    if isinstance(search, SharedTree):
        search.close()
    return res.sims, res.seconds, used


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--threads", type=positive_int, default=2)
    ap.add_argument("--seconds", type=positive_float, default=3.0)
    ap.add_argument("--rounds", type=positive_int, default=3)
    ap.add_argument("--games", default=None,
                    help="[default: every game; with --parallel tree, those with a shared tree]")
    ap.add_argument("--protocol-in-threads", action="store_true")
    ap.add_argument("--sims", type=positive_int, default=None)
    ap.add_argument("--parallel", choices=PARALLEL_MODES, default="root")
    ap.add_argument("--out", type=Path, default=None, help="also write the JSON here")
    args = ap.parse_args()
    processes = False if args.protocol_in_threads else None
    if not 2 <= args.threads <= MAX_THREADS:
        ap.error(f"--threads {args.threads}: give 2 to {MAX_THREADS} (they are measured "
                 f"against 1)")
    # games searched through the protocol have no shared tree: a tree each would be measured
    # under parallel=tree's name
    shared = [g for g, params in GAMES if has_shared_tree(stonegarden.make(g, **params))]
    measured = shared if args.parallel == "tree" else [g for g, _ in GAMES]
    wanted = args.games.split(",") if args.games is not None else measured
    unknown = [g for g in wanted if g not in measured]
    if unknown:
        ap.error(f"--games: {', '.join(map(repr, unknown))} not measured; measured"
                 f"{' with --parallel tree' if args.parallel == 'tree' else ''}: "
                 f"{', '.join(measured)}"
                 + ("; the others have no shared tree, only a tree each (--parallel root)"
                    if args.parallel == "tree" else ""))
    load_before = os.getloadavg()
    rows = []
    for game_id, params in GAMES:
        if game_id not in wanted:
            continue
        game = stonegarden.make(game_id, **params)
        for t in (1, args.threads):  # kernels, helper processes: outside the timing
            searcher(game, t, processes, args.parallel).search(game.initial_state(), Budget(sims=2 * t))
        totals = {1: [0, 0.0, 0.0], args.threads: [0, 0.0, 0.0]}
        runs: dict[int, list[float]] = {1: [], args.threads: []}
        cores: dict[int, list[float]] = {1: [], args.threads: []}
        with progress(2 * args.rounds, game_id, "searches") as step:
            for _ in range(args.rounds):
                for t in (1, args.threads):
                    budget = (Budget(seconds=args.seconds) if args.sims is None
                              else Budget(sims=args.sims))
                    sims, secs, cpu = rate(game, t, budget, processes, args.parallel)
                    totals[t][0] += sims
                    totals[t][1] += secs
                    totals[t][2] += cpu
                    runs[t].append(round(sims / secs, 1))
                    cores[t].append(round(cpu / secs, 2))
                    step()
        one = totals[1][0] / totals[1][1]
        many = totals[args.threads][0] / totals[args.threads][1]
        row = {"game": game_id, "params": game.non_default_params(),
               "sims_per_s_1": round(one, 1), f"sims_per_s_{args.threads}": round(many, 1),
               "ratio": round(many / one, 3), "runs_1": runs[1],
               f"runs_{args.threads}": runs[args.threads], "cores_1": cores[1],
               f"cores_{args.threads}": cores[args.threads],
               "sims_per_cpu_s_1": round(totals[1][0] / totals[1][2], 1),
               f"sims_per_cpu_s_{args.threads}": round(totals[args.threads][0]
                                                       / totals[args.threads][2], 1),
               "loadavg": os.getloadavg()}
        rows.append(row)
        used = totals[args.threads][2] / totals[args.threads][1]
        print(f"{game_id:<18} 1 thread {one:>9.0f}/s   {args.threads} threads {many:>9.0f}/s"
              f"   ratio {many / one:.2f}   cores used {totals[1][2] / totals[1][1]:.2f} and "
              f"{used:.2f}   load {row['loadavg'][0]:.2f}", flush=True)
    out = {"command": command(), "code": code_version(), "time": time.strftime("%Y-%m-%d %H:%M"),
           "cores": len(os.sched_getaffinity(0)), "threads": args.threads,
           "protocol_trees_in": "threads" if args.protocol_in_threads else "processes",
           "parallel": args.parallel,
           "seconds": args.seconds if args.sims is None else None, "sims": args.sims,
           "rounds": args.rounds, "loadavg_before": load_before,
           "autogroup": Path("/proc/sys/kernel/sched_autogroup_enabled").read_text().strip()
           if Path("/proc/sys/kernel/sched_autogroup_enabled").exists() else None,
           "loadavg_after": os.getloadavg(), "games": rows}
    emit(out, args.out)


if __name__ == "__main__":
    run_main(main)
