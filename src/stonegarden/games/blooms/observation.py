"""Observation planes for Blooms networks: the hexagon laid on a (2n-1) x (2n-1) axial grid
(cells outside the hexagon, and holes, are 0 in the "valid" plane), player-relative."""

from __future__ import annotations

from functools import lru_cache

import numpy as np

from ...geometry.hexhex import HexBoard

PLANES = (
    "own first colour", "own second colour", "opponent first colour", "opponent second colour",
    "empty", "valid cell", "observer to move", "first turn", "own score / target",
    "opponent score / target", "consecutive passes / 2", "observer passed first",
    "opponent passed first",
)


@lru_cache(maxsize=64)
def grid_index(board: HexBoard) -> tuple[np.ndarray, np.ndarray]:
    """(rows, cols) on the axial grid for every cell index."""
    n = board.size
    rows = np.array([r + n - 1 for _, r in board.coords], np.int64)
    cols = np.array([q + n - 1 for q, _ in board.coords], np.int64)
    return rows, cols


def observation(board: HexBoard, cells: np.ndarray, player: int, to_move: int, ply: int,
                scores: tuple[int, int], target: int | None, passes: int,
                first_passer: int) -> np.ndarray:
    n = board.size
    out = np.zeros((len(PLANES), 2 * n - 1, 2 * n - 1), np.float32)
    rows, cols = grid_index(board)
    own = (1, 2) if player == 1 else (3, 4)
    opp = (3, 4) if player == 1 else (1, 2)
    for plane, colour in enumerate((*own, *opp)):
        out[plane, rows, cols] = cells == colour
    out[4, rows, cols] = cells == 0
    out[5, rows, cols] = 1.0
    out[6] = float(to_move == player)
    out[7] = float(ply == 0)
    if target:
        out[8] = min(1.0, scores[player - 1] / target)
        out[9] = min(1.0, scores[2 - player] / target)
    out[10] = passes / 2
    out[11] = float(first_passer == player)
    out[12] = float(first_passer == 3 - player)
    return out
