"""Playout and search speed of two or more checkouts of stonegarden side by side, in one run.

Each measurement is ``stonegarden bench playouts|search GAME --json`` in a fresh process whose
``PYTHONPATH`` is one checkout's ``src``; the checkouts (and, for Blooms playouts, the plain
numba baseline given with ``--baseline``, such as ``benchmarks/baseline_blooms.py``) take
turns round after round, so load on the machine falls on all of them alike. Reported: the
median of the rounds per checkout and the ratio of each to the first checkout (and to the
baseline).

    python benchmarks/compare_versions.py --version old=OLD_CHECKOUT/src --version new=src \\
        --baseline benchmarks/baseline_blooms.py --rounds 3 --seconds 3 --out FILE

Every checkout compiles its kernels once, outside the timing, into its own numba cache (the
cache directory is named by a hash of the kernel sources).
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import statistics
import subprocess
import sys
import time
from pathlib import Path

from provenance import checkout_src, child_json, positive_float, positive_int, run_main

#: (label, bench kind, game, params, agent spec or None)
CASES: list[tuple[str, str, str, tuple[str, ...], str | None]] = [
    ("blooms n=5 X=20 playouts", "playouts", "blooms", ("size=5", "target=20"), None),
    ("blooms-territory n=5 playouts", "playouts", "blooms-territory", ("size=5",), None),
    ("freego 9x9 playouts", "playouts", "freego", (), None),
    ("bridgego 9x9 playouts", "playouts", "bridgego", (), None),
    ("blobs playouts", "playouts", "blobs", (), None),
    ("blooms n=5 mcts", "search", "blooms", ("size=5",), "mcts"),
    ("blooms-territory n=5 mcts", "search", "blooms-territory", ("size=5",), "mcts"),
    ("freego 9x9 mcts", "search", "freego", (), "mcts"),
    ("bridgego 9x9 mcts", "search", "bridgego", (), "mcts"),
    ("blobs mcts", "search", "blobs", (), "mcts"),
]


def git_version(src: Path) -> str:
    """The commit of the checkout holding ``src`` (with ``+dirty`` if it has changes)."""
    try:
        head = subprocess.run(["git", "-C", str(src), "rev-parse", "HEAD"], capture_output=True,
                              text=True, check=True).stdout.strip()
        dirty = subprocess.run(["git", "-C", str(src), "status", "--porcelain", "--", "."],
                               capture_output=True, text=True, check=True).stdout.strip()
    except (OSError, subprocess.CalledProcessError):
        return "unknown"
    return head + ("+dirty" if dirty else "")


def bench_cmd(kind: str, game: str, params: tuple[str, ...], spec: str | None,
              seconds: float) -> list[str]:
    cmd = [sys.executable, "-m", "stonegarden", "bench", kind, game]
    for p in params:
        cmd += ["--param", p]
    if spec is not None:
        cmd += ["--agent", spec]
    return [*cmd, "--seconds", str(seconds), "--json"]


def run(cmd: list[str], src: Path | None) -> dict:
    env = dict(os.environ)
    if src is not None:
        env["PYTHONPATH"] = str(src)
    return child_json(cmd, env=env)


def rate(result: dict) -> float:
    return float(result.get("playouts_per_s", result.get("sims_per_s", 0.0)))


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--version", action="append", required=True, metavar="NAME=SRC",
                    help="a checkout's src directory under a name (give two or more)")
    ap.add_argument("--baseline", type=Path, help="the plain numba Blooms playout to compare with")
    ap.add_argument("--rounds", type=positive_int, default=3)
    ap.add_argument("--seconds", type=positive_float, default=3.0)
    ap.add_argument("--only", help="run only the cases whose label contains this text")
    ap.add_argument("--out", type=Path, help="also write the JSON here")
    args = ap.parse_args()
    versions = []
    for item in args.version:
        name, sep, src = item.partition("=")
        if not sep:
            ap.error(f"--version {item!r}: give NAME=SRC")
        try:
            versions.append((name, checkout_src(src)))
        except argparse.ArgumentTypeError as exc:
            ap.error(f"--version {item!r}: {exc}")
    # the figures are kept by name: a name given twice merged two checkouts' runs into one
    # median, and a checkout named "baseline" merged with the --baseline playout's
    names = [name for name, _ in versions]
    for name in names:
        if not name or names.count(name) > 1 or (name == "baseline" and args.baseline):
            why = ("is empty" if not name else "is given twice" if names.count(name) > 1
                   else "is the --baseline playout's")
            ap.error(f"--version: the name {name!r} {why}: give each checkout a name of its "
                     "own (its figures are kept under it)")
    if args.baseline is not None and not args.baseline.is_file():
        ap.error(f"--baseline: no file {str(args.baseline)!r}")
    cases = [c for c in CASES if args.only is None or args.only in c[0]]
    if not cases:
        ap.error(f"--only {args.only!r}: no case's label holds it (the labels: "
                 f"{'; '.join(c[0] for c in CASES)})")
    rows = []
    for label, kind, game, params, spec in cases:
        cmd = bench_cmd(kind, game, params, spec, args.seconds)
        warm = bench_cmd(kind, game, params, spec, 0.2)
        contenders: list[tuple[str, list[str], Path | None]] = [
            (name, cmd, src) for name, src in versions]
        if args.baseline is not None and game == "blooms" and kind == "playouts":
            size = dict(p.split("=") for p in params)
            base = [sys.executable, str(args.baseline), size["size"], size["target"]]
            contenders.insert(0, ("baseline", [*base, str(args.seconds)], None))
            run([*base, "0.2"], None)
        for name, _, src in contenders:
            if name != "baseline":
                run(warm, src)
        samples: dict[str, list[dict]] = {name: [] for name, _, _ in contenders}
        for r in range(args.rounds):
            for name, c, src in contenders:
                samples[name].append(run(c, src))
            print(f"{label} round {r + 1}: " + ", ".join(
                f"{n} {rate(s[-1]):,.0f}/s" for n, s in samples.items()), file=sys.stderr)
        medians = {n: statistics.median(rate(x) for x in s) for n, s in samples.items()}
        first = versions[0][0]
        row = {"case": label, "kind": kind, "game": game, "params": list(params),
               "agent": spec, "per_second": {n: [round(rate(x), 1) for x in s]
                                             for n, s in samples.items()},
               "median": {n: round(m, 1) for n, m in medians.items()},
               f"ratio_to_{first}": {n: round(m / medians[first], 3)
                                     for n, m in medians.items()}}
        if kind == "playouts":
            row["mean_turns"] = {n: round(statistics.fmean(x["mean_turns"] for x in s), 3)
                                 for n, s in samples.items()}
        if "baseline" in medians:
            row["ratio_to_baseline"] = {n: round(m / medians["baseline"], 3)
                                        for n, m in medians.items()}
        rows.append(row)
    out = {
        "command": " ".join([Path(sys.argv[0]).name, *sys.argv[1:]]),
        "date": time.strftime("%Y-%m-%d %H:%M:%S"),
        "machine": {"cpus": os.cpu_count(), "python": platform.python_version(),
                    "system": platform.platform()},
        "versions": {name: git_version(src) for name, src in versions},
        "rounds": args.rounds,
        "seconds": args.seconds,
        "results": rows,
    }
    text = json.dumps(out, indent=1)
    print(text)
    if args.out is not None:
        args.out.parent.mkdir(parents=True, exist_ok=True)
        args.out.write_text(text + "\n")


if __name__ == "__main__":
    run_main(main)
