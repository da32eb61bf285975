"""The study tools of a game against an agent, and of a person's own turn: cancel what the
agent thinks, resume it, undo back to a seat's previous turn, redo, and a hint. Each is a
request of a seat's holder; the service (``service.py``) holds the game and its store.
"""

from __future__ import annotations

import asyncio
import contextlib
from typing import Any

from ..core.record import result_of
from ..errors import StonegardenError, StoreError, quote
from ..store import StaleError
from . import clock_keeper, job_kinds
from .agent_turns import cancelled
from .http import ApiError
from .live import Live
from .seats import HUMAN, OPEN, hints_allowed, may_undo
from .service import GameService
from .views import view_for
from .views.base import safe_move_cells


async def cancel(svc: GameService, live: Live, secret: Any) -> None:
    """Discard what the agent is thinking and pause it (undo or resume afterwards), on
    every server process holding the game.

    Raises:
        ApiError: 403 without a seat secret, 409 when no agent is thinking.
    """
    svc.require_seat(live, secret)
    t = live.thinking
    if t is None:
        raise ApiError(409, "no agent is thinking")
    svc.turns.stop(live)
    svc.turns.pause(live, cancelled(live, t.spec))
    # the others hear of it (the thinker stops); the pause outlasts this process
    with contextlib.suppress(StoreError):
        await asyncio.to_thread(svc.store.cancel_thinking, live.id, t.ply)


async def resume(svc: GameService, live: Live, secret: Any, client: str = "") -> None:
    """Let a paused agent think again.

    Raises:
        ApiError: 403 without a seat secret, 429 no room in the job queue.
    """
    svc.require_seat(live, secret)
    if (live.thinking is None and not live.game.is_terminal(live.state)
            and any(s not in (HUMAN, OPEN) for s in live.seats)):
        svc.admit(client)  # its agent may think now
    live.paused = False
    live.notice = ""
    live.client = client
    await svc.turns.advance(live, client, resume=True)
    svc.hub.publish(live.id)


async def undo(svc: GameService, live: Live, secret: Any) -> None:
    """Take back moves to this seat's previous turn (only against an agent).

    Raises:
        ApiError: 403 without a seat secret, 409 between two humans, for an agent's seat, with
        nothing to undo or once the game is over (resigned at the server's move limit too).
    """
    seat = svc.require_seat(live, secret)
    if live.seats[seat - 1] != HUMAN:
        raise ApiError(409, f"undo is for a person playing an agent; player {seat} is "
                            f"the agent {quote(live.seats[seat - 1])}")
    if not may_undo(live, seat):
        raise ApiError(409, "undo is for games against an agent; between two people it "
                            "would need the other player's consent")
    if live.game.is_terminal(live.state) or live.over is not None:  # resigned at the limit
        raise ApiError(409, "the game is over: its moves can no longer be taken back")
    movers = live.history.movers
    keep = next((k for k in range(len(movers) - 1, -1, -1) if movers[k] == seat), None)
    if keep is None:
        raise ApiError(409, f"player {seat} has no move to undo")
    redo = tuple(live.moves[keep:]) + tuple(live.redo)
    count = len(live.moves)
    async with live.lock:
        if len(live.moves) != count:  # the agent's move was written first: it goes on
            raise ApiError(409, f"the game has moved on: ply {len(live.moves)}")
        if live.over is not None:  # a resignation was written first
            raise ApiError(409, "the game is over: its moves can no longer be taken back")
        svc.still_served(live)
        kept = live.history.at(keep)
        try:
            await asyncio.to_thread(svc.store.truncate, live.id, keep, count,
                                    result_of(live.game, kept), redo,
                                    to_move=clock_keeper.seat_to_move(live, kept),
                                    line=tuple(live.moves))
        except StaleError as exc:
            svc.invalidate(live.id)
            raise ApiError(409, str(exc)) from None
        except StoreError as exc:  # nothing was undone: an agent thinking goes on
            raise ApiError(503, str(exc)) from None
        # its move, written meanwhile, waits for the lock and then finds the game moved on
        svc.turns.forget(live)
        # everything the undo changes here changes before the lock is let go: a move
        # that waited for it finds the undone position with its redo line, and clears it
        live.history.truncate(keep)
        live.pictures.clear()
        live.hints = {k: h for k, h in live.hints.items() if k[0] <= keep}
        live.redo = list(redo)
        live.paused = False
        live.notice = ""
        if live.review is not None:  # the store's truncate dropped the same points
            live.review.truncate(keep)
    svc.hub.publish(live.id)


async def redo(svc: GameService, live: Live, secret: Any, client: str = "") -> None:
    """Replay undone moves up to this seat's next turn.

    Raises:
        ApiError: 403 without a seat secret, 409 with nothing to redo or once the game is
        over, 429 when an agent would think and the client has no room in the job queue.
    """
    seat = svc.require_seat(live, secret)
    if live.over is not None:
        raise ApiError(409, "the game is over: its undone moves can no longer be replayed")
    if not live.redo:
        raise ApiError(409, "nothing to redo")
    if any(s != HUMAN for s in live.seats):
        svc.admit(client)
    svc.turns.forget(live)
    game = live.game
    played_own = False
    while live.redo and not game.is_terminal(live.state):
        mover = game.current_player(live.state)
        if mover == seat and played_own:
            break
        text = live.redo[0]
        try:
            after = game.play_text(live.state, text)
        except StonegardenError:
            live.redo = []
            break
        played_own = played_own or mover == seat
        try:
            await svc.append_move(live, text, after, tuple(live.redo[1:]))
        except ApiError:
            # the moves redone before are stored: an agent to move after them thinks
            live.paused = False
            await svc.turns.advance(live, client)
            raise
    live.paused = False
    live.client = client
    await svc.turns.advance(live, client)


async def hint(svc: GameService, live: Live, secret: Any, client: str = "") -> dict[str, Any]:
    """A short search's best move for the asking seat, on its own turn; shown to that seat
    only.

    Raises:
        ApiError: 403 without a seat secret, or between two people who did not both agree to
        hints when the game was created; 409 when the game is over, it is not this seat's
        turn, or the position changed while the hint was searched (an undo); 429 no room in
        the job queue; 503 the search could not finish.
    """
    seat = svc.require_seat(live, secret)
    game, state = live.game, live.state
    if game.is_terminal(state) or live.over is not None:
        raise ApiError(409, "there is no move to hint: the game is over")
    if not hints_allowed(live):
        raise ApiError(403, "hints between two people need both seats' agreement, given "
                            "when the game is created (\"hints\": true)")
    to_move = game.current_player(state)
    if to_move != seat:
        raise ApiError(409, f"a hint is for your own turn; it is player {to_move}'s")
    ply, line = len(live.moves), tuple(live.moves)
    if (ply, seat) in live.hints:
        return live.hints[(ply, seat)]
    spec = svc.hint_spec or job_kinds.hint_agent_spec(svc.budgets.job_threads)
    # the position is its moves: an undo may reach the same ply by other moves meanwhile
    text = await svc.shared(live, ("hint", line), lambda: svc.job(
        "agent-move", svc.turns.job_args(live, spec), client, svc.budgets.hint_seconds))
    if tuple(live.moves) != line:
        raise ApiError(409, "the game moved on while the hint was searched: ask again")
    cells = safe_move_cells(view_for(game), game, state, text)
    hint = {"ply": ply, "move": text, "agent": spec, "cells": cells}
    live.hints[(ply, seat)] = hint
    return hint
