"""The game protocol: the only thing search, agents, records, the CLI and the web app know.

A game object holds validated parameters and precomputed geometry; states are immutable values
(frozen dataclasses whose boards are ``bytes``). Moves have two forms: a dense integer *action*
for kernels and networks, and canonical *text* for people. Checked entry points (``play``,
``parse_move``) validate; ``play_unchecked`` does not and says so.
"""

from __future__ import annotations

import dataclasses
from abc import ABC, abstractmethod
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from types import MappingProxyType
from typing import TYPE_CHECKING, Any, ClassVar

import numpy as np

from ..errors import IllegalMoveError, NotationError, ParameterError, PositionError, quote
from .params import Param, resolve_params

if TYPE_CHECKING:
    from ..search.profile import SearchProfile

#: ``current_player`` of a chance node (a dice roll); players are 1 and 2.
CHANCE = 0


@dataclass(frozen=True, kw_only=True)
class State:
    """Fields every state has. Games subclass it with their own (frozen) fields.

    ``player`` is the player to move (1, 2, or ``CHANCE``); ``ply`` counts the record entries
    played so far; ``captured``/``self_captured`` describe the move that produced this state;
    ``resigned`` is the player who resigned (0 if nobody).
    """

    player: int
    ply: int = 0
    captured: int = 0
    self_captured: int = 0
    resigned: int = 0

    # a board of ``bytes`` printed as escapes took four characters a cell: hex takes two, and
    # the repr still evaluates to an equal state. Games' states set ``repr=False`` to use it.
    def __repr__(self) -> str:
        def shown(value: Any) -> str:
            return f"bytes.fromhex({value.hex()!r})" if isinstance(value, bytes) else repr(value)

        fields = ", ".join(f"{f.name}={shown(getattr(self, f.name))}"
                           for f in dataclasses.fields(self) if f.repr)
        return f"{type(self).__name__}({fields})"


def without_bom(text: Any) -> Any:
    """``text`` without the byte order mark an editor (Windows Notepad) puts before a position
    text or a diagram saved to a file; anything not text is left for the parser to refuse."""
    return text.removeprefix("\ufeff") if isinstance(text, str) else text

class Game(ABC):
    """A game with fixed parameters. Subclasses set ``id``, ``title``, ``param_specs`` and
    implement the abstract methods; everything else has a generic default.

    A state belongs to the game that made it: a method given a state of another game, or of
    another board of this one, raises ``PositionError``."""

    id: ClassVar[str]
    title: ClassVar[str]
    param_specs: ClassVar[tuple[Param, ...]]
    #: whether some parameters of this game give chance nodes (Blobs' Tumbling Dice)
    may_have_chance: ClassVar[bool] = False
    #: the most outcomes a chance node can have
    max_chance_outcomes: ClassVar[int] = 0
    #: chance actions are ``chance_action_offset + 0 .. max_chance_outcomes - 1`` (OpenSpiel
    #: numbers chance outcomes from 0)
    chance_action_offset: ClassVar[int] = 0
    #: what the search knows of this game (``search/profile.py``), from the game's package;
    #: ``None``: the generic profile
    search_profile: ClassVar[type[SearchProfile] | None] = None
    #: the web app's board view of this game, ``"module:NAME"`` (imported when the web app
    #: first draws the game); empty: the text view
    board_view: ClassVar[str] = ""
    #: the player who makes the first choice (after any opening chance event), as
    #: ``current_player(first_decision())`` gives it, known without playing a position (the
    #: web app's home page says it before any kernel is loaded); Blobs: 2
    first_chooser: ClassVar[int] = 1

    def __init__(self, /, **params: Any) -> None:  # positional-only: a parameter may be named "self"
        resolved = resolve_params(self.id, self.param_specs, params)
        #: the validated parameters, read-only: the game's tables were built from them
        self.params: Mapping[str, Any] = MappingProxyType(self._finish_params(resolved))

    # a mapping proxy does not pickle: a game pickles its parameters as a dict
    def __getstate__(self) -> dict[str, Any]:
        return {**self.__dict__, "params": dict(self.params)}

    def __setstate__(self, state: dict[str, Any]) -> None:
        self.__dict__.update(state)
        self.params = MappingProxyType(dict(state["params"]))

    # a game is a value: two games of one kind with equal parameters play alike, so they are
    # equal (their tables were built from those parameters alone)
    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Game):
            return NotImplemented
        return type(self) is type(other) and dict(self.params) == dict(other.params)

    def __hash__(self) -> int:
        return hash((type(self), _frozen(dict(self.params))))

    @property
    def has_chance(self) -> bool:
        """Whether these parameters give chance nodes (``may_have_chance`` says whether any
        do); a game that may have them decides."""
        return self.may_have_chance

    # a game never changes once made (its parameters are fixed, its tables derived from them),
    # so a copy of a state that holds its game (OpenSpiel clones by deep copy) shares it
    def __copy__(self) -> Game:
        return self

    def __deepcopy__(self, memo: dict[int, Any]) -> Game:
        return self

    # -- parameters -------------------------------------------------------------------------
    def _finish_params(self, params: dict[str, Any]) -> dict[str, Any]:
        """Fill derived defaults and check cross-parameter constraints. Override as needed.

        Raises:
            ParameterError: parameters that cannot go together.
        """
        return params

    def _derivation_basis(self) -> dict[str, Any]:
        """Parameters whose values other defaults derive from (Blooms' target from size)."""
        return {}

    def non_default_params(self) -> dict[str, Any]:
        """Parameters that differ from the defaults, in JSON form (what a record stores).

        A derived default (Blooms' target for the chosen size) counts as default."""
        basis = self._derivation_basis()
        derived = type(self)(**basis).params
        out = {}
        for p in self.param_specs:
            value = self.params[p.name]
            if p.name in basis:
                default = p.convert(p.default) if p.default is not None else None
            else:
                default = derived[p.name]
            if value != default:
                out[p.name] = p.to_json(value)
        return out

    def __repr__(self) -> str:
        args = ", ".join(f"{k}={v!r}" for k, v in self.non_default_params().items())
        return f"make({self.id!r}{', ' if args else ''}{args})"

    # -- sizes ------------------------------------------------------------------------------
    @property
    @abstractmethod
    def num_distinct_actions(self) -> int:
        """Size of the dense action space (actions are ``0 .. num_distinct_actions-1``)."""

    @property
    @abstractmethod
    def max_game_length(self) -> int:
        """An upper bound on the number of record entries in a game (a safety bound)."""

    # -- states -----------------------------------------------------------------------------
    @abstractmethod
    def initial_state(self) -> State:
        """The position before the first move."""

    def _own(self, state: State) -> State:
        """``state``, checked to be one of this game's (games override it; ``foreign_state``
        makes the error).

        Raises:
            PositionError: a state of another game or board.
        """
        return state

    def current_player(self, state: State) -> int:
        """1 or 2, or ``CHANCE`` at a chance node (meaningless once terminal)."""
        return self._own(state).player

    def is_terminal(self, state: State) -> bool:
        """Whether the game is over (by its rules or a resignation).

        Raises:
            PositionError: a state of another game or board (as every method given one)."""
        state = self._own(state)  # its resignation was read first, whatever the object
        return bool(state.resigned) or self._is_over(state)

    def winner(self, state: State) -> int | None:
        """1 or 2, 0 for a draw, ``None`` while the game goes on."""
        state = self._own(state)
        if state.resigned:
            return 3 - state.resigned
        if not self._is_over(state):
            return None
        return self._winner_when_over(state)

    def returns(self, state: State) -> tuple[float, float]:
        """(+1, -1), (-1, +1), or (0, 0) at the end; (0, 0) before it."""
        w = self.winner(state)
        if w == 1:
            return (1.0, -1.0)
        if w == 2:
            return (-1.0, 1.0)
        return (0.0, 0.0)

    def result_reason(self, state: State) -> str | None:
        """Why the game ended (``resign``, ``target``, ...), ``None`` while it goes on."""
        state = self._own(state)
        if state.resigned:
            return "resign"
        return self._reason_when_over(state) if self._is_over(state) else None

    @abstractmethod
    def _is_over(self, state: State) -> bool: ...

    @abstractmethod
    def _winner_when_over(self, state: State) -> int: ...

    @abstractmethod
    def _reason_when_over(self, state: State) -> str: ...

    @abstractmethod
    def scores(self, state: State) -> tuple[int, int]:
        """The scores reported by ``replay`` (the contract in docs/games/, "Records and replay")."""

    def keeps_scores(self, state: State) -> bool:
        """Whether :meth:`scores` mean anything at ``state``, so that the terminal and
        ``replay``'s result show them: by default where the game races to a ``target`` or a
        point has been scored (a game that keeps none says no meaningless ``0 : 0``)."""
        self._own(state)
        return self.params.get("target") is not None or any(self.scores(state))

    # -- moves ------------------------------------------------------------------------------
    @abstractmethod
    def legal_actions(self, state: State) -> np.ndarray:
        """Sorted int64 array of the legal actions (empty when terminal)."""

    def count_legal_actions(self, state: State) -> int:
        """Number of distinct legal moves; games override it where counting is cheaper."""
        return len(self.legal_actions(state))

    def is_legal(self, state: State, action: int) -> bool:
        """Whether ``action`` is legal in ``state``.

        Raises:
            NotationError: ``action`` is not an integer.
        """
        return self.illegal_reason(state, _as_action(action)) is None

    @abstractmethod
    def illegal_reason(self, state: State, action: int) -> str | None:
        """``None`` if ``action`` is legal, else the reason in a few words."""

    def chance_outcomes(self, state: State) -> list[tuple[int, float]]:
        """(action, probability) pairs at a chance node; empty elsewhere."""
        self._own(state)
        return []

    def play(self, state: State, action: int) -> State:
        """The state after ``action``; validates it first.

        Raises:
            IllegalMoveError: the action is not legal here.
        """
        action = _as_action(action)
        reason = self.illegal_reason(state, action)
        if reason is not None:
            raise IllegalMoveError(self._describe(state, action), reason, self.position_text(state))
        return self.play_unchecked(state, action)

    @abstractmethod
    def play_unchecked(self, state: State, action: int) -> State:
        """The state after ``action`` WITHOUT checking legality (fast path for search)."""

    def resign(self, state: State) -> State:
        """The player to move resigns.

        Raises:
            IllegalMoveError: the game is already over or a chance event is due.
            PositionError: a state of another game or board.
        """
        state = self._own(state)
        if self.is_terminal(state):
            raise IllegalMoveError("resign", "the game is over", self.position_text(state))
        if state.player == CHANCE:
            raise IllegalMoveError("resign", "a chance event is due", self.position_text(state))
        return dataclasses.replace(state, resigned=state.player, ply=state.ply + 1,
                                   captured=0, self_captured=0)

    # -- text -------------------------------------------------------------------------------
    @abstractmethod
    def action_to_text(self, state: State, action: int) -> str:
        """Canonical text of ``action`` in ``state`` (the player to move matters in some games).

        Raises:
            NotationError: the integer is not an action of this game.
        """

    @abstractmethod
    def parse_action(self, state: State, text: str) -> int:
        """Read move text into an action WITHOUT checking legality.

        Raises:
            NotationError: the text is malformed.
        """

    def parse_move(self, state: State, text: str) -> int:
        """Read move text and return the action, which is legal in ``state``.

        Raises:
            NotationError: the text is malformed.
            IllegalMoveError: the move is well formed but illegal here.
        """
        if not isinstance(text, str):
            raise NotationError(f"move text must be a string, not {quote(text)}")
        try:
            action = self.parse_action(state, text)
        except IllegalMoveError as exc:  # a reason the text alone gives (a colour not the mover's)
            if exc.position is not None:
                raise
            raise IllegalMoveError(exc.move, exc.reason, self.position_text(state)) from None
        reason = self.illegal_reason(state, action)
        if reason is not None:
            raise IllegalMoveError(text, reason, self.position_text(state))
        return action

    def play_text(self, state: State, text: str) -> State:
        """Parse and play one move text (``resign`` included).

        Raises:
            NotationError, IllegalMoveError: as ``parse_move``.
        """
        if isinstance(text, str) and text.strip().lower() == "resign":
            return self.resign(state)
        return self.play_unchecked(state, self.parse_move(state, text))

    def _describe(self, state: State, action: int) -> str:
        try:
            return self.action_to_text(state, action)
        except NotationError:
            return f"action {action}"

    def _written(self, state: State) -> State:
        """The state that ``position_text`` and ``diagram`` write: of a game ended by a
        resignation, the position it was made in, which reads back (neither can say that a
        player resigned; written with its ply one on and the same player to move, it read back
        as no position: "at ply 2 player 1 is to move, not 2").

        Raises:
            PositionError: a state of another game or board.
        """
        state = self._own(state)
        if state.resigned:
            return dataclasses.replace(state, resigned=0, ply=state.ply - 1)
        return state

    @abstractmethod
    def position_text(self, state: State) -> str:
        """One-line text of the position (like FEN); ``parse_position`` reads it back (of a
        resigned game, the position the resignation was made in: ``_written``)."""

    @abstractmethod
    def parse_position(self, text: str) -> State:
        """Raises: NotationError (malformed), PositionError (impossible)."""

    @abstractmethod
    def diagram(self, state: State) -> str:
        """A multi-line ASCII diagram; ``parse_diagram`` reads it back."""

    @abstractmethod
    def parse_diagram(self, text: str) -> State:
        """Raises: NotationError (malformed), PositionError (impossible)."""

    def replay_extras(self, before: State, after: State) -> Mapping[str, Any]:
        """Game-specific keys added to each ``replay --json`` line (Blobs' auto moves)."""
        self._own(before), self._own(after)
        return {}

    # -- observations (networks, OpenSpiel, PettingZoo) -------------------------------------
    @property
    def observation_shape(self) -> tuple[int, ...]:
        """Shape of :meth:`observation_tensor` (planes first)."""
        raise NotImplementedError(f"{self.id} has no observation tensor")

    def observation_tensor(self, state: State, player: int) -> np.ndarray:
        """float32 planes describing ``state`` from ``player``'s point of view (own stones
        first), everything a network needs to choose a move.

        Raises:
            ParameterError: ``player`` is not 1 or 2 (an OpenSpiel player index is 0 or 1).
        """
        if isinstance(player, (bool, np.bool_)) or player not in (1, 2):
            raise ParameterError(f"an observation is for player 1 or 2, not {quote(player)}")
        return self.observation_planes(state, int(player))

    def observation_planes(self, state: State, player: int) -> np.ndarray:
        """:meth:`observation_tensor` for a checked ``player`` (1 or 2): what a game defines."""
        raise NotImplementedError(f"{self.id} has no observation tensor")

    @property
    def diagram_styles(self) -> dict[str, str]:
        """Rich styles per diagram character, for the terminal (e.g. ``{"R": "bold red"}``)."""
        return {}

    def status_words(self, state: State) -> tuple[str, ...]:
        """What the terminal's status line says of ``state`` after whose turn it is and the
        scores, a few words each (Blobs: ``"dice left 47"``, ``"rolled B"``); none by
        default."""
        self._own(state)
        return ()

    def display_diagram(self, state: State) -> str:
        """The diagram as the terminal shows it to a player: :meth:`diagram`, with whatever
        helps a person read it that the parseable diagram leaves out (Blooms numbers its
        cells). Not read back."""
        return self.diagram(state)

    # -- fast paths -------------------------------------------------------------------------
    def random_playouts(self, state: State, count: int, seed: int) -> np.ndarray:
        """Play ``count`` uniformly random games from ``state``; int64[4]: wins of player 1,
        wins of player 2, draws (and unfinished), total record entries played.

        This generic version goes through the protocol; games override it with a kernel.

        Raises:
            ParameterError: ``count`` or ``seed`` is not an integer of its range
            (``check_playouts``).
        """
        check_playouts(count, seed)
        rng = np.random.default_rng(seed)
        totals = np.zeros(4, np.int64)
        for _ in range(count):
            s = state
            start = s.ply
            while not self.is_terminal(s):
                if self.current_player(s) == CHANCE:
                    outcomes = self.chance_outcomes(s)
                    probs = np.array([p for _, p in outcomes])
                    a = outcomes[int(rng.choice(len(outcomes), p=probs / probs.sum()))][0]
                else:
                    acts = self.legal_actions(s)
                    a = int(acts[int(rng.integers(len(acts)))])
                s = self.play_unchecked(s, a)
            w = self.winner(s)
            totals[0 if w == 1 else 1 if w == 2 else 2] += 1
            totals[3] += s.ply - start
        return totals

    # -- convenience ------------------------------------------------------------------------
    def legal_moves_text(self, state: State) -> list[str]:
        """The canonical texts of the legal actions, in the actions' order (the rolls at a
        chance node)."""
        return [self.action_to_text(state, int(a)) for a in self.legal_actions(state)]

    def first_decision(self) -> State:
        """The first position where a player, not chance, is to move (or the game's end): the
        initial state after the first outcome of each chance event before it (Blobs' opening
        roll)."""
        state = self.initial_state()
        while self.current_player(state) == CHANCE and not self.is_terminal(state):
            state = self.play(state, self.chance_outcomes(state)[0][0])
        return state

    def replay(self, moves: Sequence[str]) -> list[State]:
        """All states of a game given as move texts, the initial one first.

        Raises:
            NotationError, IllegalMoveError: at the first bad move, or ``moves`` is one string
            rather than a sequence of them, or not a sequence at all (``None``).
        """
        if isinstance(moves, str):
            raise NotationError(f"moves are a list of move texts, not one string {quote(moves)}")
        if not isinstance(moves, Iterable):
            raise NotationError(f"moves are a list of move texts, not {quote(moves)}")
        states = [self.initial_state()]
        for text in moves:
            states.append(self.play_text(states[-1], text))
        return states


def foreign_state(game: Game, state: object, size: tuple[int, int] | None = None) -> PositionError:
    """The error for a state that is not one of ``game``'s: of another game, or, with ``size``
    (the state's cells, the game's cells), of another board, whose tables the game's kernels
    would read past."""
    if size is None:
        # a value is quoted; an object by its type (an OpenSpiel state's text is its diagram)
        shown = state is None or isinstance(state, (str, bytes, int, float, list, tuple, dict))
        name = type(state).__name__
        what = quote(state) if shown else f"{'an' if name[0] in 'AEIOU' else 'a'} {name}"
        return PositionError(f"{what} is not a state of {game!r}")
    return PositionError(f"a {type(state).__name__} of {size[0]} cells is not a state of "
                         f"{game!r} ({size[1]} cells): a state belongs to the game that made it")


def check_playouts(count: object, seed: object) -> None:
    """Raises: ParameterError unless ``count`` and ``seed`` are integers of 0 .. 2**63 - 1
    (what every game's ``random_playouts`` takes: its kernel's 64-bit integers; a larger count
    failed in numba's type inference with a page of its diagnostics)."""
    for name, value in (("count", count), ("seed", seed)):
        if isinstance(value, (bool, np.bool_)) or not isinstance(value, (int, np.integer)) or (
                not 0 <= value <= 2**63 - 1):
            raise ParameterError(f"playouts: {name} must be an integer, 0 .. 2**63 - 1, not "
                                 f"{quote(value)}")


def is_action_value(value: object) -> bool:
    """Whether ``value`` is an integer (numpy's included, booleans not): what an action is."""
    return isinstance(value, (int, np.integer)) and not isinstance(value, (bool, np.bool_))


def _as_action(action: Any) -> int:
    if not is_action_value(action):
        raise NotationError(f"an action is an integer, not {quote(action)}")
    return int(action)


def _frozen(value: Any) -> Any:
    """A hashable stand-in for a parameter value (lists and mappings become tuples)."""
    if isinstance(value, Mapping):
        return tuple(sorted((k, _frozen(v)) for k, v in value.items()))
    if isinstance(value, (list, tuple)):
        return tuple(_frozen(v) for v in value)
    return value
