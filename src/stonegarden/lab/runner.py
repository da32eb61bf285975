"""Run self-play tasks on local worker processes or as Ray tasks, with a progress bar, storing
each game as it finishes."""

from __future__ import annotations

import concurrent.futures as cf
import multiprocessing
import os
import signal
import sys
from collections.abc import Callable, Sequence
from concurrent.futures.process import BrokenProcessPool
from datetime import timedelta
from typing import Any

from rich.console import Console
from rich.progress import (
    BarColumn,
    MofNCompleteColumn,
    Progress,
    TaskID,
    TextColumn,
    TimeElapsedColumn,
    TimeRemainingColumn,
)

from ..errors import JobError, ParameterError
from ..jobs.worker import die_with_parent
from ..search.config import available_cores, default_threads, share_cores
from . import ray_backend
from .ray_backend import OnResult, Task
from .selfplay import play_game

#: games one run may ask for (a study's times the cells of a sweep or the steps of a ladder;
#: a match's): each is a task in memory before the first is played, so a slip such as
#: ``--games 100000000000`` is refused at once instead of filling the memory
MAX_GAMES = 1_000_000

#: the largest base seed (``--seed``): each game's and each agent's seed is made from it
#: (a study's game i: ``S * 1000003 + i``, its agents twice that plus the seat) and an agent
#: takes seeds below 2**63
MAX_SEED = 2**32 - 1


#: how far back a bar's speed, and so its time left, is measured (rich's 30 seconds gave no
#: time left at all where a game takes longer: strong agents, big boards)
SPEED_PERIOD = 24 * 3600.0


def progress_bar(console: Console | None = None, disable: bool = False) -> Progress:
    return Progress(
        TextColumn("{task.description}"), BarColumn(), MofNCompleteColumn(),
        TimeElapsedColumn(), TextColumn("ETA"), TimeRemainingColumn(),
        TextColumn("{task.fields[tally]}"),
        console=console or Console(stderr=True), transient=False, disable=disable,
        speed_estimate_period=SPEED_PERIOD,
    )


def run_tasks(tasks: Sequence[Task], on_result: OnResult, *, workers: int = 1,
              backend: str = "local", address: str | None = None, description: str = "games",
              console: Console | None = None, done_before: int = 0,
              tally: Callable[[], str] | None = None, progress: bool = True) -> None:
    """Play every task, calling ``on_result(task, result)`` in this process as each finishes.
    The bar counts ``done_before`` games finished earlier (a resumed run) and shows ``tally()``
    after each game. On this machine (the local backend, or Ray without an address) no more
    than its cores play at once (``machine_workers``).

    Raises:
        ParameterError: an unknown backend, an address without Ray, Ray requested but not
        installed, or no Ray cluster at the address.
        JobError: a worker process died (killed by the system, say); the games finished
        before have been handed to ``on_result``.
    """
    check_backend(backend, address)
    if not tasks:
        return
    if backend != "ray" or not address:
        workers = machine_workers(workers)
    elif workers > 1:  # a cluster's slots are its own: each game takes one of its CPUs
        print(f"--workers {workers} is not used on the Ray cluster at {address}: it plays "
              "as many games at once as it has CPUs (--workers sets the CPUs of a Ray the "
              "command starts on this machine, without --address)", file=sys.stderr)
    with progress_bar(console, disable=not progress) as bar:
        total = done_before + len(tasks)
        job = bar.add_task(description, total=total, completed=done_before,
                           tally=tally() if tally else "")
        # a bar is drawn on a terminal only: into a log (nohup, a batch job) it would show
        # nothing until the end, so there a line is written at every hundredth of the games
        lines = progress and not bar.console.is_terminal
        step = max(1, total // 100)

        def done(task: Task, result: dict[str, Any]) -> None:
            on_result(task, result)
            bar.update(job, advance=1, tally=tally() if tally else "")
            if lines:
                progress_line(bar, job, step)

        if backend == "local":
            _run_local(tasks, done, workers)
        else:
            ray_backend.run_ray(tasks, done, workers, address)


def check_backend(backend: str, address: str | None) -> None:
    """Refuse where the games cannot run, before a run writes anything (a refused
    ``--address`` left an empty ``lab.sqlite`` behind).

    Raises:
        ParameterError: an unknown backend, an address without Ray, or one where nothing
        answers.
    """
    if backend not in ("local", "ray"):
        raise ParameterError(f"unknown backend {backend!r} (local or ray)")
    if address and backend != "ray":
        raise ParameterError(f"--address {address!r} is a Ray cluster's: add --backend ray")
    if address:
        ray_backend.check_reachable(address)


def machine_workers(workers: int) -> int:
    """``workers``, at most the cores this machine lets the command use, where a game is played
    at a time each; taking fewer is said on stderr. More would not finish sooner: each is a
    process with its own copy of the kernels (``--workers 10000`` filled the memory), and a
    search limited by time would get less of it than it asks for."""
    cores = available_cores()
    if workers <= cores:
        return workers
    print(f"--workers {workers}: this machine has {cores} core{'s' if cores > 1 else ''}; "
          f"{cores} game{'s are' if cores > 1 else ' is'} played at a time (more would not "
          "finish sooner, and would give a search limited by time less time than it asks for)",
          file=sys.stderr)
    return cores


def progress_line(bar: Progress, job: TaskID, step: int, unit: str = "games") -> None:
    """``description: N/M games, elapsed, about T left (tally)`` at every ``step`` games (or
    other ``unit``): the progress of a bar that is not drawn (its output is not a terminal)."""
    task = bar.tasks[job]
    done = int(task.completed)
    if done % step and done != task.total:
        return
    elapsed = timedelta(seconds=int(task.elapsed or 0))
    left = task.time_remaining
    eta = (f", about {timedelta(seconds=int(left))} left"
           if left is not None and done != task.total else "")
    tally = f" ({task.fields['tally']})" if task.fields.get("tally") else ""
    bar.console.print(f"{task.description}: {done}/{int(task.total or 0)} {unit}, {elapsed} "
                      f"elapsed{eta}{tally}", markup=False, highlight=False,
                      soft_wrap=True)


def _run_local(tasks: Sequence[Task], done: OnResult, workers: int) -> None:
    if workers <= 1:
        for t in tasks:
            done(t, play_game(t))
        return
    with game_pool(workers) as pool:
        # no more games handed to the pool than it has workers: the pool moves what it is
        # given into its workers' queue, where a cancel no longer reaches, so on Ctrl-C every
        # game given to it would still be played
        waiting = iter(tasks)
        futures: dict[cf.Future[dict[str, Any]], Task] = {}
        handled: set[cf.Future[dict[str, Any]]] = set()
        running: set[cf.Future[dict[str, Any]]] = set()

        def hand_over() -> None:
            t = next(waiting, None)
            if t is not None:
                f = pool.submit(play_game, t)
                futures[f] = t
                running.add(f)

        try:
            for _ in range(workers):
                hand_over()
            while running:
                finished, _ = cf.wait(running, return_when=cf.FIRST_COMPLETED)
                for f in finished:
                    running.discard(f)
                    handled.add(f)
                    done(futures[f], f.result())
                    hand_over()
        except BaseException as exc:
            for f in futures:
                f.cancel()
            if isinstance(exc, KeyboardInterrupt):
                print(f"stopping: finishing the {len(running)} game(s) being played "
                      "(Ctrl-C again stops at once and loses them)", file=sys.stderr)
                try:
                    _keep_running_games(futures, handled, done)
                except KeyboardInterrupt:
                    _stop_workers(pool)
            if isinstance(exc, BrokenProcessPool):
                raise JobError("a game worker process ended abruptly (killed: out of memory?), "
                               "and the games being played with it are lost",
                               reason="died") from None
            raise


def game_pool(workers: int) -> cf.ProcessPoolExecutor:
    """``workers`` processes playing games at once, each searching with its share of the
    cores where a search takes every core (levels 5 and 6)."""
    ctx = multiprocessing.get_context("spawn")  # no inherited locks or threads in workers
    return cf.ProcessPoolExecutor(max_workers=workers, mp_context=ctx,
                                  initializer=_game_worker,
                                  initargs=(os.getpid(), max(1, default_threads() // workers)))


def _game_worker(parent: int, cores: int) -> None:
    """A pool worker dies with this process, however it ends (SIGTERM and SIGKILL included),
    takes ``cores`` threads for "every core", and lets a Ctrl-C pass: a terminal sends it to
    the worker too, and the command, which gets it as well, has the worker finish its game."""
    die_with_parent(parent)
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    share_cores(cores)


def _stop_workers(pool: cf.ProcessPoolExecutor) -> None:
    """End the pool's workers now (a second Ctrl-C): their games are lost."""
    for proc in list((pool._processes or {}).values()):  # the executor has no public kill
        proc.kill()


def _keep_running_games(futures: dict[cf.Future[dict[str, Any]], Task],
                        handled: set[cf.Future[dict[str, Any]]], done: OnResult) -> None:
    """After an interrupt the pool waits for the games already running anyway; keep those that
    finish (a worker that got the interrupt too ends with an error, and its game is lost)."""
    running = [f for f in futures if f not in handled and not f.cancelled()]
    for f in cf.as_completed(running):
        if f.exception() is None:
            done(futures[f], f.result())
