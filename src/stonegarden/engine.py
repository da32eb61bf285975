"""The JSON analysis engine (``stonegarden engine``), in the spirit of KataGo's analysis
engine: one JSON query per line on standard input, one JSON answer per line on standard output.
See docs/engine.md for the protocol. A malformed line gets an error line; the engine goes on."""

from __future__ import annotations

import json
import time
from collections.abc import Iterable, Iterator
from typing import Any, TextIO

from . import __version__
from .agents.registry import make_agent
from .agents.search_agents import SearchAgent
from .core.protocol import CHANCE
from .core.registry import available_games, make
from .errors import ParameterError, RecordError, StonegardenError
from .search.analysis import analyse_position
from .search.config import Budget

MAX_LINE = 1_000_000
MAX_SIMS = 10_000_000
MAX_SECONDS = 600.0
DEFAULT_SIMS = 1000
QUERY_KEYS = {"id", "game", "params", "moves", "position", "sims", "time", "candidates",
              "agent", "seed", "action"}


def _number(query: dict[str, Any], key: str, kind: type, low: float, high: float) -> Any:
    value = query.get(key)
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, (int, float)) or (
            kind is int and not isinstance(value, int)):
        raise ParameterError(f"{key!r} must be a {'whole ' if kind is int else ''}number, not {value!r}")
    if not low <= value <= high:
        raise ParameterError(f"{key!r} must be between {low:g} and {high:g}, not {value!r}")
    return value


def answer(query: Any) -> dict[str, Any]:
    """The answer to one decoded query (never raises for bad input: it returns an error)."""
    qid = query.get("id") if isinstance(query, dict) else None
    try:
        return {"id": qid, **_answer(query)}
    except StonegardenError as exc:
        return {"id": qid, "error": str(exc), "kind": type(exc).__name__}


def _answer(query: Any) -> dict[str, Any]:
    if not isinstance(query, dict):
        raise ParameterError(f"a query is a JSON object, not {type(query).__name__}")
    unknown = set(query) - QUERY_KEYS
    if unknown:
        raise ParameterError(f"unknown query keys {sorted(unknown)!r} (known: {sorted(QUERY_KEYS)})")
    action = query.get("action", "analyse")
    if action == "games":
        return {"games": available_games()}
    if action == "version":
        return {"version": __version__}
    if action == "quit":
        return {"quit": True}
    if action != "analyse":
        raise ParameterError(f"unknown action {action!r} (analyse, games, version, quit)")
    game_id = query.get("game")
    if not isinstance(game_id, str):
        raise ParameterError(f"'game' must name a game ({', '.join(available_games())})")
    params = query.get("params", {})
    if not isinstance(params, dict):
        raise ParameterError(f"'params' must be an object, not {params!r}")
    game = make(game_id, **params)
    if "position" in query and "moves" in query:
        raise ParameterError("give 'moves' or 'position', not both")
    if "position" in query:
        if not isinstance(query["position"], str):
            raise ParameterError("'position' must be position text")
        state = game.parse_position(query["position"])
    else:
        moves = query.get("moves", [])
        if not isinstance(moves, list) or not all(isinstance(m, str) for m in moves):
            raise ParameterError(f"'moves' must be a list of move texts, not {moves!r}")
        state = game.initial_state()
        for i, text in enumerate(moves):
            try:
                state = game.play_text(state, text)
            except StonegardenError as exc:
                raise RecordError(f"move {i} ({text!r}): {exc}", entry=i, text=text) from None
    sims = _number(query, "sims", int, 1, MAX_SIMS)
    seconds = _number(query, "time", float, 0.001, MAX_SECONDS)
    if sims is None and seconds is None:
        sims = DEFAULT_SIMS
    top = _number(query, "candidates", int, 1, 1000) or 5
    seed = _number(query, "seed", int, 0, 2**63 - 1)
    spec = query.get("agent", "mcts")
    if not isinstance(spec, str):
        raise ParameterError(f"'agent' must be an agent spec, not {spec!r}")
    base = {"game": game_id, "ply": state.ply}
    if game.is_terminal(state):
        return {**base, "terminal": True, "winner": game.winner(state),
                "reason": game.result_reason(state), "scores": list(game.scores(state))}
    if game.current_player(state) == CHANCE:
        raise ParameterError("a chance event is due: give the roll as the next move")
    agent = make_agent(spec if seed is None else f"{spec}{',' if ':' in spec else ':'}seed={seed}")
    if not isinstance(agent, SearchAgent):
        raise ParameterError(f"agent {spec!r} does not search; use mcts, uct-flat or level:N")
    t0 = time.perf_counter()
    view = analyse_position(agent, game, state, Budget(sims=sims, seconds=seconds), top=top)
    best = view["best_moves"]
    return {
        **base,
        "terminal": False,
        "player": view["player"],
        "best_move": best[0]["move"] if best else None,
        "win_probability": view["value"],
        "proven_winner": view["proven_winner"],
        "candidates": best,
        "pv": view["pv"],
        "sims": view["sims"],
        "seconds": round(time.perf_counter() - t0, 3),
    }


def serve(lines: Iterable[str], out: TextIO) -> int:
    """Answer every line until ``quit`` or end of input; returns the number of answers."""
    count = 0
    for reply in replies(lines):
        out.write(json.dumps(reply) + "\n")
        out.flush()
        count += 1
        if reply.get("quit"):
            break
    return count


def replies(lines: Iterable[str]) -> Iterator[dict[str, Any]]:
    for raw in lines:
        line = raw.strip()
        if not line:
            continue
        if len(line) > MAX_LINE:
            yield {"id": None, "error": f"query line of {len(line)} characters is too long",
                   "kind": "ParameterError"}
            continue
        try:
            query = json.loads(line)
        except (json.JSONDecodeError, RecursionError) as exc:
            yield {"id": None, "error": f"not valid JSON: {exc}", "kind": "ParameterError"}
            continue
        yield answer(query)
