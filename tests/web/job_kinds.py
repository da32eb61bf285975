"""Job kinds for the job-pool tests (imported by the test workers): sleeping, spinning without
looking at the stop flag, allocating, dying."""

from __future__ import annotations

import os
import time
from typing import Any

from stonegarden.jobs import JobContext, job_kind


@job_kind("test-echo")
def echo(args: dict[str, Any], ctx: JobContext) -> Any:
    return {"pid": os.getpid(), **args}


@job_kind("test-sleep")
def sleep(args: dict[str, Any], ctx: JobContext) -> Any:
    """Sleeps up to ``seconds``, stopping early when asked; reports progress."""
    t0 = time.monotonic()
    while time.monotonic() - t0 < args["seconds"]:
        if ctx.stopped():
            return {"stopped": True, "pid": os.getpid()}
        ctx.progress({"elapsed": round(time.monotonic() - t0, 2)})
        time.sleep(0.01)
    return {"stopped": False, "pid": os.getpid()}


@job_kind("test-spin")
def spin(args: dict[str, Any], ctx: JobContext) -> Any:
    """Ignores the stop flag: only ending its worker stops it."""
    t0 = time.monotonic()
    while time.monotonic() - t0 < args["seconds"]:
        pass
    return "spun"


@job_kind("test-allocate")
def allocate(args: dict[str, Any], ctx: JobContext) -> Any:
    """Allocates and touches ``mib`` MiB."""
    block = bytearray(args["mib"] * 1024 * 1024)
    return len(block)


@job_kind("test-die")
def die(args: dict[str, Any], ctx: JobContext) -> Any:
    os._exit(3)


@job_kind("test-fail")
def fail(args: dict[str, Any], ctx: JobContext) -> Any:
    raise RuntimeError("a bug")


@job_kind("test-warm-up")
def warm(args: dict[str, Any], ctx: JobContext) -> Any:
    """A warm-up of ``WARM_SECONDS`` (environment) in three reported steps; with
    ``WARM_FAIL`` set it fails half-way (a bug in a warm-up must not keep the worker out)."""
    seconds = float(os.environ.get("WARM_SECONDS", "1"))
    for done in range(3):
        ctx.progress({"done": done, "of": 3, "game": f"g{done}", "slot": args["slot"]},
                     force=True)
        if done == 1 and os.environ.get("WARM_FAIL"):
            raise RuntimeError("a bug in the warm-up")
        time.sleep(seconds / 3)
    return 3


_children: list = []  # kept so that the child runs on after the job, as a search helper does


@job_kind("test-child")
def child(args: dict[str, Any], ctx: JobContext) -> Any:
    """Starts a process below the worker that holds ``mib`` MiB and lives until the worker
    ends (like a search helper); answers its pid once the memory is held."""
    import subprocess
    import sys
    code = ("import time\n"
            "from stonegarden.jobs.worker import die_with_parent\n"
            f"die_with_parent({os.getpid()})\n"
            f"block = b'\\x01' * ({int(args['mib'])} * 1024 * 1024)\n"
            "print('ready', flush=True)\n"
            "while True:\n"
            "    time.sleep(1)\n")
    proc = subprocess.Popen([sys.executable, "-c", code], stdout=subprocess.PIPE, text=True)
    assert proc.stdout is not None and proc.stdout.readline().strip() == "ready"
    _children.append(proc)
    return proc.pid
