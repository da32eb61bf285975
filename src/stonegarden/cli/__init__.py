"""The ``stonegarden`` command (click). Each sub-command lives in its own module."""

from __future__ import annotations

import sys


def main() -> None:
    """The entry point. Importing the commands loads numpy and numba (a second or more on a
    busy machine, before any command runs): a Ctrl-C then says so in one line and exits with
    status 130, as one while a command runs does (``main.Commands``), not with a traceback."""
    try:
        from .main import cli
    except KeyboardInterrupt:
        sys.stderr.write("\ninterrupted\n")
        sys.exit(130)
    cli()


__all__ = ["main"]
