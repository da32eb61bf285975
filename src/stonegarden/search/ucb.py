"""The generic tree's selection step as a numba kernel: one UCB pass over a node's actions.

In the generic tree the Python around a simulation costs more than a Blobs playout, and the
UCB over siblings (a handful of numpy operations on arrays of 10-50 entries, each paying numpy's
call overhead) was its largest part. The kernel computes the floating-point score
``q + c * sqrt(log N / n)`` (+ the solver's bonus) and breaks ties by the node's random
``order`` of actions, never by action index: small searches are full of ties (one playout
per move gives every winner the same score), and the first index won them all, so in Bridge
Go 9x9 a search of 80 simulations crawled along the first row (a1, b1, c1, ...) and beat
one of 200 simulations 19-1. ``rave_pick`` is the same pass with the RAVE blend
(``rave_score``, which the Blooms engine's selection shares)."""

from __future__ import annotations

import math

import numpy as np
from numba import njit


@njit(cache=True, inline="always")
def rave_score(q: float, rq: float, n: float, rn: float, c: float, log_visits: float,
               rave_k: float) -> float:
    """The RAVE blend of an action's mean ``q`` (``n`` visits) and RAVE mean ``rq`` (``rn``
    samples), both from the mover's view: ``beta = rn / (n + rn + n * rn / rave_k)``, score
    ``(1 - beta) q + beta rq + c * sqrt(log N / (n + 1))``; 2 (above any other score, so the
    action is tried) with neither visits nor samples. Shared by the Blooms engine's kernel."""
    if n == 0 and rn == 0:
        return 2.0
    beta = rn / (n + rn + n * rn / rave_k)
    return (1.0 - beta) * q + beta * rq + c * math.sqrt(log_visits / (n + 1.0))


@njit(cache=True)
def _pick(w, n, rw, rn, rave, flip, c, log_visits, rave_k, bonus, use_bonus, order):
    """The loop behind ``ucb_pick`` and ``rave_pick``."""
    best = order[0]
    best_score = -math.inf
    for k in range(order.shape[0]):
        i = order[k]
        if rave:
            q = w[i] / n[i] if n[i] > 0 else 0.0
            rq = rw[i] / rn[i] if rn[i] > 0 else 0.0
            if flip:
                q = 1.0 - q
                rq = 1.0 - rq
            score = rave_score(q, rq, n[i], rn[i], c, log_visits, rave_k)
        else:
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


@njit(cache=True)
def ucb_pick(w: np.ndarray, n: np.ndarray, flip: bool, c: float, log_visits: float,
             bonus: np.ndarray, use_bonus: bool, order: np.ndarray) -> int:
    """Index of the action with the highest UCB score, of equal scores the one first in
    ``order`` (a permutation of the indices). ``q = w / n`` is player 1's mean; ``flip`` turns
    it to player 2's view; ``bonus`` is +-inf for proven wins and losses. Every ``n`` is at
    least 1."""
    return _pick(w, n, w, n, False, flip, c, log_visits, 1.0, bonus, use_bonus, order)


@njit(cache=True)
def rave_pick(w: np.ndarray, n: np.ndarray, rw: np.ndarray, rn: np.ndarray, flip: bool,
              c: float, log_visits: float, rave_k: float, bonus: np.ndarray, use_bonus: bool,
              order: np.ndarray) -> int:
    """As ``ucb_pick`` with the score ``rave_score`` of the means of ``w``/``n`` and of the
    RAVE sums ``rw``/``rn`` (player 1's, turned by ``flip``)."""
    return _pick(w, n, rw, rn, True, flip, c, log_visits, rave_k, bonus, use_bonus, order)


@njit(cache=True)
def amaf_mark(seen: np.ndarray, moves: np.ndarray, first: int, stamp: int) -> None:
    """Stamp ``seen[player, action]`` for each of ``moves``, played by ``first`` and the
    other player (1 or 2) in turn."""
    p = first
    for t in range(moves.shape[0]):
        seen[p, moves[t]] = stamp
        p = 3 - p


@njit(cache=True)
def amaf_update(rn: np.ndarray, rw: np.ndarray, actions: np.ndarray, seen_row: np.ndarray,
                stamp: int, r: float) -> None:
    """Add reward ``r`` to the RAVE statistics of each action the node's player played later in
    this simulation (stamped in ``seen_row``)."""
    for i in range(actions.shape[0]):
        if seen_row[actions[i]] == stamp:
            rn[i] += 1.0
            rw[i] += r
