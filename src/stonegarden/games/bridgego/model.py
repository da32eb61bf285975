"""Bridge Go's learned move model: a choice model over the legal points, as Free Go's
(``games/freego/model.py``): a point's logit is one weight for its pattern plus one for its
tactics (``features.py``). The protocol tree reads it through ``ModelPriors``, one numba call
per new node, in place of the profile's ``prior_values``. Fitted by ``stonegarden train
bridgego``."""

from __future__ import annotations

from typing import TYPE_CHECKING, cast

import numpy as np
from numba import njit

from ...geometry.edges import edge_distance
from ...geometry.flood import label_groups
from ...geometry.square_patterns import ring_pattern
from ...learn.priors import logit_priors
from ...learn.square_learner import Coder, SquarePatternLearner
from .features import PATTERNS, TACTICS, chain_sides, move_tactics, ring_table
from .playouts import bridge_reply

if TYPE_CHECKING:
    from ...core.protocol import Game, State
    from ...learn.model import MoveModel
    from .rules import BridgeGo, BridgeGoState


@njit(cache=True)
def feature_scratch(n):
    """The buffers the kernels below work in, for a board of ``n`` points."""
    return (np.empty(n, np.int32), np.empty(n, np.int32), np.empty(n, np.int32),
            np.empty(n, np.int32), np.empty(n, np.int32), np.empty(4, np.int32),
            np.empty(n, np.int32), np.empty(n, np.float64))


@njit(cache=True)
def move_codes(board, nb, ring, edge, sides, player, last, points, feat, pat_out, tac_out):
    """The pattern code and tactics code of each of ``points`` (empty points), after the
    opponent's move ``last`` (-1: none)."""
    group, libs_of, size_of, stack, mark, ids, group_sides = (feat[0], feat[1], feat[2],
                                                              feat[3], feat[4], feat[5], feat[6])
    label_groups(board, nb, group, libs_of, size_of, stack, mark)
    chain_sides(board, sides, group, group_sides)
    reply = bridge_reply(board, nb, player, last)
    for k in range(points.shape[0]):
        p = points[k]
        pat_out[k] = ring_pattern(board, ring, player, p)
        tac_out[k] = move_tactics(board, nb, edge, sides, player, p, group, group_sides, reply,
                                  ids)


@njit(cache=True)
def move_priors(board, nb, ring, edge, sides, player, last, points, pattern_w, tactic_w, scale,
                feat, pat, tac, priors):
    """Prior values in [0, 1] of ``points`` into ``priors`` (``learn/priors.py``)."""
    move_codes(board, nb, ring, edge, sides, player, last, points, feat, pat, tac)
    logits = feat[7]
    count = points.shape[0]
    for k in range(count):
        logits[k] = pattern_w[pat[k]] + tactic_w[tac[k]]
    logit_priors(logits, count, scale, priors)


class BridgeGoLearner(SquarePatternLearner):
    """Bridge Go's pattern model: weights ``[patterns, tactics]``."""

    kind = "bridgego-patterns"
    tactics = TACTICS

    def coder(self, game: Game) -> Coder:
        return ModelPriors(cast("BridgeGo", game), None).codes


class ModelPriors:
    """The protocol tree's priors from a model (``SearchProfile.prior_values_for``): called
    with a node's state, its legal points and the move into it. Each tree holds its own, so
    its scratch buffers are never shared between threads."""

    def __init__(self, game: BridgeGo, model: MoveModel | None) -> None:
        nb = game.board.neighbours
        n = nb.shape[0]
        self.game = game
        self.ring = ring_table(nb)
        self.edge = edge_distance(nb)
        self.feat = feature_scratch(n)
        self.pat = np.empty(n, np.int64)
        self.tac = np.empty(n, np.int64)
        self.pattern_w, self.tactic_w, self.scale = model_tables(model)

    def codes(self, state: State, points: np.ndarray, last: int) -> tuple[np.ndarray, np.ndarray]:
        """The pattern and tactics codes of ``points`` in ``state`` (copies)."""
        s = cast("BridgeGoState", state)
        b = self.game.board
        move_codes(s.cells(), b.neighbours, self.ring, self.edge, b.sides, s.player, int(last),
                   points, self.feat, self.pat, self.tac)
        k = len(points)
        return self.pat[:k].copy(), self.tac[:k].copy()

    def __call__(self, state: State, actions: np.ndarray, last: int = -1) -> np.ndarray:
        s = cast("BridgeGoState", state)
        b = self.game.board
        points = np.asarray(actions, np.int64)
        priors = np.empty(len(points))
        move_priors(s.cells(), b.neighbours, self.ring, self.edge, b.sides, s.player, int(last),
                    points, self.pattern_w, self.tactic_w, self.scale, self.feat, self.pat,
                    self.tac, priors)
        return priors


def model_tables(model: MoveModel | None) -> tuple[np.ndarray, np.ndarray, float]:
    """The search's tables of ``model`` (float64), or zeros without a model.

    Raises:
        ParameterError: a model of another kind or with tables of the wrong shape.
    """
    if model is None:
        return np.zeros(PATTERNS), np.zeros(TACTICS), 1.0
    model.require(BridgeGoLearner.kind, {"pattern": (PATTERNS,), "tactic": (TACTICS,)})
    a = model.arrays
    return (a["pattern"].astype(np.float64), a["tactic"].astype(np.float64), float(model.scale))
