"""``stonegarden study``, ``sweep`` and ``ladder``: the designer lab."""

from __future__ import annotations

import functools
import json
import os
import shlex
import sys
from pathlib import Path
from typing import Any

import click

from ..core.params import parse_param_options
from ..errors import ParameterError
from ..lab.runner import MAX_GAMES, MAX_SEED, check_backend
from .common import (
    F,
    FiniteRange,
    NamedPath,
    WholeRange,
    friendly_errors,
    param_option,
    resign_options,
    resign_rule,
)

workers_option = click.option("--workers", type=WholeRange(min=1), default=1, show_default=True,
                              help="games played at once: local worker processes, at most "
                                   "the cores (or the CPUs of a Ray of the command's own; a "
                                   "cluster at --address plays on all of its CPUs)")
backend_option = click.option("--backend", type=click.Choice(["local", "ray"]), default="local",
                              show_default=True, help="run games on local processes or on Ray")
address_option = click.option("--address", default=None, metavar="HOST:PORT",
                               help="the Ray cluster to run on, with --backend ray "
                                    "(default: a Ray instance of the command's own on this "
                                    "machine, with --workers CPUs)")
games_option = click.option("--games", type=WholeRange(1, MAX_GAMES), required=True,
                            help="games per study (or per cell / ladder step)")
seed_option = click.option("--seed", type=WholeRange(0, MAX_SEED), default=0, show_default=True,
                           help="base seed")
out_option = click.option("--out", type=NamedPath(file_okay=False), required=True,
                          help="directory for the database, records, plots and report")
quiet_option = click.option("--quiet", is_flag=True,
                            help="no progress bar (nor, into a log, its lines)")


def run_options(command: F) -> F:
    """The options every lab command shares: games, where they run, seed, output, resignation;
    and a Ctrl-C that says how far the run got and how to go on."""
    command = _stoppable(command)
    for option in (quiet_option, resign_options, out_option, seed_option, address_option,
                   backend_option, workers_option, games_option):
        command = option(command)
    return command


def _stoppable(fn: F) -> F:
    """A Ctrl-C prints how many games are stored and exits with status 130 (not click's bare
    "Aborted!")."""
    @functools.wraps(fn)
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        from ..lab.study import LabStopped

        try:
            return fn(*args, **kwargs)
        except LabStopped as stop:
            click.echo(str(stop), err=True)
            sys.exit(130)

    return wrapper  # type: ignore[return-value]


def _two_agents(ctx: click.Context, param: click.Parameter,
                value: tuple[str, str] | None) -> tuple[str, str] | None:
    """``--agents A B``: click takes the two words after it, whatever they are, so one spec
    followed by an option (``--agents random --games 2``) took the option for the second agent
    and then said the option was missing, though it was given."""
    for word in value or ():
        if word.startswith("-"):
            raise click.BadParameter(
                f"it takes two agent specs, A B, and {word!r} is an option, not an agent: give "
                "a second agent, or --agent SPEC for one agent playing itself", ctx, param)
    return value


def _agents(agent: str | None, agents: tuple[str, ...] | None) -> tuple[str, str]:
    if agents and agent:
        raise ParameterError("give either --agent SPEC (self-play) or --agents A B, not both")
    if agents:
        return agents[0], agents[1]
    if agent:
        return agent, agent
    raise ParameterError("give --agent SPEC (self-play) or --agents A B")


def _command() -> str:
    return "stonegarden " + " ".join(_shell_word(a) for a in sys.argv[1:])


def _shell_word(arg: str) -> str:
    """``arg`` as a shell reads it back. A byte that is not UTF-8 (a file name in another
    encoding, held by Python as a lone surrogate) is written as ``\\xNN`` in bash's ``$'...'``
    quoting: the report that names the command is UTF-8 text, which could not hold it."""
    try:
        arg.encode("utf-8")
    except UnicodeEncodeError:
        raw = os.fsencode(arg)
        return "$'" + "".join(chr(b) if 0x20 <= b < 0x7f and chr(b) not in "'\\"
                              else f"\\x{b:02x}" for b in raw) + "'"
    return shlex.quote(arg)


@click.command()
@click.argument("game_id", metavar="GAME")
@param_option
@click.option("--agent", default=None, help="agent spec playing both seats")
@click.option("--agents", nargs=2, default=None, callback=_two_agents,
              help="two agent specs A B (seats alternate)")
@run_options
@friendly_errors
def study(game_id: str, params: tuple[str, ...], agent: str | None, agents: tuple[str, ...],
          games: int, workers: int, backend: str, address: str | None, seed: int,
          out: str, resign: float | None, resign_moves: int, quiet: bool) -> None:
    """Self-play statistics with 95% intervals, a report with plots, and the records.

    Games are stored in OUT/lab.sqlite as they finish: the same command goes on after an
    interruption, and a larger --games extends the study."""
    from ..lab.study import StudySpec, check_spec, report_study, run_study
    from ..lab.study_store import StudyStore

    pair = _agents(agent, agents)
    canonical = check_spec(game_id, dict(parse_param_options(params)), pair)
    rule = resign_rule(resign, resign_moves)
    spec = StudySpec(game_id, canonical, pair, seed, resign=None if rule is None else rule.as_list())
    check_backend(backend, address)
    if agents and spec.same_games():  # A and B resolve to one agent: a study of self-play
        click.echo(f"note: {pair[0]!r} and {pair[1]!r} are one agent in {game_id} (the same "
                   "settings once its defaults are filled in), so the study is of its "
                   "self-play", err=True)
    folder = Path(out)
    with StudyStore(folder / "lab.sqlite") as store:  # the folder is this run's till the end
        results = run_study(spec, games, store, workers=workers, backend=backend,
                            address=address, progress=not quiet)
        summary = report_study(spec, results, folder, _command())
    fp = summary["first_player_win_rate"]
    click.echo(f"report: {folder / 'report.md'}")
    shown = {"games": summary["games"], "first_player_win_rate": fp,
             "first_player_score": summary["first_player_score"],
             "draw_rate": summary["draw_rate"], "length": summary["length"]}
    if "a_score" in summary:  # two agents: how they compare is the question
        shown.update({k: summary[k] for k in ("a_score", "elo_a_minus_b", "a_by_seat")})
    click.echo(json.dumps(shown))


@click.command()
@click.argument("game_id", metavar="GAME")
@param_option
@click.option("--grid", "grid", multiple=True, required=True, metavar="NAME=V1,V2|A:B:STEP",
              help="a swept parameter (repeatable; the first is the one recommendations are "
                   "per); values that are lists are parted by ';': start_scores='0,0;0,2'")
@click.option("--agent", default=None, help="agent spec playing both seats")
@click.option("--agents", nargs=2, default=None, callback=_two_agents,
              help="two agent specs A B")
@click.option("--max-draws", type=FiniteRange(0, 1), default=0.1, show_default=True,
              help="a cell is decisive when its draw rate is at most this")
@run_options
@friendly_errors
def sweep(game_id: str, params: tuple[str, ...], grid: tuple[str, ...], agent: str | None,
          agents: tuple[str, ...], max_draws: float, games: int, workers: int, backend: str,
          address: str | None, seed: int, out: str, resign: float | None,
          resign_moves: int, quiet: bool) -> None:
    """A study per grid cell: the first player's score per cell and a recommended value.

    Games are stored in OUT/lab.sqlite as they finish: the same command goes on after an
    interruption, and a larger --games extends every cell."""
    from ..lab.sweep import parse_grid, run_sweep

    result = run_sweep(game_id, dict(parse_param_options(params)), parse_grid(list(grid)),
                       _agents(agent, agents), games, Path(out), workers=workers,
                       backend=backend, address=address, seed=seed, max_draws=max_draws,
                       command=_command(), resign=resign_rule(resign, resign_moves),
                       progress=not quiet)
    click.echo(f"report: {Path(out) / 'report.md'}")
    click.echo(json.dumps({"recommendation": result["recommendation"]}, default=str))


@click.command()
@click.argument("game_id", metavar="GAME")
@param_option
@click.option("--agent", default="mcts", show_default=True, help="agent spec to ladder")
@click.option("--key", default="time", show_default=True, help="the agent option that doubles")
@click.option("--base", type=FiniteRange(min=0, min_open=True), default=0.25,
              show_default=True, help="value of the option at the lowest rung")
@click.option("--steps", type=WholeRange(1, 30), default=4, show_default=True,
              help="rungs above the lowest (each doubles the option)")
@run_options
@friendly_errors
def ladder(game_id: str, params: tuple[str, ...], agent: str, key: str, base: float, steps: int,
           games: int, workers: int, backend: str, address: str | None, seed: int,
           out: str, resign: float | None, resign_moves: int, quiet: bool) -> None:
    """The agent at base, 2*base, 4*base ... each against the rung below.

    Games are stored in OUT/lab.sqlite as they finish: the same command goes on after an
    interruption, and a larger --games extends every step."""
    from ..lab.ladder import run_ladder

    rows = run_ladder(game_id, dict(parse_param_options(params)), agent, key, base, steps, games,
                      Path(out), workers=workers, backend=backend, address=address, seed=seed,
                      command=_command(), resign=resign_rule(resign, resign_moves),
                      progress=not quiet)
    click.echo(f"report: {Path(out) / 'report.md'}")
    for r in rows:
        s = r["score"]
        click.echo(f"{r['strong']} vs {r['weak']}: {s['value']:.3f} [{s['low']:.3f}, {s['high']:.3f}]")
