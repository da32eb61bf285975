"""Entry point: ``stonegarden`` and ``python -m stonegarden``."""

from __future__ import annotations

import click

from .. import __version__
from .analyse import analyse
from .bench import bench
from .info import games
from .match import match
from .play import play
from .replay import replay


@click.group(context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(__version__, prog_name="stonegarden")
def cli() -> None:
    """Play, study and design Blooms, Free Go, Bridge Go and Blobs."""


cli.add_command(games)
cli.add_command(play)
cli.add_command(replay)
cli.add_command(bench)
cli.add_command(match)
cli.add_command(analyse)


def main() -> None:
    cli()
