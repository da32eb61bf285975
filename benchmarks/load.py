"""Load on one ``stonegarden serve``: people playing while agents think, and the latency of
everything that is not the AI.

Eight games between people (Blooms, 5 cells a side) are played by sixteen simulated players,
each from its own address, each with a live-update stream open as a page has; a player reads
the game when it changes, waits a human moment (0.3-1.5 s) on its turn and plays a legal move;
a finished game is replaced by a new one. Meanwhile four games between two agents
(``mcts:time=2``, each game its own client) keep both workers thinking the whole time. Every
request of the players is timed from the client: snapshot reads, moves, page loads and game
creation. The figures are p50, p99 and the maximum of those latencies, per kind and together;
the target is p99 under 250 ms on a 2-core machine.

    python3 benchmarks/load.py --seconds 120 --out benchmarks/results/load.json --plot
"""

from __future__ import annotations

import argparse
import http.client
import json
import math
import os
import random
import re
import socket
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path
from typing import Any

from provenance import (
    ROOT,
    code_version,
    command,
    emit,
    nonnegative_float,
    nonnegative_int,
    png_metadata,
    positive_float,
    positive_int,
    progress,
    run_main,
)

PARAMS = {"size": 5}
AI_SPEC = "mcts:time=2"
CELL = re.compile(r'data-cell="([a-z]\d+)"[^>]*data-content=""')


def wait(seconds: float, description: str) -> None:
    """Sleep ``seconds``, with a bar counting them."""
    end = time.perf_counter() + seconds
    with progress(math.ceil(seconds), description, "s") as step:
        while (left := end - time.perf_counter()) > 0:
            time.sleep(min(1.0, left))
            step()


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


class Client:
    """One simulated person: a keep-alive connection from its own address."""

    def __init__(self, port: int, source: str, record: list[tuple[str, float, int]]) -> None:
        self.port, self.source, self.record = port, source, record
        self.conn: http.client.HTTPConnection | None = None

    def call(self, kind: str, method: str, path: str, body: Any = None,
             headers: dict[str, str] | None = None) -> tuple[int, Any]:
        data = None if body is None else json.dumps(body).encode()
        for attempt in (0, 1):
            if self.conn is None:
                self.conn = http.client.HTTPConnection("127.0.0.1", self.port, timeout=60,
                                                       source_address=(self.source, 0))
            t0 = time.perf_counter()
            try:
                self.conn.request(method, path, body=data, headers={
                    "Content-Type": "application/json", **(headers or {})})
                r = self.conn.getresponse()
                raw = r.read()
            except (OSError, http.client.HTTPException):
                self.conn.close()
                self.conn = None
                if attempt:
                    self.record.append((kind, time.perf_counter() - t0, 0))
                    return 0, None
                continue
            self.record.append((kind, time.perf_counter() - t0, r.status))
            try:
                return r.status, json.loads(raw)
            except ValueError:
                return r.status, raw
        return 0, None


def start_server(port: int, db: Path, *extra: str) -> tuple[subprocess.Popen[bytes], Client]:
    """``stonegarden serve`` on ``port`` over ``db`` (this checkout's code), once it answers;
    with a client to probe it. A server that exits or does not answer within 60 s stops the
    benchmark with one line (and is not left running)."""
    env = dict(os.environ, PYTHONPATH=str(ROOT / "src"))
    server = subprocess.Popen([sys.executable, "-m", "stonegarden", "serve", "--port", str(port),
                               "--db", str(db), *extra], env=env, stdout=subprocess.DEVNULL)
    probe = Client(port, "127.0.0.1", [])
    try:
        for _ in range(600):
            if probe.call("probe", "GET", "/api/meta")[0] == 200:
                return server, probe
            if server.poll() is not None:
                sys.exit(f"the server exited with status {server.returncode} before it "
                         "answered (its error is above)")
            time.sleep(0.1)
        sys.exit("the server did not answer /api/meta within 60 s")
    except BaseException:
        server.terminate()
        server.wait(timeout=30)
        raise


def listen(port: int, source: str, gid: str, changed: threading.Event,
           stop: threading.Event) -> None:
    """A page's live-update stream: sets ``changed`` at every update."""
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=30,
                                      source_address=(source, 0))
    try:
        conn.request("GET", f"/api/games/{gid}/events")
        r = conn.getresponse()
        while not stop.is_set():
            line = r.readline()
            if not line:
                return
            if line.startswith(b"data:"):
                changed.set()
    except (OSError, http.client.HTTPException):
        return
    finally:
        conn.close()


def play_people(port: int, index: int, record: list, stop: threading.Event,
                games_played: list[int]) -> None:
    """Two players (two addresses) playing game after game until ``stop``."""
    rng = random.Random(index)
    creator = Client(port, f"127.0.1.{index + 1}", record)
    while not stop.is_set():
        status, made = creator.call("create", "POST", "/api/games", {
            "game": "blooms", "params": PARAMS, "seats": ["human", "human"]})
        if status != 201:
            time.sleep(1)
            continue
        gid = made["id"]
        players = [Client(port, f"127.0.{2 + seat}.{index + 1}", record) for seat in (0, 1)]
        changed = [threading.Event(), threading.Event()]
        for seat in (0, 1):
            threading.Thread(target=listen, args=(port, players[seat].source, gid,
                                                  changed[seat], stop), daemon=True).start()
            players[seat].call("page", "GET", f"/game/{gid}")
        threads = [threading.Thread(target=player, args=(players[s], gid, made, s + 1, rng,
                                                         changed[s], stop))
                   for s in (0, 1)]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        games_played[0] += 1


def player(client: Client, gid: str, made: dict[str, Any], seat: int, rng: random.Random,
           changed: threading.Event, stop: threading.Event) -> None:
    secret = made["secrets"][str(seat)]
    colour = "R" if seat == 1 else "K"
    while not stop.is_set():
        status, snap = client.call("read", "GET", f"/api/games/{gid}",
                                   headers={"X-Seat-Secret": secret})
        if status != 200 or snap["terminal"]:
            return
        if snap["to_move"] != seat:
            changed.wait(5)
            changed.clear()
            continue
        time.sleep(rng.uniform(0.3, 1.5))  # a person thinks
        cells = CELL.findall(snap["svg"])
        if not cells:
            return
        client.call("move", "POST", f"/api/games/{gid}/move",
                    {"secret": secret, "move": colour + rng.choice(cells),
                     "ply": snap["length"]})


def watch_agents(port: int, index: int, stop: threading.Event, ai_moves: list[int]) -> None:
    """A game between two agents, replaced when it ends; counts the agents' moves."""
    client = Client(port, f"127.0.9.{index + 1}", [])
    while not stop.is_set():
        status, made = client.call("ai", "POST", "/api/games", {
            "game": "blooms", "params": PARAMS, "seats": [AI_SPEC, AI_SPEC]})
        if status != 201:
            time.sleep(1)
            continue
        seen = 0
        while not stop.is_set():
            time.sleep(0.5)
            status, snap = client.call("ai", "GET", f"/api/games/{made['id']}")
            if status != 200:
                break
            ai_moves[0] += snap["length"] - seen
            seen = snap["length"]
            if snap["terminal"] or snap["paused"]:
                break


def percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))]


def summary(values: list[float]) -> dict[str, Any]:
    """Count and milliseconds; ``null`` where no request was timed (JSON has no NaN)."""
    if not values:
        return {"count": 0, "p50_ms": None, "p99_ms": None, "max_ms": None, "mean_ms": None}
    return {"count": len(values), "p50_ms": round(1000 * percentile(values, 0.50), 1),
            "p99_ms": round(1000 * percentile(values, 0.99), 1),
            "max_ms": round(1000 * max(values), 1),
            "mean_ms": round(1000 * statistics.fmean(values), 1)}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--seconds", type=positive_float, default=120.0, help="how long to measure")
    ap.add_argument("--warm-up", type=nonnegative_float, default=15.0, help="seconds before measuring")
    ap.add_argument("--people-games", type=positive_int, default=8)
    ap.add_argument("--ai-games", type=nonnegative_int, default=4)
    ap.add_argument("--out", type=Path, default=None, help="JSON results")
    ap.add_argument("--plot", action="store_true", help="also a latency CDF next to --out")
    args = ap.parse_args()
    if args.plot and args.out is None:
        ap.error("--plot draws its figure next to the results: give --out FILE too")
    port = free_port()
    with tempfile.TemporaryDirectory() as tmp:
        server, probe = start_server(port, Path(tmp) / "games.db")
        try:
            record: list[tuple[str, float, int]] = []
            stop = threading.Event()
            ai_moves, games_played = [0], [0]
            threads = [threading.Thread(target=watch_agents, args=(port, i, stop, ai_moves),
                                        daemon=True) for i in range(args.ai_games)]
            threads += [threading.Thread(target=play_people,
                                         args=(port, i, record, stop, games_played),
                                         daemon=True) for i in range(args.people_games)]
            for t in threads:
                t.start()
            wait(args.warm_up, "warm-up")
            record.clear()
            moves0, games0 = ai_moves[0], games_played[0]
            t0 = time.perf_counter()
            wait(args.seconds, "measuring")
            measured = list(record)
            elapsed = time.perf_counter() - t0
            ai_made, games_done = ai_moves[0] - moves0, games_played[0] - games0
            busy = probe.call("probe", "GET", "/api/meta")[1]["limits"]
            stop.set()
        finally:
            server.terminate()
            server.wait(timeout=30)
    ok = [s for _, _, s in measured if 200 <= s < 300]
    by_kind: dict[str, list[float]] = {}
    for kind, seconds, status in measured:
        if 200 <= status < 300:
            by_kind.setdefault(kind, []).append(seconds)
    everything = [s for values in by_kind.values() for s in values]
    result = {
        "command": command(),
        "code_version": code_version(),
        "machine": {"cpus": os.cpu_count(), "load_average_at_end": os.getloadavg()},
        "setup": {"people_games": args.people_games, "ai_games": args.ai_games,
                  "ai_spec": AI_SPEC, "params": PARAMS, "seconds": round(elapsed, 1)},
        "non_ai_requests": summary(everything),
        "by_kind": {k: summary(v) for k, v in sorted(by_kind.items())},
        # every latency the summaries and the plot are made of, so either can be made again
        "latencies_ms": {k: sorted(round(1000 * s, 1) for s in v)
                         for k, v in sorted(by_kind.items())},
        "errors": len(measured) - len(ok),
        "error_statuses": sorted({s for _, _, s in measured if not 200 <= s < 300}),
        "ai_moves": ai_made,
        "people_games_finished": games_done,
        "pool_at_end": busy,
        "target_p99_ms": 250,
    }
    emit(result, args.out)
    if args.out and args.plot:
        plot(by_kind, args.out.with_suffix(".png"), result)


def plot(by_kind: dict[str, list[float]], path: Path, result: dict[str, Any]) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(7, 4))
    for kind, values in sorted(by_kind.items()):
        xs = sorted(1000 * v for v in values)
        ax.step(xs, [(i + 1) / len(xs) for i in range(len(xs))], where="post",
                label=f"{kind} ({len(xs)})")
    ax.axvline(250, color="grey", linestyle="--", label="target p99 250 ms")
    ax.set_xscale("log")
    ax.set_xlabel("latency (ms, from the client)")
    ax.set_ylabel("share of requests")
    s = result["non_ai_requests"]
    ax.set_title(f"{result['setup']['people_games']} games between people, "
                 f"{result['setup']['ai_games']} agent games thinking: "
                 f"p50 {s['p50_ms']} ms, p99 {s['p99_ms']} ms", fontsize=9)
    ax.legend(fontsize=8)
    fig.tight_layout()
    fig.savefig(path, dpi=120, metadata=png_metadata())


if __name__ == "__main__":
    run_main(main)
