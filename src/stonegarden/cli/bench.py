"""``stonegarden bench playouts GAME``: random playouts per second through the game's kernel."""

from __future__ import annotations

import json
import time

import click

from .common import friendly_errors, game_from_options, param_option


@click.group()
def bench() -> None:
    """Speed measurements (see benchmarks/ for side-by-side comparisons)."""


@bench.command()
@click.argument("game_id", metavar="GAME")
@param_option
@click.option("--seconds", type=click.FloatRange(min=0.01), default=5.0, show_default=True)
@click.option("--seed", type=int, default=1, show_default=True)
@click.option("--json", "as_json", is_flag=True, help="print one JSON line")
@friendly_errors
def playouts(game_id: str, params: tuple[str, ...], seconds: float, seed: int,
             as_json: bool) -> None:
    """Uniformly random playouts from the initial position, per second."""
    game = game_from_options(game_id, params)
    start_state = game.initial_state()
    game.random_playouts(start_state, 1, 0)  # compile or load the kernel outside the timing
    batch, count, entries, wins = 1, 0, 0, [0, 0, 0]
    t0 = time.perf_counter()
    while True:
        totals = game.random_playouts(start_state, batch, seed + count)
        count += batch
        wins = [wins[i] + int(totals[i]) for i in range(3)]
        entries += int(totals[3])
        elapsed = time.perf_counter() - t0
        if elapsed >= seconds:
            break
        # grow batches so timing overhead stays negligible, but never overshoot by much
        per = elapsed / count
        batch = max(1, min(batch * 2, int((seconds - elapsed) / per) + 1))
    out = {
        "game": game_id,
        "params": game.non_default_params(),
        "playouts": count,
        "seconds": round(elapsed, 3),
        "playouts_per_s": count / elapsed,
        "mean_turns": entries / count,
        "p1_wins": wins[0],
        "p2_wins": wins[1],
        "draws": wins[2],
    }
    if as_json:
        click.echo(json.dumps(out))
    else:
        click.echo(f"{game_id} {out['params']}: {out['playouts_per_s']:.1f} playouts/s, "
                   f"mean length {out['mean_turns']:.2f} turns over {count} playouts")
