"""Free Go's capture step has two implementations: the flood of ``kernels.py`` (the rules and
the search's tree) and the incremental chains of ``chains.py`` (the playouts and the move
priors). On random positions, suicides waiting for removal and ko included, every move must
leave the same board, remove the same number of stones and reach the same position hash
both ways."""

from __future__ import annotations

import numpy as np
import pytest

import stonegarden
from stonegarden.games.freego import chains as C
from stonegarden.games.freego.kernels import play_point
from stonegarden.geometry.square import SIDE_TO_MOVE_KEY


def by_chains(game, cells, player, point, h):
    """(board, removed, hash) after ``player`` plays ``point``, as the playouts do it."""
    board = cells.copy()
    nb, zob = game.board.neighbours, game.board.zobrist
    n = board.shape[0]
    cid, nxt, libs, size, chash = C.new_chains(board, nb, zob)
    opp = 3 - player
    dead = np.empty(n, np.int32)
    ndead = C.dead_roots(board, opp, cid, libs, dead)
    caps = np.empty(4, np.int32)
    ncap = C.captures_at(board, nb, point, opp, cid, libs, dead, ndead, caps)
    removed = sum(int(size[dead[t]]) for t in range(ndead)) + sum(
        int(size[caps[t]]) for t in range(ncap))
    h2 = h ^ SIDE_TO_MOVE_KEY ^ zob[point, player]
    for t in range(ndead):
        h2 ^= chash[dead[t]]
    for t in range(ncap):
        h2 ^= chash[caps[t]]
    C.place_stone(board, nb, zob, point, player, cid, nxt, libs, size, chash)
    empties, where = np.empty(n, np.int32), np.empty(n, np.int32)
    for root in [*caps[:ncap], *dead[:ndead]]:
        C.remove_chain(board, nb, root, cid, nxt, libs, empties, where, 0)
    return board, removed, np.int64(h2)


@pytest.mark.parametrize("size,ko", [(5, "none"), (6, "simple"), (7, "superko")])
@pytest.mark.parametrize("seed", range(6))
def test_flood_and_chains_capture_alike(size, ko, seed):
    game = stonegarden.make("freego", size=size, ko=ko, target=size * size)
    rng = np.random.default_rng(seed)
    state = game.initial_state()
    compared = 0
    for _ in range(3 * size * size):
        if game.is_terminal(state):
            break
        cells = state.cells()
        h = np.int64(game.position_hash(state))
        for point in game.legal_actions(state):
            board = cells.copy()
            removed = np.empty(cells.shape[0], np.int32)
            count, h2 = play_point(board, game.board.neighbours, game.board.zobrist,
                                   SIDE_TO_MOVE_KEY, state.player, int(point), h, removed)
            other, count2, h3 = by_chains(game, cells, state.player, int(point), h)
            assert board.tolist() == other.tolist()
            assert (int(count), int(h2)) == (count2, int(h3))
            compared += 1
        acts = game.legal_actions(state)
        state = game.play(state, int(acts[int(rng.integers(len(acts)))]))
    assert compared > 100
