"""The first AI reply and the first hint after an install, per game, against a real
``stonegarden serve --workers 2`` run from any source tree, with the ratio to a baseline tree
measured in the same run.

"After an install" means an empty kernel cache (a fresh ``XDG_CACHE_HOME``, so numba has
compiled nothing) and, when the tree has it, the install step that ``scripts/serve.sh`` runs
(``stonegarden warm-up``, timed). Then, for every game, two fresh servers on that cache:

- **reply**: the server is started and, when it reports its engine's readiness
  (``GET /api/engine``), waited for until ready; a game against ``level:2`` (the default level)
  is created with the person on the seat that moves first, the person plays the middle legal
  move, and the time from that request until the reply is on the board is the first reply
  (``null`` with ``reply_failed_after_seconds`` and the page's notice when the agent's job
  failed instead, e.g. a compile that overran its deadline);
- **hint**: the same start, then a hint asked at the first move (the first search the
  server's workers run); a refused hint is recorded with its status and error.

The baseline tree (``--baseline-src``) is measured the same way, each game on a cache of its
own (it has no install step: its first reply compiles that game's kernels, as a first game
after an install does).

    mkdir -p BASELINE_DIR && git archive main src | tar -x -C BASELINE_DIR
    python3 benchmarks/first_reply.py --src src --baseline-src BASELINE_DIR/src \\
        --baseline-version "$(git rev-parse main)" --out benchmarks/results/first-reply.json
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "src"))  # this checkout's rules
from dos_cases import Server, call, wait_until
from provenance import ROOT, checkout_src, code_version, command, run_main

from stonegarden.core.protocol import CHANCE
from stonegarden.core.registry import available_games, make

LEVEL = "level:2"
#: bounds of every wait (a cold compile under load takes minutes): never a timing assertion
LIMIT = 900.0


def opening(game_id: str) -> tuple[int, str]:
    """The seat that makes the first choice and the middle legal move there (by this
    checkout's rules, the same in every tree for a first move)."""
    game = make(game_id)
    state = game.initial_state()
    while game.current_player(state) == CHANCE:
        state = game.play(state, game.chance_outcomes(state)[0][0])
    acts = game.legal_actions(state)
    return game.current_player(state), game.action_to_text(state, int(acts[len(acts) // 2]))


def start(src: Path, cache: Path, db: Path) -> tuple[Server, dict[str, Any]]:
    """A server on ``cache``, waited for until it answers and (if it says) until its engine
    is ready; the seconds of each."""
    os.environ["XDG_CACHE_HOME"] = str(cache)
    os.environ.pop("NUMBA_CACHE_DIR", None)
    t0 = time.perf_counter()
    server = Server(src, db, ["--workers", "2"], cap=8 * 1024**3).start()
    out: dict[str, Any] = {"up_seconds": round(time.perf_counter() - t0, 2)}
    status, _, _, _ = call(server, "GET", "/api/engine")
    if status == 200:
        waited = wait_until(lambda: call(server, "GET", "/api/engine")[1]["ready"], LIMIT, 0.1)
        out["ready_seconds"] = None if waited is None else round(time.perf_counter() - t0, 2)
    return server, out


def new_game(server: Server, game_id: str) -> tuple[str, str, str, float]:
    """(id, the person's secret, the opening move, seconds to create it)."""
    seat, move = opening(game_id)
    seats = ["human", LEVEL] if seat == 1 else [LEVEL, "human"]
    status, made, seconds, _ = call(server, "POST", "/api/games",
                                    {"game": game_id, "params": {}, "seats": seats})
    if status != 201:
        raise RuntimeError(f"{game_id}: creating the game gave {status}: {made}")
    return made["id"], made["secrets"][str(seat)], move, seconds


def first_reply(src: Path, cache: Path, work: Path, game_id: str) -> dict[str, Any]:
    server, out = start(src, cache, work / f"{game_id}-reply.db")
    try:
        gid, key, move, out["create_seconds"] = new_game(server, game_id)
        seat = call(server, "GET", f"/api/games/{gid}", timeout=30,
                    headers={"X-Seat-Secret": key})[1]["you"]
        before = call(server, "GET", f"/api/games/{gid}", timeout=30)[1]["length"]
        t0 = time.perf_counter()
        status, snap, _, _ = call(server, "POST", f"/api/games/{gid}/move",
                                  {"secret": key, "move": move}, timeout=LIMIT)
        if status != 200:
            raise RuntimeError(f"{game_id}: the move {move!r} gave {status}: {snap}")

        last: dict[str, Any] = {}

        def replied() -> bool:  # the person's move, the agent's reply (and any dice between)
            s = last["snap"] = call(server, "GET", f"/api/games/{gid}", timeout=30)[1]
            if s["paused"]:  # the agent's job failed (its deadline): no reply comes
                return True
            return (s["length"] >= before + 2 and s["thinking"] is None
                    and (s["terminal"] or s["to_move"] == seat))

        done = wait_until(replied, LIMIT, 0.02)
        seconds = None if done is None else round(time.perf_counter() - t0, 2)
        if last.get("snap", {}).get("paused"):
            out["reply_seconds"] = None
            out["reply_failed_after_seconds"] = seconds
            out["notice"] = last["snap"]["notice"]
        else:
            out["reply_seconds"] = seconds
        out["move"] = move
    finally:
        server.cleanup()
    return out


def first_hint(src: Path, cache: Path, work: Path, game_id: str) -> dict[str, Any]:
    server, out = start(src, cache, work / f"{game_id}-hint.db")
    try:
        gid, key, _, _ = new_game(server, game_id)
        status, snap, seconds, _ = call(server, "POST", f"/api/games/{gid}/hint",
                                        {"secret": key}, timeout=LIMIT)
        if status == 200:
            out["hint_seconds"] = round(seconds, 2)
            out["hint"] = snap["hint"]["move"]
        else:  # e.g. 503: the hint's search did not stop at its deadline (a compile)
            out["hint_seconds"] = None
            out["hint_failed_after_seconds"] = round(seconds, 2)
            out["hint_status"] = status
            out["error"] = snap.get("error") if isinstance(snap, dict) else str(snap)
    finally:
        server.cleanup()
    return out


def install_step(src: Path, cache: Path) -> float | None:
    """Seconds of ``stonegarden warm-up`` on ``cache`` (``None``: the tree has no such step)."""
    if not (src / "stonegarden" / "warmup.py").exists():
        return None
    env = dict(os.environ, PYTHONPATH=str(src), XDG_CACHE_HOME=str(cache))
    env.pop("NUMBA_CACHE_DIR", None)
    t0 = time.perf_counter()
    subprocess.run([sys.executable, "-m", "stonegarden", "warm-up", "--quiet"], env=env,
                   check=True)
    return round(time.perf_counter() - t0, 2)


def measure(src: Path, games: list[str], work: Path, version: str | None = None
            ) -> dict[str, Any]:
    """Every game of ``games`` on the tree ``src`` (of the commit ``version``, when it is no
    git checkout), after an install."""
    shared = work / "installed-cache"
    installed = install_step(src, shared)
    out: dict[str, Any] = {"src": str(src), "code_version": version or code_version(src),
                           "install_seconds": installed, "games": {}}
    for game_id in games:
        # without an install step each game is the first after an install: a cache of its own
        cache = shared if installed is not None else work / f"cache-{game_id}"
        hint_cache = shared if installed is not None else work / f"cache-{game_id}-hint"
        row = {"reply": first_reply(src, cache, work, game_id),
               "hint": first_hint(src, hint_cache, work, game_id)}
        out["games"][game_id] = row
        print(f"{src}: {game_id}: {json.dumps(row)}", flush=True)
    return out


def _cell(row: dict[str, Any], part: str) -> tuple[str, float | None]:
    """What a table cell shows of ``part`` (reply or hint): its seconds, or how it failed."""
    seconds = row[part].get(f"{part}_seconds")
    if seconds is not None:
        return f"{seconds:.2f}", seconds
    failed = row[part].get(f"{part}_failed_after_seconds")
    return (f"fail@{failed:.0f}" if failed is not None else "none"), None


def table(new: dict[str, Any], old: dict[str, Any] | None) -> str:
    """Seconds per game, after and before, and their ratio ("fail@S": no reply or hint,
    the job failed after S seconds)."""
    lines = [f"{'game':<18}{'reply s':>9}{'baseline':>10}{'ratio':>8}{'hint s':>9}"
             f"{'baseline':>10}{'ratio':>8}{'ready s':>9}"]
    for game_id, row in new["games"].items():
        base = old["games"].get(game_id) if old else None
        cells = [f"{game_id:<18}"]
        for part in ("reply", "hint"):
            shown, value = _cell(row, part)
            before, was = _cell(base, part) if base else ("-", None)
            ratio = f"{value / was:.3f}" if value and was else "-"
            cells.append(f"{shown:>9}{before:>10}{ratio:>8}")
        cells.append(f"{row['reply'].get('ready_seconds')!s:>9}")
        lines.append("".join(cells))
    if new.get("install_seconds") is not None:
        lines.append(f"install step (stonegarden warm-up): {new['install_seconds']} s")
    return "\n".join(lines)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--src", type=checkout_src, default=ROOT / "src",
                    help="the source tree measured [default: this checkout's]")
    ap.add_argument("--baseline-src", type=checkout_src, help="the tree it is compared with")
    ap.add_argument("--baseline-version", help="the commit of the baseline tree (an export)")
    ap.add_argument("--games", default=",".join(available_games()))
    ap.add_argument("--out", type=Path, help="the JSON results")
    ap.add_argument("--table", type=Path, help="only print the table of these JSON results")
    args = ap.parse_args()
    if args.table:
        saved = json.loads(args.table.read_text())
        print(table(saved["new"], saved.get("baseline")))
        return
    games = [g for g in args.games.split(",") if g]
    unknown = [g for g in games if g not in available_games()]
    if unknown or not games:
        ap.error(f"--games: unknown {', '.join(map(repr, unknown)) or 'none given'} (the games: "
                 f"{', '.join(available_games())})")
    result: dict[str, Any] = {
        "command": command(), "started": time.strftime("%Y-%m-%dT%H:%M:%S"),
        "machine": {"cpus": os.cpu_count(), "python": platform.python_version(),
                    "load_before": os.getloadavg()},
        "level": LEVEL,
    }
    with tempfile.TemporaryDirectory(prefix="first-reply-") as tmp:
        work = Path(tmp)
        if args.baseline_src:
            (work / "baseline").mkdir()
            result["baseline"] = measure(args.baseline_src.resolve(), games, work / "baseline",
                                         args.baseline_version)
        (work / "new").mkdir()
        result["new"] = measure(args.src.resolve(), games, work / "new")
        shutil.rmtree(work, ignore_errors=True)
    result["machine"]["load_after"] = os.getloadavg()
    print(table(result["new"], result.get("baseline")))
    if args.out:
        args.out.parent.mkdir(parents=True, exist_ok=True)
        args.out.write_text(json.dumps(result, indent=1) + "\n")


if __name__ == "__main__":
    run_main(main)
