"""The territory rules' kernels for the search's compiled tree (``search/simulate.py``).

A turn is two tree levels, as in the capture race (``tree.py``). Stage 0 chooses the cell of
the mover's first colour, the pass (move N), or none of the first colour; stage 1 the cell of
the second colour or none. The pass is followed only by none, and none only by a cell. The
rules judge a placement whole (a stone that would fence its own bloom is legal if the other
stone's captures free it), so the first stone stays off the board until the turn ends: stage
0 lists a cell only if some second choice makes the turn legal, and stage 1 lists the second
choices that do, so every path through the tree is a legal turn. On the game's first turn
there is no pass and one stone only. Edges are listed cells first, in increasing order, then
the pass, then none.

The pass is an edge of its own, not none followed by none: its first visit is then a sample
of the pass itself (exact once the opponent has passed, since it ends the game), where a
none shared with the second colour's stones starved on one unlucky playout. It keeps no
RAVE samples: the playouts do not stamp their passes ("passes later" says nothing of a pass
now).

``info``: (turns played, consecutive passes, the first passer (0: nobody yet), the first choice
of a turn in progress (a cell, N for the pass, -1 none), the turn at which a line ends and is
scored as it stands: the game's ``max_turns``, or the playouts' cap past the root, which also
bounds a line of the tree in a game that can cycle). ``consts``: (neighbours, Zobrist keys and
side-to-move key (zeros: hashes matter only under superko), ``eyes``: 1 or 0,
``playouts.territory_playout``; each cell's distance to the edge and the learned model's
pattern, tactics and none tables and its scale, ``territory_model.py``: empty tables without a
model). Positions under superko are left to the protocol tree (its
history does not fit ``info``). AMAF keys are ``stage * (N + 1) + cell``.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from ...learn.priors import logit_priors
from ...search.simulate import specialise
from ...search.tree_kernels import NO_MOVE
from .kernels import EMPTY, count_liberties, play_territory_turn, territory_scores, undo_turn
from .model import feature_scratch, stone_logits
from .playouts import own_eye, territory_playout
from .territory_model import PASS

PLY, PASSES, FIRST_PASSER, PENDING, LIMIT = 0, 1, 2, 3, 4


@njit(cache=True)
def territory_scratch(consts):
    """(libs, stack, seen, clock, out, colours, starts, scores, no history, the model's
    feature buffers)."""
    n = consts[0].shape[0]
    return (np.zeros(n, np.int32), np.empty(n, np.int32), np.zeros(n, np.int64),
            np.zeros(1, np.int64), np.empty(n, np.int32), np.empty(n, np.int8),
            np.empty(2, np.int32), np.zeros(2, np.int64), np.empty(0, np.int64),
            feature_scratch(n))


@njit(cache=True)
def territory_begin(board, info, consts, scratch):
    count_liberties(board, consts[0], scratch[0])


@njit(cache=True)
def legal_turn(board, player, a, b, consts, scratch):
    """Whether placing ``a`` (first colour) and ``b`` (second; -1 none) is legal; the board
    and its liberty counts are left as they were."""
    libs, stack, seen, clock, out, colours, starts = scratch[:7]
    ok, _, ns, removed = play_territory_turn(board, consts[0], libs, player, a, b, starts,
                                             stack, seen, clock, out, colours, consts[1],
                                             consts[2], np.int64(0))
    if ok:
        undo_turn(board, consts[0], libs, starts, ns, out, colours, removed)
    return ok


@njit(cache=True)
def first_stone_fits(board, player, a, consts, scratch):
    """Whether some second choice (none or a cell) makes a turn with ``a`` legal."""
    if legal_turn(board, player, a, -1, consts, scratch):
        return True
    for b in range(board.shape[0]):
        if b != a and board[b] == EMPTY and legal_turn(board, player, a, b, consts, scratch):
            return True
    return False


@njit(cache=True)
def any_single_second(board, player, consts, scratch):
    """Whether a lone stone of the mover's second colour is legal somewhere."""
    for b in range(board.shape[0]):
        if board[b] == EMPTY and legal_turn(board, player, -1, b, consts, scratch):
            return True
    return False


@njit(cache=True)
def territory_moves(board, info, player, stage, consts, scratch, moves, priors, want_priors):
    """The tree moves of a node at ``stage`` (see the module docstring), with the learned
    model's prior values if ``want_priors`` and there is a model (else -1: none)."""
    n = board.shape[0]
    first_turn = info[PLY] == 0
    k = 0
    if stage == 0:
        for a in range(n):
            if board[a] != EMPTY:
                continue
            fits = (legal_turn(board, player, a, -1, consts, scratch) if first_turn
                    else first_stone_fits(board, player, a, consts, scratch))
            if fits:
                moves[k] = a
                k += 1
        if not first_turn:
            moves[k] = n  # the pass
            k += 1
        if any_single_second(board, player, consts, scratch):
            moves[k] = NO_MOVE
            k += 1
    else:
        a = info[PENDING]
        if a == n or (first_turn and a >= 0):
            moves[k] = NO_MOVE  # the pass, or the first turn's one stone, takes no second
            k += 1
        else:
            for b in range(n):
                if b != a and board[b] == EMPTY and legal_turn(board, player, a, b, consts,
                                                               scratch):
                    moves[k] = b
                    k += 1
            if a >= 0 and legal_turn(board, player, a, -1, consts, scratch):
                moves[k] = NO_MOVE
                k += 1
    if want_priors and consts[5].shape[1] > 0:
        stage_priors(board, info, player, stage, consts, scratch, moves, k, priors)
    else:
        for j in range(k):
            priors[j] = -1.0
    return k


@njit(cache=True)
def stage_priors(board, info, player, stage, consts, scratch, moves, count, priors):
    """The model's prior values of ``moves[:count]`` (``territory_model.py``): a stone's
    pattern and tactics at its stage, the second judged with the first on the board; "none"
    and the pass their own weights."""
    n = board.shape[0]
    feat = scratch[9]
    logits = feat[6]
    at = -1  # the pass, read as none by ``stone_logits`` and given its weight after
    for j in range(count):
        if moves[j] == n:
            at = j
            moves[j] = NO_MOVE
    a = info[PENDING]
    placed = stage == 1 and 0 <= a < n
    if placed:
        board[a] = 2 * player - 1
    stone_logits(board, consts[0], consts[4], player, stage, moves, count, consts[5],
                 consts[6], consts[7], feat, logits)
    if placed:
        board[a] = EMPTY
    if at >= 0:
        moves[at] = n
        logits[at] = consts[7][PASS]
    logit_priors(logits, count, consts[8], priors)


@njit(cache=True)
def end_code(board, info, consts, scratch):
    """0 while the game goes on, else its winner: two passes in a row, or the line's last
    turn; the higher score wins, a tie goes to the first passer (player 2 if nobody passed)."""
    if info[PASSES] < 2 and info[PLY] < info[LIMIT]:
        return 0
    scores = scratch[7]
    territory_scores(board, consts[0], scores)
    if scores[0] != scores[1]:
        return 1 if scores[0] > scores[1] else 2
    return info[FIRST_PASSER] if info[FIRST_PASSER] != 0 else 2


@njit(cache=True)
def territory_stuck(board, info, player, consts):
    """Never reached: stage 0 always has a stone or the pass, and stage 1 lists only what
    some legal turn continues with."""
    return 1 if player == 2 else 2


@njit(cache=True)
def finish_turn(board, info, player, b, consts, scratch):
    """End the turn in progress with the second choice ``b`` (the first is ``info``'s
    pending one), known legal. Returns the end code."""
    a = info[PENDING]
    info[PENDING] = -1
    if a == board.shape[0]:
        info[PASSES] += 1
        if info[FIRST_PASSER] == 0:
            info[FIRST_PASSER] = player
    else:
        libs, stack, seen, clock, out, colours, starts = scratch[:7]
        play_territory_turn(board, consts[0], libs, player, a, b, starts, stack, seen, clock,
                            out, colours, consts[1], consts[2], np.int64(0))
        info[PASSES] = 0
    info[PLY] += 1
    return end_code(board, info, consts, scratch)


@njit(cache=True)
def territory_play(board, info, player, stage, move, consts, scratch):
    if stage == 0:
        info[PENDING] = move
        return 0, player, 1
    return finish_turn(board, info, player, move, consts, scratch), 3 - player, 0


@njit(cache=True)
def random_second(board, info, player, consts, scratch):
    """A second choice drawn uniformly from the legal ones (with ``eyes``, none on the mover's
    own eye while another is legal), by reservoir sampling: a cell, or -1 for none."""
    n = board.shape[0]
    a = info[PENDING]
    if a == n or (a >= 0 and info[PLY] == 0):
        return -1
    eyes = consts[3] != 0
    chosen = -2
    seen_legal = 0
    if a >= 0 and legal_turn(board, player, a, -1, consts, scratch):
        chosen = -1
        seen_legal = 1
    eye_chosen = -2  # an own eye, kept apart in case nothing else is legal
    eye_seen = 0
    for b in range(n):
        if b == a or board[b] != EMPTY or not legal_turn(board, player, a, b, consts, scratch):
            continue
        if eyes and own_eye(board, consts[0], b, player):
            eye_seen += 1
            if np.random.randint(eye_seen) == 0:
                eye_chosen = b
            continue
        seen_legal += 1
        if np.random.randint(seen_legal) == 0:
            chosen = b
    return chosen if chosen != -2 else eye_chosen


@njit(cache=True)
def territory_leaf(board, info, player, stage, consts, scratch, seen, stamp, replies, last,
                   moves_out):
    """Finish a turn in progress with a random legal second choice, then play out
    (``playouts.territory_playout``, with ``eyes`` as ``consts`` say) to the line's end."""
    n = board.shape[0]
    if stage == 1:
        b = random_second(board, info, player, consts, scratch)
        if b >= 0:
            seen[player, n + 1 + b] = stamp
        code = finish_turn(board, info, player, b, consts, scratch)
        if code != 0:
            return code, 0
        player = 3 - player
    w, _ = territory_playout(board, consts[0], player, info[PLY], info[PASSES],
                             info[FIRST_PASSER], info[LIMIT], consts[1], consts[2], scratch[8],
                             False, scratch[7], consts[3] != 0, seen, stamp)
    return w, 0


RUN_TERRITORY = specialise("run_territory_sims", territory_scratch, territory_begin,
                           territory_moves, territory_stuck, territory_play, territory_leaf)
