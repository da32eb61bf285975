"""Online play under load: 200 concurrent games between simulated people, across two
``stonegarden serve`` processes sharing one PostgreSQL database.

Each game has two simulated players, each from its own loopback address. The creator opens the
game (an open seat, public) through one server; the joiner finds it and joins through the
other, so every move crosses processes (PostgreSQL's LISTEN/NOTIFY). Each player keeps a
live-update stream open on its own server, as its page does, reads the game when told it
changed, waits a human moment on its turn (``--think``, uniform, seconds) and plays a random
empty cell; a finished game is replaced by a new one. Measured:

- moves per second stored (acknowledged with 200) over the measured window;
- the latency of a move *seen by the opponent*: from just before the mover sends it to the
  moment the opponent, told by its stream (from the other server), has read a snapshot that
  holds it (p50, p99, max);
- errors: any answer other than 2xx, broken connections, and a change the player's stream
  never told of (its wait of 10 s ended, and the next read showed a new move). A move the
  rules refuse (a random cell may be illegal) is counted apart, as ``illegal_choices``.

PostgreSQL is a throw-away cluster from Debian's package started here (or ``--db DSN``).
The simulated players run in this process (one asyncio loop), on the same 2-core machine as
both servers and the database.

    python3 benchmarks/load_online.py --games 200 --seconds 60 --think 5 15 \\
        --out benchmarks/results/load-online-human-pace.json
    python3 benchmarks/load_online.py --games 200 --seconds 60 --think 0.5 1.5 \\
        --out benchmarks/results/load-online-stress.json
"""

from __future__ import annotations

import argparse
import asyncio
import json
import math
import os
import random
import re
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from provenance import (
    ROOT,
    code_version,
    command,
    emit,
    nonnegative_float,
    positive_float,
    positive_int,
    progress,
    run_main,
)

sys.path.insert(0, str(ROOT / "tests" / "web"))  # the tests' PostgreSQL starter

PARAMS = {"size": 5}
CELL = re.compile(r'data-cell="([a-z]\d+)"[^>]*data-content=""')


class Stats:
    def __init__(self) -> None:
        self.measuring = False
        self.moves = 0
        self.seen: list[float] = []
        self.requests: list[float] = []
        self.errors: dict[str, int] = {}
        self.illegal = 0
        self.games_finished = 0

    def error(self, what: str) -> None:
        if self.measuring:
            self.errors[what] = self.errors.get(what, 0) + 1


class Http:
    """One keep-alive HTTP/1.1 connection from its own address (a person's browser)."""

    def __init__(self, port: int, source: str, stats: Stats) -> None:
        self.port, self.source, self.stats = port, source, stats
        self.reader: asyncio.StreamReader | None = None
        self.writer: asyncio.StreamWriter | None = None

    async def call(self, method: str, path: str, body: Any = None,
                   headers: dict[str, str] | None = None) -> tuple[int, Any]:
        data = b"" if body is None else json.dumps(body).encode()
        extra = "".join(f"{k}: {v}\r\n" for k, v in (headers or {}).items())
        head = (f"{method} {path} HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: "
                f"application/json\r\nContent-Length: {len(data)}\r\n{extra}\r\n").encode()
        for attempt in (0, 1):
            try:
                if self.writer is None:
                    self.reader, self.writer = await asyncio.open_connection(
                        "127.0.0.1", self.port, local_addr=(self.source, 0))
                assert self.reader is not None
                t0 = time.perf_counter()
                self.writer.write(head + data)
                await self.writer.drain()
                status, headers_in = await _head(self.reader)
                n = int(headers_in.get("content-length", "0"))
                raw = await self.reader.readexactly(n)
                if self.stats.measuring:
                    self.stats.requests.append(time.perf_counter() - t0)
                return status, json.loads(raw) if raw else None
            except (ConnectionError, asyncio.IncompleteReadError, OSError):
                self.close()
                if attempt:
                    raise
        raise AssertionError("unreachable")

    def close(self) -> None:
        if self.writer is not None:
            self.writer.close()
        self.reader = self.writer = None


async def _head(reader: asyncio.StreamReader) -> tuple[int, dict[str, str]]:
    line = await reader.readline()
    if not line:
        raise ConnectionError("closed")
    status = int(line.split()[1])
    headers: dict[str, str] = {}
    while True:
        line = await reader.readline()
        if line in (b"\r\n", b"\n", b""):
            return status, headers
        k, _, v = line.decode("latin1").partition(":")
        headers[k.strip().lower()] = v.strip()


async def listen(port: int, source: str, path: str, changed: asyncio.Event,
                 stop: asyncio.Event) -> None:
    """A page's live-update stream (chunked server-sent events): sets ``changed``."""
    reader, writer = await asyncio.open_connection("127.0.0.1", port, local_addr=(source, 0))
    try:
        writer.write(f"GET {path} HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n".encode())
        await writer.drain()
        status, _ = await _head(reader)
        if status != 200:
            raise ConnectionError(f"stream answered {status}")
        while not stop.is_set():
            size = int((await reader.readline()).strip() or b"0", 16)
            if size == 0:
                return
            chunk = await reader.readexactly(size + 2)
            if b"event: update" in chunk:
                changed.set()
    finally:
        writer.close()


async def player(http: Http, port: int, gid: str, secret: str, seat: int, sent: dict[int, float],
                 stats: Stats, rng: random.Random, think: tuple[float, float],
                 stop: asyncio.Event) -> None:
    changed = asyncio.Event()
    stream = asyncio.create_task(listen(port, http.source, f"/api/games/{gid}/events",
                                        changed, stop))
    colour = "R" if seat == 1 else "K"
    seen = missed = 0
    try:
        while not stop.is_set():
            status, snap = await http.call("GET", f"/api/games/{gid}",
                                           headers={"X-Seat-Secret": secret})
            if status != 200:
                stats.error(f"read {status}")
                return
            now = time.perf_counter()
            for ply in range(seen, snap["length"]):  # the opponent's moves, now seen
                t0 = sent.pop(ply, None)
                if t0 is not None and stats.measuring:
                    stats.seen.append(now - t0)
            seen = snap["length"]
            if snap["terminal"]:
                return
            if missed and snap["length"] > missed:  # it changed, and the stream said nothing
                stats.error("a change not told by the stream within 10 s")
            missed = 0
            if snap["to_move"] != seat or not snap["can_play"]:
                changed.clear()
                try:
                    await asyncio.wait_for(changed.wait(), 10)
                except TimeoutError:
                    missed = snap["length"]  # the next read tells whether a change was missed
                continue
            await asyncio.sleep(rng.uniform(*think))
            cells = CELL.findall(snap["svg"])
            if not cells:
                return
            sent[snap["length"]] = time.perf_counter()
            status, answer = await http.call(
                "POST", f"/api/games/{gid}/move",
                {"secret": secret, "move": colour + rng.choice(cells), "ply": snap["length"]})
            if status == 200:
                seen = snap["length"] + 1
                if stats.measuring:
                    stats.moves += 1
            else:
                sent.pop(snap["length"], None)
                if status == 400 and "illegal" in str(answer).lower():
                    stats.illegal += 1
                else:
                    stats.error(f"move {status}")
    finally:
        stream.cancel()


async def pair(index: int, ports: tuple[int, int], stats: Stats, think: tuple[float, float],
               stop: asyncio.Event) -> None:
    """Two people playing game after game: the creator on one server, the joiner on the
    other (which server is first alternates by ``index``)."""
    rng = random.Random(index)
    mine, theirs = ports[index % 2], ports[1 - index % 2]
    a = Http(mine, f"127.0.{1 + index // 200}.{1 + index % 200}", stats)
    b = Http(theirs, f"127.1.{1 + index // 200}.{1 + index % 200}", stats)
    while not stop.is_set():
        try:
            status, made = await a.call("POST", "/api/games", {
                "game": "blooms", "params": PARAMS, "seats": ["human", "open"],
                "public": True, "name": f"A{index}"})
            if status != 201:
                stats.error(f"create {status}")
                await asyncio.sleep(1)
                continue
            gid = made["id"]
            status, joined = await b.call("POST", f"/api/games/{gid}/join", {"name": f"B{index}"})
            if status != 201:
                stats.error(f"join {status}")
                continue
            sent: dict[int, float] = {}
            await asyncio.gather(
                player(a, mine, gid, made["secrets"]["1"], 1, sent, stats, rng, think, stop),
                player(b, theirs, gid, joined["secret"], 2, sent, stats, rng, think, stop))
            if stats.measuring and not stop.is_set():
                stats.games_finished += 1
        except (ConnectionError, OSError, asyncio.IncompleteReadError) as exc:
            stats.error(type(exc).__name__)
            await asyncio.sleep(0.5)


def percentile(values: list[float], q: float) -> float | None:
    if not values:
        return None
    s = sorted(values)
    return s[min(len(s) - 1, int(q * len(s)))]


def ms(x: float | None) -> float | None:
    return None if x is None else round(1000 * x, 1)


async def wait(seconds: float, description: str) -> None:
    """Sleep ``seconds`` while the games go on, with a bar counting them."""
    end = time.perf_counter() + seconds
    with progress(math.ceil(seconds), description, "s") as step:
        while (left := end - time.perf_counter()) > 0:
            await asyncio.sleep(min(1.0, left))
            step()


async def run(ports: tuple[int, int], games: int, warm_up: float, seconds: float,
              think: tuple[float, float]) -> tuple[Stats, float]:
    stats = Stats()
    stop = asyncio.Event()
    tasks = []
    for i in range(games):  # started over a second or two, as people arrive
        tasks.append(asyncio.create_task(pair(i, ports, stats, think, stop)))
        await asyncio.sleep(0.01)
    await wait(warm_up, "warm-up")
    stats.measuring = True
    t0 = time.perf_counter()
    await wait(seconds, "measuring")
    stats.measuring = False
    elapsed = time.perf_counter() - t0
    stop.set()
    for t in tasks:
        t.cancel()
    await asyncio.gather(*tasks, return_exceptions=True)
    return stats, elapsed


def start_server(port: int, dsn: str, log: Path) -> subprocess.Popen[bytes]:
    env = dict(os.environ, PYTHONPATH=str(ROOT / "src"))
    with log.open("ab") as err:
        return subprocess.Popen([sys.executable, "-m", "stonegarden", "serve", "--port",
                                 str(port), "--db", dsn, "--workers", "1"], env=env,
                                stdout=subprocess.DEVNULL, stderr=err)


def wait_up(port: int) -> None:
    import urllib.request

    for _ in range(600):
        try:
            urllib.request.urlopen(f"http://127.0.0.1:{port}/api/meta", timeout=2).read()
            return
        except OSError:
            time.sleep(0.1)
    raise RuntimeError(f"the server on port {port} did not start")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--games", type=positive_int, default=200, help="concurrent games")
    ap.add_argument("--seconds", type=positive_float, default=60.0, help="how long to measure")
    ap.add_argument("--warm-up", type=nonnegative_float, default=15.0, help="seconds before measuring")
    ap.add_argument("--think", type=nonnegative_float, nargs=2, default=(0.5, 1.5), metavar=("MIN", "MAX"),
                    help="seconds a person waits on its turn (uniform)")
    ap.add_argument("--db", default=None, help="a PostgreSQL DSN [default: a throw-away "
                                               "cluster of Debian's package, started here]")
    ap.add_argument("--out", type=Path, default=None, help="JSON results")
    args = ap.parse_args()
    if args.think[0] > args.think[1]:
        ap.error(f"--think {args.think[0]:g} {args.think[1]:g}: give MIN, then MAX")
    from services import Postgres
    from webhelpers import free_port

    with tempfile.TemporaryDirectory() as tmp:
        pg = None
        dsn = args.db
        if dsn is None:
            pg = Postgres(Path(tmp) / "pg").start()
            dsn = pg.create_database("load")
        ports = (free_port(), free_port())
        servers = [start_server(p, dsn, Path(tmp) / f"serve-{p}.log") for p in ports]
        try:
            for p in ports:
                wait_up(p)
            stats, elapsed = asyncio.run(run(ports, args.games, args.warm_up, args.seconds,
                                             tuple(args.think)))
            load = os.getloadavg()
        finally:
            for s in servers:
                s.terminate()
            for s in servers:
                s.wait(timeout=30)
            if pg is not None:
                pg.stop()
    errors = sum(stats.errors.values())
    result = {
        "command": command(),
        "code_version": code_version(),
        "machine": {"cpus": os.cpu_count(), "load_average_at_end": load},
        "setup": {"games": args.games, "servers": 2, "database": "PostgreSQL "
                  + ("(--db)" if args.db else "(throw-away cluster, Debian's package)"),
                  "game": "blooms", "params": PARAMS, "think_seconds": list(args.think),
                  "warm_up_seconds": args.warm_up, "measured_seconds": round(elapsed, 1),
                  "streams_open": 2 * args.games},
        "moves": stats.moves,
        "moves_per_second": round(stats.moves / elapsed, 1),
        "move_seen_by_opponent": {
            "count": len(stats.seen), "p50_ms": ms(percentile(stats.seen, 0.50)),
            "p99_ms": ms(percentile(stats.seen, 0.99)),
            "max_ms": ms(max(stats.seen) if stats.seen else None),
            "mean_ms": ms(statistics.fmean(stats.seen) if stats.seen else None)},
        "requests": {"count": len(stats.requests),
                     "p50_ms": ms(percentile(stats.requests, 0.50)),
                     "p99_ms": ms(percentile(stats.requests, 0.99))},
        "errors": errors,
        "error_kinds": stats.errors,
        "illegal_choices": stats.illegal,
        "games_finished": stats.games_finished,
    }
    emit(result, args.out)


if __name__ == "__main__":
    run_main(main)
