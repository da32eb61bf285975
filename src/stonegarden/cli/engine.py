"""``stonegarden engine``: the JSON-lines analysis engine (docs/engine.md)."""

from __future__ import annotations

import sys

import click

from ..search.config import MAX_THREADS, default_threads
from .common import WholeRange


@click.command()
@click.option("--threads", type=WholeRange(1, MAX_THREADS), default=default_threads,
              show_default="all cores",
              help="threads searching at once for queries that name no agent")
def engine(threads: int) -> None:
    """Answer JSON analysis queries, one per line on stdin, one answer per line on stdout."""
    from ..analysis_engine import bounded_lines, serve

    serve(bounded_lines(sys.stdin.buffer), sys.stdout, threads)
