"""The ``stonegarden`` command (click). Each sub-command lives in its own module."""

from __future__ import annotations

import sys


def main() -> None:
    """The entry point. Importing the commands loads numpy and numba (a second or more on a
    busy machine, before any command runs): a Ctrl-C then says so in one line and exits with
    status 130, as one while a command runs does (``main.Commands``), not with a traceback."""
    try:
        try:
            from .main import cli
        except KeyboardInterrupt:
            sys.stderr.write("\ninterrupted\n")
            sys.exit(130)
        cli()
    finally:
        forget_caught_interrupts()


def forget_caught_interrupts() -> None:
    """A Ctrl-C (or the SIGTERM the commands take as one) that struck inside code run from text
    by ``exec``, as libraries run some while they are imported (SciPy copying NumPy's names),
    marks the interpreter as stopped by a Ctrl-C no one caught, though the command caught it:
    at its end the interpreter then killed itself with SIGINT after the command had said
    "interrupted", where it exits with 130. A run of text clears the mark, which only such a
    run sets."""
    exec("None")  # a constant; see above


__all__ = ["main"]
