"""The ``stonegarden`` command group (its entry point, ``main``, is in ``__init__.py``)."""

from __future__ import annotations

import sys
from typing import Any

import click

from .. import __version__
from .analyse import analyse
from .bench import bench
from .convert import convert
from .engine import engine
from .info import games
from .lab import ladder, study, sweep
from .match import match
from .play import play
from .replay import replay
from .serve import serve
from .train import train
from .warmup import warm_up


class Commands(click.Group):
    """The sub-commands; a Ctrl-C that no command handles itself (``play`` and the lab say
    where their games are) says so in one line and exits with status 130, as shells expect,
    instead of click's bare "Aborted!" and status 1."""

    def invoke(self, ctx: click.Context) -> Any:
        try:
            return super().invoke(ctx)
        except KeyboardInterrupt:
            click.echo("\ninterrupted", err=True)
            sys.exit(130)


@click.group(cls=Commands, context_settings={"help_option_names": ["-h", "--help"]},
             epilog="Exit status: 0 done; 2 an option or an input refused, with one line on "
                    "standard error saying why (replay: also a record that does not replay, or "
                    "whose result disagrees); 130 stopped by Ctrl-C.")
@click.version_option(__version__, prog_name="stonegarden")
def cli() -> None:
    """Play, study and design Blooms, Free Go, Bridge Go and Blobs."""


cli.add_command(games)
cli.add_command(play)
cli.add_command(replay)
cli.add_command(bench)
cli.add_command(convert)
cli.add_command(match)
cli.add_command(analyse)
cli.add_command(engine)
cli.add_command(study)
cli.add_command(sweep)
cli.add_command(ladder)
cli.add_command(serve)
cli.add_command(warm_up)
cli.add_command(train)

