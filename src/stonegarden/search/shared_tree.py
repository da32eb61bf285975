"""Tree parallelism: one tree searched by ``threads`` threads at once (``mcts:threads=N,
parallel=tree``), for games with compiled tree kernels.

It is lock-free in the way Fuego's is (Enzenberger and Müller, A Lock-free Multithreaded
Monte-Carlo Tree Search Algorithm, Advances in Computer Games 2009):

- **allocation**: each thread takes new nodes and edges from a range of the pools of its own
  (``counters[3]``/``counters[4]`` end it), so two threads never get the same slot;
- **publication**: a node's edges are written before the node points at them
  (``tree_kernels.expand``), and a new node is whole before its edge points at it; a thread
  that finds the node expanded by another while it wrote its edges keeps the other's (only
  two publications within a few instructions of each other can both land: one set wins, and
  ``tree_kernels.prove`` takes no proof through an edge its node no longer has);
- **statistics** are updated without locks: an increment lost to a race costs one sample;
- **virtual loss** (``simulate.run_sims``' ``vloss``) makes each edge a thread is under look
  worse to the others until its result is in, so that they spread over the tree.

The threads run the same ``nogil`` simulation loop as one tree, each with its own AMAF
stamps, playout buffers, last-good-reply table, random stream and allocation counters (on
cache lines of their own: a counter is written every simulation). Each thread runs its own
chunks, taking them from one ``Allowance`` of simulations, until the budget ends; there is no
barrier between chunks, so no thread waits for a slower one until the search ends. The
calling thread polls ``budget.stop()``; the search returns only once every thread has ended
its chunk, so no thread runs outside a search. The tree is kept between moves as one tree's is;
since each search leaves gaps between the threads' ranges, a kept tree is compacted even
when its root stays where it is.

Which thread takes a node first depends on timing, so a shared-tree search is not
reproducible from its seed (root parallelism, ``parallel.py``, is, with a budget of
simulations). docs/parallel.md compares the two.
"""

from __future__ import annotations

from collections.abc import Callable
from concurrent.futures import Future, ThreadPoolExecutor, wait

import numpy as np

from ..core.protocol import Game, State
from ..errors import ParameterError
from .config import Budget, SearchConfig
from .pools import Pools
from .result import SearchResult
from .tree import Allowance, CompiledTree, TreeSpec
from .tree_kernels import seed_numba

#: visits without reward an edge counts per thread below it (Fuego's default, not tuned here)
VIRTUAL_LOSS = 1


class SharedTree(CompiledTree):
    """One compiled tree, ``threads`` threads (see the module's doc)."""

    compacts_kept_root = True

    def __init__(self, game: Game, config: SearchConfig, seed: int | None, spec: TreeSpec,
                 threads: int, pools: Pools | None = None) -> None:
        """Raises:
            ParameterError: fewer than two threads.
        """
        if threads < 2:
            raise ParameterError(f"a shared tree needs at least two threads, not {threads!r}")
        super().__init__(game, config, seed, spec, pools)
        self.threads = threads
        self.vloss = VIRTUAL_LOSS
        self._pool = ThreadPoolExecutor(threads - 1, thread_name_prefix="shared-tree")
        # per thread: its allocation counters (next node, next edge, AMAF stamp, range ends)
        # and its AMAF stamps; thread 0 is the caller's
        # (a row of 16: 128 bytes apart, so no two threads' counters share a cache line)
        self.ranges = list(np.zeros((threads, 16), np.int64))
        self.seens = [self.seen] + [np.zeros_like(self.seen) for _ in range(threads - 1)]
        # a last-good-reply table each: one shared table, written by every playout, cost
        # Free Go a third of its simulations at 2 threads (cache lines moving between cores)
        self.tables = [self.replies] + [self.replies.copy() for _ in range(threads - 1)]
        self._starts: list[tuple[int, int]] = []

    def _begin(self, state: State) -> None:
        """Share the free part of the pools out between the threads."""
        super()._begin(state)
        P = self.pools
        used_n, used_e = int(P.counters[0]), int(P.counters[1])
        size_n, size_e = int(P.counters[3]), P.size[1]  # the node cap (``Pools.node_cap``)
        t = self.threads
        self._starts = []
        for k, r in enumerate(self.ranges):
            r[0] = used_n + k * (size_n - used_n) // t
            r[3] = used_n + (k + 1) * (size_n - used_n) // t
            r[1] = used_e + k * (size_e - used_e) // t
            r[4] = used_e + (k + 1) * (size_e - used_e) // t
            self._starts.append((int(r[0]), int(r[1])))
        self._base = (used_n, used_e)

    def _simulations(self, state: State, budget: Budget, t0: float) -> int:
        allowance = self._allowance(budget)
        run = self._runner(0)
        done = 0
        if self.pools.nd_first[self.root] < 0 and allowance.take(1):
            # the caller expands a fresh root before the others start: two threads expanding
            # it at once each build a set of edges, and what goes through the set that loses
            # is lost (a thread's first chunk in fresh pages of the pools can take 50 ms)
            done = run(1, self._solving(state))
        # a search stopped before it starts runs the caller's one chunk alone: the others,
        # started, could run chunks of their own before the caller's first poll
        stopped = budget.stop is not None and budget.stop()
        futures: list[Future[int]] = [] if stopped else [
            self._pool.submit(self._thread, k, state, budget, t0, allowance)
            for k in range(1, self.threads)]
        try:
            done += self._chunks(state, budget, t0, run, allowance, poll_stop=True)
        finally:
            # never leave a thread in the tree: end the others' chunks and wait for them,
            # even on an error here (stop() may raise)
            allowance.end()
            wait(futures)
        done += sum(f.result() for f in futures)
        P = self.pools
        P.counters[0] = max(int(r[0]) for r in self.ranges)
        P.counters[1] = max(int(r[1]) for r in self.ranges)
        return done

    def _runner(self, k: int) -> Callable[[int, bool], int]:
        """Thread ``k``'s chunk: the compiled loop with its own counters, stamps and table."""
        counters, seen, table = self.ranges[k], self.seens[k], self.tables[k]
        return lambda want, solver: self._simulate(want, solver, counters, seen, table)

    def _thread(self, k: int, state: State, budget: Budget, t0: float,
                allowance: Allowance) -> int:
        """Thread ``k`` (not the caller's) searches until the allowance ends, on a random
        stream of its own for this search."""
        try:
            seed_numba((self.salt * 31 + k) % 2**31)
            return self._chunks(state, budget, t0, self._runner(k), allowance, poll_stop=False)
        finally:
            allowance.end()  # an error here ends the others' search too

    def _result(self, state: State, sims: int, seconds: float, reused: int) -> SearchResult:
        result = super()._result(state, sims, seconds, reused)
        # the nodes and edges in use, not the highest slot (the ranges leave gaps)
        nodes = self._base[0] + sum(int(r[0]) - s[0] for r, s in zip(self.ranges, self._starts))
        edges = self._base[1] + sum(int(r[1]) - s[1] for r, s in zip(self.ranges, self._starts))
        result.extra.update(nodes=nodes, edges=edges, threads=self.threads)
        return result

    def close(self) -> None:
        """End the pool's threads (they are idle between searches)."""
        self._pool.shutdown(wait=True)
