"""Observation planes for Blobs networks on the virtual 15 x 15 board, from one player's point
of view: the observer's colour is "own" (Red for player 1, Blue for player 2)."""

from __future__ import annotations

import numpy as np

from .lattice import SIDE

PLANES = (
    "own monochrome face", "opponent monochrome face", "mixed, own colour north",
    "mixed, opponent colour north", "empty", "legal target", "observer places next",
    "rolled own monochrome", "rolled opponent monochrome", "rolled mixed", "dice left / dice",
    "roll due",
)
# placement codes 0 RR, 1 BB, 2 RB, 3 BR -> plane, for an observer who is Red and one who is Blue
_PLANE_OF = {1: (0, 1, 2, 3), 2: (1, 0, 3, 2)}
# rolled face 0 R, 1 B, 2 M -> plane
_ROLL_PLANE = {1: (7, 8, 9), 2: (8, 7, 9)}


def observation(cells: np.ndarray, legal_cells: np.ndarray, player: int, to_place: int,
                roll: int, roll_due: bool, dice_left: int, dice: int) -> np.ndarray:
    out = np.zeros((len(PLANES), SIDE, SIDE), np.float32)
    flat = out.reshape(len(PLANES), SIDE * SIDE)
    placed = np.flatnonzero(cells)
    planes = np.array(_PLANE_OF[player])[cells[placed] - 1]
    flat[planes, placed] = 1.0
    flat[4, cells == 0] = 1.0
    flat[5, legal_cells] = 1.0
    out[6] = float(to_place == player)
    if roll >= 0:
        out[_ROLL_PLANE[player][roll]] = 1.0
    out[10] = dice_left / dice
    out[11] = float(roll_due)
    return out
