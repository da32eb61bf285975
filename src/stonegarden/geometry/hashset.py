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


# -- stamped sets: reused across playouts without clearing --------------------------------------
# A slot belongs to the current set only if its stamp equals ``stamp``; bumping the stamp empties
# the whole set in O(1). ``keys`` and ``stamps`` have the same power-of-two length.


@njit(cache=True)
def new_stamped_set(capacity):
    """``keys`` and ``stamps`` for up to ``capacity`` hashes per stamp, at most half full."""
    size = 16
    while size < 2 * capacity:
        size *= 2
    return np.zeros(size, np.int64), np.zeros(size, np.int64)


@njit(cache=True)
def stamped_slot(keys, stamps, stamp, h):
    """The slot of the current set holding ``h``, or the free slot where it would go."""
    mask = keys.shape[0] - 1
    i = (h ^ (h >> 31)) & mask
    while stamps[i] == stamp and keys[i] != h:
        i = (i + 1) & mask
    return i


@njit(cache=True)
def stamped_add(keys, stamps, stamp, h):
    """Add ``h``; returns whether it was new."""
    i = stamped_slot(keys, stamps, stamp, h)
    if stamps[i] == stamp:
        return False
    keys[i] = h
    stamps[i] = stamp
    return True


@njit(cache=True)
def stamped_has(keys, stamps, stamp, h):
    i = stamped_slot(keys, stamps, stamp, h)
    return stamps[i] == stamp and keys[i] == h
