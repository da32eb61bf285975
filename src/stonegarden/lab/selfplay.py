"""One self-play game between two agent specs, returning everything the statistics need.

This is the unit of work every runner (local processes, Ray tasks) executes: a top-level
function of plain data in and plain data out, so it pickles and runs anywhere."""

from __future__ import annotations

import contextlib
import dataclasses
import functools
import json
import math
import time
from collections.abc import Iterable
from pathlib import Path
from typing import Any

import numpy as np

from ..agents import make_agent
from ..agents.registry import option_range, parse_agent_spec, with_option
from ..agents.search_agents import SearchAgent
from ..core.numbers import decimal_number
from ..core.protocol import CHANCE, Game, State
from ..core.registry import make
from ..errors import ParameterError, StonegardenError
from ..learn.model import model_fingerprint
from ..search.profile import profile_for
from .adjudication import ResignRule, search_verdict, should_resign


def with_seed(spec: str, seed: int) -> str:
    """``spec`` with ``seed=<seed>`` added unless it already fixes a seed."""
    _, options = parse_agent_spec(spec)
    if "seed" in options:
        return spec
    return with_option(spec, "seed", seed)


def agent_identity(spec: str, game: Game | None = None) -> str:
    """The agent ``spec`` names, in one form for every spec of that agent. In ``game``, a
    search (``mcts``, ``uct-flat``) is its resolved settings: every option with the value it
    takes there, the game's defaults for those left out, so ``mcts:sims=10`` and
    ``mcts:sims=10,c=0.2`` are one agent in Blooms (whose ``c`` is 0.2) and two in Free Go
    (0.05); its model file is named by its path (what the file holds is a study's input,
    checked apart). Other agents, a level (whose search and threads depend on the machine),
    a spec that does not parse or a game not given: the spec in one spelling (its options in
    order of name, a numeric option's number as a number, ``time=0.50`` as ``time=0.5``,
    case and spaces as the agent reads them). Either way, ``mcts:sims=10,c=0.2`` and
    ``MCTS:c=0.20, sims=10`` are one agent: a study resumed under the second played all its
    games again, as another study."""
    try:
        name, options = _spelt(spec)
    except ParameterError:
        return spec
    if game is None:
        return _joined(name, options)
    # the seed apart: each game of a match has its own, and the rest is resolved once
    seed = options.pop("seed", None)
    try:
        resolved = _resolved(_joined(name, options), game.id,
                             json.dumps(game.non_default_params(), sort_keys=True))
    except StonegardenError:  # a spec or a game no longer made (a model file gone, say)
        resolved = _joined(name, options)
    return resolved if seed is None else f"{resolved} seed={seed}"


@functools.lru_cache(maxsize=1024)
def _resolved(spelt: str, game_id: str, params: str) -> str:
    """``agent_identity`` of an unseeded agent in a game, cached: a summary asks it for
    every game, and resolving takes a search profile's time."""
    agent = make_agent(spelt)
    # a search alone, not a level (a subclass), whose search depends on the machine's cores
    if type(agent) is not SearchAgent:
        return spelt
    profile = profile_for(make(game_id, **json.loads(params)))
    config = agent.config
    if config.model is None:  # the game's default, as ``model_for`` takes it
        model = ("shipped" if profile.model_by_default and profile.shipped_model_path()
                 else "none")
    else:
        model = (config.model if config.model in ("none", "shipped")
                 else str(Path(config.model).expanduser().resolve()))
    settings = {f.name: getattr(config, f.name) for f in dataclasses.fields(config)}
    del settings["game_defaults"]  # in the game options' values below
    settings.update(
        c=profile.c_for(config), rave_k=profile.rave_k_for(config), tt=profile.tt_for(config),
        lgr=profile.lgr_for(config), prior=profile.prior_for(config), model=model,
        game=profile.option_values(config), sims=agent.budget.sims,
        seconds=agent.budget.seconds, threads=agent.threads,
        # one thread searches alike whatever way of sharing threads is named
        parallel=agent.parallel if agent.threads > 1 else None)
    return "search:" + json.dumps(settings, sort_keys=True)


def model_inputs(agents: Iterable[str], fingerprints: dict[str, dict[str, Any]] | None = None,
                 ) -> dict[str, dict[str, Any]]:
    """The files the games of ``agents`` depend on beyond their specs: each model file an
    agent names (``model=PATH``), as ``model PATH`` (its absolute path), with what the
    search reads of it (``model_fingerprint``: its tables, and the prior and scale of its
    .json). The shipped models go with the code, as the search does. ``fingerprints``
    caches them by path (a sweep's studies share their agents).

    Raises:
        ParameterError: a model file that cannot be read.
    """
    found = {} if fingerprints is None else fingerprints
    inputs = {}
    for agent in agents:
        model = parse_agent_spec(agent)[1].get("model", "none")
        if model.lower() in ("none", "shipped"):
            continue
        path = str(Path(model).expanduser().resolve())
        if path not in found:
            found[path] = model_fingerprint(path)
        inputs[f"model {path}"] = found[path]
    return inputs


def first_changed(recorded: dict[str, Any], now: dict[str, Any]) -> str | None:
    """The first input (in order of name) of ``model_inputs`` whose recorded value is not
    the one ``now`` gives (recorded on one side only counts), ``None`` if none is."""
    return next((name for name in sorted({*recorded, *now})
                 if recorded.get(name) != now.get(name)), None)


def changed_input(name: str, before: Any, now: Any) -> str:
    """How a refusal names the input ``name`` of ``model_inputs`` that changed: the file,
    and what of it (its tables, its prior or scale)."""
    kind, _, path = name.partition(" ")
    what = ""
    if isinstance(before, dict) and isinstance(now, dict):
        what = ", ".join("its tables" if k == "sha256" else f"{k} {before.get(k)} now {now.get(k)}"
                         for k in sorted({*before, *now}) if before.get(k) != now.get(k))
    elif now is None:
        what = "no longer named"
    return f"the {kind} {path!r}{f' ({what})' if what else ''}"


def _spelt(spec: str) -> tuple[str, dict[str, str]]:
    """``spec``'s name and options in one spelling (a numeric option's number as a number,
    ``time=0.50`` as ``time=0.5``; case and spaces as the agent reads them).

    Raises:
        ParameterError: a spec that does not parse.
    """
    name, options = parse_agent_spec(spec)
    for key, value in options.items():
        if option_range(key) is not None:
            with contextlib.suppress(ValueError, OverflowError):
                number = decimal_number(value)
                if math.isfinite(number):
                    options[key] = str(int(number)) if number.is_integer() else repr(number)
    return name, options


def _joined(name: str, options: dict[str, str]) -> str:
    """A spec of ``name`` and ``options``, in order of name (a bare value first)."""
    parts = [options["_"]] if "_" in options else []
    parts += [f"{key}={options[key]}" for key in sorted(options) if key != "_"]
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
