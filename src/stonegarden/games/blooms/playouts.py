"""Random playouts for both rule sets, the hot path of the search and of ``bench playouts``.

The capture race (``race_playout``): every one of the 2E + E(E-1) turns equally likely (the
uniform policy of the plain baseline it is compared with), or, with ``captures`` = K > 0,
first K random cells tried for a stone that fences an enemy bloom; with ``eyes``, uniform
over the turns that put no stone on the mover's own eye while any other cell is empty
(``eye_free_turn``). Three savings over a plain playout:

- the empty cells live in an array updated in O(1) per stone;
- each cell keeps its count of empty neighbours, so a bloom with a stone next to an empty cell
  is known alive without a flood, and a flood looks at one number per stone;
- captures are judged only around the stones placed this turn and last turn: an enemy bloom can
  only be fenced if this turn's stones fenced it, or if the enemy fenced it himself last turn,
  next to his own new stones (every other bloom kept the liberty it had).
"""

from __future__ import annotations

import numpy as np
from numba import njit

from ...geometry.flood import clear_stone, count_liberties, judge_group, set_stone
from ...geometry.hashset import new_stamped_set, stamped_add, stamped_has
from ..playout_totals import add_result
from .kernels import (
    EMPTY,
    all_cells,
    capture,
    empty_cells,
    place,
    play_territory_turn,
    position_hash,
    territory_scores,
    turn_at,
    turn_buffers,
    turn_count,
    undo_turn,
    uniform_turn,
)


@njit(cache=True, inline="always")
def take(cell, empties, where, ne):
    """Remove ``cell`` from the empty list; returns the new length."""
    i = where[cell]
    last = empties[ne - 1]
    empties[i] = last
    where[last] = i
    where[cell] = -1
    return ne - 1


@njit(cache=True)
def new_buffers(n):
    """Scratch arrays of the race playouts, allocated once per batch: (empties, where, libs,
    stack, seen, out, colours, all cells, clock)."""
    return (np.empty(n, np.int32), np.full(n, -1, np.int32), np.zeros(n, np.int32),
            np.empty(n, np.int32), np.zeros(n, np.int64), np.empty(n, np.int32),
            np.empty(n, np.int8), all_cells(n), np.zeros(1, np.int64))


@njit(cache=True)
def fills_capture(board, nb, libs, cell, player, stack, seen, clock):
    """Whether a stone of ``player`` on the empty ``cell`` fences an adjacent enemy bloom."""
    set_stone(board, nb, libs, cell, 2 * player - 1)
    hit = False
    for k in range(6):
        w = nb[cell, k]
        if w < 0:
            continue
        col = board[w]
        if col != EMPTY and (col + 1) // 2 != player:
            _, alive = judge_group(board, nb, libs, w, stack, seen, clock, clock[0])
            if not alive:
                hit = True
                break
    clear_stone(board, nb, libs, cell)
    return hit


@njit(cache=True)
def race_playout(board, nb, player, first_turn, scores, target, max_turns, captures, seen_amaf,
                 stamp, moves_out, buffers, eyes=False):
    """Play random turns on ``board`` (modified in place) until the race ends; ``scores``
    (int64[2]) is updated. With ``captures`` = K > 0 each turn first tries K random cells for
    a stone that fences an enemy bloom (played in a random colour, with a random second stone).
    With ``eyes`` the other turns keep off the mover's own eyes (``eye_free_turn``). Stones
    played are stamped in ``seen_amaf[player, colour * N + cell]`` (the search's RAVE; colour
    0 first, 1 second); turns go to ``moves_out`` as (cell_a, cell_b) pairs while it has room
    (for tests). Uses numba's global generator (seed it first). Returns (winner 1, 2,
    0 for a draw or -1 if ``max_turns`` ran out, turns played)."""
    empties, where, libs, stack, seen, out, colours, full, clock = buffers
    n = board.shape[0]
    for i in range(n):
        where[i] = -1
    ne = empty_cells(board, empties)
    for t in range(ne):
        where[empties[t]] = t
    count_liberties(board, nb, libs)
    starts = np.empty(4, np.int32)
    prev = np.empty(2, np.int32)
    nprev = 0
    full_scan = True  # the start position may hold blooms the opponent fenced himself
    for turn in range(max_turns):
        if ne == 0:
            if scores[0] > scores[1]:
                return 1, turn
            if scores[1] > scores[0]:
                return 2, turn
            return 0, turn
        a = -1
        b = -1
        for _ in range(captures):
            cell = empties[np.random.randint(ne)]
            if fills_capture(board, nb, libs, cell, player, stack, seen, clock):
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
            if eyes:
                a, b = eye_free_turn(board, nb, player, empties, ne, first_turn, out)
            else:
                a, b = uniform_turn(empties, ne, first_turn)
        ns = place(board, nb, libs, player, a, b, starts)
        for t in range(ns):
            ne = take(starts[t], empties, where, ne)
        if a >= 0:
            seen_amaf[player, a] = stamp
        if b >= 0:
            seen_amaf[player, n + b] = stamp
        if 2 * turn + 1 < moves_out.shape[0]:
            moves_out[2 * turn] = a
            moves_out[2 * turn + 1] = b
        for t in range(nprev):
            starts[ns + t] = prev[t]
        if full_scan:
            removed = capture(board, nb, libs, player, full, n, stack, seen, clock, out, colours)
            full_scan = False
        else:
            removed = capture(board, nb, libs, player, starts, ns + nprev, stack, seen, clock,
                              out, colours)
        for t in range(removed):
            cell = out[t]
            empties[ne] = cell
            where[cell] = ne
            ne += 1
        scores[player - 1] += removed
        if scores[player - 1] >= target:
            return player, turn + 1
        nprev = ns
        for t in range(ns):
            prev[t] = starts[t]
        player = 3 - player
        first_turn = False
    return -1, max_turns


@njit(cache=True)
def race_playouts(board0, nb, player, first_turn, scores0, target, max_turns, count, seed,
                  captures=0, eyes=False):
    """Run ``count`` playouts from one position (``captures``, ``eyes``: as ``race_playout``).
    Returns int64[4]: wins of player 1, wins of player 2, draws (unfinished games count here
    too), and total turns played."""
    np.random.seed(seed)
    totals = np.zeros(4, np.int64)
    n = board0.shape[0]
    board = np.empty_like(board0)
    scores = np.empty(2, np.int64)
    no_moves = np.empty(0, np.int32)
    seen_amaf = np.zeros((3, 2 * n), np.int64)
    buffers = new_buffers(n)
    for _ in range(count):
        board[:] = board0
        scores[0] = scores0[0]
        scores[1] = scores0[1]
        w, t = race_playout(board, nb, player, first_turn, scores, target, max_turns, captures,
                            seen_amaf, 0, no_moves, buffers, eyes)
        add_result(totals, w, t)
    return totals


@njit(cache=True, inline="always")
def own_eye(board, nb, cell, player):
    """Whether ``cell`` (-1: no stone) is empty with only ``player``'s stones round it: a
    point whose filling never captures, with no enemy stone next to it, but takes a liberty
    from the mover's own blooms (and, in the territory rules, never scores: stones and
    territory count alike)."""
    if cell < 0 or board[cell] != EMPTY:
        return False
    for k in range(6):
        v = nb[cell, k]
        if v >= 0 and (board[v] + 1) // 2 != player:
            return False
    return True


@njit(cache=True)
def drop_eyes(board, nb, player, cells, count):
    """Keep in ``cells[:count]`` those that are not ``player``'s own eyes, in order; how many."""
    kept = 0
    for i in range(count):
        if not own_eye(board, nb, cells[i], player):
            cells[kept] = cells[i]
            kept += 1
    return kept


@njit(cache=True)
def eye_free_turn(board, nb, player, empties, ne, first_turn, kept):
    """A capture-race turn (as ``uniform_turn``) drawn uniformly among those with no stone on
    ``player``'s own eye, or among all if every empty cell is one (the race has no pass).
    Filling an own eye never captures, for no enemy stone is next to it, and takes a liberty
    from the mover's blooms. A few draws are redrawn when they hit an eye, which keeps the
    draw uniform over the others; after 16 the cells are filtered into ``kept`` (int32[N])."""
    for _ in range(16):
        a, b = uniform_turn(empties, ne, first_turn)
        if not own_eye(board, nb, a, player) and not own_eye(board, nb, b, player):
            return a, b
    for i in range(ne):
        kept[i] = empties[i]
    k = drop_eyes(board, nb, player, kept, ne)
    if k == 0:
        return uniform_turn(empties, ne, first_turn)
    return uniform_turn(kept, k, first_turn)


@njit(cache=True)
def listed_turn(board, nb, libs, player, empties, ne, first, starts, stack, seen, clock, out,
                colours, zob, side_key, h, keys, stamps, superko):
    """A turn drawn uniformly from the legal ones over ``empties[:ne]`` and the pass (not on
    the first turn), by listing them: (cell of the first colour, of the second; -1 none),
    (-1, -1) for the pass, (-2, -1) if there is none."""
    a = -2
    b = -1
    seen_legal = 0
    if not first:
        a = -1
        seen_legal = 1
    for m in range(turn_count(ne, first)):
        ca, cb = turn_at(empties, ne, m)
        ok, h2, ns, nrem = play_territory_turn(board, nb, libs, player, ca, cb, starts, stack,
                                               seen, clock, out, colours, zob, side_key, h)
        if not ok:
            continue
        undo_turn(board, nb, libs, starts, ns, out, colours, nrem)
        if superko and stamped_has(keys, stamps, 1, h2):
            continue
        seen_legal += 1
        if np.random.randint(seen_legal) == 0:  # reservoir sampling: uniform, no list
            a = ca
            b = cb
    return a, b


@njit(cache=True)
def territory_playout(board, nb, player, ply, passes, first_passer, max_turns, zob, side_key,
                      history, superko, out_scores, eyes, seen_amaf, stamp):
    """One random game under the territory rules from the given position, on
    ``board`` (modified). Candidate turns (pass, 2E singles, E(E-1) pairs) are drawn uniformly
    and illegal ones redrawn; after 64 misses in a row one is drawn from the legal ones,
    listed (``listed_turn``). With ``eyes`` the turns are drawn, and listed, among the cells
    that are not the mover's own eyes (``own_eye``): a player left with only such turns
    passes, so the playout ends once the board is settled instead of filling it and starting
    over through captures (Go programs' oldest playout rule). ``max_turns`` is the game's limit or
    a playout cap; reaching it scores the board as it stands. ``history``: the earlier
    positions' hashes (superko). Stones played are stamped in ``seen_amaf[player, colour *
    (N + 1) + cell]`` (the compiled tree's RAVE keys, ``territory_tree.py``); passes are not.
    Returns (winner, turns played)."""
    n = board.shape[0]
    libs, stack, seen, clock, out, colours = turn_buffers(board, nb)
    empties = np.empty(n, np.int32)
    # the positions so far, kept for superko only (``max_turns`` may be a large ply)
    keys, stamps = new_stamped_set(history.shape[0] + max_turns + 1 if superko else 1)
    for t in range(history.shape[0]):
        stamped_add(keys, stamps, 1, history[t])
    starts = np.empty(2, np.int32)
    turns = 0
    while passes < 2 and ply < max_turns:
        ne = empty_cells(board, empties)
        first = ply == 0
        if eyes:
            ne = drop_eyes(board, nb, player, empties, ne)
        h = position_hash(board, zob, player, side_key) if superko else np.int64(0)
        options = turn_count(ne, first) + (0 if first else 1)
        a = -2  # -2: nothing chosen yet; (-1, -1): pass
        b = -1
        played = False  # a drawn turn is played as it is judged
        # a listing judges every candidate: with ``eyes``, where a settled board leaves many
        # candidates and few legal ones, many are drawn for longer first (5% more playouts/s)
        for _ in range(256 if eyes and options > 64 else 64):
            m = np.random.randint(options)
            if not first:
                if m == 0:
                    a = -1
                    b = -1
                    break
                m -= 1
            ca, cb = turn_at(empties, ne, m)
            ok, h2, ns, nrem = play_territory_turn(board, nb, libs, player, ca, cb, starts, stack,
                                                   seen, clock, out, colours, zob, side_key, h)
            if ok and superko and stamped_has(keys, stamps, 1, h2):
                undo_turn(board, nb, libs, starts, ns, out, colours, nrem)
                ok = False
            if ok:
                a = ca
                b = cb
                played = True
                break
        if a == -2:
            a, b = listed_turn(board, nb, libs, player, empties, ne, first, starts, stack, seen,
                               clock, out, colours, zob, side_key, h, keys, stamps, superko)
            if a == -2:
                a = -1  # nothing legal: never (a first turn, which cannot pass, has singles)
        if a == -1 and b == -1:
            passes += 1
            if first_passer == 0:
                first_passer = player
        else:
            passes = 0
            if not played:
                ns = place(board, nb, libs, player, a, b, starts)
                capture(board, nb, libs, player, starts, ns, stack, seen, clock, out, colours)
            if a >= 0:
                seen_amaf[player, a] = stamp
            if b >= 0:
                seen_amaf[player, n + 1 + b] = stamp
        player = 3 - player
        ply += 1
        turns += 1
        if superko:
            stamped_add(keys, stamps, 1, position_hash(board, zob, player, side_key))
    territory_scores(board, nb, out_scores)
    if out_scores[0] != out_scores[1]:
        return (1 if out_scores[0] > out_scores[1] else 2), turns
    return (first_passer if first_passer != 0 else 2), turns


@njit(cache=True)
def territory_playouts(board0, nb, player, ply, passes, first_passer, max_turns, zob, side_key,
                       history, superko, count, seed, eyes=False):
    """``count`` territory playouts; same int64[4] totals as ``race_playouts``."""
    np.random.seed(seed)
    totals = np.zeros(4, np.int64)
    board = np.empty_like(board0)
    scores = np.zeros(2, np.int64)
    seen_amaf = np.zeros((3, 2 * board0.shape[0] + 2), np.int64)
    for _ in range(count):
        board[:] = board0
        w, t = territory_playout(board, nb, player, ply, passes, first_passer, max_turns, zob,
                                 side_key, history, superko, scores, eyes, seen_amaf, 0)
        totals[w - 1] += 1
        totals[3] += t
    return totals
