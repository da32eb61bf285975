"""Random Blooms playouts: stonegarden against a plain numba baseline, in one run.

The baseline is a deliberately plain numba playout, ``benchmarks/baseline_blooms.py`` (it
scans the whole board for captures after every turn; ``--baseline PATH`` measures another).
Both use the same uniform policy over all legal turns and print one JSON line. They run
alternately (baseline, ours, baseline, ours, ...) as separate processes so neither warms the
other's caches, and the figure reported is the ratio of medians, printed as JSON with the
command and the code version (and written to ``--out`` too when given).

    python benchmarks/bench_playouts.py --size 5 --target 20 --seconds 5 --rounds 3
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
from pathlib import Path

from provenance import (
    ROOT,
    child_json,
    code_version,
    command,
    emit,
    positive_float,
    positive_int,
    run_main,
)

#: the plain numba playout compared with
BASELINE = ROOT / "benchmarks" / "baseline_blooms.py"


def baseline_name(path: Path) -> str:
    """``path`` as the result names it: inside this checkout, relative to it."""
    path = path.resolve()
    return str(path.relative_to(ROOT)) if path.is_relative_to(ROOT) else str(path)


def run(cmd: list[str]) -> dict:
    # this checkout's code, the one code_version() names, whatever else is installed
    env = {**os.environ, "PYTHONPATH": str(ROOT / "src")}
    return child_json(cmd, cwd=ROOT, env=env)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--size", type=int, default=5)
    ap.add_argument("--target", type=int, default=20)
    ap.add_argument("--seconds", type=positive_float, default=5.0)
    ap.add_argument("--rounds", type=positive_int, default=3)
    ap.add_argument("--baseline", type=Path, default=BASELINE,
                    help="the plain baseline: SIZE TARGET SECONDS in, one JSON line out "
                         "[default: benchmarks/baseline_blooms.py]")
    ap.add_argument("--out", type=Path, default=None, help="also write the JSON here")
    args = ap.parse_args()
    if not args.baseline.exists():
        ap.error(f"--baseline: no file {str(args.baseline)!r}")
    import stonegarden

    stonegarden.make("blooms", size=args.size, target=args.target)  # a bad one is refused now
    base_cmd = [sys.executable, str(args.baseline), str(args.size), str(args.target), str(args.seconds)]
    ours_cmd = [sys.executable, "-m", "stonegarden", "bench", "playouts", "blooms",
                "--param", f"size={args.size}", "--param", f"target={args.target}",
                "--seconds", str(args.seconds), "--json"]
    # compile / load both kernels' caches before timing anything
    run([*base_cmd[:-1], "0.2"])
    run([*ours_cmd[:-2], "0.2", "--json"])
    base, ours = [], []
    for r in range(args.rounds):
        base.append(run(base_cmd))
        ours.append(run(ours_cmd))
        print(f"round {r + 1}: baseline {base[-1]['playouts_per_s']:.0f}/s "
              f"(mean {base[-1]['mean_turns']:.2f} turns), stonegarden "
              f"{ours[-1]['playouts_per_s']:.0f}/s (mean {ours[-1]['mean_turns']:.2f} turns)",
              file=sys.stderr)
    b = statistics.median(x["playouts_per_s"] for x in base)
    o = statistics.median(x["playouts_per_s"] for x in ours)
    bt = sum(x["mean_turns"] * x["playouts"] for x in base) / sum(x["playouts"] for x in base)
    ot = sum(x["mean_turns"] * x["playouts"] for x in ours) / sum(x["playouts"] for x in ours)
    emit({
        "command": command(), "code": code_version(),
        "baseline": baseline_name(args.baseline),
        "size": args.size, "target": args.target, "seconds": args.seconds, "rounds": args.rounds,
        "baseline_playouts_per_s": round(b, 1), "stonegarden_playouts_per_s": round(o, 1),
        "ratio": round(o / b, 2), "baseline_mean_turns": round(bt, 3),
        "stonegarden_mean_turns": round(ot, 3),
    }, args.out)


if __name__ == "__main__":
    run_main(main)
