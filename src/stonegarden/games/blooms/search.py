"""What the search knows about Blooms: the capture race's compiled tree (split moves,
capture-preferring playouts) and the territory rules' levels and learned priors."""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, ClassVar, cast

import numpy as np

from ...core.protocol import State
from ...search.config import GameOption, SearchConfig
from ...search.profile import SearchProfile
from ...search.tree import TreeSpec

if TYPE_CHECKING:
    from ...learn.learner import Learner
    from ...learn.model import MoveModel
    from ...search.profile import PriorValues
    from .rules import BloomsState, BloomsTerritory, _Blooms

SPLIT = GameOption("split", "bool", 1, "a turn's two stones are two decisions in the tree",
                   off=0)
CAPTURES = GameOption("captures", "int", 0, "playouts first try K cells for a capture",
                      high=64)
EYES = GameOption("eyes", "bool", 1, "territory playouts never fill the mover's own eye and "
                  "pass when nothing else is left")
TERRITORY_SPLIT = GameOption("split", "bool", 1, "the compiled tree, a turn's two stones "
                             "two decisions in it (off: whole turns through the protocol)",
                             off=0)
#: off by default: it scored 41-59 against uniform playouts at 0.5 s a move on n=5 (docs/ai.md)
RACE_EYES = GameOption("eyes", "bool", 0, "race playouts put no stone on the mover's own eye "
                       "while another cell is empty")


class RaceTree(TreeSpec):
    """The capture race's compiled tree (``tree.py``) for one game and config."""

    def __init__(self, game: _Blooms, split: bool, captures: int,
                 model: MoveModel | None = None, eyes: bool = False) -> None:
        from ...geometry.edges import edge_distance
        from .model import model_tables
        from .tree import RUN_RACE

        n = game.num_cells
        self.game = game
        self.n = n
        self.split = split
        self.run = RUN_RACE
        pattern, tactic, none, scale = model_tables(model)
        self.consts = (game.board.neighbours, int(game.params["target"]),
                       int(game.max_game_length), int(captures),
                       edge_distance(game.board.neighbours), pattern, tactic, none, scale,
                       int(eyes))
        self.max_moves = n * n + n + 1
        self.max_depth = 2 * game.max_game_length + 4
        self.stride = n
        self.keys = 2 * n  # colour * N + cell, in the tree and the playouts
        self.rave_stages = 2 if split else 0
        self.levels_per_turn = 2 if split else 1
        self.root_stage = 0 if split else 2

    def _state(self, state: State) -> BloomsState:
        return cast("BloomsState", state)  # the search passes only this game's states

    def root_position(self, state: State) -> tuple[np.ndarray, np.ndarray]:
        s = self._state(state)
        info = np.array([s.scores[0], s.scores[1], int(s.ply == 0), -1], np.int64)
        return s.cells().copy(), info

    def _stones(self, moves: tuple[int, ...]) -> tuple[int, int]:
        if self.split:
            return moves[0], moves[1] if len(moves) > 1 else -1
        n1 = self.n + 1
        return moves[0] // n1 - 1, moves[0] % n1 - 1

    def turn_action(self, state: State, moves: tuple[int, ...]) -> int | None:
        a, b = self._stones(moves)
        if a < 0 and b < 0:
            return None
        return self.game.encode(a, b)

    def move_fits(self, state: State, level: int, move: int, target: State) -> bool:
        """A stone of the turn must be on the target board in its colour (a stone captured on
        the way loses the kept tree, which is rare)."""
        cells = self._state(target).cells()
        p = state.player
        if not self.split:
            a, b = self._stones((move,))
            return (a < 0 or cells[a] == 2 * p - 1) and (b < 0 or cells[b] == 2 * p)
        return move < 0 or cells[move] == 2 * p - 1 + level


class TerritoryTree(TreeSpec):
    """The territory rules' compiled tree (``territory_tree.py``) for one game: a turn's two
    stones are two tree levels, as in the capture race's split tree."""

    def __init__(self, game: BloomsTerritory, eyes: bool, model: MoveModel | None = None) -> None:
        from ...geometry.edges import edge_distance
        from .model import model_tables
        from .territory_model import TerritoryLearner
        from .territory_tree import RUN_TERRITORY

        n = game.num_cells
        self.game = game
        self.run = RUN_TERRITORY
        #: a line of the tree or of a playout ends this many turns past the root, scored as
        #: it stands (the rules have no cycle limit by default), as the protocol's playouts do
        self.cap = game.PLAYOUT_CAP_PER_CELL * n
        # no position hashes: they matter only under superko, left to the protocol tree
        self.consts = (game.board.neighbours, np.zeros((n, 5), np.int64), np.int64(0),
                       int(eyes), edge_distance(game.board.neighbours),
                       *model_tables(model, TerritoryLearner.kind, 3))
        self.max_moves = n + 2
        self.max_depth = 2 * self.cap + 4
        self.stride = n + 1  # a stage's cells and the pass (move N)
        self.keys = 2 * n + 2
        self.rave_stages = 2
        self.levels_per_turn = 2
        self.root_stage = 0

    def root_position(self, state: State) -> tuple[np.ndarray, np.ndarray]:
        s = cast("BloomsState", state)  # the search passes only this game's states
        limit = s.ply + self.cap
        if self.game.params["max_turns"] is not None:
            limit = min(limit, int(self.game.params["max_turns"]))
        info = np.array([s.ply, s.passes, s.first_passer, -1, limit], np.int64)
        return s.cells().copy(), info

    def turn_action(self, state: State, moves: tuple[int, ...]) -> int | None:
        a, b = moves[0], moves[1] if len(moves) > 1 else -1
        if a == self.game.num_cells:
            return self.game.pass_action
        if a < 0 and b < 0:  # none of the first colour, the second not chosen yet
            return None
        return self.game.encode(a, b)

    def move_fits(self, state: State, level: int, move: int, target: State) -> bool:
        """A stone of the turn must be on the target board in its colour."""
        if move < 0 or move == self.game.num_cells:
            return True
        return bool(cast("BloomsState", target).cells()[move] == 2 * state.player - 1 + level)


class RaceProfile(SearchProfile):
    """The capture race: its own compiled tree with split moves (``split``),
    capture-preferring playouts (``captures``), playouts that keep off their own eyes
    (``eyes``) and the learned move model's priors on the stones of split turns
    (``model.py``); the common levels."""

    options: ClassVar[tuple[GameOption, ...]] = (SPLIT, CAPTURES, RACE_EYES)
    shipped_model: ClassVar[str | None] = "blooms.npz"
    #: level 6 with the model on every core scored 71-29 against level 6 with neither (one
    #: thread, no model) at 4 s a move on n=5 (docs/ai.md); the lower levels were calibrated
    #: without it
    model_levels: ClassVar[frozenset[int]] = frozenset({6})

    def tree(self, config: SearchConfig) -> TreeSpec | None:
        from .rules import _Blooms

        assert isinstance(self.game, _Blooms)
        return RaceTree(self.game, bool(self.option(config, "split")),
                        self.option(config, "captures"), self.model_for(config),
                        bool(self.option(config, "eyes")))

    def learner(self) -> Learner | None:
        from .model import RaceLearner

        return RaceLearner()

    def playout(self, state: State, seed: int, options: Mapping[str, int],
                replies: np.ndarray | None = None,
                last: int = -1) -> tuple[int, np.ndarray | None]:
        from .playouts import race_playouts
        s = self._state(state)
        game = cast("_Blooms", self.game)
        totals = race_playouts(s.cells().copy(), game.board.neighbours, s.player,
                               s.ply == 0, np.array(s.scores, np.int64), game.params["target"],
                               game.max_game_length, 1, seed, int(options.get("captures", 0)),
                               bool(options.get("eyes", 0)))
        return (1 if totals[0] else 2 if totals[1] else 0), None

    def _state(self, state: State) -> BloomsState:
        return cast("BloomsState", state)  # the search passes only this game's states


class TerritoryProfile(SearchProfile):
    """The territory rules search in their compiled split tree (``territory_tree.py``),
    which won 99 of 100 games against the protocol tree over whole turns at 0.5 s a move, or
    through the protocol under superko, with ``split=off`` or with a learned model. The
    levels were calibrated through the protocol with uniform playouts, and keep both (level 6
    takes the eye playouts it was measured with):
    uniformly random play rarely passes, so those playouts are long (about 1,100-2,500
    simulations/s on n=5; 1.6x that with ``eyes``, whose playouts end once the board is
    settled). A doubling of simulations scored 0.78-0.90 there and 1.5x 0.63-0.65, so its
    levels are about 1.85x apart; the time caps only guard a slow machine (1.3-2x what the
    simulations take from the empty n=5 board) and stay below level 6's 4 s. Each step scored
    0.633-0.850 against the level below (docs/ai.md)."""

    levels: ClassVar[Mapping[int, tuple[int | None, float]]] = {
        1: (350, 0.5),
        2: (650, 1.0),
        3: (1200, 1.6),
        4: (2200, 2.8),
        5: (4000, 3.6),
        6: (None, 4.0),
    }
    #: the learned model (``territory_model.py``) gives the compiled tree its priors at each
    #: stage by default: it scored 177 of 200 against the search without it at 0.5 s a move
    #: (docs/models.md); the protocol tree (superko, ``split=off``), where it was not
    #: measured, reads it only when asked (``model=shipped|PATH``)
    shipped_model: ClassVar[str | None] = "blooms-territory.npz"
    #: playouts that keep their eyes won 100 of 100 games against uniform ones at 0.5 s a
    #: move, the compiled tree 99 of 100 against the protocol tree (docs/ai.md); the levels
    #: were calibrated with uniform playouts through the protocol, and keep them
    options: ClassVar[tuple[GameOption, ...]] = (TERRITORY_SPLIT, EYES)
    level_options: ClassVar[Mapping[str, int]] = {"eyes": 0, "split": 0}
    #: level 6 with both cores and the eye playouts (still the protocol tree, no model) won
    #: 100 of 100 games against the old level 6 at 4 s a move (docs/ai.md)
    level_options_measured: ClassVar[Mapping[int, Mapping[str, int]]] = {6: {"eyes": 1}}

    def tree(self, config: SearchConfig) -> TreeSpec | None:
        """The compiled split tree, with the learned model's priors at each stage if
        ``config`` loads one; none under superko (its history does not fit the kernels'
        position) or with ``split=off``."""
        game = cast("BloomsTerritory", self.game)
        if game.params["superko"] or not self.option(config, "split"):
            return None
        return TerritoryTree(game, bool(self.option(config, "eyes")), self.model_for(config))

    def playout(self, state: State, seed: int, options: Mapping[str, int],
                replies: np.ndarray | None = None,
                last: int = -1) -> tuple[int, np.ndarray | None]:
        game = cast("BloomsTerritory", self.game)
        totals = game.eye_playouts(state, 1, seed, bool(options.get("eyes", 0)))
        return (1 if totals[0] else 2 if totals[1] else 0), None

    def learner(self) -> Learner | None:
        from .territory_model import TerritoryLearner

        return TerritoryLearner()

    def prior_values_for(self, config: SearchConfig) -> PriorValues:
        """The protocol tree's priors: the learned model's whole-turn priors when ``config``
        names a model (``shipped`` or a file); none by default, which was measured only in
        the compiled tree."""
        from .territory_model import TurnPriors

        model = None if config.model is None else self.model_for(config)
        if model is None:
            return self.prior_values
        return TurnPriors(cast("BloomsTerritory", self.game), model)
