"""``stonegarden play GAME``: a game in the terminal."""

from __future__ import annotations

import sys
from pathlib import Path

import click
from rich.console import Console

from ..errors import ParameterError
from ..terminal.play import play_terminal, seat_agent
from .common import NamedPath, friendly_errors, game_from_options, param_option


@click.command()
@click.argument("game_id", metavar="[GAME]", default="blooms")
@param_option
@click.option("--p1", default="human", show_default=True,
              help="'human' (a person at this terminal) or an agent spec: 'random' (random "
                   "moves), 'level:1' .. 'level:6' (the computer's strength levels), ...")
@click.option("--p2", default="random", show_default=True,
              help="as --p1")
@click.option("--save", type=NamedPath(dir_okay=False), default=None,
              help="keep the record in this file, saved after every move")
@click.option("--seed", type=click.IntRange(0, 2**63 - 1), default=None,
              help="seed for chance events")
@friendly_errors
def play(game_id: str, params: tuple[str, ...], p1: str, p2: str, save: str | None,
         seed: int | None) -> None:
    """Play GAME (default blooms) in the terminal against a person or an agent."""
    game = game_from_options(game_id, params)
    if save and Path(save).exists():  # the record of a game played before, say
        raise ParameterError(f"--save {save!r} already exists: a game saved before is not "
                             "written over; choose another name, or remove it first")
    for spec in (p1, p2):
        seat_agent(game, spec)  # fail early on a bad spec, before the board is drawn
    console = Console(highlight=False)
    console.soft_wrap = not console.is_terminal  # into a pipe or a file, lines stay whole
    try:  # play_terminal says itself where the record is once the game has begun
        play_terminal(game, p1, p2, Path(save) if save else None, console, seed)
    except KeyboardInterrupt:
        kept = f"; the record so far is in {save}" if save else ""
        console.print(f"\ninterrupted: the game is left unfinished{kept}", markup=False)
        sys.exit(130)
