"""The web app's job kinds, run in the worker processes (``stonegarden.jobs``): agent moves
and hints, and replaying an uploaded record (``review_job.py`` adds the analysis, ``warmup.py``
the workers' warm-up).

Each receives plain JSON (game id, parameters, move texts) and rebuilds the game by replaying
the moves, so nothing but data crosses the process boundary and a worker never sees server
state. Each looks at ``JobContext.stopped`` so a cancel or a deadline ends it promptly."""

from __future__ import annotations

import datetime
from typing import Any

from ..agents.registry import Agent, agent_names, make_agent, parse_agent_spec
from ..agents.search_agents import MODEL_CHOICES, SearchAgent
from ..core import strict_json
from ..core.foreign import foreign_reader
from ..core.record import (
    Record,
    check_result,
    ended_outside_rules,
    game_of,
    parse_record,
    replay_rows,
    result_of,
)
from ..core.registry import make
from ..errors import ParameterError, RecordError
from ..jobs import JobContext, job_kind
from ..sgf import sgf_to_record

#: agents a hint may use, strongest first; the first registered one is taken
HINT_PREFERENCE = ("mcts", "level", "random")



def hint_agent_spec(threads: int = 1) -> str:
    """The strongest registered agent (``random`` until a searching agent exists); ``mcts``
    searches with ``threads`` threads (the server's ``--job-threads``)."""
    names = agent_names()
    for name in HINT_PREFERENCE:
        if name in names:
            if name == "mcts" and threads > 1:
                return f"mcts:threads={threads}"
            return "level:2" if name == "level" else name
    return next(iter(names))


def server_agent(spec: str, threads: int) -> Agent:
    """The agent of ``spec`` as the server allows it: a learned model is ``none`` or the
    game's ``shipped`` one, never a file, which would have the server read (or probe for) a
    file a client names; a search takes at most ``threads`` threads (``--job-threads``), so
    that the workers' searches together never ask for more cores, or helper processes, than
    the server was given (levels 5 and 6 take that many; ``threads=N`` above it is refused).

    Raises:
        ParameterError: a bad spec, a model file, or more threads than ``threads``.
    """
    _, options = parse_agent_spec(spec)
    if options.get("model", "none").lower() not in ("none", "shipped"):
        raise ParameterError("this server plays only the games' shipped models: option "
                             "'model' must be none or shipped")
    agent = make_agent(spec)
    if isinstance(agent, SearchAgent):
        agent.cap_threads(threads, "on this server (--job-threads)")
    return agent


def server_agent_docs() -> dict[str, str]:
    """Each registered agent's line (``agent_names``) as this server takes it: a model file
    named by its path is refused (``server_agent``), so the ``mcts`` line offers ``none`` and
    ``shipped`` only, not the ``PATH`` a 400 would answer."""
    return {name: doc.replace(MODEL_CHOICES, "model=none|shipped")
            for name, doc in agent_names().items()}


@job_kind("agent-move")
def agent_move(args: dict[str, Any], ctx: JobContext) -> str:
    """The canonical text of the move agent ``spec`` chooses after ``moves``; a search ends
    early (with its best move so far) when the job is stopped.

    Raises:
        StonegardenError: bad game, parameters, moves or agent spec (the server checked them).
    """
    game = make(args["game"], **args["params"])
    state = game.replay(args["moves"])[-1]
    # a seat stored before the server refused model files, or under a larger --job-threads
    agent = server_agent(args["spec"], args["threads"])
    if isinstance(agent, SearchAgent):
        agent.stop_when(ctx.stopped)
    action = agent.choose(game, state)
    return game.action_to_text(state, action)


def json_record(text: str) -> Record:
    """A stonegarden record, or another program's record (such as Abstract Play's) converted to
    one by the reader a game registered for its format (``core.foreign``).

    Raises:
        RecordError: neither.
    """
    text = text.removeprefix("\ufeff")  # an editor's byte order mark is no JSON
    try:
        data = strict_json.loads(text, unique_keys=True)
    except (ValueError, RecursionError):
        return parse_record(text)  # says what is wrong with it
    reader = foreign_reader(data)
    if reader is not None:
        return reader.read(data, "upload")
    return parse_record(data)


@job_kind("replay-record")
def replay_upload(args: dict[str, Any], ctx: JobContext) -> dict[str, Any]:
    """An uploaded record (``json`` text: ours or Abstract Play's; or ``sgf`` text) replayed
    move by move and checked: ``{"game", "params", "moves", "result", "ended"}`` with
    canonical moves and, for a game its rules had not ended, how it ended all the same (lost
    on time, resigned on the opponent's turn, aborted: ``record.ended_outside_rules``), or
    ``{"refused": why}`` for a record of more than ``max_moves`` moves; ``players``: the
    record's players by seat (``"1"``, ``"2"``), where it names them; ``date``: the day it
    gives (``record_day``); ``clock``: its ``meta.clock`` as it is (the time control it was
    played under; the server checks it).

    Raises:
        RecordError: a bad record.
    """
    if "sgf" in args:
        record = sgf_to_record(args["sgf"], source="upload", game_id=args.get("game"))
    else:
        record = json_record(args["json"])
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
    ended = None if game.is_terminal(final) else ended_outside_rules(record)
    return {"game": game.id, "params": game.non_default_params(), "moves": moves,
            "result": result_of(game, final), "ended": ended,
            "players": dict(record.players or {}), "date": record_day(record),
            "clock": (record.meta or {}).get("clock")}


def record_day(record: Record) -> str | None:
    """The day a record's ``meta.date`` (or SGF's ``DT``) gives, ``YYYY-MM-DD``: the first
    of a list of days (SGF's ``DT[2026-12-06,07]``); ``None`` for none, another form, or
    a day that has not come yet anywhere (a record says its players' day: up to 14 hours
    ahead of UTC's, so tomorrow in UTC is today in Auckland for half of the UTC day)."""
    date = (record.meta or {}).get("date")
    if not isinstance(date, str):
        return None
    day = date.strip()[:10]
    try:
        when = datetime.date.fromisoformat(day)
    except ValueError:
        return None
    ahead = datetime.datetime.now(datetime.UTC) + datetime.timedelta(hours=14)
    if len(day) != 10 or when > ahead.date():
        return None
    return day
