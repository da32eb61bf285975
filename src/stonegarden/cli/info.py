"""``stonegarden games``: the registered games and their parameters."""

from __future__ import annotations

import click

from ..core.params import value_text
from ..core.registry import available_games, game_class


@click.command()
def games() -> None:
    """List the games and their parameters."""
    for gid in available_games():
        cls = game_class(gid)
        click.echo(f"{gid}: {cls.title}")
        resolved = cls().params  # what a default game makes of each parameter
        for p in cls.param_specs:
            # as --param takes it; no declared default: derived from the others, or none at all
            default = value_text(p.default) if p.default is not None else (
                "none" if resolved[p.name] is None else "derived")
            # the values it takes, unless the words name them all already
            named = p.kind == "bool" or (p.kind == "choice" and all(c in p.doc for c in p.choices))
            values = "" if named else p.values_text()
            click.echo(f"    {p.name} (default {default}): {p.doc}" + (f" [{values}]" if values else ""))

