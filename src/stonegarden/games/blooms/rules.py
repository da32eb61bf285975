"""The two Blooms rule sets as games of the protocol: ``blooms`` (capture race) and
``blooms-territory`` (original rules). Validation lives here; the work is done by ``kernels``.

Actions, with N cells: ``2c + k`` one stone of the mover's colour k (0 first, 1 second) on
cell c; ``2N + a*N + b`` first colour on a and second on b (a != b); ``2N + N*N`` pass.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from functools import cached_property
from typing import Any

import numpy as np

from ...core.params import Param
from ...core.protocol import Game, State, check_playouts, foreign_state, without_bom
from ...core.registry import register
from ...errors import NotationError, ParameterError, quote
from ...geometry.hashset import build_table
from ...geometry.hexhex import hex_board
from . import kernels as K
from .notation import format_stones, parse_stones
from .observation import PLANES, observation
from .playouts import race_playouts, territory_playouts
from .search import RaceProfile, TerritoryProfile
from .text import diagram, parse_diagram, parse_position, position_text, with_cell_numbers


@dataclass(frozen=True, kw_only=True, repr=False)  # State.__repr__ shows bytes compactly
class BloomsState(State):
    """A Blooms position. ``board`` holds one byte per cell (0 empty, 1..4 = R, Y, K, G).

    ``scores`` are capture scores (capture race); ``passes`` counts consecutive passes and
    ``first_passer`` is who passed first in the game (territory rules); ``history`` holds the
    hashes of every position so far, this one included, when superko is on."""

    board: bytes
    scores: tuple[int, int] = (0, 0)
    passes: int = 0
    first_passer: int = 0
    history: tuple[int, ...] = ()

    def cells(self) -> np.ndarray:
        """Read-only int8 view of the board."""
        return np.frombuffer(self.board, dtype=np.int8)


class _Blooms(Game):
    """What both rule sets share: board, notation, text forms, turn mechanics."""

    territory: bool = False
    board_view = "stonegarden.games.blooms.view:VIEW"

    def _finish_params(self, params: dict[str, Any]) -> dict[str, Any]:
        self.board = hex_board(params["size"], params["holes"])
        params["holes"] = self.board.holes
        if self.board.num_cells == 0:
            raise ParameterError(f"holes {list(params['holes'])!r} leave no cell on the board")
        return params

    def _derivation_basis(self) -> dict[str, Any]:
        return {"size": self.params["size"]}

    @cached_property
    def num_cells(self) -> int:
        return self.board.num_cells

    @property
    def num_distinct_actions(self) -> int:
        n = self.num_cells
        return 2 * n + n * n + 1

    @property
    def pass_action(self) -> int:
        n = self.num_cells
        return 2 * n + n * n

    @cached_property
    def _zobrist(self) -> np.ndarray:
        rng = np.random.default_rng(0x5EED + self.num_cells)
        z = rng.integers(-(2**63), 2**63 - 1, size=(self.num_cells, 5), dtype=np.int64)
        z[:, 0] = 0
        z.flags.writeable = False
        return z

    _SIDE_KEY = np.int64(0x2545F4914F6CDD1D)

    # -- decoding ---------------------------------------------------------------------------
    def decode(self, action: int) -> tuple[int, int] | None:
        """(first-colour cell, second-colour cell) with -1 for none, or ``None`` for pass.

        Raises:
            NotationError: not an action of this game.
        """
        n = self.num_cells
        if (isinstance(action, (bool, np.bool_)) or not isinstance(action, (int, np.integer))
                or not 0 <= action < self.num_distinct_actions):
            raise NotationError(f"{quote(action)} is not an action of {quote(self)}")
        action = int(action)
        if action < 2 * n:
            c, k = divmod(action, 2)
            return (c, -1) if k == 0 else (-1, c)
        if action == self.pass_action:
            return None
        a, b = divmod(action - 2 * n, n)
        if a == b:
            raise NotationError(f"{quote(action)} is not an action of {quote(self)} (same cell twice)")
        return a, b

    def encode(self, a: int, b: int) -> int:
        n = self.num_cells
        if a >= 0 and b >= 0:
            return 2 * n + a * n + b
        return 2 * a if a >= 0 else 2 * b + 1

    # -- states -----------------------------------------------------------------------------
    def _own(self, state: State) -> BloomsState:
        """``state``, checked to be a position of this game's board.

        Raises:
            PositionError: a state of another game or another board.
        """
        if not isinstance(state, BloomsState):
            raise foreign_state(self, state)
        if len(state.board) != self.num_cells:
            raise foreign_state(self, state, (len(state.board), self.num_cells))
        return state

    def initial_state(self) -> BloomsState:
        board = bytes(self.num_cells)
        s1, s2 = self.params.get("start_scores") or (0, 0)
        history = (self._hash(board, 1),) if self._superko else ()
        return BloomsState(player=1, board=board, scores=(int(s1), int(s2)), history=history)

    @property
    def _superko(self) -> bool:
        return False

    def _hash(self, board: bytes, to_move: int) -> int:
        return int(K.position_hash(np.frombuffer(board, np.int8), self._zobrist, to_move, self._SIDE_KEY))

    def illegal_reason(self, state: State, action: int) -> str | None:
        state = self._own(state)
        if self.is_terminal(state):
            return "the game is over"
        try:
            stones = self.decode(action)
        except NotationError:
            return f"{action!r} is not an action of this game"
        if stones is None:
            if not self.territory:
                return "there is no pass in the capture race"
            if state.ply == 0:
                return "the first turn places a stone"
            return None
        a, b = stones
        cells = state.cells()
        for c in (a, b):
            if c >= 0 and cells[c] != 0:
                return f"cell {self.board.names[c]} is occupied"
        if a >= 0 and b >= 0 and state.ply == 0:
            return "the first turn places exactly one stone"
        return self._placement_reason(state, a, b)

    def _placement_reason(self, state: BloomsState, a: int, b: int) -> str | None:
        return None

    def _apply(self, board: np.ndarray, player: int, a: int, b: int) -> int:
        """Place ``player``'s stones on ``board`` (in place) and remove the enemy blooms they
        fence, all judged at once; how many stones were removed."""
        return int(K.apply_turn(board, self.board.neighbours, player, a, b))

    def play_unchecked(self, state: State, action: int) -> BloomsState:
        """The next state; does NOT check that ``action`` is legal."""
        state = self._own(state)
        stones = self.decode(action)
        p = state.player
        if stones is None:
            return dataclasses.replace(
                state,
                player=3 - p,
                ply=state.ply + 1,
                passes=state.passes + 1,
                first_passer=state.first_passer or p,
                captured=0,
                history=(*state.history, self._hash(state.board, 3 - p)) if self._superko else (),
            )
        board = state.cells().copy()
        removed = self._apply(board, p, stones[0], stones[1])
        scores = state.scores
        if not self.territory and removed:
            s = list(scores)
            s[p - 1] += removed
            scores = (s[0], s[1])
        raw = board.tobytes()
        return dataclasses.replace(
            state,
            player=3 - p,
            ply=state.ply + 1,
            board=raw,
            scores=scores,
            passes=0,
            captured=removed,
            history=(*state.history, self._hash(raw, 3 - p)) if self._superko else (),
        )

    # -- text -------------------------------------------------------------------------------
    def action_to_text(self, state: State, action: int) -> str:
        state = self._own(state)
        stones = self.decode(action)
        if stones is None:
            return "pass"
        return format_stones(self.board, state.player, stones[0], stones[1])

    def parse_action(self, state: State, text: str) -> int:
        stones = parse_stones(self.board, self._own(state).player, text)
        if stones is None:
            return self.pass_action
        return self.encode(*stones)

    def position_text(self, state: State) -> str:
        state = self._own(self._written(state))
        return position_text(self.board, state)

    def parse_position(self, text: str) -> BloomsState:
        return self._checked(parse_position(self.board, without_bom(text), self.territory))

    def diagram(self, state: State) -> str:
        state = self._own(self._written(state))
        return diagram(self.board, state)

    def parse_diagram(self, text: str) -> BloomsState:
        return self._checked(parse_diagram(self.board, without_bom(text), self.territory))

    def display_diagram(self, state: State) -> str:
        return "\n".join(with_cell_numbers(self.diagram(state).splitlines(), self.board.size))

    def _checked(self, state: BloomsState) -> BloomsState:
        """Reject positions that no game reaches; attach the superko history."""
        from ...errors import PositionError

        cells = state.cells()
        nb = self.board.neighbours
        n = self.num_cells
        libs = np.empty(n, np.int32)
        K.count_liberties(cells, nb, libs)
        starts = K.all_cells(n)
        # the player to move never has a fenced bloom: the last turn removed them all; under
        # the territory rules the player who just moved has none either (self-fencing is illegal)
        for who in ((1, 2) if self.territory else (state.player,)):
            if K.any_fenced(cells, nb, libs, who, starts, n, np.empty(n, np.int32),
                            np.zeros(n, np.int64), np.zeros(1, np.int64), np.empty(n, np.int32)):
                raise PositionError(
                    f"position {position_text(self.board, state)!r}: player {who} has a fenced "
                    "bloom, which no game can leave on the board here"
                )
        if state.ply == 0 and cells.any():
            raise PositionError(f"position {position_text(self.board, state)!r}: stones at ply 0")
        if not self.territory:
            # scores start at start_scores and only grow; the turn that reaches the target
            # ends the game, so the player to move has not reached it
            target, start = self.params["target"], self.params["start_scores"]
            if any(s < s0 for s, s0 in zip(state.scores, start)):
                raise PositionError(
                    f"position {position_text(self.board, state)!r}: scores below the start "
                    f"scores {list(start)!r}")
            if state.ply <= 1 and tuple(state.scores) != tuple(start):
                raise PositionError(
                    f"position {position_text(self.board, state)!r}: scores other than the "
                    f"start scores {list(start)!r} before anyone could capture")
            if state.scores[state.player - 1] >= target:
                raise PositionError(
                    f"position {position_text(self.board, state)!r}: player {state.player} is "
                    f"to move with a score at or above the target {target}")
        if self._superko:
            state = dataclasses.replace(state, history=(self._hash(state.board, state.player),))
        return state

    @property
    def observation_shape(self) -> tuple[int, ...]:
        side = 2 * self.board.size - 1
        return (len(PLANES), side, side)

    def observation_planes(self, state: State, player: int) -> np.ndarray:
        """Planes listed in ``observation.PLANES``, from ``player``'s point of view."""
        state = self._own(state)
        return observation(self.board, state.cells(), player, state.player, state.ply,
                           state.scores, self.params.get("target"), state.passes,
                           state.first_passer)

    @property
    def diagram_styles(self) -> dict[str, str]:
        """Rich styles for the diagram's characters (terminal rendering)."""
        return {
            "R": "bold red3",
            "Y": "bold yellow",
            "K": "bold bright_white on grey23",
            "G": "bold grey70",
            ".": "grey42",
            "-": "grey15",
        }


@register
class BloomsRace(_Blooms):
    """``blooms``: first to capture ``target`` stones wins; no pass, no illegal placement."""

    id = "blooms"
    title = "Blooms (capture race)"
    search_profile = RaceProfile
    param_specs = (
        Param("size", "int", 4, "cells per side of the hexhex board", low=2, high=12),
        Param("target", "int", None, "captures needed to win (default 5*(size-1))", low=1,
              high=1000),
        Param("holes", "str_list", (), "cell names removed from the board", high=400),
        Param("start_scores", "int_pair", (0, 0),
              "scores at the start (handicap), each below the target", low=0, high=999),
    )

    def _finish_params(self, params: dict[str, Any]) -> dict[str, Any]:
        params = super()._finish_params(params)
        if params["target"] is None:
            params["target"] = 5 * (params["size"] - 1)
        if max(params["start_scores"]) >= params["target"]:
            raise ParameterError(
                f"start_scores {list(params['start_scores'])!r} must stay below the target "
                f"{params['target']!r}"
            )
        return params

    @property
    def max_game_length(self) -> int:
        # every turn fills at least one cell net of captures, and captures score: at most
        # cells + 2*target turns can pass before a score reaches the target
        return self.num_cells + 2 * self.params["target"] + 2

    def legal_actions(self, state: State) -> np.ndarray:
        state = self._own(state)
        if self.is_terminal(state):
            return np.empty(0, np.int64)
        out = np.empty(self.num_distinct_actions, np.int64)
        count = K.race_actions(state.cells(), state.ply == 0, out)
        return out[:count].copy()

    def count_legal_actions(self, state: State) -> int:
        state = self._own(state)
        if self.is_terminal(state):
            return 0
        return int(K.turn_count(state.board.count(0), state.ply == 0))

    def _is_over(self, state: State) -> bool:
        state = self._own(state)
        target = self.params["target"]
        return max(state.scores) >= target or not (state.cells() == 0).any()

    def _winner_when_over(self, state: State) -> int:
        state = self._own(state)
        s1, s2 = state.scores
        return 1 if s1 > s2 else 2 if s2 > s1 else 0

    def _reason_when_over(self, state: State) -> str:
        state = self._own(state)
        return "target" if max(state.scores) >= self.params["target"] else "no-empty-cell"

    def scores(self, state: State) -> tuple[int, int]:
        state = self._own(state)
        return state.scores

    def random_playouts(self, state: State, count: int, seed: int) -> np.ndarray:
        return self.eye_playouts(state, count, seed, False)

    def eye_playouts(self, state: State, count: int, seed: int, eyes: bool) -> np.ndarray:
        """Random playouts that, with ``eyes``, put no stone on the mover's own eye while
        another cell is empty (``playouts.race_playout``); totals as ``random_playouts``."""
        state = self._own(state)
        check_playouts(count, seed)
        if self.is_terminal(state):
            return super().random_playouts(state, count, seed)
        return race_playouts(
            state.cells().copy(), self.board.neighbours, state.player, state.ply == 0,
            np.array(state.scores, np.int64), self.params["target"], self.max_game_length,
            count, seed, 0, eyes,
        )


@register
class BloomsTerritory(_Blooms):
    """``blooms-territory``: pass allowed, self-fencing illegal, territory scoring."""

    id = "blooms-territory"
    title = "Blooms (territory rules)"
    territory = True
    search_profile = TerritoryProfile
    param_specs = (
        Param("size", "int", 5, "cells per side of the hexhex board", low=2, high=12),
        Param("holes", "str_list", (), "cell names removed from the board", high=400),
        Param("superko", "bool", False, "forbid placements that recreate an earlier position"),
        Param("max_turns", "opt_int", None, "end the game after this many turns", low=1,
              high=10_000),
    )

    def _finish_params(self, params: dict[str, Any]) -> dict[str, Any]:
        params = super()._finish_params(params)
        if not (self.board.neighbours >= 0).any():
            raise ParameterError(
                f"holes {list(params['holes'])!r} leave no two adjacent cells: the first stone "
                "would always fence itself"
            )
        return params

    @property
    def _superko(self) -> bool:
        return bool(self.params["superko"])

    @property
    def max_game_length(self) -> int:
        if self.params["max_turns"] is not None:
            return int(self.params["max_turns"])
        return 1_000_000  # no cycle rule by default: a game can go on as long as players like

    def _history_table(self, state: BloomsState) -> np.ndarray:
        return build_table(np.array(state.history, dtype=np.int64))

    def _placement_reason(self, state: BloomsState, a: int, b: int) -> str | None:
        n = self.num_cells
        cells = state.cells().copy()
        nb = self.board.neighbours
        libs = np.empty(n, np.int32)
        K.count_liberties(cells, nb, libs)
        legal, h = K.try_territory_turn(
            cells, nb, libs, state.player, a, b, np.empty(n, np.int32), np.zeros(n, np.int64),
            np.zeros(1, np.int64), np.empty(n, np.int32), np.empty(n, np.int8), self._zobrist,
            self._SIDE_KEY, np.int64(self._hash(state.board, state.player)),
        )
        if not legal:
            return ("it leaves one of your blooms fenced, with no empty cell next to it "
                    "(self-fencing is illegal here)")
        if self._superko and int(h) in state.history:
            return "it recreates an earlier position (superko)"
        return None

    def legal_actions(self, state: State) -> np.ndarray:
        state = self._own(state)
        if self.is_terminal(state):
            return np.empty(0, np.int64)
        out = np.empty(self.num_distinct_actions, np.int64)
        count = K.territory_actions(
            state.cells().copy(), self.board.neighbours, state.player, state.ply == 0,
            self._zobrist, self._SIDE_KEY, self._history_table(state), self._superko, out,
        )
        return out[:count].copy()

    #: turns a playout may run past its start before the board is scored as it stands (the
    #: rules have no cycle limit by default; random play can cycle through captures)
    PLAYOUT_CAP_PER_CELL = 8

    def random_playouts(self, state: State, count: int, seed: int) -> np.ndarray:
        return self.eye_playouts(state, count, seed, False)

    def eye_playouts(self, state: State, count: int, seed: int, eyes: bool) -> np.ndarray:
        """Random playouts that, with ``eyes``, never fill the mover's own eye and pass when
        nothing else is left (``playouts.territory_playout``); totals as ``random_playouts``."""
        state = self._own(state)
        check_playouts(count, seed)
        if self.is_terminal(state):
            return super().random_playouts(state, count, seed)
        mt = self.params["max_turns"]
        cap = state.ply + self.PLAYOUT_CAP_PER_CELL * self.num_cells
        # the kernel sizes its set of positions for a history only under superko (a state
        # of a superko game, given to this game without it, holds one)
        history = np.array(state.history if self._superko else (), np.int64)
        return territory_playouts(
            state.cells().copy(), self.board.neighbours, state.player, state.ply, state.passes,
            state.first_passer, cap if mt is None else min(mt, cap), self._zobrist,
            self._SIDE_KEY, history, self._superko, count, seed, eyes,
        )

    def _is_over(self, state: State) -> bool:
        state = self._own(state)
        mt = self.params["max_turns"]
        return state.passes >= 2 or (mt is not None and state.ply >= mt)

    def scores(self, state: State) -> tuple[int, int]:
        state = self._own(state)
        out = np.zeros(2, np.int64)
        K.territory_scores(state.cells(), self.board.neighbours, out)
        return int(out[0]), int(out[1])

    def keeps_scores(self, state: State) -> bool:
        """The board score counts from the first move, though no one has a point yet."""
        self._own(state)
        return True

    def territory_owners(self, state: State) -> np.ndarray:
        """int8 per cell: 1 or 2 for an empty cell in that player's territory (the regions
        ``scores`` counts), else 0."""
        state = self._own(state)
        owner = np.empty(self.num_cells, np.int8)
        K.territory_owners(state.cells(), self.board.neighbours, owner)
        return owner

    def _winner_when_over(self, state: State) -> int:
        state = self._own(state)
        s1, s2 = self.scores(state)
        if s1 != s2:
            return 1 if s1 > s2 else 2
        return state.first_passer or 2

    def _reason_when_over(self, state: State) -> str:
        state = self._own(state)
        return "two-passes" if state.passes >= 2 else "max-turns"
