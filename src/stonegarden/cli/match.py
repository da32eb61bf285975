"""``stonegarden match GAME A B``: agents A and B play N games with seats alternating, in
parallel worker processes; prints a summary (last line) or one JSON object."""

from __future__ import annotations

import contextlib
import json
import math
import sys
from pathlib import Path
from typing import Any

import click

from ..agents import agent_for
from ..agents.registry import parse_agent_spec
from ..core.params import params_text, parse_param_options
from ..core.protocol import Game
from ..core.registry import make
from ..errors import JobError, ParameterError
from ..lab.adjudication import ResignRule
from ..lab.folder_lock import folder_held
from ..lab.match_records import load_results, prepare_folder, save_result, saved_files
from ..lab.runner import MAX_GAMES, MAX_SEED, run_tasks
from ..lab.selfplay import model_inputs, with_seed
from ..lab.statistics import elo_bound_text, seat_text, wld
from ..stats import MatchStats, seat_adjusted
from .common import (
    NamedPath,
    WholeRange,
    friendly_errors,
    param_option,
    resign_options,
    resign_rule,
)


def run_match(game_id: str, params: dict[str, Any], a: str, b: str, games: int, workers: int,
              seed: int, save_dir: str | None, progress: bool = True,
              resign: ResignRule | None = None, resume: bool = False) -> dict[str, Any]:
    """Play the match and return the summary dictionary. With ``resign``, a player whose own
    search rates its position below the threshold for that many moves resigns. With
    ``resume``, the games already recorded in ``save_dir`` by this same match count and are
    not played again (``resumed`` in the summary says how many).

    Raises:
        ParameterError: a bad agent spec or game parameter; ``resume`` without ``save_dir``;
            records in ``save_dir`` without ``resume``, or of another match; another match
            playing into ``save_dir``.
        RecordError: a record in ``save_dir`` that is malformed or does not replay.
    """
    if resume and not save_dir:
        raise ParameterError("--resume needs --save-dir, the folder of the match to go on with")
    game = make(game_id, **params)
    for spec in (a, b):
        if spec.strip().lower() == "human":
            raise ParameterError("a match is between agents; 'human' cannot play one")
        agent_for(game, spec)
    # the model files the agents read, by their contents: a record kept names them, so a
    # match resumed after one changed (an edited .json prior) is refused
    models = model_inputs((a, b))
    jobs = []
    for i in range(games):
        a_seat = 1 if i % 2 == 0 else 2
        sa, sb = with_seed(a, seed * 100_003 + 2 * i), with_seed(b, seed * 100_003 + 2 * i + 1)
        seats = {str(a_seat): sa, str(3 - a_seat): sb}
        jobs.append({"game": game_id, "params": game.non_default_params(), "seats": seats,
                     "index": i, "seed": seed * 7919 + i, "a_seat": a_seat, "match_seed": seed,
                     "resign": None if resign is None else resign.as_list(),
                     **({"models": models} if models else {})})
    # one match at a time in a folder: two at once wrote the same records over each other's
    held: contextlib.AbstractContextManager[None] = (
        folder_held(Path(save_dir), "--save-dir") if save_dir else contextlib.nullcontext())
    with held:
        results: list[dict[str, Any]] = []
        if save_dir:
            found = prepare_folder(Path(save_dir), resume)
            results = load_results(found, game, jobs)
        resumed = len(results)
        done = {r["index"] for r in results}
        jobs = [job for job in jobs if job["index"] not in done]

        def note(task: dict[str, Any], res: dict[str, Any]) -> None:
            if save_dir:
                save_result(game, res, Path(save_dir))
            results.append(res)

        try:
            run_tasks(jobs, note, workers=workers, description=f"{a} vs {b}", done_before=resumed,
                      tally=lambda: _tally(results), progress=progress)
        except KeyboardInterrupt:
            raise MatchStopped(_summary(game, a, b, results, resumed, games)) from None
        except JobError as exc:  # a worker died: the games recorded so far are kept
            if not save_dir:
                raise
            raise JobError(f"{exc}; {len(results)} of {games} games are recorded in "
                           f"{save_dir!r}, and the same command with --resume plays the rest",
                           reason=exc.reason) from None
        return _summary(game, a, b, results, resumed, games)


class MatchStopped(KeyboardInterrupt):
    """The match was interrupted; ``summary`` sums up the games finished before (its
    ``stopped`` field is true)."""

    def __init__(self, summary: dict[str, Any]) -> None:
        super().__init__("match stopped")
        self.summary = summary


def _summary(game: Game, a: str, b: str, results: list[dict[str, Any]], resumed: int,
             asked: int) -> dict[str, Any]:
    st = _stats(results)
    lo, hi = st.elo_ci95
    out = {
        "game": game.id, "params": game.non_default_params(), "a": a, "b": b,
        "games": st.games, "a_wins": st.a_wins, "b_wins": st.b_wins, "draws": st.draws,
        # no game finished (a match stopped at once): no figures, rather than a score of 1/2
        # and an interval of infinities, which JSON cannot hold
        "score": round(st.score, 4) if st.games else None,
        "elo": round(st.elo, 1) if st.games else None,
        # a clean sweep's open end has no finite Elo: null (JSON has no infinity)
        "elo_ci95": [_bound(lo), _bound(hi)] if st.games else None,
        "mean_plies": round(sum(len(r["moves"]) for r in results) / max(len(results), 1), 2),
        "resigned": sum(1 for r in results if r["adjudicated"]),
        "resumed": resumed,
    }
    first, second = (_stats([r for r in results if r["a_seat"] == seat]) for seat in (1, 2))
    out["a_first"], out["a_second"] = _seat_tally(first), _seat_tally(second)
    out["seat_adjusted"] = seat_adjusted(first, second)
    if len(results) < asked:
        out["stopped"] = True
    return out


def _bound(elo: float) -> float | None:
    """An interval's Elo bound as the JSON summary gives it: ``None`` where it is infinite."""
    return round(elo, 1) if math.isfinite(elo) else None


def _seat_tally(st: MatchStats) -> dict[str, int]:
    """The games A played in one seat: the first player's advantage shows in the two."""
    return {"games": st.games, "a_wins": st.a_wins, "b_wins": st.b_wins, "draws": st.draws}


def _tally(results: list[dict[str, Any]]) -> str:
    st = _stats(results)
    return f"A {st.a_wins} B {st.b_wins} draws {st.draws}"


def _stats(results: list[dict[str, Any]]) -> MatchStats:
    a = sum(1 for r in results if r["winner"] == r["a_seat"])
    d = sum(1 for r in results if not r["winner"])
    return MatchStats(a, len(results) - a - d, d)


@click.command()
@click.argument("game_id", metavar="GAME")
@click.argument("a", metavar="A")
@click.argument("b", metavar="B")
@param_option
@click.option("--games", type=WholeRange(1, MAX_GAMES), default=10, show_default=True,
              help="games in the match (seats alternate)")
@click.option("--workers", type=WholeRange(min=1), default=1, show_default=True,
              help="worker processes playing games at once (at most the cores)")
@click.option("--seed", type=WholeRange(0, MAX_SEED), default=1, show_default=True,
              help="seeds agents without a seed= and chance events")
@click.option("--save-dir", type=NamedPath(file_okay=False), default=None,
              help="save every game's record here (a folder without records, or use --resume)")
@click.option("--resume", is_flag=True,
              help="go on with the match recorded in --save-dir: its games count, the rest are played")
@click.option("--json", "as_json", is_flag=True, help="print one JSON object")
@click.option("--quiet", is_flag=True, help="no progress bar")
@resign_options
@friendly_errors
def match(game_id: str, a: str, b: str, params: tuple[str, ...], games: int, workers: int,
          seed: int, save_dir: str | None, resume: bool, as_json: bool, quiet: bool,
          resign: float | None, resign_moves: int) -> None:
    """Agent A against agent B on GAME, seats alternating (A is player 1 in even games).
    Ctrl-C (or SIGTERM) stops it with the summary of the games finished so far."""
    for name, spec in (("A", a), ("B", b)):
        if "seed" in parse_agent_spec(spec)[1]:
            click.echo(f"note: {name} {spec!r} sets its own seed, so it plays the same way in "
                       "every game (without seed=, --seed gives each game its own)", err=True)
    if resume and save_dir and not (Path(save_dir).is_dir() and saved_files(Path(save_dir))):
        # a mistyped folder would otherwise play the whole match again without a word
        click.echo(f"note: --save-dir {save_dir!r} holds no game record yet, so the match "
                   "starts from its first game", err=True)
    try:
        out = run_match(game_id, parse_param_options(params), a, b, games, workers, seed,
                        save_dir, progress=not quiet, resign=resign_rule(resign, resign_moves),
                        resume=resume)
    except MatchStopped as stop:
        out = stop.summary
    if as_json:
        click.echo(json.dumps(out))
    elif not out["games"]:
        click.echo(f"{a} vs {b} on {game_id} {params_text(out['params'])}: no game finished")
    else:
        lo, hi = out["elo_ci95"]
        again = f" ({out['resumed']} read from --save-dir)" if out["resumed"] else ""
        played = f"{out['games']} game{'s' if out['games'] != 1 else ''}"  # not "1 games"
        click.echo(f"{a} vs {b} on {game_id} {params_text(out['params'])}: {played}{again}, "
                   f"A wins {out['a_wins']}, B wins {out['b_wins']}, draws {out['draws']}; "
                   f"A scores {100 * out['score']:.1f}%, Elo A-B {out['elo']:+.0f} "
                   f"(95% CI {elo_bound_text(lo, '-')} .. {elo_bound_text(hi, '+')}); "
                   f"A moving first {wld(out['a_first'])}, "
                   f"second {wld(out['a_second'])}{seat_text(out['seat_adjusted'])}")
    if out.get("stopped"):
        hint = ("; the same command with --resume plays the rest" if save_dir
                else " (with --save-dir, the same command and --resume would play the rest)")
        click.echo(f"stopped after {out['games']} of {games} games{hint}", err=True)
        sys.exit(130)
