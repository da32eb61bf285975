"""Blobs (and its Tumbling Dice variant) as a game of the protocol. Validation lives here; the
work is done by ``kernels`` over the tables of ``lattice``.

Actions (903): ``cell * 4 + placement`` places a die, where ``cell = (r + 7) * 15 + (c + 7)`` on
the virtual 15 x 15 board and ``placement`` is 0 RR (Red face), 1 BB (Blue face), 2 RB, 3 BR
(Mixed face; colours of the northern then southern coloured corner); ``900 + f`` is a Tumbling
Dice roll of face ``f`` (0 R, 1 B, 2 M). Ascending actions are row-major cell order.

The opening die (Red's, Mixed, red at NW and blue at SE, on ``h8``) is part of the initial
state, not a record entry: the first entry is Blue's (or Blue's roll).
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

import numpy as np

from ...core.params import Param
from ...core.protocol import (
    CHANCE,
    Game,
    State,
    check_playouts,
    foreign_state,
    is_action_value,
    without_bom,
)
from ...core.registry import register
from ...errors import NotationError, PositionError, quote
from . import kernels as K
from .lattice import (
    BLUE,
    CELL_NORTH,
    CELL_SOUTH,
    FACE_BLUE,
    FACE_RED,
    FACES,
    HALF,
    MAX_GRID,
    NUM_CELLS,
    NUM_POINTS,
    OPENING_CELL,
    OPENING_PLACEMENT,
    PLACEMENTS,
    POINT_SIDE,
    RED,
    cell_index,
    cell_rc,
    face_of,
    placement_of,
    point_rc,
)
from .notation import cell_name, full_text, parse_move_text, roll_text, short_text
from .observation import PLANES, observation
from .playouts import playouts
from .positions import check_fields
from .search import BlobsProfile
from .text import (
    ROLL_CHARS,
    PositionFields,
    diagram,
    parse_diagram_fields,
    parse_position_fields,
    placements_of,
    position_text,
)

WIN_MODES = ("either", "white", "own", "enemy")
ROLL_BASE = NUM_CELLS * 4
#: ``BlobsState.roll`` values besides a rolled face 0..2
NO_ROLL, ROLL_DUE = -1, -2
#: the result reasons of the kernels' end codes (``kernels.end_of_move``)
END_REASONS = {K.GOES_ON: "", K.OWN_BLOB: "own-blob", K.WHITE_CIRCLE: "white-circle",
               K.ENEMY_BLOB: "enemy-blob", K.GAVE_WIN: "mover-gave-win",
               K.POOL_EMPTY: "pool-empty", K.NO_PLACEMENT: "no-placement"}
#: roll probabilities of R, B, M before re-rolls (faces that fit nowhere are rolled again)
ROLL_ODDS = (1 / 6, 1 / 6, 4 / 6)
_GEOMETRY = K.geometry()


@dataclass(frozen=True, kw_only=True, repr=False)  # State.__repr__ shows bytes compactly
class BlobsState(State):
    """A Blobs position.

    ``cells`` holds one byte per cell of the virtual board (0 empty, placement code + 1);
    ``to_place`` is the player who places next (and rolls first under Tumbling Dice; ``player``
    is then ``CHANCE``); ``roll`` is the face rolled for this placement, ``ROLL_DUE`` or
    ``NO_ROLL``; ``auto`` holds the auto moves (actions) of the move that produced this state;
    ``outcome`` is the winner (0 draw) once the game is over, else -1, with its ``reason``."""

    cells: bytes
    to_place: int
    dice_left: int
    roll: int = NO_ROLL
    auto: tuple[int, ...] = ()
    outcome: int = -1
    reason: str = ""

    def cell_array(self) -> np.ndarray:
        """Read-only int8 view of the cells."""
        return np.frombuffer(self.cells, dtype=np.int8)

    def placements(self) -> dict[tuple[int, int], int]:
        """(r, c) -> placement code of every die, row-major."""
        return placements_of(self.cells)


@dataclass(frozen=True)
class Blob:
    """A region of the picture: ``colour`` 1 Red, 2 Blue, 3 white; its lattice points; whether
    it is closed; and the colours a white blob borders (empty for coloured blobs)."""

    colour: int
    points: tuple[tuple[int, int], ...]
    closed: bool
    borders: frozenset[int]


@register
class BlobsGame(Game):
    """``blobs``: Cameron Browne's boardless game of square dice (docs/games/blobs.md)."""

    id = "blobs"
    title = "Blobs"
    search_profile = BlobsProfile
    board_view = "stonegarden.games.blobs.view:VIEW"
    first_chooser = 2  # Red's opening die is part of the initial position: Blue places first
    may_have_chance = True  # Tumbling Dice rolls
    max_chance_outcomes = 3
    chance_action_offset = ROLL_BASE
    param_specs = (
        # 1 is kept, a draw at once (docs/games/blobs.md, "Decisions"): said where it is set
        Param("dice", "int", 48, "dice in the pool, the opening die included (1: a draw at "
              "once, the pool empty)", low=1, high=NUM_CELLS),
        Param("max_grid", "int", 8, "the dice stay within max_grid rows and columns (1: a draw "
              "at once, no die fits)", low=1, high=MAX_GRID),
        Param("win", "choice", "either",
              "what gives a player a win: either (a closed blob of its colour, or a white "
              "circle), white (a white circle), own (a closed blob of its colour), enemy (a "
              "closed blob of the opponent's colour)", choices=WIN_MODES),
        Param("tumbling", "bool", False, "Tumbling Dice: roll the face type before each move"),
    )

    def _finish_params(self, params: dict[str, Any]) -> dict[str, Any]:
        self._mode = WIN_MODES.index(params["win"])
        return params

    @property
    def has_chance(self) -> bool:
        return bool(self.params["tumbling"])

    @property
    def num_distinct_actions(self) -> int:
        return ROLL_BASE + len(FACES)

    @property
    def win_mode(self) -> int:
        """The kernels' code of the ``win`` parameter (0 either, 1 white, 2 own, 3 enemy)."""
        return self._mode

    @property
    def max_game_length(self) -> int:
        # every placement entry uses a die; each may follow a roll; a resignation ends it
        return (self.params["dice"] - 1) * (2 if self.has_chance else 1) + 1

    # -- arrays -----------------------------------------------------------------------------
    @staticmethod
    def _arrays(cells: bytes) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """Writable cells, fixed point colours and bounding box for the kernels."""
        arr = np.frombuffer(cells, dtype=np.int8).copy()
        pcol = np.zeros(NUM_POINTS, np.int8)
        box = np.zeros(4, np.int32)
        K.point_colours(arr, _GEOMETRY, pcol)
        K.bounding_box(arr, _GEOMETRY, box)
        return arr, pcol, box

    # -- states -----------------------------------------------------------------------------
    def _own(self, state: State) -> BlobsState:
        """``state``, checked to be a Blobs position.

        Raises:
            PositionError: a state of another game.
        """
        if not isinstance(state, BlobsState):
            raise foreign_state(self, state)
        if len(state.cells) != NUM_CELLS:
            raise foreign_state(self, state, (len(state.cells), NUM_CELLS))
        return state

    def initial_state(self) -> BlobsState:
        cells = np.zeros(NUM_CELLS, np.int8)
        cells[OPENING_CELL] = OPENING_PLACEMENT + 1
        return self._state(cells, to_place=2, dice_left=self.params["dice"] - 1, ply=0,
                           roll=ROLL_DUE if self.has_chance else NO_ROLL)

    def _state(self, cells: np.ndarray, to_place: int, dice_left: int, ply: int, roll: int,
               auto: tuple[int, ...] = ()) -> BlobsState:
        outcome, end = K.settle(cells.copy(), _GEOMETRY, 3 - to_place, self._mode, dice_left,
                                self.params["max_grid"], np.zeros(4, np.int64))
        if outcome >= 0:  # nothing is rolled once the game is over
            roll = NO_ROLL
        return BlobsState(player=CHANCE if roll == ROLL_DUE else to_place, ply=ply,
                          cells=cells.tobytes(), to_place=to_place, dice_left=dice_left,
                          roll=roll, auto=auto, outcome=int(outcome),
                          reason=END_REASONS[int(end)])

    def _is_over(self, state: State) -> bool:
        state = self._own(state)
        return state.outcome >= 0

    def _winner_when_over(self, state: State) -> int:
        state = self._own(state)
        return state.outcome

    def _reason_when_over(self, state: State) -> str:
        state = self._own(state)
        return state.reason

    def scores(self, state: State) -> tuple[int, int]:
        self._own(state)
        return (0, 0)

    # -- moves ------------------------------------------------------------------------------
    def chance_outcomes(self, state: State) -> list[tuple[int, float]]:
        """The rolls at a chance node, with the probabilities 1/6, 1/6, 4/6 renormalised over
        the faces that fit somewhere (a face that fits nowhere is rolled again)."""
        state = self._own(state)
        if state.player != CHANCE or self.is_terminal(state):
            return []
        fits = self._fitting_faces(state)
        total = sum(ROLL_ODDS[f] for f in fits)
        return [(ROLL_BASE + f, ROLL_ODDS[f] / total) for f in fits]

    def _board_placements(self, cells: bytes, face: int = -1) -> np.ndarray:
        """The legal placements on a stored board (one kernel call: the search's hot path)."""
        out = np.empty(NUM_CELLS * 4, np.int64)
        n = K.placements_of(np.frombuffer(cells, np.int8), _GEOMETRY, self.params["max_grid"],
                            face, out)
        return out[:n].copy()

    def _fitting_faces(self, state: BlobsState) -> list[int]:
        actions = self._board_placements(state.cells)
        mask = int(K.face_mask(actions, len(actions)))
        return [f for f in range(len(FACES)) if mask & (1 << f)]

    def legal_actions(self, state: State) -> np.ndarray:
        state = self._own(state)
        if self.is_terminal(state):
            return np.empty(0, np.int64)
        if state.player == CHANCE:
            return np.array([a for a, _ in self.chance_outcomes(state)], np.int64)
        return self._board_placements(state.cells, state.roll if state.roll >= 0 else -1)

    def illegal_reason(self, state: State, action: int) -> str | None:
        state = self._own(state)
        if self.is_terminal(state):
            return "the game is over"
        if not is_action_value(action) or not 0 <= action < self.num_distinct_actions:
            return f"{quote(action)} is not an action of this game"
        if action >= ROLL_BASE:
            face = action - ROLL_BASE
            if state.player != CHANCE:
                if not self.has_chance:
                    return "dice are rolled only in Tumbling Dice"
                return "no roll is due"
            if face not in self._fitting_faces(state):
                return f"a {FACES[face]} face fits nowhere (it would be rolled again)"
            return None
        if state.player == CHANCE:
            return "the die must be rolled first"
        cell, placement = divmod(action, 4)
        cells, pcol, box = self._arrays(state.cells)
        name = cell_name(*cell_rc(cell))
        if cells[cell]:
            return f"cell {name} already holds a die"
        if not K.touches_die(cells, _GEOMETRY, cell):
            return f"cell {name} shares no edge with a die"
        if not K.colours_match(pcol, _GEOMETRY, cell, placement):
            return f"{PLACEMENTS[placement]} does not match the colours fixed at {name}'s corners"
        if not K.within_box(_GEOMETRY, box, self.params["max_grid"], cell):
            g = self.params["max_grid"]
            return f"a die on {name} would widen the dice beyond {g} x {g}"
        if state.roll >= 0 and face_of(placement) != state.roll:
            return f"the rolled face is {FACES[state.roll]}, not {FACES[face_of(placement)]}"
        return None

    def play_unchecked(self, state: State, action: int) -> BlobsState:
        """The next state; does NOT check that ``action`` is legal."""
        state = self._own(state)
        if action >= ROLL_BASE:
            return dataclasses.replace(state, player=state.to_place, roll=action - ROLL_BASE,
                                       ply=state.ply + 1, auto=())
        cells = np.frombuffer(state.cells, np.int8).copy()
        autos = np.empty(NUM_CELLS, np.int64)
        cond = np.zeros(4, np.int64)
        mover = state.to_place
        n, outcome, end = K.advance(cells, _GEOMETRY, action, state.dice_left, mover,
                                    self._mode, self.params["max_grid"], autos, cond)
        rolls = self.has_chance and outcome < 0  # nothing is rolled once the game is over
        return BlobsState(
            player=CHANCE if rolls else 3 - mover, ply=state.ply + 1,
            cells=cells.tobytes(), to_place=3 - mover, dice_left=state.dice_left - 1 - int(n),
            roll=ROLL_DUE if rolls else NO_ROLL,
            auto=tuple(int(a) for a in autos[:n]), outcome=int(outcome),
            reason=END_REASONS[int(end)],
        )

    def resign(self, state: State) -> State:
        """The player to move resigns.

        Raises:
            IllegalMoveError: the game is already over or a roll is due.
        """
        resigned = super().resign(state)
        assert isinstance(resigned, BlobsState)
        return dataclasses.replace(resigned, auto=())

    # -- text -------------------------------------------------------------------------------
    def action_to_text(self, state: State, action: int) -> str:
        """``h9M`` when that reads back as ``action`` here, else the full form ``h9:BR``;
        rolls are ``roll:R``, ``roll:B``, ``roll:M``.

        Raises:
            NotationError: the integer is not an action of this game.
        """
        state = self._own(state)
        if not is_action_value(action) or not 0 <= action < self.num_distinct_actions:
            raise NotationError(f"{quote(action)} is not an action of {quote(self)}")
        if action >= ROLL_BASE:
            return roll_text(int(action) - ROLL_BASE)
        cell, placement = divmod(int(action), 4)
        r, c = cell_rc(cell)
        if self._resolve_face(state, cell, face_of(placement)) == placement:
            return short_text(r, c, placement)
        return full_text(r, c, placement)

    def _resolve_face(self, state: BlobsState, cell: int, face: int) -> int:
        """The placement a face letter means on ``cell``: a Mixed die turned to match the
        coloured corner already fixed there (RB when none is, which is never legal)."""
        if face == FACE_RED:
            return placement_of(RED, RED)
        if face == FACE_BLUE:
            return placement_of(BLUE, BLUE)
        _, pcol, _ = self._arrays(state.cells)
        north = int(pcol[CELL_NORTH[cell]])
        south = int(pcol[CELL_SOUTH[cell]])
        if north:
            return placement_of(north, 3 - north)
        if south:
            return placement_of(3 - south, south)
        return placement_of(RED, 3 - RED)

    def parse_action(self, state: State, text: str) -> int:
        """Read ``h9M``, ``h9:BR`` or ``roll:M`` (case-insensitive) WITHOUT checking legality.

        Raises:
            NotationError: the text is malformed.
        """
        state = self._own(state)
        move = parse_move_text(text, rolls=state.player == CHANCE)
        if move.roll is not None:
            return ROLL_BASE + move.roll
        assert move.cell is not None
        cell = cell_index(*move.cell)
        if move.placement is not None:
            return cell * 4 + move.placement
        assert move.face is not None
        return cell * 4 + self._resolve_face(state, cell, move.face)

    def replay_extras(self, before: State, after: State) -> Mapping[str, Any]:
        """``auto_moves`` (canonical texts, in order) and ``dice_left`` after the entry."""
        self._own(before)
        after = self._own(after)
        autos = [short_text(*cell_rc(a >> 2), a & 3) for a in after.auto]
        return {"auto_moves": autos, "dice_left": after.dice_left}

    def _fields(self, state: BlobsState) -> PositionFields:
        roll = ROLL_CHARS[{NO_ROLL: 0, ROLL_DUE: 1}.get(state.roll, state.roll + 2)]
        return PositionFields(state.placements(), state.to_place, state.dice_left, state.ply,
                              roll)

    def position_text(self, state: State) -> str:
        state = self._own(self._written(state))
        return position_text(self._fields(state))

    def parse_position(self, text: str) -> BlobsState:
        """Raises: NotationError (malformed), PositionError (impossible here)."""
        return self._from_fields(parse_position_fields(without_bom(text)), text)

    def diagram(self, state: State) -> str:
        state = self._own(self._written(state))
        return diagram(self._fields(state))

    def parse_diagram(self, text: str) -> BlobsState:
        """Raises: NotationError (malformed), PositionError (impossible here)."""
        return self._from_fields(parse_diagram_fields(without_bom(text)), text)

    def status_words(self, state: State) -> tuple[str, ...]:
        """The dice left and the face rolled for this placement, as the diagram writes it
        (``?`` while a roll is due), where one is."""
        fields = self._fields(self._own(state))
        rolled = () if fields.roll == "-" else (f"rolled {fields.roll}",)
        return (f"dice left {fields.dice_left}", *rolled)

    @property
    def diagram_styles(self) -> dict[str, str]:
        """Red ``o`` and blue ``x`` (the letters differ, so colour is never the only cue)."""
        return {"o": "bold red3", "x": "bold dodger_blue2", ".": "grey70", "+": "grey42",
                "-": "grey42", "|": "grey42"}

    # -- checking hand-set positions ---------------------------------------------------------
    def _from_fields(self, f: PositionFields, source: str) -> BlobsState:
        """The state of a written position, after checking that a game can reach it.

        Raises:
            PositionError: the position cannot arise with these parameters.
        """
        check_fields(f, self.params["dice"], self.params["max_grid"], self.has_chance, source)
        cells = np.zeros(NUM_CELLS, np.int8)
        for (r, c), p in f.placements.items():
            cells[cell_index(r, c)] = p + 1
        arr, pcol, box = self._arrays(cells.tobytes())
        forced = int(K.first_forced_cell(arr, pcol, box, _GEOMETRY))
        if f.dice_left > 0 and forced >= 0:
            raise PositionError(f"position {source!r}: {cell_name(*cell_rc(forced))} fits only "
                                "one die: an auto move would have filled it")
        roll = {"-": NO_ROLL, "?": ROLL_DUE}.get(f.roll, FACES.find(f.roll))
        state = self._state(cells, f.to_place, f.dice_left, f.ply, roll)
        if roll >= 0 and (self.is_terminal(state) or roll not in self._fitting_faces(state)):
            raise PositionError(f"position {source!r}: the rolled {f.roll} face fits nowhere "
                                "(it would be rolled again) or the game is over")
        if self.has_chance and f.roll == "-" and not self.is_terminal(state):
            raise PositionError(f"position {source!r}: the game goes on, so a roll is due: "
                                "write '?', not '-'")
        return state

    # -- analysis ---------------------------------------------------------------------------
    def blobs(self, state: State) -> list[Blob]:
        """Every blob of the position (coloured and white), in row-major order of first point."""
        state = self._own(state)
        cells, pcol, box = self._arrays(state.cells)
        seen = np.zeros(NUM_POINTS, np.bool_)
        stack = np.empty(NUM_POINTS, np.int32)
        members = np.empty(NUM_POINTS, np.int32)
        out = []
        for r in range(int(box[0]), int(box[1]) + 2):
            for c in range(int(box[2]), int(box[3]) + 2):
                point = (r + HALF) * POINT_SIDE + (c + HALF)
                if seen[point] or not K.touched(cells, _GEOMETRY, point):
                    continue
                # every argument given: an omitted array default is keyed by its id in
                # numba's cache, so each process would compile the kernel again and add it
                size, colour, closed, border, _ = K.flood_blob(cells, pcol, _GEOMETRY, point,
                                                            seen, stack, members,
                                                            K.NO_STAMP, 0, 0)
                pts = tuple(sorted(point_rc(int(p)) for p in members[:size]))
                borders = frozenset(col for col in (1, 2) if border & (1 << col))
                out.append(Blob(int(colour), pts, bool(closed), borders))
        return out

    @property
    def observation_shape(self) -> tuple[int, ...]:
        return (len(PLANES), 15, 15)

    def observation_planes(self, state: State, player: int) -> np.ndarray:
        """Planes listed in ``observation.PLANES``, from ``player``'s point of view."""
        state = self._own(state)
        legal = self.legal_actions(state) if state.player == player else np.empty(0, np.int64)
        legal_cells = np.unique(legal[legal < ROLL_BASE] // 4)
        return observation(state.cell_array().astype(np.int64), legal_cells, player,
                           state.to_place, state.roll, state.roll == ROLL_DUE, state.dice_left,
                           self.params["dice"])

    def frontier_options(self, state: State) -> dict[tuple[int, int], list[int]]:
        """For every empty cell sharing an edge with a die: the placements whose colours match
        the corners already fixed there (the bounding box not considered)."""
        state = self._own(state)
        cells, pcol, _ = self._arrays(state.cells)
        out = {}
        for cell in range(NUM_CELLS):
            if cells[cell] == 0 and K.touches_die(cells, _GEOMETRY, cell):
                out[cell_rc(cell)] = [p for p in range(len(PLACEMENTS))
                                      if K.colours_match(pcol, _GEOMETRY, cell, p)]
        return out

    # -- fast paths -------------------------------------------------------------------------
    def random_playouts(self, state: State, count: int, seed: int) -> np.ndarray:
        return self.safe_playouts(state, count, seed, 0)

    def safe_playouts(self, state: State, count: int, seed: int, safe: int) -> np.ndarray:
        """Playouts that try up to ``safe`` placements a move for one that does not hand the
        opponent a win (``safe`` <= 1: uniform); totals as ``random_playouts``."""
        state = self._own(state)
        check_playouts(count, seed)
        if self.is_terminal(state):
            return super().random_playouts(state, count, seed)
        return playouts(
            np.frombuffer(state.cells, np.int8).copy(), _GEOMETRY, state.to_place,
            state.dice_left, state.roll if state.roll >= 0 else -1, self.has_chance, self._mode,
            self.params["max_grid"], count, seed, safe,
        )
