"""A tiny square-board game for testing the square view before Free Go and Bridge Go land:
players alternate placing stones on empty points (GTP names). So that captures can be drawn,
a stone on the centre point removes the opponent stones orthogonally next to it. The game ends
when the board is full; more stones wins."""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass

import numpy as np

from stonegarden.core.params import Param
from stonegarden.core.protocol import Game, State
from stonegarden.errors import NotationError

COLUMNS = "ABCDEFGHJKLMNOPQRST"


@dataclass(frozen=True)
class TinyBoard:
    size: int
    names: tuple[str, ...]
    index: dict[str, int]


@dataclass(frozen=True, kw_only=True)
class FakeState(State):
    board: bytes


class FakeSquare(Game):
    id = "fake-square"
    title = "Fake square game"
    board_view = "stonegarden.games.square_go_view:VIEW"
    param_specs = (Param("size", "int", 3, "points per side", low=3, high=19),)

    def _finish_params(self, params):
        s = params["size"]
        names = tuple(f"{COLUMNS[i % s]}{i // s + 1}" for i in range(s * s))
        self.board = TinyBoard(s, names, {n: i for i, n in enumerate(names)})
        return params

    @property
    def num_distinct_actions(self) -> int:
        return len(self.board.names)

    @property
    def max_game_length(self) -> int:
        return 4 * len(self.board.names)

    def initial_state(self) -> FakeState:
        return FakeState(player=1, board=bytes(len(self.board.names)))

    def _cells(self, state) -> np.ndarray:
        return np.frombuffer(state.board, np.int8)

    def _is_over(self, state) -> bool:
        return bool((self._cells(state) != 0).all())

    def scores(self, state):
        c = self._cells(state)
        return int((c == 1).sum()), int((c == 2).sum())

    def _winner_when_over(self, state) -> int:
        a, b = self.scores(state)
        return 1 if a > b else 2 if b > a else 0

    def _reason_when_over(self, state) -> str:
        return "full"

    def legal_actions(self, state) -> np.ndarray:
        if self.is_terminal(state):
            return np.empty(0, np.int64)
        return np.flatnonzero(self._cells(state) == 0).astype(np.int64)

    def illegal_reason(self, state, action):
        if self.is_terminal(state):
            return "the game is over"
        if not 0 <= action < len(self.board.names):
            return "not a point"
        return None if self._cells(state)[action] == 0 else "occupied"

    def play_unchecked(self, state, action):
        c = self._cells(state).copy()
        c[action] = state.player
        s = self.board.size
        removed = 0
        if action == (s * s) // 2:
            col, row = action % s, action // s
            for dc, dr in ((1, 0), (-1, 0), (0, 1), (0, -1)):
                if 0 <= col + dc < s and 0 <= row + dr < s:
                    j = (row + dr) * s + col + dc
                    if c[j] == 3 - state.player:
                        c[j] = 0
                        removed += 1
        return dataclasses.replace(state, player=3 - state.player, ply=state.ply + 1,
                                   board=c.tobytes(), captured=removed)

    def action_to_text(self, state, action):
        if not 0 <= action < len(self.board.names):
            raise NotationError(f"{action!r} is not a point")
        return self.board.names[action]

    def parse_action(self, state, text):
        key = text.strip().upper()
        if key not in self.board.index:
            raise NotationError(f"{text!r} is not a point")
        return self.board.index[key]

    def position_text(self, state):
        return "".join(".XO"[v] for v in self._cells(state)) + f" {state.player}"

    def parse_position(self, text):
        raise NotationError("not needed here")

    def diagram(self, state):
        return self.position_text(state)

    def parse_diagram(self, text):
        raise NotationError("not needed here")
