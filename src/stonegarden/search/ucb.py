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


@njit(cache=True)
def rave_pick(w: np.ndarray, n: np.ndarray, rw: np.ndarray, rn: np.ndarray, flip: bool,
              c: float, log_visits: float, rave_k: float, bonus: np.ndarray, use_bonus: bool,
              order: np.ndarray) -> int:
    """Index of the action with the highest RAVE-blended score (the Blooms engine's blend):
    ``beta = rn / (n + rn + n * rn / rave_k)``, score ``(1 - beta) q + beta q_rave
    + c * sqrt(log N / (n + 1))``; an action with neither visits nor RAVE samples scores 2
    (above any other, so it is tried). ``w``/``rw`` are player 1's sums, ``flip`` turns them
    to player 2's view; ties go to the one first in ``order``, as in ``ucb_pick``."""
    best = order[0]
    best_score = -math.inf
    for k in range(order.shape[0]):
        i = order[k]
        ni = n[i]
        rni = rn[i]
        if ni == 0 and rni == 0:
            score = 2.0
        else:
            beta = rni / (ni + rni + ni * rni / rave_k)
            q = w[i] / ni if ni > 0 else 0.0
            rq = rw[i] / rni if rni > 0 else 0.0
            if flip:
                q = 1.0 - q
                rq = 1.0 - rq
            score = (1.0 - beta) * q + beta * rq + c * math.sqrt(log_visits / (ni + 1.0))
        if use_bonus:
            score = score + bonus[i]
        if score > best_score:
            best = i
            best_score = score
    return best


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
