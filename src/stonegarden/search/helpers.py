"""Helper processes for root parallelism in games searched through the protocol, whose
simulations hold the GIL (``parallel.py``): ``python -m stonegarden.search.helpers PARENT
REQUESTS ANSWERS HALT`` (three pipe descriptors).

A process of this module's pool keeps trees (``ProtocolTree``) by key between searches, so a
parallel search reuses its trees from move to move as one tree does. The pool is shared by
every parallel search of the process, one search at a time (``SEARCH_LOCK``), and grows to
the helpers a search asks for. A helper's search ends at its deadline, its share of
simulations, or as soon as the parent writes the search's number to the halt pipe (read at
each stop check, every ~20 ms). Helpers never outlive the process that made it: the kernel
kills them when it dies (as the job workers, ``jobs.worker.die_with_parent``), they exit when
their pipes close, and the pool ends them at exit (``close_all``)."""

from __future__ import annotations

import atexit
import contextlib
import functools
import itertools
import os
import select
import signal
import subprocess
import sys
import threading
import time
import traceback
from collections import OrderedDict
from collections.abc import Callable, Iterator
from multiprocessing.connection import Connection
from pathlib import Path
from typing import Any

from ..core.protocol import Game, State
from .config import Budget, SearchConfig
from .pools import Pools
from .result import SearchResult

#: trees a helper process keeps (the most recently used)
KEPT_TREES = 2
#: how long after the deadline a search waits for a late helper before going on without it
GRACE_SECONDS = 0.2
#: helper processes that may die before the pool stops starting new ones (a process that
#: cannot start, under a memory bound for one, is not started again with every search)
MAX_DEATHS = 4

_lock = threading.Lock()
#: held by a parallel search using the pool (one at a time)
SEARCH_LOCK = threading.Lock()
_procs: list[_Process] = []
_keys = itertools.count()
_deaths = 0


class _Halt:
    """The helper's end of the halt pipe: the highest search number the parent has halted."""

    def __init__(self, fd: int) -> None:
        self.fd = fd
        self.halted = 0
        self.gone = False

    def __call__(self, seq: int) -> bool:
        """Whether search ``seq`` is halted (or the parent gone)."""
        while not self.gone and select.select([self.fd], [], [], 0)[0]:
            data = os.read(self.fd, 4096)
            if not data:
                self.gone = True
            for i in range(0, len(data) - 7, 8):
                self.halted = max(self.halted, int.from_bytes(data[i:i + 8], "little"))
        return self.gone or self.halted >= seq


def serve(requests: Connection, answers: Connection, halt: _Halt) -> None:
    """A helper process's loop: ``(seq, key, game, config, seed, size, state, sims,
    deadline)`` in, ``(seq, result or None)`` out (``state`` ``None``: only build the tree);
    ``None`` or a closed pipe ends it."""
    from .engines import make_engine

    trees: OrderedDict[int, Any] = OrderedDict()
    while True:
        try:
            msg = requests.recv()
        except (EOFError, OSError):
            return
        if msg is None:
            return
        seq, key, game, config, seed, size, state, sims, deadline = msg
        result = None
        try:
            tree = trees.pop(key, None)
            if tree is None:
                tree = make_engine(game, config, seed, Pools(*size))
            trees[key] = tree
            while len(trees) > KEPT_TREES:
                trees.popitem(last=False)
            seconds = None if deadline is None else deadline - time.time()
            if state is not None and (seconds is None or seconds > 0) and not halt(seq):
                result = tree.search(state, Budget(sims=sims, seconds=seconds,
                                                   stop=functools.partial(halt, seq)))
        except Exception:  # a bug: said on standard error; the search goes on without this tree
            traceback.print_exc()
            trees.pop(key, None)
        try:
            answers.send((seq, result))
        except OSError:
            return


def main(argv: list[str]) -> None:
    from ..jobs.worker import die_with_parent

    parent, requests, answers, halt = (int(a) for a in argv)
    die_with_parent(parent)
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # Ctrl-C is the parent's to handle
    serve(Connection(requests, writable=False), Connection(answers, readable=False),
          _Halt(halt))


class _Process:
    """One helper process and the parent's ends of its pipes."""

    def __init__(self) -> None:
        req_r, req_w = os.pipe()
        ans_r, ans_w = os.pipe()
        halt_r, halt_w = os.pipe()
        env = dict(os.environ)
        root = str(Path(__file__).resolve().parents[2])  # the directory holding the package
        env["PYTHONPATH"] = os.pathsep.join(p for p in (root, env.get("PYTHONPATH")) if p)
        self.proc = subprocess.Popen(
            [sys.executable, "-m", "stonegarden.search.helpers", str(os.getpid()),
             str(req_r), str(ans_w), str(halt_r)],
            pass_fds=(req_r, ans_w, halt_r), stdin=subprocess.DEVNULL,
            stdout=subprocess.DEVNULL, env=env)
        for fd in (req_r, ans_w, halt_r):
            os.close(fd)
        self.requests = Connection(req_w, readable=False)
        self.answers = Connection(ans_r, writable=False)
        self.halt_fd = halt_w
        self.seq = 0

    def alive(self) -> bool:
        return self.proc.poll() is None

    def halt(self, seq: int) -> None:
        with contextlib.suppress(OSError):
            os.write(self.halt_fd, seq.to_bytes(8, "little"))

    def close(self) -> None:
        with contextlib.suppress(OSError):
            self.requests.send(None)
        try:
            self.proc.wait(1.0)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait(1.0)
        self.requests.close()
        self.answers.close()
        with contextlib.suppress(OSError):
            os.close(self.halt_fd)


class _ProcessHelper:
    """An extra tree in a helper process (the ``parallel.Helper`` interface)."""

    def __init__(self, index: int, game: Game, config: SearchConfig, seed: int | None,
                 size: tuple[int, int, int]) -> None:
        self.index = index
        self.key = next(_keys)
        self.args = (game, config, seed, size)
        self.proc: _Process | None = None
        self.deadline: float | None = None
        self.waiting = False
        self.result: SearchResult | None = None

    def _send(self, state: State | None, sims: int | None, deadline: float | None) -> None:
        proc = self.proc
        assert proc is not None
        proc.seq += 1
        self.result = None
        try:
            proc.requests.send((proc.seq, self.key, *self.args, state, sims, deadline))
            self.waiting = True
        except OSError:
            self.waiting = False

    def prepare(self) -> None:
        """Build the tree (and load its kernels) in the process ahead of the first search."""
        self.proc = _process(self.index)
        self._send(None, None, None)

    def begin(self, state: State, sims: int | None, deadline: float | None,
              outer: Callable[[], bool] | None = None) -> None:
        """Send the search (``outer``, the search's own stop, is the calling thread's to poll:
        it does not cross to the process)."""
        self.proc = _process(self.index)
        self.deadline = deadline
        self._send(state, sims, deadline)

    def stop(self) -> None:
        if self.proc is not None and self.waiting:
            self.proc.halt(self.proc.seq)

    def done(self) -> bool:
        """Whether the answer is in (answers of searches given up on are dropped), the
        process died, or the deadline's grace is over."""
        proc = self.proc
        if proc is None or not self.waiting:
            return True
        try:
            while proc.answers.poll():
                seq, result = proc.answers.recv()
                if seq == proc.seq:
                    self.result = result if isinstance(result, SearchResult) else None
                    self.waiting = False
                    return True
        except (EOFError, OSError):
            self.waiting = False
            return True
        if not proc.alive():
            self.waiting = False
            return True
        return self.deadline is not None and time.time() > self.deadline + GRACE_SECONDS

    def end(self) -> SearchResult | None:
        self.done()
        self.waiting = False
        result, self.result = self.result, None
        return result


def _process(index: int) -> _Process:
    """The pool's helper process ``index`` (started, or restarted if it died and the pool
    has not seen ``MAX_DEATHS`` deaths: then the dead one, whose searches answer nothing)."""
    global _deaths
    with _lock:
        while len(_procs) <= index:
            _procs.append(_Process())
        if not _procs[index].alive() and _deaths < MAX_DEATHS:
            _deaths += 1
            _procs[index] = _Process()
        return _procs[index]


def process_helpers(game: Game, config: SearchConfig, seeds: list[int | None],
                    size: tuple[int, int, int]) -> Iterator[_ProcessHelper]:
    """One helper per seed, each a tree in the pool's process of its index, being prepared
    (none once ``MAX_DEATHS`` helpers died: the search keeps its one tree)."""
    if _deaths >= MAX_DEATHS:
        return
    for index, seed in enumerate(seeds):
        helper = _ProcessHelper(index, game, config, seed, size)
        helper.prepare()
        yield helper


@atexit.register
def close_all() -> None:
    """End every helper process of the pool."""
    with _lock:
        procs = list(_procs)
        _procs.clear()
    for proc in procs:
        proc.close()


if __name__ == "__main__":
    main(sys.argv[1:])
