"""The RAVE blend the selection kernel scores edges with, and the stamps of a playout's moves
that the backup turns into RAVE samples."""

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
    action is tried) with neither visits nor samples."""
    if n == 0 and rn == 0:
        return 2.0
    beta = rn / (n + rn + n * rn / rave_k)
    return (1.0 - beta) * q + beta * rq + c * math.sqrt(log_visits / (n + 1.0))


@njit(cache=True)
def amaf_mark(seen: np.ndarray, moves: np.ndarray, first: int, stamp: int) -> None:
    """Stamp ``seen[player, action]`` for each of ``moves``, played by ``first`` and the
    other player (1 or 2) in turn."""
    p = first
    for t in range(moves.shape[0]):
        seen[p, moves[t]] = stamp
        p = 3 - p
