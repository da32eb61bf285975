"""Another server process's analysis changes (the store's ``analysis`` notices) against the
reads of the store they start, in process: two services on one SQLite store stand for two
processes, the notices handed to the viewer as its store's listener would, and a read of the
claim held back until the test lets it answer stands for a loaded machine."""

from __future__ import annotations

import asyncio
import threading
import time

from test_claims import RecordingPool

from stonegarden.store import open_store
from stonegarden.web.service import GameService

OWNER = "the-other-process"


class HeldBackRead:
    """The store's next read of a claim reads at once and answers once ``answer`` is set."""

    def __init__(self, store) -> None:
        self.has_read, self.answer = threading.Event(), threading.Event()
        read = store.analysis_claim

        def held_back(game_id):
            claim = read(game_id)
            if not self.has_read.is_set():
                self.has_read.set()
                self.answer.wait(10)
            return claim

        store.analysis_claim = held_back

    async def read(self) -> None:
        assert await asyncio.to_thread(self.has_read.wait, 10)


def notice(svc: GameService, game_id: str) -> asyncio.Future[None]:
    """Hand ``svc`` another process's ``analysis`` notice; the read it starts."""
    started: list[asyncio.Future[None]] = []
    keep = svc.in_background
    svc.in_background = lambda work: started.append(asyncio.ensure_future(work))
    try:
        svc.elsewhere.changed("analysis", game_id)
    finally:
        svc.in_background = keep
    (read,) = started
    return read


async def viewer_of_a_running_analysis(tmp_path):
    store = open_store(str(tmp_path / "g.db"))
    svc = GameService(store, RecordingPool())
    live, _ = await svc.create("blooms", {"size": 3}, ["human", "human"], "c", hints=True)
    store.claim_analysis(live.id, OWNER, "c", time.time(), time.time() + 60)
    return store, svc, live


def test_a_run_released_as_its_last_points_are_read_shows_done_not_running(tmp_path):
    """Its last points and its release come as two notices at once: the read the first
    starts, answered after the second's, held the claim given up since, and the analysis
    showed running (for every position) until that claim would have run out."""
    async def main() -> None:
        store, svc, live = await viewer_of_a_running_analysis(tmp_path)
        await notice(svc, live.id)  # the claim: heard, shown running
        assert svc.reviewer.analysis(live, 1)["running"]
        held = HeldBackRead(store)
        store.put_analysis(live.id, "mcts", [{"ply": 0, "p1_win": 0.5}])
        points_read = notice(svc, live.id)
        await held.read()  # it read the claim as it was: running
        store.release_analysis(live.id, OWNER)
        await notice(svc, live.id)
        held.answer.set()
        await points_read  # answered last
        shown = svc.reviewer.analysis(live, 1)
        assert not shown["running"] and shown["done"], shown
        await svc.close()

    asyncio.run(main())


def test_a_run_released_while_its_game_is_read_shows_not_running(tmp_path):
    """A page opened the game as the run ended: the read of the game, whose claim was read
    before the release, held it running until that claim would have run out."""
    async def main() -> None:
        store, svc, live = await viewer_of_a_running_analysis(tmp_path)
        svc.invalidate(live.id)  # not held here: the page's request reads it
        held = HeldBackRead(store)
        load = asyncio.ensure_future(svc.load(live.id))
        await held.read()
        store.release_analysis(live.id, OWNER)
        svc.elsewhere.changed("analysis", live.id)
        held.answer.set()
        shown = svc.reviewer.analysis(await load, 1)
        assert not shown["running"], shown
        await svc.close()

    asyncio.run(main())
