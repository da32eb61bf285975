"""``stonegarden play GAME``: a game in the terminal."""

from __future__ import annotations

import sys
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import click
from rich.console import Console

from ..core.protocol import Game, State
from ..core.record import ended_outside_rules, read_record_bytes, replay_record
from ..errors import ParameterError
from ..terminal.play import play_terminal, seat_agent
from .common import (
    NamedPath,
    WholeRange,
    friendly_errors,
    game_from_options,
    param_option,
    parse_record_file,
)


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
@click.option("--seed", type=WholeRange(0, 2**63 - 1), default=None,
              help="seed for chance events")
@click.option("--resume", type=NamedPath(dir_okay=False), default=None, metavar="FILE",
              help="go on with the unfinished game of this record (a --save file): its game, "
                   "moves and players (unless --p1/--p2 say otherwise), saved there again")
@friendly_errors
def play(game_id: str, params: tuple[str, ...], p1: str, p2: str, save: str | None,
         seed: int | None, resume: str | None) -> None:
    """Play GAME (default blooms) in the terminal against a person or an agent."""
    history: tuple[list[str], list[State]] | None = None
    extras: tuple[dict[str, str], Mapping[str, Any] | None] = ({}, None)
    if resume is not None:
        game, history, p1, p2, extras = resumed(resume, p1, p2)
        save = resume
    else:
        game = game_from_options(game_id, params)
        if save and Path(save).exists():  # the record of a game played before, say
            raise ParameterError(f"--save {save!r} already exists: a game saved before is not "
                                 "written over; choose another name, or remove it first")
    for spec in (p1, p2):
        seat_agent(game, spec)  # fail early on a bad spec, before the board is drawn
    from .warmup import never_warmed_up

    if never_warmed_up():  # a first move, an agent's or a hint would wait without a word
        click.echo("loading the kernels, or compiling those not compiled yet: the first moves "
                   "may take minutes after an install (`stonegarden warm-up` compiles every "
                   "game's once)", err=True)
    console = Console(highlight=False)
    console.soft_wrap = not console.is_terminal  # into a pipe or a file, lines stay whole
    try:  # play_terminal says itself where the record is once the game has begun
        play_terminal(game, p1, p2, Path(save) if save else None, console, seed, history,
                      names=extras[0], meta=extras[1])
    except KeyboardInterrupt:
        kept = f"; the record so far is in {save}" if save else ""
        console.print(f"\ninterrupted: the game is left unfinished{kept}", markup=False)
        sys.exit(130)


def resumed(path: str, p1: str, p2: str) -> tuple[
        Game, tuple[list[str], list[State]], str, str,
        tuple[dict[str, str], Mapping[str, Any] | None]]:
    """The game of the record at ``path``, its moves and the states they lead to, and its
    seats: the record's players where ``--p1``/``--p2`` were not given (a player who is no
    agent, a person named on the web page, is a person here); and its people and ``meta``
    to write back, without a clock (the terminal game has none).

    Raises:
        ParameterError: a GAME, ``--param`` or ``--save`` given too (the record names its game
            and is saved to itself), a game that is over, or an agent of the record that cannot
            play here (its model file gone) and no ``--p1``/``--p2`` seating another.
        RecordError: a file that is no record, or whose moves do not replay.
    """
    ctx = click.get_current_context()
    given = {name for name in ("game_id", "params", "save")
             if ctx.get_parameter_source(name) is not click.core.ParameterSource.DEFAULT}
    if given:
        words = {"game_id": "GAME", "params": "--param", "save": "--save"}
        raise ParameterError(f"--resume plays the record's own game and saves it to the record: "
                             f"give no {' or '.join(words[n] for n in sorted(given))} with it")
    record = parse_record_file(path, read_record_bytes(path))
    game, states = replay_record(record)
    ended = ended_outside_rules(record)  # lost on time, aborted: over, though not by the rules
    if game.is_terminal(states[-1]) or ended is not None:
        raise ParameterError(f"the game in {path!r} is over: `stonegarden replay {path}` shows "
                             "it")
    specs = {"1": p1, "2": p2}
    names: dict[str, str] = {}  # the people the record names, written back for their seats
    for seat, spec in (record.players or {}).items():
        seated = ctx.get_parameter_source(f"p{seat}") is not click.core.ParameterSource.DEFAULT
        try:
            seat_agent(game, spec)
        except ParameterError as exc:
            if not names_an_agent(spec):  # a person's name ("Ana")
                names[seat], spec = spec, "human"
            elif seated:  # the command line seats another: the spec is no one's name
                continue
            else:  # an agent that cannot play here (its model file moved): no person's moves
                raise ParameterError(f"the record's player {seat} cannot play here: {exc}; "
                                     f"give --p{seat} human, or another agent") from None
        if not seated:
            specs[seat] = spec
    meta = record.meta
    if meta is not None and "clock" in meta:
        # the moves played here are on no clock: the record would say they were
        meta = {key: value for key, value in meta.items() if key != "clock"}
        click.echo("note: the record's clock is left out of it from now on: the terminal "
                   "game has none", err=True)
    return (game, (list(record.moves), states), specs["1"], specs["2"], (names, meta))


def names_an_agent(spec: str) -> bool:
    """Whether ``spec`` names a kind of agent (``mcts:model=gone.npz``), which may still be
    refused, rather than a person ("Ana")."""
    from ..agents import agent_names, parse_agent_spec

    try:
        return parse_agent_spec(spec)[0] in agent_names()
    except ParameterError:
        return False
