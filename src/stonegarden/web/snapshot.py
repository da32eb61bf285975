"""What pages see of a game: the JSON of a position (now or at a past ply) for the viewer's
seat, with its board picture and marks, the moves, the clock, the hint and the computer's
analysis where the viewer may see them. Never a secret."""

from __future__ import annotations

import time
from typing import Any

from ..core.protocol import Game, State
from ..errors import quote
from . import clock_keeper, review_job
from .http import ApiError
from .live import Live, full_notice, listed_now
from .seats import HUMAN, OPEN, hints_allowed, may_abort, may_see_analysis, may_undo, seat_words
from .views import Marks, view_for
from .views.base import BoardView, safe_move_cells


def parse_ply(ply: Any, n: int) -> int:
    """The ply a page asks for: ``None`` or empty for now, else a decimal in ``0..n``.

    Raises:
        ApiError: 400 for anything else.
    """
    if ply is None or ply == "":
        return n
    if not isinstance(ply, str) or not (ply.isascii() and ply.isdigit()) or len(ply) > 9:
        raise ApiError(400, f"ply {quote(ply)} is not an integer in 0..{n}")
    at = int(ply)
    if not 0 <= at <= n:
        raise ApiError(400, f"ply {at} is outside the game (0..{n})")
    return at


def review_at(live: Live, ply: int, seat: int | None) -> dict[str, Any] | None:
    """The analysis point of ``ply`` as the API gives it, if the viewer may see it."""
    r = live.review
    if r is None or ply not in r.points or not may_see_analysis(live, seat):
        return None
    around = review_job.Review(r.engine, {p: r.points[p] for p in (ply - 1, ply) if p in r.points})
    return review_job.judged(around, live.moves, live.history.movers)[-1]


def last_placement(live: Live, at: int) -> int:
    """The number of moves up to the last one a player made among the first ``at`` (0: none):
    a chance event (a die rolled) places nothing, so the move before it is the one marked."""
    movers = live.history.movers
    while at > 0 and movers[at - 1] == 0:
        at -= 1
    return at


def builder_of(view: BoardView, game: Game, state: State) -> dict[str, Any]:
    """The view's move builder, and where it offers a pass whether the pass ends the game
    (``pass_ends``: the opponent passed, and a second pass counts the score), which the page
    says before it asks to pass."""
    builder = dict(view.builder(game, state))
    if builder.get("can_pass"):
        try:
            builder["pass_ends"] = game.is_terminal(game.play_text(state, "pass"))
        except ValueError:
            builder["pass_ends"] = False
    return builder


def page_state(live: Live, at: int, seat: int | None, thinking: dict[str, Any] | None,
               engine_ready: bool, max_moves: int) -> dict[str, Any]:
    """The game at ply ``at`` (checked by :func:`parse_ply`) as ``seat`` (``None``: a
    spectator) sees it; ``thinking``: what its agent is doing, as the service describes it;
    ``max_moves``: the most moves the server keeps in a game (at that many, no move can be
    played, but a person may still resign)."""
    n = len(live.moves)
    game, state = live.game, live.history.at(at)
    view = view_for(game)
    last: list[str] = []
    captured: list[str] = []
    self_captured: list[str] = []
    auto: list[str] = []
    placed = last_placement(live, at)
    if placed > 0:  # the last player's move, past the dice rolled since (Tumbling Dice)
        before = live.history.at(placed - 1)
        last = safe_move_cells(view, game, before, live.moves[placed - 1])
        after = live.history.at(placed)
        self_captured = view.self_captured_cells(game, before, after)
        captured = [c for c in view.captured_cells(game, before, after) if c not in self_captured]
        auto = [c for text in live.history.autos[placed - 1]
                for c in safe_move_cells(view, game, after, text)]
    live_now = at == n
    over = live.over if live_now else None  # a time loss ends the game at its last move
    terminal = game.is_terminal(state) or over is not None
    to_move = None if terminal else game.current_player(state)
    full = live_now and not terminal and n >= max_moves
    hint = live.hints.get((n, seat)) if live_now and seat is not None else None
    can_play = (live_now and seat is not None and not terminal and to_move == seat
                and live.seats[seat - 1] == HUMAN and live.thinking is None
                and OPEN not in live.seats and not full)
    # between two people either may resign on the other's turn too; in a full game, a person
    # on any turn (no move can be stored, and the game would wait for ever)
    can_resign = can_play or (live_now and seat is not None and not terminal
                              and (live.seats == (HUMAN, HUMAN)
                                   or (full and live.seats[seat - 1] == HUMAN)))
    targets: list[str] = []
    if can_play:
        if live.targets is None or live.targets[0] != n:
            live.targets = (n, view.legal_targets(game, state))
        targets = live.targets[1]
    point = review_at(live, at, seat)
    shown = tuple(hint["cells"]) if hint else ()
    if point is not None and point["best_move"] and not shown:  # the engine's best move
        point["cells"] = safe_move_cells(view, game, state, point["best_move"])
        shown = tuple(point["cells"])
    marks = Marks(tuple(last), (*captured, *self_captured), tuple(targets), shown, auto=tuple(auto))
    moves = [{"ply": i, "player": mover, "text": text, "auto": filled,
              "words": "" if mover else view.chance_words(game, text)}
             for i, (mover, text, filled) in enumerate(zip(live.history.movers, live.moves,
                                                            live.history.autos))]
    return {
        "id": live.id,
        "game": game.id,
        "title": game.title,
        "params": {p.name: p.to_json(game.params[p.name]) for p in game.param_specs},
        "seats": list(live.seats),
        "seat_words": [seat_words(spec) for spec in live.seats],
        "public": live.listed,
        "hints_allowed": hints_allowed(live),
        "you": seat,
        "ply": at,
        "length": n,
        "moves": moves,
        "to_move": to_move,
        "terminal": terminal,
        "over": game.is_terminal(live.state) or live.over is not None,
        "winner": over["winner"] if over else game.winner(state),
        "reason": over["reason"] if over else game.result_reason(state),
        "score": view.score_track(game, state),
        "outcome": (clock_keeper.outcome_words(live, list(view.player_names(game))) if over
                    else view.outcome(game, state)),
        "players": list(view.player_names(game)),
        "captured": captured,
        # the mover's own stones its move removed (Bridge Go): marked as captures are, said apart
        "self_captured": self_captured,
        "last": last,
        "auto": auto,
        # stones that count for nothing (Free Go's suicide, until the next move removes it)
        "no_liberty": view.no_liberty_cells(game, state),
        "svg": live.picture((at, marks.last, marks.captured, marks.targets, marks.hint),
                            lambda: view.svg(game, state, marks)),
        "builder": builder_of(view, game, state) if can_play else {"kind": "none"},
        "can_play": can_play,
        "can_resign": can_resign,
        # between two people, until both have moved: ends it with no winner
        "can_abort": live_now and seat is not None and may_abort(live),
        "position": game.position_text(state),
        "thinking": thinking,
        "engine_ready": engine_ready,
        "paused": live.paused,
        "notice": live.notice or (full_notice(n) if full else ""),
        # a move of its own to take back: not before its first (the agent or a die first)
        "can_undo": (seat is not None and may_undo(live, seat) and seat in live.history.movers
                     and not game.is_terminal(live.state) and live.over is None),
        "can_redo": seat is not None and bool(live.redo) and live.over is None,
        "hint": hint,
        "review": point,
        "analysis_open": may_see_analysis(live, seat),
        "analysis": None if live.review is None or not may_see_analysis(live, seat)
        else {"running": live.review.running or live.analysing_elsewhere is not None,
              "points": len(live.review.points),
              "of": len(review_job.wanted(n))},
        **_online(live),
    }


def _online(live: Live) -> dict[str, Any]:
    """What a snapshot says of online play: names, the open seat, the clock (with
    ``abort_in``: the seconds left for the first move the game waits for before it aborts
    itself, else ``None``; ``not_here``: the seat to move whose player has not opened the
    game yet, for whom that wait has not begun: ``abort_in`` is then the time left to open
    it), the rematch; ``in_lobby``: whether the open seat is offered in the lobby now (a
    public game a week old is no longer listed: its page said the lobby offered it)."""
    now = time.time()
    clock = live.clock.to_json(now) if live.clock else None
    if clock is not None:
        at = None if live.over is not None else clock_keeper.abort_deadline(
            live, live.state, live.history.movers, live.clock)
        clock["abort_in"] = None if at is None else round(max(0.0, at - now), 1)
        clock["not_here"] = clock_keeper.awaited(live)
    return {
        "names": {"1": live.names[0], "2": live.names[1]},
        "open": next((i + 1 for i, s in enumerate(live.seats) if s == OPEN), None),
        "in_lobby": listed_now(live.listed, live.seats, live.over is not None, live.created,
                               now),
        "clock": clock,
        # an uploaded record's time control, in words: no clock runs for it here
        "played_under": None if live.time_control is None else live.time_control.describe(),
        "rematch": live.rematch,
        # how the rematch offered was aborted (``lobby.rematch_news``: a game's own request)
        "rematch_aborted": None,
        "rematch_over": False,
    }
