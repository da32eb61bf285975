"""``stonegarden match GAME A B``: agents A and B play N games with seats alternating, in
parallel worker processes; prints a summary (last line) or one JSON object."""

from __future__ import annotations

import json
import multiprocessing
from concurrent.futures import ProcessPoolExecutor, as_completed
from pathlib import Path
from typing import Any

import click
from rich.console import Console
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn

from ..agents import make_agent
from ..core.params import parse_param_options
from ..core.record import make_record, save_record
from ..core.registry import make
from ..errors import ParameterError
from ..lab.adjudication import ResignRule
from ..lab.selfplay import play_game, with_seed
from ..stats import MatchStats
from .common import friendly_errors, param_option, resign_options, resign_rule


def run_match(game_id: str, params: dict[str, Any], a: str, b: str, games: int, workers: int,
              seed: int, save_dir: str | None, progress: bool = True,
              resign: ResignRule | None = None) -> dict[str, Any]:
    """Play the match and return the summary dictionary. With ``resign``, a player whose own
    search rates its position below the threshold for that many moves resigns.

    Raises:
        ParameterError: a bad agent spec or game parameter.
    """
    game = make(game_id, **params)
    for spec in (a, b):
        if spec.strip().lower() == "human":
            raise ParameterError("a match is between agents; 'human' cannot play one")
        make_agent(spec)
    jobs = []
    for i in range(games):
        a_seat = 1 if i % 2 == 0 else 2
        sa, sb = with_seed(a, seed * 100_003 + 2 * i), with_seed(b, seed * 100_003 + 2 * i + 1)
        seats = {str(a_seat): sa, str(3 - a_seat): sb}
        jobs.append({"game": game_id, "params": game.non_default_params(), "seats": seats,
                     "index": i, "seed": seed * 7919 + i, "a_seat": a_seat,
                     "resign": None if resign is None else resign.as_list()})
    if save_dir:
        Path(save_dir).mkdir(parents=True, exist_ok=True)
    results = []
    console = Console(stderr=True)
    columns = (TextColumn(f"{a} vs {b}"), BarColumn(), MofNCompleteColumn(), TimeElapsedColumn(),
               TextColumn("{task.fields[tally]}"))
    with Progress(*columns, console=console, disable=not progress, transient=False) as bar:
        task = bar.add_task("match", total=games, tally="")

        def note(res: dict[str, Any]) -> None:
            if save_dir:
                _save(game, res, Path(save_dir))
            results.append(res)
            st = _stats(results)
            bar.update(task, advance=1, tally=f"A {st.a_wins} B {st.b_wins} draws {st.draws}")

        if workers <= 1:
            for job in jobs:
                note(play_game(job))
        else:
            methods = multiprocessing.get_all_start_methods()
            ctx = multiprocessing.get_context("forkserver" if "forkserver" in methods else "spawn")
            with ProcessPoolExecutor(max_workers=workers, mp_context=ctx) as pool:
                for fut in as_completed([pool.submit(play_game, job) for job in jobs]):
                    note(fut.result())
    st = _stats(results)
    lo, hi = st.elo_ci95
    return {
        "game": game_id, "params": game.non_default_params(), "a": a, "b": b,
        "games": st.games, "a_wins": st.a_wins, "b_wins": st.b_wins, "draws": st.draws,
        "score": round(st.score, 4), "elo": round(st.elo, 1),
        "elo_ci95": [round(lo, 1), round(hi, 1)],
        "mean_plies": round(sum(len(r["moves"]) for r in results) / max(len(results), 1), 2),
        "resigned": sum(1 for r in results if r["adjudicated"]),
    }


def _save(game: Any, res: dict[str, Any], folder: Path) -> None:
    state = game.replay(res["moves"])[-1]
    record = make_record(game, res["moves"], state, players=res["seats"],
                         meta={"match_game": res["index"]})
    save_record(record, folder / f"game-{res['index']:04d}.json")


def _stats(results: list[dict[str, Any]]) -> MatchStats:
    a = sum(1 for r in results if r["winner"] == r["a_seat"])
    d = sum(1 for r in results if not r["winner"])
    return MatchStats(a, len(results) - a - d, d)


@click.command()
@click.argument("game_id", metavar="GAME")
@click.argument("a", metavar="A")
@click.argument("b", metavar="B")
@param_option
@click.option("--games", type=click.IntRange(min=1), default=10, show_default=True)
@click.option("--workers", type=click.IntRange(min=1), default=1, show_default=True,
              help="worker processes")
@click.option("--seed", type=int, default=1, show_default=True,
              help="seeds agents without a seed= and chance events")
@click.option("--save-dir", type=click.Path(file_okay=False), default=None,
              help="save every game's record here")
@click.option("--json", "as_json", is_flag=True, help="print one JSON object")
@click.option("--quiet", is_flag=True, help="no progress bar")
@resign_options
@friendly_errors
def match(game_id: str, a: str, b: str, params: tuple[str, ...], games: int, workers: int,
          seed: int, save_dir: str | None, as_json: bool, quiet: bool, resign: float | None,
          resign_moves: int) -> None:
    """Agent A against agent B on GAME, seats alternating (A is player 1 in even games)."""
    out = run_match(game_id, parse_param_options(params), a, b, games, workers, seed, save_dir,
                    progress=not quiet, resign=resign_rule(resign, resign_moves))
    if as_json:
        click.echo(json.dumps(out))
    else:
        lo, hi = out["elo_ci95"]
        click.echo(f"{a} vs {b} on {game_id} {out['params']}: {out['games']} games, "
                   f"A wins {out['a_wins']}, B wins {out['b_wins']}, draws {out['draws']}; "
                   f"A scores {100 * out['score']:.1f}%, Elo A-B {out['elo']:+.0f} "
                   f"(95% CI {lo:+.0f} .. {hi:+.0f})")
