"""One Bridge Go turn for playouts, with each colour's open-region labels kept between turns.

``kernels.play_bridge`` labels both colours' open regions on every turn. A colour's open regions
depend only on where that colour's stones are, and after every complete turn each chain of
either colour has an external liberty (the opponent's dead chains were removed in step 2, the
mover's in step 4, and removing the mover's stones only adds liberties to the opponent). So
when the mover places at ``p``, the opponent's regions are those labelled at the end of the
opponent's own turn (its step 4), and only the opponent chains beside ``p`` can have lost
their last external liberty: a local flood from ``p`` replaces a labelling of the whole board.
The labels are trusted only while ``valid[colour]`` says so; before that (the first turn of a
playout, possibly from a hand-set position where the invariant need not hold) and after a
colour's stones are removed, the whole board is judged as in ``play_bridge``. A caller that
undoes a turn (a superko trial) restores the opponent's flag as it was before the turn and
clears the mover's.
Tested move by move against ``play_bridge`` (tests/test_bridgego_fast_turn.py).
"""

from __future__ import annotations

import numpy as np
from numba import njit

from ...geometry.hashset import table_has
from .kernels import (
    EMPTY,
    NS,
    WE,
    chain_bridges,
    chains_without_external,
    is_external,
    position_hash,
)


@njit(cache=True)
def flood_dead(board, nb, q, colour, perpendicular, label, rmask, seen, stamps, first, out,
               count):
    """Flood ``q``'s chain into ``out[count:]`` under a new stamp (``stamps[0]`` is the last
    used), stopping at its first external liberty (``label``/``rmask``: valid labels of
    ``colour``'s open regions) or at a stone stamped ``first`` or later by an earlier flood,
    which stopped because its chain lives. Returns the new count if the chain is dead, else
    ``count``."""
    stamps[0] += 1
    stamp = stamps[0]
    start = count
    seen[q] = stamp
    out[count] = q
    count += 1
    i = start
    while i < count:
        v = out[i]
        i += 1
        for d in range(4):
            w = nb[v, d]
            if w < 0:
                continue
            b = board[w]
            if b == EMPTY:
                if is_external(rmask[label[w]], d, perpendicular):
                    return start
            elif b == colour and seen[w] != stamp:
                if seen[w] >= first:
                    return start
                seen[w] = stamp
                out[count] = w
                count += 1
    return count


@njit(cache=True)
def dead_neighbours(board, nb, p, colour, perpendicular, label, rmask, seen, stamps, out):
    """Stones of the ``colour`` chains beside ``p`` left with no external liberty, written to
    ``out``; returns their number. (A dead chain is flooded whole, so a stone stamped by an
    earlier flood of this call belongs to a living chain.)"""
    first = stamps[0] + 1
    count = 0
    for k in range(4):
        q = nb[p, k]
        if q >= 0 and board[q] == colour and seen[q] < first:
            count = flood_dead(board, nb, q, colour, perpendicular, label, rmask, seen, stamps,
                               first, out, count)
    return count


@njit(cache=True)
def split_free(board, nb, sides, p, colour):
    """Whether a ``colour`` stone at ``p`` leaves ``p``'s open region one region with the same
    sides, as far as the eight points round ``p`` show: the open orthogonal neighbours are
    linked through open diagonal points into one run, and each side ``p`` touches is touched by
    one of them too. (``False`` may be wrong; ``True`` never is.)"""
    ring = (0, 3, 1, 2)  # N, E, S, W: round the point
    runs = 0
    covered = 0
    linked_all = True
    for i in range(4):
        a = nb[p, ring[i]]
        b = nb[p, ring[(i + 1) % 4]]
        a_open = a >= 0 and board[a] != colour
        b_open = b >= 0 and board[b] != colour
        link = False
        if a_open and b_open:
            d = nb[a, ring[(i + 1) % 4]]  # the diagonal point between a and b
            link = d >= 0 and board[d] != colour
        if not link:
            linked_all = False
        if a_open:
            covered |= sides[a]
            prev = nb[p, ring[(i + 3) % 4]]
            prev_open = prev >= 0 and board[prev] != colour
            if not prev_open:
                runs += 1
            else:
                dp = nb[prev, ring[i]]  # the diagonal point between prev and a
                if not (dp >= 0 and board[dp] != colour):
                    runs += 1
    if linked_all:
        runs = 1
    return runs == 1 and (sides[p] & ~covered) == 0


@njit(cache=True)
def play_kept(board, nb, sides, zob, player, point, perpendicular, win_after, labels, rmasks,
              valid, stack, alive, seen, stamps, out):
    """``play_bridge`` (same board, same results) using and refreshing the kept labels:
    ``labels``/``rmasks`` hold one row per colour (index 1 and 2), ``valid[c]`` whether row c
    describes c's stones now; ``stamps[0]`` is the last stamp used in ``seen``.
    Returns (captured, self_captured, won, zobrist change of the board)."""
    opp = 3 - player
    # The mover's open region at ``point`` touches no two opposite sides: none of its points is
    # an external liberty of the mover, before or after the stone splits it, so the mover's
    # other liberties and labels stand and only a lone new stone can die (step 4 below).
    # Or the stone does not split its region (nor take a side from it): every external liberty
    # stays one, and only the chain the stone joins can have lost its last (step 4 below).
    closed = unsplit = False
    if valid[player]:
        m = rmasks[player, labels[player, point]]
        closed = (m & NS) != NS and (m & WE) != WE
        unsplit = not closed and split_free(board, nb, sides, point, player)
    board[point] = player
    delta = zob[point, player]
    if valid[opp]:
        captured = dead_neighbours(board, nb, point, opp, perpendicular, labels[opp],
                                   rmasks[opp], seen, stamps, out)
    else:  # the opponent's stones are as labelled here, before the removal
        captured = chains_without_external(board, nb, sides, opp, perpendicular, labels[opp],
                                           rmasks[opp], stack, alive, out)
        valid[opp] = 1
    for t in range(captured):
        board[out[t]] = EMPTY
        delta ^= zob[out[t], opp]
    if captured:
        valid[opp] = 0
    valid[player] = 0
    if not win_after:
        stamps[0] += 1
        if chain_bridges(board, nb, sides, point, stack, seen, stamps[0]):
            return captured, 0, True, delta
    if closed:
        own = 1
        for k in range(4):
            if nb[point, k] >= 0 and board[nb[point, k]] == player:
                own = 0  # joins chains that have external liberties outside the region
        out[0] = point
    elif unsplit:
        own = flood_dead(board, nb, point, player, perpendicular, labels[player],
                         rmasks[player], seen, stamps, stamps[0] + 1, out, 0)
    else:
        own = chains_without_external(board, nb, sides, player, perpendicular, labels[player],
                                      rmasks[player], stack, alive, out)
    for t in range(own):
        board[out[t]] = EMPTY
        delta ^= zob[out[t], player]
    valid[player] = 1 if own == 0 or closed else 0  # a lone stone gone leaves them as they were
    won = False
    if win_after and board[point] == player:
        stamps[0] += 1
        won = chain_bridges(board, nb, sides, point, stack, seen, stamps[0])
    return captured, own, won, delta


@njit(cache=True)
def legal_points(board, nb, sides, zob, empty_key, player, perpendicular, win_after, superko,
                 history, out):
    """Write the legal points of ``player`` (sorted) to ``out``, at most as many as it holds
    (a one-element ``out`` asks only whether there is one); returns their number.
    ``history`` is a ``build_table`` set of the earlier positions' hashes (superko). Each
    empty point is tried with ``play_kept`` on a copy; both colours' labels are made once, and
    trusted only for a colour whose chains all have an external liberty here (any position a
    game reaches; a hand-set one need not)."""
    n = board.shape[0]
    count = 0
    if not superko:
        for p in range(n):
            if board[p] == EMPTY and count < out.shape[0]:
                out[count] = p
                count += 1
        return count
    work = np.empty_like(board)
    labels = np.empty((3, n), np.int32)
    rmasks = np.empty((3, n), np.int8)
    valid = np.zeros(3, np.int8)
    stack = np.empty(n, np.int32)
    alive = np.empty(n, np.int8)
    seen = np.zeros(n, np.int64)
    stamps = np.zeros(1, np.int64)
    removed = np.empty(n, np.int32)
    for c in range(1, 3):
        valid[c] = chains_without_external(board, nb, sides, c, perpendicular, labels[c],
                                           rmasks[c], stack, alive, removed) == 0
    mine_label = labels[player].copy()
    mine_mask = rmasks[player].copy()
    mine_valid = valid[player]
    theirs_valid = valid[3 - player]
    h_board = position_hash(board, zob, empty_key)
    for p in range(n):
        if board[p] != EMPTY:
            continue
        work[:] = board
        _, _, won, delta = play_kept(work, nb, sides, zob, player, p, perpendicular, win_after,
                                     labels, rmasks, valid, stack, alive, seen, stamps, removed)
        # undo the trial's effect on the kept labels (a full judgement rewrites the mover's)
        valid[3 - player] = theirs_valid
        if mine_valid:
            labels[player, :] = mine_label
            rmasks[player, :] = mine_mask
        valid[player] = mine_valid
        if not won and table_has(history, h_board ^ delta):
            continue
        out[count] = p
        count += 1
        if count == out.shape[0]:
            break
    return count
