"""Online play between people: the lobby (games with an open seat), joining and withdrawing,
display names, rematches, "my games", and live updates of pages and the lobby.

The service's game logic stays in ``service.py``; this module adds the requests around it and
their routes (``routes(...)``), mounted by ``app.py``.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import AsyncIterator, Callable
from typing import Any

from starlette.requests import Request
from starlette.responses import HTMLResponse, StreamingResponse
from starlette.routing import Route

from ..core.registry import game_class, make
from ..errors import StonegardenError, quote
from ..store import GameSummary, Store
from . import clock_keeper
from .http import ApiError, Json, client_of, query_value, read_json
from .live import LOBBY, LOBBY_STALE, MAX_ID, History, Live, is_game_id
from .names import clean_name
from .pages import params_words
from .seats import HUMAN, OPEN
from .service import GameService
from .site import Site
from .time_control import parse_clock

SSE_KEEPALIVE = 15.0
#: the least seconds between two updates of one lobby stream: each makes its page read the
#: lobby again, and a creator renaming her listed game in a loop (or a burst of new games)
#: made every lobby open read it as often, tens of times a second each
LOBBY_EVERY = 1.0


def seat_link(site: Site, gid: str, secret: str) -> str:
    """A seat link: the secret travels in the fragment, which browsers never send."""
    return site.link(f"/game/{gid}#key={secret}")


def _over(live: Live) -> bool:
    return live.game.is_terminal(live.state) or live.over is not None


def _name(value: Any) -> str:
    try:
        return clean_name(value)
    except StonegardenError as exc:
        raise ApiError(400, str(exc)) from None


#: seconds a joined game its joiner ended before it began (aborted, resigned, or let abort
#: itself for want of their first move) still counts against them (``_not_begun``)
ENDED_COUNTS = 3600.0


def _ended_by(result: dict[str, Any], seat: int | None) -> bool:
    """Whether the player of ``seat`` ended the game: aborted it, let it abort itself by not
    making a first move in time (else a joiner who never moved ended a game every few
    minutes, eight at a time, without a game counted against them), or resigned."""
    if seat is None:
        return False
    if result.get("reason") == clock_keeper.ABORTED:
        return seat in (result.get("by"), result.get("late"))
    return result.get("reason") == "resign" and result.get("winner") == 3 - seat


def _not_begun(store: Store, seats: dict[str, int], now: float
               ) -> Callable[[GameSummary], bool]:
    """Whether a joined game still counts against its joiner: not both players have moved (a
    die rolled is a move no one made: Tumbling Dice's rolls do not begin a game, nor does a
    resignation), and not over, unless its joiner (``seats``: the seat joined) ended it
    (``_ended_by``) within the last ``ENDED_COUNTS`` seconds: else one client joined
    every open game in the lobby and ended each at once, all in a few seconds. In a thread:
    a game of two moves or more is read and replayed until both have moved."""

    def counts(row: GameSummary) -> bool:
        if row.result is not None and not (row.updated >= now - ENDED_COUNTS
                                           and _ended_by(row.result, seats.get(row.id))):
            return False
        if row.moves < 2:
            return True
        full = store.get(row.id)
        if full is None:
            return False
        try:
            game = make(full.game, **full.params)
            state, movers = game.initial_state(), set()
            for text in full.moves:
                if text == "resign":  # the end of the game, no move in it
                    break
                movers.add(game.current_player(state))
                if {1, 2} <= movers:
                    return False
                state = game.play_text(state, text)
        except StonegardenError:
            return False  # a damaged game is nobody's to play
        return True

    return counts


def _joined_enough(n: int) -> ApiError:
    """So that no one empties the lobby by taking every open seat."""
    return ApiError(429, f"you have joined {n} games that have not begun, the most one "
                         "player may have: play a move in one, or abort one (no one wins or "
                         "loses; a game you aborted or resigned before it began, or whose first "
                         "move you did not make in time, counts for an hour)", {"Retry-After": "60"})


#: a join or a withdrawal of a game without an open seat (it may never have had one)
NO_OPEN_SEAT = "this game has no open seat: someone has joined it, or it never had one"


async def join(svc: GameService, live: Live, name: Any, client: str) -> int:
    """Take the game's open seat for a person named ``name`` at ``client``; its number.

    Raises:
        ApiError: 400 a bad name; 409 no open seat (someone joined first, here or through
        another server); 404 the creator withdrew the game meanwhile; 429 when ``client`` has
        joined ``lobby_per_client`` games that have not begun (its joins under way counted);
        503 the store failed.
    """
    clean = _name(name)
    if OPEN not in live.seats:
        raise ApiError(409, NO_OPEN_SEAT)
    async with svc.holding(svc.joined, client,
                           _not_begun(svc.store, svc.joined.seats, time.time()),
                           _joined_enough) as joined:
        seat = live.seats.index(OPEN) + 1 if OPEN in live.seats else 0
        if not seat:  # someone joined while the client's games were counted
            raise ApiError(409, "this game has no open seat: someone has joined it")
        # the first turn begins now, and the joiner is here: the clock notes both, and the
        # game aborts itself if that first move does not come in time
        # (``clock_keeper.abort_deadline``; its creator counts from opening her page)
        seats = list(live.seats)
        seats[seat - 1] = HUMAN
        clock = value = deadline = None
        if live.clock is not None:
            clock = live.clock.start(None, time.time()).arrived(seat)
            value, deadline = clock_keeper.stored(clock, clock_keeper.abort_deadline(
                live, live.state, live.history.movers, clock, (seats[0], seats[1])))
        if not await asyncio.to_thread(svc.store.join, live.id, seat, clean, value, deadline):
            svc.invalidate(live.id)
            if await asyncio.to_thread(svc.store.get, live.id) is None:  # withdrawn meanwhile
                raise ApiError(404, f"no game {quote(live.id)}: it was withdrawn")
            raise ApiError(409, "someone else joined this game first")
        names = list(live.names)
        names[seat - 1] = clean
        live.seats = (seats[0], seats[1])
        live.names = (names[0], names[1])
        if clock is not None:
            live.clock = clock
        joined.append(live.id)
        svc.joined.seats[live.id] = seat
    svc.hub.publish(live.id)
    svc.hub.publish(LOBBY)
    return seat


async def withdraw(svc: GameService, live: Live, secret: Any) -> None:
    """The creator takes back a game no one has joined (it is deleted).

    Raises:
        ApiError: 403 without the creator's secret; 409 once someone has joined; 404 when
        the game was withdrawn meanwhile (a second request of the creator's).
    """
    seat = svc.require_seat(live, secret)
    if OPEN not in live.seats or live.seats[seat - 1] == OPEN:
        raise ApiError(409, f"{NO_OPEN_SEAT}; only a game waiting for an opponent is withdrawn")
    if not await asyncio.to_thread(svc.store.withdraw, live.id):
        svc.invalidate(live.id)
        if await asyncio.to_thread(svc.store.get, live.id) is None:  # a withdrawal came first
            raise ApiError(404, f"no game {quote(live.id)}: it was withdrawn")
        raise ApiError(409, "someone joined this game first")
    svc.invalidate(live.id)
    svc.hub.publish(live.id)
    svc.hub.publish(LOBBY)


async def set_name(svc: GameService, live: Live, secret: Any, name: Any) -> None:
    """Name the seat the secret belongs to, once: a seat opened before its player chose a
    name (the page names it then). Its name is not changed later: each change had every page
    of the game, and the lobby, read it again, and a script renaming a seat in a loop had
    every spectator's page read it tens of times a second, or took the opponent's name.

    Raises:
        ApiError: 403 without a seat's secret; 400 a bad name; 409 an agent's seat (its
        name is the agent's: spectators would read a person's), a seat already named, or a
        game over (its record names who played it: a loser renamed afterwards rewrote it and
        every page of it).
    """
    seat = svc.require_seat(live, secret)
    clean = _name(name)
    if live.seats[seat - 1] != HUMAN:
        raise ApiError(409, f"seat {seat} is played by the agent {live.seats[seat - 1]!r}: only "
                            "a person's seat takes a name")
    # checked and written under the game's lock, the write only while the seat has no name
    # and the game goes on: names sent at once (or through two server processes) were each
    # answered as kept, the last one written winning over the one the pages showed
    async with live.lock:
        if _over(live):
            raise ApiError(409, "this game is over: its players' names stay as they played it")
        if live.names[seat - 1] == clean:
            return  # nothing to write, and nothing to tell other server processes
        if live.names[seat - 1] is not None:
            raise ApiError(409, f"seat {seat} is already named {quote(live.names[seat - 1])}: "
                                "a seat is named once (a new name goes with the games you "
                                "start or join from now on)")
        svc.still_served(live)
        if not await asyncio.to_thread(svc.store.set_name, live.id, seat, clean):
            svc.invalidate(live.id)
            raise ApiError(409, "the seat was named, or the game ended, through another server "
                                "process meanwhile: read the game again")
        names = list(live.names)
        names[seat - 1] = clean
        live.names = (names[0], names[1])
    svc.hub.publish(live.id)
    if OPEN in live.seats and live.listed:  # the lobby shows the creator's name
        svc.hub.publish(LOBBY)


async def offered_rematch(svc: GameService, live: Live) -> str | None:
    """The id of the rematch offered after ``live``, unless there is none or it was aborted
    (a first move not made in time, or a player's abort): then a new one may be offered. A
    rematch that cannot be read now (damaged, the store down) is still the one offered."""
    return (await rematch_news(svc, live))[0]


async def rematch_news(svc: GameService, live: Live
                       ) -> tuple[str | None, dict[str, int | None] | None, bool]:
    """The rematch offered after ``live`` (:func:`offered_rematch`); when the one offered
    was aborted, how: ``{"by": seat, "unopened": seat, "late": seat}`` in ``live``'s seats
    (the seat whose player aborted it, never opened it, or did not make a first move in time;
    all ``None`` for a rematch aborted before the last was kept), so that the opponent's page
    says what became of the offer it showed; and whether the rematch offered is over (its
    maker resigned it before the opponent came: the page offered it to play on)."""
    if live.rematch is None or live.seats != (HUMAN, HUMAN):
        return live.rematch, None, False  # only a game between two people is aborted
    try:
        other = await svc.load(live.rematch)
    except ApiError as exc:
        return (None if exc.status == 404 else live.rematch), None, False
    if other.over is None or other.over.get("reason") != clock_keeper.ABORTED:
        return live.rematch, None, _over(other)

    def here(seat: Any) -> int | None:  # the rematch swapped the seats
        return 3 - seat if seat in (1, 2) else None

    return None, {"by": here(other.over.get("by")), "unopened": here(other.over.get("unopened")),
                  "late": here(other.over.get("late"))}, False


async def rematch(svc: GameService, live: Live, secret: Any, client: str,
                  ) -> tuple[bool, Live, int]:
    """The game again with the seats swapped, offered to the opponent: whether this request
    made it, the new game and the asker's seat in it (the other seat of the one it held).
    The opponent's request answers the same game with its own seat. A rematch that was
    aborted gives way to a new one. The request that makes a rematch counts it against
    ``client``'s new games.

    Raises:
        ApiError: 403 without a seat's secret; 409 while the game goes on; 429 when an agent
        would think and the client has no room in the job queue, or when the rematch is one
        more new game than ``client`` may make (``Budgets.games_per_client``).
    """
    seat = svc.require_seat(live, secret)
    if not _over(live):
        raise ApiError(409, "a rematch is for a finished game")
    if live.over is not None and live.over.get("reason") == clock_keeper.ABORTED:
        raise ApiError(409, "an aborted game has no rematch: start a new game instead")
    made = False
    replacing = None if await offered_rematch(svc, live) else live.rematch
    if live.rematch is None or replacing is not None:
        seats = (live.seats[1], live.seats[0])
        if any(s != HUMAN for s in seats):
            svc.admit(client)
        # a new game like any other: a game resigned at once and its rematch, again and
        # again, made games without end
        svc.count_new_game(client)
        spec = parse_clock(live.clock.spec.to_json()) if live.clock else None
        new, row = svc.new_game(live.game, seats, History(live.game), client, live.listed,
                                live.hints_agreed, (live.names[1], live.names[0]), spec)
        rid = await asyncio.to_thread(svc.store.offer_rematch, live.id, row, replacing)
        if rid == new.id:
            made = True
            await svc.started(new)
        else:  # the opponent's came first: this request made nothing
            svc.made.give_back(client)
        live.rematch = rid
        svc.hub.publish(live.id)
    assert live.rematch is not None
    return made, await svc.load(live.rematch, client), 3 - seat


def clock_words(stored: dict[str, Any] | None) -> str | None:
    """A listed game's time control in words ("5 min + 3 s", "2 days a move"), or ``None``."""
    clock = parse_clock(stored) if stored else None
    return clock.describe() if clock else None


def lobby_entry(row: Any, now: float, site: Site) -> dict[str, Any]:
    """What the lobby shows of a game with an open seat."""
    try:
        title = game_class(row.game).title
    except StonegardenError:
        title = row.game
    open_seat = row.seats.index(OPEN) + 1
    return {"id": row.id, "game": row.game, "title": title, "params": row.params,
            "params_text": params_words(row.game, row.params),
            "clock": row.clock, "clock_text": clock_words(row.clock) or "no clock",
            "creator": row.names[2 - open_seat] or "someone", "open_seat": open_seat,
            "age": round(max(0.0, now - row.created)), "link": site.link(f"/game/{row.id}")}


def updates(svc: GameService, client: str, keys: str | list[str], limit: int,
            every: float = 0.0) -> StreamingResponse:
    """Server-sent events: an ``update`` whenever one of ``keys`` (games, or the lobby)
    changes, at most one each ``every`` seconds (the changes meanwhile told as one, after
    it); one stream may watch many games ("my games").

    Raises:
        ApiError: 429 when the client already holds ``limit`` streams.
    """
    keys = [keys] if isinstance(keys, str) else keys
    if svc.streams[client] >= limit:
        raise ApiError(429, f"you have {svc.streams[client]} live streams open, the most "
                            "one client may have", {"Retry-After": str(int(SSE_KEEPALIVE))})
    svc.streams[client] += 1
    queue = svc.hub.subscribe(keys[0])
    for key in keys[1:]:
        svc.hub.listeners.setdefault(key, set()).add(queue)

    async def stream() -> AsyncIterator[str]:
        try:
            yield f"event: update\ndata: {svc.hub.versions.get(keys[0], 0)}\n\n"
            while not svc.closing:
                try:
                    v = await asyncio.wait_for(queue.get(), SSE_KEEPALIVE)
                except TimeoutError:
                    yield ": keep-alive\n\n"
                    continue
                yield f"event: update\ndata: {v}\n\n"
                if every:  # the changes meanwhile wait in the queue, as its newest version
                    await asyncio.sleep(every)
        finally:
            for key in keys:
                svc.hub.unsubscribe(key, queue)
            svc.streams[client] -= 1
            if svc.streams[client] <= 0:
                del svc.streams[client]

    return StreamingResponse(stream(), media_type="text/event-stream",
                             headers={"Cache-Control": "no-store", "X-Accel-Buffering": "no"})


#: the most games one "my games" stream watches
MAX_WATCHED = 100


def watched_ids(text: str | None) -> list[str]:
    """The ``ids`` of a many-games stream: 1-100 game ids, comma separated.

    Raises:
        ApiError: 400 none, more than 100, or one that is not a game id's shape.
    """
    ids = [i for i in (text or "").split(",") if i]
    if not 1 <= len(ids) <= MAX_WATCHED:
        raise ApiError(400, f"'ids' must name 1-{MAX_WATCHED} games, not {len(ids)}")
    for i in ids:
        if not is_game_id(i):
            raise ApiError(400, f"{quote(i, MAX_ID)} is not a game id")
    return list(dict.fromkeys(ids))


def routes(service: Callable[[], GameService], site: Site,
           page: Callable[..., HTMLResponse]) -> list[Route]:
    """The lobby's and online play's routes."""

    async def lobby_api(request: Request) -> Json:
        svc = service()
        now = time.time()
        rows = await asyncio.to_thread(svc.store.lobby, since=now - LOBBY_STALE)
        return Json({"games": [lobby_entry(r, now, site) for r in rows]})

    async def lobby_events(request: Request) -> StreamingResponse:
        svc = service()
        return updates(svc, client_of(request), LOBBY, svc.budgets.streams_per_client,
                       LOBBY_EVERY)

    async def games_events(request: Request) -> StreamingResponse:
        svc = service()
        ids = watched_ids(query_value(request, "ids"))
        return updates(svc, client_of(request), ids, svc.budgets.streams_per_client)

    async def join_game(request: Request) -> Json:
        svc = service()
        client = client_of(request)
        live = await svc.load(request.path_params["gid"], client)
        body = await read_json(request, ("name",))
        seat = await join(svc, live, body.get("name"), client)
        secret = live.secrets[seat - 1]
        return Json({"id": live.id, "seat": seat, "secret": secret,
                     "link": seat_link(site, live.id, secret),
                     "spectator": site.link(f"/game/{live.id}")}, status_code=201)

    async def withdraw_game(request: Request) -> Json:
        svc = service()
        live = await svc.load(request.path_params["gid"], client_of(request))
        body = await read_json(request, ("secret",))
        await withdraw(svc, live, body.get("secret"))
        return Json({"withdrawn": live.id})

    async def name_seat(request: Request) -> Json:
        svc = service()
        live = await svc.load(request.path_params["gid"], client_of(request))
        body = await read_json(request, ("secret", "name"))
        await set_name(svc, live, body.get("secret"), body.get("name"))
        return Json(svc.snapshot(live, None, svc.seat_of(live, body.get("secret"))))

    async def rematch_game(request: Request) -> Json:
        svc = service()
        client = client_of(request)
        live = await svc.load(request.path_params["gid"], client)
        body = await read_json(request, ("secret",))
        made, new, seat = await rematch(svc, live, body.get("secret"), client)
        secret = new.secrets[seat - 1]
        return Json({"id": new.id, "seat": seat, "secret": secret,
                     "link": seat_link(site, new.id, secret),
                     "spectator": site.link(f"/game/{new.id}")},
                    status_code=201 if made else 200)

    async def lobby_page(request: Request) -> HTMLResponse:
        return page("lobby.html")

    async def my_games_page(request: Request) -> HTMLResponse:
        return page("my_games.html")

    return [
        Route("/lobby", lobby_page),
        Route("/my-games", my_games_page),
        Route("/api/lobby", lobby_api),
        Route("/api/lobby/events", lobby_events),
        Route("/api/events", games_events),
        Route("/api/games/{gid}/join", join_game, methods=["POST"]),
        Route("/api/games/{gid}/withdraw", withdraw_game, methods=["POST"]),
        Route("/api/games/{gid}/rematch", rematch_game, methods=["POST"]),
        Route("/api/games/{gid}/name", name_seat, methods=["POST"]),
    ]
