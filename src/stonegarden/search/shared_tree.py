"""Tree parallelism: one tree searched by ``threads`` threads at once (``mcts:threads=N,
parallel=tree``), for games with compiled tree kernels.

It is lock-free in the way Fuego's is (Enzenberger and Müller, A Lock-free Multithreaded
Monte-Carlo Tree Search Algorithm, Advances in Computer Games 2009):

- **allocation**: each thread takes new nodes and edges from a range of the pools of its own
  (``counters[3]``/``counters[4]`` end it), so two threads never get the same slot;
- **publication**: a node's edges are written before the node points at them
  (``tree_kernels.expand``), and a new node is whole before its edge points at it; two
  threads expanding one node at once each build a whole set of edges, and one set wins;
- **statistics** are updated without locks: an increment lost to a race costs one sample;
- **virtual loss** (``simulate.run_sims``' ``vloss``) makes each edge a thread is under look
  worse to the others until its result is in, so that they spread over the tree.

The threads run the same ``nogil`` simulation loop as one tree, each with its own AMAF
stamps, playout buffers, last-good-reply table and random stream; the driver
(``tree.TreeSearch.search``) hands each thread a share of every chunk and waits for all of
them, so no thread runs outside a search. The tree is kept between moves as one tree's is;
since each search leaves gaps between the threads' ranges, a kept tree is compacted even
when its root stays where it is.

Which thread takes a node first depends on timing, so a shared-tree search is not
reproducible from its seed (root parallelism, ``parallel.py``, is, with a budget of
simulations). docs/ai.md ("Parallel search") compares the two.
"""

from __future__ import annotations

from concurrent.futures import Future, ThreadPoolExecutor

import numpy as np

from ..core.protocol import Game, State
from ..errors import ParameterError
from .config import SearchConfig
from .pools import Pools
from .result import SearchResult
from .tree import CompiledTree, TreeSpec
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
        self.ranges = [np.zeros(5, np.int64) for _ in range(threads)]
        self.seens = [self.seen] + [np.zeros_like(self.seen) for _ in range(threads - 1)]
        # a last-good-reply table each: one shared table, written by every playout, cost
        # Free Go a third of its simulations at 2 threads (cache lines moving between cores)
        self.tables = [self.replies] + [self.replies.copy() for _ in range(threads - 1)]
        self._starts: list[tuple[int, int]] = []
        self._chunks = 0

    def _begin(self, state: State) -> None:
        """Share the free part of the pools out between the threads."""
        super()._begin(state)
        P = self.pools
        used_n, used_e = int(P.counters[0]), int(P.counters[1])
        size_n, size_e = P.size
        t = self.threads
        self._starts = []
        for k, r in enumerate(self.ranges):
            r[0] = used_n + k * (size_n - used_n) // t
            r[3] = used_n + (k + 1) * (size_n - used_n) // t
            r[1] = used_e + k * (size_e - used_e) // t
            r[4] = used_e + (k + 1) * (size_e - used_e) // t
            self._starts.append((int(r[0]), int(r[1])))
        self._base = (used_n, used_e)

    def _run(self, want: int, state: State, solver: bool) -> int:
        if want <= 0:
            return super()._run(0, state, solver)  # loads the kernel; runs nothing
        self._chunks += 1
        t = self.threads
        shares = [want // t + (1 if k < want % t else 0) for k in range(t)]
        futures: list[Future[int]] = [
            self._pool.submit(self._run_thread, k, n, solver)
            for k, n in enumerate(shares) if k > 0 and n > 0]
        try:
            done = self._run_thread(0, shares[0], solver)
        finally:
            # never leave a thread in the tree: wait for every one, even on an error here
            done_others = [f.result() for f in futures]
        P = self.pools
        P.counters[0] = max(int(r[0]) for r in self.ranges)
        P.counters[1] = max(int(r[1]) for r in self.ranges)
        return done + sum(done_others)

    def _run_thread(self, k: int, want: int, solver: bool) -> int:
        """Thread ``k``'s ``want`` simulations (threads other than the caller's seed their own
        random stream for each chunk: a pool thread may take any thread's share)."""
        if k > 0:
            seed_numba((self.salt * 31 + self._chunks * 1_000_003 + k) % 2**31)
        return self._simulate(want, solver, self.ranges[k], self.seens[k], self.tables[k])

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
