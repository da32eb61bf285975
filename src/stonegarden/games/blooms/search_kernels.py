"""Numba search kernels for the capture race (``blooms``): an array-based MCTS tree with split
moves, RAVE, MCTS-solver and capture-preferring playouts. ``search/blooms_engine.py`` drives it.

Tree layout (preallocated pools, zero-filled so untouched pages cost nothing):
nodes ``nd_*`` and edges ``ed_*``; a node's edges are ``nd_first .. nd_first + nd_count``
(``nd_first = -1`` until the node is expanded, on its second visit).
Node stages: 0 = choose the cell of the mover's first colour (or none), 1 = choose the cell of
the second colour (or none; never none after none), 2 = a whole turn (split moves off).
An edge's ``ed_move`` is a cell (-1 = none) at stages 0 and 1, ``(a+1)*(N+1) + (b+1)`` at stage 2.
``ed_W`` sums rewards for the node's mover (win 1, draw 1/2). ``nd_proven``: 0 unknown,
1 or 2 the proven winner, 3 a proven draw. ``counters``: nodes used, edges used, AMAF stamp.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from ...search.tree_kernels import NONE, code_value, compact, find_edge, new_node, prove, seed_numba, select  # noqa: F401 (shared kernels, also SK.* to the engine)
from .kernels import EMPTY, find_fenced, judge_bloom
from .playouts import take, uniform_turn


@njit(cache=True)
def over_code(board, scores, target, mover):
    """0 while the race goes on after ``mover``'s turn, else the result code."""
    if scores[mover - 1] >= target:
        return mover
    for i in range(board.shape[0]):
        if board[i] == EMPTY:
            return 0
    if scores[0] > scores[1]:
        return 1
    if scores[1] > scores[0]:
        return 2
    return 3


@njit(cache=True)
def resolve(board, nb, mover, full, stack, seen, clock, out):
    """Remove every fenced enemy bloom (judged at once on the whole board); returns count."""
    removed = find_fenced(board, nb, 3 - mover, full, full.shape[0], stack, seen, clock, out, 0)
    for t in range(removed):
        board[out[t]] = EMPTY
    return removed


@njit(cache=True)
def expand(node, board, first_turn, pend_a, nd_stage, nd_first, nd_count, ed_move, ed_child,
           ed_n, ed_w, ed_rn, ed_rw, counters):
    """Allocate the edges of ``node`` for the position on ``board``; False if the pool is full."""
    n = board.shape[0]
    ne = 0
    for i in range(n):
        if board[i] == EMPTY:
            ne += 1
    stage = nd_stage[node]
    if stage == 0:
        count = ne + 1
    elif stage == 1:
        if pend_a < 0:
            count = ne
        elif first_turn:
            count = 1
        else:
            count = ne + 1
    else:
        count = 2 * ne if first_turn else 2 * ne + ne * (ne - 1)
    start = counters[1]
    if start + count > ed_move.shape[0]:
        return False
    k = start
    if stage == 2:
        for a in range(n):
            if board[a] != EMPTY:
                continue
            ed_move[k] = (a + 1) * (n + 1)
            ed_move[k + 1] = a + 1
            k += 2
        if not first_turn:
            for a in range(n):
                if board[a] != EMPTY:
                    continue
                for b in range(n):
                    if b != a and board[b] == EMPTY:
                        ed_move[k] = (a + 1) * (n + 1) + b + 1
                        k += 1
    else:
        if not (stage == 1 and pend_a >= 0 and first_turn):
            for i in range(n):
                if board[i] == EMPTY:
                    ed_move[k] = i
                    k += 1
        if stage == 0 or pend_a >= 0:
            ed_move[k] = NONE
            k += 1
    for e in range(start, k):
        ed_child[e] = -1
        ed_n[e] = 0
        ed_w[e] = 0.0
        ed_rn[e] = 0
        ed_rw[e] = 0.0
    counters[1] = k
    nd_first[node] = start
    nd_count[node] = k - start
    return True


@njit(cache=True)
def fills_capture(board, nb, cell, mover, stack, seen, clock):
    """Whether a stone of ``mover`` on empty ``cell`` fences an adjacent enemy bloom."""
    board[cell] = 2 * mover - 1
    hit = False
    for k in range(6):
        w = nb[cell, k]
        if w < 0:
            continue
        col = board[w]
        if col != EMPTY and (col + 1) // 2 != mover:
            _, alive = judge_bloom(board, nb, w, stack, seen, clock, clock[0])
            if not alive:
                hit = True
                break
    board[cell] = EMPTY
    return hit


@njit(cache=True)
def playout(board, nb, player, first_turn, scores, target, max_turns, captures, full, empties,
            where, stack, seen, clock, out, amaf, stamp):
    """Random turns until the race ends; with ``captures`` > 0 each turn first tries that many
    random cells for a stone that fences an enemy bloom. Stones played are stamped in ``amaf``
    (player, colour, cell). Returns the winner (1, 2; 0 draw or unfinished)."""
    n = board.shape[0]
    ne = 0
    for i in range(n):
        where[i] = -1
        if board[i] == EMPTY:
            empties[ne] = i
            where[i] = ne
            ne += 1
    starts = np.empty(4, np.int32)
    prev = np.empty(2, np.int32)
    nprev = 0
    full_scan = True
    for _turn in range(max_turns):
        if ne == 0:
            if scores[0] > scores[1]:
                return 1
            if scores[1] > scores[0]:
                return 2
            return 0
        a = -1
        b = -1
        for _ in range(captures):
            cell = empties[np.random.randint(ne)]
            if fills_capture(board, nb, cell, player, stack, seen, clock):
                other = -1
                if not first_turn and ne > 1:
                    other = empties[np.random.randint(ne)]
                    while other == cell:
                        other = empties[np.random.randint(ne)]
                if np.random.randint(2) == 0:
                    a = cell
                    b = other
                else:
                    a = other
                    b = cell
                break
        if a < 0 and b < 0:
            a, b = uniform_turn(empties, ne, first_turn)
        ns = 0
        if a >= 0:
            board[a] = 2 * player - 1
            ne = take(a, empties, where, ne)
            starts[ns] = a
            ns += 1
            amaf[player - 1, 0, a] = stamp
        if b >= 0:
            board[b] = 2 * player
            ne = take(b, empties, where, ne)
            starts[ns] = b
            ns += 1
            amaf[player - 1, 1, b] = stamp
        for t in range(nprev):
            starts[ns] = prev[t]
            ns += 1
        if full_scan:
            removed = find_fenced(board, nb, 3 - player, full, n, stack, seen, clock, out, 0)
            full_scan = False
        else:
            removed = find_fenced(board, nb, 3 - player, starts, ns, stack, seen, clock, out, 0)
        for t in range(removed):
            cell = out[t]
            board[cell] = EMPTY
            empties[ne] = cell
            where[cell] = ne
            ne += 1
        scores[player - 1] += removed
        if scores[player - 1] >= target:
            return player
        nprev = 0
        if a >= 0:
            prev[nprev] = a
            nprev += 1
        if b >= 0:
            prev[nprev] = b
            nprev += 1
        player = 3 - player
        first_turn = False
    return 0


@njit(cache=True)
def run_sims(nsims, root, root_board, root_scores, root_first, target, max_turns, nb,
             nd_player, nd_stage, nd_a, nd_first, nd_count, nd_n, nd_proven,
             ed_move, ed_child, ed_n, ed_w, ed_rn, ed_rw, counters,
             c, rave, rave_k, solver, captures, amaf, grave_ref):
    """Run up to ``nsims`` simulations from ``root``; returns how many ran (fewer once the
    solver proves the root a win for its mover; a proven loss or draw is searched on)."""
    n = nb.shape[0]
    full = np.arange(n).astype(np.int32)
    board = np.empty(n, np.int8)
    scores = np.empty(2, np.int64)
    empties = np.empty(n, np.int32)
    where = np.empty(n, np.int32)
    stack = np.empty(n, np.int32)
    seen = np.zeros(n, np.int64)
    out = np.empty(n, np.int32)
    clock = np.zeros(1, np.int64)
    path_nodes = np.empty(2 * max_turns + 4, np.int64)
    path_edges = np.empty(2 * max_turns + 4, np.int64)
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
        node = root
        depth = 0
        first_turn = root_first
        player = nd_player[root]
        stage = nd_stage[root]
        pend_a = -1
        code = 0
        while True:
            # stop at a known result: a terminal node, or (solving) a proven one below the root
            if nd_proven[node] != 0 and (nd_first[node] < 0 or (solver and node != root)):
                code = nd_proven[node]
                break
            # a leaf on its first visit gets a playout; on its second it gets its edges
            if nd_first[node] < 0 and ((node != root and nd_n[node] == 0) or not expand(
                    node, board, first_turn, pend_a, nd_stage, nd_first, nd_count, ed_move,
                    ed_child, ed_n, ed_w, ed_rn, ed_rw, counters)):
                break
            ref = node
            if grave_ref > 0 and nd_n[node] < grave_ref:
                # GRAVE: the nearest ancestor of the same player and stage (4 levels per step)
                # with enough visits lends its RAVE statistics
                d = depth - 4
                while d >= 0:
                    if nd_n[path_nodes[d]] >= grave_ref:
                        ref = path_nodes[d]
                        break
                    d -= 4
            e = select(node, nd_player, nd_first, nd_count, nd_n, nd_proven, ed_move, ed_child,
                       ed_n, ed_w, ed_rn, ed_rw, c, rave, rave_k, solver, ref)
            path_nodes[depth] = node
            path_edges[depth] = e
            depth += 1
            mv = ed_move[e]
            turn_done = False
            if stage == 0:
                if mv >= 0:
                    board[mv] = 2 * player - 1
                pend_a = mv
            elif stage == 1:
                if mv >= 0:
                    board[mv] = 2 * player
                turn_done = True
            else:
                a = mv // (n + 1) - 1
                b = mv % (n + 1) - 1
                if a >= 0:
                    board[a] = 2 * player - 1
                if b >= 0:
                    board[b] = 2 * player
                turn_done = True
            if turn_done:
                scores[player - 1] += resolve(board, nb, player, full, stack, seen, clock, out)
                code = over_code(board, scores, target, player)
                player = 3 - player
                stage = 0 if stage == 1 else 2
                first_turn = False
            else:
                stage = 1
            child = ed_child[e]
            if child < 0:
                child = new_node(nd_player, nd_stage, nd_a, nd_first, nd_count, nd_n, nd_proven,
                                 counters, player, stage, pend_a if stage == 1 else -1, code)
                if child < 0:
                    node = -1
                    break
                ed_child[e] = child
                node = child
                break
            node = child
        # evaluate the leaf: a known result, or finish the turn in progress and play out
        if code != 0:
            r1 = code_value(code)
        else:
            if stage == 1:
                ne = 0
                for i in range(n):
                    if board[i] == EMPTY:
                        empties[ne] = i
                        ne += 1
                b = -1
                if pend_a < 0:
                    b = empties[np.random.randint(ne)]
                elif not first_turn:
                    k = np.random.randint(ne + 1)
                    if k < ne:
                        b = empties[k]
                if b >= 0:
                    board[b] = 2 * player
                    amaf[player - 1, 1, b] = stamp
                scores[player - 1] += resolve(board, nb, player, full, stack, seen, clock, out)
                code = over_code(board, scores, target, player)
                player = 3 - player
                first_turn = False
            if code != 0:
                r1 = code_value(code)
            else:
                w = playout(board, nb, player, first_turn, scores, target, max_turns, captures,
                            full, empties, where, stack, seen, clock, out, amaf, stamp)
                r1 = 1.0 if w == 1 else 0.0 if w == 2 else 0.5
        if node >= 0:
            nd_n[node] += 1
        proving = solver and node >= 0 and nd_proven[node] != 0
        for d in range(depth - 1, -1, -1):
            nd = path_nodes[d]
            e = path_edges[d]
            p = nd_player[nd]
            st = nd_stage[nd]
            r = r1 if p == 1 else 1.0 - r1
            ed_n[e] += 1
            ed_w[e] += r
            nd_n[nd] += 1
            if rave and st < 2:
                mv = ed_move[e]
                if mv >= 0:
                    amaf[p - 1, st, mv] = stamp
                first = nd_first[nd]
                for f in range(first, first + nd_count[nd]):
                    cell = ed_move[f]
                    if cell >= 0 and amaf[p - 1, st, cell] == stamp:
                        ed_rn[f] += 1
                        ed_rw[f] += r
            if proving:
                proving = prove(nd, e, nd_player, nd_first, nd_count, nd_proven, ed_child)
    return done
