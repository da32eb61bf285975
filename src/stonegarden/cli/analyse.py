"""``stonegarden analyse RECORD``: what the search thinks of a position of a recorded game
(win probability of the player to move, best moves, principal variation), or with
``--review`` of every move (the value it lost against the best move found)."""

from __future__ import annotations

import json
from typing import Any

import click

from ..agents.search_agents import SearchAgent
from ..core.protocol import CHANCE, Game, State
from ..core.record import load_record, replay_record
from ..errors import ParameterError, PositionError
from ..search.config import Budget, SearchConfig
from ..search.result import SearchResult
from .common import friendly_errors


def analyse_position(agent: SearchAgent, game: Game, state: State, budget: Budget,
                     top: int = 8) -> dict[str, Any]:
    """The search's view of ``state`` as a JSON-ready dictionary.

    Raises:
        PositionError: the game is over or a chance event is due.
    """
    if game.is_terminal(state):
        raise PositionError(f"position {game.position_text(state)!r}: the game is over")
    if game.current_player(state) == CHANCE:
        raise PositionError(f"position {game.position_text(state)!r}: a chance event is due")
    res = agent.analyse(game, state, budget)
    return {
        "ply": state.ply,
        "player": game.current_player(state),
        "position": game.position_text(state),
        "value": round(res.value, 4),
        "proven_winner": res.proven,
        "sims": res.sims,
        "seconds": round(res.seconds, 3),
        "best_moves": [{"move": game.action_to_text(state, m.action), "visits": m.visits,
                        "value": round(m.value, 4)} for m in res.moves[:top]],
        "pv": _pv_texts(game, state, res),
    }


def _pv_texts(game: Game, state: State, res: SearchResult) -> list[str]:
    out = []
    for a in res.pv:
        if game.is_terminal(state) or game.current_player(state) == CHANCE:
            break
        out.append(game.action_to_text(state, a))
        state = game.play_unchecked(state, a)
    return out


def review_moves(agent: SearchAgent, game: Game, states: list[State], moves: list[str],
           budget: Budget) -> list[dict[str, Any]]:
    """Every move with the value it lost against the best move the search found (both as win
    probabilities of the mover; a move the search never tried is valued by searching after it)."""
    rows = []
    for i, text in enumerate(moves):
        before, after = states[i], states[i + 1]
        mover = game.current_player(before)
        if mover == CHANCE or after.resigned:
            rows.append({"ply": i, "move": text, "player": None if mover == CHANCE else mover})
            continue
        res = agent.analyse(game, before, budget)
        played = game.parse_action(before, text)
        stat = next((m for m in res.moves if m.action == played and m.visits > 0), None)
        if stat is not None:
            value_played = stat.value
        elif game.is_terminal(after):
            value_played = 0.5 + 0.5 * game.returns(after)[mover - 1]
        else:
            reply = agent.analyse(game, after, budget).value
            value_played = reply if game.current_player(after) == mover else 1.0 - reply
        best = res.moves[0]
        value_best = max(best.value, value_played)
        rows.append({
            "ply": i, "player": mover, "move": text,
            "best": game.action_to_text(before, best.action),
            "value_best": round(value_best, 4), "value_played": round(value_played, 4),
            "lost": round(value_best - value_played, 4),
        })
    return rows


@click.command()
@click.argument("record_path", metavar="RECORD", type=click.Path(dir_okay=False))
@click.option("--ply", type=int, default=None,
              help="analyse the position after this many moves (default: the last position)")
@click.option("--time", "seconds", type=click.FloatRange(min=0.001), default=None,
              help="seconds of search per position (default 2)")
@click.option("--sims", type=click.IntRange(min=1), default=None,
              help="simulations per position (reproducible with --seed)")
@click.option("--seed", type=int, default=1, show_default=True)
@click.option("--review", "review", is_flag=True,
              help="every move with the value lost against the best")
@click.option("--json", "as_json", is_flag=True, help="print one JSON object")
@friendly_errors
def analyse(record_path: str, ply: int | None, seconds: float | None, sims: int | None,
            seed: int, review: bool, as_json: bool) -> None:
    """Analyse a recorded game's position, or review all its moves."""
    if seconds is not None and sims is not None:
        raise ParameterError("give --time or --sims, not both")
    budget = Budget(sims=sims) if sims is not None else Budget(seconds=seconds or 2.0)
    record = load_record(record_path)
    game, states = replay_record(record)
    agent = SearchAgent(SearchConfig(), budget, seed, f"mcts:seed={seed}")
    moves = list(record.moves)
    if review:
        rows = review_moves(agent, game, states, moves, budget)
        if as_json:
            click.echo(json.dumps({"game": game.id, "params": game.non_default_params(),
                                   "moves": rows}))
            return
        for r in rows:
            if "lost" in r:
                click.echo(f"{r['ply']:>4}  P{r['player']} {r['move']:<14} lost {r['lost']:.3f}"
                           f"  (best {r['best']} {r['value_best']:.3f},"
                           f" played {r['value_played']:.3f})")
            else:
                click.echo(f"{r['ply']:>4}  {r['move']}")
        return
    n = len(moves) if ply is None else ply
    if not 0 <= n <= len(moves):
        raise ParameterError(f"--ply {ply!r} is outside 0..{len(moves)} for this record")
    out = analyse_position(agent, game, states[n], budget)
    if as_json:
        click.echo(json.dumps(out))
        return
    click.echo(f"ply {out['ply']}, player {out['player']} to move: win probability "
               f"{out['value']:.3f} ({out['sims']} simulations, {out['seconds']} s)")
    for m in out["best_moves"]:
        click.echo(f"  {m['move']:<14} visits {m['visits']:>7}  value {m['value']:.3f}")
    click.echo("pv: " + " ".join(out["pv"]))
