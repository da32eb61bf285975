"""The capture race's learned move model: a choice model over the stones of a turn.

Each candidate of a decision (a cell for the stone of the current colour, or no stone) gets a
logit, the sum of one weight for its pattern and one for its tactics (``features.py``) at its
stage, or one weight for "no stone" at that stage; the model says the search's chosen move
is drawn in proportion to ``exp(logit)`` (a conditional logit, as Coulom's and Fuego's move
patterns). It is fitted on our own self-play (``stonegarden train blooms``,
``learn/train.py``).

In the search (``tree.race_moves``) a node's candidates become prior values in [0, 1],
``sigmoid(scale * (logit - log mean exp logits))``: 1/2 for a move the model finds as likely
as the average candidate, towards 1 for the likely ones; the search counts each as
``prior`` virtual RAVE samples. One array lookup a stone, no Python call per node.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, cast

import numpy as np
from numba import njit

from ...geometry.edges import edge_distance
from ...geometry.flood import label_groups
from ...learn.learner import Choices, Learner
from ...learn.priors import logit_priors
from ...search.tree_kernels import NO_MOVE
from .features import PATTERNS, TACTICS, canonical_patterns, stone_codes

if TYPE_CHECKING:
    from ...core.protocol import Game
    from ...learn.model import MoveModel
    from .rules import BloomsState, _Blooms

@njit(cache=True)
def feature_scratch(n):
    """The buffers ``stone_priors`` works in, for a board of ``n`` cells."""
    return (np.empty(n, np.int32), np.empty(n, np.int32), np.empty(n, np.int32),
            np.empty(n, np.int32), np.empty(n, np.int32), np.empty(6, np.int32),
            np.empty(n * n + n + 1, np.float64))


@njit(cache=True)
def stone_logits(board, nb, edge, player, stage, moves, count, pattern_w, tactic_w, none_w,
                 feat, out):
    """The model's logit of each of ``moves[:count]`` (cells, or ``NO_MOVE``) into ``out``."""
    bloom, libs_of, size_of, stack, mark, ids = feat[0], feat[1], feat[2], feat[3], feat[4], feat[5]
    label_groups(board, nb, bloom, libs_of, size_of, stack, mark)
    for k in range(count):
        m = moves[k]
        if m < 0:
            out[k] = none_w[stage]
        else:
            p, t = stone_codes(board, nb, edge, player, stage, m, bloom, libs_of, size_of, ids)
            out[k] = pattern_w[stage, p] + tactic_w[stage, t]


@njit(cache=True)
def stone_priors(board, nb, edge, player, stage, moves, count, pattern_w, tactic_w, none_w,
                 scale, feat, priors):
    """Prior values in [0, 1] of ``moves[:count]`` into ``priors`` (module docstring)."""
    logits = feat[6]
    stone_logits(board, nb, edge, player, stage, moves, count, pattern_w, tactic_w, none_w,
                 feat, logits)
    logit_priors(logits, count, scale, priors)


@njit(cache=True)
def decision_rows(board, nb, edge, player, stage, cells, none, index, feat, pat_out, tac_out,
                  move_out):
    """The candidates of one decision as the fit reads them: each one's move (a cell or
    ``NO_MOVE``), pattern class and tactics code (-1 for no stone). ``cells``: whether the
    empty cells are candidates; ``none``: whether no stone is. Returns how many."""
    bloom, libs_of, size_of, stack, mark, ids = feat[0], feat[1], feat[2], feat[3], feat[4], feat[5]
    label_groups(board, nb, bloom, libs_of, size_of, stack, mark)
    k = 0
    if cells:
        for c in range(board.shape[0]):
            if board[c] == 0:
                p, t = stone_codes(board, nb, edge, player, stage, c, bloom, libs_of, size_of,
                                   ids)
                move_out[k] = c
                pat_out[k] = index[p]
                tac_out[k] = t
                k += 1
    if none:
        move_out[k] = NO_MOVE
        pat_out[k] = -1
        tac_out[k] = -1
        k += 1
    return k


class RaceLearner(Learner):
    """The capture race's pattern model (module docstring): weights ``[stage 0 patterns,
    stage 1 patterns, stage 0 tactics, stage 1 tactics, no stone at stage 0 and 1]``."""

    kind = "blooms-race-patterns"

    def __init__(self) -> None:
        self.index = canonical_patterns()
        self.classes = int(self.index.max()) + 1
        self.num_features = 2 * self.classes + 2 * TACTICS + 2

    def _columns(self, stage: int, pat: np.ndarray, tac: np.ndarray) -> np.ndarray:
        none = pat < 0
        first = np.where(none, 2 * self.classes + 2 * TACTICS + stage, stage * self.classes + pat)
        second = np.where(none, self.num_features, 2 * self.classes + stage * TACTICS + tac)
        return np.stack([first, second], axis=1)

    def choices(self, game: Game, actions: list[int],
                visits: list[dict[int, int]] | None = None) -> Choices:
        """Every decision of the split tree along one game: the turn's first stone (or none),
        then its second (or none), with the moves that were played."""
        g = cast("_Blooms", game)
        nb = g.board.neighbours
        n = g.num_cells
        edge = edge_distance(nb)
        feat = feature_scratch(n)
        pat = np.empty(n + 1, np.int64)
        tac = np.empty(n + 1, np.int64)
        mv = np.empty(n + 1, np.int64)
        out = Choices.builder()
        state = g.initial_state()
        for action in actions:
            stones = g.decode(action)
            assert stones is not None  # the race has no pass
            a, b = stones
            board = state.cells().copy()
            p = state.player
            first = state.ply == 0
            k = decision_rows(board, nb, edge, p, 0, True, True, self.index, feat, pat, tac, mv)
            out.add(self._columns(0, pat[:k], tac[:k]), int(np.flatnonzero(mv[:k] == a)[0]))
            if a >= 0:
                board[a] = 2 * p - 1
            if not (first and a >= 0):
                k = decision_rows(board, nb, edge, p, 1, True, a >= 0, self.index, feat, pat,
                                  tac, mv)
                out.add(self._columns(1, pat[:k], tac[:k]), int(np.flatnonzero(mv[:k] == b)[0]))
            state = cast("BloomsState", g.play(state, action))
        return out.build()

    def arrays(self, weights: np.ndarray) -> dict[str, np.ndarray]:
        """The tables the search reads: pattern weights by raw code, tactics, no stone."""
        c, t = self.classes, TACTICS
        pattern = np.stack([weights[s * c:(s + 1) * c][self.index] for s in (0, 1)])
        tactic = weights[2 * c:2 * c + 2 * t].reshape(2, t)
        none = weights[2 * c + 2 * t:2 * c + 2 * t + 2]
        return {"pattern": pattern.astype(np.float32), "tactic": tactic.astype(np.float32),
                "none": none.astype(np.float32)}


def model_tables(model: MoveModel | None, kind: str = RaceLearner.kind,
                 nones: int = 2) -> tuple[np.ndarray, np.ndarray, np.ndarray, float]:
    """The search's tables of ``model`` (float64), or empty ones without a model: a stone
    model of ``kind`` with ``nones`` weights for choices without a stone (the race's two
    stages; the territory rules add the pass).

    Raises:
        ParameterError: a model of another kind or with tables of the wrong shape.
    """
    if model is None:
        return (np.zeros((2, 0)), np.zeros((2, 0)), np.zeros(nones), 1.0)
    model.require(kind, {"pattern": (2, PATTERNS), "tactic": (2, TACTICS), "none": (nones,)})
    a = model.arrays
    return (a["pattern"].astype(np.float64), a["tactic"].astype(np.float64),
            a["none"].astype(np.float64), float(model.scale))
