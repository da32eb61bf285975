"""The generic tree's selection step as a numba kernel: one UCB pass over a node's actions.

In the generic tree the Python around a simulation costs more than a Blobs playout, and the
UCB over siblings (a handful of numpy operations on arrays of 10-50 entries, each paying numpy's
call overhead) was its largest part. The kernel computes the floating-point score
``q + c * sqrt(log N / n)`` (+ the solver's bonus) and breaks ties by the node's random
``order`` of actions, never by action index: small searches are full of ties (one playout
per move gives every winner the same score), and the first index won them all, so in Bridge
Go 9x9 a search of 80 simulations crawled along the first row (a1, b1, c1, ...) and beat
one of 200 simulations 19-1."""

from __future__ import annotations

import math

import numpy as np
from numba import njit


@njit(cache=True)
def ucb_pick(w: np.ndarray, n: np.ndarray, flip: bool, c: float, log_visits: float,
             bonus: np.ndarray, use_bonus: bool, order: np.ndarray) -> int:
    """Index of the action with the highest UCB score, of equal scores the one first in
    ``order`` (a permutation of the indices). ``q = w / n`` is player 1's mean; ``flip`` turns
    it to player 2's view; ``bonus`` is +-inf for proven wins and losses. Every ``n`` is at
    least 1."""
    best = order[0]
    best_score = -math.inf
    for k in range(order.shape[0]):
        i = order[k]
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
