"""The bound of a database call: one thread of a store watches every call under way and cuts
off the connection of one that has not ended by its deadline.

A database that accepts connections but does not answer (frozen, its machine swapping, a
network that drops packets without a word) would otherwise hold a call, and the request waiting
for it, for ever: the database's own ``statement_timeout`` is of no help (it is the server
that does not answer), nor are TCP keepalives (its machine's kernel answers them). A socket
shut down wakes the thread waiting on it, which the driver reports as a connection lost.

A call's deadline counts from when it was **asked for**, not from when a thread took it up:
the server runs its calls in a pool of threads (``AskingExecutor``), where a call may wait for
a free thread while the others wait for the database, and that wait is the request's too.
"""

from __future__ import annotations

import os
import socket
import threading
import time
from collections.abc import Callable, Iterator
from concurrent.futures import Future, ThreadPoolExecutor
from contextlib import contextmanager
from typing import Any

_asked = threading.local()


class AskingExecutor(ThreadPoolExecutor):
    """A pool of threads that tells the work it runs when it was submitted (``asked_at``)."""

    def submit(self, fn: Callable[..., Any], /, *args: Any, **kwargs: Any) -> Future[Any]:
        return super().submit(_run_asked, time.monotonic(), fn, *args, **kwargs)


def _run_asked(at: float, fn: Callable[..., Any], *args: Any, **kwargs: Any) -> Any:
    _asked.at = at
    try:
        return fn(*args, **kwargs)
    finally:
        _asked.at = None


def asked_at() -> float:
    """When the work this thread runs was asked for, for its first call of a store (the wait
    for a thread was that call's); now for any later call, which the work made after its
    own steps, and in a thread of no ``AskingExecutor``."""
    at = getattr(_asked, "at", None)
    _asked.at = None
    return time.monotonic() if at is None else at


class Call:
    """One call's deadline (monotonic) and the connection it uses, which is cut off past it."""

    def __init__(self, end: float, seconds: float) -> None:
        self.end = end
        #: the seconds it was given (``end`` may have come sooner: ``hurried``)
        self.seconds = seconds
        #: its deadline was brought forward, the server stopping
        self.hurried = False
        #: its connection was cut off
        self.cut = False
        self.con: Any = None

    def left(self) -> float:
        return self.end - time.monotonic()


class Watchdog:
    """Cuts off (shuts down the socket of) the connection of every call past its deadline, in
    one thread for all of a store's calls."""

    def __init__(self, name: str) -> None:
        self._name = name
        self._calls: set[Call] = set()
        self._changed = threading.Condition()
        #: once the server stops, the latest deadline of any call (``hurry``)
        self._latest: float | None = None
        self._closed = False
        self._thread: threading.Thread | None = None

    @contextmanager
    def call(self, seconds: float, since: float | None = None) -> Iterator[Call]:
        """A call that has ``seconds`` from ``since`` (monotonic; now by default): a
        connection it ``watch``es is cut off when it has not ended by then, and never after
        it ended (the connection is another call's then)."""
        end = (time.monotonic() if since is None else since) + seconds
        with self._changed:
            call = Call(end, seconds)
            if self._latest is not None and self._latest < end:
                call.end, call.hurried = self._latest, True
            self._calls.add(call)
            self._start()
            self._changed.notify()
        try:
            yield call
        finally:
            with self._changed:
                self._calls.discard(call)

    def watch(self, call: Call, con: Any) -> None:
        """Cut ``con`` off when ``call`` runs past its deadline (at once if it has)."""
        with self._changed:
            call.con = con
            self._changed.notify()

    def hurry(self, seconds: float) -> None:
        """Every call, under way or to come, ends within ``seconds`` (the server stops)."""
        with self._changed:
            self._latest = time.monotonic() + seconds
            for call in self._calls:
                if self._latest < call.end:
                    call.end, call.hurried = self._latest, True
            self._changed.notify()

    def close(self) -> None:
        with self._changed:
            self._closed = True
            self._changed.notify()

    def _start(self) -> None:
        if self._thread is None:
            self._thread = threading.Thread(target=self._watch, name=self._name, daemon=True)
            self._thread.start()

    def _watch(self) -> None:
        with self._changed:
            while not self._closed:
                now = time.monotonic()
                wait: float | None = None
                for call in self._calls:
                    if call.con is None or call.cut:
                        continue
                    if call.end <= now:
                        call.cut = True
                        _shut_down(call.con)
                    else:
                        wait = call.end - now if wait is None else min(wait, call.end - now)
                self._changed.wait(wait)


def _shut_down(con: Any) -> None:
    """Shut ``con``'s socket down: the thread waiting on it wakes, its driver's call fails."""
    try:
        # a duplicate of its descriptor: shutting it down shuts down the connection's socket,
        # which closing the duplicate leaves alone
        with socket.socket(fileno=os.dup(con.fileno())) as sock:
            sock.shutdown(socket.SHUT_RDWR)
    except Exception:  # closed meanwhile (the driver's own error, or the system's)
        pass
