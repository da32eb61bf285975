"""What every result file records: the command that made it and the code it measured."""

from __future__ import annotations

import argparse
import contextlib
import json
import signal
import subprocess
import sys
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]

# The code a benchmark measures is this checkout's, the one code_version() names, whatever
# stonegarden is installed or on PYTHONPATH: every script imports this module before the package.
if sys.path[:1] != [str(ROOT / "src")]:
    sys.path.insert(0, str(ROOT / "src"))


def command() -> str:
    return " ".join([Path(sys.executable).name, *sys.argv])


def code_version(src: Path = ROOT / "src") -> str:
    """The commit of the tree ``src`` is in, with ``+dirty`` when ``src`` has changes (or,
    for this checkout's own ``src``, the benchmarks beside it: they are the code measuring)."""
    paths = ["."] + ([str(ROOT / "benchmarks" / "*.py")] if src == ROOT / "src" else [])
    try:
        rev = subprocess.run(["git", "-C", str(src), "rev-parse", "HEAD"], capture_output=True,
                             text=True, check=True).stdout.strip()
        dirty = subprocess.run(["git", "-C", str(src), "status", "--porcelain", "--", *paths],
                               capture_output=True, text=True).stdout.strip()
        return rev + ("+dirty" if dirty else "")
    except (subprocess.CalledProcessError, FileNotFoundError):
        return "unknown"


def checkout_src(text: str) -> Path:
    """``--src`` and the like as argparse takes them: a checkout's ``src`` directory, which
    must hold the package (a ``PYTHONPATH`` without it imports the installed one, whose code
    would be measured under this one's name)."""
    path = Path(text).resolve()
    if not (path / "stonegarden" / "__init__.py").is_file():
        raise argparse.ArgumentTypeError(f"{text!r} is not a checkout's src directory "
                                         f"(it holds no stonegarden package)")
    return path


def _bounded(text: str, kind: type[int] | type[float], least: float, above: bool,
             give: str) -> Any:
    """``text`` read as ``kind`` and at least (or, ``above``, more than) ``least`` and finite,
    as argparse takes a value; else argparse's error, ending with ``give``."""
    try:
        value = kind(text)
    except ValueError:
        noun = "a whole number" if kind is int else "a number"
        raise argparse.ArgumentTypeError(f"{text!r} is not {noun}") from None
    if not ((value > least) if above else (value >= least)) or not value < float("inf"):
        raise argparse.ArgumentTypeError(f"{text!r}: {give}")
    return value


def positive_int(text: str) -> int:
    """A count as argparse takes it (rounds, games, simulations): a whole number above 0."""
    return int(_bounded(text, int, 1, False, "give 1 or more"))


def nonnegative_int(text: str) -> int:
    """A count that may be 0 (records, agent games) or a seed, as argparse takes it."""
    return int(_bounded(text, int, 0, False, "give 0 or more"))


def nonnegative_float(text: str) -> float:
    """Seconds that may be 0 (a warm-up, a person's wait), as argparse takes them."""
    return float(_bounded(text, float, 0, False, "give a number of seconds, 0 or more"))


def positive_float(text: str) -> float:
    """A time as argparse takes it (seconds): a finite number above 0."""
    return float(_bounded(text, float, 0, True, "give a number of seconds above 0"))


def child_json(cmd: list[str], **kwargs: Any) -> dict[str, Any]:
    """The JSON line a measuring process ``cmd`` prints last; if it fails, this stops with one
    line naming it and its last words (a bad parameter, a baseline that cannot run)."""
    out = subprocess.run(cmd, capture_output=True, text=True, **kwargs)
    if out.returncode != 0:
        said = (out.stderr.strip().splitlines() or [f"exit status {out.returncode}"])[-1]
        shown = " ".join(Path(part).name if part == cmd[0] else part for part in cmd)
        sys.exit(f"{Path(sys.argv[0]).name}: error: {shown}: {said}")
    result: dict[str, Any] = json.loads(out.stdout.strip().splitlines()[-1])
    return result


def png_metadata() -> dict[str, str]:
    """The command and code version as a plot's PNG text fields (``savefig(metadata=...)``)."""
    return {"Command": command(), "Code": code_version()}


def emit(result: dict[str, Any], out: Path | None) -> None:
    """Print ``result`` as JSON, and write it to ``out`` too when one is given."""
    text = json.dumps(result, indent=1)
    print(text)
    if out:
        out.parent.mkdir(parents=True, exist_ok=True)
        out.write_text(text + "\n")


def run_main(main: Callable[[], None]) -> None:
    """Run a benchmark's ``main``: a bad game, parameter, agent or record, or a file that is not
    there, stops it with one line and exit status 1, as the ``stonegarden`` command does; Ctrl-C
    or SIGTERM stops it with one line and exit status 130, once its own clean-up (the servers and
    processes it started) has run."""
    from stonegarden.errors import StonegardenError

    signal.signal(signal.SIGTERM, _interrupt)
    try:
        main()
    except (StonegardenError, FileNotFoundError) as exc:
        sys.exit(f"{Path(sys.argv[0]).name}: error: {exc}")
    except KeyboardInterrupt:
        sys.stderr.write(f"\n{Path(sys.argv[0]).name}: stopped, nothing measured is kept\n")
        sys.exit(130)


def _interrupt(signum: int, frame: object) -> None:
    """SIGTERM as a Ctrl-C: the ``finally`` blocks stop what the benchmark started."""
    raise KeyboardInterrupt


@contextlib.contextmanager
def progress(total: int, description: str, unit: str = "steps") -> Iterator[Callable[..., None]]:
    """A bar on stderr over the ``total`` steps of a long measurement, as the lab's games have
    (where stderr is not a terminal, a line per hundredth of them); yields the call that counts
    steps done (one by default)."""
    from stonegarden.lab.runner import progress_bar, progress_line

    with progress_bar() as bar:
        job = bar.add_task(description, total=total, tally="")
        lines = not bar.console.is_terminal
        every = max(1, total // 100)

        def step(done: int = 1) -> None:
            before = int(bar.tasks[job].completed)
            bar.advance(job, done)
            if lines and (before // every < (before + done) // every or before + done >= total):
                progress_line(bar, job, 1, unit)

        yield step
