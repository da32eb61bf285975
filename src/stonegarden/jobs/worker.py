"""A worker process: ``python -m stonegarden.jobs.worker PARENT_PID [--warm-up JSON] MODULE...``.

It reads one JSON message a line on standard input (``run``, ``stop``, ``quit``) and writes
one a line on the channel that was its standard output (``warming``, ``ready``, ``progress``,
``done``, ``error``). With ``--warm-up {"kind", "args"}`` it first runs that job kind (its
progress reports are ``warming`` messages; a failure is printed and does not stop the
worker), and only then says it is ready. Anything else the program prints goes to standard
error, so it cannot garble the channel. It runs one job at a time on its main thread; a reader
thread takes the messages, so a ``stop`` reaches a running job (which checks
``JobContext.stopped``).

It never outlives the server: on Linux it asks the kernel to SIGKILL it when its parent dies
(``prctl(PR_SET_PDEATHSIG)``, which works even while a kernel holds the CPU), and everywhere it
exits when its standard input closes, which happens when the server ends, SIGKILL included.
A job's memory bound is an address-space limit (``RLIMIT_AS``) above what the worker used
before the job: an allocation past it fails with ``MemoryError``, the job fails cleanly, and
the worker exits so that its memory goes back to the system.
"""

from __future__ import annotations

import contextlib
import ctypes
import importlib
import json
import os
import queue
import resource
import signal
import sys
import threading
import traceback
from typing import Any, TextIO

from ..errors import StonegardenError
from .kinds import JobContext, kind
from .procs import descendants, resident

PR_SET_PDEATHSIG = 1
#: a worker whose resident memory, with that of the search helpers it started, is above this
#: after a job exits (and is replaced; its helpers die with it), so a large job's memory goes
#: back to the system
RECYCLE_BYTES = 1024 * 1024 * 1024


def die_with_parent(parent: int) -> None:
    """Ask for SIGKILL when the parent dies; exit now if it already has."""
    if sys.platform.startswith("linux"):
        try:
            libc = ctypes.CDLL(None, use_errno=True)
            libc.prctl(PR_SET_PDEATHSIG, signal.SIGKILL, 0, 0, 0)
        except (OSError, AttributeError):  # pragma: no cover - not glibc: the pipe still works
            pass
    if os.getppid() != parent:  # the parent died before the request took effect
        os._exit(0)


def _status(key: str) -> int:
    """A ``/proc/self/status`` figure in bytes (0 where there is none)."""
    try:
        with open("/proc/self/status") as f:
            for line in f:
                if line.startswith(key + ":"):
                    return int(line.split()[1]) * 1024
    except OSError:
        pass
    return 0


class Worker:
    def __init__(self, channel: TextIO) -> None:
        self.channel = channel
        self.send_lock = threading.Lock()
        self.inbox: queue.Queue[dict[str, Any]] = queue.Queue()
        self.stop = threading.Event()
        self.lock = threading.Lock()  # ``current``, ``early`` and ``stop`` change together
        self.current: int | None = None
        #: a stop that came before its job was taken from the inbox (the server sends one
        #: job at a time, so one is enough); the job stops as soon as it starts
        self.early: int | None = None

    def send(self, message: dict[str, Any]) -> None:
        line = json.dumps(message, ensure_ascii=True, allow_nan=False)
        with self.send_lock:
            self.channel.write(line + "\n")
            self.channel.flush()

    def read(self) -> None:
        """The reader thread: messages in; the end of input ends the process."""
        for raw in sys.stdin.buffer:
            try:
                message = json.loads(raw)
            except ValueError:
                continue
            if message.get("op") == "stop":
                with self.lock:
                    if self.current == message.get("id"):
                        self.stop.set()
                    else:
                        self.early = message.get("id")
            else:
                self.inbox.put(message)
        os._exit(0)  # the server is gone

    def warm_up(self, spec: dict[str, Any]) -> None:
        """Run the warm-up job kind before taking jobs."""
        context = JobContext(threading.Event(),
                             lambda v: self.send({"op": "warming", "value": v}))
        try:
            kind(spec["kind"])(spec.get("args", {}), context)
        except Exception:  # a bug: jobs then load what they need themselves
            traceback.print_exc(file=sys.stderr)

    def serve(self) -> None:
        self.send({"op": "ready", "pid": os.getpid()})
        while True:
            message = self.inbox.get()
            if message.get("op") != "run":
                return
            if not self.run(message):
                return

    def run(self, message: dict[str, Any]) -> bool:
        """Run one job and answer; returns whether the worker should take another."""
        jid = message["id"]
        with self.lock:
            self.current = jid
            self.stop.clear()
            if self.early == jid:
                self.stop.set()
            self.early = None
        self.send({"op": "started", "id": jid})
        context = JobContext(self.stop, lambda v: self.send({"op": "progress", "id": jid,
                                                             "value": v}))
        keep = True
        limit = message.get("memory")
        soft, hard = resource.getrlimit(resource.RLIMIT_AS)
        try:
            try:
                if limit:
                    bound = _status("VmSize") + int(limit)
                    if hard != resource.RLIM_INFINITY:
                        bound = min(bound, hard)
                    resource.setrlimit(resource.RLIMIT_AS, (bound, hard))
                result = kind(message["kind"])(message["args"], context)
            finally:
                resource.setrlimit(resource.RLIMIT_AS, (soft, hard))
            answer: dict[str, Any] = {"op": "done", "id": jid, "result": result}
        except MemoryError:
            answer = {"op": "error", "id": jid, "reason": "memory",
                      "message": f"it needed more than its memory bound of "
                                 f"{int(limit or 0) // (1024 * 1024)} MiB"}
            keep = False
        except StonegardenError as exc:
            answer = {"op": "error", "id": jid, "reason": "input", "kind": type(exc).__name__,
                      "message": str(exc)}
        except Exception as exc:  # a bug: say so, and keep the worker for other jobs
            traceback.print_exc(file=sys.stderr)
            answer = {"op": "error", "id": jid, "reason": "crash",
                      "message": f"{type(exc).__name__}: {exc}"}
        with self.lock:
            self.current = None
        keep = keep and _status("VmRSS") + resident(descendants(os.getpid())) <= RECYCLE_BYTES
        answer["retire"] = not keep  # this worker exits now: send it nothing more
        try:
            self.send(answer)
        except ValueError:  # a result JSON cannot hold (NaN): a bug in the kind
            self.send({"op": "error", "id": jid, "reason": "crash", "retire": not keep,
                       "message": "the job's result is not JSON"})
        return keep


#: how much lower than the server's the workers' CPU priority is: a search yields the CPU to
#: the server's requests (pages stay quick while agents think) and still has it when idle
NICENESS = 10


def main(argv: list[str]) -> None:
    parent, modules = int(argv[0]), argv[1:]
    warm = None
    if modules[:1] == ["--warm-up"]:
        warm, modules = json.loads(modules[1]), modules[2:]
    die_with_parent(parent)
    with contextlib.suppress(OSError):
        os.nice(NICENESS)
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # Ctrl-C is the server's to handle
    channel = os.fdopen(os.dup(1), "w", encoding="ascii")
    os.dup2(2, 1)  # stray output of the program goes to standard error
    worker = Worker(channel)
    # reading starts before the slow imports, so that a server which stops at once (its
    # standard input closed) ends the worker at once too
    threading.Thread(target=worker.read, daemon=True, name="inbox").start()
    for name in modules:
        importlib.import_module(name)
    if warm is not None:
        worker.warm_up(warm)
    worker.serve()
    channel.flush()
    os._exit(0)


if __name__ == "__main__":
    main(sys.argv[1:])
