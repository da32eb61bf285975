"""The web app's job kinds, run in the worker processes (``stonegarden.jobs``): agent moves
and hints, playout estimates, and replaying an uploaded record (``warmup.py`` adds the
workers' warm-up).

Each receives plain JSON (game id, parameters, move texts) and rebuilds the game by replaying
the moves, so nothing but data crosses the process boundary and a worker never sees server
state. Each looks at ``JobContext.stopped`` so a cancel or a deadline ends it promptly."""

from __future__ import annotations

from typing import Any

from ..agents.registry import agent_names, make_agent
from ..agents.search_agents import SearchAgent
from ..core.record import check_result, game_of, parse_record, replay_rows, result_of
from ..core.registry import make
from ..errors import RecordError
from ..jobs import JobContext, job_kind
from ..sgf import sgf_to_record

#: agents a hint may use, strongest first; the first registered one is taken
HINT_PREFERENCE = ("mcts", "level", "random")
#: uniformly random continuations per position for the win-probability graph
PLAYOUTS_PER_POSITION = 200


def hint_agent_spec() -> str:
    """The strongest registered agent (``random`` until a searching agent exists)."""
    names = agent_names()
    for name in HINT_PREFERENCE:
        if name in names:
            return "level:2" if name == "level" else name
    return next(iter(names))


@job_kind("agent-move")
def agent_move(args: dict[str, Any], ctx: JobContext) -> str:
    """The canonical text of the move agent ``spec`` chooses after ``moves``; a search ends
    early (with its best move so far) when the job is stopped.

    Raises:
        StonegardenError: bad game, parameters, moves or agent spec (the server checked them).
    """
    game = make(args["game"], **args["params"])
    state = game.replay(args["moves"])[-1]
    agent = make_agent(args["spec"])
    if isinstance(agent, SearchAgent):
        agent.stop_when(ctx.stopped)
    action = agent.choose(game, state)
    return game.action_to_text(state, action)


@job_kind("playout-analysis")
def playout_estimates(args: dict[str, Any], ctx: JobContext) -> list[list[float]]:
    """For each ply in ``plies``: ``[ply, share]``, the share of ``count`` uniformly random
    continuations from that position that player 1 wins (draws count a half). Finished
    positions give 1, 0 or 0.5 exactly. A stopped job answers the plies done so far."""
    game = make(args["game"], **args["params"])
    states = game.replay(args["moves"])
    plies, count, seed = args["plies"], args["count"], args["seed"]
    out: list[list[float]] = []
    for done, ply in enumerate(plies):
        if ctx.stopped():
            break
        ctx.progress({"done": done, "of": len(plies)})
        s = states[ply]
        if game.is_terminal(s):
            w = game.winner(s)
            out.append([ply, 1.0 if w == 1 else 0.0 if w == 2 else 0.5])
            continue
        wins1, _wins2, draws, _ = (int(v) for v in game.random_playouts(s, count, seed + ply))
        out.append([ply, (wins1 + 0.5 * draws) / count])
    return out


@job_kind("replay-record")
def replay_upload(args: dict[str, Any], ctx: JobContext) -> dict[str, Any]:
    """An uploaded record (``json`` text, or ``sgf`` text) replayed move by move and checked:
    ``{"game", "params", "moves", "result"}`` with canonical moves, or ``{"refused": why}`` for
    a record of more than ``max_moves`` moves.

    Raises:
        RecordError: a bad record.
    """
    if "sgf" in args:
        record = sgf_to_record(args["sgf"], source="upload")
    else:
        record = parse_record(args["json"])
    limit = args["max_moves"]
    if len(record.moves) > limit:
        return {"refused": f"the record has {len(record.moves)} moves; this server takes "
                           f"at most {limit}"}
    game = game_of(record)
    moves, final = [], game.initial_state()
    for row, state in replay_rows(record):
        final = state
        if ctx.stopped():
            raise RecordError(f"replaying the record took too long (stopped at move "
                              f"{row['ply']})")
        moves.append(row["move"])
    if record.result is not None:
        check_result(game, final, record.result)
    return {"game": game.id, "params": game.non_default_params(), "moves": moves,
            "result": result_of(game, final)}
