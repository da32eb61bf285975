"""Changes other server processes make to the games this one holds (the store's
notifications, ``Store.listen``): pages watching a game here are told, a game held here is
brought up to date from its row, and anything that cannot be followed is read again when next
asked for."""

from __future__ import annotations

import asyncio
import contextlib
from typing import TYPE_CHECKING

from ..errors import StonegardenError, StoreError
from .http import ApiError
from .live import LOBBY, Live
from .review_runner import review_points
from .time_control import Clock

if TYPE_CHECKING:
    from .service import GameService


class Elsewhere:
    """Other processes' changes to the service's games (``GameService.elsewhere``)."""

    def __init__(self, service: GameService) -> None:
        self.service = service
        #: games being caught up -> whether another change came in since that read began
        self._behind: dict[str, bool] = {}
        #: games whose analysis is being read again -> the newest of those reads (only its
        #: answer is applied: an older one may have read a claim given up since)
        self._analysis_reads: dict[str, object] = {}

    def changed(self, what: str, game_id: str) -> None:
        """A change another server process made (the store's notification): pages watching
        it here are told, and the lobby's when it changed."""
        svc = self.service
        if what in ("think", "cancel"):
            live = svc.live.get(game_id)
            if live is not None and what == "think":  # its thinker stopped: think here now
                svc.turns.claim_given_up(live)
            elif live is not None:  # a person cancelled the agent's thinking elsewhere
                svc.turns.cancelled_elsewhere(live)
                svc.hub.publish(game_id)
            return
        if what == "analysis":  # another process analyses it: its points and claim, read again
            live = svc.live.get(game_id)
            if live is None:  # a read of the game under way may have read the claim before
                svc.invalidate(game_id)  # this change: it reads again
            elif not (live.review is not None and live.review.running):
                svc.in_background(self._analysis_read(live))
            return
        if what == "analysis-cancel":  # a person cancelled it elsewhere: stopped if it runs here
            live = svc.live.get(game_id)
            if live is not None:
                svc.reviewer.cancelled_elsewhere(live)
            return
        if what == "lost":  # changes may have been missed: forget every game
            thinking = [gid for gid, live in svc.live.items() if live.thinking is not None]
            # an analysis running here goes on once its game is read again, for its client
            analysing = {gid: live.review.client for gid, live in svc.live.items()
                         if live.review is not None and live.review.running}
            for gid in list(svc.live):
                svc.invalidate(gid)
                svc.hub.publish(gid)
            svc.hub.publish(LOBBY)
            for gid in dict.fromkeys([*thinking, *analysing]):
                # read again: an agent still to move thinks again
                svc.in_background(self._reload(gid, analysing.get(gid)))
            return
        # a private game changes no lobby; a name may be a waiting game's creator's
        if what in ("lobby", "join", "withdraw", "name"):
            svc.hub.publish(LOBBY)
        live = svc.live.get(game_id)
        # a new name or a rematch offered leaves the moves alone: an agent thinking here goes
        # on (dropping the game would stop it, and no process would start it again)
        busy = live is not None and (live.thinking is not None or bool(live.pending))
        if (what == "withdraw" or live is None
                or (busy and what not in ("name", "rematch"))):
            svc.invalidate(game_id)
            svc.hub.publish(game_id)
            return
        # a game held here: bring it up to date from its row (the new moves only, instead of
        # replaying the whole game), then tell its pages; one read at a time a game, however
        # many changes arrive meanwhile (a read after the last of them sees them all)
        if game_id in self._behind:
            self._behind[game_id] = True
            return
        self._behind[game_id] = False
        svc.in_background(self._catch_up_all(live))

    async def _catch_up_all(self, live: Live) -> None:
        try:
            while True:
                await self._catch_up(live)
                if not self._behind.get(live.id):
                    return
                self._behind[live.id] = False
        finally:
            self._behind.pop(live.id, None)

    async def _reload(self, game_id: str, analyse_for: str | None = None) -> None:
        """Read a game again (its agent thinks if it is to move; its analysis goes on for
        ``analyse_for``, the client that asked for it); a game gone or damaged is left to its
        next request."""
        with contextlib.suppress(ApiError):
            live = await self.service.load(game_id)
            if analyse_for is not None:
                await self.service.reviewer.resume(live, analyse_for)

    async def _analysis_read(self, live: Live) -> None:
        """The analysis another process stored, in place of the one held here (which it
        extends: that process analysed the same moves, or an undo there changed them, and
        the move's own notice reads the game again), and whether one runs it now; its pages
        are told. Of the reads a burst of changes starts (a run's last points, then its
        release), only the newest is applied: an older one, answered late, would hold the
        claim given up since as running here until that claim would have run out."""
        svc = self.service
        self._analysis_reads[live.id] = this = object()
        try:
            claim = await asyncio.to_thread(svc.store.analysis_claim, live.id)
            stored = await asyncio.to_thread(svc.store.get_analysis, live.id)
        except StoreError:
            return  # a damaged row is left out, as when the game is read
        finally:
            newest = self._analysis_reads.get(live.id) is this
            if newest:
                del self._analysis_reads[live.id]
        if not newest:
            return  # a later change's read, begun meanwhile, applies what it read
        r = live.review
        if svc.live.get(live.id) is not live or (r is not None and r.running):
            return  # let go meanwhile, or analysing here now: its own points
        if stored is not None:
            live.review = review_points(live, *stored)
            if r is not None:
                live.review.client = r.client
        elif r is not None:  # a cancel is the claim's to say (``heard``): a new run clears it
            r.cancelled = False
        svc.reviewer.heard(live, claim)
        svc.hub.publish(live.id)

    async def brought_up_to_date(self, live: Live, client: str = "") -> Live:
        """``live`` with the changes stored since it was read (another process's, whose notice
        has not arrived yet): its new moves, or the game read again.

        Raises:
            ApiError: 404 gone, 503 damaged, as when a game is first read.
        """
        await self._catch_up(live)
        return await self.service.load(live.id, client)

    async def _catch_up(self, live: Live) -> None:
        """Apply another process's change to ``live``: its new moves, seats, names, clock and
        end; anything else (undo, a row that does not extend ours) reads the game again."""
        svc = self.service
        gid = live.id
        try:
            async with live.lock:
                row = await asyncio.to_thread(svc.store.get, gid)
                n = len(live.moves)
                if (row is None or svc.live.get(gid) is not live or row.game != live.game.id
                        or tuple(row.moves[:n]) != tuple(live.moves)):
                    svc.invalidate(gid)
                else:
                    if len(row.moves) > n:  # moved on elsewhere: a pause here is over
                        live.paused, live.notice = False, ""
                    for text in row.moves[n:]:
                        live.history.push(text, live.game.play_text(live.state, text))
                    live.seats, live.names, live.redo = row.seats, row.names, list(row.redo)
                    live.clock = Clock.from_store(row.clock) if row.clock else None
                    live.over = (row.result if row.result
                                 and not live.game.is_terminal(live.state) else None)
                    live.rematch = row.rematch
        except (StoreError, StonegardenError):
            svc.invalidate(gid)
        svc.hub.publish(gid)
