"""What the search knows about Free Go: its compiled tree (``tree.py``), its playout policies
(``captures``, ``safe``, last good replies), move priors, tuned settings and levels."""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, ClassVar, cast

import numpy as np

from ...core.protocol import State
from ...geometry.square import SIDE_TO_MOVE_KEY
from ...search.config import GameOption, SearchConfig
from ...search.profile import SearchProfile
from ...search.replies import NO_REPLIES
from ...search.tree import TreeSpec

if TYPE_CHECKING:
    from ...learn.learner import Learner
    from ...learn.model import MoveModel
    from .rules import FreeGo, FreeGoState

CAPTURES = GameOption("captures", "int", 0, "playouts first try K points for a capture",
                      high=64)
PATTERNS = GameOption("patterns", "int", 0, "playouts try the point of K random ones whose "
                      "3x3 pattern the learned model rates highest (needs a model)", high=64)
SAFE = GameOption("safe", "int", 64, "playouts pass over up to K points that hand the "
                  "opponent stones (0 or 1: uniform)", high=64)


class FreeGoTree(TreeSpec):
    """Free Go's compiled tree for one game and config: one tree level per move."""

    def __init__(self, game: FreeGo, captures: int, safe: int,
                 model: MoveModel | None = None, patterns: int = 0) -> None:
        from ...geometry.edges import edge_distance
        from .features import ring_table
        from .model import model_tables
        from .tree import RUN_FREEGO

        self.game = game
        self.run = RUN_FREEGO
        nb = game.board.neighbours
        pattern, tactic, scale = model_tables(model)
        self.consts = (nb, game.board.zobrist, np.int64(SIDE_TO_MOVE_KEY),
                       int(game.params["target"]), int(game.ko_mode),
                       int(game.max_game_length), int(captures), int(safe), ring_table(nb),
                       edge_distance(nb), pattern, tactic, scale,
                       int(patterns) if model is not None else 0)  # no table to read
        self.max_moves = game.board.num_points
        self.max_depth = game.max_game_length + 2
        self.stride = self.keys = game.board.num_points

    def root_position(self, state: State) -> tuple[np.ndarray, np.ndarray]:
        s = _own(state)
        prev = s.history[-2] if len(s.history) >= 2 else 0
        info = np.array([s.scores[0], s.scores[1], self.game.position_hash(s), prev], np.int64)
        return s.cells().copy(), info

    def turn_action(self, state: State, moves: tuple[int, ...]) -> int | None:
        return moves[0]

    def move_fits(self, state: State, level: int, move: int, target: State) -> bool:
        """The point must hold the mover's stone in the target (a stone captured again on the
        way loses the kept tree, which is rare)."""
        return bool(_own(target).cells()[move] == state.player)


class FreeGoProfile(SearchProfile):
    """Free Go: RAVE on stones, last good replies, capture and suicide priors, ``safe``
    playouts; its own compiled tree but under superko or with ``tt`` (its superko history does
    not fit the kernels), which the protocol tree serves."""

    #: explore less than the default 0.2: c=0.05 beat it 29-11 at 5,000 simulations and 25-15
    #: at 0.25 s a move (docs/ai.md)
    c: ClassVar[float] = 0.05
    #: last good replies in the playouts: beat the search without them 27-13 at 0.5 s a move
    lgr: ClassVar[bool] = True
    #: 20 virtual RAVE samples of ``prior_values`` per move: beat the search without them
    #: 28-12 at 0.5 s a move
    prior: ClassVar[int] = 20
    #: levels 2-2.5x apart up to level 5's 8,000 simulations (level 6 on one core, 4 s, made
    #: ~185,000 on 9x9 yet scored only 0.65-0.70 against 8,000-12,000); each step to level 5 scored
    #: 0.705-0.785 against the level below, level 6 on every core 0.933 (docs/ai.md)
    levels: ClassVar[Mapping[int, tuple[int | None, float]]] = {
        1: (400, 0.04),
        2: (700, 0.1),
        3: (1500, 0.25),
        4: (3200, 0.64),
        5: (8000, 1.6),
        6: (None, 4.0),
    }
    #: ``safe``: up to 64 points that hand the opponent stones passed over; it beat uniform
    #: playouts 24-16 at 1 s and 14-6 at 2 s a move (docs/ai.md)
    #: ``patterns``: the model's pattern weights in the playouts, off by default (docs/models.md)
    options: ClassVar[tuple[GameOption, ...]] = (CAPTURES, SAFE, PATTERNS)
    amaf: ClassVar[bool] = True
    replies: ClassVar[bool] = True
    #: the learned move model (``model.py``), in the compiled tree, by default: learned from
    #: a 3,000-simulation search, it scored 0.585 (0.516-0.651) against the hand-made priors
    #: over 200 games (docs/models.md); without it (``model=none``, or in the protocol tree)
    #: the hand-made priors of ``prior_values``. Levels 1-5 search without it, as they were
    #: calibrated
    shipped_model: ClassVar[str | None] = "freego.npz"
    #: level 6 with the model on every core scored 60-40 against level 6 with neither (one
    #: thread, no model) at 4 s a move on 9x9 (docs/ai.md)
    model_levels: ClassVar[frozenset[int]] = frozenset({6})

    def learner(self) -> Learner | None:
        from .model import FreeGoLearner

        return FreeGoLearner()

    def _game(self) -> FreeGo:
        return cast("FreeGo", self.game)  # the game class names this profile

    def _compiled(self, config: SearchConfig) -> bool:
        from .playouts import KO_SUPER

        return not (self._game().ko_mode == KO_SUPER or self.tt_for(config))

    def tree(self, config: SearchConfig) -> TreeSpec | None:
        """The compiled tree, or ``None`` under superko or with ``tt``.

        Raises:
            ParameterError: ``patterns`` asked for without a model.
        """
        if not self._compiled(config):
            return None
        model = self.model_for(config)
        return FreeGoTree(self._game(), self.option(config, "captures"),
                          self.option(config, "safe"), model, self._patterns(config, model))

    def option_values(self, config: SearchConfig) -> dict[str, int]:
        """The protocol tree's options (its playouts read no model: ``patterns`` 0).

        Raises:
            ParameterError: ``patterns`` asked for, which only the compiled tree reads.
        """
        from ...errors import ParameterError

        if config.game_option("patterns"):
            raise ParameterError("patterns=K needs the compiled tree (simple or no ko, "
                                 "tt=off, fast=on)")
        return {**super().option_values(config), "patterns": 0}

    def check(self, config: SearchConfig) -> None:
        """Raises: ParameterError for a model that cannot be read or ``patterns`` where no
        playout reads it."""
        model = self.model_for(config)
        if config.fast and self._compiled(config):
            self._patterns(config, model)
        else:
            self.option_values(config)

    def _patterns(self, config: SearchConfig, model: MoveModel | None) -> int:
        """``patterns`` where the playouts can read the model; 0 by default without one (the
        levels, ``model=none``), and refused when asked for there."""
        from ...errors import ParameterError

        if model is not None:
            return self.option(config, "patterns")
        if config.game_option("patterns"):
            raise ParameterError("patterns=K reads the learned model's pattern weights: not "
                                 "with model=none")
        return 0

    def prior_for(self, config: SearchConfig) -> int:
        """The model's count in the compiled tree; the hand-made priors' 20 elsewhere."""
        if config.prior is None and not (config.fast and self._compiled(config)):
            return int(self.prior)
        return super().prior_for(config)

    def playout(self, state: State, seed: int, options: Mapping[str, int],
                replies: np.ndarray | None = None,
                last: int = -1) -> tuple[int, np.ndarray | None]:
        from .playouts import freego_amaf_playout

        game, s = self._game(), _own(state)
        if game.is_terminal(s):
            return game.winner(s) or 0, np.empty(0, np.int32)
        prev = s.history[-2] if len(s.history) >= 2 else 0
        moves = np.empty(game.max_game_length, np.int32)
        winner, turns = freego_amaf_playout(
            s.cells().copy(), game.board.neighbours, game.board.zobrist, SIDE_TO_MOVE_KEY,
            s.player, np.array(s.scores, np.int64), game.params["target"], game.ko_mode,
            np.int64(game.position_hash(s)), np.int64(prev), np.array(s.history[:-1], np.int64),
            game.max_game_length, seed, int(options.get("captures", 0)),
            int(options.get("safe", 0)), moves, NO_REPLIES if replies is None else replies,
            int(last), NO_RING, NO_WEIGHTS, 0)
        return max(int(winner), 0), moves[:turns]

    def prior_values(self, state: State, actions: np.ndarray, last: int = -1) -> np.ndarray:
        """A capture as a win, a suicide that captures nothing as a loss, others even."""
        from .priors import PRIOR_OF_KIND, move_kinds

        game, s = self._game(), _own(state)
        kinds = np.empty(len(actions), np.int8)
        move_kinds(s.cells(), game.board.neighbours, game.board.zobrist, s.player,
                   np.asarray(actions, np.int64), kinds)
        return PRIOR_OF_KIND[kinds]


NO_RING = np.empty((0, 8), np.int32)  # the protocol tree's playouts read no model
NO_WEIGHTS = np.empty(0, np.float64)


def _own(state: State) -> FreeGoState:
    return cast("FreeGoState", state)  # the search passes only this game's states
