"""The search tree's preallocated node and edge arrays (``tree_kernels.py`` works on them).

A node's edges are ``nd_first .. nd_first + nd_count`` (``nd_first = -1`` until the node is
expanded). ``nd_player`` is the player to move (0 at a chance node), ``nd_stage`` the game's
stage of a decision (0 but in games whose turns take several tree levels), ``nd_proven`` the
proof code (``PROOF_*``). An edge's ``ed_w`` sums the rewards of the node's player (a win 1, a
draw 1/2; player 1's at a chance node), ``ed_rn``/``ed_rw`` its RAVE samples and their
rewards. ``counters``: the next free node and edge, the last AMAF stamp, and the ends of
the node and edge ranges this tree allocates from (the whole arrays; a shared tree gives each
of its threads a range of its own: ``shared_tree.py``).

The memory of one search is bounded by a budget of bytes, ``TREE_BYTES`` (a share of it for
each tree of a parallel search): the pools' own arrays, fixed when they are made, and in the
protocol tree the position each node keeps. A tree may make at most ``node_cap`` nodes; once
it has them (or its edges are used up) it stops growing and simulates on from the leaves it
has, each simulation still counted and backed up (docs/ai.md, "The memory of a search")."""

from __future__ import annotations

import numpy as np

NODE_POOL = 1_500_000
EDGE_POOL = 20_000_000
#: bytes a node and an edge take in the pools (the arrays below)
NODE_BYTES = 19
EDGE_BYTES = 24
#: the most bytes one search's tree holds: the default pools (about 509 MB) and, in the
#: protocol tree, the positions of its nodes in the rest. A server's job of one search stays
#: within its default 2 GiB bound with room for a kept tree's compaction (another set of pools)
TREE_BYTES = 1024 * 1024 * 1024

#: proof codes of ``nd_proven``: unknown, player 1 wins, player 2 wins, a draw
PROOF_NONE, PROOF_DRAW = 0, 3


class Pools:
    """The tree's arrays. ``np.zeros`` maps pages lazily, so big pools cost only what is used."""

    def __init__(self, nodes: int = NODE_POOL, edges: int = EDGE_POOL,
                 budget: int = TREE_BYTES) -> None:
        #: the bytes the tree in these pools may hold, the pools' own included (``node_cap``)
        self.budget = budget
        self.nd_player = np.zeros(nodes, np.int8)
        self.nd_stage = np.zeros(nodes, np.int8)
        self.nd_first = np.zeros(nodes, np.int64)
        self.nd_count = np.zeros(nodes, np.int32)
        self.nd_n = np.zeros(nodes, np.int32)
        self.nd_proven = np.zeros(nodes, np.int8)
        self.ed_move = np.zeros(edges, np.int32)
        self.ed_child = np.zeros(edges, np.int32)
        self.ed_n = np.zeros(edges, np.int32)
        self.ed_w = np.zeros(edges, np.float32)
        self.ed_rn = np.zeros(edges, np.int32)
        self.ed_rw = np.zeros(edges, np.float32)
        self.counters = np.array([0, 0, 0, nodes, edges], np.int64)
        #: the node arrays then the edge arrays, as the kernels take them
        self.arrays = (*self.nodes(), *self.edges())

    @property
    def size(self) -> tuple[int, int]:
        return self.nd_player.shape[0], self.ed_move.shape[0]

    def nodes(self) -> tuple[np.ndarray, ...]:
        return (self.nd_player, self.nd_stage, self.nd_first, self.nd_count, self.nd_n,
                self.nd_proven)

    def edges(self) -> tuple[np.ndarray, ...]:
        return (self.ed_move, self.ed_child, self.ed_n, self.ed_w, self.ed_rn, self.ed_rw)

    def node_cap(self, position_bytes: int) -> int:
        """The most nodes a tree in these pools may make when each node keeps a position of
        ``position_bytes`` besides its slots (0 in a compiled tree, whose nodes keep none): as
        many as the budget left beside the pools' arrays holds, at most the pools' nodes, at
        least the root."""
        nodes, edges = self.size
        if position_bytes <= 0:
            return nodes
        room = self.budget - nodes * NODE_BYTES - edges * EDGE_BYTES
        return max(1, min(nodes, room // position_bytes))

    def edge_range(self, node: int) -> range:
        """The edges of ``node`` (empty until it is expanded)."""
        first = int(self.nd_first[node]) if node >= 0 else -1
        return range(first, first + int(self.nd_count[node])) if first >= 0 else range(0)


def tie_key(edge: int, salt: int) -> int:
    """A pseudo-random key of ``edge`` fixed by ``salt`` (a multiplicative hash): equal
    (proof, visits, value) in the final choice go to the highest key, not to the first edge."""
    return ((edge ^ salt) * 0x9E3779B97F4A7C15 >> 17) & 0xFFFFFFFF


def winner_of_code(code: int) -> int | None:
    """The winner (0 a draw) of a proof code, ``None`` for ``PROOF_NONE``."""
    return None if code == PROOF_NONE else (0 if code == PROOF_DRAW else code)


def proof_rank(winner: int | None, mover: int) -> int:
    """2 for a proven win of ``mover``, 0 for a proven loss, 1 otherwise (for sorting)."""
    if winner is None or winner == 0:
        return 1
    return 2 if winner == mover else 0
