"""What a search thinks of positions, as JSON-ready dictionaries: one position (win
probability, best moves, principal variation) or a whole game's review (value lost by each
move). Shared by ``stonegarden analyse``, the analysis engine and the web app."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from ..core.protocol import CHANCE, Game, State
from ..search.config import Budget
from ..search.result import MoveStat, SearchResult
from .registry import check_to_move
from .search_agents import SearchAgent

#: the loss of winning probability from which a move is an inaccuracy, a mistake, a blunder
#: (docs/playing.md); two seeds' searches of one position differ by 0.006 in the median and 0.017
#: at the 90th percentile (benchmarks/review_noise.py), so the smallest is well above that
THRESHOLDS = (("blunder", 0.25), ("mistake", 0.12), ("inaccuracy", 0.06))
#: simulations a played move needs in the search of the position before it for its value there
#: to be taken; a move with fewer is valued by searching the position after it (a handful of
#: playouts is noise: a move tried once is worth 0 or 1)
MIN_VISITS = 100


def judgement(loss: float | None) -> str | None:
    """The judgement of a loss of winning probability by ``THRESHOLDS``, or ``None``."""
    if loss is None:
        return None
    return next((name for name, least in THRESHOLDS if loss >= least), None)


def analyse_position(agent: SearchAgent, game: Game, state: State, budget: Budget,
                     top: int = 8) -> dict[str, Any]:
    """The search's view of ``state`` as a JSON-ready dictionary: the win probability of the
    player to move, and of each best move once made (a move the solver proved at its exact
    value: 1, 0.5 or 0, with its ``proven_winner``).

    Raises:
        PositionError: the game is over or a chance event is due.
    """
    check_to_move(game, state)
    res = agent.analyse(game, state, budget)
    mover = game.current_player(state)
    return {
        "ply": state.ply,
        "player": mover,
        "position": game.position_text(state),
        "value": round(res.value, 4),
        "proven_winner": res.proven,
        "sims": res.sims,
        "seconds": round(res.seconds, 3),
        # a move the solver proved is worth its proof, as the root's value is, and says so
        # (a move tried once may be worth 1 or 0 too)
        "best_moves": [{"move": game.action_to_text(state, m.action), "visits": m.visits,
                        "value": round(move_value(m, mover), 4), "proven_winner": m.proven}
                       for m in res.moves[:top]],
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
                 budget: Budget, done: Callable[[dict[str, Any]], None] | None = None,
                 ) -> list[dict[str, Any]]:
    """Every move with the value it lost against the best move the search found, both as win
    probabilities of the mover, and its ``judgement`` by ``THRESHOLDS``. A played move, or the
    search's best, that the search of the position before it tried fewer than ``MIN_VISITS``
    times is valued by searching the position after it (the rolls' expectation where a
    chance event follows).
    Chance events and resignations get no loss. ``done(row)`` is called as each move is
    reviewed (a progress bar; the rows so far, should the review be interrupted).

    Each position is searched alone (``agent.forget()`` first), so it is the search that
    ``analyse --ply`` and the engine make of it with the same seed, whatever the review
    searched before; a position after a move, searched to value the move, is the next move's
    position before and is not searched again."""
    last: list[tuple[State, SearchResult]] = []

    def search(state: State) -> SearchResult:
        if last and last[0][0] is state:
            return last[0][1]
        agent.forget()
        res = agent.analyse(game, state, budget)
        last[:] = [(state, res)]
        return res

    rows = []
    for i, text in enumerate(moves):
        rows.append(_review_move(search, game, states[i], states[i + 1], i, text))
        if done is not None:
            done(rows[-1])
    return rows


def _review_move(search: Callable[[State], SearchResult], game: Game, before: State,
                 after: State, ply: int, text: str) -> dict[str, Any]:
    mover = game.current_player(before)
    if mover == CHANCE or after.resigned:
        return {"ply": ply, "move": text, "player": None if mover == CHANCE else mover}
    res = search(before)
    played = game.parse_action(before, text)

    def worth(stat: MoveStat | None, then: State) -> float:
        """The mover's value of a move: the search's where it tried the move often enough
        or proved it, else a search of the position after it."""
        if stat is not None and (stat.visits >= MIN_VISITS or stat.proven is not None):
            return move_value(stat, mover)
        return _value_for(search, game, then, mover)

    best = res.moves[0]
    value_other = (None if best.action == played
                   else worth(best, game.play_unchecked(before, best.action)))
    # the position after the move played is searched last: the next move's position before
    value_played = worth(next((m for m in res.moves if m.action == played), None), after)
    if value_other is not None and value_other > value_played:
        best_text, value_best = game.action_to_text(before, best.action), value_other
    else:  # the move played is worth as much as any the search found: it is the best found
        best_text, value_best = game.action_to_text(before, played), value_played
    lost = round(value_best - value_played, 4)
    return {
        "ply": ply, "player": mover, "move": text, "best": best_text,
        "value_best": round(value_best, 4), "value_played": round(value_played, 4),
        "lost": lost, "judgement": judgement(lost),
    }


def move_value(stat: MoveStat, mover: int) -> float:
    """A root move's value for ``mover``: its proof's where the search proved it."""
    if stat.proven is None:
        return stat.value
    return 1.0 if stat.proven == mover else 0.5 if stat.proven == 0 else 0.0


def _value_for(search: Callable[[State], SearchResult], game: Game, state: State,
               player: int) -> float:
    """``player``'s win probability at ``state`` (draws half): the result at the end, the
    expectation over the outcomes at a chance event, else a search's value."""
    if game.is_terminal(state):
        return 0.5 + 0.5 * game.returns(state)[player - 1]
    to_move = game.current_player(state)
    if to_move == CHANCE:
        return sum(p * _value_for(search, game, game.play_unchecked(state, a), player)
                   for a, p in game.chance_outcomes(state))
    value = search(state).value
    return value if to_move == player else 1.0 - value
