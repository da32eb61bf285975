"""Random Bridge Go playouts (``bench playouts`` and search).

Uniform over the legal moves: a random empty point is played on a scratch board and, if
superko forbids the result, dropped from this turn's candidates and another drawn. With
``bridges`` on (the search's ``bridges`` playout policy), a move into one of the two points
shared by two diagonal stones of the other player is answered first at the other point, which
keeps them connected (the Hex programs' bridge-saving reply; the first corner found if
several, a uniform move if superko forbids it). With a reply table (the search's ``lgr``
policy, ``search/replies.py``), a move with no bridge to save is answered by the table's last
good reply to it when that point is empty (a uniform move if superko forbids it). The first
move answers ``last``, the move that led to the playout's start (-1: none). Earlier positions
sit in an open-addressing hash set stamped per playout (nothing to clear). Turns are
``fast_turn.play_kept``: each colour's open-region labels are kept between turns and the
board's hash is updated from the stones that changed.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from ...geometry.hashset import new_stamped_set, stamped_add
from ..playout_totals import add_result
from .fast_turn import play_kept
from .kernels import EMPTY, position_hash


@njit(cache=True)
def bridge_playout(board, nb, sides, zob, empty_key, player, perpendicular, win_after, superko,
                   history, keys, stamps_set, stamp, max_turns, moves_out, bridges, replies, last):
    """Play uniformly random moves on ``board`` (in place) until the game ends or ``max_turns``
    moves were made, each move first a bridge-saving reply if ``bridges`` and one exists, else
    the reply to the last move in ``replies`` (int32[3, points]; empty: none) if one is stored
    and its point is empty; ``last`` is the move before the first. The points played go to
    ``moves_out`` while it has room (for tests).
    Returns (winner 1, 2, or 0 for a draw or an unfinished game, turns)."""
    n = board.shape[0]
    work = np.empty_like(board)
    labels = np.empty((3, n), np.int32)
    rmasks = np.empty((3, n), np.int8)
    valid = np.zeros(3, np.int8)  # nothing labelled yet: the first turn judges the whole board
    stack = np.empty(n, np.int32)
    alive = np.empty(n, np.int8)
    seen = np.zeros(n, np.int64)
    stamps = np.zeros(1, np.int64)
    removed = np.empty(n, np.int32)
    cand = np.empty(n, np.int32)
    h_board = position_hash(board, zob, empty_key)
    if superko:
        for t in range(history.shape[0]):
            stamped_add(keys, stamps_set, stamp, history[t])
    lgr = replies.shape[0] > 0
    for turn in range(max_turns):
        nc = 0
        for p in range(n):
            if board[p] == EMPTY:
                cand[nc] = p
                nc += 1
        reply = bridge_reply(board, nb, player, last) if bridges else -1
        if reply < 0 and lgr and last >= 0:
            r = replies[player, last]
            if r >= 0 and board[r] == EMPTY:
                reply = r
        if reply >= 0:
            for k in range(nc):
                if cand[k] == reply:
                    reply = k
                    break
        chosen = False
        won = False
        h = h_board
        kept_opp = valid[3 - player]  # a hand-set start is trusted only after one whole turn
        while nc > 0:
            if reply >= 0:  # the reply first; if superko forbids it, uniform among the rest
                j = reply
                reply = -1
            else:
                j = np.random.randint(nc)
            work[:] = board
            _, _, won, delta = play_kept(work, nb, sides, zob, player, cand[j], perpendicular,
                                         win_after, labels, rmasks, valid, stack, alive, seen,
                                         stamps, removed)
            h = h_board ^ delta
            if won or not superko:
                chosen = True
                break
            if stamped_add(keys, stamps_set, stamp, h):
                chosen = True
                break
            valid[3 - player] = kept_opp  # the trial is undone
            valid[player] = 0
            nc -= 1
            cand[j] = cand[nc]
        if not chosen:
            return 0, turn  # no legal move: a draw
        board[:] = work
        h_board = h
        if turn < moves_out.shape[0]:
            moves_out[turn] = cand[j]
        if won:
            return player, turn + 1
        last = cand[j]
        player = 3 - player
    return 0, max_turns


#: the corners around a point, as pairs of neighbour directions (N S W E in ``nb``): N-E, E-S,
#: S-W, W-N
_CORNERS = ((0, 3), (3, 1), (1, 2), (2, 0))


@njit(cache=True)
def bridge_reply(board, nb, player, last):
    """The point that saves a bridge of ``player`` the opponent's move ``last`` intruded into:
    two stones of ``player`` beside ``last`` and diagonal to each other, whose other shared
    neighbour is empty. -1 if none (or ``last`` is -1); the first corner N-E, E-S, S-W, W-N."""
    if last < 0:
        return -1
    for a, b in _CORNERS:
        p = nb[last, a]
        q = nb[last, b]
        if p < 0 or q < 0 or board[p] != player or board[q] != player:
            continue
        d = nb[p, b]
        if d >= 0 and board[d] == EMPTY:
            return d
    return -1


@njit(cache=True)
def bridge_playouts(board0, nb, sides, zob, empty_key, player, perpendicular, win_after, superko,
                    history, max_turns, count, seed, bridges=False):
    """Run ``count`` playouts from one position (bridge-saving replies first if ``bridges``).
    Returns int64[4]: wins of player 1, wins of player 2, draws (unfinished games count here
    too), and total moves played."""
    np.random.seed(seed)
    totals = np.zeros(4, np.int64)
    board = np.empty_like(board0)
    keys, stamps = new_stamped_set(max_turns + history.shape[0] + 2)
    no_moves = np.empty(0, np.int32)
    no_replies = np.empty((0, 0), np.int32)
    for k in range(count):
        board[:] = board0
        w, t = bridge_playout(board, nb, sides, zob, empty_key, player, perpendicular, win_after,
                              superko, history, keys, stamps, k + 1, max_turns, no_moves, bridges,
                              no_replies, -1)
        add_result(totals, w, t)
    return totals


@njit(cache=True)
def bridge_amaf_playout(board0, nb, sides, zob, empty_key, player, perpendicular, win_after,
                        superko, history, max_turns, seed, moves_out, bridges, replies, last):
    """One playout for the search's RAVE statistics: as ``bridge_playouts`` with a count of 1,
    the points played going to ``moves_out`` (the first by ``player``, then alternating), and
    with the reply table ``replies`` (empty: none) answering ``last`` and what follows.
    Returns (winner 1, 2 or 0 for a draw or an unfinished game, moves played)."""
    np.random.seed(seed)
    board = board0.copy()
    keys, stamps = new_stamped_set(max_turns + history.shape[0] + 2)
    return bridge_playout(board, nb, sides, zob, empty_key, player, perpendicular, win_after,
                          superko, history, keys, stamps, 1, max_turns, moves_out, bridges,
                          replies, last)
