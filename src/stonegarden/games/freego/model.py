"""Free Go's learned move model: a choice model over the legal points, as the Blooms race's
(``games/blooms/model.py``): a point's logit is one weight for its pattern plus one for its
tactics (``features.py``); the tree turns a node's logits into prior values
(``learn/priors.py``) in place of the hand-made capture and suicide priors (``priors.py``),
which stay the priors without a model. Fitted by ``stonegarden train freego``."""

from __future__ import annotations

from typing import TYPE_CHECKING, cast

import numpy as np
from numba import njit

from ...geometry.edges import edge_distance
from ...geometry.flood import label_groups
from ...learn.priors import logit_priors
from ...learn.square_learner import Coder, SquarePatternLearner
from .features import PATTERNS, TACTICS, point_codes, ring_table

if TYPE_CHECKING:
    from ...core.protocol import Game, State
    from ...learn.model import MoveModel
    from .rules import FreeGo, FreeGoState


@njit(cache=True)
def feature_scratch(n):
    """The buffers ``point_priors`` works in, for a board of ``n`` points."""
    return (np.empty(n, np.int32), np.empty(n, np.int32), np.empty(n, np.int32),
            np.empty(n, np.int32), np.empty(n, np.int32), np.empty(4, np.int32),
            np.empty(n, np.float64))


@njit(cache=True)
def point_logits(board, nb, ring, edge, player, points, count, pattern_w, tactic_w, feat, out):
    """The model's logit of each of ``points[:count]`` (empty points) into ``out``."""
    group, libs_of, size_of, stack, mark, ids = feat[0], feat[1], feat[2], feat[3], feat[4], feat[5]
    label_groups(board, nb, group, libs_of, size_of, stack, mark)
    for k in range(count):
        p, t = point_codes(board, nb, ring, edge, player, points[k], group, libs_of, size_of,
                           ids)
        out[k] = pattern_w[p] + tactic_w[t]


@njit(cache=True)
def point_priors(board, nb, ring, edge, player, points, count, pattern_w, tactic_w, scale,
                 feat, priors):
    """Prior values in [0, 1] of ``points[:count]`` into ``priors``."""
    logits = feat[6]
    point_logits(board, nb, ring, edge, player, points, count, pattern_w, tactic_w, feat, logits)
    logit_priors(logits, count, scale, priors)


class FreeGoLearner(SquarePatternLearner):
    """Free Go's pattern model: weights ``[patterns, tactics]``."""

    kind = "freego-patterns"
    tactics = TACTICS

    def coder(self, game: Game) -> Coder:
        nb = cast("FreeGo", game).board.neighbours
        ring, edge, feat = ring_table(nb), edge_distance(nb), feature_scratch(nb.shape[0])

        def codes(state: State, points: np.ndarray, last: int) -> tuple[np.ndarray, np.ndarray]:
            s = cast("FreeGoState", state)
            out = _codes(s.cells().copy(), nb, ring, edge, s.player, points, feat)
            return out[:, 0], out[:, 1]

        return codes


def _codes(board: np.ndarray, nb: np.ndarray, ring: np.ndarray, edge: np.ndarray, player: int,
           points: np.ndarray, feat: tuple[np.ndarray, ...]) -> np.ndarray:
    out = np.empty((len(points), 2), np.int64)
    _fill_codes(board, nb, ring, edge, player, points, feat, out)
    return out


@njit(cache=True)
def _fill_codes(board, nb, ring, edge, player, points, feat, out):
    group, libs_of, size_of, stack, mark, ids = feat[0], feat[1], feat[2], feat[3], feat[4], feat[5]
    label_groups(board, nb, group, libs_of, size_of, stack, mark)
    for k in range(points.shape[0]):
        p, t = point_codes(board, nb, ring, edge, player, points[k], group, libs_of, size_of,
                           ids)
        out[k, 0] = p
        out[k, 1] = t


def model_tables(model: MoveModel | None) -> tuple[np.ndarray, np.ndarray, float]:
    """The search's tables of ``model`` (float64), or empty ones without a model.

    Raises:
        ParameterError: a model of another kind or with tables of the wrong shape.
    """
    if model is None:
        return np.zeros(0), np.zeros(0), 1.0
    model.require(FreeGoLearner.kind, {"pattern": (PATTERNS,), "tactic": (TACTICS,)})
    a = model.arrays
    return (a["pattern"].astype(np.float64), a["tactic"].astype(np.float64), float(model.scale))
