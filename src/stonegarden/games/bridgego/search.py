"""What the search knows about Bridge Go: bridge-saving playouts and priors, last good
replies, tuned settings and levels. It searches through the protocol (its playouts dominate a
simulation)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, ClassVar, cast

import numpy as np

from ...core.protocol import State
from ...geometry.square import EMPTY_BOARD_KEY
from ...search.config import GameOption, SearchConfig
from ...search.profile import SearchProfile
from ...search.replies import NO_REPLIES

if TYPE_CHECKING:
    from ...learn.learner import Learner
    from ...search.profile import PriorValues
    from .rules import BridgeGo, BridgeGoState

BRIDGES = GameOption("bridges", "bool", 1, "playouts answer a move into a bridge by saving it",
                     off=0)


class BridgeGoProfile(SearchProfile):
    """Bridge Go on the protocol tree with RAVE."""

    #: RAVE fades more slowly here than by default: at 2,000 simulations rave_k=1000 beat 300
    #: 33-7 and 3000 lost to 1000 18-22 (docs/ai.md)
    rave_k: ClassVar[float] = 1000.0
    #: explore less than the default 0.2: c=0.05 beat it 24-16 at 1 s a move and 27-13 at 2 s
    c: ClassVar[float] = 0.05
    #: one doubling of simulations a level from 500 to 4,000, 9,000 at level 5 (6,000 scored
    #: 0.15 and 9,000 0.30 against level 6), each step 0.700-0.850 against the level below;
    #: the time caps are about twice what the simulations take on 9x9 (docs/ai.md)
    levels: ClassVar[Mapping[int, tuple[int | None, float]]] = {
        1: (500, 0.25),
        2: (1000, 0.5),
        3: (2000, 1.0),
        4: (4000, 2.0),
        5: (9000, 3.2),
        6: (None, 4.0),
    }
    #: ``bridges``: on since it measured better (docs/ai.md)
    options: ClassVar[tuple[GameOption, ...]] = (BRIDGES,)
    amaf: ClassVar[bool] = True
    replies: ClassVar[bool] = True
    #: the learned move model (``model.py``), read by the protocol tree as priors: against
    #: the search without it (no priors) it scored 181-19 over 200 games at 0.5 s a move
    #: (docs/models.md), so plain ``mcts`` loads it
    shipped_model: ClassVar[str | None] = "bridgego.npz"
    #: level 6 with the model on every core scored 92-8 against level 6 with neither (one
    #: thread, no model) at 4 s a move (docs/ai.md); the lower levels were calibrated without it
    model_levels: ClassVar[frozenset[int]] = frozenset({6})

    def _game(self) -> BridgeGo:
        return cast("BridgeGo", self.game)  # the game class names this profile

    def playout(self, state: State, seed: int, options: Mapping[str, int],
                replies: np.ndarray | None = None,
                last: int = -1) -> tuple[int, np.ndarray | None]:
        from .playouts import bridge_amaf_playout

        game, s = self._game(), _own(state)
        if game.is_terminal(s):
            return game.winner(s) or 0, np.empty(0, np.int32)
        cap = game.playout_cap(s)
        moves = np.empty(cap, np.int32)
        winner, turns = bridge_amaf_playout(
            s.cells().copy(), game.board.neighbours, game.board.sides, game.board.zobrist,
            EMPTY_BOARD_KEY, s.player, game.perpendicular, game.win_after, game.superko,
            np.array(s.history, np.int64), cap, seed, moves, bool(options.get("bridges", 0)),
            NO_REPLIES if replies is None else replies, int(last))
        return int(winner), moves[:turns]

    def learner(self) -> Learner | None:
        from .model import BridgeGoLearner

        return BridgeGoLearner()

    def prior_values_for(self, config: SearchConfig) -> PriorValues:
        """The learned model's priors when ``config`` loads one, else the bridge reply's."""
        from .model import ModelPriors

        model = self.model_for(config)
        return self.prior_values if model is None else ModelPriors(self._game(), model)

    def prior_values(self, state: State, actions: np.ndarray, last: int = -1) -> np.ndarray:
        """The move that saves the bridge ``last`` intruded into (the playouts' ``bridges``
        reply) rated as a win, every other move as even."""
        from .playouts import bridge_reply

        game, s = self._game(), _own(state)
        values = np.full(len(actions), 0.5)
        reply = bridge_reply(s.cells(), game.board.neighbours, s.player, int(last))
        if reply >= 0:
            values[np.asarray(actions) == reply] = 1.0
        return values


def _own(state: State) -> BridgeGoState:
    return cast("BridgeGoState", state)  # the search passes only this game's states
