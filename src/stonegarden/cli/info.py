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
        resolved = cls().params  # what a default game makes of each parameter
        for p in cls.param_specs:
            # no declared default: derived from the others, or none at all (no turn limit)
            default = _as_typed(p.default) if p.default is not None else (
                "none" if resolved[p.name] is None else "derived")
            click.echo(f"    {p.name} (default {default}): {p.doc}")


def _as_typed(value: object) -> str:
    """A default as one would give it with ``--param`` (``()`` and ``(0, 0)`` were Python's
    forms): booleans in lower case, a pair or list with commas, an empty list as "empty"."""
    if isinstance(value, bool):
        return str(value).lower()
    if isinstance(value, (list, tuple)):
        return ",".join(str(v) for v in value) if value else "empty"
    return str(value)
