"""The store interface and the rows it deals in, shared by every implementation."""

from __future__ import annotations

import json
import os
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Protocol

from ..errors import StonegardenError, StoreError, quote


class StaleError(StonegardenError):
    """The stored game changed since the caller read it (another move came first)."""


@dataclass(frozen=True)
class NewGame:
    """A game to store: ``seats`` are ``human``, ``open`` (waiting for someone to join) or
    agent specs; ``moves`` are those of an uploaded record; ``listed`` puts it in the public
    listing; ``hints``: both seats agreed to hints when the game was created; ``names``: the
    players' display names; ``to_move``: the seat to move (``None`` when over or at chance);
    ``clock``: the stored clock (``Clock.to_store``) and ``deadline`` when its flag falls (or
    the game aborts itself, its first move not come); ``created``: when the game was played,
    for an uploaded record that says (else when it is stored); ``time_control``: the time
    control (``ClockSpec.to_json``) an uploaded record says it was played under, which no
    clock runs here."""

    id: str
    game: str
    params: dict[str, Any]
    seats: tuple[str, str]
    secrets: tuple[str, str]
    moves: tuple[str, ...] = ()
    result: dict[str, Any] | None = None
    listed: bool = False
    hints: bool = False
    names: tuple[str | None, str | None] = (None, None)
    to_move: int | None = None
    clock: dict[str, Any] | None = None
    deadline: float | None = None
    created: float | None = None
    time_control: dict[str, Any] | None = None


#: the owner of a game's claim to run its analysis once a person cancelled the run and its
#: process gave it up: no process's (``AnalysisClaim.ended_cancelled``)
CANCELLED_RUN = ""


@dataclass(frozen=True)
class AnalysisClaim:
    """Which server process runs a game's analysis (``Store.claim_analysis``): its ``owner``,
    the ``client`` that asked for it (who may cancel it), until when the claim holds unless
    renewed (``expires``: a killed process's claim runs out), and whether a person cancelled
    it through another process (``cancelled``: its owner stops it)."""

    owner: str
    client: str
    expires: float
    cancelled: bool = False

    @property
    def ended_cancelled(self) -> bool:
        """The run a person cancelled, given up by its process (``release_analysis`` with
        ``cancelled``): no process's, run out; every process shows the analysis cancelled
        until it is asked for again (which claims it afresh)."""
        return self.owner == CANCELLED_RUN


@dataclass(frozen=True)
class GameRow:
    """One stored game with its moves. Secrets never leave the server except to the creator."""

    id: str
    game: str
    params: dict[str, Any]
    seats: tuple[str, str]
    secrets: tuple[str, str]
    moves: tuple[str, ...]
    redo: tuple[str, ...]
    result: dict[str, Any] | None
    created: float
    updated: float
    listed: bool = False
    hints: bool = False
    names: tuple[str | None, str | None] = (None, None)
    to_move: int | None = None
    clock: dict[str, Any] | None = None
    deadline: float | None = None
    #: the id of the rematch offered after this game, if any
    rematch: str | None = None
    #: the time control an uploaded record was played under (``NewGame.time_control``)
    time_control: dict[str, Any] | None = None


@dataclass(frozen=True)
class GameSummary:
    """What listings show of a game: no secrets, no moves (their count)."""

    id: str
    game: str
    params: dict[str, Any]
    seats: tuple[str, str]
    moves: int
    result: dict[str, Any] | None
    created: float
    updated: float
    listed: bool
    names: tuple[str | None, str | None] = (None, None)
    to_move: int | None = None
    #: the time control (``{"initial", "increment"}`` or ``{"days_per_move"}``), if any
    clock: dict[str, Any] | None = None
    #: a person paused the agent to move (``cancel_thinking``): it waits to be let move
    paused: bool = False

    def to_json(self) -> dict[str, Any]:
        return {"id": self.id, "game": self.game, "params": self.params,
                "seats": list(self.seats), "moves": self.moves, "result": self.result,
                "created": self.created, "updated": self.updated, "public": self.listed,
                "names": {"1": self.names[0], "2": self.names[1]}, "to_move": self.to_move,
                "clock": self.clock, "paused": self.paused}


#: what a change notification says happened to a game (``Store.listen``)
ChangeListener = Callable[[str, str], None]


class Store(Protocol):
    """Games and their moves. Every write is one transaction; a move is appended only if the
    stored game still has exactly the expected number of moves, which makes concurrent writers
    (several server processes included) safe without a lock in the server.

    Every method raises :class:`StoreError` when the database fails or a row is damaged (that
    one game is unavailable; the others are served)."""

    #: what messages name: the file, or the server and database
    location: str

    def create_game(self, new: NewGame) -> None:
        """Store a new game (and an uploaded record's moves) in one transaction."""
        ...

    def append_move(self, game_id: str, ply: int, text: str, result: dict[str, Any] | None,
                    redo: Sequence[str] = (), *, to_move: int | None = None,
                    clock: dict[str, Any] | None = None,
                    deadline: float | None = None,
                    line: Sequence[str] | None = None) -> None:
        """Append move number ``ply`` (0-based), with the seat to move after it and the clock
        (and its deadline) after it. ``line``: the moves the writer's copy holds; when given,
        the stored moves must be exactly these (a count alone can match another line, after
        an undo and new moves made elsewhere).

        Raises:
            StaleError: the stored game does not have exactly ``ply`` moves (or not ``line``),
            or is over.
        """
        ...

    def truncate(self, game_id: str, keep: int, count: int, result: dict[str, Any] | None,
                 redo: Sequence[str], *, to_move: int | None = None,
                 line: Sequence[str] | None = None) -> None:
        """Keep the first ``keep`` moves of a game that has ``count`` (undo), and its
        analysis' points of those positions; ``line`` as for ``append_move``.

        Raises:
            StaleError: the stored game does not have exactly ``count`` moves (or not ``line``).
        """
        ...

    def get(self, game_id: str) -> GameRow | None:
        """The stored game with its moves, or ``None``."""
        ...

    def list_games(self, limit: int = 200, listed_only: bool = True,
                   ids: Sequence[str] | None = None) -> list[GameSummary]:
        """Games newest-updated first: the listed ones, or all (``listed_only=False``), or
        those of ``ids``. Damaged rows are left out."""
        ...

    # -- online play: the lobby, names, clocks, rematches ----------------------------------------
    def join(self, game_id: str, seat: int, name: str, clock: dict[str, Any] | None = None,
             deadline: float | None = None) -> bool:
        """Take the ``open`` seat ``seat`` for a person named ``name``; ``False`` when it is no
        longer open (someone joined first, on this server or another). ``clock`` and
        ``deadline``, when given, replace the game's (its first turn begins now)."""
        ...

    def withdraw(self, game_id: str) -> bool:
        """Delete a game whose open seat no one has taken; ``False`` when someone has."""
        ...

    def set_name(self, game_id: str, seat: int, name: str) -> bool:
        """Name seat ``seat`` ``name`` if it has no name yet (or that one: a request sent
        again through another server process) and the game is unfinished; ``False`` when not
        (named otherwise first, or ended, by another request or server process)."""
        ...

    def flag(self, game_id: str, ply: int, result: dict[str, Any],
             clock: dict[str, Any] | None) -> bool:
        """End a game its rules have not ended (on time, or a person resigning on the
        opponent's turn): store ``result`` and the stopped ``clock`` if the game is unfinished
        and still has ``ply`` moves. ``True`` for the one caller (of every server process) that
        did it."""
        ...

    def set_clock(self, game_id: str, ply: int, clock: dict[str, Any],
                  deadline: float | None) -> bool:
        """Replace the clock and deadline of a game that is unfinished and still has ``ply``
        moves (a player has opened it); ``False`` when it is not so."""
        ...

    def due(self, now: float, limit: int = 100) -> list[str]:
        """Unfinished games whose clock's deadline is at or before ``now``."""
        ...

    def offer_rematch(self, game_id: str, new: NewGame, replacing: str | None = None) -> str:
        """Store ``new`` as the rematch of ``game_id`` unless one other than ``replacing`` (a
        rematch that was aborted) is stored already; the id of the rematch (``new.id``, or
        the one another request stored first)."""
        ...

    def lobby(self, limit: int = 200, since: float = 0.0) -> list[GameSummary]:
        """Public unfinished games with an open seat, created at ``since`` or later, newest
        first."""
        ...

    def heartbeat(self, now: float, grace: float) -> float:
        """Record that a server is up at ``now``. When no server has been up for more than
        ``grace`` seconds, every running clock is moved on by the time no server ran (the
        players could not move) and that time is returned; else 0. Atomic across servers."""
        ...

    def listen(self, on_change: ChangeListener) -> None:
        """Call ``on_change(what, game_id)`` (from any thread) when another server process
        changes a game (``what``: ``move``, ``join``, ``withdraw``, ``flag``, ``clock``, ``rematch``,
        ``name``, ``create``, ``lobby`` for a new game listed with an open seat, ``think``
        when a claim to think for its agent was given up, ``cancel`` when its agent's thinking
        was cancelled, ``analysis`` when its analysis was stored or a process began or ended
        running it, ``analysis-cancel`` when a person cancelled the analysis running);
        ``("lost", "")`` when changes may have been missed. A store that only one process uses
        never calls it."""
        ...

    def claim_thinking(self, game_id: str, ply: int, owner: str, now: float,
                       until: float, resume: bool = False) -> tuple[bool, float]:
        """Let server process ``owner`` think for the agent to move at move ``ply`` until
        ``until``, unless another holds that position's claim past ``now``: ``(True, until)``
        for the one that may think, else ``(False, when the holder's claim runs out)``, which
        is ``math.inf`` where a person paused the agent (``cancel_thinking``) and ``resume``
        (they asked it to move again) is false. A game that no longer has ``ply`` moves, or
        is over, is claimed by no one; an undo (``truncate``) voids the game's claim and
        pause."""
        ...

    def cancel_thinking(self, game_id: str, ply: int) -> None:
        """A person cancelled the agent's thinking at move ``ply``: every process holding the
        game pauses the agent (``cancel``), and the position stays paused, for every process
        and after a restart, until one claims it with ``resume``."""
        ...

    def release_thinking(self, owner: str) -> None:
        """Give up every claim of ``owner`` (a server stopping), telling the other processes
        (``think``), so that one of them thinks at once instead of when the claim runs out."""
        ...

    def claim_analysis(self, game_id: str, owner: str, client: str, now: float,
                       until: float) -> AnalysisClaim:
        """Let server process ``owner`` run the game's analysis for ``client`` until ``until``
        (not cancelled), unless another holds its claim past ``now``; the claim that holds
        after the call (``owner`` is the caller's only where it may run it). Tells the other
        processes (``analysis``)."""
        ...

    def renew_analysis(self, game_id: str, owner: str, until: float) -> AnalysisClaim | None:
        """Extend ``owner``'s claim to ``until`` unless a person cancelled it; the claim, or
        ``None`` where ``owner`` no longer holds one (its owner stops the analysis either
        way when it is not renewed)."""
        ...

    def analysis_claim(self, game_id: str) -> AnalysisClaim | None:
        """The game's claim to run its analysis, or ``None`` (one that ran out included)."""
        ...

    def cancel_analysis(self, game_id: str, now: float) -> bool:
        """Mark the game's claim (one that holds past ``now``) cancelled and tell the other
        processes (``analysis-cancel``): its owner stops the analysis and gives up its claim.
        Whether there was such a claim."""
        ...

    def release_analysis(self, game_id: str, owner: str, cancelled: bool = False) -> None:
        """Give up the claim of ``owner`` on the game's analysis (every claim of ``owner`` when
        ``game_id`` is empty: a server stopping), telling the other processes (``analysis``);
        with ``cancelled`` (a person cancelled the run) the claim stays, run out and no
        process's, to say so to every process (``AnalysisClaim.ended_cancelled``)."""
        ...

    def put_analysis(self, game_id: str, engine: str, points: Sequence[dict[str, Any]],
                     line: Sequence[str] | None = None) -> None:
        """Store (replacing) the computer's analysis of a game: the engine's spec and one
        point per position analysed, the positions of the moves ``line`` where given (an
        undo, ``truncate``, drops the points past the moves it keeps).

        Raises:
            StaleError: the stored game's moves do not begin with ``line`` (nothing stored).
        """
        ...

    def get_analysis(self, game_id: str) -> tuple[str, list[dict[str, Any]]] | None:
        """The stored analysis (engine, points), or ``None``."""
        ...

    def stopping(self) -> None:
        """The server begins to stop: a change waiting for a lock gives up now (nothing
        changed), so its request is answered before the server stops."""
        ...

    def close(self) -> None:
        ...


def default_db_path() -> Path:
    """``$XDG_DATA_HOME/stonegarden/games.db`` (``~/.local/share/...`` by default)."""
    base = os.environ.get("XDG_DATA_HOME") or str(Path.home() / ".local" / "share")
    return Path(base) / "stonegarden" / "games.db"


def _json(game_id: str, column: str, text: Any, kinds: tuple[type, ...]) -> Any:
    if text is None and type(None) in kinds:
        return None
    try:
        value = json.loads(text)
    except (TypeError, ValueError, RecursionError):
        raise StoreError(f"game {game_id!r} is unavailable: its stored {column} is not JSON "
                         f"({quote(text, 40)})") from None
    if not isinstance(value, kinds):
        raise StoreError(f"game {game_id!r} is unavailable: its stored {column} is "
                         f"{type(value).__name__}, not {' or '.join(k.__name__ for k in kinds)}")
    return value


def _text(game_id: str, column: str, value: Any) -> str:
    if not isinstance(value, str):
        raise StoreError(f"game {game_id!r} is unavailable: its stored {column} is not text")
    return value


def _number(game_id: str, column: str, value: Any) -> float:
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise StoreError(f"game {game_id!r} is unavailable: its stored {column} is not a number")
    return float(value)


def row_from(values: Mapping[str, Any], moves: Sequence[Any]) -> GameRow:
    """A :class:`GameRow` from a ``games`` row (by column name) and its move texts.

    Raises:
        StoreError: a column of the wrong type or JSON that does not decode, naming the game
        and the column.
    """
    gid = str(values["id"])
    redo = _json(gid, "redo", values["redo"], (list,))
    texts = tuple(_text(gid, f"move {i}", m) for i, m in enumerate(moves))
    if not all(isinstance(m, str) for m in redo):
        raise StoreError(f"game {gid!r} is unavailable: its stored redo holds non-text moves")
    return GameRow(
        id=gid, game=_text(gid, "game", values["game"]),
        params=_json(gid, "params", values["params"], (dict,)),
        seats=(_text(gid, "seat1", values["seat1"]), _text(gid, "seat2", values["seat2"])),
        secrets=(_text(gid, "secret1", values["secret1"]),
                 _text(gid, "secret2", values["secret2"])),
        moves=texts, redo=tuple(redo),
        result=_json(gid, "result", values["result"], (dict, type(None))),
        created=_number(gid, "created", values["created"]),
        updated=_number(gid, "updated", values["updated"]),
        listed=bool(values["listed"]), hints=bool(values["hints"]),
        names=_names(gid, values),
        to_move=_seat_or_none(gid, values["to_move"]),
        clock=_json(gid, "clock", values["clock"], (dict, type(None))),
        deadline=(None if values["deadline"] is None
                  else _number(gid, "deadline", values["deadline"])),
        rematch=(None if values["rematch"] is None else _text(gid, "rematch", values["rematch"])),
        time_control=_json(gid, "time_control", values["time_control"], (dict, type(None))),
    )


def _names(gid: str, values: Mapping[str, Any]) -> tuple[str | None, str | None]:
    n1, n2 = values["name1"], values["name2"]
    return (None if n1 is None else _text(gid, "name1", n1),
            None if n2 is None else _text(gid, "name2", n2))


def _seat_or_none(gid: str, value: Any) -> int | None:
    if value is None:
        return None
    if value not in (1, 2):
        raise StoreError(f"game {gid!r} is unavailable: its stored to_move is {value!r}")
    return int(value)


def summary_from(values: Mapping[str, Any], moves: int, paused: bool = False) -> GameSummary:
    """Raises: StoreError as :func:`row_from`."""
    gid = str(values["id"])
    return GameSummary(
        id=gid, game=_text(gid, "game", values["game"]),
        params=_json(gid, "params", values["params"], (dict,)),
        seats=(_text(gid, "seat1", values["seat1"]), _text(gid, "seat2", values["seat2"])),
        moves=int(moves), result=_json(gid, "result", values["result"], (dict, type(None))),
        created=_number(gid, "created", values["created"]),
        updated=_number(gid, "updated", values["updated"]),
        listed=bool(values["listed"]), names=_names(gid, values),
        to_move=_seat_or_none(gid, values["to_move"]),
        clock=_clock_spec(gid, values["clock"]), paused=paused,
    )


def _clock_spec(gid: str, text: Any) -> dict[str, Any] | None:
    stored = _json(gid, "clock", text, (dict, type(None)))
    if stored is None:
        return None
    spec = stored.get("spec")
    if not isinstance(spec, dict):
        raise StoreError(f"game {gid!r} is unavailable: its stored clock has no spec")
    return spec


def analysis_from(game_id: str, engine: Any, points: Any) -> tuple[str, list[dict[str, Any]]]:
    """Raises: StoreError for a damaged analysis row, naming the game."""
    value = _json(game_id, "analysis", points, (list,))
    if not all(isinstance(p, dict) for p in value):
        raise StoreError(f"game {game_id!r}: its stored analysis holds a point that is not an "
                         "object")
    return _text(game_id, "analysis engine", engine), value
