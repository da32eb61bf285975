"""Clocks on the server: how a move changes a game's clock, a game lost on time, and the
keeper that flags games whose time ran out while no one is connected.

Rules (docs/playing.md, "Clocks"):

- A clock runs only for a person to move, and only once that player has made a first move:
  the time before each player's first move is not counted (lichess does the same), so a
  game created before the opponent arrives loses no one on time.
- The keeper of every server process looks for games whose deadline has passed (an indexed
  query, every half second) and ends them with reason ``time``; the store's conditional write
  makes exactly one process do it.
- A game between two people on a Fischer clock whose player to move has not made a first
  move within ``first_move_wait`` of their turn starting (or of their first opening the game,
  when that is later: a friend's link may be opened long after it was made) is aborted the
  same way (reason ``aborted``, no winner): no one can hold a stranger in an untouched game.
- A game between two people on any clock whose player to move has a first move to make but
  has not opened the game within ``unopened_wait`` of their turn starting (a friend's link
  never followed, a rematch never taken up) aborts itself too: it waited for ever, in its
  creator's "my games", for a player who may never come.
- Every server writes a heartbeat every 2 s. A server that starts after no server has run for
  more than ``HEARTBEAT_GRACE`` seconds moves every running clock on by that time: time while
  no server ran is not charged to anyone. So does a server whose machine slept (a laptop's
  lid closed) for more than that, as it wakes: the wall clock went on, the monotonic one not.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import math
import time
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from ..core.protocol import CHANCE, State
from .live import Live
from .seats import HUMAN, OPEN
from .time_control import DAY, Clock

if TYPE_CHECKING:
    from .service import GameService

log = logging.getLogger("stonegarden.clocks")

#: the reason of a game ended with no winner before both players moved
ABORTED = "aborted"

#: how often the keeper looks for games out of time (seconds)
TICK = 0.5
#: how often a server records that it is up
HEARTBEAT_EVERY = 2.0
#: an outage longer than this is not charged to the players
HEARTBEAT_GRACE = 6.0
#: seconds the keeper leaves alone a game out of time that it could not read or end (a
#: damaged row, say) before it tries that game again
RETRY_FAILED = 60.0
#: the least and the most seconds a person's first move may wait, on a Fischer clock, before
#: the game aborts itself: the game's initial time, but at least a minute (time to open the
#: link and find a move, in a 10 s game too) and at most three minutes (whoever is kept
#: waiting by an opponent who never moves is free soon, in a three-hour game too)
FIRST_MOVE_WAIT = (60.0, 180.0)
#: seconds a person to move who has not opened the game yet (a friend's link not followed, a
#: rematch not taken up) may take to open it before the game aborts itself: a day, or a
#: correspondence game's days per move when longer; else the game waited for ever, in its
#: creator's "my games" too
UNOPENED_WAIT = DAY


def seat_to_move(live: Live, state: State) -> int | None:
    """The seat to move in ``state``, ``None`` when the game is over or chance is to move."""
    game = live.game
    if game.is_terminal(state):
        return None
    seat = game.current_player(state)
    return None if seat == CHANCE else int(seat)


def after_move(live: Live, before: State, after: State, now: float) -> Clock | None:
    """The game's clock once the move from ``before`` to ``after`` is made at ``now``."""
    clock = live.clock
    if clock is None:
        return None
    mover = live.game.current_player(before)
    nxt = seat_to_move(live, after)
    moved = set(live.history.movers) | {mover}
    runs = nxt if nxt is not None and nxt in moved and live.seats[nxt - 1] == HUMAN else None
    if mover == CHANCE:  # a die roll: the next player's clock starts now (unless it runs)
        return clock if clock.running == runs else clock.start(runs, now)
    return clock.after_move(mover, runs, now, final=live.game.is_terminal(after))


def first_move_wait(clock: Clock) -> float:
    """Seconds a person's first move may wait before the game aborts itself."""
    lo, hi = FIRST_MOVE_WAIT
    return min(max(clock.spec.initial, lo), hi)


def unopened_wait(clock: Clock) -> float:
    """Seconds a person to move may take to open the game before it aborts itself."""
    return max(UNOPENED_WAIT, clock.spec.days_per_move * DAY)


def abort_deadline(live: Live, state: State, movers: Sequence[int], clock: Clock | None,
                   seats: tuple[str, str] | None = None) -> float | None:
    """When the game aborts itself unless the person to move in ``state`` moves: only between
    two people (``seats``, default the game's) on a clock, and only for a first move
    (``movers``: who made each move so far). No clock runs then; ``clock.since`` is when that
    turn began (0 in a game stored before turns were timed: its first move waits, as its
    stored deadline says). On a Fischer clock, a player who has opened the game has
    ``first_move_wait``; on any clock, one who has not opened it yet has ``unopened_wait`` to
    do so (then ``arrival`` starts the first move's wait). A first move that comes before the
    keeper has aborted the game is played: its player came."""
    if (clock is None or clock.running is not None or not clock.since
            or (seats or live.seats) != (HUMAN, HUMAN)):
        return None
    seat = seat_to_move(live, state)
    if seat is None or seat in movers:
        return None
    if not clock.present[seat - 1]:
        return clock.since + unopened_wait(clock)
    return clock.since + first_move_wait(clock) if clock.spec.kind == "fischer" else None


def unopened(live: Live) -> bool:
    """Whether the seat to move in ``live`` has a first move to make and its player has not
    opened the game yet (the first move's wait has not begun)."""
    clock, seat = live.clock, seat_to_move(live, live.state)
    return (clock is not None and seat is not None and not clock.present[seat - 1]
            and seat not in live.history.movers)


def awaited(live: Live) -> int | None:
    """The seat whose first move the game waits for, but whose player has not opened the game
    yet (the game aborts itself unless they do within ``unopened_wait``; their first move's
    wait begins when they do), else ``None``."""
    if live.over is not None or not unopened(live):
        return None
    if abort_deadline(live, live.state, live.history.movers, live.clock) is None:
        return None
    return seat_to_move(live, live.state)


def arrival(live: Live, seat: int, now: float) -> Clock | None:
    """The clock once ``seat``'s holder has opened the game at ``now``, or ``None`` when
    nothing changes (no clock, an agent in the game, the seat seen before, the game over or
    under way). A first move the game waits for from that seat is waited for from now on:
    a friend who opens the link later than the wait lasts finds a game to play."""
    clock = live.clock
    if (clock is None or clock.present[seat - 1] or live.over is not None
            or any(s not in (HUMAN, OPEN) for s in live.seats)
            or live.game.is_terminal(live.state) or {1, 2} <= set(live.history.movers)):
        return None
    clock = clock.arrived(seat)
    if clock.running is None and seat_to_move(live, live.state) == seat:
        clock = clock.start(None, now)
    return clock


def stored(clock: Clock | None, abort_at: float | None = None
           ) -> tuple[dict[str, Any] | None, float | None]:
    """What the store keeps of a clock: its value and its deadline (when its flag falls, or
    ``abort_at``, when the game aborts itself: the keeper looks at the game then)."""
    if clock is None:
        return None, None
    deadline = clock.deadline()
    return clock.to_store(), abort_at if deadline is None else deadline


def outcome_words(live: Live, names: list[str]) -> dict[str, Any]:
    """The snapshot's ``outcome`` for a game its rules did not end: lost on time, resigned
    on the opponent's turn, or aborted (no winner)."""
    assert live.over is not None
    reason = str(live.over["reason"])
    if reason == ABORTED:
        by = live.over.get("by", "record")  # an uploaded record's does not say who
        absent, late = live.over.get("unopened"), live.over.get("late")
        detail = (f"{names[by - 1]} aborted it before it started" if by in (1, 2)
                  else "it was aborted before it started" if by == "record"
                  else f"{names[absent - 1]} did not open the game in time" if absent in (1, 2)
                  else f"{names[late - 1]} did not make a first move in time" if late in (1, 2)
                  else "the first move did not come in time")  # stored before "late" was
        return {"winner": None, "reason": reason, "detail": detail + ": no one wins or loses"}
    winner = int(live.over["winner"])
    loser = names[2 - winner]
    return {"winner": winner, "reason": reason,
            "detail": f"{loser} ran out of time" if reason == "time" else f"{loser} resigned"}


async def end(svc: GameService, live: Live, loser: int | None, reason: str, now: float,
              by: int | None = None, absent: int | None = None, late: int | None = None
              ) -> bool:
    """End ``live``, which its rules have not ended, with ``loser`` losing for ``reason``
    (``time``, or ``resign`` on the opponent's turn), or with no winner (``loser`` ``None``,
    reason ``aborted``; ``by``: the seat that aborted it, ``None`` when the keeper did;
    ``absent``: the seat whose player never opened the game, ``late``: the seat whose first
    move did not come in time, when that was why): its
    clock stops (a time loss leaves the loser none). Called holding ``live.lock``; ``True``
    when this process stored it (another may have changed the game first: it is then read
    again)."""
    clock, final = live.clock, None
    if clock is not None:
        left = [clock.remaining(1, now), clock.remaining(2, now)]
        if reason == "time" and loser is not None:
            left[loser - 1] = 0.0
        final = Clock(clock.spec, (left[0], left[1]), None, now, clock.present)
    result: dict[str, Any] = {"winner": None if loser is None else 3 - loser,
                              "reason": reason, "scores": None}
    if loser is None:
        result["by"] = by
        if absent is not None:
            result["unopened"] = absent
        if late is not None:
            result["late"] = late
    done = await asyncio.to_thread(svc.store.flag, live.id, len(live.moves), result,
                                   final.to_store() if final is not None else None)
    if not done:
        svc.invalidate(live.id)
        return False
    live.clock, live.over = final, result
    return True


def untouched(live: Live, now: float) -> bool:
    """Whether ``live`` is due to abort itself at ``now``: its first move did not come."""
    if live.over is not None:
        return False
    at = abort_deadline(live, live.state, live.history.movers, live.clock)
    return at is not None and at <= now


async def flag(svc: GameService, live: Live, now: float | None = None) -> bool:
    """End ``live`` on time if its running clock has run out, or abort it if the first move
    it waits for did not come in time (:func:`untouched`); ``True`` when this process did
    (another process may have done it first: the game is then read again)."""
    async with live.lock:
        now = time.time() if now is None else now
        clock = live.clock
        loser = clock.flagged(now) if clock is not None and live.over is None else None
        if loser is None and untouched(live, now):
            seat = seat_to_move(live, live.state)
            absent = seat if unopened(live) else None
            if not await end(svc, live, None, ABORTED, now, absent=absent,
                             late=None if absent else seat):
                return False
            log.warning("stonegarden: game %s: %s player %s in time; aborted", live.id,
                        "the game was not opened by" if absent else "no first move came from",
                        seat)
            svc.hub.publish(live.id)
            return True
        if loser is None or not await end(svc, live, loser, "time", now):
            return False
    log.warning("stonegarden: game %s: player %d's time ran out; player %d wins", live.id,
                loser, 3 - loser)
    svc.hub.publish(live.id)
    return True


class ClockKeeper:
    """A server's clock duties: the heartbeat, and flagging games out of time."""

    def __init__(self, svc: GameService) -> None:
        self.svc = svc
        self.tasks: list[asyncio.Task[Any]] = []
        self.flagged = 0
        #: games whose flagging failed -> when (time.monotonic) to try them again
        self.failed: dict[str, float] = {}
        #: the duties ("heartbeat", "clock check") failing now: a store that stays down (a
        #: full disk) is logged once, not twice a second, and again when it works
        self.failing: set[str] = set()
        #: the wall clock and the monotonic clock when last read (``woke``)
        self.clocks = (time.time(), time.monotonic())
        self.waking = asyncio.Lock()

    def _failed(self, duty: str, exc: Exception) -> None:
        if duty not in self.failing:
            log.warning("stonegarden: %s failed: %s (said once until it works again)", duty,
                        exc)
        self.failing.add(duty)

    def _worked(self, duty: str) -> None:
        if duty in self.failing:
            self.failing.discard(duty)
            log.warning("stonegarden: %s works again", duty)

    async def start(self) -> float:
        """Record this server as up, moving running clocks on by the time no server ran;
        returns that time (0 when another server was up)."""
        down = await asyncio.to_thread(self.svc.store.heartbeat, time.time(), HEARTBEAT_GRACE)
        if down:
            log.warning("stonegarden: no server ran for %.0f s: running clocks moved on by that "
                        "time", down)
        loop = asyncio.get_running_loop()
        self.tasks = [loop.create_task(self._beat()), loop.create_task(self._watch())]
        return down

    async def woke(self) -> None:
        """After the machine slept (the wall clock went on more than ``HEARTBEAT_GRACE``
        beyond the monotonic clock, which stands still meanwhile), move the running clocks
        on by the time no server ran, as a start does, before any is flagged or beaten; the
        games in memory whose clocks moved are read again. Its first caller after the wake
        does it (the heartbeat and the clock check wake together).

        Raises:
            StoreError: the store failed (the next caller tries again).
        """
        async with self.waking:
            wall, mono = time.time(), time.monotonic()
            slept = (wall - self.clocks[0]) - (mono - self.clocks[1])
            if slept > HEARTBEAT_GRACE:
                down = await asyncio.to_thread(self.svc.store.heartbeat, wall, HEARTBEAT_GRACE)
                if down:
                    log.warning("stonegarden: the machine slept and no server ran for %.0f s: "
                                "running clocks moved on by that time", down)
                # moved by this process or by another that woke first (the same machine's,
                # sharing a PostgreSQL database), the clocks held here are read again
                for live in list(self.svc.live.values()):
                    if live.over is None and stored(live.clock, abort_deadline(
                            live, live.state, live.history.movers, live.clock))[1]:
                        self.svc.invalidate(live.id)
                        self.svc.hub.publish(live.id)  # its pages read it again
            self.clocks = (wall, mono)

    async def _beat(self) -> None:
        while True:
            await asyncio.sleep(HEARTBEAT_EVERY)
            try:
                await self.woke()
                await asyncio.to_thread(self.svc.store.heartbeat, time.time(), math.inf)
            except Exception as exc:  # a database hiccup: try again next beat
                self._failed("heartbeat", exc)
            else:
                self._worked("heartbeat")

    async def _watch(self) -> None:
        while True:
            await asyncio.sleep(TICK)
            await self.check()

    async def check(self) -> None:
        """Flag every game whose time ran out. A game that cannot be read or ended (a damaged
        row) is left alone for ``RETRY_FAILED`` seconds; it does not hold up the others."""
        now = time.monotonic()
        self.failed = {gid: t for gid, t in self.failed.items() if t > now}
        try:
            await self.woke()  # the time a machine slept is no one's to lose
            due = await asyncio.to_thread(self.svc.store.due, time.time(),
                                          100 + len(self.failed))
        except Exception as exc:  # a database hiccup: next tick
            self._failed("clock check", exc)
            return
        self._worked("clock check")
        for gid in due:
            if gid in self.failed:
                continue
            try:
                if await flag(self.svc, await self.svc.load(gid)):
                    self.flagged += 1
            except Exception as exc:
                self.failed[gid] = time.monotonic() + RETRY_FAILED
                log.warning("stonegarden: clock check of game %s failed (again in %.0f s): "
                            "%s", gid, RETRY_FAILED, exc)

    async def stop(self) -> None:
        for t in self.tasks:
            t.cancel()
        for t in self.tasks:
            with contextlib.suppress(asyncio.CancelledError, Exception):
                await t
        self.tasks = []
