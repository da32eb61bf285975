"""The search tree's steps as numba kernels over the pools (``pools.py``): node allocation,
expansion, selection, backup with RAVE and the MCTS-solver, and copying a kept subtree into
fresh pools. Both ways of running simulations use them (``simulate.py``: a game's compiled
kernels; ``protocol_tree.py``: the game protocol), so the search has one tree, one reward
convention (each edge sums its node's player's rewards), one proof encoding (``pools.py``),
one tie-break (selection scans from a random offset) and one backup."""

from __future__ import annotations

import math

import numpy as np
from numba import njit

from .ucb import rave_score

#: an edge's move meaning "no stone" (games whose turns take several tree levels); such an
#: edge has no AMAF key
NO_MOVE = -1


@njit(cache=True)
def code_value(code, draw):
    """Player 1's reward of a proof code (``draw``: a draw's, 1/2 but for contempt)."""
    if code == 1:
        return 1.0
    if code == 2:
        return 0.0
    return draw


@njit(cache=True)
def root_won(root, nd_proven, nd_player):
    """Whether the solver proved the root won for its player, which ends a search. A chance
    root's player is 0, as is "unproven": it is never won so (the protocol tree's Tumbling
    Dice; a compiled tree has no chance nodes, and asks the same)."""
    proven = nd_proven[root]
    return proven != 0 and proven == nd_player[root]


@njit(cache=True)
def new_node(nd_player, nd_stage, nd_first, nd_count, nd_n, nd_proven, counters, player, stage,
             proven):
    """Allocate a leaf for ``player`` at ``stage`` with proof code ``proven``; -1 if the pool
    (the range ``counters`` allocates from) is full."""
    i = counters[0]
    if i >= counters[3]:
        return -1
    counters[0] += 1
    nd_player[i] = player
    nd_stage[i] = stage
    nd_first[i] = -1
    nd_count[i] = 0
    nd_n[i] = 0
    nd_proven[i] = proven
    return i


@njit(cache=True)
def expand(node, moves, priors, count, prior, nd_first, nd_count, ed_move, ed_child, ed_n, ed_w,
           ed_rn, ed_rw, counters, bias=False):
    """Give ``node`` one edge per move of ``moves[:count]``, in that order; with ``prior`` > 0
    a move whose ``priors`` value (for the node's player, in [0, 1]) is not negative starts
    with ``prior`` virtual samples of it: RAVE samples, or visits where the search runs
    without RAVE (``select``); with ``bias`` (only without RAVE) it keeps no samples and
    ``prior`` times the value as a progressive bias instead. False if the edge pool (the
    range ``counters`` allocates from) is full. The edges are written before the node points at them, and its
    count before its first edge, so that another thread searching the same tree sees the node
    either unexpanded or whole; a node another thread has expanded meanwhile keeps that
    thread's edges (two threads can still both publish within the same few instructions: one
    set then wins)."""
    start = counters[1]
    if start + count > counters[4]:
        return False
    for k in range(count):
        e = start + k
        ed_move[e] = moves[k]
        ed_child[e] = -1
        ed_n[e] = 0
        ed_w[e] = 0.0
        ed_rn[e] = 0
        ed_rw[e] = 0.0
        if prior > 0 and priors[k] >= 0.0:
            ed_rn[e] = 0 if bias else prior
            ed_rw[e] = prior * priors[k]
    if nd_first[node] >= 0:
        # another thread expanded the node while these edges were written (writing into
        # fresh pages of the pools can take milliseconds): keep its edges, whose statistics
        # and proofs others may already have read, and give these slots back
        return True
    counters[1] = start + count
    nd_count[node] = count
    nd_first[node] = start
    return True


@njit(cache=True)
def find_edge(node, move, nd_first, nd_count, ed_move):
    """The edge of ``node`` playing ``move``, or -1. Edges are in increasing order of move,
    ``NO_MOVE`` last (every game lists its moves so), so this is a binary search."""
    lo = nd_first[node]
    hi = lo + nd_count[node]
    if hi > lo and ed_move[hi - 1] == NO_MOVE:
        hi -= 1
    while lo < hi:
        mid = (lo + hi) // 2
        if ed_move[mid] < move:
            lo = mid + 1
        else:
            hi = mid
    if lo < nd_first[node] + nd_count[node] and ed_move[lo] == move:
        return lo
    return -1


@njit(cache=True)
def grave_node(node, depth, path_nodes, nd_player, nd_stage, nd_n, grave):
    """GRAVE: the node whose RAVE statistics stand in for ``node``'s: itself with ``grave``
    visits or more (or with GRAVE off), else its nearest ancestor on the path of the same
    player and stage with that many."""
    if grave <= 0 or nd_n[node] >= grave:
        return node
    for d in range(depth - 1, -1, -1):
        a = path_nodes[d]
        if nd_player[a] == nd_player[node] and nd_stage[a] == nd_stage[node] and nd_n[a] >= grave:
            return a
    return node


@njit(cache=True)
def select(node, nd_player, nd_first, nd_count, nd_n, nd_proven, ed_move, ed_child, ed_n, ed_w,
           ed_rn, ed_rw, c, rave, rave_k, solver, ref):
    """The edge UCB (blended with RAVE) prefers, scanning from a random offset so that equal
    scores fall at random; a proven win at once, proven losses never (unless nothing else is
    left: then the plain UCB choice, so a lost position is still searched for the line that
    makes the opponent's win hardest). ``ref``: the node lending its RAVE statistics
    (``grave_node``)."""
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
                    if re < 0 or ed_move[e] == NO_MOVE:
                        re = e
                rn = ed_rn[re]
                q = ed_w[e] / n if n > 0 else 0.0
                rq = ed_rw[re] / rn if rn > 0 else 0.0
                v = rave_score(q, rq, n, rn, c, log_n, rave_k)
            else:
                # without RAVE (only a game without RAVE gives priors here: ``ProtocolTree``)
                # a prior's virtual samples count as visits of the move itself; as a bias
                # (``expand``: samples 0, ``ed_rw`` the bias) it adds to the score and fades
                # as the move's own visits grow, and orders the untried moves
                rn = ed_rn[e]
                if rn > 0:
                    nv = n + rn
                    v = (ed_w[e] + ed_rw[e]) / nv + c * math.sqrt(log_n / nv)
                elif n == 0:
                    v = 1e9 + ed_rw[e]
                else:
                    v = ed_w[e] / n + c * math.sqrt(log_n / n) + ed_rw[e] / (n + 1.0)
            if v > best_v:
                best_v = v
                best = e
        if best >= 0:
            return best
    return first


#: why ``descend`` stopped: a known result, a leaf to play out, a node to expand, a chance
#: node (its caller picks the outcome), an edge without a child yet, the path arrays full
STOP_PROVEN, STOP_LEAF, STOP_EXPAND, STOP_CHANCE, STOP_NEW, STOP_FULL = 0, 1, 2, 3, 4, 5


@njit(cache=True)
def descend(root, node, depth, path_nodes, path_edges, nd_player, nd_stage, nd_first, nd_count,
            nd_n, nd_proven, ed_move, ed_child, ed_n, ed_w, ed_rn, ed_rw, c, rave, rave_k,
            solver, grave):
    """Walk down the tree from ``node`` (``depth`` edges below the root, the path so far in
    ``path_nodes``/``path_edges``) choosing edges with ``select`` until the walk needs its
    caller; returns (node, depth, why: a ``STOP_*`` code). At ``STOP_NEW`` the edge just taken
    (``path_edges[depth - 1]``) has no child yet."""
    while True:
        if nd_proven[node] != 0 and (nd_first[node] < 0 or (solver and node != root)):
            return node, depth, STOP_PROVEN
        if nd_first[node] < 0:
            if node != root and nd_n[node] == 0:
                return node, depth, STOP_LEAF
            return node, depth, STOP_EXPAND
        if nd_player[node] == 0:
            return node, depth, STOP_CHANCE
        if depth >= path_nodes.shape[0]:
            return node, depth, STOP_FULL
        ref = grave_node(node, depth, path_nodes, nd_player, nd_stage, nd_n, grave)
        e = select(node, nd_player, nd_first, nd_count, nd_n, nd_proven, ed_move, ed_child,
                   ed_n, ed_w, ed_rn, ed_rw, c, rave, rave_k, solver, ref)
        path_nodes[depth] = node
        path_edges[depth] = e
        depth += 1
        child = ed_child[e]
        if child < 0:
            return node, depth, STOP_NEW
        node = child


@njit(cache=True)
def prove(node, e, nd_player, nd_first, nd_count, nd_proven, ed_child):
    """MCTS-solver step after backing up through edge ``e``: a proven win of the mover's is a
    win of the node; the node is proven lost (or drawn) once every edge is proven; a chance
    node is proven once every outcome is proven with one result. Whether ``node`` is proven
    now (so the update goes on upward). An edge that is not among the node's edges (a set
    built by a thread that lost the race to expand the node, in a shared tree) proves nothing:
    the node's own edges would not show the win."""
    child = ed_child[e]
    pr = nd_proven[child]
    if pr == 0:
        return False
    p = nd_player[node]
    first = nd_first[node]
    if e < first or e >= first + nd_count[node]:
        return False
    if p == 0:
        for f in range(first, first + nd_count[node]):
            ch = ed_child[f]
            if ch < 0 or nd_proven[ch] != pr:
                return False
        nd_proven[node] = pr
        return True
    if pr == p:
        nd_proven[node] = p
        return True
    draw = False
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
def backup(path_nodes, path_edges, depth, leaf, r1, nd_player, nd_stage, nd_first, nd_count,
           nd_n, nd_proven, ed_move, ed_child, ed_n, ed_w, ed_rn, ed_rw, rave, rave_stages,
           stride, seen, stamp, solver):
    """Back player 1's reward ``r1`` up the path (``leaf``: the node it ended at, -1 if none
    could be made): visits, each edge's reward for its node's player, and with ``rave`` the
    RAVE samples of every edge whose move its node's player played later in this simulation
    (``seen[player, stage * stride + move] == stamp``; this edge's own move is stamped here,
    the playout's by the game), at stages below ``rave_stages``; then the solver's proofs."""
    if leaf >= 0:
        nd_n[leaf] += 1
    proving = solver and leaf >= 0 and nd_proven[leaf] != 0
    for d in range(depth - 1, -1, -1):
        nd = path_nodes[d]
        e = path_edges[d]
        p = nd_player[nd]
        st = nd_stage[nd]
        r = 1.0 - r1 if p == 2 else r1
        ed_n[e] += 1
        ed_w[e] += r
        nd_n[nd] += 1
        if rave and st < rave_stages and p != 0:
            base = st * stride
            mv = ed_move[e]
            if mv >= 0:
                seen[p, base + mv] = stamp
            first = nd_first[nd]
            for f in range(first, first + nd_count[nd]):
                m = ed_move[f]
                if m >= 0 and seen[p, base + m] == stamp:
                    ed_rn[f] += 1
                    ed_rw[f] += r
        if proving:
            proving = prove(nd, e, nd_player, nd_first, nd_count, nd_proven, ed_child)


@njit(cache=True)
def compact(root, nd_player, nd_stage, nd_first, nd_count, nd_n, nd_proven,
            ed_move, ed_child, ed_n, ed_w, ed_rn, ed_rw,
            np_player, np_stage, np_first, np_count, np_n, np_proven,
            ep_move, ep_child, ep_n, ep_w, ep_rn, ep_rw, counters, new_id):
    """Copy what is reachable from ``root`` into the new pools (``np_*``, ``ep_*``), root
    first; a node reached by several paths (transpositions) is copied once. ``new_id``
    (one slot per old node, at least ``counters[0]`` of them) gets each old node's new id, -1
    if dropped; ``counters`` the new node and edge counts."""
    used = counters[0]
    for i in range(used):
        new_id[i] = -1
    queue = np.empty(used, np.int64)  # old node ids in new order
    queue[0] = root
    new_id[root] = 0
    top = 1
    i = 0
    edges = 0
    while i < top:
        old = queue[i]
        np_player[i] = nd_player[old]
        np_stage[i] = nd_stage[old]
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
                if ch < 0:
                    ep_child[g] = -1
                    continue
                if new_id[ch] < 0:
                    new_id[ch] = top
                    queue[top] = ch
                    top += 1
                ep_child[g] = new_id[ch]
            edges += nd_count[old]
        i += 1
    counters[0] = top
    counters[1] = edges


@njit(cache=True)
def seed_numba(seed):
    """Seed numba's generator (separate from numpy's) for a reproducible search."""
    np.random.seed(seed)
