"""Denial-of-service cases of the web server, measured in time and memory against a real
``stonegarden serve`` process run from any source tree (so the same cases can be run on an
older version and on this one).

Each case talks HTTP to the server, as an attacker or an operator would, from distinct
loopback addresses (127.0.0.2, 127.0.0.3, ...) so the server sees distinct clients. Memory is
the resident set of the server and every process below it, sampled every 0.1 s; a run that
passes ``--memory-cap`` is stopped by this script (and says so) to protect the machine.

    python3 benchmarks/dos_cases.py --src src --out benchmarks/results/dos-after.json
    python3 benchmarks/dos_cases.py --src OLD/src --out benchmarks/results/dos-before.json
    python3 benchmarks/dos_cases.py --src src --cases flood,orphans

The long record of the upload case (Free Go, 150,000 random moves, ``ko=none`` and a
``target`` no game reaches) is made once by the rules of ``--gen-src`` (default ``--src``;
it needs a version that accepts those parameters) and cached in ``--record-cache``.
"""

from __future__ import annotations

import argparse
import contextlib
import functools
import http.client
import json
import os
import signal
import socket
import sqlite3
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "src"))  # this checkout's helpers
from provenance import (
    checkout_src,
    code_version,
    command,
    positive_float,
    positive_int,
    run_main,
)

from stonegarden.jobs.procs import alive, cpu_seconds, descendants, resident

MiB = 1024 * 1024


# -- processes -----------------------------------------------------------------------------------
def rss(pid: int) -> int:
    return resident([pid])


def cmdline(pid: int) -> str:
    try:
        with open(f"/proc/{pid}/cmdline", "rb") as f:
            return f.read().replace(b"\0", b" ").decode(errors="replace").strip()
    except OSError:
        return ""


class Memory:
    """Samples the resident memory of a process tree every 0.1 s; kills the tree above a cap."""

    def __init__(self, pid: int, cap: int) -> None:
        self.pid, self.cap = pid, cap
        self.peak = 0
        self.capped = False
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, daemon=True)
        self._thread.start()

    def total(self) -> int:
        return resident([self.pid, *descendants(self.pid)])

    def reset(self) -> None:
        self.peak = self.total()

    def _run(self) -> None:
        while not self._stop.wait(0.1):
            now = self.total()
            self.peak = max(self.peak, now)
            if now > self.cap and not self.capped:
                self.capped = True
                for p in [*descendants(self.pid), self.pid]:
                    with contextlib.suppress(OSError):
                        os.kill(p, signal.SIGKILL)

    def close(self) -> None:
        self._stop.set()
        self._thread.join()


# -- the server ----------------------------------------------------------------------------------
def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


class Server:
    def __init__(self, src: Path, db: Path, extra: list[str], cap: int) -> None:
        self.src, self.db, self.extra, self.cap = src, db, extra, cap
        self.port = free_port()
        self.proc: subprocess.Popen[bytes] | None = None
        self.memory: Memory | None = None
        self.stderr = ""

    def start(self, wait: bool = True) -> Server:
        env = dict(os.environ, PYTHONPATH=str(self.src))
        self._err = tempfile.TemporaryFile()  # noqa: SIM115 (open while the server runs)
        self.proc = subprocess.Popen(
            [sys.executable, "-m", "stonegarden", "serve", "--port", str(self.port),
             "--db", str(self.db), *self.extra],
            env=env, stdout=subprocess.DEVNULL, stderr=self._err, start_new_session=True)
        self.memory = Memory(self.proc.pid, self.cap)
        if not wait:
            return self
        deadline = time.time() + 60
        while time.time() < deadline:
            if self.proc.poll() is not None:
                raise RuntimeError(f"server exited with {self.proc.returncode}: {self.errors()}")
            try:
                if call(self, "GET", "/api/meta", timeout=2)[0] == 200:
                    return self
            except (OSError, http.client.HTTPException):
                pass  # not listening yet (a connection to nobody can even meet itself)
            time.sleep(0.1)
        raise RuntimeError("server did not start")

    def errors(self) -> str:
        self._err.seek(0)
        return self._err.read().decode(errors="replace")

    def workers(self) -> list[int]:
        assert self.proc is not None
        return [p for p in descendants(self.proc.pid) if "resource_tracker" not in cmdline(p)]

    def stop(self, sig: int = signal.SIGTERM, timeout: float = 20) -> None:
        if self.proc is not None and self.proc.poll() is None:
            self.proc.send_signal(sig)
            try:
                self.proc.wait(timeout=timeout)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()
        if self.memory is not None:
            self.memory.close()

    def cleanup(self) -> None:
        """Stop the server and anything it left (whole session: started with its own)."""
        if self.proc is None:
            return
        pids = descendants(self.proc.pid)
        self.stop(signal.SIGKILL)
        for p in pids:
            with contextlib.suppress(OSError):
                os.kill(p, signal.SIGKILL)


def call(server: Server, method: str, path: str, body: Any = None, source: str = "127.0.0.1",
         timeout: float = 60, ctype: str = "application/json",
         headers: dict[str, str] | None = None) -> tuple[int, Any, float, dict[str, str]]:
    """(status, decoded body, seconds, headers); ``source`` is the client's address."""
    conn = http.client.HTTPConnection("127.0.0.1", server.port, timeout=timeout,
                                      source_address=(source, 0))
    data = None if body is None else body if isinstance(body, bytes) else json.dumps(body).encode()
    t0 = time.perf_counter()
    try:
        conn.request(method, path, body=data, headers={"Content-Type": ctype, **(headers or {})})
        r = conn.getresponse()
        raw = r.read()
        seconds = time.perf_counter() - t0
        try:
            out: Any = json.loads(raw)
        except ValueError:
            out = raw.decode(errors="replace")
        return r.status, out, seconds, {k.lower(): v for k, v in r.getheaders()}
    finally:
        conn.close()


def wait_until(check: Callable[[], bool], limit: float, step: float = 0.05) -> float | None:
    """Seconds until ``check()`` holds, or ``None`` after ``limit``."""
    t0 = time.perf_counter()
    while time.perf_counter() - t0 < limit:
        try:
            if check():
                return time.perf_counter() - t0
        except OSError:
            pass
        time.sleep(step)
    return None


def agent_moved(server: Server, gid: str, length: int, source: str) -> Callable[[], bool]:
    def check() -> bool:
        status, snap, _, _ = call(server, "GET", f"/api/games/{gid}", source=source, timeout=10)
        return status == 200 and snap["length"] > length and snap["thinking"] is None
    return check


class Pinger:
    """A client that reads a game's snapshot 20 times a second; keeps every latency."""

    def __init__(self, server: Server, gid: str, source: str = "127.0.0.9") -> None:
        self.server, self.gid, self.source = server, gid, source
        self.latencies: list[float] = []
        self.failures = 0
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, daemon=True)
        self._thread.start()

    def _run(self) -> None:
        while not self._stop.is_set():
            t0 = time.perf_counter()
            try:
                status = call(self.server, "GET", f"/api/games/{self.gid}", source=self.source,
                              timeout=120)[0]
                if status != 200:
                    self.failures += 1
            except OSError:
                self.failures += 1
            self.latencies.append(time.perf_counter() - t0)
            self._stop.wait(0.05)

    def close(self) -> dict[str, Any]:
        self._stop.set()
        self._thread.join()
        lat = sorted(self.latencies)
        return {"pings": len(lat), "failures": self.failures,
                "max_ms": round(1000 * lat[-1], 1) if lat else None,
                "p50_ms": round(1000 * lat[len(lat) // 2], 1) if lat else None}


def mib(n: int) -> float:
    return round(n / MiB, 1)


# -- cases ---------------------------------------------------------------------------------------
def case_memory(ctx: Context) -> dict[str, Any]:
    """Bridge Go with superko off and a huge max_turns, then the computer's analysis (asked
    for, and waited for until done)."""
    out = {}
    for label, max_turns in (("max_turns=10^8", 10**8), ("max_turns=10^4", 10**4)):
        server = ctx.server()
        try:
            assert server.memory is not None
            server.memory.reset()
            status, made, _, _ = call(server, "POST", "/api/games", {
                "game": "bridgego", "params": {"superko": False, "max_turns": max_turns},
                "seats": ["human", "human"]}, source="127.0.0.2")
            row: dict[str, Any] = {"create_status": status, "create_error": _err(made)}
            if status == 201:
                t0 = time.perf_counter()
                try:
                    st, _, _, _ = call(server, "POST", f"/api/games/{made['id']}/analysis",
                                       {}, source="127.0.0.2", timeout=ctx.limit)
                    row["analysis_status"] = st
                    wait_until(functools.partial(_analysed, server,
                                                 f"/api/games/{made['id']}/analysis"), ctx.limit)
                except OSError as exc:
                    row["analysis_status"] = f"no answer ({type(exc).__name__})"
                row["analysis_seconds"] = round(time.perf_counter() - t0, 2)
            row["peak_tree_mib"] = mib(server.memory.peak)
            row["stopped_at_memory_cap"] = server.memory.capped
            out[label] = row
        finally:
            server.cleanup()
    return out


def case_flood(ctx: Context, spec: str) -> dict[str, Any]:
    """One client creates 70 games whose agent moves first with a long budget, in a burst;
    another client then plays against ``random`` and waits for its replies."""
    server = ctx.server()
    try:
        ctx.settle(server)
        statuses: dict[str, int] = {}
        games = []
        t0 = time.perf_counter()
        for _ in range(70):
            st, made, _, hdrs = call(server, "POST", "/api/games", {
                "game": "blooms", "params": {"size": 5, "target": 20},
                "seats": [spec, "human"]}, source="127.0.0.2")
            statuses[str(st)] = statuses.get(str(st), 0) + 1
            if st == 201:
                games.append(made)
            elif st == 429:
                statuses["retry_after"] = int(hdrs.get("retry-after", -1))
        burst = time.perf_counter() - t0
        row: dict[str, Any] = {"spec": spec, "create_statuses": statuses,
                               "burst_seconds": round(burst, 2)}
        st, mine, _, _ = call(server, "POST", "/api/games", {
            "game": "blooms", "params": {"size": 3, "target": 6}, "seats": ["human", "random"]},
            source="127.0.0.3")
        row["other_client_create_status"] = st
        if st == 201:
            gid, key = mine["id"], mine["secrets"]["1"]
            st, _, _, _ = call(server, "POST", f"/api/games/{gid}/move",
                               {"secret": key, "move": "Rc3"}, source="127.0.0.3")
            waited = wait_until(agent_moved(server, gid, 1, "127.0.0.3"), ctx.limit)
            row["other_client_reply_seconds"] = round(waited, 2) if waited else f">{ctx.limit}"
        # the flooding client cancels everything: do the searches stop?
        t0 = time.perf_counter()
        cancelled = 0
        for made in games:
            st = call(server, "POST", f"/api/games/{made['id']}/cancel",
                      {"secret": made["secrets"]["1"]}, source="127.0.0.2")[0]
            cancelled += st == 200
        row["cancelled"] = cancelled
        time.sleep(2)
        busy = [p for p in server.workers() if _busy(p)]
        row["workers_busy_2s_after_cancel"] = len(busy)
        assert server.memory is not None
        row["peak_tree_mib"] = mib(server.memory.peak)
        # the server exits: do searches go on?
        before = server.workers()
        server.stop(signal.SIGTERM)
        time.sleep(3)
        left = [p for p in before if alive(p)]
        row["processes_left_after_exit"] = len(left)
        row["left_busy"] = sum(_busy(p) for p in left)
        row["left_mib"] = mib(sum(rss(p) for p in left))
        return row
    finally:
        server.cleanup()


def _busy(pid: int) -> bool:
    """Used CPU for most of a 0.5 s window."""
    a = cpu_seconds(pid)
    time.sleep(0.5)
    return cpu_seconds(pid) - a > 0.3


def case_upload(ctx: Context) -> dict[str, Any]:
    """The 150,000-move record uploaded three times while another client reads a game 20 times
    a second; then (when the server takes it) a long but acceptable record ten times."""
    record = ctx.long_record()
    accepted = ctx.acceptable_record()
    server = ctx.server()
    out: dict[str, Any] = {"record_bytes": len(record)}
    try:
        st, made, _, _ = call(server, "POST", "/api/games", {
            "game": "blooms", "params": {"size": 3, "target": 6}, "seats": ["human", "human"]})
        pinger = Pinger(server, made["id"])
        time.sleep(1)
        rows = []
        for _ in range(3):
            try:
                st, body, secs, _ = call(server, "POST", "/api/records", record,
                                         source="127.0.0.2", timeout=ctx.limit)
            except OSError as exc:
                st, body, secs = f"no answer ({type(exc).__name__})", None, ctx.limit
            time.sleep(2)
            assert server.proc is not None
            rows.append({"status": st, "error": _err(body), "seconds": round(secs, 2),
                         "server_mib_after": mib(rss(server.proc.pid))})
        out["long_record"] = {"uploads": rows, "reads": pinger.close()}
        pinger = Pinger(server, made["id"])
        rows = []
        for _ in range(10):
            st, body, secs, _ = call(server, "POST", "/api/records", accepted,
                                     source="127.0.0.3", timeout=ctx.limit)
            assert server.proc is not None
            rows.append({"status": st, "error": _err(body), "seconds": round(secs, 2),
                         "server_mib_after": mib(rss(server.proc.pid))})
            if st == 201:  # look at it, as a reviewer would: the game is loaded
                call(server, "GET", f"/api/games/{body['id']}", source="127.0.0.3",
                     timeout=ctx.limit)
        out["acceptable_record"] = {"moves": ctx.acceptable_moves, "bytes": len(accepted),
                                    "uploads": rows, "reads": pinger.close()}
        return out
    finally:
        server.cleanup()


def case_worker_death(ctx: Context) -> dict[str, Any]:
    """A worker killed while idle, then one killed mid-search: do games, hints, analysis go on?"""
    server = ctx.server()
    try:
        _, a, _, _ = call(server, "POST", "/api/games", {
            "game": "blooms", "params": {"size": 3, "target": 6}, "seats": ["human", "random"]})
        gid, key = a["id"], a["secrets"]["1"]
        call(server, "POST", f"/api/games/{gid}/move", {"secret": key, "move": "Rc3"})
        warm = wait_until(agent_moved(server, gid, 1, "127.0.0.1"), ctx.limit)
        row: dict[str, Any] = {"first_reply_seconds": warm and round(warm, 2)}
        workers = server.workers()
        row["workers"] = len(workers)
        os.kill(workers[0], signal.SIGKILL)
        time.sleep(0.5)
        snap = call(server, "GET", f"/api/games/{gid}")[1]
        move = _first_legal_move(snap)
        call(server, "POST", f"/api/games/{gid}/move", {"secret": key, "move": move})
        waited = wait_until(agent_moved(server, gid, 3, "127.0.0.1"), 30)
        row["idle_kill_then_reply_seconds"] = round(waited, 2) if waited else ">30"
        hint = _timed(lambda: call(server, "POST", f"/api/games/{gid}/hint",
                                   {"secret": key}, timeout=30))
        row["idle_kill_then_hint"] = hint
        row["idle_kill_then_analysis"] = _timed(
            lambda: call(server, "POST", f"/api/games/{gid}/analysis", {}, timeout=30))
        # mid-search: a game whose agent thinks for 20 s, its worker killed after 1 s
        _, b, _, _ = call(server, "POST", "/api/games", {
            "game": "blooms", "params": {"size": 5, "target": 20},
            "seats": ["mcts:sims=10000000", "human"]})
        time.sleep(1.5)
        busy = [p for p in server.workers() if _busy(p)]
        row["busy_workers_before_kill"] = len(busy)
        if busy:
            os.kill(busy[0], signal.SIGKILL)

        def settled() -> bool:
            snap = call(server, "GET", f"/api/games/{b['id']}")[1]
            return snap["thinking"] is None
        waited = wait_until(settled, 30)
        snap = call(server, "GET", f"/api/games/{b['id']}")[1]
        row["mid_search_kill"] = {"settled_seconds": round(waited, 2) if waited else ">30",
                                  "paused": snap.get("paused"), "notice": snap.get("notice"),
                                  "moves": snap.get("length")}
        snap = call(server, "GET", f"/api/games/{gid}")[1]
        move = _first_legal_move(snap)
        call(server, "POST", f"/api/games/{gid}/move", {"secret": key, "move": move})
        waited = wait_until(agent_moved(server, gid, snap["length"] + 1, "127.0.0.1"), 30)
        row["other_game_reply_after_mid_search_kill"] = round(waited, 2) if waited else ">30"
        row["workers_after"] = len(server.workers())
        return row
    finally:
        server.cleanup()


def _first_legal_move(snap: dict[str, Any]) -> str:
    """A legal move for player 1 in the small Blooms game (first empty cell by name)."""
    import re

    cells = re.findall(r'data-cell="([a-z]\d+)"[^>]*data-content=""', snap["svg"])
    return "R" + sorted(cells)[0]


def _analysed(server: Server, path: str) -> bool:
    return bool(call(server, "GET", path, source="127.0.0.2")[1]["done"])


def _timed(fn: Callable[[], tuple[int, Any, float, dict[str, str]]]) -> dict[str, Any]:
    t0 = time.perf_counter()
    try:
        st = fn()[0]
    except OSError as exc:
        st = f"no answer ({type(exc).__name__})"
    return {"status": st, "seconds": round(time.perf_counter() - t0, 2)}


def case_orphans(ctx: Context) -> dict[str, Any]:
    """Ten times: a server with a search running (and an analysis asked), stopped by SIGKILL
    (then ten times by SIGTERM, a clean shutdown); the processes below it that outlive it."""
    out = {}
    for name, sig in (("SIGKILL", signal.SIGKILL), ("SIGTERM", signal.SIGTERM)):
        left_total, rounds = 0, []
        for _ in range(ctx.kills):
            server = ctx.server()
            try:
                call(server, "POST", "/api/games", {
                    "game": "blooms", "params": {"size": 5, "target": 20},
                    "seats": ["mcts:sims=10000000", "human"]})
                time.sleep(1.5)
                assert server.proc is not None
                below = descendants(server.proc.pid)
                server.stop(sig)
                time.sleep(3)
                left = [p for p in below if alive(p)]
                left_total += len(left)
                rounds.append({"below": len(below), "left": len(left),
                               "left_busy": sum(_busy(p) for p in left),
                               "left_mib": mib(sum(rss(p) for p in left))})
                for p in left:
                    os.kill(p, signal.SIGKILL)
            finally:
                server.cleanup()
        out[name] = {"rounds": rounds, "left_total": left_total}
    return out


def case_bad_inputs(ctx: Context) -> dict[str, Any]:
    """Inputs that gave 500s: the status each gets."""
    server = ctx.server()
    try:
        big = "1" * 5000
        st, made, _, _ = call(server, "POST", "/api/games", {
            "game": "blooms", "params": {"size": 3, "target": 6}, "seats": ["human", "human"]})
        gid, k1 = made["id"], made["secrets"]["1"]
        record = {"format": "stonegarden-record", "version": 1, "game": "blooms",
                  "params": {"size": 3}, "moves": []}
        sgf = "(;GM[1]FF[4]SZ[9]RU[stonegarden freego self=1])"
        cases: list[tuple[str, str, str, bytes | Any, str]] = [
            ("integer of 5000 digits in params", "POST", "/api/games",
             ('{"game": "blooms", "params": {"size": ' + big
              + '}, "seats": ["human", "human"]}').encode(), "application/json"),
            ("integer of 5000 digits in ply (query)", "GET", f"/api/games/{gid}?ply={big}", None,
             "application/json"),
            ("integer of 5000 digits in ply (body)", "POST", f"/api/games/{gid}/move",
             ('{"secret": "' + k1 + '", "move": "Rc3", "ply": ' + big + "}").encode(),
             "application/json"),
            ("integer of 5000 digits in a record", "POST", "/api/records",
             json.dumps(record).replace('"size": 3', f'"size": {big}').encode(),
             "application/json"),
            ("parameter named self", "POST", "/api/games",
             {"game": "blooms", "params": {"self": 1}, "seats": ["human", "human"]},
             "application/json"),
            ("parameter named game_id", "POST", "/api/games",
             {"game": "blooms", "params": {"game_id": 1}, "seats": ["human", "human"]},
             "application/json"),
            ("parameter self through SGF RU[]", "POST", "/api/records", sgf.encode(),
             "application/x-go-sgf"),
            ("lone surrogate in a secret", "POST", f"/api/games/{gid}/move",
             b'{"secret": "\\ud800", "move": "Rc3"}', "application/json"),
            *[(f"JSON nested {depth} deep in holes", "POST", "/api/games",
               ('{"game": "blooms", "params": {"holes": %s}, "seats": ["human", "human"]}'
                % ("[" * depth + "]" * depth)).encode(), "application/json")
              for depth in (900, 950, 956, 960)],
            ("deeply nested JSON text in holes", "POST", "/api/games",
             {"game": "blooms", "params": {"holes": "[" * 5000 + "]" * 5000},
              "seats": ["human", "human"]}, "application/json"),
            ("seat random:seed=-1", "POST", "/api/games",
             {"game": "blooms", "params": {"size": 3}, "seats": ["human", "random:seed=-1"]},
             "application/json"),
            ("target 2**63", "POST", "/api/games",
             {"game": "blooms", "params": {"size": 3, "target": 2**63},
              "seats": ["human", "human"]}, "application/json"),
        ]
        rows = {}
        for label, method, path, body, ctype in cases:
            data = body if isinstance(body, bytes) or body is None else json.dumps(body).encode()
            st, answer, _, _ = call(server, method, path, data, ctype=ctype)
            rows[label] = {"status": st, "error": _err(answer)}
        # target 2**63 is only a 500 once a kernel runs: ask for the analysis of that game
        made = rows["target 2**63"]
        if made["status"] == 201:
            gid2 = call(server, "GET", "/api/games")[1]["games"][0]["id"]
            st, answer, _, _ = call(server, "POST", f"/api/games/{gid2}/analysis", {})
            if st == 202:
                wait_until(lambda: call(server, "GET", f"/api/games/{gid2}/analysis")[1][
                    "done"], 60)
                st, answer, _, _ = call(server, "GET", f"/api/games/{gid2}/analysis")
            rows["target 2**63, then its analysis"] = {"status": st, "error": _err(answer)}
        return {"cases": rows, "5xx": sum(1 for r in rows.values()
                                          if isinstance(r["status"], int) and r["status"] >= 500)}
    finally:
        server.cleanup()


def case_headers(ctx: Context) -> dict[str, Any]:
    server = ctx.server()
    try:
        _, made, _, _ = call(server, "POST", "/api/games", {
            "game": "blooms", "params": {"size": 3}, "seats": ["human", "human"]})
        out = {}
        for path in ("/", f"/game/{made['id']}", "/api/meta"):
            hdrs = call(server, "GET", path)[3]
            out[path if not path.startswith("/game/") else "/game/ID"] = {
                k: hdrs.get(k) for k in ("content-security-policy", "x-frame-options",
                                         "x-content-type-options", "referrer-policy")}
        listing = call(server, "GET", "/api/games", source="127.0.0.5")[1]
        out["listing_shows_unlisted_game"] = made["id"] in json.dumps(listing)
        return out
    finally:
        server.cleanup()


def case_storage(ctx: Context) -> dict[str, Any]:
    out: dict[str, Any] = {}
    # a bad row
    server = ctx.server()
    try:
        good = call(server, "POST", "/api/games", {"game": "blooms", "params": {"size": 3},
                                                   "seats": ["human", "human"]})[1]
        bad = call(server, "POST", "/api/games", {"game": "blooms", "params": {"size": 4},
                                                  "seats": ["human", "random"]})[1]
    finally:
        server.cleanup()
    with sqlite3.connect(server.db) as con:
        con.execute("UPDATE games SET params = '{not json' WHERE id = ?", (bad["id"],))
    row = ctx.start_outcome(server.db)
    if row["started"]:
        s = row.pop("server")
        try:
            row["bad_game_status"] = call(s, "GET", f"/api/games/{bad['id']}")[0]
            row["good_game_status"] = call(s, "GET", f"/api/games/{good['id']}")[0]
        finally:
            s.cleanup()
    out["bad_row"] = row
    # a dropped moves table
    with sqlite3.connect(server.db) as con:
        con.execute("UPDATE games SET params = '{}' WHERE id = ?", (bad["id"],))
        con.execute("DROP TABLE moves")
    row = ctx.start_outcome(server.db)
    if row["started"]:
        row.pop("server").cleanup()
    with sqlite3.connect(server.db) as con:
        row["moves_table_exists_after"] = bool(con.execute(
            "SELECT 1 FROM sqlite_master WHERE name = 'moves'").fetchone())
    out["dropped_moves_table"] = row
    # a corrupt file
    corrupt = server.db.with_name("corrupt.db")
    corrupt.write_bytes(b"this is not a database" * 1000)
    row = ctx.start_outcome(corrupt)
    if row["started"]:
        row.pop("server").cleanup()
    out["corrupt_file"] = row
    return out


def _err(body: Any) -> str | None:
    if isinstance(body, dict) and "error" in body:
        return str(body["error"])[:200]
    return None


# -- context -------------------------------------------------------------------------------------
class Context:
    def __init__(self, args: argparse.Namespace, tmp: Path) -> None:
        self.args = args
        self.src = args.src.resolve()
        self.tmp = tmp
        self.limit = args.limit
        self.kills = args.kills
        self.cap = args.memory_cap * MiB
        self.acceptable_moves = 0
        self._n = 0

    def server(self, db: Path | None = None) -> Server:
        self._n += 1
        db = db or self.tmp / f"games-{self._n}.db"
        return Server(self.src, db, ["--workers", "2", *self.args.server_args], self.cap).start()

    def settle(self, server: Server) -> None:
        """Until the server says its workers are up (a version that does not say: 5 s), and a
        first agent move has been made, so that start-up is not measured as waiting."""
        t0 = time.time()
        while time.time() - t0 < 60:
            limits = call(server, "GET", "/api/meta")[1].get("limits")
            if limits is None:
                time.sleep(5)
                break
            if limits["workers"] >= 2 and limits["busy"] == 0:
                break
            time.sleep(0.2)
        _, made, _, _ = call(server, "POST", "/api/games", {
            "game": "blooms", "params": {"size": 3, "target": 6}, "seats": ["human", "random"]},
            source="127.0.0.8")
        call(server, "POST", f"/api/games/{made['id']}/move",
             {"secret": made["secrets"]["1"], "move": "Rc3"}, source="127.0.0.8")
        wait_until(agent_moved(server, made["id"], 1, "127.0.0.8"), self.limit)

    def start_outcome(self, db: Path) -> dict[str, Any]:
        s = Server(self.src, db, ["--workers", "1"], self.cap)
        try:
            s.start()
        except RuntimeError:
            s.stop()
            err = s.errors().strip().splitlines()
            return {"started": False, "exit_status": s.proc.returncode if s.proc else None,
                    "stderr_lines": len(err), "last_line": err[-1][:300] if err else ""}
        return {"started": True, "server": s}

    def long_record(self) -> bytes:
        path = self.args.record_cache
        if not path.exists():
            gen = (self.args.gen_src or self.src).resolve()
            code = ("import json,sys,numpy as np\n"
                    "from stonegarden.core.registry import make\n"
                    "g=make('freego', size=9, ko='none', target=10**6)\n"
                    "s=g.initial_state(); rng=np.random.default_rng(36); moves=[]\n"
                    "while len(moves)<150000:\n"
                    "    a=g.legal_actions(s); x=int(a[rng.integers(len(a))])\n"
                    "    moves.append(g.action_to_text(s,x)); s=g.play_unchecked(s,x)\n"
                    "json.dump({'format':'stonegarden-record','version':1,'game':'freego',"
                    "'params':{'ko':'none','target':10**6},'moves':moves}, sys.stdout)\n")
            out = subprocess.run([sys.executable, "-c", code], capture_output=True, check=True,
                                 env=dict(os.environ, PYTHONPATH=str(gen)))
            path.write_bytes(out.stdout)
        return path.read_bytes()

    def acceptable_record(self) -> bytes:
        """Territory Blooms (5 cells a side, ``max_turns=10000``, in range): the first
        ``--acceptable-moves`` moves of a seeded random game that passes only when it must (an
        unfinished game)."""
        moves = self.args.acceptable_moves
        code = ("import json,sys,numpy as np\n"
                "from stonegarden.core.registry import make\n"
                "g=make('blooms-territory', size=5, max_turns=10000)\n"
                "s=g.initial_state(); rng=np.random.default_rng(36); moves=[]\n"
                f"while len(moves)<{moves} and not g.is_terminal(s):\n"
                "    acts=[int(x) for x in g.legal_actions(s)]\n"
                "    a=[x for x in acts if g.action_to_text(s,x)!='pass'] or acts\n"
                "    x=a[int(rng.integers(len(a)))]\n"
                "    moves.append(g.action_to_text(s,x)); s=g.play_unchecked(s,x)\n"
                "json.dump({'format':'stonegarden-record','version':1,"
                "'game':'blooms-territory','params':{'max_turns':10000},'moves':moves},"
                " sys.stdout)\n")
        out = subprocess.run([sys.executable, "-c", code], capture_output=True, check=True,
                             env=dict(os.environ, PYTHONPATH=str(self.src)))
        self.acceptable_moves = len(json.loads(out.stdout)["moves"])
        return out.stdout


CASES: dict[str, Callable[[Context], Any]] = {
    "memory": case_memory,
    "flood": lambda ctx: [case_flood(ctx, "mcts:time=100000"),
                          case_flood(ctx, "mcts:sims=10000000")],
    "upload": case_upload,
    "worker_death": case_worker_death,
    "orphans": case_orphans,
    "bad_inputs": case_bad_inputs,
    "headers": case_headers,
    "storage": case_storage,
}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--src", type=checkout_src, default=Path(__file__).resolve().parents[1] / "src")
    ap.add_argument("--gen-src", type=checkout_src, default=None)
    ap.add_argument("--cases", default=",".join(CASES))
    ap.add_argument("--out", type=Path, default=None)
    ap.add_argument("--limit", type=positive_float, default=120.0, help="seconds any one wait may take")
    ap.add_argument("--kills", type=positive_int, default=10)
    ap.add_argument("--memory-cap", type=positive_int, default=6144, help="MiB; the tree is killed above")
    ap.add_argument("--acceptable-moves", type=positive_int, default=5000)
    ap.add_argument("--record-cache", type=Path,
                    default=Path(tempfile.gettempdir()) / "stonegarden-freego-150000.json")
    ap.add_argument("--server-args", nargs=argparse.REMAINDER, default=[],
                    help="extra options for serve (last)")
    args = ap.parse_args()
    results: dict[str, Any] = {
        "command": command(),
        "code_version": code_version(args.src),
        "src": str(args.src),
        "machine": {"cpus": os.cpu_count()},
        "started": time.strftime("%Y-%m-%dT%H:%M:%S"),
        "cases": {},
    }
    unknown = [name for name in args.cases.split(",") if name not in CASES]
    if unknown:
        ap.error(f"--cases: unknown {', '.join(map(repr, unknown))} (the cases: "
                 f"{', '.join(CASES)})")
    with tempfile.TemporaryDirectory() as tmp:
        ctx = Context(args, Path(tmp))
        for name in args.cases.split(","):
            print(f"[{time.strftime('%H:%M:%S')}] {name} ...", file=sys.stderr, flush=True)
            t0 = time.perf_counter()
            try:
                results["cases"][name] = CASES[name](ctx)
            except Exception as exc:  # a harness failure is a result too; the other cases go on
                results["cases"][name] = {"harness_error": f"{type(exc).__name__}: {exc}"}
            results["cases"][name + "_seconds"] = round(time.perf_counter() - t0, 1)
            print(json.dumps(results["cases"][name])[:2000], file=sys.stderr, flush=True)
    text = json.dumps(results, indent=1)
    if args.out:
        args.out.parent.mkdir(parents=True, exist_ok=True)
        args.out.write_text(text + "\n")
    print(text)


if __name__ == "__main__":
    run_main(main)
