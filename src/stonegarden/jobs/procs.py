"""Processes as the kernel sees them (Linux ``/proc``; elsewhere nothing is found): the
processes below a process, whether one still runs, and its memory and CPU time. The pool
reports its workers' memory with them; the tests and benchmarks count what a server leaves."""

from __future__ import annotations

import os

PAGE = os.sysconf("SC_PAGE_SIZE") if hasattr(os, "sysconf") else 4096


def _stat(pid: int) -> list[str] | None:
    """The fields of ``/proc/PID/stat`` after the command name (state first)."""
    try:
        with open(f"/proc/{pid}/stat") as f:
            return f.read().rsplit(")", 1)[1].split()
    except (OSError, IndexError):
        return None


def descendants(pid: int, *more: int) -> list[int]:
    """Every process below ``pid`` (and below each of ``more``), from one read of ``/proc``."""
    children: dict[int, list[int]] = {}
    try:
        names = os.listdir("/proc")
    except OSError:
        return []
    for name in names:
        if name.isdigit():
            fields = _stat(int(name))
            if fields is not None:
                children.setdefault(int(fields[1]), []).append(int(name))
    out, todo = [], [pid, *more]
    while todo:
        for child in children.get(todo.pop(), ()):
            out.append(child)
            todo.append(child)
    return out


def state(pid: int) -> str | None:
    """The kernel's one-letter state (``R``, ``S``, ``T`` stopped, ``Z`` zombie...); None
    when gone."""
    fields = _stat(pid)
    return None if fields is None else fields[0]


def alive(pid: int) -> bool:
    """Running: neither gone nor a zombie."""
    return state(pid) not in (None, "Z")


def resident(pids: list[int]) -> int:
    """Bytes of resident memory of these processes together."""
    total = 0
    for pid in pids:
        try:
            with open(f"/proc/{pid}/statm") as f:
                total += int(f.read().split()[1]) * PAGE
        except (OSError, IndexError, ValueError):
            pass
    return total


def cpu_seconds(pid: int) -> float:
    """CPU time the process has used (user and system)."""
    fields = _stat(pid)
    if fields is None:
        return 0.0
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")
