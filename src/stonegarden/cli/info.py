"""``stonegarden games``: the registered games and their parameters."""

from __future__ import annotations

import click

from ..core.registry import available_games, game_class


@click.command()
def games() -> None:
    """List the games and their parameters."""
    for gid in available_games():
        cls = game_class(gid)
        click.echo(f"{gid}: {cls.title}")
        for p in cls.param_specs:
            default = "derived" if p.default is None else p.default
            click.echo(f"    {p.name} (default {default}): {p.doc}")
