"""``stonegarden engine``: the JSON-lines analysis engine (docs/engine.md)."""

from __future__ import annotations

import sys

import click


@click.command()
def engine() -> None:
    """Answer JSON analysis queries, one per line on stdin, one answer per line on stdout."""
    from ..engine import bounded_lines, serve

    serve(bounded_lines(sys.stdin.buffer), sys.stdout)
