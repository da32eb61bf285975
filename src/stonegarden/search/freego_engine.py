"""Free Go's fast engine: drives the numba tree in ``games/freego/search_kernels.py``, the
generic tree's search (RAVE, solver, last good replies, priors, tree reuse) without its
Python per simulation. Positions under superko, and the ``tt`` and ``contempt`` options, are
left to the generic tree (``supports``)."""

from __future__ import annotations

import time

import numpy as np

from ..core.protocol import Game, State
from ..games.freego import search_kernels as SK
from ..games.freego.playouts import KO_SUPER
from ..geometry.square import SIDE_TO_MOVE_KEY
from .config import Budget, SearchConfig
from .replies import NO_REPLIES, new_replies
from .result import MoveStat, SearchResult
from .tree_kernels import compact, new_node, seed_numba
from .tree_pools import EDGE_POOL, NODE_POOL, Pools, proof_rank, winner_of_code


class FreeGoEngine:
    """MCTS for ``freego`` over array pools; tree (and reply table) kept between moves."""

    @staticmethod
    def supports(game: Game, config: SearchConfig) -> bool:
        """Whether this engine searches ``game`` with ``config`` as the generic tree would."""
        tt = game.default_tt if config.tt is None else config.tt
        return game.ko_mode != KO_SUPER and not tt and config.contempt == 0  # type: ignore[attr-defined]

    def __init__(self, game: Game, config: SearchConfig, seed: int | None,
                 nodes: int = NODE_POOL, edges: int = EDGE_POOL) -> None:
        self.game = game
        self.config = config
        self.seed = seed
        self.searches = 0
        self.nb = game.board.neighbours  # type: ignore[attr-defined]
        self.n = int(self.nb.shape[0])
        self.pool_size = (nodes, edges)
        self.pools = Pools(nodes, edges)
        self.seen = np.zeros((3, self.n), np.int64)
        self.replies = new_replies(self.n) if config.lgr_for(game) else NO_REPLIES
        self.root = -1
        self.root_state: State | None = None

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

    def _prepare_root(self, state: State) -> int:
        """Point ``root`` at the node of ``state`` (a fresh tree if it is not kept); the
        simulations kept. A kept subtree is copied to fresh pools once a third is used."""
        P = self.pools
        found = self._find_root(state)
        if found < 0:
            P.counters[:2] = 0
            self.root = new_node(*P.nodes(), P.counters, state.player, 0, -1, 0)
            return 0
        reused = int(P.nd_n[found])
        if found != 0 and (P.counters[0] > P.nd_player.shape[0] // 3
                           or P.counters[1] > P.ed_move.shape[0] // 3):
            fresh = Pools(*self.pool_size)
            compact(found, *P.nodes(), *P.edges(), *fresh.nodes(), *fresh.edges(),
                    fresh.counters)
            fresh.counters[2] = P.counters[2]
            self.pools = fresh
            found = 0
        self.root = found
        return reused

    # -- search -----------------------------------------------------------------------------
    def search(self, state: State, budget: Budget) -> SearchResult:
        """Search from ``state`` (non-terminal) within ``budget``."""
        t0 = time.perf_counter()
        reused = self._prepare_root(state)
        self.root_state = state
        seed = self.seed
        if seed is None:
            seed = int(np.random.SeedSequence().entropy) % 2**31  # type: ignore[arg-type]
        seed_numba((seed * 1_000_003 + self.searches) % 2**31)
        self.searches += 1
        sims = 0
        chunk = 16
        while True:
            want = chunk
            if budget.sims is not None:
                want = min(want, budget.sims - sims)
                if want <= 0:
                    break
            t1 = time.perf_counter()
            code = int(self.pools.nd_proven[self.root])
            # proven lost (or drawn): search on without the proofs, for the most resistant
            # move against an opponent who may not find the win
            solver = bool(self.config.solver) and code in (0, state.player)
            done = int(SK.run_sims(want, *self._args(state, solver)))
            sims += done
            if done < want:  # the solver proved the root
                break
            if budget.stop is not None and budget.stop():
                break
            now = time.perf_counter()
            if budget.seconds is not None:
                if now - t0 >= budget.seconds:
                    break
                # aim at ~20 ms chunks, never past the deadline
                per = max((now - t1) / max(done, 1), 1e-7)
                left = budget.seconds - (now - t0)
                chunk = int(max(1, min(chunk * 2, 0.02 / per, left / per + 1)))
            else:
                chunk = min(chunk * 2, 4096)
        return self._result(state, sims, time.perf_counter() - t0, reused)

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
                cfg.prior_for(g) if cfg.rave else 0, self.seen, self.replies)

    # -- reading the tree -------------------------------------------------------------------
    def _edges(self, node: int) -> range:
        first = int(self.pools.nd_first[node]) if node >= 0 else -1
        return range(first, first + int(self.pools.nd_count[node])) if first >= 0 else range(0)

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
        total_n = sum(int(P.ed_n[e]) for e in self._edges(root))
        total_w = sum(float(P.ed_w[e]) for e in self._edges(root))
        value = total_w / total_n if total_n else 0.5
        proven = winner_of_code(int(P.nd_proven[root]))
        if proven is not None:
            value = 1.0 if proven == p else 0.0 if proven != 0 else 0.5
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
