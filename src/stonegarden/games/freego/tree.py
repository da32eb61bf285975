"""Free Go's kernels for the search's compiled tree (``search/simulate.py``): a tree move is a
point, replayed with the rules' ``play_point``; a node's moves are the rules' ``legal_points``
(simple ko bans the position before the opponent's last move), with the move priors of
``priors.py``; leaves are played out by ``playouts.freego_playout``.

``info``: the two scores, the position's hash and the one before it. ``consts``: (neighbours,
Zobrist keys, side-to-move key, target, ko rule, turn limit, ``captures``, ``safe``, the
3x3 ring of each point, each point's distance to the edge, the learned model's pattern and
tactics tables and its scale: ``model.py``; empty tables without a model, and then the
hand-made priors of ``priors.py``; the playouts' ``patterns``, 0 without a model). Positions
under superko are left to the protocol tree (its history does not fit ``info``).
"""

from __future__ import annotations

import numpy as np
from numba import njit

from ...geometry.hashset import build_table, new_stamped_set
from ...search.simulate import specialise
from .kernels import legal_points, play_point
from .model import feature_scratch, point_priors
from .playouts import KO_SIMPLE, freego_playout
from .priors import PRIOR_OF_KIND, move_kinds


@njit(cache=True)
def freego_scratch(consts):
    nb = consts[0]
    n = nb.shape[0]
    keys, stamps = new_stamped_set(consts[5] + 2)
    return (np.empty(n, np.int64), np.empty(n, np.int8), np.empty(n, np.int32), keys, stamps,
            np.empty(0, np.int64), feature_scratch(n))


@njit(cache=True)
def freego_begin(board, info, consts, scratch):
    pass


@njit(cache=True)
def freego_moves(board, info, player, stage, consts, scratch, moves, priors, want_priors):
    nb, zob, side_key = consts[0], consts[1], consts[2]
    points, kinds = scratch[0], scratch[1]
    prev_h = info[3]
    if consts[4] == KO_SIMPLE and prev_h != 0:
        banned = build_table(np.array([prev_h]))
    else:
        banned = np.zeros(2, np.int64)
    count = legal_points(board, nb, zob, side_key, player, info[2], banned, points)
    model = want_priors and consts[10].shape[0] > 0
    if model:
        point_priors(board, nb, consts[8], consts[9], player, points, count, consts[10],
                     consts[11], consts[12], scratch[6], priors)
    elif want_priors:
        move_kinds(board, nb, zob, player, points[:count], kinds)
    for k in range(count):
        moves[k] = points[k]
        if not model:
            priors[k] = PRIOR_OF_KIND[kinds[k]] if want_priors else -1.0
    return count


@njit(cache=True)
def freego_stuck(board, info, player, consts):
    """No legal move: the higher score wins."""
    return 1 if info[0] > info[1] else 2 if info[1] > info[0] else 3


@njit(cache=True)
def freego_play(board, info, player, stage, move, consts, scratch):
    count, h2 = play_point(board, consts[0], consts[1], consts[2], player, move, info[2],
                           scratch[2])
    info[player - 1] += count
    info[3] = info[2]
    info[2] = h2
    return (player if info[player - 1] >= consts[3] else 0), 3 - player, 0


@njit(cache=True)
def freego_leaf(board, info, player, stage, consts, scratch, seen, stamp, replies, last,
                moves_out):
    w, turns = freego_playout(board, consts[0], consts[1], consts[2], player, info[:2],
                              consts[3], consts[4], info[2], info[3], scratch[5], scratch[3],
                              scratch[4], 1, consts[5], consts[6], consts[7], moves_out, replies,
                              last, consts[8], consts[10], consts[13])
    m = min(turns, moves_out.shape[0])
    p = player
    for t in range(m):
        seen[p, moves_out[t]] = stamp
        p = 3 - p
    return w, m


RUN_FREEGO = specialise("run_freego_sims", freego_scratch, freego_begin, freego_moves,
                        freego_stuck, freego_play, freego_leaf)
