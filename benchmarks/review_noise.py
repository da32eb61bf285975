"""How far apart two searches of the computer's analysis put the same position: the engine of
``web/review_job.py`` (0.5 s a position) with two seeds, over every position of a few recorded
games. The judgement thresholds of docs/playing.md sit above this noise.

    python3 benchmarks/review_noise.py --out benchmarks/results/review-noise.json
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "src"))
from provenance import code_version, command, positive_int, progress, run_main  # noqa: E402

from stonegarden.agents.registry import make_agent  # noqa: E402
from stonegarden.agents.search_agents import SearchAgent  # noqa: E402
from stonegarden.core.record import replay_record  # noqa: E402
from stonegarden.games.blooms.ap_record import ap_to_record  # noqa: E402
from stonegarden.web import review_job  # noqa: E402

#: the recorded games: Abstract Play records made by its own games library (tests/data)
RECORDS = ("ap-blooms-size4-s1.json", "ap-blooms-size5-s3.json")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--out", type=Path)
    ap.add_argument("--max-positions", type=positive_int, default=30, help="per game, from the start")
    args = ap.parse_args()
    spec_a = review_job.ENGINE
    spec_b = review_job.ENGINE.replace("seed=1", "seed=2")
    rows: list[dict[str, Any]] = []
    games = []
    for name in RECORDS:
        data = json.loads((ROOT / "tests" / "data" / "abstractplay" / name).read_text())
        game, states = replay_record(ap_to_record(data, name))
        games.append((name, game, states[:args.max_positions]))
    with progress(sum(len(states) for _, _, states in games), "positions judged twice",
                  "positions") as step:
        for name, game, states in games:
            a, b = make_agent(spec_a), make_agent(spec_b)
            assert isinstance(a, SearchAgent) and isinstance(b, SearchAgent)
            for ply, state in enumerate(states):
                pa = review_job.position_point(game, state, a, ply)
                pb = review_job.position_point(game, state, b, ply)
                step()
                if pa["p1_win"] is None or game.is_terminal(state):
                    continue
                rows.append({"record": name, "ply": ply, "a": pa["p1_win"], "b": pb["p1_win"],
                             "diff": round(abs(pa["p1_win"] - pb["p1_win"]), 4)})
    diffs = sorted(r["diff"] for r in rows)
    summary = {"positions": len(diffs), "mean": round(statistics.mean(diffs), 4),
               "median": round(statistics.median(diffs), 4),
               "p90": diffs[int(0.9 * (len(diffs) - 1))], "max": diffs[-1],
               "share_at_least_smallest_threshold": round(
                   sum(d >= review_job.THRESHOLDS[-1][1] for d in diffs) / len(diffs), 4)}
    print(f"{summary['positions']} positions, |p1_win(seed 1) - p1_win(seed 2)|: mean "
          f"{summary['mean']}, median {summary['median']}, 90th percentile {summary['p90']}, "
          f"max {summary['max']}; at least {review_job.THRESHOLDS[-1][1]}: "
          f"{100 * summary['share_at_least_smallest_threshold']:.1f}%")
    if args.out:
        args.out.parent.mkdir(parents=True, exist_ok=True)
        args.out.write_text(json.dumps({
            "command": command(), "code_version": code_version(ROOT / "src"),
            "date": time.strftime("%Y-%m-%d"), "engines": [spec_a, spec_b],
            "summary": summary, "positions": rows}, indent=1) + "\n")


if __name__ == "__main__":
    run_main(main)
