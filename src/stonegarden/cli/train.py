"""``stonegarden train GAME``: self-play data, a fitted move model and its metadata."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import click

from ..agents.registry import OPTION_RANGES
from ..core.params import parse_param_options
from ..lab.runner import MAX_GAMES
from .common import NamedPath, NamedText, WholeRange, friendly_errors, param_option

#: the fit's steps a command may ask for: about three days on one core, where a typo's extra
#: digits would otherwise fit for ever
MAX_STEPS = 1_000_000


@click.command()
@click.argument("game_id", metavar="GAME")
@param_option
@click.option("--games", type=WholeRange(2, MAX_GAMES), default=1000, show_default=True,
              help="self-play games (one in ten held out to measure the model)")
@click.option("--sims", type=WholeRange(1, int(OPTION_RANGES["sims"][1])), default=2000,
              show_default=True, help="simulations a move in the self-play")
@click.option("--out", type=NamedPath(file_okay=False), default=None,
              help="folder of the data and the model  [default: train-GAME]")
@click.option("--seed", type=WholeRange(0, 2**40), default=0, show_default=True,
              help="game i of the self-play is seeded from --seed and i")
@click.option("--workers", type=WholeRange(min=1), default=1, show_default=True,
              help="self-play worker processes (at most the cores)")
@click.option("--steps", type=WholeRange(1, MAX_STEPS), default=400, show_default=True,
              help="steps of the fit (400 take about a minute on one core)")
@click.option("--prior", type=WholeRange(0, 10_000), default=30, show_default=True,
              help="virtual RAVE samples the model's prior values count as in the search "
                   "(visits where it has no RAVE)")
@click.option("--targets", type=click.Choice(["move", "visits"]), default="move",
              show_default=True,
              help="fit the moves played, or the self-play search's root visits (the models "
                   "of Free Go and Bridge Go)")
@click.option("--teacher", type=NamedText(), default="none", show_default=True, metavar="MODEL",
              help="the model the self-play's search reads: none, shipped (the game's "
                   "shipped model: a round of expert iteration) or a model file")
@click.option("--device", default="numpy", show_default=True, metavar="DEVICE",
              help="where the fit runs: numpy (the CPU), or PyTorch's torch (its best "
                   "device), torch:cpu, torch:cuda[:N] or torch:mps (pip install "
                   "'stonegarden[torch]')")
@click.option("--quiet", is_flag=True, help="no progress bar")
@friendly_errors
def train(game_id: str, params: tuple[str, ...], games: int, sims: int, out: str | None,
          seed: int, workers: int, steps: int, prior: int, targets: str, teacher: str,
          device: str, quiet: bool) -> None:
    """Train GAME's move model on self-play: play the games (a rerun with the same --out goes
    on where it stopped), fit, write OUT/GAME.npz and OUT/GAME.json; prints the metadata.
    Ctrl-C (or SIGTERM) stops it, keeping the games finished (with --workers 2 or more, those
    being played are finished first)."""
    from ..learn.train import read_games
    from ..learn.train import train as run

    folder = Path(out if out is not None else f"train-{game_id}")
    try:
        meta = run(game_id, parse_param_options(params), games=games, sims=sims, out=folder,
                   seed=seed, workers=workers, steps=steps, prior=prior, targets=targets,
                   teacher=teacher, device=device, progress=not quiet,
                   report=lambda line: click.echo(line, err=True))
    except KeyboardInterrupt:
        # games kept by a run of a larger --games beyond this one's are not among its games
        kept = sum(i < games for i in read_games(folder / "data"))
        data = str(folder / "data")
        if not (folder / "data").is_dir():  # stopped while checking the options
            click.echo("stopped before the self-play began: nothing was written", err=True)
        elif kept < games:
            click.echo(f"stopped with {kept} of {games} self-play games kept in {data!r}; the "
                       "same command goes on from there", err=True)
        else:
            click.echo(f"stopped before the model was written: the {games} self-play games are "
                       f"kept in {data!r}; the same command fits them again", err=True)
        sys.exit(130)
    click.echo(json.dumps(meta, indent=1))
