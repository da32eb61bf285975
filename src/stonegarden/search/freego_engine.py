"""Free Go's fast engine: drives the numba tree in ``games/freego/search_kernels.py``, the
generic tree's search (RAVE, solver, last good replies, priors, tree reuse) without its
Python per simulation. Positions under superko, and the ``tt`` and ``contempt`` options, are
left to the generic tree (``supports``)."""

from __future__ import annotations

import numpy as np

from ..core.protocol import Game, State
from ..games.freego import search_kernels as SK
from ..games.freego.playouts import KO_SUPER
from ..geometry.square import SIDE_TO_MOVE_KEY
from .config import SearchConfig
from .replies import NO_REPLIES, new_replies
from .result import MoveStat, SearchResult
from .tree_engine import ArrayTreeEngine
from .tree_kernels import new_node
from .tree_pools import EDGE_POOL, NODE_POOL, proof_rank, winner_of_code


class FreeGoEngine(ArrayTreeEngine):
    """MCTS for ``freego`` over array pools; tree (and reply table) kept between moves."""

    @staticmethod
    def supports(game: Game, config: SearchConfig) -> bool:
        """Whether this engine searches ``game`` with ``config`` as the generic tree would."""
        tt = game.default_tt if config.tt is None else config.tt
        return game.ko_mode != KO_SUPER and not tt and config.contempt == 0  # type: ignore[attr-defined]

    def __init__(self, game: Game, config: SearchConfig, seed: int | None,
                 nodes: int = NODE_POOL, edges: int = EDGE_POOL) -> None:
        super().__init__(game, config, seed, nodes, edges)
        self.nb = game.board.neighbours  # type: ignore[attr-defined]
        self.n = int(self.nb.shape[0])
        self.seen = np.zeros((3, self.n), np.int64)
        self.replies = new_replies(self.n) if config.lgr_for(game) else NO_REPLIES

    # -- tree reuse -------------------------------------------------------------------------
    def _find_root(self, state: State) -> int:
        """The node of ``state`` in the kept tree: the old root itself, or a node up to four
        moves below it. Only moves whose point holds the mover's stone in ``state`` are
        followed (a stone captured again on the way loses the tree, which is rare), so the
        walk plays a handful of moves, not the tree."""
        old = self.root_state
        if old is None or self.root < 0 or not self.config.reuse:
            return -1
        if not 0 <= state.ply - old.ply <= 4:
            return -1
        target = state.cells()  # type: ignore[attr-defined]
        todo = [(self.root, old)]
        while todo:
            node, s = todo.pop()
            if s.ply == state.ply:
                if s == state:
                    return node
                continue
            for e in self._edges(node):
                move, child = int(self.pools.ed_move[e]), int(self.pools.ed_child[e])
                if child >= 0 and target[move] == s.player:
                    todo.append((child, self.game.play_unchecked(s, move)))
        return -1

    def _new_root(self, state: State) -> int:
        return new_node(*self.pools.nodes(), self.pools.counters, state.player, 0, -1, 0)

    # -- search -----------------------------------------------------------------------------
    def _run(self, want: int, state: State, solver: bool) -> int:
        return int(SK.run_sims(want, *self._args(state, solver)))

    def _args(self, state: State, solver: bool) -> tuple:
        g, cfg, P = self.game, self.config, self.pools
        history = state.history  # type: ignore[attr-defined]
        prev_h = history[-2] if len(history) >= 2 else 0
        return (self.root, state.cells().copy(), np.array(state.scores, np.int64),  # type: ignore[attr-defined]
                np.int64(g._hash(state)), np.int64(prev_h),  # type: ignore[attr-defined]
                int(g.params["target"]), int(g.ko_mode),  # type: ignore[attr-defined]
                int(g.max_game_length), self.nb, g.board.zobrist,  # type: ignore[attr-defined]
                np.int64(SIDE_TO_MOVE_KEY), *P.nodes(), *P.edges(), P.counters,
                cfg.c_for(g), bool(cfg.rave), cfg.rave_k_for(g), solver, int(cfg.captures),
                cfg.safe_for(g),
                cfg.prior_for(g) if cfg.rave else 0, self.seen, self.replies)

    # -- reading the tree -------------------------------------------------------------------
    def _proof(self, e: int) -> int | None:
        child = int(self.pools.ed_child[e])
        return winner_of_code(int(self.pools.nd_proven[child])) if child >= 0 else None

    def _best_edge(self, node: int) -> int:
        """The edge with a proven win, else the most visited (the first of equals in the
        node's random order); -1 if none was visited."""
        P = self.pools
        p = int(P.nd_player[node])
        edges = [e for e in self._edges(node) if P.ed_n[e] > 0]
        if not edges:
            return -1
        return max(edges, key=lambda e: (proof_rank(self._proof(e), p), int(P.ed_n[e]), -e))

    def _result(self, state: State, sims: int, seconds: float, reused: int) -> SearchResult:
        P = self.pools
        root = self.root
        p = state.player
        moves = [MoveStat(int(P.ed_move[e]), int(P.ed_n[e]), float(P.ed_w[e]) / int(P.ed_n[e]),
                          self._proof(e))
                 for e in self._edges(root) if P.ed_n[e] > 0]
        moves.sort(key=lambda m: (-proof_rank(m.proven, p), -m.visits, -m.value))
        if not moves:  # no simulation reached a move (tiny budget): any legal move
            acts = self.game.legal_actions(state)
            moves = [MoveStat(int(acts[0]), 0, 0.5)]
        value, proven = self._root_value(p)
        pv: list[int] = []
        node = root
        while node >= 0 and len(pv) < 40:
            e = self._best_edge(node)
            if e < 0:
                break
            pv.append(int(P.ed_move[e]))
            node = int(P.ed_child[e])
        return SearchResult(value, moves, pv, sims, seconds, proven, reused,
                            {"nodes": int(P.counters[0]), "edges": int(P.counters[1])})
