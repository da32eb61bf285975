"""The kinds of job a worker can run: functions registered by name, on the worker's side."""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from typing import Any

from ..errors import ParameterError

#: seconds between two progress reports of a job (more frequent ones are dropped)
PROGRESS_EVERY = 0.2


class JobContext:
    """What a running job sees of its worker: whether it should stop (cancelled, or its
    deadline passed), and a way to report progress."""

    def __init__(self, stop: threading.Event, report: Callable[[Any], None]) -> None:
        self._stop = stop
        self._report = report
        self._last = 0.0

    def stopped(self) -> bool:
        """True once the job should end: return what is done so far, promptly."""
        return self._stop.is_set()

    def progress(self, value: Any, force: bool = False) -> None:
        """Report progress (any JSON value, e.g. ``{"done": 3, "of": 10}``); at most one report
        every ``PROGRESS_EVERY`` seconds is sent unless ``force``."""
        now = time.monotonic()
        if force or now - self._last >= PROGRESS_EVERY:
            self._last = now
            self._report(value)


JobFunction = Callable[[dict[str, Any], JobContext], Any]
_KINDS: dict[str, JobFunction] = {}


def job_kind(name: str) -> Callable[[JobFunction], JobFunction]:
    """Register ``fn(args, context) -> JSON value`` as the job kind ``name``. The module must be
    one the workers import (``JobPool(modules=...)``)."""

    def deco(fn: JobFunction) -> JobFunction:
        _KINDS[name] = fn
        return fn

    return deco


def kind(name: str) -> JobFunction:
    """Raises: ParameterError for an unregistered kind."""
    if name not in _KINDS:
        raise ParameterError(f"no job kind {name!r} (known: {', '.join(sorted(_KINDS))})")
    return _KINDS[name]
