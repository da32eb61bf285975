"""A game being served: its history of positions, what its agent is doing, and who listens
for its changes."""

from __future__ import annotations

import asyncio
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from ..core.protocol import CHANCE, Game, State
from ..jobs import Job
from ..store import AnalysisClaim
from .review_job import Review
from .time_control import Clock, ClockSpec

#: a position is kept every this many moves; the others are replayed from the one before
CHECKPOINT_EVERY = 64


class History:
    """The moves of a game and its position after each, by ply.

    Only every ``CHECKPOINT_EVERY``-th position and the last are kept: a position can hold the
    game's whole history (the superko hashes), so keeping every one would cost memory quadratic
    in the game's length. Any other is replayed from the checkpoint before it (fewer than
    ``CHECKPOINT_EVERY`` moves)."""

    def __init__(self, game: Game) -> None:
        self.game = game
        self.moves: list[str] = []
        #: who played each move: 1, 2, or 0 for a chance event
        self.movers: list[int] = []
        #: the automatic moves each move set off (Blobs' ``auto_moves``), canonical texts
        self.autos: list[list[str]] = []
        self._checkpoints: list[State] = [game.initial_state()]
        self._last = self._checkpoints[0]
        self._recent: dict[int, State] = {}

    @classmethod
    def replay(cls, game: Game, moves: Sequence[str]) -> History:
        """Raises: NotationError, IllegalMoveError at the first bad move."""
        history = cls(game)
        for text in moves:
            history.push(text, game.play_text(history.last, text))
        return history

    @property
    def last(self) -> State:
        return self._last

    def __len__(self) -> int:
        return len(self.moves)

    def push(self, text: str, after: State) -> None:
        """Record move ``text``, which led from the last position to ``after``."""
        mover = self.game.current_player(self._last)
        self.moves.append(text)
        self.movers.append(mover if mover != CHANCE else 0)
        self.autos.append(list(self.game.replay_extras(self._last, after).get("auto_moves", ())))
        self._last = after
        if len(self.moves) % CHECKPOINT_EVERY == 0:
            self._checkpoints.append(after)

    def truncate(self, keep: int) -> None:
        """Keep the first ``keep`` moves."""
        state = self.at(keep)
        del self.moves[keep:]
        del self.movers[keep:]
        del self.autos[keep:]
        del self._checkpoints[keep // CHECKPOINT_EVERY + 1:]
        self._last = state
        self._recent.clear()

    def at(self, ply: int) -> State:
        """The position after ``ply`` moves (0 <= ply <= len)."""
        if ply == len(self.moves):
            return self._last
        if ply in self._recent:
            return self._recent[ply]
        base = ply - ply % CHECKPOINT_EVERY
        state = self._checkpoints[base // CHECKPOINT_EVERY]
        for text in self.moves[base:ply]:
            state = self.game.play_text(state, text)
        if len(self._recent) >= 8:
            self._recent.clear()
        self._recent[ply] = state
        return state


@dataclass
class Thinking:
    seat: int
    spec: str
    ply: int
    started: float
    job: Job | None = None
    task: asyncio.Task[Any] | None = None
    #: another server process holds the claim to think here (``Store.claim_thinking``);
    #: ``task`` then waits to take over if that claim runs out without a move
    elsewhere: bool = False


#: the longest game id a request may name (the server makes ids of 12 characters)
MAX_ID = 40


def full_notice(moves: int) -> str:
    """Why a game at the server's move limit (``Budgets.max_moves``) takes no more moves."""
    return f"this game has {moves} moves, the most this server keeps in one game"


def is_game_id(text: object) -> bool:
    """Whether ``text`` has a game id's shape: 1-40 characters of the URL-safe alphabet.
    Anything else names no game, and is refused before it reaches a store (PostgreSQL, for
    one, refuses text with a NUL byte with an error of its own)."""
    return (isinstance(text, str) and 0 < len(text) <= MAX_ID
            and all(c.isascii() and (c.isalnum() or c in "-_") for c in text))

@dataclass
class Live:
    """A game being served: its stored facts, its history, and what is going on in it."""

    id: str
    game: Game
    seats: tuple[str, str]
    secrets: tuple[str, str]
    history: History
    redo: list[str]
    created: float
    listed: bool = False
    #: both seats agreed to hints when the game was created (two people)
    hints_agreed: bool = False
    #: whose jobs the agents' moves count as: the client that last played or created it
    client: str = ""
    thinking: Thinking | None = None
    paused: bool = False
    notice: str = ""
    #: (ply, seat) -> the hint that seat asked for at that ply (a hint is its asker's only)
    hints: dict[tuple[int, int], dict[str, Any]] = field(default_factory=dict)
    #: the computer's analysis (``review_job.py``), once asked for or stored
    review: Review | None = None
    #: another server process's claim to run the analysis (``Store.claim_analysis``): it runs
    #: there, and shows running here
    analysing_elsewhere: AnalysisClaim | None = None
    #: legal targets of the current position, computed once per ply
    targets: tuple[int, list[str]] | None = None
    #: jobs asked for but not answered yet, shared by identical requests
    pending: dict[Any, asyncio.Future[Any]] = field(default_factory=dict)
    #: the players' display names (``None``: not given)
    names: tuple[str | None, str | None] = (None, None)
    clock: Clock | None = None
    #: the time control an uploaded record says the game was played under (no clock runs
    #: for it here): its record and page say it again
    time_control: ClockSpec | None = None
    #: how the game ended when the rules did not end it (``{"winner", "reason": "time"}``)
    over: dict[str, Any] | None = None
    #: the id of the rematch offered after this game
    rematch: str | None = None
    #: held while a change is written, so a change is checked against the game it changes
    lock: asyncio.Lock = field(default_factory=asyncio.Lock)
    #: board pictures drawn lately, by (ply, marks): both players' pages and the answer to a
    #: move ask for the same ones (cleared when moves are taken back)
    pictures: dict[Any, str] = field(default_factory=dict)
    #: the game's SGF text and the moves and seats it was made from (``GameService.sgf``)
    sgf: tuple[Any, str] | None = None

    def picture(self, key: Any, draw: Any) -> str:
        """The picture ``key`` names, drawn by ``draw()`` if it is not among the last few."""
        svg = self.pictures.get(key)
        if svg is None:
            svg = draw()
            self.pictures[key] = svg
            while len(self.pictures) > 6:
                del self.pictures[next(iter(self.pictures))]
        return svg

    @property
    def moves(self) -> list[str]:
        return self.history.moves

    @property
    def state(self) -> State:
        return self.history.last


#: the hub's key for changes of the lobby
LOBBY = "lobby"
#: a public game waiting this long for an opponent (seconds: a week) is no longer listed in the
#: lobby, whose creator has most likely gone, nor counted among its creator's games waiting
#: there; it stays playable by its link
LOBBY_STALE = 7 * 86400.0


def listed_now(listed: bool, seats: tuple[str, ...], ended: bool, created: float,
               now: float) -> bool:
    """Whether the lobby lists a game now: public, with an open seat (``"open"``), not over,
    and made less than ``LOBBY_STALE`` ago."""
    return listed and "open" in seats and not ended and created >= now - LOBBY_STALE


class Hub:
    """Who is listening to which game: each listener has a queue that receives versions. A
    version is kept only while its game is watched: pages read the game anew whenever their
    stream (re)connects, and another process's changes to any game reach ``publish``."""

    def __init__(self) -> None:
        self.listeners: dict[str, set[asyncio.Queue[int]]] = {}
        self.versions: dict[str, int] = {}

    def subscribe(self, game_id: str) -> asyncio.Queue[int]:
        q: asyncio.Queue[int] = asyncio.Queue(maxsize=1)
        self.listeners.setdefault(game_id, set()).add(q)
        return q

    def unsubscribe(self, game_id: str, q: asyncio.Queue[int]) -> None:
        listeners = self.listeners.get(game_id)
        if listeners is not None:
            listeners.discard(q)
            if not listeners:
                del self.listeners[game_id]
                self.versions.pop(game_id, None)

    def watched(self, game_id: str) -> bool:
        return bool(self.listeners.get(game_id))

    def publish(self, game_id: str) -> None:
        listeners = self.listeners.get(game_id)
        if not listeners:
            return
        v = self.versions[game_id] = self.versions.get(game_id, 0) + 1
        for q in list(listeners):
            if q.full():
                q.get_nowait()  # listeners only need the latest version
            q.put_nowait(v)
