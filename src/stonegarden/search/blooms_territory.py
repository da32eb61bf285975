"""Fast playouts for ``blooms-territory`` used by the generic search (the game's own
``random_playouts`` goes through the protocol, which lists every legal turn at every step).

A playout turn is drawn uniformly from all 2E + E(E-1) placements and the pass, redrawn while
illegal (self-fencing); after ``TRIES`` illegal draws the mover passes. Superko is ignored in
playouts (the tree above them follows the real rules), and a playout stops after ``limit``
turns (twice the cells) and is scored as it stands, because the original rules can cycle.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from ..core.protocol import Game, State
from ..games.blooms.kernels import EMPTY, find_fenced, territory_scores, try_territory_turn

TRIES = 24


@njit(cache=True)
def territory_playout(board, nb, player, first_turn, passes, first_passer, limit, zob, side_key,
                      seed):
    """Returns the winner (1 or 2) of one random continuation; ``board`` is modified."""
    np.random.seed(seed)
    n = board.shape[0]
    stack = np.empty(n, np.int32)
    seen = np.zeros(n, np.int64)
    clock = np.zeros(1, np.int64)
    out = np.empty(n, np.int32)
    colours = np.empty(n, np.int8)
    empties = np.empty(n, np.int32)
    starts = np.empty(2, np.int32)
    scores = np.zeros(2, np.int64)
    for _ in range(limit):
        if passes >= 2:
            break
        ne = 0
        for i in range(n):
            if board[i] == EMPTY:
                empties[ne] = i
                ne += 1
        a = -1
        b = -1
        placed = False
        total = 2 * ne + (0 if first_turn else ne * (ne - 1) + 1)
        for _try in range(TRIES):
            if total == 0:
                break
            m = np.random.randint(total)
            if m == total - 1 and not first_turn:
                break  # the pass
            a = -1
            b = -1
            if m < 2 * ne:
                if (m & 1) == 0:
                    a = empties[m >> 1]
                else:
                    b = empties[m >> 1]
            else:
                m -= 2 * ne
                i = m // (ne - 1)
                j = m % (ne - 1)
                if j >= i:
                    j += 1
                a = empties[i]
                b = empties[j]
            legal, _h = try_territory_turn(board, nb, player, a, b, stack, seen, clock, out,
                                           colours, zob, side_key)
            if legal:
                placed = True
                break
        if placed:
            ns = 0
            if a >= 0:
                board[a] = 2 * player - 1
                starts[ns] = a
                ns += 1
            if b >= 0:
                board[b] = 2 * player
                starts[ns] = b
                ns += 1
            removed = find_fenced(board, nb, 3 - player, starts, ns, stack, seen, clock, out, 0)
            for t in range(removed):
                board[out[t]] = EMPTY
            passes = 0
        else:
            passes += 1
            if first_passer == 0:
                first_passer = player
        player = 3 - player
        first_turn = False
    territory_scores(board, nb, scores)
    if scores[0] != scores[1]:
        return 1 if scores[0] > scores[1] else 2
    return first_passer if first_passer != 0 else 2


def playout_value(game: Game, state: State, seed: int) -> float:
    """Player-1 reward (1 win, 0 loss) of one fast random continuation of ``state``."""
    g: object = game
    limit = 2 * game.num_cells  # type: ignore[attr-defined]
    mt = game.params.get("max_turns")
    if mt is not None:
        limit = min(limit, max(0, int(mt) - state.ply))
    w = territory_playout(state.cells().copy(), g.board.neighbours, state.player,  # type: ignore[attr-defined]
                          state.ply == 0, state.passes, state.first_passer,  # type: ignore[attr-defined]
                          limit, g._zobrist, g._SIDE_KEY, seed)  # type: ignore[attr-defined]
    return 1.0 if w == 1 else 0.0
