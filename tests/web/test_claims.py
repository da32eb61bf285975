"""The claim to think, against the await it puts between an agent's turn and its job: a game
dropped from memory, or a shutdown, while the claim is written. In process, with a job pool
that only records what it is given."""

from __future__ import annotations

import asyncio
import threading
import time
from collections.abc import Callable

from webhelpers import first_legal

from stonegarden.store import open_store
from stonegarden.web import study_tools
from stonegarden.web.service import GameService

LONG = {"size": 3, "target": 60}


class RecordedJob:
    def __init__(self) -> None:
        self.state = "running"
        self.started = time.monotonic()
        self.on_start: list[Callable[[], None]] = []
        self.cancelled = False
        self.answer: asyncio.Future[str] = asyncio.get_running_loop().create_future()

    async def result(self) -> str:
        return await self.answer


class RecordingPool:
    """What the service submits, and whether it cancelled it; no job ever answers."""

    def __init__(self) -> None:
        self.submitted: list[RecordedJob] = []

    def submit(self, kind, args, **options):
        job = RecordedJob()
        self.submitted.append(job)
        return job

    def cancel(self, job: RecordedJob) -> None:
        job.cancelled = True

    def reserve(self, client: str):
        return lambda: None

    def let_go(self, job: RecordedJob) -> None:
        pass

    def waiting_before(self, job: RecordedJob) -> int:
        return 0

    async def close(self) -> None:
        pass


class HeldClaims:
    """The store's claims wait, once their write has begun, until ``release()``: what the
    test does meanwhile happens while a claim is written, however loaded the machine (fixed
    pauses raced its play to the claim, and the claim's write to what the test did)."""

    def __init__(self, store) -> None:
        claim = store.claim_thinking
        self.writing, self.released = threading.Event(), threading.Event()

        def held(*args):
            self.writing.set()
            self.released.wait(30)
            return claim(*args)

        store.claim_thinking = held

    async def written(self) -> None:
        """Once a claim's write has begun (in its thread)."""
        deadline = time.monotonic() + 30
        while not self.writing.is_set():
            assert time.monotonic() < deadline, "no claim was written"
            await asyncio.sleep(0.01)

    def release(self) -> None:
        self.released.set()


def test_a_game_dropped_while_its_claim_is_written_starts_no_job(tmp_path):
    """Its job would run for a copy no one serves, beside the copy read again."""
    async def main() -> None:
        store = open_store(str(tmp_path / "g.db"))
        jobs = RecordingPool()
        svc = GameService(store, jobs)
        live, keys = await svc.create("blooms", LONG, ["human", "mcts"], "c")
        claims = HeldClaims(store)
        play = asyncio.ensure_future(svc.play(live, keys["1"], first_legal("blooms", LONG, []),
                                              None, "c"))
        await claims.written()
        svc.invalidate(live.id)  # another process's change, while the claim is written
        claims.release()
        await play
        again = await svc.load(live.id)  # the page reads the game again: its agent thinks
        assert again is not live and again.thinking is not None
        assert len([j for j in jobs.submitted if not j.cancelled]) == 1
        await svc.close()

    asyncio.run(main())


def test_a_claim_won_during_the_shutdown_is_given_up(tmp_path):
    """Left in the store, it would hold the other processes back for the claim's length."""
    async def main() -> None:
        store = open_store(str(tmp_path / "g.db"))
        svc = GameService(store, RecordingPool())
        live, keys = await svc.create("blooms", LONG, ["human", "mcts"], "c")
        claims = HeldClaims(store)
        play = asyncio.ensure_future(svc.play(live, keys["1"], first_legal("blooms", LONG, []),
                                              None, "c"))
        await claims.written()
        await svc.close()  # gives up this process's claims: before this claim is written
        claims.release()
        await play
        assert store.claim_thinking(live.id, 1, "another", time.time(), time.time() + 9)[0]

    asyncio.run(main())


def test_a_game_another_process_thinks_for_shows_that_search_within_its_limit(tmp_path):
    """Two services on one store stand for two processes: the one without the claim shows
    the agent thinking elsewhere, timed from the holder's claim and never past the limit
    (the holder stops its search there, or died)."""
    from stonegarden.web.service import Budgets

    async def main() -> None:
        store = open_store(str(tmp_path / "g.db"))
        budgets = Budgets(max_think=2.0)
        holder = GameService(store, RecordingPool(), budgets)
        other = GameService(store, RecordingPool(), budgets)
        live, keys = await holder.create("blooms", LONG, ["human", "mcts"], "c")
        await holder.play(live, keys["1"], first_legal("blooms", LONG, []), None, "c")
        assert holder.turns.describe(live)["elsewhere"] is False
        await asyncio.sleep(0.5)
        shown = other.turns.describe(await other.load(live.id))
        assert shown["elsewhere"] is True and 0.4 <= shown["elapsed"] <= 2.0
        for svc in (holder, other):
            await svc.close()

    asyncio.run(main())


def test_a_claim_outlasts_its_jobs_wait_in_the_queue(tmp_path, monkeypatch):
    """A busy server's job may wait for a worker longer than the claim's grace: its process
    renews the claim meanwhile, so another process does not search the same move too."""
    from stonegarden.web import agent_turns
    from stonegarden.web.service import Budgets

    # a claim of 1.7 s renewed every 0.75 s: a loaded machine may delay a renewal's write by
    # most of a second and the claim still holds
    monkeypatch.setattr(agent_turns, "THINK_GRACE", 1.5)

    async def main() -> None:
        store = open_store(str(tmp_path / "g.db"))
        budgets = Budgets(max_think=0.2)
        holder_jobs, other_jobs = RecordingPool(), RecordingPool()
        holder = GameService(store, holder_jobs, budgets)
        other = GameService(store, other_jobs, budgets)
        live, keys = await holder.create("blooms", LONG, ["human", "mcts"], "c")
        await holder.play(live, keys["1"], first_legal("blooms", LONG, []), None, "c")
        [job] = holder_jobs.submitted
        job.state = "queued"  # no worker free: the search has not begun
        await asyncio.sleep(4.0)  # well past the claim's first length, 1.7 s
        shown = await other.load(live.id)
        await asyncio.sleep(0.1)
        assert other_jobs.submitted == []
        assert shown.thinking is not None and shown.thinking.elsewhere
        job.state = "running"
        # the search's limit and grace pass without its move: the holder died, in effect
        deadline = time.monotonic() + 15
        while not other_jobs.submitted and time.monotonic() < deadline:
            await asyncio.sleep(0.1)
        assert len(other_jobs.submitted) == 1  # so the other process takes over
        for svc in (holder, other):
            await svc.close()

    asyncio.run(main())


def test_a_persons_pause_holds_on_every_process_and_after_a_restart(tmp_path):
    """Cancel the agent's thinking, then open the game through another process, or after
    the server restarted: the agent stays paused until someone lets it move."""
    async def main() -> None:
        store = open_store(str(tmp_path / "g.db"))
        first_jobs = RecordingPool()
        first = GameService(store, first_jobs)
        live, keys = await first.create("blooms", LONG, ["human", "mcts"], "c")
        await first.play(live, keys["1"], first_legal("blooms", LONG, []), None, "c")
        await study_tools.cancel(first, live, keys["1"])
        assert first_jobs.submitted[0].cancelled and live.paused
        other_jobs = RecordingPool()
        other = GameService(store, other_jobs)
        seen = await other.load(live.id)
        assert seen.paused and seen.thinking is None and "cancelled" in seen.notice
        await first.close()
        store.close()

        store = open_store(str(tmp_path / "g.db"))  # the server restarted
        again_jobs = RecordingPool()
        again = GameService(store, again_jobs)
        reread = await again.load(live.id)
        assert reread.paused and reread.thinking is None
        await asyncio.sleep(0.1)
        assert other_jobs.submitted == [] and again_jobs.submitted == []
        await study_tools.resume(again, reread, keys["1"], "c")  # "let it move"
        assert len(again_jobs.submitted) == 1 and not reread.paused
        await again.close()
        await other.close()

    asyncio.run(main())


class FullSharePool(RecordingPool):
    """A pool whose client share is full: only work already admitted (``force``) is taken."""

    def submit(self, kind, args, **options):
        from stonegarden.errors import QueueFullError

        if not options.get("force"):
            raise QueueFullError("you have 4 jobs waiting or running", 5)
        return super().submit(kind, args, **options)


def test_an_agent_taken_over_from_a_process_that_died_is_not_paused_by_a_full_share(
        tmp_path, monkeypatch):
    """The process holding the claim dies; the one that takes over continues the move the
    holder had admitted. It asked the queue anew, for the game's last client, and a full
    share paused the agent with "you have 4 jobs waiting or running"."""
    from stonegarden.web import agent_turns
    from stonegarden.web.service import Budgets

    monkeypatch.setattr(agent_turns, "THINK_GRACE", 0.2)

    async def main() -> None:
        store = open_store(str(tmp_path / "g.db"))
        budgets = Budgets(max_think=0.2)
        holder = GameService(store, RecordingPool(), budgets)
        other_jobs = FullSharePool()
        other = GameService(store, other_jobs, budgets)
        live, keys = await holder.create("blooms", LONG, ["human", "mcts"], "c")
        await holder.play(live, keys["1"], first_legal("blooms", LONG, []), None, "c")
        shown = await other.load(live.id)
        assert shown.thinking is not None and shown.thinking.elsewhere
        # the holder's limit and grace pass without its move (0.9 s here, or longer on a loaded
        # machine: awaited, not a fixed pause)
        deadline = time.monotonic() + 15
        while not (other_jobs.submitted or shown.paused) and time.monotonic() < deadline:
            await asyncio.sleep(0.05)
        assert len(other_jobs.submitted) == 1 and not shown.paused
        for svc in (holder, other):
            await svc.close()

    asyncio.run(main())
