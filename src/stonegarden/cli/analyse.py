"""``stonegarden analyse RECORD``: what the search thinks of a position of a recorded game
(win probability of the player to move, best moves, principal variation), or with
``--review`` of every move (the value it lost against the best move found)."""

from __future__ import annotations

import contextlib
import json
import math
import sys
import threading
import time
from collections.abc import Iterator
from typing import Any

import click
from rich.console import Console

from ..agents.analysis import THRESHOLDS, analyse_position, review_moves
from ..agents.search_agents import SearchAgent
from ..core.protocol import CHANCE, Game, State
from ..core.record import replay_record
from ..errors import ParameterError
from ..search.config import MAX_THREADS, Budget, SearchConfig, default_threads
from ..search.parallel import reproducible_parallel
from .common import (
    FiniteRange,
    WholeRange,
    friendly_errors,
    parse_record_file,
    read_record_argument,
)

#: a judgement's mark, as in the web app's move list
MARKS = {"inaccuracy": "?!", "mistake": "?", "blunder": "??"}


@click.command()
@click.argument("record_path", metavar="RECORD", type=click.Path(dir_okay=False))
@click.option("--ply", type=WholeRange(), default=None,
              help="analyse the position after this many moves (default: the last position "
                   "with a player to move, the one before the end in a finished game)")
@click.option("--time", "seconds", type=FiniteRange(0.001, 600), default=None,
              help="seconds of search per position (default 2)")
@click.option("--sims", type=WholeRange(1, 10_000_000), default=None,
              help="simulations per position (reproducible with --seed and the same --threads; "
                   "the default --threads is the machine's cores)")
@click.option("--seed", type=WholeRange(0, 2**63 - 1), default=1, show_default=True,
              help="seed of the search")
@click.option("--threads", type=WholeRange(1, MAX_THREADS), default=default_threads,
              show_default="all cores", help="threads searching at once")
@click.option("--review", "review", is_flag=True,
              help="every move with the value lost against the best")
@click.option("--json", "as_json", is_flag=True, help="print one JSON object")
@click.option("--quiet", is_flag=True, help="no progress bar")
@friendly_errors
def analyse(record_path: str, ply: int | None, seconds: float | None, sims: int | None,
            seed: int, threads: int, review: bool, as_json: bool, quiet: bool) -> None:
    """Analyse a recorded game's position, or review all its moves. RECORD - reads the record
    from standard input. Ctrl-C (or SIGTERM) in a review prints the moves reviewed so far."""
    if seconds is not None and sims is not None:
        raise ParameterError("give --time or --sims, not both")
    if review and ply is not None:
        raise ParameterError("give --ply (one position) or --review (every move), not both")
    budget = Budget(sims=sims) if sims is not None else Budget(seconds=seconds or 2.0)
    record = parse_record_file(record_path, read_record_argument(record_path))
    game, states = replay_record(record)
    parallel = reproducible_parallel(seed, budget.seconds)
    agent = SearchAgent(SearchConfig(), budget, seed,
                        f"mcts:seed={seed},threads={threads},parallel={parallel}", threads,
                        parallel)
    moves = list(record.moves)
    if review and not moves:  # no bar of 0/0 above the words saying so
        _print_review(game, [], as_json, False)
        return
    if review:
        from ..lab.runner import progress_bar, progress_line  # a search a move: minutes

        rows: list[dict[str, Any]] = []
        stopped = False
        with progress_bar(disable=quiet) as bar:
            task = bar.add_task("review", total=len(moves), tally="")
            # a bar is drawn on a terminal only: into a log, a line at every hundredth
            lines = not quiet and not bar.console.is_terminal
            step = max(1, len(moves) // 100)

            def advance(row: dict[str, Any]) -> None:
                rows.append(row)
                bar.advance(task)
                if lines:
                    progress_line(bar, task, step, "moves")

            try:
                review_moves(agent, game, states, moves, budget, done=advance)
            except KeyboardInterrupt:  # minutes of searches: keep the moves reviewed
                stopped = True
        _print_review(game, rows, as_json, stopped)
        if stopped:
            click.echo(f"stopped after {len(rows)} of {len(moves)} moves", err=True)
            sys.exit(130)
        return
    if ply is None:
        n = _last_to_move(game, states)
    elif not 0 <= ply <= len(moves):
        raise ParameterError(f"--ply {ply!r} is outside 0..{len(moves)} for this record")
    else:
        n = ply
        if game.is_terminal(states[n]):
            if n == 0:
                raise ParameterError("the game is over before its first move: no position "
                                     "of this record has a player to move")
            raise ParameterError(f"the game is over after {n} moves: --ply 0..{n - 1}, or "
                                 "--review for every move")
        if game.current_player(states[n]) == CHANCE:
            then = (f"--ply {n + 1} is the position after its roll {moves[n]!r}"
                    if n < len(moves) else "the record ends before the roll")
            raise ParameterError(f"a roll is due after {n} moves, not a player's move: {then}")
    with searching(f"searching the position after {n} move{'' if n == 1 else 's'}", budget,
                   quiet):
        out = analyse_position(agent, game, states[n], budget)
    if as_json:
        click.echo(json.dumps(out))
        return
    click.echo(f"ply {out['ply']}, player {out['player']} to move: win probability "
               f"{out['value']:.3f}{_proof(out['proven_winner'], out['player'], ', a')} "
               f"({out['sims']} simulation{'' if out['sims'] == 1 else 's'}, "
               f"{out['seconds']} s)")
    for m in out["best_moves"]:  # a proven move is told from one whose playouts all won
        click.echo(f"  {m['move']:<14} visits {m['visits']:>7}  value {m['value']:.3f}"
                   + _proof(m["proven_winner"], out["player"], " "))
    click.echo("pv: " + " ".join(out["pv"]))


@contextlib.contextmanager
def searching(what: str, budget: Budget, quiet: bool) -> Iterator[None]:
    """A bar on a terminal's stderr while one search runs (up to --time 600: minutes without a
    word otherwise): the seconds of its time filled, or the seconds so far of its --sims.
    Gone when the search ends; nothing in a log or a pipe."""
    console = Console(stderr=True)
    if quiet or not console.is_terminal:
        yield
        return
    from rich.progress import BarColumn, Progress, TextColumn, TimeElapsedColumn

    total = budget.seconds if budget.sims is None else None
    columns = [TextColumn(what), BarColumn(), TimeElapsedColumn()]
    if total is not None:
        columns.append(TextColumn(f"of {total:g} s"))
    with Progress(*columns, console=console, transient=True) as bar:
        task = bar.add_task(what, total=total)
        stop = threading.Event()

        def fill() -> None:  # the search holds this thread: time fills the bar
            start = time.monotonic()
            while not stop.wait(0.25):
                bar.update(task, completed=min(time.monotonic() - start, total or 0))

        filler = threading.Thread(target=fill, daemon=True)
        if total is not None:
            filler.start()
        try:
            yield
        finally:
            stop.set()


def _proof(winner: int | None, player: int, lead: str) -> str:
    """``lead`` and "proven win" (or loss, or draw) for ``player``, or nothing unproven."""
    if winner is None:
        return ""
    return f"{lead} proven {'draw' if winner == 0 else 'win' if winner == player else 'loss'}"


def _print_review(game: Game, rows: list[dict[str, Any]], as_json: bool,
                  stopped: bool) -> None:
    """The moves reviewed: one JSON object (``stopped`` when interrupted), or a line each."""
    if as_json:
        out: dict[str, Any] = {"game": game.id, "params": game.non_default_params(),
                               "moves": rows}
        if stopped:
            out["stopped"] = True
        click.echo(json.dumps(out))
        return
    if not rows and not stopped:  # a legend with no row under it would look cut off
        click.echo("the record has no moves: nothing to review")
        return
    least = {name: value for name, value in THRESHOLDS}
    click.echo("values: the mover's win probability; a loss from "
               + ", ".join(f"{least[name]:g} is {mark} ({name})"
                           for name, mark in MARKS.items()))
    for r in rows:
        if "lost" in r:
            mark = MARKS.get(r["judgement"], "")
            # rounded down, as the thresholds count it: 0.0599 is no inaccuracy, and says
            # 0.059, not 0.060
            lost = math.floor(r["lost"] * 1000 + 1e-9) / 1000
            click.echo(f"{r['ply']:>4}  P{r['player']} {r['move']:<14} lost {lost:.3f}"
                       f" {mark:<2}  (best {r['best']} {r['value_best']:.3f},"
                       f" played {r['value_played']:.3f})")
        else:  # a roll (no player), or a resignation: whose, as a move's line says it
            who = f"P{r['player']} " if r["player"] is not None else ""
            click.echo(f"{r['ply']:>4}  {who}{r['move']}")


def _last_to_move(game: Game, states: list[State]) -> int:
    """The last position in which a player (not chance) is to move.

    Raises:
        ParameterError: no position of the record has one.
    """
    for n in range(len(states) - 1, -1, -1):
        if not game.is_terminal(states[n]) and game.current_player(states[n]) != CHANCE:
            return n
    raise ParameterError("no position of this record has a player to move")
