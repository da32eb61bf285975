"""The web server's memory over many games (docs/web.md, "Measured"): one ``stonegarden serve``
on a fresh SQLite file, and one client after another making a Free Go 5x5 game between two
people, reading it, playing a move and resigning; after each block of ``--games`` games, the
server process's resident memory. A server that keeps something for every game it has served
grows block after block; one that keeps only its bounded caches (the games in memory, the
pictures of their positions) levels off once they are full.

    PYTHONPATH=src python3 benchmarks/server_memory.py [--games 1000] [--blocks 5] [--out FILE]

Prints the figures, the command and the code version as JSON (written to ``--out`` too).
Games between people only: no job runs, so the workers' memory is not the question here (the
search's is measured by ``tree_memory.py``)."""

from __future__ import annotations

import argparse
import itertools
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from load import Client, free_port, start_server
from provenance import code_version, command, emit, positive_int, progress, run_main

from stonegarden.jobs.procs import resident  # after provenance: this checkout's package

#: games one client address makes before the next address takes over (the server's bound on
#: new games per client an hour is set above it)
PER_CLIENT = 500


def resident_mib(pid: int) -> float:
    """A process's resident memory, MiB."""
    return resident([pid]) / 2**20


def one_game(client: Client) -> None:
    """A game between two people: made, read, a move, a resignation (each answer checked)."""
    status, made = client.call("new", "POST", "/api/games", {
        "game": "freego", "params": {"size": 5}, "seats": ["human", "human"]})
    if status != 201:
        sys.exit(f"making a game was answered {status}: {made}")
    gid, secret = made["id"], made["secrets"]["1"]
    steps: list[tuple[str, str, Any]] = [
        ("GET", f"/api/games/{gid}", None),
        ("POST", f"/api/games/{gid}/move", {"secret": secret, "move": "C3"}),
        ("POST", f"/api/games/{gid}/move", {"secret": secret, "move": "resign"})]
    for method, path, body in steps:
        status, answer = client.call(path.rsplit("/", 1)[-1], method, path, body)
        if status != 200:
            sys.exit(f"{method} {path} {body} was answered {status}: {answer}")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--games", type=positive_int, default=1000, help="games in a block")
    ap.add_argument("--blocks", type=positive_int, default=5, help="blocks of games")
    ap.add_argument("--out", type=Path, default=None, help="JSON results")
    args = ap.parse_args()
    port = free_port()
    blocks: list[dict[str, Any]] = []
    with tempfile.TemporaryDirectory() as tmp:
        server, _ = start_server(port, Path(tmp) / "games.db", "--workers", "1",
                                 "--client-games", str(PER_CLIENT))
        try:
            start = resident_mib(server.pid)
            made = 0
            with progress(args.games * args.blocks, "games", "games") as step:
                for _ in range(args.blocks):
                    t0 = time.perf_counter()
                    for _ in range(args.games):
                        # addresses 127.0.1.0 and on: a new client every PER_CLIENT games
                        n = made // PER_CLIENT
                        client = Client(port, f"127.0.{1 + n // 250}.{n % 250 + 1}", [])
                        one_game(client)
                        made += 1
                        step()
                    blocks.append({"games": made,
                                   "seconds": round(time.perf_counter() - t0, 1),
                                   "resident_mib": round(resident_mib(server.pid), 1)})
        finally:
            server.terminate()
            server.wait(timeout=30)
    growth = [round((b["resident_mib"] - a["resident_mib"]) * 2**20 / args.games)
              for a, b in itertools.pairwise(blocks)]
    emit({"command": command(), "code_version": code_version(), "game": "freego size 5",
          "games_per_block": args.games, "resident_mib_at_start": round(start, 1),
          "blocks": blocks, "bytes_per_game_after_the_first_block": growth}, args.out)


if __name__ == "__main__":
    run_main(main)
