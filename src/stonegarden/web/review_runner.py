"""The computer's analysis on the server: who may see it, starting it, and the task that runs
its jobs (``review_job.py``'s ``engine-review``) a chunk of positions at a time and stores the
points after each, so a restart loses at most one chunk.

One task a game at most, in one server process of those sharing a database: the one holding
the store's claim on it (``Store.claim_analysis``), renewed while it runs; the others show it
running (its points as they are stored) and take it up when asked once the claim is given up
or has run out (its process was killed). Asking again while it runs only reports progress. A
chunk whose positions an undo changed meanwhile is thrown away and analysed again. The client
that asked for it, or a player of the game, may cancel it, through any process: the job running
is stopped and its positions dropped, as a restart drops them, and the positions stored before
are kept.
"""

from __future__ import annotations

import asyncio
import contextlib
import time
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from ..errors import JobError, StoreError
from ..store import AnalysisClaim, StaleError
from . import review_job
from .http import ApiError
from .live import Live
from .seats import may_see_analysis

if TYPE_CHECKING:
    from .service import GameService

#: the key of a game's analysis task in ``Live.pending``
TASK = "review"
#: seconds a cancel waits for the analysis' task to end (it ends at once, or once a store
#: write under way is done), so that its answer says the analysis stopped
CANCEL_WAIT = 5.0
#: seconds a claim to run a game's analysis holds unless renewed: the process running it
#: renews it every ``RENEW`` seconds; a killed process's claim runs out after at most this
CLAIM_SECONDS = 20.0
RENEW = 5.0


class Reviewer:
    """The analysis of the service's games (``GameService.reviewer``)."""

    def __init__(self, service: GameService) -> None:
        self.service = service
        #: games whose claim a run that ended here is giving up
        self._releasing: dict[str, asyncio.Future[None]] = {}

    def analysis(self, live: Live, seat: int | None, client: str = "") -> dict[str, Any]:
        """The analysis so far: ``{"engine", "done", "running", "queued", "waiting", "error",
        "cancelled", "can_cancel", "of", "capped", "points"}``; ``queued`` while its job waits
        for a free worker, ``waiting`` the jobs queued before it, ``cancelled`` once a person
        cancelled it (until it is asked for again), ``can_cancel`` whether this viewer (its
        ``seat``, its ``client``) may cancel it now, ``capped`` where the game has more moves
        than the analysis covers (``review_job.MAX_PLIES``).

        Raises:
            ApiError: 403 where ``seats.may_see_analysis`` says no.
        """
        _check_access(live, seat)
        r = live.review
        other = live.analysing_elsewhere
        wanted = review_job.wanted(len(live.moves))
        capped = len(live.moves) > review_job.MAX_PLIES
        if r is None:
            return {"engine": None, "done": False, "running": False, "queued": False,
                    "waiting": 0, "error": "", "cancelled": False, "can_cancel": False,
                    "of": len(wanted), "capped": capped, "points": []}
        points = review_job.judged(r, live.moves, live.history.movers)
        queued = r.running and r.job is not None and r.job.state == "queued"
        running = r.running or other is not None  # here, or in another server process
        done = not running and all(p in r.points for p in wanted)
        return {"engine": r.engine, "done": done,
                "running": running, "queued": queued,
                "waiting": self.service.jobs.waiting_before(r.job) if queued and r.job else 0,
                "error": "" if other is not None else r.error,
                # a cancel that came as its last job ended stopped nothing: it is done
                "cancelled": r.cancelled and not running and not done,
                "can_cancel": ((r.running and may_cancel(r, seat, client))
                               or (other is not None and may_cancel(other, seat, client))),
                "of": len(wanted), "capped": capped, "points": points}

    async def request(self, live: Live, secret: Any, client: str) -> dict[str, Any]:
        """Start (or continue) the analysis of every position not analysed yet, in jobs.

        Raises:
            ApiError: 403 where ``seats.may_see_analysis`` says no, 409 a game over before
            its first move, 429 no room in the job queue.
        """
        svc = self.service
        seat = svc.seat_of(live, secret)
        _check_access(live, seat)
        if nothing_to_analyse(live):
            raise ApiError(409, "there is nothing to analyse: the game was over before its "
                                "first move")
        await self._start(live, client)
        return self.analysis(live, seat, client)

    async def cancel(self, live: Live, secret: Any, client: str) -> dict[str, Any]:
        """Cancel the running analysis for the client that asked for it or a player of the
        game (a seat's ``secret``): its job is stopped (its worker is free within
        milliseconds, or ended after the pool's grace) and the positions of that job dropped,
        as a restart drops them; the positions stored before are kept, and asking again goes
        on from them. Answers as ``analysis`` once the task has ended.

        Raises:
            ApiError: 403 for anyone else (and for a secret that is not a seat's), 409 when
            no analysis of the game runs (in any server process).
        """
        svc = self.service
        seat = svc.seat_of(live, secret)
        if secret not in (None, "") and seat is None:
            raise ApiError(403, "that is not a secret of this game's seats")
        r = live.review
        task = live.pending.get(TASK)
        here = r is not None and r.running and task is not None
        other = None if here else await self._other_claim(live)
        holder = other if other is not None else r
        if seat is None and (holder is None or not may_cancel(holder, seat, client)):
            raise ApiError(403, "only who asked for the analysis (from the same address), or "
                                "a player of the game with the seat's secret, may cancel it")
        if other is not None:
            return await self._cancel_elsewhere(live, other, seat, client)
        if r is None or task is None or not here:
            raise ApiError(409, "no analysis of this game is running: it has ended")
        r.cancelled = True
        if r.job is not None:
            svc.jobs.cancel(r.job)  # ``_run`` ends once its job answers: see there
        # the task ends as soon as its job is cancelled, or its store write is done
        await asyncio.wait([task], timeout=CANCEL_WAIT)
        return self.analysis(live, seat if may_see_analysis(live, seat) else None, client)

    async def _cancel_elsewhere(self, live: Live, other: AnalysisClaim, seat: int | None,
                                client: str) -> dict[str, Any]:
        """Cancel the analysis another server process runs: its claim is marked cancelled,
        that process stops it and gives the claim up; answers once it has (or after
        ``CANCEL_WAIT``), with the points it stored."""
        svc = self.service
        store = svc.store
        claim = None
        try:
            await asyncio.to_thread(store.cancel_analysis, live.id, time.time())
            t0 = time.monotonic()
            while time.monotonic() - t0 < CANCEL_WAIT:
                claim = await asyncio.to_thread(store.analysis_claim, live.id)
                # given up (kept as the cancelled run's), or claimed afresh meanwhile
                if claim is None or claim.owner != other.owner or not claim.cancelled:
                    break
                await asyncio.sleep(0.1)
            stored = await asyncio.to_thread(store.get_analysis, live.id)
        except StoreError as exc:
            raise ApiError(503, str(exc)) from None
        r = live.review = (review_points(live, *stored) if stored is not None
                           else review_job.Review(review_job.ENGINE))
        r.cancelled, r.client = True, other.client
        self.heard(live, claim)
        svc.hub.publish(live.id)
        return self.analysis(live, seat if may_see_analysis(live, seat) else None, client)

    async def _other_claim(self, live: Live) -> AnalysisClaim | None:
        """Another process's claim on the game's analysis, read now (``None`` where the
        store cannot say)."""
        try:
            claim = await asyncio.to_thread(self.service.store.analysis_claim, live.id)
        except StoreError:
            return None
        self.heard(live, claim)
        return live.analysing_elsewhere

    def heard(self, live: Live, claim: AnalysisClaim | None) -> None:
        """Hold ``claim`` as another process's running analysis of ``live`` where it is one
        (another owner, not run out): shown running here; read again when it would run out
        (renewed, it goes on; else it is offered again). A run a person cancelled, through
        whichever process, shows cancelled here too (``AnalysisClaim.ended_cancelled``)."""
        svc = self.service
        now = time.time()
        r = live.review
        if claim is not None and claim.ended_cancelled and not (r is not None and r.running):
            if r is None:
                r = live.review = review_job.Review(review_job.ENGINE)
            r.cancelled = True
        if claim is None or claim.owner == svc.turns.owner or claim.expires <= now:
            if live.analysing_elsewhere is not None:
                live.analysing_elsewhere = None
                svc.hub.publish(live.id)
            return
        if live.review is None:
            live.review = review_job.Review(review_job.ENGINE)
        live.review.client = claim.client  # who asked for it last: they may cancel it here
        live.analysing_elsewhere = claim
        svc.in_background(self._recheck(live, claim))

    async def _recheck(self, live: Live, claim: AnalysisClaim) -> None:
        await asyncio.sleep(max(0.0, claim.expires - time.time()) + 0.5)
        svc = self.service
        if live.analysing_elsewhere is not claim or svc.closing:
            return  # heard of since: that claim's own check follows
        with contextlib.suppress(StoreError):
            fresh = await asyncio.to_thread(svc.store.analysis_claim, live.id)
            if live.analysing_elsewhere is claim:
                self.heard(live, fresh)
                svc.hub.publish(live.id)

    def cancelled_elsewhere(self, live: Live) -> None:
        """A person cancelled, through another process, the analysis running here: stop it
        (its task gives up the claim as it ends)."""
        r = live.review
        if r is not None and r.running and live.pending.get(TASK) is not None:
            r.cancelled = True
            if r.job is not None:
                self.service.jobs.cancel(r.job)

    async def give_up_claims(self) -> None:
        """At shutdown: another process may take up the analyses running here at once."""
        svc = self.service
        with contextlib.suppress(StoreError):
            await asyncio.to_thread(svc.store.release_analysis, "", svc.turns.owner)

    async def resume(self, live: Live, client: str) -> None:
        """Go on with an analysis that ``client`` asked for and that this process stopped
        unasked (it read the game again, having missed another process's changes while the
        database restarted); a client with no room in the job queue now finds the analysis
        stopped, saying so."""
        try:
            await self._start(live, client)
        except ApiError as exc:
            if live.review is not None:
                live.review.error = f"the analysis stopped: {exc.message}; ask for it again"
                self.service.hub.publish(live.id)

    async def _start(self, live: Live, client: str) -> None:
        """Start the analysis task of ``live`` for ``client`` unless it runs (here, or in the
        process holding the store's claim on it) or is done.

        Raises:
            ApiError: 429 no room in the job queue.
        """
        svc = self.service
        r = live.review
        if r is None:
            r = live.review = review_job.Review(review_job.ENGINE)
        wanted = review_job.wanted(len(live.moves))
        if r.running or all(p in r.points for p in wanted):
            return
        release = svc.admit(client)
        # held while the claim is asked for: a second request here starts nothing meanwhile
        r.running, r.error, r.cancelled, r.client = True, "", False, client
        releasing = self._releasing.get(live.id)
        if releasing is not None:  # this process's run before: its release comes first
            await asyncio.wait([releasing])
        now = time.time()
        try:
            claim = await asyncio.to_thread(svc.store.claim_analysis, live.id, svc.turns.owner,
                                            client, now, now + CLAIM_SECONDS)
        except StoreError:
            claim = None  # the store cannot say: run here (it stores nothing meanwhile)
        if claim is not None and claim.owner != svc.turns.owner:
            r.running = False  # another process runs it: shown running here
            release()
            self.heard(live, claim)
            svc.hub.publish(live.id)
            return
        live.analysing_elsewhere = None
        task = asyncio.get_running_loop().create_task(self._run(live, r, client, release))
        live.pending[TASK] = task
        task.add_done_callback(lambda _t: live.pending.pop(TASK, None))
        svc.hub.publish(live.id)

    @staticmethod
    def stop(live: Live) -> None:
        """Cancel the game's analysis task, if one runs (its job is cancelled with it)."""
        task = live.pending.get(TASK)
        if task is not None:
            task.cancel()

    async def _run(self, live: Live, r: review_job.Review, client: str,
                   release: Callable[[], None]) -> None:
        """Analyse the missing positions a chunk a job (each job after the first continues
        what was admitted; the place ``release`` holds is let go once the first is queued,
        and each job keeps it until the next is queued), storing the points after each."""
        svc = self.service
        job = None
        holding = asyncio.get_running_loop().create_task(self._hold_claim(live, r))
        try:
            while not svc.closing and not r.cancelled:
                missing = [p for p in review_job.wanted(len(live.moves)) if p not in r.points]
                if not missing:
                    break
                chunk = missing[:review_job.CHUNK]
                # up to the move after the chunk's last position: its value there counts
                prefix = list(live.moves[:chunk[-1] + 1])
                args = {"game": live.game.id, "params": dict(live.game.non_default_params()),
                        "moves": prefix, "plies": chunk, "spec": r.engine}
                before = job
                job = svc.jobs.submit("engine-review", args, client=client, force=True,
                                      deadline=svc.budgets.analysis_seconds,
                                      memory=svc.budgets.job_memory, keep_place=True)
                release()
                if before is not None:  # the client's place passes from job to job
                    svc.jobs.let_go(before)
                r.job = job
                try:
                    found = await job.result()
                except asyncio.CancelledError:
                    svc.jobs.cancel(job)
                    current = asyncio.current_task()
                    if not r.cancelled or (current is not None and current.cancelling()):
                        raise  # the task itself was cancelled (an undo, the server stops)
                    break  # a person cancelled the job (``cancel``): its positions go
                finally:
                    r.job = None
                if live.moves[:len(prefix)] != prefix or live.review is not r:
                    continue  # an undo meanwhile: those positions may be others now
                if not found:
                    r.error = "the analysis made no progress within its deadline"
                    break
                # kept once stored: points the store refused are analysed again when asked
                # for again (held here, they would show the analysis done, and be lost)
                points = {**r.points, **{int(p["ply"]): p for p in found}}
                try:  # stored only while the game's moves are still the ones analysed
                    await asyncio.to_thread(svc.store.put_analysis, live.id, r.engine,
                                            [points[p] for p in sorted(points)], prefix)
                except StaleError:
                    if live.moves[:len(prefix)] != prefix or live.review is not r:
                        continue  # an undo here meanwhile: the loop looks again
                    raise StoreError("the game changed in another server process; ask for "
                                     "it again") from None
                if live.moves[:len(prefix)] == prefix and live.review is r:
                    r.points = points  # (an undo meanwhile: the loop looks again)
                svc.hub.publish(live.id)
        except JobError as exc:
            r.error = f"the analysis stopped: {exc}"
        except StoreError as exc:
            r.error = f"the analysis could not be stored: {exc}"
        finally:
            holding.cancel()
            release()
            if job is not None:
                svc.jobs.let_go(job)
            r.running = False
            svc.hub.publish(live.id)
            # the others may take it up, and show it stopped (a shutdown's own give-up, or
            # the claim running out, covers a release that cannot be written now). Not
            # waited for: a cancel answers as soon as the task ends, before its pages (told
            # above) ask again; a claim asked for here again waits for it (same owner)
            releasing = asyncio.ensure_future(asyncio.to_thread(
                svc.store.release_analysis, live.id, svc.turns.owner, r.cancelled))
            self._releasing[live.id] = releasing
            releasing.add_done_callback(lambda f: self._forget_release(live.id, f))

    def _forget_release(self, game_id: str, releasing: asyncio.Future[None]) -> None:
        if self._releasing.get(game_id) is releasing:
            del self._releasing[game_id]
        if not releasing.cancelled():
            releasing.exception()  # retrieved: a store that failed is the claim running out

    async def _hold_claim(self, live: Live, r: review_job.Review) -> None:
        """Renew this process's claim while the analysis runs; a claim cancelled through
        another process (or lost) stops it here."""
        svc = self.service
        while r.running:
            await asyncio.sleep(RENEW)
            try:
                claim = await asyncio.to_thread(svc.store.renew_analysis, live.id,
                                                svc.turns.owner, time.time() + CLAIM_SECONDS)
            except StoreError:
                continue  # the store is away: its claim may run out, its points not stored
            if claim is None or claim.cancelled:
                r.cancelled = True
                if claim is None:  # run out while the store was away, and taken up elsewhere
                    r.error = "the analysis stopped here: another server process runs it"
                if r.job is not None:
                    svc.jobs.cancel(r.job)
                return


def review_points(live: Live, engine: str, points: list[dict[str, Any]]) -> review_job.Review:
    """A stored analysis of ``live``, the points of its positions: a point without a value is
    a roll's, stored before rolls were valued, which is analysed again when the analysis is
    asked for again."""
    return review_job.Review(engine, {
        int(p["ply"]): p for p in points
        if isinstance(p.get("ply"), int) and 0 <= p["ply"] <= len(live.moves)
        and p.get("p1_win") is not None})


def may_cancel(review: review_job.Review | AnalysisClaim, seat: int | None, client: str) -> bool:
    """Whether a request may cancel ``review`` (or the analysis another process's claim
    runs): one from the client that asked for it last (the per-client limits' key: its jobs
    are that client's), or with a seat's secret."""
    return seat is not None or (bool(client) and client == review.client)


def nothing_to_analyse(live: Live) -> bool:
    """A game over by its rules before its first move (Blobs with one die): its one position
    has no player to move, no move to find nor to judge."""
    return not live.moves and live.game.is_terminal(live.state)


def _check_access(live: Live, seat: int | None) -> None:
    """Raises: ApiError 403 where ``may_see_analysis`` says no."""
    if not may_see_analysis(live, seat):
        raise ApiError(403, "the computer's analysis opens once the game is over (while "
                            "it goes on, to its players only where both agreed to hints, and "
                            "to spectators also in a game against an agent)")
