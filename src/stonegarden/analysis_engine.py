"""The JSON analysis engine (``stonegarden engine``), in the spirit of KataGo's analysis
engine: one JSON query per line on standard input, one JSON answer per line on standard output.
See docs/engine.md for the protocol. A malformed line gets an error line; the engine goes on."""

from __future__ import annotations

import json
import time
from collections.abc import Iterable, Iterator
from typing import Any, BinaryIO, TextIO

from . import __version__
from .agents.analysis import analyse_position
from .agents.registry import make_agent, parse_agent_spec, with_option
from .agents.search_agents import SearchAgent
from .core import strict_json
from .core.protocol import CHANCE
from .core.record import make_from_json, move_error
from .core.registry import available_games
from .errors import ParameterError, StonegardenError, quote
from .search.config import Budget
from .search.parallel import reproducible_parallel

MAX_LINE = 1_000_000
MAX_SIMS = 10_000_000
MAX_SECONDS = 600.0
#: agent options that set a budget: a query gives its budget with 'sims' and 'time'
BUDGET_OPTIONS = frozenset({"sims", "time"})
DEFAULT_SIMS = 1000
QUERY_KEYS = {"id", "game", "params", "moves", "position", "sims", "time", "candidates",
              "agent", "seed", "action"}


def _number(query: dict[str, Any], key: str, kind: type, low: float, high: float) -> Any:
    value = query.get(key)
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, (int, float)) or (
            kind is int and not isinstance(value, int)):
        raise ParameterError(f"{key!r} must be a {'whole ' if kind is int else ''}number, "
                             f"not {strict_json.show(value)}")
    if not low <= value <= high:
        span = f"{low} and {high}" if kind is int else f"{low:g} and {high:g}"
        raise ParameterError(f"{key!r} must be between {span}, not {strict_json.show(value)}")
    return value


def answer(query: Any, threads: int = 1) -> dict[str, Any]:
    """The answer to one decoded query. Never raises: bad input gets an error answer naming
    the input and the reason; an unexpected failure (a bug) gets ``kind: InternalError``, and
    the engine goes on either way. ``threads``: the threads of the default agent (``mcts``); a
    query naming its agent says its own."""
    qid = query.get("id") if isinstance(query, dict) else None
    try:
        return {"id": qid, **_answer(query, threads)}
    except StonegardenError as exc:
        return {"id": qid, "error": str(exc), "kind": type(exc).__name__}
    except Exception as exc:  # a bug must not end the engine: say so and go on
        return {"id": qid, "error": f"internal error ({type(exc).__name__}: {quote(str(exc))})",
                "kind": "InternalError"}


def _answer(query: Any, threads: int) -> dict[str, Any]:
    if not isinstance(query, dict):
        raise ParameterError(f"a query is a JSON object, not {strict_json.kind(query)}")
    unknown = set(query) - QUERY_KEYS
    if unknown:
        raise ParameterError(f"unknown query keys {quote(sorted(unknown))} (known: {sorted(QUERY_KEYS)})")
    action = query.get("action", "analyse")
    extra = set(query) - {"id", "action"}
    if action in ("games", "version", "quit") and extra:  # a query meant as analyse, mistyped
        raise ParameterError(f"the action {strict_json.show(action)} takes no other keys than "
                             f"'id': not {quote(sorted(extra))}")
    if action == "games":
        return {"games": available_games()}
    if action == "version":
        return {"version": __version__}
    if action == "quit":
        return {"quit": True}
    if action != "analyse":
        raise ParameterError(f"unknown action {strict_json.show(action)} (analyse, games, version, quit)")
    game_id = query.get("game")
    if not isinstance(game_id, str):
        raise ParameterError(f"'game' must name a game ({', '.join(available_games())})")
    params = query.get("params", {})
    if not isinstance(params, dict):
        raise ParameterError(f"'params' must be an object, not {strict_json.show(params)}")
    game = make_from_json(game_id, params)
    if "position" in query and "moves" in query:
        raise ParameterError("give 'moves' or 'position', not both")
    if "position" in query:
        if not isinstance(query["position"], str):
            raise ParameterError("'position' must be position text")
        state = game.parse_position(query["position"])
    else:
        moves = query.get("moves", [])
        if not isinstance(moves, list) or not all(isinstance(m, str) for m in moves):
            raise ParameterError(f"'moves' must be a list of move texts, not {strict_json.show(moves)}")
        state = game.initial_state()
        for i, text in enumerate(moves):
            try:
                state = game.play_text(state, text)
            except StonegardenError as exc:
                raise move_error(i, text, exc) from None
    sims = _number(query, "sims", int, 1, MAX_SIMS)
    seconds = _number(query, "time", float, 0.001, MAX_SECONDS)
    if sims is None and seconds is None:
        sims = DEFAULT_SIMS
    top = _number(query, "candidates", int, 1, 1000) or 5
    seed = _number(query, "seed", int, 0, 2**63 - 1)
    spec = query.get("agent", "mcts" if threads == 1 else
                     f"mcts:threads={threads},parallel={reproducible_parallel(seed, seconds)}")
    if not isinstance(spec, str):
        raise ParameterError(f"'agent' must be an agent spec, not {strict_json.show(spec)}")
    options = parse_agent_spec(spec)[1]
    budget_options = BUDGET_OPTIONS.intersection(options)
    if budget_options:  # the query's budget would silently replace them
        raise ParameterError(f"agent {quote(spec)}: the budget is the query's 'sims' and "
                             f"'time', not the agent's {quote(sorted(budget_options))}")
    if seed is not None and "seed" in options:  # one of them would silently win
        raise ParameterError(f"agent {quote(spec)} has a seed and so has the query: give "
                             "one of them")
    base = {"game": game_id, "ply": state.ply}
    if game.is_terminal(state):
        return {**base, "terminal": True, "winner": game.winner(state),
                "reason": game.result_reason(state), "scores": list(game.scores(state))}
    if game.current_player(state) == CHANCE:
        raise ParameterError(
            f"a chance event is due in position {game.position_text(state)!r}: give "
            + ("the position after it" if "position" in query
               else "its outcome (the roll) as the next entry of 'moves'"))
    agent = make_agent(spec if seed is None else with_option(spec, "seed", seed))
    if not isinstance(agent, SearchAgent):
        raise ParameterError(f"agent {quote(spec)} does not search; use mcts, uct-flat or level:N")
    t0 = time.perf_counter()
    # a query of simulations alone stops at MAX_SECONDS too: the engine answers one query
    # at a time, so one search must not hold the queries after it for hours
    budget = Budget(sims=sims, seconds=MAX_SECONDS if seconds is None else seconds)
    view = analyse_position(agent, game, state, budget, top=top)
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


def serve(lines: Iterable[str | bytes | None], out: TextIO, threads: int = 1) -> int:
    """Answer every line until ``quit`` or end of input; returns the number of answers. A
    reader that goes away ends it quietly. ``threads``: as ``answer`` takes it."""
    count = 0
    try:
        for reply in replies(lines, threads):
            try:
                text = json.dumps(reply, ensure_ascii=True, allow_nan=False)
            except ValueError:  # a NaN in an answer would be a bug: say so, keep going
                text = json.dumps({"id": None, "error": "internal error (an answer held a "
                                   "number JSON cannot write)", "kind": "InternalError"})
            out.write(text + "\n")
            out.flush()
            count += 1
            if reply.get("quit"):
                break
    except BrokenPipeError:
        pass
    return count


def bounded_lines(stream: BinaryIO, limit: int = MAX_LINE) -> Iterator[bytes | None]:
    """The lines of a byte stream, each read with at most ``limit`` bytes held; a longer line
    is read through to its end and given as ``None``."""
    while True:
        line = stream.readline(limit + 1)
        if not line:
            return
        if len(line) > limit and not line.endswith(b"\n"):
            while True:  # skip the rest of the long line
                rest = stream.readline(limit)
                if not rest or rest.endswith(b"\n"):
                    break
            yield None
            continue
        yield line


def replies(lines: Iterable[str | bytes | None], threads: int = 1) -> Iterator[dict[str, Any]]:
    """One answer per non-blank line: text, UTF-8 bytes, or ``None`` for a line too long
    (``threads``: as ``answer`` takes it). A byte order mark before the first line (a file
    saved as "UTF-8 with BOM") is not part of the query."""
    for number, raw in enumerate(lines):
        if number == 0 and isinstance(raw, bytes):
            raw = raw.removeprefix(b"\xef\xbb\xbf")
        elif number == 0 and isinstance(raw, str):
            raw = raw.removeprefix("\ufeff")
        if raw is None:
            yield {"id": None, "error": f"query line of more than {MAX_LINE} bytes is too long",
                   "kind": "ParameterError"}
            continue
        if isinstance(raw, bytes):
            try:
                raw = raw.decode("utf-8")
            except UnicodeDecodeError as exc:
                yield {"id": None, "error": f"query line is not UTF-8 text ({exc.reason} at "
                                            f"byte {exc.start})", "kind": "ParameterError"}
                continue
        line = raw.strip()
        if not line:
            continue
        if len(line) > MAX_LINE:
            yield {"id": None, "error": f"query line of {len(line)} characters is too long",
                   "kind": "ParameterError"}
            continue
        try:
            query = strict_json.loads(line)
        except (ValueError, RecursionError) as exc:  # also numbers of too many digits
            yield {"id": None, "error": f"not valid JSON: {quote(str(exc), 200)}",
                   "kind": "ParameterError"}
            continue
        yield answer(query, threads)
