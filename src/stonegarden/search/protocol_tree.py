"""The search for games without compiled tree kernels: the same tree and kernels as
``tree.CompiledTree`` (selection, backup, proofs in ``tree_kernels.py``), with each simulation's
moves made through the game protocol in Python. Any registered game, chance nodes included.

Nodes keep their states (a list by node id). A chance node picks the outcome whose visit share
lags its probability most, so outcome counts track the probabilities; its edges sum player
1's rewards. With ``chance`` on, the edge into a chance node is kept at that node's
expectation (the probability-weighted mean of its visited outcomes) times its visits, so a
parent selects by the expectation. With ``tt`` on, positions with one
``transposition_key`` share one node: the tree becomes a graph without cycles (a key holds the
ply), each parent keeps its own statistics of the move into it. RAVE needs playouts that report
their moves (``SearchProfile.amaf``)."""

from __future__ import annotations

import dataclasses
import sys
from collections import deque

import numpy as np

from ..core.protocol import CHANCE, Game, State
from .config import Budget, SearchConfig
from .gc_pause import collector_paused
from .pools import PROOF_DRAW, Pools
from .replies import lgr_update
from .result import SearchResult
from .tree import REUSE_PLIES, TreeSearch
from .tree_kernels import (
    STOP_CHANCE,
    STOP_EXPAND,
    STOP_FULL,
    STOP_LEAF,
    STOP_PROVEN,
    backup,
    code_value,
    descend,
    expand,
    root_won,
)
from .ucb import amaf_mark

_NO_PRIORS = np.empty(0, np.float64)

#: what a node's position costs, as a multiple of the objects a child of the root holds that
#: the root does not (``new_bytes``): the transposition key and table entry, what the game
#: memoises beside a state (its legal moves), the allocator's overhead and positions deeper
#: than a child. Measured 0.9 to 2.2 times, resident (a node's bytes less its edges'), in
#: the games searched so (``benchmarks/results/tree-memory.json``; docs/ai.md)
POSITION_MARGIN = 3
#: children of the root whose positions are measured (spread over its moves)
POSITION_SAMPLES = 4


def new_bytes(obj: object, seen: set[int]) -> int:
    """The bytes of ``obj`` and what it holds (fields, tuples, sets, dicts, arrays), not
    counting the objects whose ids are in ``seen``, to which it adds those it counts."""
    todo = [obj]
    total = 0
    while todo:
        item = todo.pop()
        if id(item) in seen:
            continue
        seen.add(id(item))
        total += sys.getsizeof(item)
        if isinstance(item, np.ndarray):
            total += item.nbytes if item.base is not None else 0  # a view's data
        elif isinstance(item, (tuple, list, set, frozenset)):
            todo.extend(item)
        elif isinstance(item, dict):
            todo.extend(item.keys())
            todo.extend(item.values())
        elif dataclasses.is_dataclass(item):
            fields = dataclasses.fields(item)
            if type(item).__dictoffset__:
                # its attributes' dict, as a plain one (reading ``__dict__`` would make one)
                total += sys.getsizeof(dict.fromkeys(range(len(fields))))
            todo.extend(getattr(item, f.name) for f in fields)
    return total


def position_bytes(game: Game, state: State) -> int:
    """What a node below ``state`` is reckoned to keep (``POSITION_MARGIN`` times the most new
    bytes of a few children): a child shares what it keeps of its parent (a history's
    entries), so only what it adds counts."""
    moves = ([a for a, _ in game.chance_outcomes(state)] if game.current_player(state) == CHANCE
             else [int(a) for a in game.legal_actions(state)])
    if not moves:
        return 0
    picks = sorted({moves[i * (len(moves) - 1) // max(1, POSITION_SAMPLES - 1)]
                    for i in range(POSITION_SAMPLES)})
    children = [game.play_unchecked(state, a) for a in picks]  # alive while measured
    root: set[int] = set()
    new_bytes(state, root)
    return POSITION_MARGIN * max(new_bytes(child, set(root)) for child in children)


class ProtocolTree(TreeSearch):
    """The search through ``Game`` methods only."""

    def __init__(self, game: Game, config: SearchConfig, seed: int | None,
                 pools: Pools | None = None) -> None:
        super().__init__(game, config, seed, pools)
        self.rng = np.random.default_rng(seed)
        self.tt = self.profile.tt_for(config)
        self.rave = bool(config.rave) and self.profile.amaf
        # priors are RAVE samples where the playouts report their moves, and visits of the
        # move itself in a game whose playouts cannot (``select``); ``rave=off`` in a game
        # with RAVE is the plain search, without priors
        self.prior = self.profile.prior_for(config) if self.rave or not self.profile.amaf else 0
        self.prior_values = self.profile.prior_values_for(config) if self.prior else None
        #: priors as a progressive bias rather than as visits (``config.bias``; without RAVE)
        self.bias = bool(config.bias) and not self.rave
        self.options = self.profile.option_values(config)
        self.states: list[State] = []
        self.probs: dict[int, np.ndarray] = {}
        #: transposition table: ``transposition_key`` -> the one node of that position
        self.table: dict[object, int] = {}
        self.seen = np.zeros((3, game.num_distinct_actions if self.rave else 1), np.int64)
        self.path_nodes = np.empty(64, np.int64)
        self.path_edges = np.empty(64, np.int64)
        self.leaf_state: State | None = None

    # -- nodes ------------------------------------------------------------------------------
    def _node(self, state: State) -> int:
        """The node of ``state``: with ``tt``, the one already made for its position."""
        if self.tt:
            key = self.profile.transposition_key(state)
            node = self.table.get(key)
            if node is not None:
                return node
        g = self.game
        proven = 0
        if g.is_terminal(state):
            w = g.winner(state)
            proven = PROOF_DRAW if not w else int(w)
        node = self._new_node(g.current_player(state), 0, proven)
        if node < 0:
            return -1
        if node == len(self.states):
            self.states.append(state)
        else:
            self.states[node] = state
        if self.tt:
            self.table[self.profile.transposition_key(state)] = node
        return node

    def _position_bytes(self, state: State) -> int:
        return position_bytes(self.game, state)

    def _new_root(self, state: State) -> int:
        self.states.clear()
        self.probs.clear()
        self.table.clear()
        return self._node(state)

    def _find_root(self, state: State) -> int:
        """With ``tt``, the table's node of ``state``; without, the most visited node equal
        to ``state`` a few plies below the old root."""
        if self.tt:
            return self.table.get(self.profile.transposition_key(state), -1)
        P = self.pools
        best, best_n = -1, -1
        todo = deque([(self.root, 0)])
        while todo:
            node, depth = todo.popleft()
            s = self.states[node]
            if s == state:
                if int(P.nd_n[node]) > best_n:
                    best, best_n = node, int(P.nd_n[node])
            elif depth < REUSE_PLIES and s.ply < state.ply:
                todo.extend((int(P.ed_child[e]), depth + 1) for e in P.edge_range(node)
                            if P.ed_child[e] >= 0)
        return best

    def _compacted(self, new_id: np.ndarray) -> None:
        kept = {int(new_id[old]): state for old, state in enumerate(self.states)
                if old < len(new_id) and new_id[old] >= 0}
        self.states = [kept[i] for i in range(int(self.pools.counters[0]))]
        self.probs = {int(new_id[k]): v for k, v in self.probs.items() if new_id[k] >= 0}
        self.table = {k: int(new_id[v]) for k, v in self.table.items() if new_id[v] >= 0}

    def _expand(self, node: int, state: State, last: int) -> bool:
        g, P = self.game, self.pools
        priors = _NO_PRIORS
        if int(P.nd_player[node]) == CHANCE:
            outcomes = sorted(g.chance_outcomes(state))
            actions = np.array([a for a, _ in outcomes], np.int64)
            probs = np.array([p for _, p in outcomes], np.float64)
            self.probs[node] = probs / probs.sum()
        else:
            actions = g.legal_actions(state)
            if self.prior_values is not None:
                values = self.prior_values(state, actions, last)
                if values is not None:
                    priors = np.asarray(values, np.float64)
        return bool(expand(node, actions, priors, len(actions), self.prior if len(priors) else 0,
                           P.nd_first, P.nd_count, P.ed_move, P.ed_child, P.ed_n, P.ed_w,
                           P.ed_rn, P.ed_rw, P.counters, self.bias))

    # -- simulations ------------------------------------------------------------------------
    def search(self, state: State, budget: Budget) -> SearchResult:
        """Search from ``state`` (non-terminal, a player to move) within ``budget``."""
        with collector_paused():  # its passes over the states cost a few percent
            return super().search(state, budget)

    def _run(self, want: int, state: State, solver: bool) -> int:
        P = self.pools
        done = 0
        for _ in range(want):
            if solver and root_won(self.root, P.nd_proven, P.nd_player):
                break
            if solver and P.nd_proven[self.root] != 0:  # proven lost or drawn: ``_solving``
                solver = False
            self._simulate(solver)
            done += 1
        return done

    def _grow_path(self) -> None:
        self.path_nodes = np.concatenate([self.path_nodes, np.empty_like(self.path_nodes)])
        self.path_edges = np.concatenate([self.path_edges, np.empty_like(self.path_edges)])

    def _simulate(self, solver: bool) -> None:
        """One simulation: ``descend`` walks the kept tree in numba; what only the protocol
        can do (a new node's moves, a new child's state, a chance outcome) happens here."""
        g, P, root = self.game, self.pools, self.root
        P.counters[2] += 1
        stamp = int(P.counters[2])
        node, depth, code = root, 0, 0
        while True:
            node, depth, why = descend(root, node, depth, self.path_nodes, self.path_edges,
                                       *P.arrays, self.c, self.rave, self.rave_k, solver,
                                       self.config.grave)
            if why == STOP_PROVEN:
                code = int(P.nd_proven[node])
                break
            if why == STOP_LEAF:
                break
            if why == STOP_EXPAND:
                last = int(P.ed_move[self.path_edges[depth - 1]]) if depth else -1
                if not self._expand(node, self.states[node], last):
                    break
                continue
            if why == STOP_FULL:
                self._grow_path()
                continue
            if why == STOP_CHANCE:
                if depth >= len(self.path_nodes):
                    self._grow_path()
                first = int(P.nd_first[node])
                n = P.ed_n[first:first + int(P.nd_count[node])]
                e = first + int(np.argmax(self.probs[node] * (int(P.nd_n[node]) + 1) - n))
                self.path_nodes[depth] = node
                self.path_edges[depth] = e
                depth += 1
                if P.ed_child[e] >= 0:
                    node = int(P.ed_child[e])
                    continue
            # a new child: its state through the protocol
            e = int(self.path_edges[depth - 1])
            state = g.play_unchecked(self.states[node], int(P.ed_move[e]))
            child = self._node(state)
            if child < 0:  # the node pool is full: evaluate from here
                node = -1
                if g.is_terminal(state):
                    w = g.winner(state)
                    code = PROOF_DRAW if not w else int(w)
                else:
                    code = 0
                    self.leaf_state = state
                break
            P.ed_child[e] = child
            node = child
        if code:
            r1 = code_value(code, self.draw)
        else:
            leaf = self.states[node] if node >= 0 else self.leaf_state
            assert leaf is not None
            r1 = self._playout(leaf, depth, stamp)
        backup(self.path_nodes, self.path_edges, depth, node, r1, *P.arrays, self.rave, 1, 0,
               self.seen, stamp, solver)
        if self.config.chance:
            self._refresh_expectations(depth)

    def _playout(self, state: State, depth: int, stamp: int) -> float:
        """Player 1's reward of one playout from ``state``, ``depth`` edges below the root
        (stamping its moves for RAVE and teaching the reply table)."""
        P = self.pools
        lgr = self.replies.shape[0] > 0
        last = int(P.ed_move[self.path_edges[depth - 1]]) if depth else -1
        seed = int(self.rng.integers(2**31))
        winner, moves = self.profile.playout(state, seed, self.options,
                                             self.replies if lgr else None, last)
        if moves is not None:
            if self.rave:
                amaf_mark(self.seen, moves, self.game.current_player(state), stamp)
            if lgr:
                tree = P.ed_move[self.path_edges[:depth]]
                lgr_update(self.replies, tree, np.asarray(moves, np.int32),
                           int(P.nd_player[self.root]), int(winner))
        return 1.0 if winner == 1 else 0.0 if winner == 2 else self.draw

    def _refresh_expectations(self, depth: int) -> None:
        """Set each path edge into a chance node to that node's expectation times its visits
        (``chance`` on)."""
        P = self.pools
        for d in range(depth):
            nd, e = int(self.path_nodes[d]), int(self.path_edges[d])
            child = int(P.ed_child[e])
            if child < 0 or int(P.nd_player[child]) != CHANCE or P.nd_first[child] < 0:
                continue
            first = int(P.nd_first[child])
            n = P.ed_n[first:first + int(P.nd_count[child])].astype(np.float64)
            w = P.ed_w[first:first + int(P.nd_count[child])].astype(np.float64)
            seen = n > 0
            p = self.probs[child][seen]
            value = float((p * w[seen] / n[seen]).sum() / p.sum())
            if int(P.nd_player[nd]) == 2:
                value = 1.0 - value
            P.ed_w[e] = value * float(P.ed_n[e])
