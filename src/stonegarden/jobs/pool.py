"""The server's side of the workers: a bounded queue fair between clients, deadlines, cancel,
progress, and a pool that replaces a worker that dies.

Everything here runs on one asyncio event loop (the server's); two threads per worker only read
that worker's messages and hand them to the loop, and write the loop's to it (a worker that
does not read holds nothing up). Workers are started from the loop's thread, so their
parent-death signal follows the server (see ``worker.py``).
"""

from __future__ import annotations

import asyncio
import collections
import contextlib
import itertools
import json
import math
import os
import signal
import subprocess
import sys
import threading
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from queue import SimpleQueue
from typing import Any

from ..errors import JobError, QueueFullError
from .procs import descendants, resident

#: a worker that dies this soon after it started counts as a failed start (backing off)
HEALTHY_AFTER = 5.0
MAX_BACKOFF = 30.0
#: after this many failed starts in a row with no worker up, waiting jobs fail (they would
#: wait for ever); new workers are still tried, with the backoff
FAILED_STARTS = 5


@dataclass(frozen=True)
class Limits:
    """``queue``: jobs waiting, all clients together; ``per_client``: jobs one client may have
    waiting or running; ``running_per_client``: workers one client may hold at once (``None``:
    half the workers, at least one, so another client always finds one soon);
    ``kill_grace``: seconds a job may run on after its deadline or a cancel before its worker
    is ended (a search stops within milliseconds; this only catches one that does not)."""

    queue: int = 64
    per_client: int = 4
    running_per_client: int | None = None
    kill_grace: float = 30.0


class Job:
    """One job: its kind, arguments, client, deadline (seconds of running) and memory bound
    (bytes above what its worker used before), its state and progress. ``await job.result()``
    gives the kind's answer or raises :class:`JobError`."""

    def __init__(self, jid: int, kind: str, args: dict[str, Any], client: str,
                 deadline: float, memory: int | None) -> None:
        self.id = jid
        self.kind = kind
        self.args = args
        self.client = client
        self.deadline = deadline
        self.memory = memory
        self.state = "queued"  # running, done, failed, cancelled
        self.submitted = time.monotonic()
        self.started: float | None = None
        self.finished: float | None = None
        self.progress: Any = None
        #: its worker said it started it (a job sent to a worker that died before that is
        #: sent again, once)
        self.acknowledged = False
        self.attempts = 0
        #: the worker was asked to stop it (a cancel or the deadline) before it ended
        self.stopped = False
        #: called when a worker starts the job (a page showing it queued then shows it run)
        self.on_start: list[Callable[[], None]] = []
        #: its client's place is held on from its end until ``JobPool.let_go(job)``: work
        #: that goes on in another job (``submit(..., keep_place=True)``)
        self.keep_place = False
        self.holds_place = False
        self.future: asyncio.Future[Any] = asyncio.get_running_loop().create_future()
        # a job nobody waits for any more (its game moved on) may still fail: not an error
        self.future.add_done_callback(lambda f: f.cancelled() or f.exception())
        self._timers: list[asyncio.TimerHandle] = []

    async def result(self) -> Any:
        """The job's answer.

        Raises:
            JobError: it failed, was stopped without an answer, or its worker died.
            asyncio.CancelledError: it was cancelled.
        """
        return await asyncio.shield(self.future)

    def describe(self) -> dict[str, Any]:
        now = time.monotonic()
        return {"id": self.id, "kind": self.kind, "state": self.state,
                "waited": round((self.started or now) - self.submitted, 1),
                "ran": round(now - self.started, 1) if self.started else 0.0,
                "deadline": self.deadline, "progress": self.progress}


class _Worker:
    def __init__(self, proc: subprocess.Popen[bytes]) -> None:
        self.proc = proc
        self.started = time.monotonic()
        self.ready = False
        #: its warm-up's last progress report, until it is ready
        self.warming: dict[str, Any] = {}
        self.job: Job | None = None
        self.ended_by = ""  # why it ended, when not by dying: "deadline", "cancel", "retired"
        #: the lines for it, which its writer thread writes: a worker that does not read
        #: (stopped, hung) holds up neither the event loop nor the other workers
        self.outbox: SimpleQueue[bytes | None] = SimpleQueue()

    def send(self, message: dict[str, Any]) -> None:
        self.outbox.put(json.dumps(message, ensure_ascii=True).encode() + b"\n")

    def hang_up(self) -> None:
        """Close its standard input once what was sent before is written."""
        self.outbox.put(None)

    def write(self) -> None:
        """In its writer thread: the lines sent, in order, until it hangs up or dies (its
        reader thread reports that)."""
        stdin = self.proc.stdin
        assert stdin is not None
        while (line := self.outbox.get()) is not None:
            try:
                stdin.write(line)
                stdin.flush()
            except (OSError, ValueError):
                break
        with contextlib.suppress(OSError, ValueError):
            stdin.close()


class JobPool:
    """``workers`` worker processes that import ``modules`` (which register the job kinds).
    With ``warm_up`` (a job kind) each worker runs that kind before it takes any job (loading
    what jobs need, so that no job's deadline is spent on it), with ``{"slot", "slots"}``: its
    place among the workers started together; its progress is ``warm_up_states()``."""

    def __init__(self, workers: int = 2, modules: Sequence[str] = (),
                 limits: Limits | None = None, env: dict[str, str] | None = None,
                 warm_up: str | None = None) -> None:
        self.size = workers
        self.modules = tuple(modules)
        self.warm_up = warm_up
        self.limits = limits or Limits()
        self.env = env
        self.running_cap = (self.limits.running_per_client
                            or max(1, workers // 2))
        self.closing = False
        self.workers: list[_Worker] = []
        self.deaths = 0  # workers that died (not ended by the pool)
        self._ids = itertools.count(1)
        self._queues: dict[str, collections.deque[Job]] = {}
        self._turns: collections.deque[str] = collections.deque()
        #: per client, queued + running; and running. A client whose count comes back to 0 is
        #: dropped (``_count_down``): a server facing new addresses for weeks keeps none of them
        self._jobs: collections.Counter[str] = collections.Counter()
        self._running: collections.Counter[str] = collections.Counter()
        #: places held for jobs that requests admitted and will submit (``reserve``)
        self._held: collections.Counter[str] = collections.Counter()
        self._failed_starts = 0
        self._loop: asyncio.AbstractEventLoop | None = None

    # -- life ------------------------------------------------------------------------------------
    async def start(self) -> None:
        """Start the workers (from the loop's thread: see the module's docstring)."""
        self._loop = asyncio.get_running_loop()
        for _ in range(self.size):
            self._spawn()

    def _spawn(self) -> None:
        if self.closing:
            return
        warm: list[str] = []
        if self.warm_up is not None:
            args = {"slot": len(self.workers), "slots": self.size}
            warm = ["--warm-up", json.dumps({"kind": self.warm_up, "args": args})]
        proc = subprocess.Popen(
            [sys.executable, "-m", "stonegarden.jobs.worker", str(os.getpid()), *warm,
             *self.modules],
            stdin=subprocess.PIPE, stdout=subprocess.PIPE, env=self.env, close_fds=True)
        worker = _Worker(proc)
        self.workers.append(worker)
        threading.Thread(target=self._read, args=(worker,), daemon=True,
                         name=f"job-worker-{proc.pid}").start()
        threading.Thread(target=worker.write, daemon=True,
                         name=f"job-worker-{proc.pid}-in").start()

    def _read(self, worker: _Worker) -> None:
        """A worker's messages, handed to the loop; then its end."""
        assert worker.proc.stdout is not None
        for line in worker.proc.stdout:
            try:
                message = json.loads(line)
            except ValueError:
                continue
            self._post(self._on_message, worker, message)
        code = worker.proc.wait()
        self._post(self._on_exit, worker, code)

    def _post(self, fn: Callable[..., None], *args: Any) -> None:
        assert self._loop is not None
        with contextlib.suppress(RuntimeError):  # a closed loop: the server is gone
            self._loop.call_soon_threadsafe(fn, *args)

    def stopping(self) -> None:
        """The server is about to stop: fail every job not answered yet (a request waiting
        for one is answered at once, before the server stops waiting for requests and
        cancels them), stop those running, and take no more."""
        self.closing = True
        for queue in self._queues.values():
            for job in queue:
                self._settle(job, "cancelled", error=JobError("the server is stopping",
                                                              "closing"))
        self._queues.clear()
        self._turns.clear()
        for worker in self.workers:
            if worker.job is not None and not worker.job.future.done():
                self._settle(worker.job, "failed", error=JobError("the server is stopping",
                                                                  "closing"))
                worker.send({"op": "stop", "id": worker.job.id})

    async def close(self, timeout: float = 2.0) -> None:
        """Fail every job, ask the workers to quit, and end those that have not after
        ``timeout`` seconds."""
        self.stopping()
        for worker in self.workers:
            if not worker.ready:  # still starting or warming up: nothing of it to keep
                with contextlib.suppress(OSError):
                    worker.proc.kill()
                continue
            worker.send({"op": "quit"})
            worker.hang_up()
        t0 = time.monotonic()
        while any(w.proc.poll() is None for w in self.workers):
            if time.monotonic() - t0 > timeout:
                for w in self.workers:
                    if w.proc.poll() is None:
                        w.proc.kill()
                break
            await asyncio.sleep(0.02)
        for w in self.workers:
            w.proc.wait()

    # -- jobs ------------------------------------------------------------------------------------
    def check_room(self, client: str) -> None:
        """Raises: QueueFullError when ``client`` may not submit a job now (with the seconds
        after which to try again), JobError while the pool is closing."""
        if self.closing:
            raise JobError("the server is stopping", "closing")
        mine = self._jobs[client] + self._held[client]
        if mine >= self.limits.per_client:
            raise QueueFullError(
                f"you have {mine} jobs waiting or running, the most one client "
                f"may have is {self.limits.per_client}", self._retry_after(client))
        queued = sum(len(q) for q in self._queues.values()) + self._held.total()
        if queued >= self.limits.queue:
            raise QueueFullError(f"the job queue is full ({queued} jobs waiting)",
                                 self._retry_after(None))

    def reserve(self, client: str) -> Callable[[], None]:
        """Check ``client``'s room and hold a place for its job until the returned function
        is called (once is enough; later calls do nothing). A request that checks the room and
        submits its job after an ``await`` holds the place in between, so that many requests
        of one client at once cannot all pass the check before any of their jobs exists.

        Raises:
            QueueFullError, JobError: as ``check_room``.
        """
        self.check_room(client)
        self._held[client] += 1
        held = True

        def release() -> None:
            nonlocal held
            if held:
                held = False
                _count_down(self._held, client)

        return release

    def _retry_after(self, client: str | None) -> int:
        """Whole seconds until one of the jobs in the way (``client``'s, or any running one)
        reaches its deadline: a running job's time left, a waiting one's whole deadline."""
        now = time.monotonic()
        left = [w.job.deadline - (now - (w.job.started or now)) for w in self.workers
                if w.job is not None and (client is None or w.job.client == client)]
        if client is not None:
            left += [j.deadline for j in self._queues.get(client, ())]
        return max(1, min(600, math.ceil(min(left)) if left else 1))

    def submit(self, kind: str, args: dict[str, Any], *, client: str, deadline: float,
               memory: int | None = None, force: bool = False,
               keep_place: bool = False) -> Job:
        """Queue a job; it starts when a worker is free and it is its client's turn.
        ``force`` skips the limits (a job that continues work already admitted, such as the
        next move of a game between two agents). ``keep_place``: the client's place stays
        held from the job's end until ``let_go(job)``, so that work that goes on in a next
        job (forced) keeps counting against the client in between, and a request sent
        meanwhile does not take the place as well.

        Raises:
            QueueFullError: the queue or the client's share is full (not with ``force``).
            JobError: the pool is closing.
        """
        if force:
            if self.closing:
                raise JobError("the server is stopping", "closing")
        else:
            self.check_room(client)
        job = Job(next(self._ids), kind, args, client, deadline, memory)
        job.keep_place = keep_place
        if client not in self._queues:
            self._queues[client] = collections.deque()
            self._turns.append(client)
        self._queues[client].append(job)
        self._jobs[client] += 1
        self._dispatch()
        return job

    def let_go(self, job: Job) -> None:
        """Give up the place a ``keep_place`` job holds (its next job is queued, or there is
        none); once is enough, later calls do nothing, and before its end it holds none."""
        job.keep_place = False
        if job.holds_place:
            job.holds_place = False
            _count_down(self._held, job.client)

    def cancel(self, job: Job) -> None:
        """Drop a queued job, or stop a running one (its answer is discarded)."""
        if job.state == "queued":
            queue = self._queues.get(job.client)
            if queue is not None and job in queue:
                queue.remove(job)
                if not queue:
                    del self._queues[job.client]
                    self._turns.remove(job.client)
                _count_down(self._jobs, job.client)
            self._settle(job, "cancelled")
        elif job.state == "running":
            job.state = "cancelled"
            if not job.future.done():
                job.future.cancel()
            self._stop(job, "cancel")

    def waiting_before(self, job: Job) -> int:
        """Queued jobs submitted before ``job`` (0 once it runs)."""
        if job.state != "queued":
            return 0
        return sum(1 for q in self._queues.values() for j in q if j.submitted < job.submitted)

    def ready_workers(self) -> int:
        """Workers that can take a job now or when they finish the one they run."""
        return sum(1 for w in self.workers if w.ready)

    def warm_up_states(self) -> list[dict[str, Any] | None]:
        """Per worker: ``None`` once ready, else its warm-up's last progress report."""
        return [None if w.ready else dict(w.warming) for w in self.workers]

    def describe(self) -> dict[str, Any]:
        """Workers ready and busy, jobs queued, worker deaths, the resident MiB of the workers
        and of the search helpers they started."""
        return {"workers": sum(1 for w in self.workers if w.ready),
                "busy": sum(1 for w in self.workers if w.job is not None),
                "queued": sum(len(q) for q in self._queues.values()),
                "deaths": self.deaths,
                "worker_mib": round(resident(self._processes()) / 2**20)}

    def _processes(self) -> list[int]:
        """The workers and every process below them."""
        pids = [w.proc.pid for w in self.workers]
        return pids + descendants(*pids) if pids else []

    # -- scheduling ------------------------------------------------------------------------------
    def _dispatch(self) -> None:
        for worker in self.workers:
            if not worker.ready or worker.job is not None or worker.proc.poll() is not None:
                continue
            job = self._next()
            if job is None:
                return
            self._start(worker, job)

    def _next(self) -> Job | None:
        """The first job of the first client, in turn, that holds fewer workers than its cap;
        that client then goes to the back of the line."""
        for _ in range(len(self._turns)):
            client = self._turns[0]
            if self._running[client] < self.running_cap:
                queue = self._queues[client]
                job = queue.popleft()
                self._turns.popleft()
                if queue:
                    self._turns.append(client)
                else:
                    del self._queues[client]
                return job
            self._turns.rotate(-1)
        return None

    def _start(self, worker: _Worker, job: Job) -> None:
        assert self._loop is not None
        job.state = "running"
        job.started = time.monotonic()
        job.attempts += 1
        worker.job = job
        self._running[job.client] += 1
        worker.send({"op": "run", "id": job.id, "kind": job.kind, "args": job.args,
                     "memory": job.memory})
        job._timers.append(self._loop.call_later(job.deadline, self._stop, job, "deadline"))
        for started in job.on_start:
            started()

    def _stop(self, job: Job, why: str) -> None:
        """Ask the job's worker to stop it; end the worker if it has not after the grace."""
        worker = self._worker_of(job)
        if worker is None:
            return
        job.stopped = True
        worker.send({"op": "stop", "id": job.id})
        assert self._loop is not None
        job._timers.append(self._loop.call_later(self.limits.kill_grace, self._end, worker,
                                                 job, why))

    def _end(self, worker: _Worker, job: Job, why: str) -> None:
        if worker.job is job and worker.proc.poll() is None:
            worker.ended_by = why
            worker.proc.kill()

    def _worker_of(self, job: Job) -> _Worker | None:
        return next((w for w in self.workers if w.job is job), None)

    # -- messages --------------------------------------------------------------------------------
    def _on_message(self, worker: _Worker, message: dict[str, Any]) -> None:
        op = message.get("op")
        if op == "ready":
            worker.ready = True
            self._dispatch()
            return
        if op == "warming":
            value = message.get("value")
            worker.warming = value if isinstance(value, dict) else {}
            return
        job = worker.job
        if job is None or job.id != message.get("id"):
            return
        if op == "started":
            job.acknowledged = True
            return
        if op == "progress":
            job.progress = message.get("value")
            return
        if op not in ("done", "error"):
            return
        self._release(worker)
        if message.get("retire"):  # it exits to give its memory back; a new one replaces it
            worker.ready = False
            worker.ended_by = "retired"
        if op == "done":
            self._settle(job, "done", result=message.get("result"))
        else:
            reason = str(message.get("reason", "crash"))
            text = str(message.get("message"))
            self._settle(job, "failed", error=JobError(
                text if reason == "input" else f"the {job.kind} job failed: {text}",
                reason, str(message.get("kind", ""))))
        self._dispatch()

    def _on_exit(self, worker: _Worker, code: int) -> None:
        worker.hang_up()  # its writer thread ends
        if worker in self.workers:
            self.workers.remove(worker)
        job = worker.job
        if job is not None:
            self._release(worker)
            if not job.acknowledged and job.attempts < 2 and job.state == "running":
                self._requeue(job)  # the worker died before it saw the job: not the job's fault
                self._dispatch()
            elif worker.ended_by == "deadline":
                self._settle(job, "failed", error=JobError(
                    f"the {job.kind} job was stopped at its deadline of {job.deadline:g} s "
                    "(its worker did not stop and was ended)", "deadline"))
            else:
                self._settle(job, "failed", error=JobError(
                    f"the {job.kind} job was not finished: its worker process ended "
                    f"({_describe_exit(code)})", "died"))
        if not worker.ended_by and not self.closing:
            self.deaths += 1
        if self.closing:
            return
        lived = time.monotonic() - worker.started
        healthy = worker.ended_by or (worker.ready and lived > HEALTHY_AFTER)
        self._failed_starts = 0 if healthy else self._failed_starts + 1
        if self._failed_starts >= FAILED_STARTS and not any(w.ready for w in self.workers):
            self._fail_queued(f"no worker can start ({_describe_exit(code)}, "
                              f"{self._failed_starts} times in a row)")
        delay = min(MAX_BACKOFF, 0.25 * 2 ** self._failed_starts) if self._failed_starts else 0
        assert self._loop is not None
        self._loop.call_later(delay, self._replace)

    def _fail_queued(self, why: str) -> None:
        """Fail every waiting job (nothing could run it): they must not wait for ever."""
        for queue in self._queues.values():
            for job in queue:
                _count_down(self._jobs, job.client)
                self._settle(job, "failed", error=JobError(
                    f"the {job.kind} job could not run: {why}", "died"))
        self._queues.clear()
        self._turns.clear()

    def _requeue(self, job: Job) -> None:
        job.state = "queued"
        job.started = None
        if job.client not in self._queues:
            self._queues[job.client] = collections.deque()
            self._turns.appendleft(job.client)
        self._queues[job.client].appendleft(job)
        self._jobs[job.client] += 1

    def _replace(self) -> None:
        if not self.closing and len(self.workers) < self.size:
            self._spawn()

    def _release(self, worker: _Worker) -> None:
        job = worker.job
        assert job is not None
        worker.job = None
        _count_down(self._running, job.client)
        _count_down(self._jobs, job.client)
        for timer in job._timers:
            timer.cancel()
        job._timers.clear()

    def _settle(self, job: Job, state: str, result: Any = None,
                error: BaseException | None = None) -> None:
        if job.state != "cancelled":
            job.state = state
        if job.finished is None and job.keep_place:  # its count becomes a held place
            job.holds_place = True
            self._held[job.client] += 1
        job.finished = time.monotonic()
        if job.future.done():
            return
        if state == "cancelled" and error is None:
            job.future.cancel()
        elif error is not None:
            job.future.set_exception(error)
        else:
            job.future.set_result(result)


def _count_down(counts: collections.Counter[str], client: str) -> None:
    """One fewer of ``client``'s: a count back at 0 is dropped, so that the clients the pool
    counts are those with a job or a place now, not every address it ever served."""
    counts[client] -= 1
    if counts[client] <= 0:
        del counts[client]


def _describe_exit(code: int) -> str:
    if code < 0:
        try:
            return f"killed by {signal.Signals(-code).name}"
        except ValueError:
            return f"signal {-code}"
    return f"exit status {code}"
