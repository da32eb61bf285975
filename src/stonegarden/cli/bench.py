"""``stonegarden bench playouts GAME``: random playouts per second through the game's kernel;
``stonegarden bench search GAME``: MCTS simulations per second."""

from __future__ import annotations

import json
import time

import click

from ..core.params import params_text
from ..search.config import MAX_THREADS
from .common import FiniteRange, WholeRange, friendly_errors, game_from_options, param_option


@click.group()
def bench() -> None:
    """Speed measurements (see benchmarks/ for side-by-side comparisons)."""


def say_if_compiling() -> None:
    """Where this code's kernels were never warmed up (a fresh install), say on stderr why
    nothing shows for minutes: the kernels compile before the measurement, which skips that."""
    from .warmup import never_warmed_up

    if never_warmed_up():
        click.echo("loading the kernels, or compiling those not compiled yet (minutes after an "
                   "install; not measured; `stonegarden warm-up` compiles every game's)",
                   err=True)


@bench.command()
@click.argument("game_id", metavar="GAME")
@param_option
@click.option("--seconds", type=FiniteRange(0.01, 3600), default=5.0, show_default=True,
              help="how long to measure (the kernel's compilation is not counted)")
@click.option("--seed", type=WholeRange(0, 2**62), default=1, show_default=True,
              help="seed of the first batch of playouts (later batches count up from it)")
@click.option("--json", "as_json", is_flag=True, help="print one JSON line")
@friendly_errors
def playouts(game_id: str, params: tuple[str, ...], seconds: float, seed: int,
             as_json: bool) -> None:
    """Uniformly random playouts from the initial position, per second."""
    game = game_from_options(game_id, params)
    start_state = game.initial_state()
    say_if_compiling()
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
        click.echo(f"{game_id} {params_text(game.non_default_params())}: "
                   f"{out['playouts_per_s']:.1f} playouts/s, "
                   f"mean length {out['mean_turns']:.2f} turns over {count} playouts")


@bench.command()
@click.argument("game_id", metavar="GAME")
@param_option
@click.option("--agent", "spec", default="mcts", show_default=True,
              help="a search agent spec (its time/sims are replaced by --seconds)")
@click.option("--seconds", type=FiniteRange(0.01, 3600), default=5.0, show_default=True,
              help="how long the measured search runs")
@click.option("--threads", type=WholeRange(1, MAX_THREADS), default=None,
              help="threads searching at once [default: the agent's own]")
@click.option("--json", "as_json", is_flag=True, help="print one JSON line")
@friendly_errors
def search(game_id: str, params: tuple[str, ...], spec: str, seconds: float,
           threads: int | None, as_json: bool) -> None:
    """MCTS simulations per second from the initial position (one search of --seconds; where
    the game starts with a roll, after its likeliest face)."""
    from ..agents import make_agent
    from ..agents.search_agents import SearchAgent
    from ..core.protocol import CHANCE
    from ..errors import ParameterError
    from ..search.config import Budget

    game = game_from_options(game_id, params)

    def new_agent() -> SearchAgent:
        agent = make_agent(spec)
        if not isinstance(agent, SearchAgent):
            raise ParameterError(f"{spec!r} is not a search agent (use mcts, uct-flat or "
                                 f"level:N)")
        if threads is not None:
            agent.threads = threads
        return agent

    state = game.initial_state()
    # a search at a chance event does nothing (0 simulations): measure from the first
    # position with a player to move, the likeliest face rolled (Tumbling Dice)
    while not game.is_terminal(state) and game.current_player(state) == CHANCE:
        outcomes = game.chance_outcomes(state)
        state = game.play(state, max(outcomes, key=lambda o: o[1])[0])
    if game.is_terminal(state):
        raise ParameterError(f"{game!r} is over at its start: there is no search to measure")
    # compile or load the kernels (and start any helper process) outside the timing
    warm = new_agent()
    say_if_compiling()
    warm.analyse(game, state, Budget(sims=2 * warm.threads))
    agent = new_agent()
    res = agent.analyse(game, state, Budget(seconds=seconds))
    out = {
        "game": game_id,
        "params": game.non_default_params(),
        "agent": spec,
        "threads": agent.threads,
        "sims": res.sims,
        "seconds": round(res.seconds, 3),
        "sims_per_s": res.sims / res.seconds,
        "value": round(res.value, 4),
    }
    if as_json:
        click.echo(json.dumps(out))
    else:
        click.echo(f"{game_id} {params_text(game.non_default_params())} {spec} threads={agent.threads}: "
                   f"{out['sims_per_s']:.0f} simulations/s ({res.sims} in {out['seconds']} s)")
