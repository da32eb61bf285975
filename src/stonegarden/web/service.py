"""The game service: games in memory over the SQLite store, seats and their secrets, the AI in
worker processes, and change notification for live pages.

Everything here runs on the server's event loop thread, so a request's check-then-write has no
``await`` in between and needs no lock; the store still refuses a stale write
(``StaleError``) as a second line of defence.
"""

from __future__ import annotations

import asyncio
import hmac
import multiprocessing
import random
import secrets
import threading
import time
from concurrent.futures import Executor, Future, ProcessPoolExecutor
from dataclasses import dataclass, field
from typing import Any

from ..agents.registry import make_agent, parse_agent_spec
from ..core.protocol import CHANCE, Game, State
from ..core.record import Record, make_record, replay_record, result_of
from ..core.registry import make
from ..errors import IllegalMoveError, ParameterError, StonegardenError
from . import ai
from .storage import GameRow, StaleError, Store
from .views import Marks, view_for
from .views.base import safe_move_cells

HUMAN = "human"
MAX_MOVE_TEXT = 200


class ApiError(Exception):
    """A refused request: HTTP ``status`` and a message for the JSON body."""

    def __init__(self, status: int, message: str) -> None:
        super().__init__(message)
        self.status = status
        self.message = message


@dataclass
class Thinking:
    seat: int
    spec: str
    ply: int
    started: float
    task: asyncio.Task[Any] | None = None
    slot: int | None = None  # the worker's stop flag (StopSlots)


@dataclass
class Live:
    """A game being served: its rows, the replayed states and what the AI is doing."""

    id: str
    game: Game
    seats: tuple[str, str]
    secrets: tuple[str, str]
    moves: list[str]
    states: list[State]
    redo: list[str]
    created: float
    thinking: Thinking | None = None
    paused: bool = False
    notice: str = ""
    hints: dict[int, dict[str, Any]] = field(default_factory=dict)
    analysis: dict[int, float] = field(default_factory=dict)
    #: legal targets of the current position, computed once per ply
    targets: tuple[int, list[str]] | None = None

    @property
    def state(self) -> State:
        return self.states[-1]


class Hub:
    """Who is listening to which game: each listener has a queue that receives versions."""

    def __init__(self) -> None:
        self.listeners: dict[str, set[asyncio.Queue[int]]] = {}
        self.versions: dict[str, int] = {}

    def subscribe(self, game_id: str) -> asyncio.Queue[int]:
        q: asyncio.Queue[int] = asyncio.Queue(maxsize=1)
        self.listeners.setdefault(game_id, set()).add(q)
        return q

    def unsubscribe(self, game_id: str, q: asyncio.Queue[int]) -> None:
        self.listeners.get(game_id, set()).discard(q)

    def publish(self, game_id: str) -> None:
        v = self.versions[game_id] = self.versions.get(game_id, 0) + 1
        for q in list(self.listeners.get(game_id, ())):
            if q.full():
                q.get_nowait()  # listeners only need the latest version
            q.put_nowait(v)


class StopSlots:
    """Flags shared with the worker processes, one per slot, that stop an agent's search whose
    move is no longer wanted (cancel, undo, redo, a timeout), so the worker is free at once
    rather than after the agent's whole budget. A slot is taken per agent job and given back
    when the job has finished in its worker."""

    def __init__(self, count: int = 64) -> None:
        self.flags = multiprocessing.get_context("spawn").RawArray("b", count)
        self._free = list(range(count))
        self._lock = threading.Lock()  # slots come back on the pool's result thread

    def take(self) -> int | None:
        """A cleared slot, or ``None`` when all are in use (that job cannot be stopped)."""
        with self._lock:
            if not self._free:
                return None
            slot = self._free.pop()
        self.flags[slot] = 0
        return slot

    def stop(self, slot: int | None) -> None:
        if slot is not None:
            self.flags[slot] = 1

    def give_back(self, slot: int) -> None:
        with self._lock:
            self._free.append(slot)


def new_pool(workers: int, slots: StopSlots | None = None) -> Executor:
    """Worker processes for the AI (spawned: no copy of the server's threads or sockets),
    sharing ``slots``' stop flags."""
    if slots is None:
        return ProcessPoolExecutor(max_workers=workers,
                                   mp_context=multiprocessing.get_context("spawn"))
    return ProcessPoolExecutor(max_workers=workers, mp_context=multiprocessing.get_context("spawn"),
                               initializer=ai.init_worker, initargs=(slots.flags,))


class GameService:
    """Games, seats, moves, undo/redo, the AI and hints over a :class:`Store`."""

    def __init__(self, store: Store, pool: Executor, ai_timeout: float = 120.0,
                 hint_spec: str | None = None, slots: StopSlots | None = None) -> None:
        self.store = store
        self.pool = pool
        self.slots = slots
        self.ai_timeout = ai_timeout
        self.hint_spec = hint_spec
        self.hub = Hub()
        self.live: dict[str, Live] = {}
        self.rng = random.SystemRandom()
        self.closing = False

    # -- loading ----------------------------------------------------------------------------
    def get(self, game_id: str) -> Live:
        """The served game.

        Raises:
            ApiError: 404 when no game has that id.
        """
        if not isinstance(game_id, str) or len(game_id) > 64:
            raise ApiError(404, f"no game {game_id!r}")
        if game_id in self.live:
            return self.live[game_id]
        row = self.store.get(game_id)
        if row is None:
            raise ApiError(404, f"no game {game_id!r}")
        live = self._from_row(row)
        self.live[game_id] = live
        return live

    def _from_row(self, row: GameRow) -> Live:
        game = make(row.game, **row.params)
        states = game.replay(list(row.moves))
        return Live(row.id, game, row.seats, row.secrets, list(row.moves), states,
                    list(row.redo), row.created)

    def resume_all(self) -> None:
        """After a (re)start: let the AI continue in every unfinished game whose turn it is."""
        for row in self.store.list_games(limit=1000):
            if row.result is None and any(s != HUMAN for s in row.seats):
                try:
                    self._advance(self.get(row.id))
                except (StonegardenError, ApiError):
                    continue

    # -- creating ---------------------------------------------------------------------------
    def create(self, game_id: Any, params: Any, seats: Any) -> tuple[Live, dict[str, str]]:
        """A new game; returns it and the secrets of its seats (only the creator sees them).

        Raises:
            ApiError: 400 for an unknown game, bad parameters or a bad seat.
        """
        if not isinstance(params, dict):
            raise ApiError(400, f"'params' must be an object, not {params!r}")
        if (not isinstance(seats, list) or len(seats) != 2
                or not all(isinstance(s, str) for s in seats)):
            raise ApiError(400, f"'seats' must be a list of two strings, not {seats!r}")
        try:
            game = make(game_id, **{k: v for k, v in params.items() if v not in ("", None)})
        except StonegardenError as exc:
            raise ApiError(400, str(exc)) from None
        clean = tuple(self._seat(s) for s in seats)
        return self._insert(game, (clean[0], clean[1]), ())

    def _seat(self, spec: str) -> str:
        s = spec.strip()
        if s.lower() == HUMAN:
            return HUMAN
        try:
            return make_agent(s).spec
        except StonegardenError as exc:
            raise ApiError(400, f"seat {spec!r}: {exc}") from None

    def _insert(self, game: Game, seats: tuple[str, str],
                moves: tuple[str, ...]) -> tuple[Live, dict[str, str]]:
        gid = secrets.token_urlsafe(9)
        keys = (secrets.token_urlsafe(24), secrets.token_urlsafe(24))
        states = game.replay(list(moves))
        self.store.create_game(gid, game.id, game.non_default_params(), seats, keys, moves,
                               result_of(game, states[-1]))
        live = Live(gid, game, seats, keys, list(moves), states, [], time.time())
        self.live[gid] = live
        self._advance(live)
        return live, {"1": keys[0], "2": keys[1]}

    def upload(self, record: Record) -> tuple[Live, dict[str, str]]:
        """A new game from a record, replayed and checked first; both seats human.

        Raises:
            RecordError: the record does not replay (nothing is stored).
        """
        game, _ = replay_record(record)
        return self._insert(game, (HUMAN, HUMAN), tuple(record.moves))

    # -- seats ------------------------------------------------------------------------------
    def seat_of(self, live: Live, secret: Any) -> int | None:
        """The seat whose secret this is (constant-time comparison), or ``None``."""
        if not isinstance(secret, str) or not secret:
            return None
        found = None
        for i, key in enumerate(live.secrets):
            if hmac.compare_digest(secret.encode(), key.encode()):
                found = i + 1
        return found

    def require_seat(self, live: Live, secret: Any) -> int:
        """Raises: ApiError 403 without a seat's secret."""
        seat = self.seat_of(live, secret)
        if seat is None:
            raise ApiError(403, "this needs a seat's secret link" if not secret
                           else "that is not a secret of this game's seats")
        return seat

    # -- moves ------------------------------------------------------------------------------
    def play(self, live: Live, secret: Any, move: Any, expected_ply: Any = None) -> None:
        """A human move for the seat the secret belongs to.

        Raises:
            ApiError: 403 wrong secret, 409 not this seat's turn / stale / game over, 400 bad
            text, 422 illegal move.
        """
        seat = self.require_seat(live, secret)
        if not isinstance(move, str) or not move.strip() or len(move) > MAX_MOVE_TEXT:
            raise ApiError(400, f"'move' must be move text of at most {MAX_MOVE_TEXT} characters,"
                                f" not {move!r}"[:300])
        if expected_ply is not None and (isinstance(expected_ply, bool)
                                         or expected_ply != len(live.moves)):
            raise ApiError(409, f"the game has moved on: ply {len(live.moves)}, "
                                f"not {expected_ply!r}")
        game, state = live.game, live.state
        if game.is_terminal(state):
            raise ApiError(409, "the game is over")
        to_move = game.current_player(state)
        if to_move != seat:
            raise ApiError(409, f"it is player {to_move}'s turn, not player {seat}'s")
        if live.seats[seat - 1] != HUMAN:
            raise ApiError(409, f"seat {seat} is played by the agent {live.seats[seat - 1]!r}")
        try:
            after = game.play_text(state, move)
            text = "resign" if after.resigned else game.action_to_text(
                state, game.parse_action(state, move))
        except IllegalMoveError as exc:  # players see the board, not the position text
            raise ApiError(422, f"illegal move {exc.move!r}: {exc.reason}") from None
        except StonegardenError as exc:
            raise ApiError(400, str(exc)) from None
        live.paused = False
        live.notice = ""
        self._append(live, text, after, redo=())
        self._advance(live)

    def _append(self, live: Live, text: str, after: State, redo: tuple[str, ...]) -> None:
        try:
            self.store.append_move(live.id, len(live.moves), text,
                                   result_of(live.game, after), redo)
        except StaleError as exc:
            self.live.pop(live.id, None)  # another process wrote: reload next time
            raise ApiError(409, str(exc)) from None
        live.moves.append(text)
        live.states.append(after)
        live.redo = list(redo)
        self.hub.publish(live.id)

    def _advance(self, live: Live) -> None:
        """Roll dice at chance nodes, then start the agent if it is an agent's turn."""
        game = live.game
        while not game.is_terminal(live.state) and game.current_player(live.state) == CHANCE:
            outcomes = game.chance_outcomes(live.state)
            action = self.rng.choices([a for a, _ in outcomes], [p for _, p in outcomes])[0]
            text = game.action_to_text(live.state, action)
            self._append(live, text, game.play(live.state, action), tuple(live.redo))
        if game.is_terminal(live.state) or live.paused or live.thinking is not None:
            return
        seat = game.current_player(live.state)
        spec = live.seats[seat - 1]
        if spec == HUMAN:
            return
        thinking = Thinking(seat, spec, len(live.moves), time.time())
        live.thinking = thinking
        thinking.task = asyncio.get_running_loop().create_task(self._think(live, thinking))
        self.hub.publish(live.id)

    async def _think(self, live: Live, thinking: Thinking) -> None:
        slots = self.slots
        slot = slots.take() if slots is not None else None
        thinking.slot = slot
        job: Future[str] = self.pool.submit(ai.agent_move, live.game.id,
                                            dict(live.game.non_default_params()),
                                            list(live.moves), thinking.spec, slot)
        if slots is not None and slot is not None:
            job.add_done_callback(lambda _job: slots.give_back(slot))
        try:
            text = await asyncio.wait_for(asyncio.wrap_future(job), self.ai_timeout)
        except asyncio.CancelledError:
            self._stop_search(thinking)
            return
        except TimeoutError:
            self._stop_search(thinking)
            self._stop_thinking(live, f"the agent {thinking.spec!r} took longer than "
                                      f"{self.ai_timeout:g} s; it is paused")
            return
        except Exception as exc:  # an agent bug must not take the game down with it
            self._stop_thinking(live, f"the agent {thinking.spec!r} failed: {exc}")
            return
        if live.thinking is not thinking or len(live.moves) != thinking.ply:
            return  # cancelled or overtaken (undo): discard
        live.thinking = None
        try:
            after = live.game.play_text(live.state, text)
        except StonegardenError as exc:
            self._stop_thinking(live, f"the agent {thinking.spec!r} chose {text!r}: {exc}")
            return
        try:
            self._append(live, text, after, redo=())
        except ApiError:
            return
        self._advance(live)

    def _stop_search(self, thinking: Thinking) -> None:
        """Tell the worker to end this search now (its move will be discarded)."""
        if self.slots is not None:
            self.slots.stop(thinking.slot)

    def _stop_thinking(self, live: Live, notice: str) -> None:
        live.thinking = None
        live.paused = True
        live.notice = notice
        self.hub.publish(live.id)

    # -- study tools ------------------------------------------------------------------------
    def cancel(self, live: Live, secret: Any) -> None:
        """Discard what the agent is thinking and pause it (undo or resume afterwards).

        Raises:
            ApiError: 403 without a seat secret, 409 when no agent is thinking.
        """
        self.require_seat(live, secret)
        t = live.thinking
        if t is None:
            raise ApiError(409, "no agent is thinking")
        self.stop_agent(live)
        self._stop_thinking(live, f"cancelled: {t.spec!r} stopped thinking; undo, or let it move")

    def resume(self, live: Live, secret: Any) -> None:
        """Let a paused agent think again.

        Raises:
            ApiError: 403 without a seat secret.
        """
        self.require_seat(live, secret)
        live.paused = False
        live.notice = ""
        self._advance(live)
        self.hub.publish(live.id)

    def _opponent_is_agent(self, live: Live, seat: int) -> bool:
        return live.seats[2 - seat] != HUMAN

    def undo(self, live: Live, secret: Any) -> None:
        """Take back moves to this seat's previous turn (only against an agent).

        Raises:
            ApiError: 403 without a seat secret, 409 between two humans or with nothing to undo.
        """
        seat = self.require_seat(live, secret)
        if not self._opponent_is_agent(live, seat):
            raise ApiError(409, "undo is for games against an agent; between two people it "
                                "would need the other player's consent")
        game = live.game
        keep = next((k for k in range(len(live.moves) - 1, -1, -1)
                     if not game.is_terminal(live.states[k])
                     and game.current_player(live.states[k]) == seat), None)
        if keep is None:
            raise ApiError(409, f"player {seat} has no move to undo")
        self._cancel_silently(live)
        redo = tuple(live.moves[keep:]) + tuple(live.redo)
        try:
            self.store.truncate(live.id, keep, len(live.moves), result_of(game, live.states[keep]),
                                redo)
        except StaleError as exc:
            self.live.pop(live.id, None)
            raise ApiError(409, str(exc)) from None
        del live.moves[keep:]
        del live.states[keep + 1:]
        live.analysis = {p: v for p, v in live.analysis.items() if p <= keep}
        live.hints = {p: h for p, h in live.hints.items() if p <= keep}
        live.redo = list(redo)
        live.paused = False
        live.notice = ""
        self.hub.publish(live.id)

    def redo(self, live: Live, secret: Any) -> None:
        """Replay undone moves up to this seat's next turn.

        Raises:
            ApiError: 403 without a seat secret, 409 with nothing to redo.
        """
        seat = self.require_seat(live, secret)
        if not live.redo:
            raise ApiError(409, "nothing to redo")
        self._cancel_silently(live)
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
            self._append(live, text, after, tuple(live.redo[1:]))
        live.paused = False
        self._advance(live)

    def stop_agent(self, live: Live) -> None:
        """Cancel the agent's job and stop its search (at shutdown the game stays as stored: an
        agent to move thinks again after the restart)."""
        if live.thinking is not None:
            if live.thinking.task is not None:
                live.thinking.task.cancel()
            self._stop_search(live.thinking)

    def _cancel_silently(self, live: Live) -> None:
        self.stop_agent(live)
        live.thinking = None

    async def hint(self, live: Live, secret: Any) -> dict[str, Any]:
        """A short search's best move for the player to move, shown on the board.

        Raises:
            ApiError: 403 without a seat secret, 409 when the game is over or it is not a
            person's turn.
        """
        self.require_seat(live, secret)
        game, state = live.game, live.state
        if game.is_terminal(state) or game.current_player(state) == CHANCE:
            raise ApiError(409, "there is no move to hint: the game is over")
        ply = len(live.moves)
        if ply in live.hints:
            return live.hints[ply]
        spec = self.hint_spec or ai.hint_agent_spec()
        loop = asyncio.get_running_loop()
        try:
            text = await asyncio.wait_for(loop.run_in_executor(
                self.pool, ai.agent_move, game.id, dict(game.non_default_params()),
                list(live.moves), spec), self.ai_timeout)
        except TimeoutError:
            raise ApiError(503, f"the hint agent {spec!r} took too long") from None
        cells = safe_move_cells(view_for(game), game, state, text)
        hint = {"ply": ply, "move": text, "agent": spec, "cells": cells}
        if len(live.moves) == ply:
            live.hints[ply] = hint
        return hint

    async def analysis(self, live: Live) -> dict[str, Any]:
        """Random-playout estimates of player 1's winning chances at every position (sampled
        down to at most 120 positions), computed in a worker and cached."""
        n = len(live.moves)
        step = max(1, -(-n // 120))
        plies = sorted(set(range(0, n + 1, step)) | {n})
        missing = [p for p in plies if p not in live.analysis]
        if missing:
            prefix = list(live.moves[:max(missing)])
            loop = asyncio.get_running_loop()
            found = await loop.run_in_executor(
                self.pool, ai.playout_estimates, live.game.id,
                dict(live.game.non_default_params()), prefix, missing,
                ai.PLAYOUTS_PER_POSITION, 12345)
            if live.moves[:len(prefix)] == prefix:  # no undo meanwhile: still these positions
                live.analysis.update(found)
        points = [[p, live.analysis[p]] for p in plies if p in live.analysis]
        return {
            "points": points,
            "playouts": ai.PLAYOUTS_PER_POSITION,
            "label": (f"Share of {ai.PLAYOUTS_PER_POSITION} uniformly random continuations won "
                      "by player 1 from each position (a rough playout estimate, not the "
                      "judgement of a strong player)"),
        }

    # -- what pages see ---------------------------------------------------------------------
    def snapshot(self, live: Live, ply: Any = None, seat: int | None = None) -> dict[str, Any]:
        """The game as JSON for pages, at ``ply`` (default: now). Never contains secrets.

        Raises:
            ApiError: 400 for a ply outside the game.
        """
        n = len(live.moves)
        if ply is None or ply == "":
            at = n
        else:
            try:
                at = int(ply)
            except (TypeError, ValueError):
                raise ApiError(400, f"ply {ply!r} is not an integer") from None
            if not 0 <= at <= n:
                raise ApiError(400, f"ply {at} is outside the game (0..{n})")
        game, state = live.game, live.states[at]
        view = view_for(game)
        last: list[str] = []
        captured: list[str] = []
        if at > 0:
            last = safe_move_cells(view, game, live.states[at - 1], live.moves[at - 1])
            captured = view.captured_cells(game, live.states[at - 1], state)
        terminal = game.is_terminal(state)
        to_move = None if terminal else game.current_player(state)
        live_now = at == n
        hint = live.hints.get(n) if live_now and seat is not None else None
        can_play = (live_now and seat is not None and not terminal and to_move == seat
                    and live.seats[seat - 1] == HUMAN and live.thinking is None)
        targets: list[str] = []
        if can_play:
            if live.targets is None or live.targets[0] != n:
                live.targets = (n, view.legal_targets(game, state))
            targets = live.targets[1]
        marks = Marks(tuple(last), tuple(captured), tuple(targets),
                      tuple(hint["cells"]) if hint else ())
        t = live.thinking
        moves = []
        for i, text in enumerate(live.moves):
            mover = game.current_player(live.states[i])
            moves.append({"ply": i, "player": mover if mover != CHANCE else 0, "text": text})
        return {
            "id": live.id,
            "game": game.id,
            "title": game.title,
            "params": {p.name: p.to_json(game.params[p.name]) for p in game.param_specs},
            "seats": list(live.seats),
            "you": seat,
            "ply": at,
            "length": n,
            "moves": moves,
            "to_move": to_move,
            "terminal": terminal,
            "winner": game.winner(state),
            "reason": game.result_reason(state),
            "score": view.score_track(game, state),
            "outcome": view.outcome(game, state),
            "players": list(view.player_names(game)),
            "captured": captured,
            "last": last,
            "svg": view.svg(game, state, marks),
            "builder": view.builder(game, state) if can_play else {"kind": "none"},
            "can_play": can_play,
            "position": game.position_text(state),
            "thinking": None if t is None else {
                "seat": t.seat, "spec": t.spec, "elapsed": round(time.time() - t.started, 1),
                "budget": self.ai_timeout, "options": _budget_options(t.spec)},
            "paused": live.paused,
            "notice": live.notice,
            "can_undo": seat is not None and self._opponent_is_agent(live, seat) and n > 0,
            "can_redo": seat is not None and bool(live.redo),
            "hint": hint,
        }

    def summary(self, live_or_row: GameRow) -> dict[str, Any]:
        row = live_or_row
        return {"id": row.id, "game": row.game, "params": row.params, "seats": list(row.seats),
                "moves": len(row.moves), "result": row.result, "created": row.created,
                "updated": row.updated}

    def record(self, live: Live) -> Record:
        return make_record(live.game, list(live.moves), live.state,
                           players={"1": live.seats[0], "2": live.seats[1]},
                           meta={"source": "stonegarden web", "id": live.id})


def _budget_options(spec: str) -> dict[str, str]:
    """The options of an agent spec (its time or playout budget, as the agent defines it)."""
    try:
        _, options = parse_agent_spec(spec)
    except ParameterError:
        return {}
    return options
