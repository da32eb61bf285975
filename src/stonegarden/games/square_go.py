"""What the square-board Go games (Free Go, Bridge Go) share above the board geometry.

States hold one byte per point; an action is a point (there is no pass) and its text the GTP
point name; positions are written and read by the game's ``SquareGoNotation``. A game adds its
own state fields, which points are legal, when the game ends, and which parsed positions it
rejects.
"""

from __future__ import annotations

import weakref
from abc import abstractmethod
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, ClassVar, Generic, TypeVar

import numpy as np

from ..core.protocol import Game, State, foreign_state, is_action_value, without_bom
from ..errors import quote
from ..geometry.square import SquareBoard

if TYPE_CHECKING:
    from .square_go_notation import SquareGoNotation


@dataclass(frozen=True, kw_only=True, repr=False)  # State.__repr__ shows bytes compactly
class SquareGoState(State):
    """``board``: one byte per point (0 empty, 1 Black, 2 White)."""

    board: bytes

    def cells(self) -> np.ndarray:
        """Read-only int8 view of the board."""
        return np.frombuffer(self.board, dtype=np.int8)


S = TypeVar("S", bound=SquareGoState)

#: the legal points of the positions met, by the parameters legality depends on: kept beside
#: the states, never on them (a state is a frozen value, pickled and copied as its fields
#: alone), each entry going with its state; equal positions share one
_LEGAL_MEMO: weakref.WeakKeyDictionary[SquareGoState, dict[tuple[Any, ...], np.ndarray]] = (
    weakref.WeakKeyDictionary())


class SquareGoGame(Game, Generic[S]):
    """Base of the square-board Go games: a subclass sets the attributes below, builds
    ``board`` in ``_finish_params`` and implements the abstract hooks."""

    state_type: type[S]
    notation: SquareGoNotation[S]
    #: the game's name in messages ("there is no pass in Free Go")
    short_title: ClassVar[str]
    #: planes of :meth:`observation_tensor`, in order; the first five are filled here
    PLANES: ClassVar[tuple[str, ...]]
    board: SquareBoard
    board_view = "stonegarden.games.square_go_view:VIEW"

    def _derivation_basis(self) -> dict[str, Any]:
        return {"size": self.params["size"]}

    @property
    def num_distinct_actions(self) -> int:
        return self.board.num_points

    def _own(self, state: State) -> S:
        """``state``, checked to be a position of this game's board.

        Raises:
            PositionError: a state of another game or another board.
        """
        if not isinstance(state, self.state_type):
            raise foreign_state(self, state)
        if len(state.board) != self.board.num_points:
            raise foreign_state(self, state, (len(state.board), self.board.num_points))
        return state

    # -- legality ---------------------------------------------------------------------------
    @abstractmethod
    def _legal_key(self) -> tuple[Any, ...]:
        """The parameters legality depends on besides the size (one state may meet games with
        other parameters, and the legal points are memoised by position)."""

    @abstractmethod
    def _legal_points(self, state: S, out: np.ndarray) -> int:
        """Write the legal points, whether or not the game is over, to ``out``; return how many."""

    @abstractmethod
    def _forbidden_reason(self) -> str:
        """Why an empty point that is not legal is forbidden (which ko rule)."""

    def _legal_memo_key(self) -> tuple[Any, ...]:
        """The key of the legal points memoised on a state."""
        return ("legal", self.params["size"], *self._legal_key())

    def _known_legal(self, state: S) -> np.ndarray | None:
        """The legal points of ``state`` if they were listed already, else ``None``."""
        return _LEGAL_MEMO.get(state, {}).get(self._legal_memo_key())

    def _legal(self, state: S) -> np.ndarray:
        """Legal points, whether or not the game is over (memoised beside the state)."""
        memo = _LEGAL_MEMO.setdefault(state, {})
        key = self._legal_memo_key()
        if key not in memo:
            out = np.empty(self.board.num_points, np.int64)
            arr = out[:self._legal_points(state, out)].copy()
            arr.flags.writeable = False
            memo[key] = arr
        return memo[key]

    def legal_actions(self, state: State) -> np.ndarray:
        state = self._own(state)
        if self.is_terminal(state):
            return np.empty(0, np.int64)
        return self._legal(state).copy()

    def illegal_reason(self, state: State, action: int) -> str | None:
        state = self._own(state)
        if self.is_terminal(state):
            return "the game is over"
        if not is_action_value(action) or not 0 <= action < self.board.num_points:
            return f"{quote(action)} is not a point of this board"
        if state.cells()[action] != 0:
            return f"point {self.board.names[action]} is occupied"
        if action in self._legal(state):
            return None
        return self._forbidden_reason()

    # -- text -------------------------------------------------------------------------------
    def action_to_text(self, state: State, action: int) -> str:
        self._own(state)
        return self.board.move_text(action, repr(self))

    def parse_action(self, state: State, text: str) -> int:
        self._own(state)
        return self.board.parse_move(text, self.short_title)

    def position_text(self, state: State) -> str:
        return self.notation.position_text(self.board, self._own(self._written(state)))

    def parse_position(self, text: str) -> S:
        return self._checked(self.notation.parse_position(self.board, without_bom(text)), text)

    def diagram(self, state: State) -> str:
        return self.notation.diagram(self.board, self._own(self._written(state)))

    def parse_diagram(self, text: str) -> S:
        return self._checked(self.notation.parse_diagram(self.board, without_bom(text)), text)

    @abstractmethod
    def _checked(self, state: S, source: str) -> S:
        """A parsed position made whole (ko history), if a game can reach it.

        Raises:
            PositionError: no game reaches it.
        """

    # -- observations -----------------------------------------------------------------------
    @property
    def observation_shape(self) -> tuple[int, ...]:
        n = self.board.size
        return (len(self.PLANES), n, n)

    @abstractmethod
    def _won_by_last_move(self, state: S) -> bool:
        """Whether the last move won the game (no point is then shown as forbidden)."""

    def observation_planes(self, state: State, player: int) -> np.ndarray:
        """float32 planes (see ``PLANES``) from ``player``'s point of view; rows from the
        bottom (plane[r, c] is the point of row r+1, column c)."""
        state = self._own(state)
        n = self.board.size
        cells = state.cells().reshape(n, n)
        out = np.zeros(self.observation_shape, np.float32)
        out[0] = cells == player
        out[1] = cells == 3 - player
        out[2] = cells == 0
        if not self._won_by_last_move(state):
            legal = np.zeros(n * n, bool)
            legal[self._legal(state)] = True
            out[3] = ((state.cells() == 0) & ~legal).reshape(n, n)
        out[4] = float(state.player == player)
        return out

    @property
    def diagram_styles(self) -> dict[str, str]:
        """Rich styles for the diagram's characters (terminal rendering)."""
        return {"X": "bold bright_white on grey11", "O": "bold black on grey85", ".": "grey50"}
