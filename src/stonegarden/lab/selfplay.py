"""One self-play game between two agent specs, returning everything the statistics need.

This is the unit of work every runner (local processes, Ray tasks) executes: a top-level
function of plain data in and plain data out, so it pickles and runs anywhere."""

from __future__ import annotations

import contextlib
import math
import time
from typing import Any

import numpy as np

from ..agents import make_agent
from ..agents.registry import option_range, parse_agent_spec, with_option
from ..core.protocol import CHANCE, Game, State
from ..core.registry import make
from ..errors import ParameterError
from .adjudication import ResignRule, search_verdict, should_resign


def with_seed(spec: str, seed: int) -> str:
    """``spec`` with ``seed=<seed>`` added unless it already fixes a seed."""
    _, options = parse_agent_spec(spec)
    if "seed" in options:
        return spec
    return with_option(spec, "seed", seed)


def agent_identity(spec: str) -> str:
    """``spec`` in one spelling of the agent it names: its options in order of name, a
    number of a numeric option as a number (``time=0.50`` is ``time=0.5``), case and spaces
    as the agent reads them. ``mcts:sims=10,c=0.2`` and ``MCTS:c=0.2, sims=10`` are one
    agent: a study resumed under the second played all its games again, as another study.
    A spec that does not parse is its own identity."""
    try:
        name, options = parse_agent_spec(spec)
    except ParameterError:
        return spec
    bare = options.pop("_", None)
    parts = [bare] if bare is not None else []
    for key in sorted(options):
        value = options[key]
        if option_range(key) is not None:
            with contextlib.suppress(ValueError, OverflowError):
                number = float(value)
                if math.isfinite(number):
                    value = str(int(number)) if number.is_integer() else repr(number)
        parts.append(f"{key}={value}")
    return f"{name}:{','.join(parts)}" if parts else name


def play_game(task: dict[str, Any]) -> dict[str, Any]:
    """Play one game. ``task``: game, params, seats ({"1": spec, "2": spec}), seed, index, and
    optionally ``resign`` (``[below, moves]``, see ``adjudication``) and ``visits`` (true:
    also return each entry's root visits).

    Returns the task's fields plus moves, winner, reason, final scores, the legal-move count,
    the scores after every entry, each entry's mover, its search value (``None`` for chance
    events and agents that do not search) and whether that search proved the mover lost,
    whether a resignation was adjudicated, the wall time, and with ``visits`` each entry's
    root visits (``{move text: simulations}``, visited moves only; ``None`` for chance events
    and agents that do not search). Games stop (undecided) at the
    game's ``max_game_length``."""
    t0 = time.perf_counter()
    game = make(task["game"], **task["params"])
    seed = int(task["seed"])
    agents = {p: make_agent(with_seed(task["seats"][str(p)], seed * 2 + p)) for p in (1, 2)}
    rule = ResignRule.from_task(task.get("resign"))
    rng = np.random.default_rng(seed)
    state = game.initial_state()
    moves: list[str] = []
    legal: list[int] = []
    movers: list[int] = []
    values: list[float | None] = []
    proved: list[bool] = []
    own: dict[int, list[float | None]] = {1: [], 2: []}
    scores: list[list[int]] = []
    keep_visits = bool(task.get("visits"))
    visits: list[dict[str, int] | None] = []
    adjudicated = False
    while not game.is_terminal(state) and len(moves) < game.max_game_length:
        p = game.current_player(state)
        value: float | None = None
        lost = False
        if p == CHANCE:
            outcomes = game.chance_outcomes(state)
            probs = np.array([q for _, q in outcomes])
            action = outcomes[int(rng.choice(len(outcomes), p=probs / probs.sum()))][0]
            legal.append(0)
        else:
            legal.append(game.count_legal_actions(state))
            action = agents[p].choose(game, state)
            value, lost = search_verdict(agents[p], p)
            own[p].append(value)
            if rule is not None and should_resign(own[p], lost, rule):
                movers.append(p)
                values.append(None if value is None else round(value, 4))
                proved.append(lost)
                if keep_visits:
                    visits.append(None)
                moves.append("resign")
                state = game.resign(state)
                scores.append(list(game.scores(state)))
                adjudicated = True
                break
        movers.append(p)
        values.append(None if value is None else round(value, 4))
        proved.append(lost)
        if keep_visits:
            visits.append(_root_visits(game, state, agents[p] if p != CHANCE else None))
        moves.append(game.action_to_text(state, action))
        state = game.play(state, action)
        scores.append(list(game.scores(state)))
    extra = {"visits": visits} if keep_visits else {}
    return {
        **task,
        **extra,
        "moves": moves,
        "movers": movers,
        "values": values,
        "proved": proved,
        "adjudicated": adjudicated,
        "winner": game.winner(state),
        "reason": game.result_reason(state),
        "scores": list(game.scores(state)),
        "legal": legal,
        "score_track": scores,
        "seconds": round(time.perf_counter() - t0, 4),
    }


def _root_visits(game: Game, state: State, agent: object) -> dict[str, int] | None:
    """The root visits of ``agent``'s last search, by move text (the teacher's policy that
    ``stonegarden train --targets visits`` fits)."""
    last = getattr(agent, "last", None)
    if last is None:
        return None
    return {game.action_to_text(state, m.action): int(m.visits) for m in last.moves
            if m.visits > 0}
