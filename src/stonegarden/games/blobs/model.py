"""Blobs' learned move model: a conditional logit over the legal placements, a placement's
logit the sum of the weights of its four features (``features.py``). The protocol tree reads
it through ``ModelPriors``, one numba call per new node; Blobs searches without RAVE, so the
priors count as visits of the moves themselves. Fitted by ``stonegarden train blobs``."""

from __future__ import annotations

from typing import TYPE_CHECKING, cast

import numpy as np
from numba import njit

from ...core.protocol import CHANCE
from ...learn.learner import Choices, Learner
from ...learn.priors import logit_priors
from .features import FEATURE_BASES, FEATURE_COLUMNS, NUM_FEATURES, feature_scratch, move_codes
from .kernels import geometry

if TYPE_CHECKING:
    from ...core.protocol import Game, State
    from ...learn.model import MoveModel
    from .rules import BlobsGame, BlobsState


@njit(cache=True)
def move_priors(cells, g, mover, dice_left, mode, actions, weights, scale, scratch, codes,
                logits, priors):
    """Prior values in [0, 1] of the placements ``actions`` into ``priors``
    (``learn/priors.py``)."""
    count = actions.shape[0]
    move_codes(cells, g, mover, dice_left, mode, actions, scratch, codes)
    for k in range(count):
        total = 0.0
        for f in range(FEATURE_COLUMNS):
            total += weights[FEATURE_BASES[f] + codes[k, f]]
        logits[k] = total
    logit_priors(logits, count, scale, priors)


class BlobsLearner(Learner):
    """Weights: the verdicts, the auto moves, the coloured corners, the white corners."""

    kind = "blobs-features"
    num_features = NUM_FEATURES

    def choices(self, game: Game, actions: list[int],
                visits: list[dict[int, int]] | None = None) -> Choices:
        """One decision per placement (rolls are chance, not decisions): the legal
        placements, and the one played."""
        coder = ModelPriors(cast("BlobsGame", game), None)
        out = Choices.builder()
        state = game.initial_state()
        for action in actions:
            if state.player != CHANCE:
                legal = np.asarray(game.legal_actions(state), np.int64)
                out.add(coder.codes(state, legal) + FEATURE_BASES,
                        int(np.flatnonzero(legal == action)[0]))
            state = game.play(state, action)
        return out.build()

    def arrays(self, weights: np.ndarray) -> dict[str, np.ndarray]:
        return {"weights": weights[:NUM_FEATURES].astype(np.float32)}


class ModelPriors:
    """The protocol tree's priors from a model (``SearchProfile.prior_values_for``). Each
    tree holds its own, so its scratch buffers are never shared between threads."""

    def __init__(self, game: BlobsGame, model: MoveModel | None) -> None:
        self.game = game
        self.g = geometry()
        self.scratch = feature_scratch()
        if model is None:
            self.weights, self.scale = np.zeros(NUM_FEATURES), 1.0
        else:
            model.require(BlobsLearner.kind, {"weights": (NUM_FEATURES,)})
            self.weights = model.arrays["weights"].astype(np.float64)
            self.scale = float(model.scale)

    def codes(self, state: State, actions: np.ndarray) -> np.ndarray:
        """Each placement's four feature codes (a row each)."""
        s = cast("BlobsState", state)
        out = np.empty((len(actions), FEATURE_COLUMNS), np.int64)
        move_codes(s.cell_array(), self.g, s.to_place, s.dice_left, self.game.win_mode,
                   np.asarray(actions, np.int64), self.scratch, out)
        return out

    def __call__(self, state: State, actions: np.ndarray, last: int = -1) -> np.ndarray:
        s = cast("BlobsState", state)
        count = len(actions)
        priors = np.empty(count)
        move_priors(s.cell_array(), self.g, s.to_place, s.dice_left, self.game.win_mode,
                    np.asarray(actions, np.int64), self.weights, self.scale, self.scratch,
                    np.empty((count, FEATURE_COLUMNS), np.int64), np.empty(count), priors)
        return priors
