"""How safe and how useful is resignation adjudication (``--resign V --resign-moves K``)?

Plays games to the end (no adjudication) and replays each game's recorded search values
and proofs through the rule: in how many games would it have fired, how often would the
resigning player in fact have won or drawn (a wrong resignation), what share of the game's
moves it would have saved, and the first agent's score with the games played out and with
them adjudicated by the rule (so a rule that changes a match's result shows it).

    PYTHONPATH=src python benchmarks/resign_check.py blooms --param size=5 \\
        --agents mcts:time=0.5 mcts:time=0.25 --games 20 --workers 2
"""

from __future__ import annotations

import argparse
import json

from provenance import nonnegative_int, positive_int, run_main

from stonegarden.core.params import parse_param_options
from stonegarden.errors import ParameterError
from stonegarden.lab.adjudication import ResignRule, first_resignation
from stonegarden.lab.runner import run_tasks
from stonegarden.lab.study import StudySpec, check_spec


def resign_rules(text: str) -> list[ResignRule]:
    """``--rules`` as argparse takes it: ``BELOW:MOVES`` rules, comma-separated."""
    try:
        return [ResignRule(float(below), int(moves))
                for below, moves in (raw.split(":") for raw in text.split(","))]
    except ValueError as exc:  # a ParameterError too: a threshold or count out of range
        detail = f" ({exc})" if isinstance(exc, ParameterError) else ""
        raise argparse.ArgumentTypeError(f"{text!r}: give BELOW:MOVES rules such as "
                                         f"0.05:2,0.1:3{detail}") from None


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    ap.add_argument("game")
    ap.add_argument("--param", action="append", default=[])
    ap.add_argument("--agents", nargs=2, required=True)
    ap.add_argument("--games", type=positive_int, default=20)
    ap.add_argument("--workers", type=positive_int, default=1)
    ap.add_argument("--seed", type=nonnegative_int, default=0)
    ap.add_argument("--rules", type=resign_rules, default="0.02:2,0.05:2,0.05:3,0.1:2",
                    help="comma-separated BELOW:MOVES rules to check")
    args = ap.parse_args()
    agents = (args.agents[0], args.agents[1])
    params = check_spec(args.game, dict(parse_param_options(args.param)), agents)
    spec = StudySpec(args.game, params, agents, args.seed)
    results: list[dict] = []
    run_tasks([spec.task(i) for i in range(args.games)], lambda t, r: results.append(r),
              workers=args.workers, description="games played out")
    played_out = [_points_for_a(r, r["winner"]) for r in results]
    print(json.dumps({"rule": None, "games": len(results),
                      "a_score": round(sum(played_out) / len(results), 3)}))
    for rule in args.rules:
        fired = wrong = 0
        saved = 0.0
        adjudicated = 0.0
        for r in results:
            hit = first_resignation(r["values"], r["movers"], rule, r["proved"])
            if hit is None:
                adjudicated += _points_for_a(r, r["winner"])
                continue
            fired += 1
            i, player = hit
            if r["winner"] != 3 - player:
                wrong += 1
            adjudicated += _points_for_a(r, 3 - player)
            saved += (len(r["moves"]) - i - 1) / len(r["moves"])
        print(json.dumps({"rule": f"{rule.below}:{rule.moves}", "games": len(results),
                          "fired": fired, "wrong": wrong,
                          "moves_saved_share": round(saved / len(results), 3),
                          "a_score": round(adjudicated / len(results), 3)}))


def _points_for_a(result: dict, winner: int | None) -> float:
    """The first agent's points from a game won by ``winner`` (0 or ``None``, a draw or a game
    stopped undecided: 0.5 each); it holds seat 1 in even-numbered games (``StudySpec.seats``)."""
    if not winner:
        return 0.5
    a_seat = 1 if result["index"] % 2 == 0 else 2
    return 1.0 if winner == a_seat else 0.0


if __name__ == "__main__":
    run_main(main)
