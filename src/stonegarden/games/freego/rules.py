"""``freego``: capture-N Go with suicide allowed (docs/games/freego.md) as a game of the protocol.

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
from ...geometry.hashset import build_table
from ...geometry.square import SIDE_TO_MOVE_KEY, board_hash, square_board
from ..square_go import SquareGoGame, SquareGoState
from . import kernels as K
from .playouts import KO_NONE, KO_SIMPLE, KO_SUPER, freego_playouts
from .search import FreeGoProfile
from .text import NOTATION

KO_MODES = {"none": KO_NONE, "simple": KO_SIMPLE, "superko": KO_SUPER}


@dataclass(frozen=True, kw_only=True, repr=False)  # State.__repr__ shows bytes compactly
class FreeGoState(SquareGoState):
    """A Free Go position: ``board`` one byte per point (0 empty, 1 Black, 2 White), capture
    ``scores``, and ``history``: the hashes of the positions so far, this one last (all of
    them under superko, the last two under simple ko, none without ko)."""

    scores: tuple[int, int] = (0, 0)
    history: tuple[int, ...] = ()


def default_target(size: int) -> int:
    """round(size²/8) as Python rounds (10 on 9×9, 21 on 13×13; 4 on 6×6)."""
    return round(size * size / 8)


@register
class FreeGo(SquareGoGame[FreeGoState]):
    """``freego``: first to capture ``target`` stones wins; a stone may be played where it is
    surrounded, and stays until the opponent's next move takes it; ko ``simple`` | ``superko``
    | ``none``."""

    id = "freego"
    # what a newcomer choosing a game can read: not "capture-N" or "suicide" (the docs' words)
    title = "Free Go (a capture race)"
    search_profile = FreeGoProfile
    short_title = "Free Go"
    board_view = "stonegarden.games.freego.view:VIEW"
    state_type = FreeGoState
    notation = NOTATION
    param_specs = (
        Param("size", "int", 9, "points per side of the square board", low=5, high=19),
        Param("target", "int", None, "captures needed to win (default round(size²/8))", low=1,
              high=1000),
        Param("ko", "choice", "simple", "ko rule: simple, superko or none",
              choices=tuple(KO_MODES)),
    )

    def _finish_params(self, params: dict[str, Any]) -> dict[str, Any]:
        self.board = square_board(params["size"])
        if params["target"] is None:
            params["target"] = default_target(params["size"])
        self.ko_mode = KO_MODES[params["ko"]]
        return params

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

    def position_hash(self, state: FreeGoState) -> int:
        """The Zobrist hash of ``state`` (player to move included)."""
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

    def _legal_key(self) -> tuple[Any, ...]:
        return (self.ko_mode,)

    def _legal_points(self, state: FreeGoState, out: np.ndarray) -> int:
        return K.legal_points(state.cells().copy(), self.board.neighbours, self.board.zobrist,
                              SIDE_TO_MOVE_KEY, state.player, np.int64(self.position_hash(state)),
                              self._banned_table(state), out)

    def _forbidden_reason(self) -> str:
        if self.ko_mode == KO_SIMPLE:
            return "it recreates the board before the opponent's last move (ko)"
        return "it recreates an earlier position (superko)"

    def _target_reached(self, state: FreeGoState) -> bool:
        return max(state.scores) >= self.params["target"]

    def _is_over(self, state: State) -> bool:
        state = self._own(state)
        return self._target_reached(state) or (
            not self._surely_has_move(state) and len(self._legal(state)) == 0)

    def _surely_has_move(self, state: FreeGoState) -> bool:
        """True when more points are empty than ko can forbid, so without computing the legal
        points (which the search would otherwise do for every new node). Any empty point is
        legal but for ko, and each forbidden board forbids at most one point: the mover's
        stone stays on the board it makes (only opponent chains are removed on the mover's
        turn) and every other empty point stays empty, so two points never make one board."""
        banned = 0 if self.ko_mode == KO_NONE else 1 if self.ko_mode == KO_SIMPLE \
            else len(state.history)
        return state.board.count(0) > banned

    def _winner_when_over(self, state: State) -> int:
        state = self._own(state)
        s1, s2 = state.scores
        return 1 if s1 > s2 else 2 if s2 > s1 else 0

    def _reason_when_over(self, state: State) -> str:
        state = self._own(state)
        return "target" if self._target_reached(state) else "no-legal-move"

    def scores(self, state: State) -> tuple[int, int]:
        state = self._own(state)
        return state.scores

    def without_liberty(self, state: State) -> list[int]:
        """The points of the stones without a liberty (in point order): the last move's
        suicide, which stays on the board and counts for nothing, until the opponent's next
        move, wherever it is played, removes it and scores it. Only the player who moved last
        can have such stones (the player to move never has one)."""
        state = self._own(state)
        n = self.board.num_points
        out = np.empty(n, np.int32)
        count, _ = K.pending_dead(state.cells().copy(), self.board.neighbours, 3 - state.player,
                                  np.empty(n, np.int32), np.zeros(n, np.int64),
                                  np.zeros(1, np.int64), np.zeros(n, np.int64), out)
        return sorted(int(p) for p in out[:int(count)])

    def status_words(self, state: State) -> tuple[str, ...]:
        """The stones without a liberty, while the game goes on, and what becomes of them:
        the terminal's diagram draws them as any other stone."""
        if self.is_terminal(state):
            return ()
        lost = [self.board.names[p] for p in self.without_liberty(state)]
        if not lost:
            return ()
        it = "it" if len(lost) == 1 else "them"
        return (f"no liberty: {' '.join(lost)} (the next move removes {it} and scores {it})",)

    # -- moves ------------------------------------------------------------------------------
    def play_unchecked(self, state: State, action: int) -> FreeGoState:
        """The next state; does NOT check that ``action`` is legal."""
        state = self._own(state)
        board = state.cells().copy()
        removed = np.empty(self.board.num_points, np.int32)
        p = state.player
        count, h = K.play_point(board, self.board.neighbours, self.board.zobrist,
                                SIDE_TO_MOVE_KEY, p, action, np.int64(self.position_hash(state)), removed)
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
        state = self._own(state)
        check_playouts(count, seed)
        if self.is_terminal(state):
            return super().random_playouts(state, count, seed)
        prev = state.history[-2] if len(state.history) >= 2 else 0
        return freego_playouts(
            state.cells().copy(), self.board.neighbours, self.board.zobrist, SIDE_TO_MOVE_KEY,
            state.player, np.array(state.scores, np.int64), self.params["target"], self.ko_mode,
            np.int64(self.position_hash(state)), np.int64(prev),
            np.array(state.history[:-1], np.int64), self.max_game_length, count, seed, 0, 0,
        )

    # -- positions read from text -----------------------------------------------------------
    def _checked(self, state: FreeGoState, source: str) -> FreeGoState:
        """Reject positions no game reaches; start the ko history at this position.

        Raises:
            PositionError: the player to move has a chain without a liberty (the last move
            would have removed it), or the scores cannot both have reached the target, or
            there are scores before the second move.
        """
        from ...errors import PositionError

        target = self.params["target"]
        if min(state.scores) >= target or state.scores[state.player - 1] >= target:
            raise PositionError(f"{source!r}: player {state.player} is to move with a score at "
                                f"or above the target {target}")
        if state.ply <= 1 and any(state.scores):
            raise PositionError(f"{source!r}: scores before anyone could capture (ply "
                                f"{state.ply})")
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

    def _won_by_last_move(self, state: FreeGoState) -> bool:
        return self._target_reached(state)

    def observation_planes(self, state: State, player: int) -> np.ndarray:
        """float32 planes (see ``PLANES``) from ``player``'s point of view: the board planes of
        ``SquareGoGame``, then both scores as fractions of the target."""
        out = super().observation_planes(state, player)
        state = self._own(state)
        target = self.params["target"]
        out[5] = min(state.scores[player - 1] / target, 1.0)
        out[6] = min(state.scores[2 - player] / target, 1.0)
        return out
