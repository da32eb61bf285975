"""``stonegarden warm-up``: compile every game's kernels into numba's cache (the install step
of ``scripts/serve.sh``), so that the web server and the commands only load them."""

from __future__ import annotations

import tempfile
import time
from contextlib import closing
from pathlib import Path

import click
from rich.console import Console
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn

from ..core.registry import available_games, game_class
from ..errors import ParameterError
from ..search.config import available_cores
from .common import WholeRange, friendly_errors


@click.command("warm-up")
@click.option("--game", "game_ids", multiple=True, help="only this game (repeatable)")
@click.option("--jobs", type=WholeRange(1, 64), default=None,
              help="processes compiling at once  [default: one a core this process may run on, "
                   "at most one a game]")
@click.option("--quiet", is_flag=True, help="no progress bar")
@click.option("--if-needed", is_flag=True,
              help="do nothing if every game was warmed up into this code's cache before "
                   "(not with --game)")
@friendly_errors
def warm_up(game_ids: tuple[str, ...], jobs: int | None, quiet: bool, if_needed: bool) -> None:
    """Compile (or load from the cache) the kernels of every game: the rules, the playouts, the
    search, and what the web app draws. The first run after an install or an update takes a
    few minutes; later runs a few seconds."""
    from .. import warmup
    from ..web.warmup import view_step

    if if_needed and game_ids:  # the mark is of every game: a --game would be warmed anyway
        raise ParameterError("--if-needed is for every game: give it without --game")
    games = list(dict.fromkeys(game_ids)) or available_games()
    for game_id in games:
        game_class(game_id)  # an unknown game is refused before the bar starts
    marker = _marker()
    if if_needed and not game_ids and marker is not None and marker.exists():
        return
    if marker is not None:
        _check_writable(marker.parent)
    # the cores this process may run on (a CPU affinity, a container's cpuset), not the host's
    jobs = min(jobs or available_cores(), len(games))
    console = Console(stderr=True)
    t0 = time.monotonic()
    with Progress(TextColumn("{task.description}"), BarColumn(), MofNCompleteColumn(),
                  TimeElapsedColumn(), console=console, disable=quiet) as bar:
        task = bar.add_task("warming up", total=len(games))
        lines = not quiet and not console.is_terminal  # a log sees no bar: a line a game

        def progress(done: int, total: int, game_id: str) -> None:
            bar.update(task, completed=done,
                       description=f"compiling {game_id}" if game_id else "done")
            if lines and game_id:
                console.print(f"compiling {game_id} ({done + 1} of {total}), "
                              f"{time.monotonic() - t0:.0f} s elapsed",
                              markup=False, highlight=False, soft_wrap=True)

        steps = (*warmup.STEPS, view_step)
        if jobs == 1:
            warmup.warm_up(games, steps, progress=progress)
        else:  # the processes say nothing before a game is done: a line as each one is
            bar.update(task, description=f"compiling in {jobs} processes")
            # closed however the loop is left (Ctrl-C included): that ends the processes
            with closing(warmup.warm_up_in_processes(games, jobs, steps)) as ready:
                for done, game_id in enumerate(ready, 1):
                    bar.update(task, completed=done)
                    if lines:
                        console.print(f"{game_id} ready ({done} of {len(games)}), "
                                      f"{time.monotonic() - t0:.0f} s elapsed",
                                      markup=False, highlight=False, soft_wrap=True)
    if marker is not None and not game_ids:
        marker.touch()
    if not quiet:
        console.print(f"kernels of {len(games)} games ready in {time.monotonic() - t0:.1f} s")


def never_warmed_up() -> bool:
    """Whether this code's kernel cache has no mark of a whole warm-up (a fresh install): a
    command's first calls may then compile kernels for minutes."""
    marker = _marker()
    return marker is not None and not marker.exists()


def _marker() -> Path | None:
    """A file in this code's kernel cache (``kernel_cache.py``) saying every game was warmed
    up into it; ``None`` when numba keeps its caches beside the sources. Numba files a
    kernel's cache by its source file's path and checks that file's time, so the mark names
    both: another checkout of the same code, or the same files written again (a reinstall),
    finds no mark and warms up."""
    import hashlib

    from numba.core import config

    from .. import kernel_cache

    cache = getattr(config, "CACHE_DIR", "")
    if not cache:
        return None
    stamp = hashlib.sha256()
    for source in kernel_cache.kernel_sources(kernel_cache.PACKAGE):
        stamp.update(f"{source}\0{source.stat().st_mtime_ns}\0".encode())
    return Path(cache) / f"warmed-up-{stamp.hexdigest()[:16]}"


def _check_writable(cache: Path) -> None:
    """Raises: ParameterError when the kernel cache takes no file (a read-only disk): the
    kernels compiled would be kept nowhere, and the end would fail on the mark."""
    try:
        cache.mkdir(parents=True, exist_ok=True)
        with tempfile.TemporaryFile(dir=cache):
            pass
    except OSError as exc:
        raise ParameterError(f"the kernel cache {str(cache)!r} cannot be written "
                             f"({exc.strerror or exc}): point NUMBA_CACHE_DIR at a folder "
                             "that can") from None
