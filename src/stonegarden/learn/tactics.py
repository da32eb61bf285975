"""The tactical facts the learned move models share (``games/*/features.py``): a stone's
neighbouring groups counted once each, and the facts packed into one code."""

from __future__ import annotations

from numba import njit

#: captured (0, 1, 2-3, 4+) x liberties (0, 1, 2, 3+) x atari x saves x edge (0, 1, 2, 3+)
TACTICS = 4 * 4 * 2 * 2 * 4


@njit(cache=True)
def touch_group(ids, nids, b, own, libs_of, size_of, libs, captured, atari, save):
    """Count the group ``b`` next to the stone, unless ``ids[:nids]`` has it already: an own
    group adds its other liberties (one of them is the stone's cell) and is saved if it had
    one; an opponent's is captured with its last liberty, or put in atari with its second.
    Returns the new (nids, libs, captured, atari, save)."""
    for t in range(nids):
        if ids[t] == b:
            return nids, libs, captured, atari, save
    ids[nids] = b
    lb = libs_of[b]
    if own:
        libs += lb - 1
        if lb == 1:
            save = 1
    elif lb == 1:
        captured += size_of[b]
    elif lb == 2:
        atari = 1
    return nids + 1, libs, captured, atari, save


@njit(cache=True)
def tactic_code(captured, libs, atari, save, edge):
    """The facts as one code in 0 .. ``TACTICS``."""
    cap = 0 if captured == 0 else 1 if captured == 1 else 2 if captured <= 3 else 3
    return (((cap * 4 + min(libs, 3)) * 2 + atari) * 2 + save) * 4 + min(edge, 3)
