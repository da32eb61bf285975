"""Random Free Go playouts, the hot path of search and of ``bench playouts``.

Uniform over the legal moves, or, with ``captures`` = K > 0, first K random empty points are
tried for one that captures (the first legal one is played; see ``freego_playout``), with
``best_of`` = B > 0 the one of B random empty points whose 3x3 pattern the learned model
rates highest is tried next, and with ``safe`` = S > 1 points that hand the opponent stones
are passed over. Uniform:
a random empty point is tried and, if ko forbids it, dropped from this turn's candidates and
another drawn (so every legal point stays equally likely). The empty
points live in an array updated in O(1) per stone; chains are kept incrementally (``chains.py``:
pseudo-liberty counts and chain hashes), so a capture or ko test needs no flood and no trial
placement; the opponent's suicide awaiting removal is the chain of their last stone; earlier
positions sit in an open-addressing hash set stamped per playout, so nothing is cleared between
playouts.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from ...geometry.hashset import new_stamped_set, stamped_add, stamped_has
from ...geometry.square_patterns import ring_pattern
from ..playout_totals import add_result
from .chains import EMPTY, captures_at, dead_roots, new_chains, place_stone, remove_chain, stones_given

KO_NONE, KO_SIMPLE, KO_SUPER = 0, 1, 2


@njit(cache=True, inline="always")
def _ko_allows(ko, h, prev_h, side_key, zob, p, player, dead_key, chash, caps, ncap, keys,
               stamps, stamp):
    """Whether the ko rule allows ``player`` to play ``p`` (capturing ``caps[:ncap]`` and
    removing the pending dead chains, ``dead_key``), and the position hash after it (not
    computed, ``h`` returned, without a ko rule)."""
    if ko == KO_NONE:
        return True, h
    h2 = h ^ side_key ^ zob[p, player] ^ dead_key
    for t in range(ncap):
        h2 ^= chash[caps[t]]
    if ko == KO_SIMPLE:
        return h2 != prev_h, h2
    return not stamped_has(keys, stamps, stamp, h2), h2


@njit(cache=True, inline="always")
def _free_point(board, nb, zob, side_key, ko, h, prev_h, p, player, cid, nxt, libs, size, chash,
                dead, ndead, dead_key, caps, keys, stamps, stamp, safe):
    """Whether a point picked ahead of the uniform draw (a stored reply, the pattern policy's
    choice) may be played: ko allows it and, with ``safe`` > 1, it hands over no stones.
    Returns (ok, the number of chains it captures, their roots in ``caps``; the position
    hash after it)."""
    ncap = captures_at(board, nb, p, 3 - player, cid, libs, dead, ndead, caps)
    ok, h2 = _ko_allows(ko, h, prev_h, side_key, zob, p, player, dead_key, chash, caps, ncap,
                        keys, stamps, stamp)
    if ok and safe > 1 and ncap == 0 and ndead == 0:
        ok = not stones_given(board, nb, p, player, cid, nxt, libs, size)
    return ok, ncap, h2


@njit(cache=True)
def freego_playout(board, nb, zob, side_key, player, scores, target, ko, h, prev_h, history,
                   keys, stamps, stamp, max_turns, captures, safe, moves_out, replies,
                   prev_move, ring, pattern_w, best_of):
    """Play random moves on ``board`` (in place) until the game ends; the points played go to
    ``moves_out`` while it has room (for tests). With a reply table ``replies`` (int32[3,
    points], the search's ``lgr`` policy; empty: none) each turn first tries the stored reply
    of the player to move to the move before (``prev_move`` for the first turn; -1: none), if
    its point is empty and ko allows it. With ``captures`` = K > 0 each turn first
    draws K empty points (with replacement) and plays the first that captures and is legal
    under ko; captures are Free Go's goal and cost a few neighbour checks to find, so playouts
    end closer to how play ends. With ``best_of`` = B > 0 (and ``ring``, ``pattern_w``: the
    3x3 ring of each point and the learned model's weight of each pattern code,
    ``features.py``) a turn left without a move then draws B empty points (with replacement)
    and tries the one whose pattern, as the mover sees it, weighs most: played if ko allows
    it and, with S > 1, it hands over no stones. The model's taste for shapes thus reaches the
    playouts at the price of B pattern reads, not a softmax over the board. Otherwise (and
    always with K = B = 0) the move is uniform; with
    ``safe`` = S > 1 uniform over the points that hand the opponent no stones (a stone that
    captures nothing and leaves its chain with no liberty, a suicide, or one, which the
    opponent takes next turn; ``chains.stones_given``): after S points that do, the one that
    hands over the fewest of them is played (S <= 1: uniform, the same draws). The fill-up
    phase, where each side plays its safe points and then throws single stones into the
    other's eyes rather than hand over a chain, is then played out as it is decided, not by
    random self-destruction. A stored reply that hands over stones is passed over too. While
    an opponent chain waits for removal nothing is called costly: its removal frees points.

    ``scores`` (int64[2]) is updated; ``h`` is the current position hash, ``prev_h`` the one
    before the last move (0 if none), ``history`` every earlier hash (superko). Uses numba's
    global generator. Returns (winner 1, 2, 0 draw or -1 if ``max_turns`` ran out, turns)."""
    n = board.shape[0]
    empties = np.empty(n, np.int32)
    where = np.full(n, -1, np.int32)
    ne = 0
    for i in range(n):
        if board[i] == EMPTY:
            empties[ne] = i
            where[i] = ne
            ne += 1
    cid, nxt, libs, size, chash = new_chains(board, nb, zob)
    cand = np.empty(n, np.int32)
    caps = np.empty(4, np.int32)
    dead = np.empty(n, np.int32)  # roots of the opponent's chains without a liberty
    ndead = dead_roots(board, 3 - player, cid, libs, dead)
    if ko == KO_SUPER:
        for t in range(history.shape[0]):
            stamped_add(keys, stamps, stamp, history[t])
        stamped_add(keys, stamps, stamp, h)
    lgr = replies.shape[0] > 0
    for turn in range(max_turns):
        opp = 3 - player
        dead_count = 0
        dead_key = h ^ h  # an int64 zero
        for t in range(ndead):
            dead_count += size[dead[t]]
            dead_key ^= chash[dead[t]]
        # draw from the empty points; copy them only once a ko-forbidden point must be dropped
        nc = ne
        pool = empties
        point = -1
        ncap = 0
        h2 = h
        if lgr and prev_move >= 0:
            p = replies[player, prev_move]
            if p >= 0 and board[p] == EMPTY:
                ok, ncap, h2 = _free_point(board, nb, zob, side_key, ko, h, prev_h, p, player,
                                           cid, nxt, libs, size, chash, dead, ndead, dead_key,
                                           caps, keys, stamps, stamp, safe)
                if ok:
                    point = p
        for _ in range(captures if ne > 0 and point < 0 else 0):
            p = empties[np.random.randint(ne)]
            ncap = captures_at(board, nb, p, opp, cid, libs, dead, ndead, caps)
            if ncap > 0:
                ok, h2 = _ko_allows(ko, h, prev_h, side_key, zob, p, player, dead_key, chash,
                                    caps, ncap, keys, stamps, stamp)
                if ok:
                    point = p
                    break
        if best_of > 0 and point < 0 and ne > 0:
            best = empties[np.random.randint(ne)]
            top = pattern_w[ring_pattern(board, ring, player, best)]
            for _ in range(best_of - 1):
                p = empties[np.random.randint(ne)]
                weight = pattern_w[ring_pattern(board, ring, player, p)]
                if weight > top:
                    top = weight
                    best = p
            ok, ncap, h2 = _free_point(board, nb, zob, side_key, ko, h, prev_h, best, player,
                                       cid, nxt, libs, size, chash, dead, ndead, dead_key,
                                       caps, keys, stamps, stamp, safe)
            if ok:
                point = best
        passed = 0  # costly points passed over this turn (``safe``)
        cheapest = -1
        least = n + 1
        while point < 0 and nc > 0:
            j = np.random.randint(nc)
            p = pool[j]
            ncap = captures_at(board, nb, p, opp, cid, libs, dead, ndead, caps)
            ok, h2 = _ko_allows(ko, h, prev_h, side_key, zob, p, player, dead_key, chash, caps,
                                ncap, keys, stamps, stamp)
            if ok:
                cost = 0
                if safe > 1 and ncap == 0 and ndead == 0:
                    cost = stones_given(board, nb, p, player, cid, nxt, libs, size)
                if cost == 0:
                    point = p
                    break
                if cost < least:
                    cheapest = p
                    least = cost
                passed += 1
                if passed >= safe:
                    break
            if nc == ne:
                for t in range(ne):
                    cand[t] = empties[t]
                pool = cand
            nc -= 1
            pool[j] = pool[nc]
        if point < 0 and cheapest >= 0:  # every point tried hands over stones: the fewest
            point = cheapest
            ncap = 0
            ok, h2 = _ko_allows(ko, h, prev_h, side_key, zob, point, player, dead_key, chash,
                                caps, 0, keys, stamps, stamp)
        if point < 0:  # no legal move: the higher score wins
            if scores[0] > scores[1]:
                return 1, turn
            if scores[1] > scores[0]:
                return 2, turn
            return 0, turn
        if turn < moves_out.shape[0]:
            moves_out[turn] = point
        prev_move = point
        # commit: take the point off the empty list, place, remove the dead and the captured
        i = where[point]
        ne -= 1
        last = empties[ne]
        empties[i] = last
        where[last] = i
        where[point] = -1
        place_stone(board, nb, zob, point, player, cid, nxt, libs, size, chash)
        removed = dead_count
        for t in range(ncap):
            removed += size[caps[t]]
            ne = remove_chain(board, nb, caps[t], cid, nxt, libs, empties, where, ne)
        for t in range(ndead):
            ne = remove_chain(board, nb, dead[t], cid, nxt, libs, empties, where, ne)
        scores[player - 1] += removed
        if scores[player - 1] >= target:
            return player, turn + 1
        if ko != KO_NONE:
            prev_h = h
            h = h2
            if ko == KO_SUPER:
                stamped_add(keys, stamps, stamp, h)
        # the mover's new chain is the only one that can be left without a liberty
        r = cid[point]
        ndead = 0
        if libs[r] == 0:
            dead[0] = r
            ndead = 1
        player = opp
    return -1, max_turns


@njit(cache=True)
def freego_playouts(board0, nb, zob, side_key, player, scores0, target, ko, h, prev_h, history,
                    max_turns, count, seed, captures, safe=0):
    """Run ``count`` playouts from one position (``captures``, ``safe``: the policies of
    ``freego_playout``; 0 = uniform). Returns int64[4]: wins of player 1, wins of
    player 2, draws (unfinished games count here too), and total moves played."""
    np.random.seed(seed)
    totals = np.zeros(4, np.int64)
    board = np.empty_like(board0)
    scores = np.empty(2, np.int64)
    keys, stamps = new_stamped_set(max_turns + history.shape[0] + 2)
    no_moves = np.empty(0, np.int32)
    no_replies = np.empty((0, 0), np.int32)
    no_ring = np.empty((0, 8), np.int32)
    no_weights = np.empty(0, np.float64)
    for k in range(count):
        board[:] = board0
        scores[0] = scores0[0]
        scores[1] = scores0[1]
        w, t = freego_playout(board, nb, zob, side_key, player, scores, target, ko, h, prev_h,
                              history, keys, stamps, k + 1, max_turns, captures, safe,
                              no_moves, no_replies, -1, no_ring, no_weights, 0)
        add_result(totals, w, t)
    return totals


@njit(cache=True)
def freego_amaf_playout(board0, nb, zob, side_key, player, scores0, target, ko, h, prev_h,
                        history, max_turns, seed, captures, safe, moves_out, replies,
                        prev_move, ring, pattern_w, best_of):
    """One playout for the search's RAVE statistics: as ``freego_playouts`` with a count of 1,
    the points played going to ``moves_out`` (the first by ``player``, then alternating), with
    the reply table ``replies`` (empty: none) answering ``prev_move`` and what follows, and
    the pattern policy ``best_of`` (0: none) over ``ring`` and ``pattern_w``.
    Returns (winner 1, 2, 0 for a draw or -1 if unfinished, moves played)."""
    np.random.seed(seed)
    board = board0.copy()
    scores = scores0.copy()
    keys, stamps = new_stamped_set(max_turns + history.shape[0] + 2)
    return freego_playout(board, nb, zob, side_key, player, scores, target, ko, h, prev_h,
                          history, keys, stamps, 1, max_turns, captures, safe, moves_out,
                          replies, prev_move, ring, pattern_w, best_of)
