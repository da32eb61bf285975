"""The search engine: one tree in numba pools, driven either by a game's compiled kernels
(``CompiledTree``) or through the game protocol (``protocol_tree.ProtocolTree``, for games
without them). Both share this driver: finding the new root in a kept tree, compacting it,
running simulations in chunks against the budget, and reading the result (one ranking, one
tie-break: equal proof, visits and value go to a hash of the edge salted by the search's seed).

A turn may take several tree levels (``levels_per_turn``: the Blooms race decides a turn's two
stones one at a time); the result speaks of whole turns, as the protocol's actions.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable, Iterator
from typing import Any

import numpy as np

from ..core.protocol import Game, State
from . import config as _config
from .config import Budget, SearchConfig
from .pools import Pools, proof_rank, tie_key, winner_of_code
from .profile import profile_for
from .replies import NO_REPLIES, new_replies
from .result import MoveStat, SearchResult
from .tree_kernels import compact, new_node, seed_numba

#: a node of the kept tree is looked for at most this many plies below the old root
REUSE_PLIES = 4


class TreeSpec:
    """A game's compiled tree: its specialised simulation loop (``simulate.specialise``) and
    what the driver needs to translate between the protocol and the tree. A game's profile
    builds one per config (``SearchProfile.tree``).

    ``consts``: the kernels' constants; ``max_moves``: the most edges a node can have;
    ``max_depth``: the longest path a simulation can take, tree and playout; ``stride`` and
    ``rave_stages``: AMAF keys are ``stage * stride + move`` at stages below ``rave_stages``;
    ``levels_per_turn``: tree levels per whole turn; ``root_stage``: the stage of a turn's
    first decision; ``keys``: AMAF keys per player (the playouts' included)."""

    run: Callable[..., int]
    consts: tuple[Any, ...]
    max_moves: int
    max_depth: int
    stride: int
    keys: int
    rave_stages: int = 1
    levels_per_turn: int = 1
    root_stage: int = 0

    def root_position(self, state: State) -> tuple[np.ndarray, np.ndarray]:
        """(board, info) of ``state`` as the kernels read them (fresh arrays)."""
        raise NotImplementedError

    def turn_action(self, state: State, moves: tuple[int, ...]) -> int | None:
        """The action of the turn whose tree moves are ``moves`` (all ``levels_per_turn`` of
        them, or a first part whose rest was never searched: ``None`` if that is no turn)."""
        raise NotImplementedError

    def move_fits(self, state: State, level: int, move: int, target: State) -> bool:
        """Whether the tree move ``move`` at ``level`` of a turn from ``state`` can be on the
        way to ``target`` (cheap; used to prune the search for a new root)."""
        return True


class Allowance:
    """The simulations a search may still run (``None``: no count, only time), taken chunk by
    chunk by one thread or by the threads of a shared tree; once ended, every taker gets
    nothing."""

    def __init__(self, sims: int | None) -> None:
        self.left = sims
        self.ended = False
        self._lock = threading.Lock()

    def take(self, want: int) -> int:
        """Up to ``want`` simulations of what is left (0: the search has ended)."""
        with self._lock:
            if self.ended:
                return 0
            if self.left is None:
                return want
            n = min(want, self.left)
            self.left -= n
            return n

    def end(self) -> None:
        self.ended = True


class TreeSearch:
    """What both engines share; subclasses run the simulations (``_run``) and say how a node's
    position is known (``_new_root``, ``_find_root``)."""

    levels_per_turn = 1
    #: compact a kept tree even when its root is the old root (a shared tree leaves gaps
    #: between its threads' ranges, which only compacting gives back)
    compacts_kept_root = False

    def __init__(self, game: Game, config: SearchConfig, seed: int | None,
                 pools: Pools | None = None) -> None:
        self.game = game
        self.config = config
        self.profile = profile_for(game)
        self.seed = seed
        self.searches = 0
        self.pools = pools if pools is not None else Pools()
        self.pool_size = self.pools.size
        self.root = -1
        self.root_state: State | None = None
        self.salt = 0
        self.draw = 0.5  # player 1's reward of a draw; ``contempt`` moves it against the root
        self.rave_k = self.profile.rave_k_for(config)
        self.c = self.profile.c_for(config)
        self.replies = (new_replies(game.num_distinct_actions) if self.profile.lgr_for(config)
                        else NO_REPLIES)

    # -- the engine's side ------------------------------------------------------------------
    def _new_root(self, state: State) -> int:
        """Allocate the root of a fresh tree for ``state`` (pools already emptied)."""
        raise NotImplementedError

    def _find_root(self, state: State) -> int:
        """The node of ``state`` in the kept tree, or -1."""
        raise NotImplementedError

    def _run(self, want: int, state: State, solver: bool) -> int:
        """Run up to ``want`` simulations from the root; how many ran."""
        raise NotImplementedError

    def _begin(self, state: State) -> None:
        """A search from ``state`` starts (the root is prepared)."""

    def _compacted(self, new_id: np.ndarray) -> None:
        """The pools were compacted: node ``i`` is now ``new_id[i]`` (-1: dropped)."""

    def _turn_action(self, state: State, moves: tuple[int, ...]) -> int | None:
        return moves[0] if len(moves) == 1 else None

    # -- shared -----------------------------------------------------------------------------
    def _position_bytes(self, state: State) -> int:
        """The bytes each node keeps beside its slots in the pools, judged at ``state`` (0:
        nodes keep no position)."""
        return 0

    def _prepare_root(self, state: State, draw: float) -> int:
        """Point ``root`` at the node of ``state`` (a fresh tree if it is not kept); the
        simulations kept. A kept subtree is copied to fresh pools once a third of them, or of
        the nodes the tree may make (``Pools.node_cap``), is used; the tree makes no node past
        that cap (fresh pools take it with the counters)."""
        P = self.pools
        cap = P.node_cap(self._position_bytes(state))
        P.counters[3] = cap
        found = -1
        if self.config.reuse and self.root >= 0 and draw == self.draw:
            found = self._find_root(state)
        self.draw = draw
        if found < 0:
            P.counters[:2] = 0
            self.root = self._new_root(state)
            return 0
        reused = int(P.nd_n[found])
        crowded = (P.counters[0] > cap // 3 or P.counters[1] > P.ed_move.shape[0] // 3)
        if crowded and (found != 0 or self.compacts_kept_root):
            fresh = Pools(*self.pool_size, P.budget)
            new_id = np.empty(int(P.counters[0]), np.int64)
            fresh.counters[:] = P.counters
            compact(found, *P.nodes(), *P.edges(), *fresh.nodes(), *fresh.edges(),
                    fresh.counters, new_id)
            self.pools = fresh
            self._compacted(new_id)
            found = 0
        self.root = found
        return reused

    def _new_node(self, player: int, stage: int, proven: int) -> int:
        return int(new_node(*self.pools.nodes(), self.pools.counters, player, stage, proven))

    def search(self, state: State, budget: Budget) -> SearchResult:
        """Search from ``state`` (non-terminal, a player to move) within ``budget``."""
        t0 = time.perf_counter()
        contempt = self.config.contempt
        draw = 0.5 - contempt if state.player == 1 else 0.5 + contempt
        reused = self._prepare_root(state, draw)
        self.root_state = state
        self._begin(state)
        seed = self.seed
        if seed is None:
            seed = int(np.random.default_rng().integers(2**31))
        self._run(0, state, False)  # compile or load outside the budget
        self.salt = (seed * 1_000_003 + self.searches) % 2**31
        seed_numba(self.salt)
        self.searches += 1
        sims = self._simulations(state, budget, t0)
        return self._result(state, sims, time.perf_counter() - t0, reused)

    def _simulations(self, state: State, budget: Budget, t0: float) -> int:
        """Run simulations until the budget ends (one thread; a shared tree runs several
        threads through ``_chunks``); how many ran."""
        return self._chunks(state, budget, t0, lambda want, solver: self._run(want, state, solver),
                            self._allowance(budget), poll_stop=True)

    def _allowance(self, budget: Budget) -> Allowance:
        """The simulations of ``budget``, at most what brings the root to
        ``MAX_TREE_VISITS`` (past it the tree's sums of rewards stop counting, then its
        visits wrap around): a search of seconds, or one on a kept tree, ends there."""
        room = max(0, _config.MAX_TREE_VISITS - int(self.pools.nd_n[self.root]))
        return Allowance(room if budget.sims is None else min(budget.sims, room))

    def _solving(self, state: State) -> bool:
        """Whether the next simulations use the proofs: not once the root is proven lost (or
        drawn); the search goes on without them, for the most resistant move against an
        opponent who may not find the win. The simulation loops turn them off themselves
        from the simulation after the proof, so that where a chunk begins changes nothing."""
        code = int(self.pools.nd_proven[self.root])
        return bool(self.config.solver) and code in (0, state.player)

    def _chunks(self, state: State, budget: Budget, t0: float,
                run: Callable[[int, bool], int], allowance: Allowance, poll_stop: bool) -> int:
        """Run simulations in chunks taken from ``allowance`` until it, the time or
        ``budget.stop()`` (polled when ``poll_stop``) ends the search, or the solver proves the
        root; ``run(want, solver)`` runs one chunk. Ending ends ``allowance`` for every thread
        taking from it. Returns how many simulations this caller ran.

        A chunk takes about 20 ms, whatever the budget: a stop is seen that soon (chunks of a
        budget of simulations doubled to 4,096 simulations, which on a large board ran 8 s past
        a stop, or the web server's time limit). Where chunks begin changes no search (the
        simulation loops' random streams and proofs run on across them), so a seeded search
        of simulations is the same on any machine."""
        sims = 0
        # a budget of seconds starts with one simulation, whose time sizes the next chunks: a
        # first chunk of 16 took half a second on a large board, ten times a 0.05 s budget
        chunk = 16 if budget.seconds is None else 1
        while True:
            want = allowance.take(chunk)
            if want <= 0:
                break
            t1 = time.perf_counter()
            done = run(want, self._solving(state))
            sims += done
            if done < want:  # the solver proved the root
                break
            if poll_stop and budget.stop is not None and budget.stop():
                break
            now = time.perf_counter()
            # aim at ~20 ms chunks, never past the deadline
            per = max((now - t1) / max(done, 1), 1e-7)
            most = 4096.0
            if budget.seconds is not None:
                if now - t0 >= budget.seconds:
                    break
                most = (budget.seconds - (now - t0)) / per + 1
            chunk = int(max(1, min(chunk * 2, 0.02 / per, most)))
        allowance.end()
        return sims

    # -- reading the tree -------------------------------------------------------------------
    def _rank(self, node: int, e: int) -> tuple[int, int, float, int]:
        """How an edge ranks in the final choice: proof, visits, value, then the salted hash."""
        P = self.pools
        child = int(P.ed_child[e])
        code = int(P.nd_proven[child]) if child >= 0 else 0
        n = int(P.ed_n[e])
        q = float(P.ed_w[e]) / n if n else 0.0
        return (proof_rank(winner_of_code(code), int(P.nd_player[node])), n, q,
                tie_key(e, self.salt))

    def _best_edge(self, node: int) -> int:
        """The edge ranked first among the visited ones, -1 if none."""
        edges = [e for e in self.pools.edge_range(node) if self.pools.ed_n[e] > 0]
        if not edges:
            return -1
        return max(edges, key=lambda e: self._rank(node, e))

    def _turns(self, node: int, moves: tuple[int, ...] = ()) -> Iterator[tuple[tuple[int, ...], int]]:
        """Every visited whole turn from ``node``, in edge order: (its tree moves, its last
        edge)."""
        P = self.pools
        for e in P.edge_range(node):
            if P.ed_n[e] == 0:
                continue
            step = (*moves, int(P.ed_move[e]))
            if len(step) == self.levels_per_turn:
                yield step, e
            elif P.ed_child[e] >= 0:
                yield from self._turns(int(P.ed_child[e]), step)

    def _best_turn(self, node: int, state: State) -> tuple[int, int] | None:
        """(action, node after it) following the best edges, ``None`` if unexplored."""
        moves: list[int] = []
        nd = node
        for _ in range(self.levels_per_turn):
            e = self._best_edge(nd) if nd >= 0 else -1
            if e < 0:
                break
            moves.append(int(self.pools.ed_move[e]))
            nd = int(self.pools.ed_child[e])
        if not moves:
            return None
        action = self._turn_action(state, tuple(moves))
        if action is None or (len(moves) < self.levels_per_turn
                              and not self.game.is_legal(state, action)):
            return None
        return action, nd if len(moves) == self.levels_per_turn else -1

    def _root_value(self, mover: int) -> tuple[float, int | None]:
        """(the root's value for ``mover``, its proven winner or ``None``): the mean reward
        over the root's edges, or the proof's exact value."""
        P = self.pools
        edges = P.edge_range(self.root)
        total_n = sum(int(P.ed_n[e]) for e in edges)
        value = sum(float(P.ed_w[e]) for e in edges) / total_n if total_n else 0.5
        proven = winner_of_code(int(P.nd_proven[self.root]))
        if proven is not None:
            value = 1.0 if proven == mover else 0.0 if proven != 0 else 0.5
        return value, proven

    def _result(self, state: State, sims: int, seconds: float, reused: int) -> SearchResult:
        P = self.pools
        p = state.player
        moves = []
        for tree_moves, e in self._turns(self.root):
            action = self._turn_action(state, tree_moves)
            if action is None:
                continue
            child = int(P.ed_child[e])
            n = int(P.ed_n[e])
            moves.append(MoveStat(action, n, float(P.ed_w[e]) / n,
                                  winner_of_code(int(P.nd_proven[child])) if child >= 0 else None))
        moves.sort(key=lambda m: (-proof_rank(m.proven, p), -m.visits, -m.value))
        best = self._best_turn(self.root, state)
        if best is not None and (not moves or moves[0].action != best[0]):
            stat = next((m for m in moves if m.action == best[0]), MoveStat(best[0], 0, 0.5))
            moves = [stat] + [m for m in moves if m.action != best[0]]
        if not moves:  # no simulation reached a move (a tiny budget): any legal move
            acts = self.game.legal_actions(state)
            moves = [MoveStat(int(acts[self.salt % len(acts)]), 0, 0.5)]
        value, proven = self._root_value(p)
        pv: list[int] = []
        node, s = self.root, state
        while node >= 0 and len(pv) < 40 and not self.game.is_terminal(s) and s.player != 0:
            step = self._best_turn(node, s)
            if step is None:
                break
            pv.append(step[0])
            s = self.game.play_unchecked(s, step[0])
            node = step[1]
        return SearchResult(value, moves, pv, sims, seconds, proven, reused,
                            {"nodes": int(P.counters[0]), "edges": int(P.counters[1])})


class CompiledTree(TreeSearch):
    """The search with a game's compiled simulation loop (``TreeSpec``): a simulation replays
    the tree's moves from the root's position, so nodes hold no positions."""

    def __init__(self, game: Game, config: SearchConfig, seed: int | None, spec: TreeSpec,
                 pools: Pools | None = None) -> None:
        super().__init__(game, config, seed, pools)
        self.spec = spec
        self.levels_per_turn = spec.levels_per_turn
        self.seen = np.zeros((3, spec.keys), np.int64)
        self.rave = bool(config.rave) and spec.rave_stages > 0
        self.prior = self.profile.prior_for(config) if self.rave else 0
        self._root_arrays: tuple[np.ndarray, np.ndarray] | None = None
        #: virtual loss (``simulate.run_sims``); only a shared tree's threads need it
        self.vloss = 0

    def _turn_action(self, state: State, moves: tuple[int, ...]) -> int | None:
        return self.spec.turn_action(state, moves)

    def _new_root(self, state: State) -> int:
        return self._new_node(state.player, self.spec.root_stage, 0)

    def _find_root(self, state: State) -> int:
        """The node of ``state`` in the kept tree: a node up to ``REUSE_PLIES`` turns below
        the old root reached by turns whose tree moves fit ``state`` (``TreeSpec.move_fits``),
        replayed through the rules; the most visited if several."""
        old = self.root_state
        if old is None or not 0 <= state.ply - old.ply <= REUSE_PLIES:
            return -1
        P = self.pools
        best, best_n = -1, -1
        todo = [(self.root, old)]
        while todo:
            node, s = todo.pop()
            if s.ply == state.ply:
                if s == state and int(P.nd_n[node]) > best_n:
                    best, best_n = node, int(P.nd_n[node])
                continue
            for moves, child in self._fitting_turns(node, s, state):
                action = self.spec.turn_action(s, moves)
                if action is not None:
                    todo.append((child, self.game.play_unchecked(s, action)))
        return best

    def _fitting_turns(self, node: int, s: State,
                       target: State) -> Iterator[tuple[tuple[int, ...], int]]:
        """The turns from ``node`` (position ``s``) in the tree whose moves fit ``target``:
        (tree moves, the node after the turn)."""
        P = self.pools
        todo: list[tuple[int, tuple[int, ...]]] = [(node, ())]
        while todo:
            nd, moves = todo.pop()
            level = len(moves)
            for e in P.edge_range(nd):
                child = int(P.ed_child[e])
                move = int(P.ed_move[e])
                if child < 0 or not self.spec.move_fits(s, level, move, target):
                    continue
                if level + 1 == self.levels_per_turn:
                    yield (*moves, move), child
                else:
                    todo.append((child, (*moves, move)))

    def _begin(self, state: State) -> None:
        self._root_arrays = self.spec.root_position(state)

    def _run(self, want: int, state: State, solver: bool) -> int:
        return self._simulate(want, solver, self.pools.counters, self.seen, self.replies)

    def _simulate(self, want: int, solver: bool, counters: np.ndarray, seen: np.ndarray,
                  replies: np.ndarray) -> int:
        """``want`` simulations of the compiled loop, allocating through ``counters`` with
        the AMAF stamps ``seen`` and the reply table ``replies`` (a shared tree's threads
        each pass their own)."""
        spec, cfg, P = self.spec, self.config, self.pools
        assert self._root_arrays is not None
        board, info = self._root_arrays
        return int(spec.run(
            want, self.root, board, info, spec.consts, spec.max_moves, spec.max_depth,
            *P.nodes(), *P.edges(), counters, self.c, self.rave, self.rave_k,
            spec.rave_stages, spec.stride, int(cfg.grave), solver, self.prior, self.draw,
            seen, replies, self.vloss))
