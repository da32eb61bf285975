"""Kernels shared by the numba search trees (the Blooms race engine, the Free Go engine):
node allocation, the MCTS-solver step, copying a kept subtree into fresh pools, seeding.

Pools: nodes ``nd_*`` and edges ``ed_*``; a node's edges are ``nd_first .. nd_first +
nd_count`` (``nd_first = -1`` until expanded). ``nd_proven``: 0 unknown, 1 or 2 the proven
winner, 3 a proven draw. ``counters``: nodes used, edges used, AMAF stamp. ``nd_stage`` and
``nd_a`` are the Blooms engine's split-move state (0 in engines without split moves)."""

from __future__ import annotations

import math

import numpy as np
from numba import njit

from .ucb import rave_score

#: an edge's move for "no stone" (the Blooms engine's split moves); other engines never use it
NONE = -1


@njit(cache=True)
def code_value(code):
    """Player-1 reward of a proven result code."""
    if code == 1:
        return 1.0
    if code == 2:
        return 0.0
    return 0.5


@njit(cache=True)
def new_node(nd_player, nd_stage, nd_a, nd_first, nd_count, nd_n, nd_proven, counters,
             player, stage, a, proven):
    i = counters[0]
    if i >= nd_player.shape[0]:
        return -1
    counters[0] += 1
    nd_player[i] = player
    nd_stage[i] = stage
    nd_a[i] = a
    nd_first[i] = -1
    nd_count[i] = 0
    nd_n[i] = 0
    nd_proven[i] = proven
    return i


@njit(cache=True)
def prove(node, e, nd_player, nd_first, nd_count, nd_proven, ed_child):
    """MCTS-solver step after backing up through edge ``e``: a proven win of the mover's is a
    win of the node; the node is proven lost (or drawn) once every edge is proven."""
    child = ed_child[e]
    pr = nd_proven[child]
    if pr == 0:
        return False
    p = nd_player[node]
    if pr == p:
        nd_proven[node] = p
        return True
    draw = False
    first = nd_first[node]
    for f in range(first, first + nd_count[node]):
        ch = ed_child[f]
        if ch < 0 or nd_proven[ch] == 0:
            return False
        if nd_proven[ch] == p:
            nd_proven[node] = p
            return True
        if nd_proven[ch] == 3:
            draw = True
    nd_proven[node] = 3 if draw else 3 - p
    return True


@njit(cache=True)
def compact(root, nd_player, nd_stage, nd_a, nd_first, nd_count, nd_n, nd_proven,
            ed_move, ed_child, ed_n, ed_w, ed_rn, ed_rw,
            np_player, np_stage, np_a, np_first, np_count, np_n, np_proven,
            ep_move, ep_child, ep_n, ep_w, ep_rn, ep_rw, counters):
    """Copy the subtree under ``root`` into the new pools (``np_*``, ``ep_*``), root first;
    ``counters`` gets the new node and edge counts."""
    queue = np.empty(nd_player.shape[0], np.int64)  # old node ids in new order
    queue[0] = root
    top = 1
    i = 0
    edges = 0
    while i < top:
        old = queue[i]
        np_player[i] = nd_player[old]
        np_stage[i] = nd_stage[old]
        np_a[i] = nd_a[old]
        np_n[i] = nd_n[old]
        np_proven[i] = nd_proven[old]
        np_count[i] = nd_count[old]
        if nd_first[old] < 0:
            np_first[i] = -1
        else:
            np_first[i] = edges
            f0 = nd_first[old]
            for k in range(nd_count[old]):
                f = f0 + k
                g = edges + k
                ep_move[g] = ed_move[f]
                ep_n[g] = ed_n[f]
                ep_w[g] = ed_w[f]
                ep_rn[g] = ed_rn[f]
                ep_rw[g] = ed_rw[f]
                ch = ed_child[f]
                if ch >= 0:
                    queue[top] = ch
                    ep_child[g] = top
                    top += 1
                else:
                    ep_child[g] = -1
            edges += nd_count[old]
        i += 1
    counters[0] = top
    counters[1] = edges


@njit(cache=True)
def seed_numba(seed):
    """Seed numba's generator (separate from numpy's) for a reproducible search."""
    np.random.seed(seed)


@njit(cache=True)
def find_edge(node, cell, nd_first, nd_count, ed_move):
    """The edge of ``node`` placing on ``cell`` (for an engine whose edges are sorted by cell,
    none last: the Blooms engine's GRAVE), or -1."""
    lo = nd_first[node]
    hi = lo + nd_count[node]
    if hi > lo and ed_move[hi - 1] == NONE:
        hi -= 1
    while lo < hi:
        mid = (lo + hi) // 2
        if ed_move[mid] < cell:
            lo = mid + 1
        else:
            hi = mid
    if lo < nd_first[node] + nd_count[node] and ed_move[lo] == cell:
        return lo
    return -1


@njit(cache=True)
def select(node, nd_player, nd_first, nd_count, nd_n, nd_proven, ed_move, ed_child, ed_n, ed_w,
           ed_rn, ed_rw, c, rave, rave_k, solver, ref):
    """The edge UCB (blended with RAVE) prefers; a proven win at once, proven losses never
    (unless nothing else is left: then the plain UCB choice, so a lost position is still
    searched for the line that makes the opponent's win hardest). GRAVE: ``ref`` is the node
    whose RAVE statistics stand in for this node's (an ancestor with enough visits; ``node``
    itself for plain RAVE)."""
    first = nd_first[node]
    count = nd_count[node]
    p = nd_player[node]
    log_n = math.log(nd_n[node] + 1.0)
    off = np.random.randint(count)
    best = first
    for attempt in range(2):
        use_solver = solver and attempt == 0
        best = -1
        best_v = -1e300
        for j in range(count):
            e = first + off + j  # from the random offset, wrapping round (no modulo)
            if e >= first + count:
                e -= count
            child = ed_child[e]
            if use_solver and child >= 0 and nd_proven[child] != 0:
                pr = nd_proven[child]
                if pr == p:
                    return e
                if pr != 3:
                    continue
            n = ed_n[e]
            if rave:
                re = e
                if ref != node:
                    re = find_edge(ref, ed_move[e], nd_first, nd_count, ed_move)
                    if re < 0 or ed_move[e] == NONE:
                        re = e
                rn = ed_rn[re]
                q = ed_w[e] / n if n > 0 else 0.0
                rq = ed_rw[re] / rn if rn > 0 else 0.0
                v = rave_score(q, rq, n, rn, c, log_n, rave_k)
            elif n == 0:
                v = 1e9
            else:
                v = ed_w[e] / n + c * math.sqrt(log_n / n)
            if v > best_v:
                best_v = v
                best = e
        if best >= 0:
            return best
    return first
