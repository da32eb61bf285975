"""The computer's analysis of a game, as on lichess: the engine searches every position (in
the workers, a few positions a job, so other clients' jobs take turns with it), and each played
move is judged by the winning chances it gave away.

A point is the position after ``ply`` moves: ``p1_win``, the engine's probability that player 1
wins from there (where a chance event is due, the expectation over its outcomes); ``best_move``,
its best move there (``None`` at the end and at a chance event); ``played_loss``, what the move
that led there cost its mover in winning probability against the position before (0 when it
was the engine's best move; ``None`` for ply 0, a chance event's outcome and a resignation);
``judgement`` of that loss by ``THRESHOLDS`` (``agents/analysis.py``, shared with
``stonegarden analyse --review``).

A loss is reckoned as that review reckons it: the value of the engine's best move minus that of
the move played, both from the search of the position before it (``best_value``,
``next_value`` of the point before: the mover's winning chances), the played move valued by
the position after it where that search tried it fewer than ``MIN_VISITS`` times.
``p1_win`` is the search's average over every move it tried, weaker ones too: it is a few
points below its best move's value, so the difference of two positions' ``p1_win`` read each
loss low by the two (0.07 on average over 16 moves of Blooms).
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass, field
from typing import Any

from ..agents.analysis import MIN_VISITS, judgement, move_value
from ..agents.analysis import THRESHOLDS as THRESHOLDS  # the command line's review's too
from ..agents.registry import make_agent
from ..agents.search_agents import SearchAgent
from ..core.protocol import CHANCE, Game, State
from ..core.registry import make
from ..errors import ParameterError, StonegardenError
from ..jobs import Job, JobContext, job_kind
from ..search.config import Budget
from ..search.result import SearchResult

#: seconds of search per position
POSITION_SECONDS = 0.5
#: the engine, as an agent spec (the search that levels and hints use, seeded)
ENGINE = f"mcts:time={POSITION_SECONDS:g},seed=1"
#: positions one job analyses: a job of a few seconds, then other clients' jobs get a turn
CHUNK = 12
#: positions analysed at most (a longer game's later moves are not analysed)
MAX_PLIES = 400


@dataclass
class Review:
    """A game's analysis: the engine, the points found so far by ply, whether it is running
    and the error that ended it, if any, whether a person cancelled it (until it is asked for
    again), and the job it waits for (not stored)."""

    engine: str
    points: dict[int, dict[str, Any]] = field(default_factory=dict)
    running: bool = False
    error: str = ""
    cancelled: bool = False
    job: Job | None = field(default=None, repr=False, compare=False)
    #: the client that asked for it last (its jobs are that client's)
    client: str = field(default="", repr=False, compare=False)

    def truncate(self, keep: int) -> None:
        """Forget the positions after move ``keep`` (an undo)."""
        self.points = {p: v for p, v in self.points.items() if p <= keep}

    def stored(self) -> list[dict[str, Any]]:
        return [self.points[p] for p in sorted(self.points)]


def wanted(length: int) -> list[int]:
    """The plies an analysis of a game of ``length`` moves covers."""
    return list(range(min(length, MAX_PLIES) + 1))


def judged(review: Review, moves: list[str], movers: list[int]) -> list[dict[str, Any]]:
    """The API's points: the stored ones, in order, with each played move's loss and its
    judgement (only where the position before it was analysed too, and not for a
    resignation: giving up is no move on the board to judge)."""
    out = []
    for ply in sorted(review.points):
        raw = review.points[ply]
        point = {"ply": ply, "p1_win": raw.get("p1_win"), "best_move": raw.get("best_move"),
                 "played_loss": None, "judgement": None}
        before = review.points.get(ply - 1)
        mover = movers[ply - 1] if 0 < ply <= len(movers) else 0
        if before is not None and mover in (1, 2) and moves[ply - 1] != "resign":
            loss = _loss(before, raw, mover, moves[ply - 1])
            point["played_loss"] = loss
            point["judgement"] = judgement(loss)
        out.append(point)
    return out


def _loss(before: dict[str, Any], after: dict[str, Any], mover: int, played: str) -> float | None:
    if before.get("p1_win") is None or after.get("p1_win") is None:
        return None
    if played == before.get("best_move"):
        return 0.0
    sign = 1.0 if mover == 1 else -1.0
    best = before.get("best_value")
    if not isinstance(best, (int, float)):  # a point stored before moves were valued
        return round(max(0.0, sign * (before["p1_win"] - after["p1_win"])), 4)
    value = before.get("next_value") if before.get("next_move") == played else None
    if not isinstance(value, (int, float)):  # tried too seldom (or another move, valued
        # before an undo): the position after says
        value = after["p1_win"] if mover == 1 else 1.0 - after["p1_win"]
    return round(max(0.0, best - value), 4)


@job_kind("engine-review")
def engine_review(args: dict[str, Any], ctx: JobContext) -> list[dict[str, Any]]:
    """``{"ply", "p1_win", "best_move"}`` at each ply of ``plies`` (ascending) of the game
    ``moves``, by a search of the agent ``spec``. A position whose search the job's stop cut
    short is left out (asking again continues there).

    Raises:
        StonegardenError: bad game, parameters, moves or spec (the server checked them).
    """
    game = make(args["game"], **args["params"])
    agent = make_agent(args["spec"])
    if not isinstance(agent, SearchAgent):
        raise ParameterError(f"the analysis needs a searching agent, not {args['spec']!r}")
    agent.stop_when(ctx.stopped)
    plies = sorted(set(int(p) for p in args["plies"]))
    moves = args["moves"]
    state = game.initial_state()
    out: list[dict[str, Any]] = []
    for ply in range(plies[-1] + 1 if plies else 0):
        if ply in plies:
            ctx.progress({"done": len(out), "of": len(plies)})
            point = position_point(game, state, agent, ply,
                                   moves[ply] if ply < len(moves) else None)
            if ctx.stopped():
                break
            out.append(point)
        if ply < len(moves) and ply < plies[-1]:
            state = game.play_text(state, moves[ply])
    return out


def position_point(game: Game, state: State, agent: SearchAgent, ply: int,
                   played: str | None = None) -> dict[str, Any]:
    """``{"ply", "p1_win", "best_move", "best_value", "next_move", "next_value"}`` of
    ``state``: the result at the end; at a chance event the expectation over its outcomes,
    each searched for its share of the agent's budget (so the point takes no longer than
    another), and no best move; else a search's, with the mover's value of its best move and
    of ``played``, the move played next (``next_move``; ``next_value`` ``None`` where the
    search tried it fewer than ``MIN_VISITS`` times)."""
    found: list[SearchResult] = []
    p1, best = _p1_win(game, state, agent, agent.budget_for(game), found)
    point: dict[str, Any] = {
        "ply": ply, "p1_win": round(min(1.0, max(0.0, p1)), 4),
        "best_move": None if best is None else game.action_to_text(state, best),
        "best_value": None, "next_move": played, "next_value": None}
    if found and found[0].moves:
        mover = game.current_player(state)
        point["best_value"] = round(move_value(found[0].moves[0], mover), 4)
        action = None if played is None else _action(game, state, played)
        stat = next((m for m in found[0].moves if m.action == action), None)
        if stat is not None and (stat.visits >= MIN_VISITS or stat.proven is not None):
            point["next_value"] = round(move_value(stat, mover), 4)
    return point


def _action(game: Game, state: State, text: str) -> int | None:
    """The action of a played move's text (``None`` for one the search does not try: a
    resignation)."""
    try:
        return int(game.parse_action(state, text))
    except StonegardenError:
        return None



def _p1_win(game: Game, state: State, agent: SearchAgent, budget: Budget,
            found: list[SearchResult] | None = None) -> tuple[float, int | None]:
    """(player 1's winning chances at ``state``, the best move there or ``None``); the search
    of ``state`` is added to ``found``, where one was made there."""
    if game.is_terminal(state):
        winner = game.winner(state)
        return (1.0 if winner == 1 else 0.0 if winner == 2 else 0.5), None
    to_move = game.current_player(state)
    if to_move == CHANCE:
        outcomes = game.chance_outcomes(state)
        share = dataclasses.replace(
            budget, sims=None if budget.sims is None else max(1, budget.sims // len(outcomes)),
            seconds=None if budget.seconds is None else budget.seconds / len(outcomes))
        return sum(p * _p1_win(game, game.play_unchecked(state, a), agent, share)[0]
                   for a, p in outcomes), None
    res = agent.analyse(game, state, budget)
    if found is not None:
        found.append(res)
    value = res.value
    if res.proven is not None:
        value = 1.0 if res.proven == to_move else 0.5 if res.proven == 0 else 0.0
    return (value if to_move == 1 else 1.0 - value), res.best
