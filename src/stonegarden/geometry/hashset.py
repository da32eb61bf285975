"""Open-addressing sets of 64-bit position hashes for numba kernels (ko and superko checks in
O(1) per candidate move). Slot value 0 means free, so hashes are never 0 (the square boards mix
a non-zero empty-board key into every hash)."""

from __future__ import annotations

import numpy as np
from numba import njit


@njit(cache=True)
def table_slot(table, h):
    """The slot holding ``h``, or the free slot where it would go."""
    mask = table.shape[0] - 1
    i = (h ^ (h >> 31)) & mask
    while table[i] != 0 and table[i] != h:
        i = (i + 1) & mask
    return i


@njit(cache=True)
def build_table(hashes):
    """A set of ``hashes`` (int64 array), at most half full, size a power of two."""
    size = 4
    while size < 2 * hashes.shape[0] + 2:
        size *= 2
    table = np.zeros(size, np.int64)
    for h in hashes:
        table[table_slot(table, h)] = h
    return table


@njit(cache=True)
def table_has(table, h):
    return table[table_slot(table, h)] == h
