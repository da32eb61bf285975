"""What the numba tree engines (``blooms_engine.py``, ``freego_engine.py``) share: the pools,
finding and keeping the root between moves, and the search loop that runs the game's kernel in
chunks against the budget. An engine supplies the kernel call and the game's side of the tree
(its root node, where a new position sits in the kept tree, what the tree says)."""

from __future__ import annotations

import time

import numpy as np

from ..core.protocol import Game, State
from .config import Budget, SearchConfig
from .result import SearchResult
from .tree_kernels import compact, seed_numba
from .tree_pools import Pools, winner_of_code


class ArrayTreeEngine:
    """Base of the numba tree engines; see the module docstring."""

    def __init__(self, game: Game, config: SearchConfig, seed: int | None, nodes: int,
                 edges: int) -> None:
        self.game = game
        self.config = config
        self.seed = seed
        self.searches = 0
        self.pool_size = (nodes, edges)
        self.pools = Pools(nodes, edges)
        self.root = -1
        self.root_state: State | None = None
        self.salt = 0  # orders equal edges in the final choice; set by each search's seed

    # -- the game's side --------------------------------------------------------------------
    def _find_root(self, state: State) -> int:
        """The node of ``state`` in the kept tree, or -1."""
        raise NotImplementedError

    def _new_root(self, state: State) -> int:
        """Allocate the root node of a fresh tree for ``state`` (pools already emptied)."""
        raise NotImplementedError

    def _run(self, want: int, state: State, solver: bool) -> int:
        """Run the kernel for up to ``want`` simulations from the root; how many ran."""
        raise NotImplementedError

    def _result(self, state: State, sims: int, seconds: float, reused: int) -> SearchResult:
        raise NotImplementedError

    # -- shared -----------------------------------------------------------------------------
    def _prepare_root(self, state: State) -> int:
        """Point ``root`` at the node of ``state`` (a fresh tree if it is not kept); the
        simulations kept. A kept subtree is copied to fresh pools once a third is used."""
        P = self.pools
        found = self._find_root(state)
        if found < 0:
            P.counters[:2] = 0
            self.root = self._new_root(state)
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

    def _root_value(self, mover: int) -> tuple[float, int | None]:
        """(the root's value for ``mover``, its proven winner or ``None``): the mean reward
        over the root's edges, or the proof's exact value."""
        P = self.pools
        edges = self._edges(self.root)
        total_n = sum(int(P.ed_n[e]) for e in edges)
        value = sum(float(P.ed_w[e]) for e in edges) / total_n if total_n else 0.5
        proven = winner_of_code(int(P.nd_proven[self.root]))
        if proven is not None:
            value = 1.0 if proven == mover else 0.0 if proven != 0 else 0.5
        return value, proven

    def _edges(self, node: int) -> range:
        first = int(self.pools.nd_first[node]) if node >= 0 else -1
        return range(first, first + int(self.pools.nd_count[node])) if first >= 0 else range(0)

    def search(self, state: State, budget: Budget) -> SearchResult:
        """Search from ``state`` (non-terminal) within ``budget``."""
        t0 = time.perf_counter()
        reused = self._prepare_root(state)
        self.root_state = state
        seed = self.seed
        if seed is None:
            seed = int(np.random.SeedSequence().entropy) % 2**31  # type: ignore[arg-type]
        self._run(0, state, False)  # compile or load outside the budget
        self.salt = (seed * 1_000_003 + self.searches) % 2**31
        seed_numba(self.salt)
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
            done = self._run(want, state, solver)
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
