"""How far each cell or point of a board is from its edge (the learned models' features)."""

from __future__ import annotations

import numpy as np


def edge_distance(nb: np.ndarray) -> np.ndarray:
    """Each cell's distance in steps to a cell with a missing neighbour (the edge or a hole:
    0 there)."""
    n = nb.shape[0]
    dist = np.full(n, -1, np.int64)
    frontier = [c for c in range(n) if (nb[c] < 0).any()]
    for c in frontier:
        dist[c] = 0
    while frontier:
        nxt = []
        for c in frontier:
            for w in nb[c]:
                if w >= 0 and dist[w] < 0:
                    dist[w] = dist[c] + 1
                    nxt.append(int(w))
        frontier = nxt
    dist[dist < 0] = 3  # a board without edge cannot be built, but stay total
    return dist
