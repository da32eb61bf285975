"""Root parallelism: ``threads`` independent searches of one position at once, their root
statistics merged (visits summed, values weighted by visits, proofs kept) into one result.

A game with compiled tree kernels runs each extra tree in a thread: the simulation loop is a
``nogil`` kernel, so the threads run on separate cores and only meet between ~20 ms chunks. A
game searched through the protocol holds the GIL in every simulation, so its extra trees run
in helper processes (``helpers.py``). Either way the first tree is the calling thread's own
engine, with the seed it would have alone, and keeps its tree between moves; each helper
keeps its own. Each tree's pools and budget of bytes (``pools.TREE_BYTES``) are 1/N of one
tree's, so N trees keep one tree's memory bound. ``new_searcher`` chooses between this and
one tree shared by the threads (``shared_tree.py``); docs/parallel.md compares the two and
says how each scales.

A budget of simulations is a total, shared out between the trees (each a fixed share with its
own seed, so a seeded search stays reproducible); a budget of seconds is the same deadline for
every tree; ``stop()`` is polled by the calling thread, which tells every tree to stop (the
trees in threads poll it too: it must be safe to call from any thread, as an ``Event``'s is).
"""

from __future__ import annotations

import contextlib
import threading
import time
from collections.abc import Callable
from concurrent.futures import Future, ThreadPoolExecutor
from contextlib import AbstractContextManager
from typing import Protocol

from ..core.protocol import Game, State
from ..errors import ParameterError
from .config import Budget, SearchConfig
from .engines import make_engine, warm_up
from .pools import EDGE_POOL, NODE_POOL, TREE_BYTES, Pools, proof_rank
from .profile import profile_for
from .protocol_tree import ProtocolTree
from .result import MoveStat, SearchResult
from .shared_tree import SharedTree
from .tree import TreeSearch
from .tree_kernels import root_won

#: how often the calling thread looks at ``stop()`` while the trees search
POLL_SECONDS = 0.01


class Searcher(Protocol):
    """What an agent searches with: one tree (``TreeSearch``) or several (``RootParallel``)."""

    def search(self, state: State, budget: Budget) -> SearchResult: ...


def tree_seed(seed: int | None, k: int) -> int | None:
    """The seed of tree ``k`` of a parallel search seeded with ``seed`` (tree 0 keeps it)."""
    if seed is None or k == 0:
        return seed
    return (seed + k * 0x9E3779B97F4A7C15) % 2**63


def share_sims(sims: int, threads: int) -> list[int]:
    """``sims`` shared out between at most ``threads`` trees, none given nothing."""
    n = min(sims, threads)
    return [sims // n + (1 if k < sims % n else 0) for k in range(n)]


def merge_results(parts: list[SearchResult], mover: int) -> SearchResult:
    """One result from the searches of one position by independent trees: each move's
    visits summed and values weighted by visits; a move or root proven by any tree is proven
    (proofs are exact); moves ranked as one tree ranks them (proof, visits, value; equal ones
    in the order the trees first list them, tree 0 first)."""
    visits: dict[int, int] = {}
    wins: dict[int, float] = {}
    proven: dict[int, int | None] = {}
    for part in parts:
        for m in part.moves:
            visits[m.action] = visits.get(m.action, 0) + m.visits
            wins[m.action] = wins.get(m.action, 0.0) + m.value * m.visits
            if proven.get(m.action) is None:
                proven[m.action] = m.proven
    moves = [MoveStat(a, n, wins[a] / n if n else 0.5, proven[a]) for a, n in visits.items()]
    moves.sort(key=lambda m: (-proof_rank(m.proven, mover), -m.visits, -m.value))
    root_proven = next((p.proven for p in parts if p.proven is not None), None)
    if root_proven is not None:
        value = 1.0 if root_proven == mover else 0.0 if root_proven != 0 else 0.5
    else:
        weights = [sum(m.visits for m in p.moves) for p in parts]
        total = sum(weights)
        value = (sum(w * p.value for w, p in zip(weights, parts)) / total if total
                 else parts[0].value)
    best = moves[0].action
    leads = [p for p in parts if p.pv and p.pv[0] == best]
    pv = max(leads, key=lambda p: next(m.visits for m in p.moves if m.action == best)).pv \
        if leads else [best]
    extra: dict[str, object] = {"threads": len(parts)}
    for key in ("nodes", "edges"):
        extra[key] = sum(int(p.extra.get(key, 0)) for p in parts)  # type: ignore[call-overload]
    return SearchResult(value, moves, list(pv), sum(p.sims for p in parts),
                        max(p.seconds for p in parts), root_proven,
                        sum(p.reused for p in parts), extra)


class Helper(Protocol):
    """One extra tree: ``begin`` starts its search (``deadline``: a ``time.time()``), ``stop``
    asks it to end now, ``done`` says whether it has, ``end`` takes its result (``None`` if it
    could not search: too late, or its process died)."""

    def begin(self, state: State, sims: int | None, deadline: float | None,
              outer: Callable[[], bool] | None) -> None: ...

    def stop(self) -> None: ...

    def done(self) -> bool: ...

    def end(self) -> SearchResult | None: ...


class _ThreadHelper:
    """An extra tree searched in a thread of the pool (compiled kernels release the GIL)."""

    def __init__(self, engine: TreeSearch, pool: ThreadPoolExecutor, halt: threading.Event):
        self.engine = engine
        self.pool = pool
        self.halt = halt
        self.future: Future[SearchResult | None] | None = None

    def _search(self, state: State, sims: int | None, deadline: float | None,
                outer: Callable[[], bool] | None) -> SearchResult | None:
        seconds = None if deadline is None else deadline - time.time()
        if seconds is not None and seconds <= 0:
            return None

        def stop() -> bool:
            return self.halt.is_set() or (outer is not None and outer())

        return self.engine.search(state, Budget(sims=sims, seconds=seconds, stop=stop))

    def begin(self, state: State, sims: int | None, deadline: float | None,
              outer: Callable[[], bool] | None) -> None:
        self.future = self.pool.submit(self._search, state, sims, deadline, outer)

    def stop(self) -> None:
        self.halt.set()

    def done(self) -> bool:
        return self.future is None or self.future.done()

    def end(self) -> SearchResult | None:
        assert self.future is not None
        result, self.future = self.future.result(), None
        return result


class RootParallel:
    """``threads`` trees searching one position (root parallelism); see the module's doc.
    ``last_parts``: every tree's own result of the last search, tree 0 first."""

    def __init__(self, game: Game, config: SearchConfig, seed: int | None, threads: int,
                 processes: bool | None = None) -> None:
        """``processes``: run the extra trees in helper processes (default: exactly when the
        game is searched through the protocol; ``False`` there measures the alternative, trees
        in threads that share the GIL).

        Raises:
            ParameterError: fewer than two trees.
        """
        if threads < 2:
            raise ParameterError(f"root parallelism needs at least two trees, not {threads!r}")
        self.game = game
        self.threads = threads
        # the trees together keep the one tree's memory bound
        size = (max(1, NODE_POOL // threads), max(1, EDGE_POOL // threads),
                TREE_BYTES // threads)
        self.first = make_engine(game, config, seed, Pools(*size))
        self.halt = threading.Event()
        self.helpers: list[Helper] = []
        self._pool: ThreadPoolExecutor | None = None
        self._exclusive: AbstractContextManager[object] = contextlib.nullcontext()
        seeds = [tree_seed(seed, k) for k in range(1, threads)]
        if processes is None:
            processes = isinstance(self.first, ProtocolTree)
        if not processes:
            self._pool = ThreadPoolExecutor(threads - 1, thread_name_prefix="search")
            for s in seeds:
                engine = make_engine(game, config, s, Pools(*size))
                self.helpers.append(_ThreadHelper(engine, self._pool, self.halt))
        else:
            from .helpers import SEARCH_LOCK, process_helpers

            self.helpers = list(process_helpers(game, config, seeds, size))
            self._exclusive = SEARCH_LOCK
        self.last_parts: list[SearchResult] = []

    def search(self, state: State, budget: Budget) -> SearchResult:
        """Search ``state`` with every tree within ``budget`` and merge their roots."""
        with self._exclusive:
            return self._search(state, budget)

    def _search(self, state: State, budget: Budget) -> SearchResult:
        self.halt.clear()
        trees = 1 + len(self.helpers)
        shares = share_sims(budget.sims, trees) if budget.sims is not None else None
        deadline = None if budget.seconds is None else time.time() + budget.seconds
        helpers = self.helpers if shares is None else self.helpers[:len(shares) - 1]
        if budget.stop is not None and budget.stop():
            helpers = []  # stopped already: the first tree's one chunk answers
        for k, helper in enumerate(helpers, 1):
            helper.begin(state, None if shares is None else shares[k], deadline, budget.stop)
        own = Budget(sims=None if shares is None else shares[0], seconds=budget.seconds,
                     stop=budget.stop)
        finished = False
        try:
            first = self.first.search(state, own)
            finished = True
        finally:
            # a deadline, a stop, a proof or an error (Ctrl-C) ends every tree; a share of
            # simulations does not
            if not finished or shares is None or first_ended_early(budget, self.first):
                self._stop(helpers)
            others = self._collect(helpers, budget)
        self.last_parts = [first] + [r for r in others if r is not None]
        return merge_results(self.last_parts, state.player)

    def _collect(self, helpers: list[Helper], budget: Budget) -> list[SearchResult | None]:
        """Wait for every helper and take its result. A tree must never be searched by two
        threads, so this always waits: a stop, or an error while waiting (Ctrl-C, a raising
        ``stop()``), halts them all, and the first error is raised once they have ended."""
        error: BaseException | None = None
        while not all(h.done() for h in helpers):
            try:
                if budget.stop is not None and budget.stop():
                    self._stop(helpers)
                time.sleep(POLL_SECONDS)
            except BaseException as exc:
                self._stop(helpers)
                error = error or exc
        results: list[SearchResult | None] = []
        for h in helpers:
            try:
                results.append(h.end())
            except BaseException as exc:  # a tree's own error, raised once all have ended
                error = error or exc
                results.append(None)
        if error is not None:
            raise error
        return results

    def _stop(self, helpers: list[Helper]) -> None:
        for h in helpers:
            h.stop()

    def close(self) -> None:
        """End the helper threads (processes are shared: ``helpers.close_all``)."""
        if self._pool is not None:
            self._pool.shutdown(wait=False)


def first_ended_early(budget: Budget, first: TreeSearch) -> bool:
    """Whether tree 0 ended before its share: stopped, or its root proven won."""
    stopped = budget.stop is not None and budget.stop()
    P = first.pools
    return stopped or bool(root_won(first.root, P.nd_proven, P.nd_player))


#: how several threads search: one shared tree, or a tree each merged at the root
PARALLEL_MODES = ("tree", "root")
#: the mode ``mcts:threads=N`` and the levels use unless told: of the two, the one that won
#: more of the 200 games against one thread at 0.5 s a move (Blooms and Free Go, 122 to 117;
#: docs/parallel.md)
DEFAULT_PARALLEL = "tree"


def parallel_mode(raw: str) -> str:
    """``raw`` if it is one of ``PARALLEL_MODES``.

    Raises:
        ParameterError: it is not.
    """
    if raw not in PARALLEL_MODES:
        raise ParameterError(f"parallel must be {' or '.join(PARALLEL_MODES)}, not {raw!r}")
    return raw


def reproducible_parallel(seed: int | None, seconds: float | None) -> str:
    """The mode for a search whose caller promises that a seed and a budget of simulations
    reproduce it (the engine, ``analyse``): a tree each, since a shared tree's threads race;
    else ``DEFAULT_PARALLEL``."""
    return "root" if seed is not None and seconds is None else DEFAULT_PARALLEL


def new_searcher(game: Game, config: SearchConfig, seed: int | None, threads: int,
                 parallel: str = DEFAULT_PARALLEL) -> TreeSearch | RootParallel:
    """One tree (``threads`` 1, exactly the single-threaded search), or ``threads`` threads:
    ``parallel="tree"`` searches one tree with them (``shared_tree.py``) in games with
    compiled tree kernels, and like ``"root"`` (a tree each) in the others.

    Raises:
        ParameterError: ``parallel`` is not one of ``PARALLEL_MODES``.
    """
    parallel_mode(parallel)
    if threads <= 1:
        return make_engine(game, config, seed)
    spec = profile_for(game).tree(config) if config.fast and parallel == "tree" else None
    if spec is not None:
        warm_up(game, config)
        return SharedTree(game, config, seed, spec, threads)
    return RootParallel(game, config, seed, threads)
