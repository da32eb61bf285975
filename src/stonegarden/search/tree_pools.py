"""The preallocated node and edge arrays of the numba search trees (``tree_kernels.py``), and
the small helpers their drivers share for reading them."""

from __future__ import annotations

import numpy as np

NODE_POOL = 1_500_000
EDGE_POOL = 20_000_000


class Pools:
    """The tree's arrays. ``np.zeros`` maps pages lazily, so big pools cost only what is used."""

    def __init__(self, nodes: int, edges: int) -> None:
        self.nd_player = np.zeros(nodes, np.int8)
        self.nd_stage = np.zeros(nodes, np.int8)
        self.nd_a = np.zeros(nodes, np.int32)
        self.nd_first = np.zeros(nodes, np.int64)
        self.nd_count = np.zeros(nodes, np.int32)
        self.nd_n = np.zeros(nodes, np.int32)
        self.nd_proven = np.zeros(nodes, np.int8)
        self.ed_move = np.zeros(edges, np.int32)
        self.ed_child = np.zeros(edges, np.int32)
        self.ed_n = np.zeros(edges, np.int32)
        self.ed_w = np.zeros(edges, np.float32)
        self.ed_rn = np.zeros(edges, np.int32)
        self.ed_rw = np.zeros(edges, np.float32)
        self.counters = np.zeros(3, np.int64)

    def nodes(self) -> tuple[np.ndarray, ...]:
        return (self.nd_player, self.nd_stage, self.nd_a, self.nd_first, self.nd_count,
                self.nd_n, self.nd_proven)

    def edges(self) -> tuple[np.ndarray, ...]:
        return (self.ed_move, self.ed_child, self.ed_n, self.ed_w, self.ed_rn, self.ed_rw)


def tie_key(edge: int, salt: int) -> int:
    """A pseudo-random key of ``edge`` fixed by ``salt`` (a multiplicative hash)."""
    return ((edge ^ salt) * 0x9E3779B97F4A7C15 >> 17) & 0xFFFFFFFF


def winner_of_code(code: int) -> int | None:
    """The winner (0 a draw) of a proven-result code, ``None`` for 0 (unknown)."""
    return None if code == 0 else (0 if code == 3 else code)


def proof_rank(winner: int | None, mover: int) -> int:
    """2 for a proven win of ``mover``, 0 for a proven loss, 1 otherwise (for sorting)."""
    if winner is None or winner == 0:
        return 1
    return 2 if winner == mover else 0
