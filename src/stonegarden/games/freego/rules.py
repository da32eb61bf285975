"""``freego``: capture-N Go with suicide allowed (spec/freego.md) as a game of the protocol.

Actions: one per point, the point index (``A1`` = 0, row by row from the bottom); no pass.
Validation lives here; the work is done by ``kernels`` and ``playouts``.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from typing import Any

import numpy as np

from ...core.params import Param
from ...core.protocol import Game, State
from ...core.registry import register
from ...geometry.hashset import build_table
from ...geometry.square import SIDE_TO_MOVE_KEY, SquareBoard, board_hash, square_board
from . import kernels as K
from .playouts import KO_NONE, KO_SIMPLE, KO_SUPER, freego_playouts
from .text import diagram, parse_diagram, parse_position, position_text

KO_MODES = {"none": KO_NONE, "simple": KO_SIMPLE, "superko": KO_SUPER}


@dataclass(frozen=True, kw_only=True)
class FreeGoState(State):
    """A Free Go position: ``board`` one byte per point (0 empty, 1 Black, 2 White), capture
    ``scores``, and ``history``: the hashes of the positions so far, this one last (all of
    them under superko, the last two under simple ko, none without ko)."""

    board: bytes
    scores: tuple[int, int] = (0, 0)
    history: tuple[int, ...] = ()

    def cells(self) -> np.ndarray:
        """Read-only int8 view of the board."""
        return np.frombuffer(self.board, dtype=np.int8)


def default_target(size: int) -> int:
    """round(size²/8) as Python rounds (10 on 9×9, 21 on 13×13; 4 on 6×6)."""
    return round(size * size / 8)


@register
class FreeGo(Game):
    """``freego``: first to capture ``target`` stones wins; suicide stays until the opponent's
    capture step; ko ``simple`` | ``superko`` | ``none``."""

    id = "freego"
    title = "Free Go (capture-N Go with suicide allowed)"
    param_specs = (
        Param("size", "int", 9, "points per side of the square board", low=5, high=19),
        Param("target", "int", None, "captures needed to win (default round(size²/8))", low=1),
        Param("ko", "choice", "simple", "ko rule: simple, superko or none",
              choices=tuple(KO_MODES)),
    )

    def _finish_params(self, params: dict[str, Any]) -> dict[str, Any]:
        self.board: SquareBoard = square_board(params["size"])
        if params["target"] is None:
            params["target"] = default_target(params["size"])
        self.ko_mode = KO_MODES[params["ko"]]
        return params

    def _derivation_basis(self) -> dict[str, Any]:
        return {"size": self.params["size"]}

    @property
    def num_distinct_actions(self) -> int:
        return self.board.num_points

    @property
    def max_game_length(self) -> int:
        # stones on the board = moves - stones removed, and removals score: fewer than 2*target
        # before the last move, which removes at most every point
        return 2 * self.board.num_points + 2 * self.params["target"]

    # -- states -----------------------------------------------------------------------------
    def initial_state(self) -> FreeGoState:
        board = bytes(self.board.num_points)
        return FreeGoState(player=1, board=board, history=self._start_history(board, 1))

    def _start_history(self, board: bytes, to_move: int) -> tuple[int, ...]:
        if self.ko_mode == KO_NONE:
            return ()
        return (board_hash(self.board, np.frombuffer(board, np.int8), to_move),)

    def _hash(self, state: FreeGoState) -> int:
        if state.history:
            return state.history[-1]
        return board_hash(self.board, state.cells(), state.player)

    def _banned_table(self, state: FreeGoState) -> np.ndarray:
        """The resulting hashes ko forbids, as a kernel hash table."""
        if self.ko_mode == KO_SIMPLE and len(state.history) >= 2:
            banned = np.array(state.history[-2:-1], np.int64)
        elif self.ko_mode == KO_SUPER:
            banned = np.array(state.history, np.int64)
        else:
            banned = np.empty(0, np.int64)
        return build_table(banned)

    def _legal(self, state: FreeGoState) -> np.ndarray:
        """Legal points, whether or not the target was reached (memoised on the state)."""
        memo = state.__dict__.setdefault("_memo", {})
        key = ("legal", self.params["size"], self.ko_mode)
        if key not in memo:
            out = np.empty(self.board.num_points, np.int64)
            count = K.legal_points(state.cells().copy(), self.board.neighbours, self.board.zobrist,
                                   SIDE_TO_MOVE_KEY, state.player, np.int64(self._hash(state)),
                                   self._banned_table(state), out)
            arr = out[:count].copy()
            arr.flags.writeable = False
            memo[key] = arr
        return memo[key]

    def _target_reached(self, state: FreeGoState) -> bool:
        return max(state.scores) >= self.params["target"]

    def _is_over(self, state: State) -> bool:
        assert isinstance(state, FreeGoState)
        return self._target_reached(state) or len(self._legal(state)) == 0

    def _winner_when_over(self, state: State) -> int:
        assert isinstance(state, FreeGoState)
        s1, s2 = state.scores
        return 1 if s1 > s2 else 2 if s2 > s1 else 0

    def _reason_when_over(self, state: State) -> str:
        assert isinstance(state, FreeGoState)
        return "target" if self._target_reached(state) else "no-legal-move"

    def scores(self, state: State) -> tuple[int, int]:
        assert isinstance(state, FreeGoState)
        return state.scores

    # -- moves ------------------------------------------------------------------------------
    def legal_actions(self, state: State) -> np.ndarray:
        assert isinstance(state, FreeGoState)
        if self.is_terminal(state):
            return np.empty(0, np.int64)
        return self._legal(state).copy()

    def illegal_reason(self, state: State, action: int) -> str | None:
        assert isinstance(state, FreeGoState)
        if self.is_terminal(state):
            return "the game is over"
        if not 0 <= action < self.board.num_points:
            return f"{action!r} is not a point of this board"
        if state.cells()[action] != 0:
            return f"point {self.board.names[action]} is occupied"
        if action in self._legal(state):
            return None
        if self.ko_mode == KO_SIMPLE:
            return "it recreates the board before the opponent's last move (ko)"
        return "it recreates an earlier position (superko)"

    def play_unchecked(self, state: State, action: int) -> FreeGoState:
        """The next state; does NOT check that ``action`` is legal."""
        assert isinstance(state, FreeGoState)
        board = state.cells().copy()
        removed = np.empty(self.board.num_points, np.int32)
        p = state.player
        count, h = K.play_point(board, self.board.neighbours, self.board.zobrist,
                                SIDE_TO_MOVE_KEY, p, action, np.int64(self._hash(state)), removed)
        count = int(count)
        scores = state.scores
        if count:
            s = list(scores)
            s[p - 1] += count
            scores = (s[0], s[1])
        history: tuple[int, ...] = ()
        if self.ko_mode == KO_SUPER:
            history = (*state.history, int(h))
        elif self.ko_mode == KO_SIMPLE:
            history = (*state.history[-1:], int(h))
        return FreeGoState(player=3 - p, ply=state.ply + 1, captured=count, board=board.tobytes(),
                           scores=scores, history=history)

    def random_playouts(self, state: State, count: int, seed: int) -> np.ndarray:
        assert isinstance(state, FreeGoState)
        if self.is_terminal(state):
            return super().random_playouts(state, count, seed)
        prev = state.history[-2] if len(state.history) >= 2 else 0
        return freego_playouts(
            state.cells().copy(), self.board.neighbours, self.board.zobrist, SIDE_TO_MOVE_KEY,
            state.player, np.array(state.scores, np.int64), self.params["target"], self.ko_mode,
            np.int64(self._hash(state)), np.int64(prev),
            np.array(state.history[:-1], np.int64), self.max_game_length, count, seed,
        )

    # -- text -------------------------------------------------------------------------------
    def action_to_text(self, state: State, action: int) -> str:
        return self.board.move_text(action, repr(self))

    def parse_action(self, state: State, text: str) -> int:
        return self.board.parse_move(text, "Free Go")

    def position_text(self, state: State) -> str:
        assert isinstance(state, FreeGoState)
        return position_text(self.board, state)

    def parse_position(self, text: str) -> FreeGoState:
        return self._checked(parse_position(self.board, text), text)

    def diagram(self, state: State) -> str:
        assert isinstance(state, FreeGoState)
        return diagram(self.board, state)

    def parse_diagram(self, text: str) -> FreeGoState:
        return self._checked(parse_diagram(self.board, text), text)

    def _checked(self, state: FreeGoState, source: str) -> FreeGoState:
        """Reject positions no game reaches; start the ko history at this position.

        Raises:
            PositionError: the player to move has a chain without a liberty (the last move
            would have removed it), or the scores cannot both have reached the target.
        """
        from ...errors import PositionError

        target = self.params["target"]
        if min(state.scores) >= target or state.scores[state.player - 1] >= target:
            raise PositionError(f"{source!r}: player {state.player} is to move with a score at "
                                f"or above the target {target}")
        clock = np.zeros(1, np.int64)
        n = self.board.num_points
        dead, _ = K.pending_dead(state.cells().copy(), self.board.neighbours, state.player,
                                 np.empty(n, np.int32), np.zeros(n, np.int64), clock,
                                 np.zeros(n, np.int64), np.empty(n, np.int32))
        if dead:
            raise PositionError(f"{source!r}: player {state.player} is to move with a chain "
                                "without a liberty, which the last move would have removed")
        return dataclasses.replace(state, history=self._start_history(state.board, state.player))

    # -- observations -----------------------------------------------------------------------
    #: planes of :meth:`observation_tensor`, in order
    PLANES = ("own stones", "opponent stones", "empty", "forbidden by ko", "to move",
              "own score / target", "opponent score / target")

    @property
    def observation_shape(self) -> tuple[int, ...]:
        n = self.board.size
        return (len(self.PLANES), n, n)

    def observation_tensor(self, state: State, player: int) -> np.ndarray:
        """float32 planes (see ``PLANES``) from ``player``'s point of view; rows from the
        bottom (plane[r, c] is the point of row r+1, column c)."""
        assert isinstance(state, FreeGoState)
        n = self.board.size
        cells = state.cells().reshape(n, n)
        out = np.zeros(self.observation_shape, np.float32)
        out[0] = cells == player
        out[1] = cells == 3 - player
        out[2] = cells == 0
        if not self._target_reached(state):
            legal = np.zeros(n * n, bool)
            legal[self._legal(state)] = True
            out[3] = ((state.cells() == 0) & ~legal).reshape(n, n)
        out[4] = float(state.player == player)
        target = self.params["target"]
        out[5] = min(state.scores[player - 1] / target, 1.0)
        out[6] = min(state.scores[2 - player] / target, 1.0)
        return out

    @property
    def diagram_styles(self) -> dict[str, str]:
        """Rich styles for the diagram's characters (terminal rendering)."""
        return {"X": "bold bright_white on grey11", "O": "bold black on grey85", ".": "grey50"}
