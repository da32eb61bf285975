"""What a search thinks of positions, as JSON-ready dictionaries: one position (win
probability, best moves, principal variation) or a whole game's review (value lost by each
move). Shared by ``stonegarden analyse``, the analysis engine and the web app."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from ..agents.registry import check_to_move
from ..agents.search_agents import SearchAgent
from ..core.protocol import CHANCE, Game, State
from .config import Budget
from .result import SearchResult


def analyse_position(agent: SearchAgent, game: Game, state: State, budget: Budget,
                     top: int = 8) -> dict[str, Any]:
    """The search's view of ``state`` as a JSON-ready dictionary.

    Raises:
        PositionError: the game is over or a chance event is due.
    """
    check_to_move(game, state)
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
                 budget: Budget, done: Callable[[int], None] | None = None,
                 ) -> list[dict[str, Any]]:
    """Every move with the value it lost against the best move the search found (both as win
    probabilities of the mover; a move the search never tried is valued by searching after it).
    ``done(ply)`` is called as each move is reviewed (a progress bar)."""
    rows = []
    for i, text in enumerate(moves):
        rows.append(_review_move(agent, game, states[i], states[i + 1], i, text, budget))
        if done is not None:
            done(i)
    return rows


def _review_move(agent: SearchAgent, game: Game, before: State, after: State, ply: int,
                 text: str, budget: Budget) -> dict[str, Any]:
    mover = game.current_player(before)
    if mover == CHANCE or after.resigned:
        return {"ply": ply, "move": text, "player": None if mover == CHANCE else mover}
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
    return {
        "ply": ply, "player": mover, "move": text,
        "best": game.action_to_text(before, best.action),
        "value_best": round(value_best, 4), "value_played": round(value_played, 4),
        "lost": round(value_best - value_played, 4),
    }
