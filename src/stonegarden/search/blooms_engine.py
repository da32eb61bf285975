"""The capture race's fast engine: drives the numba tree in ``games/blooms/search_kernels.py``
and translates between its split (stage) decisions and the protocol's whole-turn actions."""

from __future__ import annotations

import numpy as np

from ..core.protocol import Game, State
from ..games.blooms import search_kernels as SK
from .config import Budget, SearchConfig
from .result import MoveStat, SearchResult
from .tree_engine import ArrayTreeEngine
from .tree_pools import EDGE_POOL, NODE_POOL, proof_rank, tie_key, winner_of_code


class BloomsRaceEngine(ArrayTreeEngine):
    """MCTS for ``blooms`` with split moves, RAVE, solver and capture-preferring playouts,
    each switchable through ``SearchConfig``; tree kept between moves."""

    def __init__(self, game: Game, config: SearchConfig, seed: int | None,
                 nodes: int = NODE_POOL, edges: int = EDGE_POOL) -> None:
        super().__init__(game, config, seed, nodes, edges)
        self.n = game.num_cells  # type: ignore[attr-defined]
        self.nb = game.board.neighbours  # type: ignore[attr-defined]
        self.target = int(game.params["target"])
        self.max_turns = int(game.max_game_length)
        self.amaf = np.zeros((2, 2, self.n), np.int64)
        self.last_best: int | None = None

    # -- tree reuse -------------------------------------------------------------------------
    def _split(self, action: int) -> tuple[int, int]:
        stones = self.game.decode(action)  # type: ignore[attr-defined]
        assert stones is not None
        return stones

    def _child(self, node: int, move: int) -> int:
        P = self.pools
        first = int(P.nd_first[node])
        if first < 0:
            return -1
        for e in range(first, first + int(P.nd_count[node])):
            if P.ed_move[e] == move:
                return int(P.ed_child[e])
        return -1

    def _follow(self, node: int, action: int) -> int:
        """The node after the whole turn ``action`` from ``node`` (-1 if not in the tree)."""
        a, b = self._split(action)
        if self.config.split:
            mid = self._child(node, a)
            return self._child(mid, b) if mid >= 0 else -1
        return self._child(node, (a + 1) * (self.n + 1) + b + 1)

    def _diff_action(self, before: State, after: State) -> int | None:
        """The turn that leads from ``before`` to ``after``: the mover's new stones."""
        b0 = before.cells()  # type: ignore[attr-defined]
        b1 = after.cells()  # type: ignore[attr-defined]
        p = before.player
        a = np.flatnonzero((b0 == 0) & (b1 == 2 * p - 1))
        b = np.flatnonzero((b0 == 0) & (b1 == 2 * p))
        if len(a) > 1 or len(b) > 1 or len(a) + len(b) == 0:
            return None
        action = int(self.game.encode(int(a[0]) if len(a) else -1,  # type: ignore[attr-defined]
                                      int(b[0]) if len(b) else -1))
        return action if self.game.play_unchecked(before, action) == after else None

    def _find_root(self, state: State) -> int:
        old = self.root_state
        if old is None or self.root < 0 or not self.config.reuse:
            return -1
        if old == state:
            return self.root
        node, s = self.root, old
        while s.ply < state.ply and node >= 0:
            if self.last_best is not None and s is old:
                action: int | None = self.last_best
                nxt = self.game.play_unchecked(s, self.last_best)
                if nxt.ply == state.ply and nxt != state:
                    action = self._diff_action(s, state)
                    nxt = state if action is not None else nxt
            else:
                action = self._diff_action(s, state)
                nxt = state
            if action is None:
                return -1
            node = self._follow(node, action)
            s = nxt
        return node if s == state else -1

    def _new_root(self, state: State) -> int:
        P = self.pools
        return SK.new_node(*P.nodes(), P.counters, state.player,
                           0 if self.config.split else 2, -1, 0)

    # -- search -----------------------------------------------------------------------------
    def search(self, state: State, budget: Budget) -> SearchResult:
        """Search from ``state`` (non-terminal) within ``budget``."""
        result = super().search(state, budget)
        self.last_best = result.best
        return result

    def _run(self, want: int, state: State, solver: bool) -> int:
        cfg = self.config
        P = self.pools
        return int(SK.run_sims(
            want, self.root, state.cells().copy(), np.array(state.scores, np.int64),  # type: ignore[attr-defined]
            state.ply == 0, self.target, self.max_turns, self.nb, *P.nodes(), *P.edges(),
            P.counters, cfg.c_for(self.game), bool(cfg.rave and cfg.split),
            cfg.rave_k_for(self.game), solver, int(cfg.captures), self.amaf, int(cfg.grave)))

    # -- reading the tree -------------------------------------------------------------------
    def _rank(self, node: int, e: int) -> tuple[int, int, float]:
        P = self.pools
        child = int(P.ed_child[e])
        pr = int(P.nd_proven[child]) if child >= 0 else 0
        p = int(P.nd_player[node])
        proof = 1 if pr in (0, 3) else (2 if pr == p else 0)
        n = int(P.ed_n[e])
        return proof, n, float(P.ed_w[e]) / n if n else 0.0

    def _best_edge(self, node: int) -> int:
        """The edge ranked first; equal ranks (common in small searches) go to a per-search
        seeded order of the edges, not to the lowest cell or the first colour."""
        edges = self._edges(node)
        if node < 0 or not edges:
            return -1
        return max(edges, key=lambda e: (*self._rank(node, e), tie_key(e, self.salt)))

    def _turns(self, node: int) -> list[tuple[int, int, float, int, int]]:
        """Whole turns from ``node``: (action, visits, mover value, child node, proven code)."""
        P = self.pools
        out = []
        n = self.n
        for e in self._edges(node):
            visits = int(P.ed_n[e])
            if visits == 0:
                continue
            mv = int(P.ed_move[e])
            child = int(P.ed_child[e])
            if self.config.split:
                if child < 0 or P.nd_first[child] < 0:
                    continue
                for f in self._edges(child):
                    if P.ed_n[f] == 0:
                        continue
                    b = int(P.ed_move[f])
                    g = int(P.ed_child[f])
                    out.append((self.game.encode(mv, b), int(P.ed_n[f]),  # type: ignore[attr-defined]
                                float(P.ed_w[f]) / float(P.ed_n[f]), g,
                                int(P.nd_proven[g]) if g >= 0 else 0))
            else:
                a, b = mv // (n + 1) - 1, mv % (n + 1) - 1
                out.append((self.game.encode(a, b), visits,  # type: ignore[attr-defined]
                            float(P.ed_w[e]) / visits, child,
                            int(P.nd_proven[child]) if child >= 0 else 0))
        return out

    def _best_turn(self, node: int, state: State) -> tuple[int, int] | None:
        """(action, node after it) following the best edges, ``None`` if unexplored."""
        e = self._best_edge(node)
        if e < 0 or self.pools.ed_n[e] == 0:
            return None
        if not self.config.split:
            mv = int(self.pools.ed_move[e])
            a, b = mv // (self.n + 1) - 1, mv % (self.n + 1) - 1
            return self.game.encode(a, b), int(self.pools.ed_child[e])  # type: ignore[attr-defined]
        a = int(self.pools.ed_move[e])
        mid = int(self.pools.ed_child[e])
        f = self._best_edge(mid)
        if f >= 0 and self.pools.ed_n[f] > 0:
            return self.game.encode(a, int(self.pools.ed_move[f])), int(self.pools.ed_child[f])  # type: ignore[attr-defined]
        # the second stone was never searched: the one stone alone, if that is a legal turn
        action = self.game.encode(a, -1) if a >= 0 else None  # type: ignore[attr-defined]
        if action is None or not self.game.is_legal(state, action):
            return None
        return action, -1

    def _result(self, state: State, sims: int, seconds: float, reused: int) -> SearchResult:
        P = self.pools
        root = self.root
        p = state.player
        turns = self._turns(root)
        moves = [MoveStat(a, v, q, winner_of_code(pr)) for a, v, q, _, pr in turns]
        best = self._best_turn(root, state)
        moves.sort(key=lambda m: (-proof_rank(m.proven, p), -m.visits, -m.value))
        if best is not None and (not moves or moves[0].action != best[0]):
            stat = next((m for m in moves if m.action == best[0]), MoveStat(best[0], 0, 0.5))
            moves = [stat] + [m for m in moves if m.action != best[0]]
        if not moves:
            acts = self.game.legal_actions(state)
            moves = [MoveStat(int(acts[0]), 0, 0.5)]
        value, proven = self._root_value(p)
        pv: list[int] = []
        node, s = root, state
        while node >= 0 and len(pv) < 30 and not self.game.is_terminal(s):
            step = self._best_turn(node, s)
            if step is None:
                break
            pv.append(step[0])
            s = self.game.play_unchecked(s, step[0])
            node = step[1]
        return SearchResult(value, moves, pv, sims, seconds, proven, reused,
                            {"nodes": int(P.counters[0]), "edges": int(P.counters[1])})
