"""Work done in the worker processes: agent moves, hints and playout estimates.

Each function receives plain data (game id, parameters, move texts) and rebuilds the game by
replaying the moves, so nothing but strings crosses the process boundary and a worker never
sees server state."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from ..agents.registry import agent_names, make_agent
from ..agents.search_agents import SearchAgent
from ..core.registry import available_games, make
from ..search.profile import profile_for

#: agents a hint may use, strongest first; the first registered one is taken
HINT_PREFERENCE = ("mcts", "level", "random")
#: uniformly random continuations per position for the win-probability graph
PLAYOUTS_PER_POSITION = 200

#: this worker's view of the server's stop flags (``init_worker``); a job given slot k stops
#: its search once flag k is set
_stop_flags: Sequence[int] | None = None


def init_worker(flags: Sequence[int]) -> None:
    """Pool initializer: keep the shared stop flags (a ``multiprocessing`` array)."""
    global _stop_flags
    _stop_flags = flags


def hint_agent_spec() -> str:
    """The strongest registered agent (``random`` until a searching agent exists)."""
    names = agent_names()
    for name in HINT_PREFERENCE:
        if name in names:
            return "level:2" if name == "level" else name
    return next(iter(names))


def agent_move(game_id: str, params: dict[str, Any], moves: list[str], spec: str,
               slot: int | None = None) -> str:
    """The canonical text of the move agent ``spec`` chooses after ``moves``. With ``slot``, a
    search ends early (with its best move so far) once the server sets that stop flag.

    Raises:
        StonegardenError: bad game, parameters, moves or agent spec (the server checked them).
    """
    game = make(game_id, **params)
    state = game.replay(moves)[-1]
    agent = make_agent(spec)
    flags = _stop_flags
    if slot is not None and flags is not None and isinstance(agent, SearchAgent):
        agent.stop_when(lambda: flags[slot] != 0)
    action = agent.choose(game, state)
    return game.action_to_text(state, action)


def playout_estimates(game_id: str, params: dict[str, Any], moves: list[str],
                      plies: list[int], count: int, seed: int) -> dict[int, float]:
    """For each ply in ``plies``: the share of ``count`` uniformly random continuations from
    that position that player 1 wins (draws count a half). Finished positions give 1, 0 or
    0.5 exactly."""
    game = make(game_id, **params)
    states = game.replay(moves)
    out: dict[int, float] = {}
    for ply in plies:
        s = states[ply]
        if game.is_terminal(s):
            w = game.winner(s)
            out[ply] = 1.0 if w == 1 else 0.0 if w == 2 else 0.5
            continue
        wins1, _wins2, draws, _ = (int(v) for v in game.random_playouts(s, count, seed + ply))
        out[ply] = (wins1 + 0.5 * draws) / count
    return out


def warm_up() -> bool:
    """Import the games and agents, and load every game's search kernels (its profile's
    ``warm_up``), before the first real request."""
    for game_id in available_games():
        profile_for(make(game_id)).warm_up()
    return True
