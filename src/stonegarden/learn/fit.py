"""Fitting a conditional logit (each decision picks one of its candidates with probability
``softmax(sum of the candidates' feature weights)``) with numpy: full-batch Adam on the mean
log-loss (or, for soft targets, the mean cross-entropy to them) plus an L2 penalty. Convex,
so the result does not depend on the start."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

from .learner import Choices

# the fit's settings, shared with the PyTorch fit (``fit_torch.py``) so that both take the
# same steps: the L2 penalty, Adam's step size, its moment decays and its epsilon
L2, STEPS, RATE = 1e-4, 400, 0.05
BETAS, EPSILON = (0.9, 0.999), 1e-8

@dataclass(frozen=True)
class FitReport:
    """How a fit went: mean log-loss and top-1 accuracy of the model, and the log-loss of
    the uniform choice, on the decisions given."""

    log_loss: float
    accuracy: float
    uniform_log_loss: float


def _probabilities(weights: np.ndarray, data: Choices) -> tuple[np.ndarray, np.ndarray,
                                                                np.ndarray]:
    z = weights[data.rows].sum(axis=1)
    heads = data.starts[:-1]
    sizes = np.diff(data.starts)
    top = np.maximum.reduceat(z, heads)
    e = np.exp(z - np.repeat(top, sizes))
    total = np.add.reduceat(e, heads)
    return z, e / np.repeat(total, sizes), top + np.log(total)


def evaluate(weights: np.ndarray, data: Choices) -> FitReport:
    """Log-loss and accuracy of ``weights`` (padded with a 0) on ``data``: the accuracy is the
    share of decisions whose choice the model rates first, a choice among k candidates tied
    first counting 1/k (the uniform choice's accuracy is the mean of 1 / candidates)."""
    z, _, lse = _probabilities(weights, data)
    heads = data.starts[:-1]
    sizes = np.diff(data.starts)
    best = np.maximum.reduceat(z, heads)
    tied = np.add.reduceat((z >= np.repeat(best, sizes)).astype(np.int64), heads)
    return FitReport(float(np.mean(lse - z[data.chosen])),
                     float(np.mean((z[data.chosen] >= best) / tied)),
                     float(np.mean(np.log(sizes))))


def fit_choices(data: Choices, num_features: int, *, l2: float = L2, steps: int = STEPS,
                rate: float = RATE,
                progress: Callable[[int, float], None] | None = None) -> np.ndarray:
    """Weights (``num_features`` + 1, the last the padding's 0) minimising the mean log-loss
    of ``data``'s choices, or the mean cross-entropy to its ``target`` where it has one, plus
    ``l2 / 2 * |w|^2``. ``progress(step, loss)`` after each step: the mean log-loss (or
    cross-entropy) of the weights the step started from, without the penalty."""
    w = np.zeros(num_features + 1)
    m = np.zeros_like(w)
    v = np.zeros_like(w)
    b1, b2 = BETAS
    count = max(data.decisions, 1)
    for step in range(1, steps + 1):
        z, p, lse = _probabilities(w, data)
        if data.target is None:
            loss = float(np.mean(lse - z[data.chosen]))
            p[data.chosen] -= 1.0
        else:  # the gradient of the cross-entropy is the model's shares less the target's
            loss = float((lse.sum() - data.target @ z) / count)
            p -= data.target
        grad = l2 * w
        for col in range(data.rows.shape[1]):
            grad += np.bincount(data.rows[:, col], p, minlength=len(w)) / count
        grad[-1] = 0.0
        m = b1 * m + (1 - b1) * grad
        v = b2 * v + (1 - b2) * grad * grad
        w -= rate * (m / (1 - b1**step)) / (np.sqrt(v / (1 - b2**step)) + EPSILON)
        w[-1] = 0.0
        if progress is not None:
            progress(step, loss)
    return w
