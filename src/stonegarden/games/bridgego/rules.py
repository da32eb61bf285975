"""``bridgego``: Bridge Go (docs/games/bridgego.md) as a game of the protocol.

Actions: one per point, the point index (``A1`` = 0, row by row from the bottom); no pass.
Validation lives here; the work is done by ``kernels`` and ``playouts``.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from typing import Any

import numpy as np

from ...core.params import Param
from ...core.protocol import State, check_playouts
from ...core.registry import register
from ...errors import PositionError
from ...geometry.hashset import build_table
from ...geometry.square import EMPTY_BOARD_KEY, board_hash, square_board
from ..square_go import SquareGoGame, SquareGoState
from . import kernels as K
from .fast_turn import legal_points
from .playouts import bridge_playouts
from .search import BridgeGoProfile
from .text import NOTATION

WIN_CHECKS = ("before-self-capture", "after-self-capture")
EXTERNAL_RULES = ("standard", "perpendicular")


@dataclass(frozen=True, kw_only=True, repr=False)  # State.__repr__ shows bytes compactly
class BridgeGoState(SquareGoState):
    """A Bridge Go position: ``board`` one byte per point (0 empty, 1 Black, 2 White);
    ``won`` the player whose last move made a bridge (0 if none); ``history`` the positional
    hashes of every position so far, the empty start first and this one last (superko only)."""

    won: int = 0
    history: tuple[int, ...] = ()


class _Scratch:
    """Kernel scratch buffers for one board size."""

    def __init__(self, n: int) -> None:
        self.label = np.empty(n, np.int32)
        self.rmask = np.empty(n, np.int8)
        self.stack = np.empty(n, np.int32)
        self.alive = np.empty(n, np.int8)
        self.out = np.empty(n, np.int32)


@register
class BridgeGo(SquareGoGame[BridgeGoState]):
    """``bridgego``: connect two opposite sides; chains need an external liberty."""

    id = "bridgego"
    title = "Bridge Go"
    search_profile = BridgeGoProfile
    board_view = "stonegarden.games.bridgego.view:VIEW"
    short_title = "Bridge Go"
    state_type = BridgeGoState
    notation = NOTATION
    param_specs = (
        Param("size", "int", 9, "points per side of the square board", low=3, high=19),
        Param("superko", "bool", True,
              "forbid moves that recreate an earlier board (whoever is to move)"),
        Param("max_turns", "opt_int", None,
              "moves before a draw when superko is off (default 4*size²)", low=1, high=10_000),
        Param("win_check", "choice", WIN_CHECKS[0],
              "win check before the mover's self-capture, or after it (mudri's program)",
              choices=WIN_CHECKS),
        Param("external", "choice", EXTERNAL_RULES[0],
              "which liberties count: reaching two opposite sides, or the perpendicular sides",
              choices=EXTERNAL_RULES),
    )

    def _finish_params(self, params: dict[str, Any]) -> dict[str, Any]:
        self.board = square_board(params["size"])
        if params["max_turns"] is None:
            params["max_turns"] = 4 * params["size"] ** 2
        self.perpendicular = params["external"] == "perpendicular"
        self.win_after = params["win_check"] == "after-self-capture"
        self.superko = bool(params["superko"])
        return params

    @property
    def max_game_length(self) -> int:
        if not self.superko:
            return int(self.params["max_turns"])
        return 1_000_000  # superko ends every game, but only after astronomically many moves

    # -- states -----------------------------------------------------------------------------
    def _empty_hash(self) -> int:
        return int(EMPTY_BOARD_KEY)

    def initial_state(self) -> BridgeGoState:
        board = bytes(self.board.num_points)
        history = (self._empty_hash(),) if self.superko else ()
        return BridgeGoState(player=1, board=board, history=history)

    def _apply(self, state: BridgeGoState, action: int) -> tuple[np.ndarray, int, int, bool]:
        """(board after the turn, captured, self-captured, won)."""
        board = state.cells().copy()
        s = _Scratch(self.board.num_points)
        cap, own, won = K.play_bridge(board, self.board.neighbours, self.board.sides,
                                      state.player, action, self.perpendicular, self.win_after,
                                      s.label, s.rmask, s.stack, s.alive, s.out)
        return board, int(cap), int(own), bool(won)

    def _legal_key(self) -> tuple[Any, ...]:
        return (self.superko, self.perpendicular, self.win_after)

    def _legal_points(self, state: BridgeGoState, out: np.ndarray) -> int:
        table = build_table(np.array(state.history, np.int64))
        return legal_points(state.cells().copy(), self.board.neighbours, self.board.sides,
                              self.board.zobrist, EMPTY_BOARD_KEY, state.player,
                              self.perpendicular, self.win_after, self.superko, table, out)

    def _forbidden_reason(self) -> str:
        return "it recreates an earlier position (superko)"

    def _turns_ran_out(self, state: BridgeGoState) -> bool:
        return not self.superko and state.ply >= self.params["max_turns"]

    def _is_over(self, state: State) -> bool:
        state = self._own(state)
        return bool(state.won) or self._turns_ran_out(state) or not self._any_legal(state)

    def _any_legal(self, state: BridgeGoState) -> bool:
        """Whether the player to move has a legal point: from the memoised legal points when
        known, else by the kernel stopping at the first one (the search asks ``is_terminal`` of
        every new node, and most are never expanded, so their points are never listed)."""
        known = self._known_legal(state)
        if known is not None:
            return len(known) > 0
        return self._legal_points(state, np.empty(1, np.int64)) > 0

    def _winner_when_over(self, state: State) -> int:
        state = self._own(state)
        return state.won

    def _reason_when_over(self, state: State) -> str:
        state = self._own(state)
        if state.won:
            return "bridge"
        return "max-turns" if self._turns_ran_out(state) else "no-legal-move"

    def scores(self, state: State) -> tuple[int, int]:
        self._own(state)
        return (0, 0)

    def winning_chain(self, state: State) -> list[int]:
        """The points of the winner's chains that join two opposite sides (empty unless a
        bridge ended the game): what the board draws as the decisive connection."""
        state = self._own(state)
        if not state.won:
            return []
        board = state.cells()
        seen = np.zeros(self.board.num_points, np.int32)
        stack = np.empty(self.board.num_points, np.int32)
        out: list[int] = []
        for p in np.flatnonzero(board == state.won):
            stamp = int(p) + 1  # a fresh stamp per chain: its points are those stamped so
            if seen[p] == 0 and K.chain_bridges(board, self.board.neighbours, self.board.sides,
                                                 int(p), stack, seen, stamp):
                out.extend(int(q) for q in np.flatnonzero(seen == stamp))
        return sorted(out)

    # -- moves ------------------------------------------------------------------------------
    def play_unchecked(self, state: State, action: int) -> BridgeGoState:
        """The next state; does NOT check that ``action`` is legal."""
        state = self._own(state)
        board, cap, own, won = self._apply(state, action)
        history: tuple[int, ...] = ()
        if self.superko:
            history = (*state.history, board_hash(self.board, board))
        return BridgeGoState(player=3 - state.player, ply=state.ply + 1, captured=cap,
                             self_captured=own, board=board.tobytes(),
                             won=state.player if won else 0, history=history)

    def random_playouts(self, state: State, count: int, seed: int) -> np.ndarray:
        """Random playouts; with superko on, a playout still going after 16 moves per point
        counts as a draw (random games end long before)."""
        state = self._own(state)
        check_playouts(count, seed)
        if self.is_terminal(state):
            return super().random_playouts(state, count, seed)
        return bridge_playouts(
            state.cells().copy(), self.board.neighbours, self.board.sides, self.board.zobrist,
            EMPTY_BOARD_KEY, state.player, self.perpendicular, self.win_after, self.superko,
            np.array(state.history, np.int64), self.playout_cap(state), count, seed, False,
        )

    def playout_cap(self, state: BridgeGoState) -> int:
        """Moves a playout from ``state`` may make: under superko 16 per point (random games
        end long before; a longer one is a draw), else what ``max_turns`` leaves."""
        if self.superko:
            return 16 * self.board.num_points
        return int(self.params["max_turns"]) - state.ply

    # -- judgements, and positions read from text -------------------------------------------
    def bridges(self, cells: np.ndarray, player: int) -> bool:
        """Whether a chain of ``player`` touches two opposite sides."""
        stack = np.empty(self.board.num_points, np.int32)
        seen = np.zeros(self.board.num_points, np.int64)
        return any(
            K.chain_bridges(cells, self.board.neighbours, self.board.sides, int(p), stack, seen,
                            stamp)
            for stamp, p in enumerate(np.flatnonzero(cells == player), start=1)
        )

    def without_external(self, cells: np.ndarray, colour: int) -> list[int]:
        """The points of ``colour``'s chains that have no external liberty (judged, not removed)."""
        s = _Scratch(self.board.num_points)
        count = K.chains_without_external(cells, self.board.neighbours, self.board.sides, colour,
                                          self.perpendicular, s.label, s.rmask, s.stack, s.alive,
                                          s.out)
        return sorted(int(p) for p in s.out[:count])

    def _checked(self, state: BridgeGoState, source: str) -> BridgeGoState:
        """Reject positions no game reaches; derive the win; start the superko history with the
        empty board and this position.

        Raises:
            PositionError: the player to move has a bridge, or either player a chain without
            an external liberty (the last move would have removed it) unless a bridge won
            before the self-capture step.
        """
        cells = state.cells()
        p = state.player
        if self.bridges(cells, p):
            raise PositionError(f"{source!r}: player {p} is to move but already has a bridge")
        if self.without_external(cells, p):
            raise PositionError(f"{source!r}: player {p} is to move with a chain without an "
                                "external liberty, which the last move would have removed")
        won = 3 - p if self.bridges(cells, 3 - p) else 0
        # a winning move skips the mover's self-capture only when the win is checked first;
        # after it (mudri's program) even the winner's chains all kept an external liberty
        if (not won or self.win_after) and self.without_external(cells, 3 - p):
            raise PositionError(f"{source!r}: player {3 - p} has a chain without an external "
                                "liberty, which their last move would have removed")
        history: tuple[int, ...] = ()
        if self.superko:
            here = board_hash(self.board, cells)
            history = (self._empty_hash(),) if here == self._empty_hash() else (
                self._empty_hash(), here)
        return dataclasses.replace(state, won=won, history=history)

    # -- observations -----------------------------------------------------------------------
    #: planes of :meth:`observation_tensor`, in order
    PLANES = ("own stones", "opponent stones", "empty", "forbidden by superko", "to move")

    def _won_by_last_move(self, state: BridgeGoState) -> bool:
        return bool(state.won)
