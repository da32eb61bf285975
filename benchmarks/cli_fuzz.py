"""Seeded fuzzing of ``stonegarden engine`` and ``stonegarden replay`` through the real commands,
run from any source tree (so an older version and this one meet the same inputs).

- engine: LINES lines, mutations of valid queries (bytes flipped or cut, values swapped for
  huge or negative numbers, deep nesting, lone surrogates, unknown parameters) plus invalid
  UTF-8, fed to one engine process; when it exits early it is counted and started again on
  the next line. Reported: lines that ended the process, lines answered, untyped errors
  (``InternalError`` answers).
- replay: RECORDS mutated records, one ``replay --json`` process each. Reported: tracebacks
  and exit statuses; and a record whose stated result disagrees with its moves.

    python3 benchmarks/cli_fuzz.py --src src --out benchmarks/results/cli-fuzz-after.json
"""

from __future__ import annotations

import argparse
import json
import os
import random
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from provenance import (
    checkout_src,
    code_version,
    command,
    emit,
    nonnegative_int,
    progress,
    run_main,
)

QUERIES = [
    {"id": 1, "game": "blooms", "params": {"size": 3}, "moves": ["Rc3"], "sims": 30, "seed": 1},
    {"id": 2, "game": "freego", "params": {"size": 5}, "moves": ["C3", "B2"], "sims": 30},
    {"id": 3, "game": "bridgego", "params": {"size": 5}, "sims": 20, "candidates": 3},
    {"id": 4, "game": "blobs", "params": {"dice": 6}, "sims": 20},
    {"id": 5, "game": "blooms-territory", "params": {"size": 3}, "time": 0.02},
    {"id": 6, "action": "games"},
]
NASTY = [10**5000, -1, 2**63, 2**64, -(2**63) - 1, 1e308, None, True, "\ud800", "",
         [[[[[[[[[[]]]]]]]]]], {"self": 1}, {"game_id": 2}, "x" * 10000, 0, 0.0, "NaN",
         "mcts:time=100000", "random:seed=-1", [1, 2, 3], {"a": {"b": {}}}]
KEYS = ["id", "game", "params", "moves", "position", "sims", "time", "candidates", "agent",
        "seed", "action", "size", "target", "max_turns", "holes", "self", "superko"]


def mutate_query(rng: random.Random) -> bytes:
    q: Any = json.loads(json.dumps(rng.choice(QUERIES)))
    for _ in range(rng.randint(1, 3)):
        where = q.get("params") if rng.random() < 0.4 and isinstance(q.get("params"), dict) \
            else q
        where[rng.choice(KEYS)] = rng.choice(NASTY)
    text = json.dumps(q).encode("utf-8", "surrogatepass")
    kind = rng.random()
    if kind < 0.15:  # flip a byte
        i = rng.randrange(len(text))
        text = text[:i] + bytes([rng.randrange(256)]) + text[i + 1:]
    elif kind < 0.25:  # cut it
        text = text[:rng.randrange(1, len(text))]
    elif kind < 0.30:
        text = b"[" * 5000 + b"]" * 5000
    return text.replace(b"\n", b" ")


def engine_fuzz(src: Path, lines: list[bytes]) -> dict[str, Any]:
    env = dict(os.environ, PYTHONPATH=str(src))
    deaths, answered, internal, i = 0, 0, 0, 0
    t0 = time.perf_counter()
    with progress(len(lines), "engine lines", "lines") as step:
        while i < len(lines):
            out = subprocess.run([sys.executable, "-m", "stonegarden", "engine"],
                                 input=b"\n".join(lines[i:]) + b"\n", capture_output=True,
                                 env=env, timeout=3600)
            got = [line for line in out.stdout.splitlines() if line.strip()]
            answered += len(got)
            for line in got:
                try:
                    internal += json.loads(line).get("kind") == "InternalError"
                except ValueError:
                    internal += 1
            # answers come in order, one per non-blank line: the line after the last answered
            # one ended the process, if it did not reach the end
            consumed = _lines_consumed(lines[i:], len(got))
            if consumed >= len(lines) - i:
                step(len(lines) - i)
                break
            deaths += 1
            step(consumed + 1)
            i += consumed + 1
    return {"lines": len(lines), "lines_that_ended_the_process": deaths,
            "answers": answered, "internal_errors": internal,
            "seconds": round(time.perf_counter() - t0, 1)}


def _lines_consumed(lines: list[bytes], answers: int) -> int:
    """How many lines ``answers`` answers account for (blank lines get none)."""
    seen = 0
    for k, line in enumerate(lines):
        if seen == answers:
            return k
        if line.strip():
            seen += 1
    return len(lines)


def record_of(rng: random.Random) -> dict[str, Any]:
    base = {"format": "stonegarden-record", "version": 1, "game": "blooms",
            "params": {"size": 3}, "moves": ["Rc3", "Ka1,Gb1", "Rb2,Yc2"]}
    for _ in range(rng.randint(1, 3)):
        target = base if rng.random() < 0.6 else base["params"] if isinstance(
            base.get("params"), dict) else base
        target[rng.choice(["format", "version", "game", "params", "moves", "result",
                           "players", "meta", "size", "target", "holes", "self"])] = \
            rng.choice([*NASTY, {"winner": 1, "scores": None}, {"scores": [1]},
                        ["Rc3", "Rc3"], ["Zz9"], {"winner": 2, "scores": [0, 9]}])
    return base


def replay_fuzz(src: Path, records: list[dict[str, Any]], tmp: Path) -> dict[str, Any]:
    env = dict(os.environ, PYTHONPATH=str(src))
    statuses: dict[str, int] = {}
    tracebacks = 0
    t0 = time.perf_counter()
    with progress(len(records), "records replayed", "records") as step:
        for k, record in enumerate(records):
            path = tmp / f"r{k}.json"
            path.write_bytes(json.dumps(record).encode("utf-8", "surrogatepass"))
            out = subprocess.run([sys.executable, "-m", "stonegarden", "replay", str(path),
                                  "--json"], capture_output=True, env=env, timeout=600)
            statuses[str(out.returncode)] = statuses.get(str(out.returncode), 0) + 1
            tracebacks += b"Traceback" in out.stderr
            step()
    lying = {"format": "stonegarden-record", "version": 1, "game": "blooms",
             "params": {"size": 2, "target": 2}, "moves": ["Rb2"],
             "result": {"winner": 2, "reason": "target", "scores": [0, 2]}}
    path = tmp / "lying.json"
    path.write_text(json.dumps(lying))
    out = subprocess.run([sys.executable, "-m", "stonegarden", "replay", str(path)],
                         capture_output=True, env=env, timeout=600)
    return {"records": len(records), "tracebacks": tracebacks, "exit_statuses": statuses,
            "result_disagreeing_exit_status": out.returncode,
            "seconds": round(time.perf_counter() - t0, 1)}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--src", type=checkout_src, default=Path(__file__).resolve().parents[1] / "src")
    ap.add_argument("--lines", type=nonnegative_int, default=2000)
    ap.add_argument("--records", type=nonnegative_int, default=200)
    ap.add_argument("--seed", type=int, default=36)
    ap.add_argument("--out", type=Path, default=None)
    args = ap.parse_args()
    sys.set_int_max_str_digits(0)  # this script writes the huge numbers it sends
    rng = random.Random(args.seed)
    lines = [mutate_query(rng) for _ in range(args.lines)]
    lines[::97] = [b"\xff\xfe invalid utf-8 \xc3"] * len(lines[::97])
    records = [record_of(rng) for _ in range(args.records)]
    src = args.src.resolve()
    version = code_version(src)
    with tempfile.TemporaryDirectory() as tmp:
        result = {"command": command(),
                  "code_version": version, "seed": args.seed,
                  "engine": engine_fuzz(src, lines),
                  "replay": replay_fuzz(src, records, Path(tmp))}
    emit(result, args.out)


if __name__ == "__main__":
    run_main(main)
