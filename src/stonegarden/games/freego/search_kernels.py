"""Numba search kernel for Free Go: the generic tree's search (RAVE, MCTS-solver, last good
replies, move priors) over preallocated arrays, so a simulation costs the playout and little
more. ``search/freego_engine.py`` drives it; the generic tree (``search/generic.py``) stays
the reference it is tested against and serves what this does not (superko, ``tt``,
``contempt``).

Pools as in ``search/tree_kernels.py``; an edge's ``ed_move`` is a point, ``ed_w`` and
``ed_rw`` sum rewards for the node's mover (win 1, draw 1/2). A simulation replays the tree's
moves from the root's board with ``play_point``, so nodes hold no boards. Simple ko bans the
hash before the opponent's last move; without ko nothing is banned.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from ...geometry.hashset import build_table, new_stamped_set
from ...search.replies import lgr_update
from ...search.tree_kernels import code_value, new_node, prove, select
from .kernels import legal_points, play_point
from .playouts import KO_SIMPLE, freego_playout
from .priors import PRIOR_OF_KIND, move_kinds


@njit(cache=True)
def expand(node, board, nb, zob, side_key, player, h, prev_h, ko, prior, nd_first, nd_count,
           ed_move, ed_child, ed_n, ed_w, ed_rn, ed_rw, counters, points, kinds):
    """Allocate the edges of ``node``: its legal points in a random order (so that equal
    scores, which ``select`` gives to the first from a random offset, fall at random), each
    with ``prior`` virtual RAVE samples of its prior value; False if the pool is full. A node
    without legal points gets no edges."""
    if ko == KO_SIMPLE and prev_h != 0:
        banned = build_table(np.array([prev_h]))
    else:
        banned = np.zeros(2, np.int64)
    count = legal_points(board, nb, zob, side_key, player, h, banned, points)
    start = counters[1]
    if start + count > ed_move.shape[0]:
        return False
    for i in range(count - 1, 0, -1):  # Fisher-Yates on numba's generator
        j = np.random.randint(i + 1)
        t = points[i]
        points[i] = points[j]
        points[j] = t
    if prior > 0:
        move_kinds(board, nb, zob, player, points[:count], kinds)
    for k in range(count):
        e = start + k
        ed_move[e] = points[k]
        ed_child[e] = -1
        ed_n[e] = 0
        ed_w[e] = 0.0
        ed_rn[e] = 0
        ed_rw[e] = 0.0
        if prior > 0:
            ed_rn[e] = prior
            ed_rw[e] = prior * PRIOR_OF_KIND[kinds[k]]
    counters[1] = start + count
    nd_first[node] = start
    nd_count[node] = count
    return True


@njit(cache=True)
def run_sims(nsims, root, root_board, root_scores, root_h, root_prev_h, target, ko, max_turns,
             nb, zob, side_key, nd_player, nd_stage, nd_a, nd_first, nd_count, nd_n, nd_proven,
             ed_move, ed_child, ed_n, ed_w, ed_rn, ed_rw, counters,
             c, rave, rave_k, solver, captures, safe, prior, seen, replies):
    """Run up to ``nsims`` simulations from ``root``; returns how many ran (fewer once the
    solver proves the root a win for its mover; a proven loss or draw is searched on).
    ``seen[p, point] == stamp``: player p played the point later in this simulation (RAVE);
    ``replies``: the last-good-reply table (empty: off)."""
    n = nb.shape[0]
    board = np.empty(n, np.int8)
    scores = np.empty(2, np.int64)
    removed = np.empty(n, np.int32)
    points = np.empty(n, np.int64)
    kinds = np.empty(n, np.int8)
    path_nodes = np.empty(max_turns + 2, np.int64)
    path_edges = np.empty(max_turns + 2, np.int64)
    tree_moves = np.empty(max_turns + 2, np.int32)
    playout_moves = np.empty(max_turns + 2, np.int32)
    keys, stamps = new_stamped_set(max_turns + 2)
    no_history = np.empty(0, np.int64)
    lgr = replies.shape[0] > 0
    done = 0
    for _ in range(nsims):
        if solver and nd_proven[root] == nd_player[root]:
            break
        done += 1
        counters[2] += 1
        stamp = counters[2]
        board[:] = root_board
        scores[0] = root_scores[0]
        scores[1] = root_scores[1]
        h = root_h
        prev_h = root_prev_h
        node = root
        player = nd_player[root]
        depth = 0
        code = 0
        while True:
            # stop at a known result: a terminal node, or (solving) a proven one below the root
            if nd_proven[node] != 0 and (nd_first[node] < 0 or (solver and node != root)):
                code = nd_proven[node]
                break
            # a leaf on its first visit gets a playout; on its second it gets its edges
            if nd_first[node] < 0:
                if node != root and nd_n[node] == 0:
                    break
                if not expand(node, board, nb, zob, side_key, player, h, prev_h, ko, prior,
                              nd_first, nd_count, ed_move, ed_child, ed_n, ed_w, ed_rn, ed_rw,
                              counters, points, kinds):
                    break
                if nd_count[node] == 0:  # no legal move: the higher score wins
                    code = 1 if scores[0] > scores[1] else 2 if scores[1] > scores[0] else 3
                    nd_proven[node] = code
                    break
            e = select(node, nd_player, nd_first, nd_count, nd_n, nd_proven, ed_move, ed_child,
                       ed_n, ed_w, ed_rn, ed_rw, c, rave, rave_k, solver, node)
            path_nodes[depth] = node
            path_edges[depth] = e
            mv = ed_move[e]
            tree_moves[depth] = mv
            depth += 1
            count, h2 = play_point(board, nb, zob, side_key, player, mv, h, removed)
            scores[player - 1] += count
            prev_h = h
            h = h2
            if scores[player - 1] >= target:
                code = player
            player = 3 - player
            child = ed_child[e]
            if child < 0:
                child = new_node(nd_player, nd_stage, nd_a, nd_first, nd_count, nd_n,
                                 nd_proven, counters, player, 0, -1, code)
                if child < 0:  # the node pool is full: evaluate from here
                    node = -1
                    break
                ed_child[e] = child
            node = child
            if code != 0:
                break
        # evaluate the leaf: a known result, or a playout
        if code != 0:
            r1 = code_value(code)
        else:
            last = tree_moves[depth - 1] if depth > 0 else -1
            w, turns = freego_playout(board, nb, zob, side_key, player, scores, target, ko, h,
                                      prev_h, no_history, keys, stamps, 1, max_turns, captures,
                                      safe, playout_moves, replies, last)
            r1 = 1.0 if w == 1 else 0.0 if w == 2 else 0.5
            m = min(turns, playout_moves.shape[0])
            if rave:
                p = player
                for t in range(m):
                    seen[p, playout_moves[t]] = stamp
                    p = 3 - p
            if lgr:
                lgr_update(replies, tree_moves[:depth], playout_moves[:m], nd_player[root],
                           w)
        if node >= 0:
            nd_n[node] += 1
        proving = solver and node >= 0 and nd_proven[node] != 0
        for d in range(depth - 1, -1, -1):
            nd = path_nodes[d]
            e = path_edges[d]
            p = nd_player[nd]
            r = r1 if p == 1 else 1.0 - r1
            ed_n[e] += 1
            ed_w[e] += r
            nd_n[nd] += 1
            if rave:
                seen[p, ed_move[e]] = stamp
                first = nd_first[nd]
                for f in range(first, first + nd_count[nd]):
                    if seen[p, ed_move[f]] == stamp:
                        ed_rn[f] += 1
                        ed_rw[f] += r
            if proving:
                proving = prove(nd, e, nd_player, nd_first, nd_count, nd_proven, ed_child)
    return done
