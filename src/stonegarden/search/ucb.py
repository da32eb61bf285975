"""The generic tree's selection step as a numba kernel: one UCB pass over a node's actions.

In the generic tree the Python around a simulation costs more than a Blobs playout, and the
UCB over siblings (a handful of numpy operations on arrays of 10-50 entries, each paying numpy's
call overhead) was its largest part. The kernel computes exactly the same floating-point
score, ``q + c * sqrt(log N / n)`` (+ the solver's bonus), and keeps numpy's tie rule (the
first best), so a seeded search is unchanged."""

from __future__ import annotations

import math

import numpy as np
from numba import njit


@njit(cache=True)
def ucb_pick(w: np.ndarray, n: np.ndarray, flip: bool, c: float, log_visits: float,
             bonus: np.ndarray, use_bonus: bool) -> int:
    """Index of the action with the highest UCB score. ``q = w / n`` is player 1's mean;
    ``flip`` turns it to player 2's view; ``bonus`` is +-inf for proven wins and losses. Every
    ``n`` is at least 1."""
    best = 0
    best_score = -math.inf
    for i in range(n.shape[0]):
        q = w[i] / n[i]
        if flip:
            q = 1.0 - q
        score = q + c * math.sqrt(log_visits / n[i])
        if use_bonus:
            score = score + bonus[i]
        if score > best_score:
            best = i
            best_score = score
    return best
