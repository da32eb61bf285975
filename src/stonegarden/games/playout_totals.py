"""The int64[4] totals that the playout kernels return (``Game.random_playouts``): wins of
player 1, wins of player 2, draws and unfinished games, and moves played."""

from __future__ import annotations

from numba import njit


@njit(cache=True)
def add_result(totals, winner, turns):
    """Count one playout: ``winner`` 1 or 2, anything else (0, -1) a draw or unfinished game."""
    if winner == 1:
        totals[0] += 1
    elif winner == 2:
        totals[1] += 1
    else:
        totals[2] += 1
    totals[3] += turns
