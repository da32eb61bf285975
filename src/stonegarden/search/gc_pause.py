"""Pause Python's cyclic garbage collector while searches run.

The tree itself is in numba pools, but the protocol tree keeps a Python state for each node
(``ProtocolTree.states``): many objects, none in a reference cycle, so the collector's full
passes over them find nothing, yet take longer as the tree grows. The collector is off while
at least one search runs, in any thread, and back to how the first search found it once the
last one ends: a counter under a lock, so searches that overlap in threads can never leave it
off for good."""

from __future__ import annotations

import gc
import threading
from collections.abc import Iterator
from contextlib import contextmanager

_lock = threading.Lock()
_running = 0
_was_enabled = False


@contextmanager
def collector_paused() -> Iterator[None]:
    global _running, _was_enabled
    with _lock:
        if _running == 0:
            _was_enabled = gc.isenabled()
            gc.disable()
        _running += 1
    try:
        yield
    finally:
        with _lock:
            _running -= 1
            if _running == 0 and _was_enabled:
                gc.enable()
