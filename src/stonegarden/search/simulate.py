"""The search's simulation loop for games with compiled tree kernels, written once.

``run_sims`` below is plain Python calling six kernels by name, which a game provides (see
``games/blooms/tree.py``, ``games/blooms/territory_tree.py`` or ``games/freego/tree.py``):

    tree_scratch(consts) -> scratch
    tree_begin(board, info, consts, scratch)   (a simulation starts from the root's position)
    tree_moves(board, info, player, stage, consts, scratch, moves, priors, want_priors) -> count
    tree_stuck(board, info, player, consts) -> proof code
    tree_play(board, info, player, stage, move, consts, scratch) -> (code, player, stage)
    tree_leaf(board, info, player, stage, consts, scratch, seen, stamp, replies, last,
              moves_out) -> (winner, moves played)

``specialise`` makes a game's compiled copy of it that calls that game's kernels. Numba cannot
cache a kernel that takes kernels as arguments or closes over them (each compiled function is
a type of its own, known only to the process that made it), and without the cache every
process would compile the search for seconds; a copy per game is an ordinary cached kernel.
The copy runs unchanged as plain Python with ``NUMBA_DISABLE_JIT=1``.

A position during a simulation is ``board`` (int8, one entry per cell or point) and ``info``
(int64, the game's other fields: scores, hashes, the stage of a turn in progress); ``consts``
is a tuple of what never changes during a search (neighbour tables, target, policy options).
"""

from __future__ import annotations

import types
from collections.abc import Callable
from typing import Any

import numpy as np
from numba import njit

from .replies import lgr_update
from .tree_kernels import backup, code_value, expand, grave_node, new_node, root_won, select

# names the template calls; ``specialise`` binds them to a game's kernels
tree_scratch: Any = None
tree_begin: Any = None
tree_moves: Any = None
tree_stuck: Any = None
tree_play: Any = None
tree_leaf: Any = None


def run_sims(nsims, root, root_board, root_info, consts, max_moves, max_depth,
             nd_player, nd_stage, nd_first, nd_count, nd_n, nd_proven,
             ed_move, ed_child, ed_n, ed_w, ed_rn, ed_rw, counters,
             c, rave, rave_k, rave_stages, stride, grave, solver, prior, draw, seen, replies,
             vloss):
    """Run up to ``nsims`` simulations from ``root`` (whose position is ``root_board`` and
    ``root_info``); returns how many ran (fewer once the solver proves the root a win for its
    player; a proven loss or draw is searched on, without the proofs from the simulation
    after its proof). ``seen``: the AMAF stamps, (3, keys);
    ``replies``: the last-good-reply table (empty: off); ``draw``: player 1's reward of a draw.

    ``vloss``: the virtual loss of a tree that several threads search at once
    (``shared_tree.py``; 0 for a tree of one thread): each edge on the way down counts
    ``vloss`` more visits without reward until the simulation's result is backed up, so that
    the other threads turn to other moves. A node another thread is expanding this instant
    may show no edges yet: it is then evaluated as a leaf.
    """
    scratch = tree_scratch(consts)
    board = np.empty_like(root_board)
    info = np.empty_like(root_info)
    moves = np.empty(max_moves, np.int32)
    priors = np.empty(max_moves, np.float64)
    path_nodes = np.empty(max_depth, np.int64)
    path_edges = np.empty(max_depth, np.int64)
    tree_moves_played = np.empty(max_depth, np.int32)
    playout_moves = np.empty(max_depth, np.int32)
    lgr = replies.shape[0] > 0
    done = 0
    for _ in range(nsims):
        if solver and root_won(root, nd_proven, nd_player):
            break
        if solver and nd_proven[root] != 0:
            # the root proven lost or drawn: searched on without the proofs from this very
            # simulation, wherever a chunk of simulations begins (``TreeSearch._solving``)
            solver = False
        done += 1
        counters[2] += 1
        stamp = counters[2]
        board[:] = root_board
        info[:] = root_info
        tree_begin(board, info, consts, scratch)
        node = root
        player = nd_player[root]
        stage = nd_stage[root]
        depth = 0
        code = 0
        while True:
            # stop at a known result: a terminal node, or (solving) a proven one below the root
            if nd_proven[node] != 0 and (nd_first[node] < 0 or (solver and node != root)):
                code = nd_proven[node]
                break
            # a leaf on its first visit gets a playout; on its second it gets its edges. The
            # root's turns are decided whole: a node in the middle of the root's turn (at a
            # stage other than the root's: the Blooms split tree's second stone) gets its
            # edges at once, so that the root's whole turns hold every simulation's visit
            if nd_first[node] < 0:
                if node != root and nd_n[node] == 0 and (depth > 1
                                                         or stage == nd_stage[root]):
                    break
                count = tree_moves(board, info, player, stage, consts, scratch, moves, priors,
                                   prior > 0)
                if count == 0:  # no move: the game says who won
                    code = tree_stuck(board, info, player, consts)
                    nd_proven[node] = code
                    break
                if not expand(node, moves, priors, count, prior, nd_first, nd_count, ed_move,
                              ed_child, ed_n, ed_w, ed_rn, ed_rw, counters):
                    break
            if nd_count[node] <= 0:  # published but not yet whole (another thread's)
                break
            ref = grave_node(node, depth, path_nodes, nd_player, nd_stage, nd_n, grave)
            e = select(node, nd_player, nd_first, nd_count, nd_n, nd_proven, ed_move, ed_child,
                       ed_n, ed_w, ed_rn, ed_rw, c, rave, rave_k, solver, ref)
            path_nodes[depth] = node
            path_edges[depth] = e
            tree_moves_played[depth] = ed_move[e]
            depth += 1
            if vloss > 0:
                ed_n[e] += vloss
                nd_n[node] += vloss
            code, player, stage = tree_play(board, info, player, stage, ed_move[e], consts,
                                            scratch)
            child = ed_child[e]
            if child < 0:
                child = new_node(nd_player, nd_stage, nd_first, nd_count, nd_n, nd_proven,
                                 counters, player, stage, code)
                if child < 0:  # the node pool is full: evaluate from here
                    node = -1
                    break
                ed_child[e] = child
                node = child
                if code != 0 or depth > 1 or stage == nd_stage[root]:
                    break
                continue
            node = child
        # evaluate the leaf: a known result, or the game's playout
        if code != 0:
            r1 = code_value(code, draw)
        else:
            last = tree_moves_played[depth - 1] if depth > 0 else -1
            w, m = tree_leaf(board, info, player, stage, consts, scratch, seen, stamp, replies,
                             last, playout_moves)
            r1 = 1.0 if w == 1 else 0.0 if w == 2 else draw
            if lgr:
                lgr_update(replies, tree_moves_played[:depth], playout_moves[:m],
                           nd_player[root], w)
        if vloss > 0:
            for d in range(depth):
                ed_n[path_edges[d]] -= vloss
                nd_n[path_nodes[d]] -= vloss
        backup(path_nodes, path_edges, depth, node, r1, nd_player, nd_stage, nd_first, nd_count,
               nd_n, nd_proven, ed_move, ed_child, ed_n, ed_w, ed_rn, ed_rw, rave, rave_stages,
               stride, seen, stamp, solver)
    return done


def specialise(name: str, scratch: Callable[..., Any], begin: Callable[..., Any],
               moves: Callable[..., Any], stuck: Callable[..., Any], play: Callable[..., Any],
               leaf: Callable[..., Any]) -> Callable[..., int]:
    """A compiled copy of ``run_sims`` named ``name`` (unique per game: it names the cache
    entry) that calls the given kernels."""
    template: Any = run_sims
    code = template.__code__.replace(co_name=name, co_qualname=name)
    names = dict(template.__globals__)
    names.update(tree_scratch=scratch, tree_begin=begin, tree_moves=moves, tree_stuck=stuck, tree_play=play,
                 tree_leaf=leaf)
    fn = types.FunctionType(code, names, name)
    fn.__qualname__ = name
    # nogil: the trees of a parallel search, or the threads of a shared tree, run this loop in
    # threads at once (parallel.py, shared_tree.py)
    return njit(cache=True, nogil=True)(fn)
