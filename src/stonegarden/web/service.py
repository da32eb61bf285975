"""The game service: games in memory over a :class:`~stonegarden.store.Store`, seats and their
secrets, the AI and other heavy work as jobs in worker processes, and change notification for
live pages.

Everything here runs on the server's event loop thread, so a request's check-then-write has no
``await`` in between and needs no lock; the store still refuses a stale write
(``StaleError``) as a second line of defence. What is heavy never runs on the loop: agent
moves, hints, analysis and replaying an upload are jobs (``stonegarden.jobs``), and replaying a
stored game to serve it runs in a thread.
"""

from __future__ import annotations

import asyncio
import calendar
import collections
import contextlib
import datetime
import hmac
import math
import random
import secrets
import time
import unicodedata
from collections.abc import AsyncIterator, Awaitable, Callable
from dataclasses import dataclass, field
from typing import Any

from ..agents.search_agents import SearchAgent
from ..core import strict_json
from ..core.protocol import Game
from ..core.record import Record, make_record, result_of
from ..core.registry import available_games, game_class, make
from ..errors import IllegalMoveError, JobError, ParameterError, StonegardenError, StoreError, quote
from ..jobs import Job, JobPool
from ..sgf import record_to_sgf
from ..store import GameRow, GameSummary, NewGame, StaleError, Store
from . import clock_keeper, job_kinds, review_job, snapshot
from .agent_turns import AgentTurns, budget_options
from .elsewhere import Elsewhere
from .http import ApiError
from .live import LOBBY, LOBBY_STALE, MAX_ID, History, Hub, Live, full_notice, is_game_id
from .names import MAX_NAME, clean_name, without_refused
from .rate_limit import MOST_CLIENTS, RateLimit
from .review_runner import Reviewer, review_points
from .seats import HUMAN, OPEN, may_abort, may_see_analysis, seating
from .time_control import Clock, ClockSpec, parse_clock

MAX_MOVE_TEXT = 200
MiB = 1024 * 1024


@dataclass(frozen=True)
class Budgets:
    """The server's own bounds (``stonegarden serve`` options; docs/web.md):

    ``max_think``: seconds an agent may think for one move (a spec asking for more time is
    refused; a search of more simulations is stopped there and plays its best move so far);
    ``hint_seconds`` and ``analysis_seconds``: the deadlines of a hint and of each job of the
    computer's analysis;
    ``replay_seconds``: of replaying an upload; ``job_memory``: bytes a job may allocate above
    what its worker used before; ``max_moves``: moves a game may hold (uploads included);
    ``live_games``: idle games kept in memory; ``streams_per_client``: open live-update
    streams one client may hold; ``job_threads``: threads one job's search may take (levels 5
    and 6 take that many; a seat asking for more is refused); ``lobby_per_client``: games one
    client may have waiting in the lobby for an opponent at once, and games it may have joined
    that are not yet under way (not both players have moved), so that no one empties the
    lobby; ``games_per_client``: new games (uploads included) one client may make in an hour,
    as many at once, so that no one fills the database and the lists of games."""

    max_think: float = 10.0
    hint_seconds: float = 2.0
    analysis_seconds: float = 30.0
    replay_seconds: float = 30.0
    job_memory: int = 2048 * MiB
    max_moves: int = 10_000
    live_games: int = 128
    streams_per_client: int = 32
    job_threads: int = 1
    lobby_per_client: int = 8
    games_per_client: int = 200


@dataclass
class Held:
    """Games each client holds of one kind (waiting in the lobby; joined, not begun): their
    ids, some perhaps over since (``GameService.count_held`` lets those go), and the
    requests under way that will add one (``GameService.holding``)."""

    #: client -> its games, the client seen longest ago first
    games: collections.OrderedDict[str, list[str]] = field(
        default_factory=collections.OrderedDict)
    underway: collections.Counter[str] = field(default_factory=collections.Counter)
    #: the seat each game was taken in, where it matters (a joined game: whose abort it was)
    seats: dict[str, int] = field(default_factory=dict)
    #: clients remembered at once: past that the one seen longest ago is forgotten with its
    #: games (it comes back holding none), as ``RateLimit`` forgets a client, so that a server
    #: facing new addresses for weeks does not keep every one it ever met
    most_clients: int = MOST_CLIENTS

    def keep(self, client: str, ids: list[str]) -> None:
        """``client`` holds ``ids`` now (it is the client seen last); one holding none is
        forgotten."""
        if not ids:
            self.games.pop(client, None)
            return
        self.games[client] = ids
        self.games.move_to_end(client)
        while len(self.games) > self.most_clients:
            _, gone = self.games.popitem(last=False)
            for gid in gone:
                self.seats.pop(gid, None)


class GameService:
    """Games, seats, moves, undo/redo and hints over a :class:`Store`; the agents' turns are
    its ``turns`` (``agent_turns.py``), the analysis its ``reviewer`` (``review_runner.py``), the
    clocks its ``keeper`` (``clock_keeper.py``), other server processes' changes its ``elsewhere``
    (``elsewhere.py``)."""

    def __init__(self, store: Store, jobs: JobPool, budgets: Budgets | None = None,
                 hint_spec: str | None = None,
                 engine_ready: Callable[[], bool] = lambda: True) -> None:
        self.store = store
        #: whether the kernels are loaded (``web/warmup.py``); until then pages say so
        self.engine_ready = engine_ready
        self.jobs = jobs
        self.budgets = budgets or Budgets()
        self.hint_spec = hint_spec
        self.hub = Hub()
        self.live: collections.OrderedDict[str, Live] = collections.OrderedDict()
        self._loading: dict[str, asyncio.Future[Live]] = {}
        self.streams: collections.Counter[str] = collections.Counter()
        #: the games each client listed in the lobby with an open seat (some since joined,
        #: withdrawn or ended: counted again from the store at the limit)
        self.in_lobby = Held()
        self.joined = Held()  # games a client joined that have not begun: ``lobby.join``
        self.made = RateLimit(self.budgets.games_per_client)  # new games and uploads
        self.rng = random.SystemRandom()
        self.closing = False
        #: games changed by another process while this one was reading them
        self._stale: set[str] = set()
        #: work on the loop that no request awaits: catching up with other processes' changes,
        #: reading games again (held so they are not collected)
        self._background: set[asyncio.Future[None]] = set()
        self.keeper = clock_keeper.ClockKeeper(self)
        self.reviewer = Reviewer(self)
        self.turns = AgentTurns(self)
        self.elsewhere = Elsewhere(self)

    # -- loading ----------------------------------------------------------------------------
    async def load(self, game_id: Any, client: str = "") -> Live:
        """The served game, read and replayed (in a thread) if it is not in memory yet. A game
        whose agent is to move starts thinking (after a restart, when it is first opened).

        Raises:
            ApiError: 404 when no game has that id, 503 when its stored data is damaged.
        """
        if not is_game_id(game_id):
            raise ApiError(404, f"no game {quote(game_id, MAX_ID)}")
        live = self.live.get(game_id)
        if live is not None:
            self.live.move_to_end(game_id)
            return live
        live = None
        for _ in range(3):  # another process's change while reading: read again
            pending = self._loading.get(game_id)
            if pending is None:
                self._stale.discard(game_id)
                pending = asyncio.ensure_future(asyncio.to_thread(self._read, game_id))
                self._loading[game_id] = pending
                pending.add_done_callback(lambda _f: self._loading.pop(game_id, None))
            live = await asyncio.shield(pending)
            if game_id not in self._stale:
                break
        assert live is not None
        if game_id not in self.live:
            live.client = client
            self._keep(live)
            self.reviewer.heard(live, live.analysing_elsewhere)
            # an agent to move continues work admitted before (by the request that led to its
            # turn, here or before a restart): whoever opens the game first, a stranger whose
            # share of the job queue is full included, does not leave it paused
            await self.turns.advance(live, client)
        # another process's change may have let it go meanwhile: answer with what was read
        # (a change it asks for is refused as stale, and the next request reads it again)
        return self.live.get(game_id, live)

    def _read(self, game_id: str) -> Live:
        """In a thread: the stored row, replayed.

        Raises:
            ApiError: 404 unknown, 503 damaged.
        """
        try:
            row = self.store.get(game_id)
        except StoreError as exc:
            raise ApiError(503, str(exc)) from None
        if row is None:
            raise ApiError(404, f"no game {quote(game_id)}")
        try:
            live = self._from_row(row)
        except StonegardenError as exc:
            raise ApiError(503, f"game {game_id!r} is unavailable: its stored game does not "
                                f"replay ({exc})") from None
        try:
            stored = self.store.get_analysis(game_id)
        except StoreError:
            stored = None  # a damaged analysis is left out: it can be asked for again
        if stored is not None:
            live.review = review_points(live, *stored)
        # another process running its analysis: shown running here (``load`` holds it); where
        # the store cannot say, it is offered here, and asking claims it or hears of it
        with contextlib.suppress(StoreError):
            live.analysing_elsewhere = self.store.analysis_claim(game_id)
        return live

    @staticmethod
    def _from_row(row: GameRow) -> Live:
        game = make(row.game, **row.params)
        history = History.replay(game, row.moves)
        over = row.result if row.result and not game.is_terminal(history.last) else None
        return Live(row.id, game, row.seats, row.secrets, history, list(row.redo), row.created,
                    listed=row.listed, hints_agreed=row.hints, names=row.names,
                    clock=Clock.from_store(row.clock) if row.clock else None, over=over,
                    rematch=row.rematch, time_control=played_under(row.time_control))

    def _keep(self, live: Live) -> None:
        """Hold ``live`` in memory, letting go of the idle games used least recently beyond
        ``live_games`` (they are read again when asked for). A game watched by a page is let
        go like any other (its page reads it again at its next change), so that streams
        cannot pin games in memory; one whose agent thinks, or with a job pending, is kept
        (a pause is not: it lives in memory only, and a game read again starts its agent)."""
        self.live[live.id] = live
        self.live.move_to_end(live.id)
        excess = len(self.live) - self.budgets.live_games
        for gid in list(self.live):
            if excess <= 0:
                break
            old = self.live[gid]
            if old is live or old.thinking is not None or old.pending:
                continue
            del self.live[gid]
            excess -= 1

    # -- creating ---------------------------------------------------------------------------
    async def create(self, game_id: Any, params: Any, seats: Any, client: str,
                     listed: Any = False, hints: Any = False, name: Any = None,
                     clock: Any = None, seat: Any = None) -> tuple[Live, dict[str, str]]:
        """A new game; returns it and the secrets of its seats (only the creator sees them).
        ``name`` is the creator's display name, for seat ``seat`` (default: the first human
        seat); a seat ``open`` waits for someone to join; ``clock`` is a time control.

        Raises:
            ApiError: 400 for an unknown game, bad parameters, a bad seat, flag, name or clock;
            429 when an agent would have to think and the client has no room in the job queue,
            the client has made ``games_per_client`` games in the last hour, or a public game
            with an open seat would be more than the client may have waiting in the lobby.
        """
        if not isinstance(game_id, str):
            given = "not given" if game_id is None else f"not {strict_json.show(game_id)}"
            raise ApiError(400, f"'game' must name a game ({', '.join(available_games())}), "
                                f"{given}")
        if not isinstance(params, dict):
            raise ApiError(400, f"'params' must be an object, not {strict_json.show(params)}")
        if (not isinstance(seats, list) or len(seats) != 2
                or not all(isinstance(s, str) for s in seats)):
            raise ApiError(400, "'seats' must be a list of two strings, not "
                                f"{strict_json.show(seats)}")
        for key, flag in (("public", listed), ("hints", hints)):
            if not isinstance(flag, bool):
                raise ApiError(400, f"{key!r} must be true or false, not "
                                    f"{strict_json.show(flag)}")
        try:
            game = make(game_id, **{k: v for k, v in params.items() if v not in ("", None)})
        except StonegardenError as exc:
            raise ApiError(400, str(exc)) from None
        clean = (self._seat(seats[0], game), self._seat(seats[1], game))
        names, spec = seating(clean, name, clock, seat)
        if hints and OPEN in clean:
            raise ApiError(400, "'hints' is both seats' agreement to the computer's help: a "
                                "game with an 'open' seat cannot give it for whoever joins")
        if any(s not in (HUMAN, OPEN) for s in clean):
            self.admit(client)
        if not (listed and OPEN in clean):
            self.count_new_game(client)
            return await self._insert(game, clean, History(game), client, listed, hints, names,
                                      spec)
        # waiting in the lobby: counted against the client from before it is stored (and
        # against its hour's games once the lobby has room: a refusal makes no game)
        async with self.holding(self.in_lobby, client, _waits_in_lobby(time.time()),
                                _lobby_full) as listing:
            self.count_new_game(client)
            made = await self._insert(game, clean, History(game), client, listed, hints, names,
                                      spec)
            listing.append(made[0].id)
        return made

    async def count_held(self, held: Held, client: str,
                         counts: Callable[[GameSummary], bool]) -> int:
        """How many of the games ``held`` lists for ``client`` still ``count``, with its
        requests under way that will add one; the others are let go. The store is read only
        once ``lobby_per_client`` are counted.

        ``counts`` runs in a thread (it may read the store).

        Raises:
            ApiError: 503 when the store fails.
        """
        mine = list(held.games.get(client, ()))
        if len(mine) + held.underway[client] < self.budgets.lobby_per_client:
            return len(mine) + held.underway[client]

        def counted() -> set[str]:
            return {r.id for r in self.store.list_games(listed_only=False, ids=mine)
                    if counts(r)}

        try:
            still = await asyncio.to_thread(counted)
        except StoreError as exc:
            raise ApiError(503, str(exc)) from None
        read = set(mine)  # a game listed meanwhile was not read: it stays
        held.keep(client, [gid for gid in held.games.get(client, ())
                           if gid in still or gid not in read])
        for gid in read - still:
            held.seats.pop(gid, None)
        return len(held.games.get(client, ())) + held.underway[client]

    @contextlib.asynccontextmanager
    async def holding(self, held: Held, client: str, counts: Callable[[GameSummary], bool],
                      refusal: Callable[[int], ApiError]) -> AsyncIterator[list[str]]:
        """Room for ``client`` to hold one more game of ``held`` (``count_held``) while the
        request makes or joins it: the request lists its game in the list given, which joins
        ``held`` at the end. Its place is taken before the request waits on anything, so
        that requests sent at once cannot all pass the count before any has listed its game.

        Raises:
            ApiError: ``refusal(n)`` when ``client`` holds ``lobby_per_client`` games already;
            503 when the store fails while they are counted.
        """
        n = await self.count_held(held, client, counts)
        if n >= self.budgets.lobby_per_client:
            raise refusal(n)
        held.underway[client] += 1
        listing: list[str] = []
        try:
            yield listing
        finally:
            held.underway[client] -= 1
            if held.underway[client] <= 0:
                del held.underway[client]
            if listing:
                held.keep(client, [*held.games.get(client, ()), *listing])

    def _seat(self, spec: str, game: Game) -> str:
        """The canonical spec of a seat: ``human``, ``open`` or an agent that can play
        ``game`` (its search settings checked against the game's: ``SearchAgent.check``).

        Raises:
            ApiError: 400 for a bad spec, a model file, or more time than the server allows.
        """
        s = spec.strip()
        if s.lower() in (HUMAN, OPEN):
            return s.lower()
        try:
            agent = job_kinds.server_agent(s, self.budgets.job_threads)
            if isinstance(agent, SearchAgent):
                agent.check(game)
        except StonegardenError as exc:
            raise ApiError(400, f"seat {quote(spec)}: {exc}") from None
        seconds = budget_options(agent.spec).get("time")
        if seconds is not None and float(seconds) > self.budgets.max_think:
            raise ApiError(400, f"seat {quote(spec)}: option 'time' must be at most "
                                f"{self.budgets.max_think:g} s on this server (--max-think)")
        return agent.spec

    async def _insert(self, game: Game, seats: tuple[str, str], history: History, client: str,
                      listed: bool = False, hints: bool = False,
                      names: tuple[str | None, str | None] = (None, None),
                      clock: ClockSpec | None = None, over: dict[str, Any] | None = None,
                      created: float | None = None, time_control: ClockSpec | None = None
                      ) -> tuple[Live, dict[str, str]]:
        live, new = self.new_game(game, seats, history, client, listed, hints, names, clock,
                                  over, created, time_control)
        try:
            await asyncio.to_thread(self.store.create_game, new)
        except StoreError as exc:
            raise ApiError(503, str(exc)) from None
        return await self.started(live)

    def new_game(self, game: Game, seats: tuple[str, str], history: History, client: str,
                 listed: bool = False, hints: bool = False,
                 names: tuple[str | None, str | None] = (None, None),
                 clock: ClockSpec | None = None, over: dict[str, Any] | None = None,
                 created: float | None = None, time_control: ClockSpec | None = None
                 ) -> tuple[Live, NewGame]:
        """A game not stored yet, with new secrets: the served game and its row; ``over``: how
        an uploaded game its rules had not ended did end (``Live.over``); ``created``: when
        an uploaded game was played (else now); ``time_control``: the one it was played
        under (``Live.time_control``)."""
        gid = secrets.token_urlsafe(9)
        keys = (secrets.token_urlsafe(24), secrets.token_urlsafe(24))
        now = time.time()
        # ``since``: when the first turn began (a first move waits a bounded time for it, from
        # when its player has the game open: the creator of a game with an open seat waits
        # for an opponent, and is there)
        timed = Clock.new(clock).start(None, now) if clock else None
        if timed is not None and OPEN in seats:
            timed = timed.arrived(seats.index(HUMAN) + 1)
        live = Live(gid, game, seats, keys, history, [], now if created is None else created,
                    listed=listed, hints_agreed=hints, client=client, names=names, clock=timed,
                    over=over, time_control=time_control)
        value, deadline = clock_keeper.stored(live.clock, clock_keeper.abort_deadline(
            live, history.last, history.movers, live.clock))
        return live, NewGame(gid, game.id, game.non_default_params(), seats, keys,
                             tuple(history.moves), over or result_of(game, history.last),
                             listed, hints, names,
                             None if over else clock_keeper.seat_to_move(live, history.last),
                             value, deadline, created,
                             None if time_control is None else time_control.to_json())

    async def started(self, live: Live) -> tuple[Live, dict[str, str]]:
        """A stored new game, served: its dice rolled, its agent thinking if it is to move."""
        self._keep(live)
        if OPEN in live.seats and live.listed:
            self.hub.publish(LOBBY)
        await self.turns.advance(live, live.client)
        return live, {"1": live.secrets[0], "2": live.secrets[1]}

    async def upload(self, text: str, sgf: bool, client: str, game_id: Any = None
                     ) -> tuple[Live, dict[str, str]]:
        """A new game from a record (JSON or SGF text), replayed and checked in a worker
        first; both seats human and held by the uploader, who agrees to the computer's help
        for both (hints, and the analysis of an unfinished game: it is for study). Nothing is
        stored for a bad record. ``game_id`` is the game of an SGF file without a stonegarden
        ``RU[]`` (as ``convert --game``).

        Raises:
            ApiError: 400 a bad record, an unknown game, a game given for a JSON record; 413
            more moves than ``max_moves``, 429 no room in the job queue or past
            ``games_per_client``, 503 the replay could not finish.
        """
        args: dict[str, Any] = {"sgf" if sgf else "json": text,
                                "max_moves": self.budgets.max_moves}
        if game_id is not None:
            if not sgf:
                raise ApiError(400, "'game' is for an SGF file; a JSON record names its game")
            try:
                game_class(game_id)
            except StonegardenError as exc:
                raise ApiError(400, str(exc)) from None
            args["game"] = game_id
        self.count_new_game(client)  # before its replay: a worker's time
        try:
            out = await self.job("replay-record", args, client, self.budgets.replay_seconds)
        except ApiError as exc:
            if exc.status == 429:  # no room in the queue: no worker's time spent, no game
                self.made.give_back(client)
            raise
        if out.get("refused"):
            raise ApiError(413, f"bad record: {out['refused']}")
        game = make(out["game"], **out["params"])
        history = await asyncio.to_thread(History.replay, game, out["moves"])
        # lost on time, resigned on the opponent's turn or aborted: over as the record says
        over = out.get("ended")
        if over is not None:
            over = {**over, "scores": None}
        # the players the record names (PB and PW), shown and downloaded again as its people
        names = tuple(_player_name(out.get("players", {}).get(seat)) for seat in ("1", "2"))
        # the day the game was played, where the record says (its download says it again)
        day = out.get("date")
        created = calendar.timegm(time.strptime(day, "%Y-%m-%d")) if day else None
        return await self._insert(game, (HUMAN, HUMAN), history, client, hints=True,
                                  names=(names[0], names[1]), over=over, created=created,
                                  time_control=played_under(out.get("clock")))

    # -- seats ------------------------------------------------------------------------------
    def seat_of(self, live: Live, secret: Any) -> int | None:
        """The seat whose secret this is (constant-time comparison), or ``None``."""
        if not isinstance(secret, str) or not secret or not secret.isascii():
            return None  # secrets are ASCII: anything else (a lone surrogate too) is no secret
        found = None
        for i, key in enumerate(live.secrets):
            if hmac.compare_digest(secret.encode(), key.encode()):
                found = i + 1
        return found

    def require_seat(self, live: Live, secret: Any) -> int:
        """Raises: ApiError 403 without a seat's secret."""
        seat = self.seat_of(live, secret)
        if seat is None:
            raise ApiError(403, "this needs a seat's secret link" if not secret
                           else "that is not a secret of this game's seats")
        return seat

    # -- moves ------------------------------------------------------------------------------
    async def play(self, live: Live, secret: Any, move: Any, expected_ply: Any = None,
                   client: str = "") -> Live:
        """A human move for the seat the secret belongs to; the game served after it (read
        again when this process had not yet heard of moves the player has seen).

        A move given with its ``ply`` that is already the game's move at that ply, by that
        seat, is answered as it was the first time, and not played again: a request sent
        twice (a proxy sending it to another process when the first one's connection broke,
        a page that did not hear the answer) plays once.

        Raises:
            ApiError: 403 wrong secret, 409 not this seat's turn / stale / game over / full,
            400 bad text or a ``ply`` that is not an integer, 422 illegal move, 429 the agent's
            reply would have no room in the job queue (nothing is stored).
        """
        seat = self.require_seat(live, secret)
        if not isinstance(move, str) or not move.strip() or len(move) > MAX_MOVE_TEXT:
            raise ApiError(400, f"'move' must be move text of at most {MAX_MOVE_TEXT} characters,"
                                f" not {strict_json.show(move)}")
        if expected_ply is not None and (not isinstance(expected_ply, int)
                                         or isinstance(expected_ply, bool) or expected_ply < 0):
            raise ApiError(400, f"'ply' must be the number of moves so far (an integer, 0 or "
                                f"more), not "
                                f"{strict_json.show(expected_ply)}")
        if expected_ply is not None and expected_ply > len(live.moves):
            # the player has seen moves this process has not heard of yet (made through
            # another server process a moment ago, its notice still on its way): the game is
            # brought up to date from the store before the move is judged
            live = await self.elsewhere.brought_up_to_date(live, client)
        if expected_ply is not None and self._played_already(live, seat, move, expected_ply):
            return live
        if expected_ply is not None and expected_ply != len(live.moves):
            raise ApiError(409, f"the game has moved on: ply {len(live.moves)}, "
                                f"not {strict_json.show(expected_ply)}")
        game, state = live.game, live.state
        if game.is_terminal(state) or live.over is not None:
            raise ApiError(409, "the game is over")
        if OPEN in live.seats:
            raise ApiError(409, "the game starts when someone joins it")
        if live.clock is not None and live.clock.flagged(time.time()):
            await self.keeper.woke()  # not out of time for a machine that slept
            self.still_served(live)
            await clock_keeper.flag(self, live)
            raise ApiError(409, "the game is over: time ran out")
        to_move = game.current_player(state)
        full = len(live.moves) >= self.budgets.max_moves
        if move.strip().lower() == "resign" and (
                (to_move != seat and live.seats == (HUMAN, HUMAN))
                or (full and live.seats[seat - 1] == HUMAN)):
            await self._resign_without_a_move(live, seat)
            return live
        if to_move != seat:
            raise ApiError(409, f"it is player {to_move}'s turn, not player {seat}'s")
        if live.seats[seat - 1] != HUMAN:
            raise ApiError(409, f"seat {seat} is played by the agent {live.seats[seat - 1]!r}")
        self._room_for_move(live)
        try:
            after = game.play_text(state, move)
            text = "resign" if after.resigned else game.action_to_text(
                state, game.parse_action(state, move))
        except IllegalMoveError as exc:  # players see the board, not the position text
            raise ApiError(422, f"illegal move {exc.move!r}: {exc.reason}") from None
        except StonegardenError as exc:
            raise ApiError(400, str(exc)) from None
        if live.seats[2 - seat] != HUMAN and not game.is_terminal(after):
            self.admit(client)  # the agent's reply will need a job
        live.paused = False
        live.notice = ""
        live.client = client
        try:
            await self.append_move(live, text, after, redo=())
        except ApiError as exc:
            if exc.status != 409 or expected_ply is None:
                raise
            # the same move stored meanwhile: from another tab, while this request waited for
            # the game's lock, or through another process whose notice has not come yet (a
            # proxy's retry): played once, and answered as played
            if not self._played_already(live, seat, move, expected_ply):
                with contextlib.suppress(ApiError):
                    live = await self.elsewhere.brought_up_to_date(live, client)
            if self._played_already(live, seat, move, expected_ply):
                return live
            raise
        await self.turns.advance(live, client)
        return live

    def _played_already(self, live: Live, seat: int, move: str, ply: int) -> bool:
        """Whether ``move`` for ``ply`` is the move ``seat`` played there: a move sent again
        because its answer was lost (a network cut, a proxy's 502), or sent from two tabs of
        the seat: refused as "the game has moved on", it had its player told that the move
        they had played was not."""
        if ply >= len(live.moves) or live.history.movers[ply] != seat:
            return False
        stored = live.moves[ply]
        if move.strip().lower() == "resign":
            return stored == "resign"
        game = live.game
        try:
            before = live.history.at(ply)
            return bool(game.action_to_text(before, game.parse_action(before, move)) == stored)
        except StonegardenError:
            return False

    async def _resign_without_a_move(self, live: Live, seat: int) -> None:
        """A person resigns on the opponent's turn, so that a game between two people never
        waits for ever on one who has left, or in a game at the server's move limit. Its moves
        cannot hold the resignation (the rules let only the player to move resign, and the
        game has no room for a move), so it ends as a game lost on time does:
        ``reason: "resign"``, recorded in ``meta.ended``.

        Raises:
            ApiError: 409 when the game changed meanwhile; 503 the store failed.
        """
        async with live.lock:
            if live.over is not None or live.game.is_terminal(live.state):
                raise ApiError(409, "the game is over")
            self.still_served(live)
            try:
                done = await clock_keeper.end(self, live, seat, "resign", time.time())
            except StoreError as exc:
                raise ApiError(503, str(exc)) from None
            if not done:
                raise ApiError(409, "the game has moved on: read it and try again")
            # an agent paused at the move limit is not waited for any more
            live.paused, live.notice = False, ""
        self.hub.publish(live.id)

    async def abort(self, live: Live, secret: Any) -> None:
        """End a game between two people before both have moved, with no winner (reason
        ``aborted``, recorded in ``meta.ended`` as a time loss is): either seat's holder may,
        so that no one is held in a game by an opponent who never moves.

        Raises:
            ApiError: 403 without a seat's secret; 409 once both players have moved (resign
            then), in a game with an agent or an open seat, when the game is over or changed
            meanwhile; 503 the store failed.
        """
        seat = self.require_seat(live, secret)
        if OPEN in live.seats:
            raise ApiError(409, "no one has joined this game: withdraw it instead")
        if live.seats != (HUMAN, HUMAN):
            raise ApiError(409, "only a game between two people can be aborted: against an "
                                "agent, resign or simply leave")
        async with live.lock:
            if live.over is not None or live.game.is_terminal(live.state):
                raise ApiError(409, "the game is over")
            if not may_abort(live):
                raise ApiError(409, "both players have moved: a game can be aborted only "
                                    "before that; resign instead")
            self.still_served(live)
            try:
                done = await clock_keeper.end(self, live, None, clock_keeper.ABORTED, time.time(), by=seat)
            except StoreError as exc:
                raise ApiError(503, str(exc)) from None
            if not done:
                raise ApiError(409, "the game has moved on: read it and try again")
        self.hub.publish(live.id)

    async def arrive(self, live: Live, seat: int) -> None:
        """``seat``'s holder has the game open (its page asked for it): in a game between two
        people on a clock, not under way, a first move is waited for from that seat from now
        on (``clock_keeper.arrival``). A store that fails leaves the wait unstarted: the page
        is answered all the same."""
        if clock_keeper.arrival(live, seat, time.time()) is None:
            return
        async with live.lock:
            clock = clock_keeper.arrival(live, seat, time.time())
            if clock is None or self.live.get(live.id) is not live:
                return
            value, deadline = clock_keeper.stored(clock, clock_keeper.abort_deadline(
                live, live.state, live.history.movers, clock))
            assert value is not None
            try:
                done = await asyncio.to_thread(self.store.set_clock, live.id, len(live.moves),
                                               value, deadline)
            except StoreError:
                return
            if not done:
                self.invalidate(live.id)
                return
            live.clock = clock
        self.hub.publish(live.id)

    def still_served(self, live: Live) -> None:
        """Raises: ApiError 409 when ``live`` is no longer the copy served here (another
        process changed the game, or it was let go from memory, while this request waited)."""
        if self.live.get(live.id) is not live:
            raise ApiError(409, "the game was read again meanwhile (changed by another server "
                                "process, or let go from memory): read it and try again")

    def _room_for_move(self, live: Live) -> None:
        if len(live.moves) >= self.budgets.max_moves:
            raise ApiError(409, f"{full_notice(len(live.moves))}: resign to end it")

    async def append_move(self, live: Live, text: str, after: Any, redo: tuple[str, ...]) -> None:
        """Store the move from the position now to ``after`` (off the event loop), then
        serve it. Refused (409) if another change came first."""
        ply, before = len(live.moves), live.state
        async with live.lock:
            # ended while this move waited for the lock (the opponent resigned or aborted it):
            # said so, not as a position left behind ("ply 4, not 4")
            if live.over is not None:
                raise ApiError(409, "the game is over")
            if len(live.moves) != ply:
                raise ApiError(409, f"the game has moved on: ply {len(live.moves)}, not {ply}")
            self.still_served(live)
            clock = clock_keeper.after_move(live, before, after, time.time())
            value, deadline = clock_keeper.stored(clock, clock_keeper.abort_deadline(
                live, after, [*live.history.movers, live.game.current_player(before)], clock))
            try:
                await asyncio.to_thread(
                    self.store.append_move, live.id, ply, text, result_of(live.game, after),
                    redo, to_move=clock_keeper.seat_to_move(live, after), clock=value,
                    deadline=deadline, line=tuple(live.moves))
            except StaleError as exc:
                self.invalidate(live.id)  # another process wrote: reload next time
                raise ApiError(409, str(exc)) from None
            except StoreError as exc:
                raise ApiError(503, str(exc)) from None
            live.history.push(text, after)
            live.clock = clock
            live.redo = list(redo)
        self.hub.publish(live.id)

    def count_new_game(self, client: str) -> None:
        """Count a new game of ``client``'s against ``games_per_client``.

        Raises:
            ApiError: 429 (with Retry-After) past it.
        """
        wait = self.made.take(client)
        if wait:
            seconds = math.ceil(wait)
            raise ApiError(429, f"you have made games faster than the "
                                f"{self.budgets.games_per_client} an hour one client may: "
                                f"the next one in {seconds} s", {"Retry-After": str(seconds)})

    def admit(self, client: str) -> Callable[[], None]:
        """Hold a place in the job queue for the job this request will submit (its agent's
        reply, say) after it has stored what it must: the place is held until the request
        ends, or until the returned function is called, so that concurrent requests of one
        client cannot all pass the check before their jobs exist.

        Raises:
            ApiError: 429 (with Retry-After) when ``client`` has no room for a job.
        """
        try:
            release = self.jobs.reserve(client)
        except JobError as exc:
            raise _job_refusal(exc) from None
        task = asyncio.current_task()
        if task is None:
            release()
        else:
            task.add_done_callback(lambda _t: release())
        return release

    async def shared(self, live: Live, key: Any,
                      start: Callable[[], Awaitable[Any]]) -> Any:
        """One job for identical requests made while it runs."""
        pending = live.pending.get(key)
        if pending is None:
            pending = asyncio.ensure_future(start())
            live.pending[key] = pending
            pending.add_done_callback(lambda _f: live.pending.pop(key, None))
        return await asyncio.shield(pending)

    async def job(self, kind: str, args: dict[str, Any], client: str, deadline: float) -> Any:
        """Run a job for ``client`` and give its answer.

        Raises:
            ApiError: 429 no room; 400 input refused by the job; 503 any other failure.
        """
        try:
            job: Job = self.jobs.submit(kind, args, client=client, deadline=deadline,
                                        memory=self.budgets.job_memory)
        except JobError as exc:
            raise _job_refusal(exc) from None
        try:
            return await job.result()
        except asyncio.CancelledError:
            self.jobs.cancel(job)
            raise
        except JobError as exc:
            if exc.reason == "input":  # the message is the input's error, as it was raised
                raise ApiError(400, f"bad record: {exc}" if kind == "replay-record"
                               else str(exc)) from None
            raise ApiError(503, str(exc)) from None

    # -- what pages see ---------------------------------------------------------------------
    def snapshot(self, live: Live, ply: Any = None, seat: int | None = None) -> dict[str, Any]:
        """The game as JSON for pages, at ``ply`` (default: now): :func:`snapshot.page_state`.

        Raises:
            ApiError: 400 for a ply outside the game.
        """
        at = snapshot.parse_ply(ply, len(live.moves))
        return snapshot.page_state(live, at, seat, self.turns.describe(live), self.engine_ready(),
                                   self.budgets.max_moves)

    def record(self, live: Live, seat: int | None = None) -> Record:
        """The game's record: ``meta.date`` (the day it began, UTC), ``meta.clock`` (its time
        control), ``meta.ended`` (an end the rules did not make) and its analysis
        (``meta.analysis``) where the viewer may see it."""
        # the day it began here (UTC), or the day an uploaded record gives; its time control
        meta: dict[str, Any] = {"source": "stonegarden web", "id": live.id,
                                "date": datetime.datetime.fromtimestamp(
                                    live.created, datetime.UTC).date().isoformat()}
        if live.clock is not None:
            meta["clock"] = live.clock.spec.to_json()
        elif live.time_control is not None:  # an uploaded record's, given back
            meta["clock"] = live.time_control.to_json()
        if live.over is not None:  # a clock ended it, not the rules: no replay can say so
            meta["ended"] = {"winner": live.over["winner"], "reason": live.over["reason"]}
        if (live.review is not None and live.review.points
                and may_see_analysis(live, seat)):
            meta["analysis"] = {"engine": live.review.engine,
                                "points": review_job.judged(live.review, live.moves,
                                                        live.history.movers)}
        # a person by the name shown on the page, where the seat has one; else its kind
        players = {str(i + 1): (name if seat == HUMAN and name else seat)
                   for i, (seat, name) in enumerate(zip(live.seats, live.names))}
        return make_record(live.game, list(live.moves), live.state, players=players, meta=meta)

    async def sgf(self, live: Live) -> str:
        """The game as SGF. Replaying a long game takes a second or more, so it is made in a
        thread, once per position, seats and end on time: later requests get the same text,
        and requests made meanwhile share the work.

        Raises:
            ApiError: 404 when the game has no SGF form.
        """
        over = None if live.over is None else (live.over["winner"], live.over["reason"])
        # a time loss adds no move; a person named later is PB or PW
        key = ("sgf", tuple(live.moves), live.seats, tuple(live.names), over)
        if live.sgf is not None and live.sgf[0] == key:
            return live.sgf[1]
        record = self.record(live)
        try:
            text: str = await self.shared(live, key, lambda: asyncio.to_thread(
                record_to_sgf, record, f"game {live.id}"))
        except StonegardenError as exc:
            raise ApiError(404, str(exc)) from None
        live.sgf = (key, text)
        return text

    def begin_shutdown(self) -> None:
        """The server is about to stop: live-update streams end now (their pages reconnect to
        the next server), and requests waiting for a job (a hint, an upload), or for another
        program's write lock on a SQLite file, are answered 503, so the shutdown waits for
        none (it cancels the requests it waited 2 s for, and their clients get a bare 500)."""
        self.closing = True
        self.jobs.stopping()
        self.store.stopping()
        for gid in list(self.hub.listeners):
            self.hub.publish(gid)

    def invalidate(self, game_id: str) -> None:
        """Another process changed the game: forget it here (it is read again when asked for;
        a read under way is done again)."""
        live = self.live.pop(game_id, None)
        if live is not None:
            self.turns.stop(live)
            # its analysis would go on storing points of positions the change may have undone
            self.reviewer.stop(live)
        if game_id in self._loading:
            self._stale.add(game_id)

    def in_background(self, work: Awaitable[None]) -> None:
        """Run ``work`` on the loop, held so that it is not collected before it ends."""
        task = asyncio.ensure_future(work)
        self._background.add(task)
        task.add_done_callback(self._background.discard)

    async def close(self) -> None:
        """Stop every agent and end the workers."""
        self.closing = True
        await self.keeper.stop()
        for live in self.live.values():
            self.turns.stop(live)
            self.reviewer.stop(live)
        # another process holding one of these games thinks for its agent at once
        await self.turns.give_up_claims()
        await self.reviewer.give_up_claims()
        await self.jobs.close()


def played_under(value: Any) -> ClockSpec | None:
    """The time control an uploaded record (or its stored row) says, where it is one this
    server's clocks could run (``time_control.parse_clock``); ``None`` for none, or for one
    out of their ranges (another program's), which is left out."""
    try:
        return parse_clock(value)
    except ParameterError:
        return None


def _player_name(value: Any) -> str | None:
    """An uploaded record's player as a seat's display name: ``None`` for none, for a seat's
    kind (the web app's records say ``human`` of an unnamed person) and for what is no
    display name (``names.clean_name``). A record's name may be longer than a display name
    (kept to its first characters and "…") and break lines (read as spaces), as SGF text
    does."""
    if not isinstance(value, str) or value in (HUMAN, OPEN):
        return None
    # what no name may hold is left out (a right-to-left mark), not the whole name with it;
    # a name cut short may end in half a region flag or a joiner, left out the same way
    name = " ".join(without_refused(" ".join(unicodedata.normalize("NFC", value).split()))
                    .split())
    if len(name) > MAX_NAME:
        name = without_refused(name[:MAX_NAME - 1]).rstrip() + "…"
    try:
        return clean_name(name)
    except ParameterError:
        return None


def _waits_in_lobby(now: float) -> Callable[[GameSummary], bool]:
    """Whether a game still waits in the lobby for an opponent (open, not over, not stale)."""
    listed_since = now - LOBBY_STALE
    return lambda r: OPEN in r.seats and r.result is None and r.created >= listed_since


def _lobby_full(n: int) -> ApiError:
    """So that no one buries the others' games in the lobby."""
    return ApiError(429, f"you have {n} games waiting in the lobby for an opponent, the most "
                         "one player may have: withdraw one, or wait until someone joins",
                    {"Retry-After": "60"})


def _job_refusal(exc: JobError) -> ApiError:
    retry = getattr(exc, "retry_after", None)
    if retry is not None:
        return ApiError(429, f"busy: {exc}; try again in {retry} s",
                        {"Retry-After": str(retry)})
    return ApiError(503, str(exc))
