"""MCTS over the game protocol only: any registered game, chance nodes included.

The tree stores, per expanded node, arrays of per-action statistics (visits and the sum of
rewards for player 1, a win counting 1 and a draw 1/2), so selection is one vectorised UCB over
the siblings. A node is expanded on its second visit (its first gives a playout), every action is
tried once before UCB takes over (plain UCT), and chance nodes pick the outcome whose visit
share lags its probability most, so outcome counts track the probabilities deterministically.
In games with AMAF playouts (``Game.has_amaf``: stones on points) and ``rave`` on, each node
also keeps RAVE statistics per action (every simulation in which the node's player played that
action later, in the tree or the playout), blended into selection as in the Blooms engine; an
untried action is then chosen by its RAVE value rather than tried in turn.
Playouts are the game's own kernel through ``policy_playouts``: uniform, or capture-preferring
with ``captures`` > 0, or avoiding moves that hand the opponent a win with ``safe`` > 1, or
saving diagonal connections with ``bridges``, or answering moves with the last good reply
with ``lgr`` (a table learned over the search, ``replies.py``), in games that have that policy
(``Game.playout_policies``). With ``prior`` > 0 (and RAVE) a new node's moves start with that
many virtual RAVE samples of the game's ``prior_values`` (Free Go: captures as wins, suicides
as losses; Bridge Go: the reply that saves the bridge the last move intruded into as a win),
which fade as real samples come in.
"""

from __future__ import annotations

import math
import time
from collections import deque

import numpy as np

from ..core.protocol import CHANCE, Game, State
from .config import Budget, SearchConfig
from .gc_pause import collector_paused
from .replies import lgr_update, new_replies
from .result import MoveStat, SearchResult
from .ucb import amaf_mark, amaf_update, rave_pick, ucb_pick

#: stop expanding (playouts only) once the tree holds this many per-action entries
MAX_ENTRIES = 8_000_000


_NONE = np.empty(0, np.float64)


class Node:
    """One position in the tree. ``n``/``w`` are per-action visits and player-1 reward sums;
    ``proven`` is the exact player-1 value once the solver knows it; ``rn``/``rw`` the RAVE
    samples and player-1 reward sums per action (with RAVE on). A chance node keeps the
    running sums behind its expectation (``sp``: probability of the outcomes seen, ``spq``: their
    probability-weighted mean values); a node with chance children keeps each one's
    expectation in ``ev`` (``cmask`` marks them), refreshed on backup, so selection reads one
    array instead of asking every chance child."""

    __slots__ = (
        "actions",
        "bonus",
        "children",
        "cmask",
        "ev",
        "n",
        "order",
        "player",
        "probs",
        "proven",
        "rn",
        "rw",
        "sp",
        "spq",
        "state",
        "tried",
        "visits",
        "w",
        "wsum",
    )

    def __init__(self, game: Game, state: State) -> None:
        self.state = state
        self.player = game.current_player(state)
        self.proven: float | None = None
        if game.is_terminal(state):
            r = game.returns(state)[0]
            self.proven = 0.5 + 0.5 * r
        self.actions: np.ndarray | None = None
        self.probs: np.ndarray | None = None
        self.order: np.ndarray | None = None
        self.tried = 0
        self.n = np.empty(0, np.float64)
        self.w = np.empty(0, np.float64)
        self.bonus = np.empty(0, np.float64)
        self.rn = self.rw = _NONE
        self.children: dict[int, Node] = {}
        self.cmask: np.ndarray | None = None
        self.ev = np.empty(0, np.float64)
        self.visits = 0
        self.wsum = 0.0
        self.sp = 0.0
        self.spq = 0.0

    def add_outcome(self, i: int, r: float) -> None:
        """Back up reward ``r`` through outcome ``i`` of this chance node, keeping the sums
        behind ``expectation``."""
        n, w = self.n[i], self.w[i]
        self.n[i] = n + 1
        self.w[i] = w + r
        p = self.probs[i]  # type: ignore[index]
        if n == 0:
            self.sp += p
        else:
            self.spq -= p * w / n
        self.spq += p * (w + r) / (n + 1)

    def expectation(self) -> float:
        """Player-1 value of a chance node: its exact value once proven (the outcomes'
        statistics stop changing then), else the probability-weighted mean over the visited
        outcomes."""
        if self.proven is not None:
            return self.proven
        if self.sp <= 0.0:
            return self.wsum / max(self.visits, 1)
        return self.spq / self.sp


def mover_value(p1_value: float, player: int) -> float:
    return p1_value if player != 2 else 1.0 - p1_value


def winner_of(p1_value: float | None) -> int | None:
    """The proven winner (0 draw) from an exact player-1 value, ``None`` if not a sure result."""
    if p1_value is None:
        return None
    return {1.0: 1, 0.0: 2, 0.5: 0}.get(p1_value)


class GenericMcts:
    """UCT (+ MCTS-solver, + chance expectation) through ``Game`` methods only."""

    def __init__(self, game: Game, config: SearchConfig, seed: int | None) -> None:
        self.game = game
        self.config = config
        self.rng = np.random.default_rng(seed)
        self.root: Node | None = None
        self.entries = 0
        self._solving = config.solver
        self._tt = game.default_tt if config.tt is None else config.tt
        self._safe = config.safe_for(game)
        self._draw = 0.5  # player-1 reward of a draw (``contempt`` moves it against the root)
        self._rave = config.rave and game.has_amaf
        self._rave_k = config.rave_k_for(game)
        self._c = config.c_for(game)
        self._prior = config.prior_for(game)
        if self._rave:
            # seen[p, a] == stamp: player p played action a later in this simulation
            self._seen = np.zeros((3, game.num_distinct_actions), np.int64)
            self._stamp = 0
        #: last good replies learned in playouts (``lgr``), kept between moves
        self._replies = new_replies(game.num_distinct_actions) if config.lgr_for(game) else None
        #: transposition table: ``Game.transposition_key`` -> the one node of that position
        self.table: dict[object, Node] = {}

    # -- tree -------------------------------------------------------------------------------
    def _expand(self, node: Node, last: int = -1) -> None:
        g = self.game
        if node.player == CHANCE:
            outcomes = g.chance_outcomes(node.state)
            node.actions = np.array([a for a, _ in outcomes], np.int64)
            probs = np.array([p for _, p in outcomes], np.float64)
            node.probs = probs / probs.sum()
        else:
            node.actions = g.legal_actions(node.state)
            node.order = self.rng.permutation(len(node.actions))
        k = len(node.actions)
        node.n = np.zeros(k)
        node.w = np.zeros(k)
        node.bonus = np.zeros(k)
        node.ev = np.zeros(k)
        if self._rave and node.player != CHANCE:
            node.rn = np.zeros(k)
            node.rw = np.zeros(k)
            if self._prior:
                self._add_priors(node, last)
        self.entries += k

    def _add_priors(self, node: Node, last: int) -> None:
        """Count the game's ``prior_values`` of a new node's moves (``last``: the move into
        it) as ``prior`` RAVE samples each (player 1's reward, as every statistic of the
        tree)."""
        values = self.game.prior_values(node.state, node.actions, last)  # type: ignore[arg-type]
        if values is None:
            return
        p1 = values if node.player == 1 else 1.0 - values
        node.rn += self._prior
        node.rw += self._prior * p1

    def _node(self, state: State) -> Node:
        """The tree's node of ``state``: with ``tt`` on, the one already made for a position
        reached by another order of moves, else a new one."""
        if not self._tt:
            return Node(self.game, state)
        key = self.game.transposition_key(state)
        node = self.table.get(key)
        if node is None:
            node = self.table[key] = Node(self.game, state)
        return node

    def _index(self, root: Node) -> None:
        """Count the entries of the nodes below ``root`` (a kept tree; what the game has left
        behind is freed) and, with the table, rebuild it from them."""
        self.table = {}
        self.entries = 0
        seen = {id(root)}
        todo = [root]
        while todo:
            node = todo.pop()
            self.entries += len(node.n)
            if self._tt:
                self.table[self.game.transposition_key(node.state)] = node
            for child in node.children.values():
                if id(child) not in seen:
                    seen.add(id(child))
                    todo.append(child)

    def _select(self, node: Node) -> int:
        assert node.actions is not None
        if node.player == CHANCE:
            assert node.probs is not None
            return int(np.argmax(node.probs * (node.visits + 1) - node.n))
        assert node.order is not None
        if self._rave:
            return rave_pick(node.w, node.n, node.rw, node.rn, node.player == 2, self._c,
                             math.log(node.visits + 1), self._rave_k, node.bonus,
                             self._solving, node.order)
        if node.tried < len(node.actions):
            i = int(node.order[node.tried])
            node.tried += 1
            return i
        if not (self.config.chance and node.cmask is not None):
            return ucb_pick(node.w, node.n, node.player == 2, self._c,
                            math.log(node.visits), node.bonus, self._solving, node.order)
        q = np.where(node.cmask, node.ev, node.w / node.n)
        if node.player == 2:
            q = 1.0 - q
        score = q + self._c * np.sqrt(math.log(node.visits) / node.n)
        if self._solving:
            score = score + node.bonus
        return int(node.order[np.argmax(score[node.order])])  # ties: the node's random order

    def _playout(self, state: State, path: list[tuple[Node, int]]) -> float:
        if self._replies is not None:  # the reply table lives in the AMAF kernels
            return self._reward(self._policy_playout(state, path)[0])
        seed = int(self.rng.integers(2**31))
        t = self.game.policy_playouts(state, 1, seed, self.config.captures, self._safe,
                                      self.config.bridges)
        return (float(t[0]) + self._draw * float(t[2])) / max(1, int(t[0] + t[1] + t[2]))

    def _policy_playout(self, state: State,
                        path: list[tuple[Node, int]]) -> tuple[int, np.ndarray]:
        """One ``amaf_playout`` under the configured policy from ``state``, reached by ``path``
        (the reply table, if any, answers its last move and learns from the result)."""
        seed = int(self.rng.integers(2**31))
        winner, moves = self.game.amaf_playout(state, seed, self.config.captures, self._safe,
                                               self.config.bridges, self._replies,
                                               _last_action(path))
        if self._replies is not None:
            self._learn(path, moves, winner)
        return winner, moves

    def _amaf_playout(self, node: Node, path: list[tuple[Node, int]]) -> float:
        """A playout whose moves are stamped in ``_seen`` (a new stamp); its reward. ``path``:
        the tree's moves down to ``node``, for the reply table."""
        winner, moves = self._policy_playout(node.state, path)
        amaf_mark(self._seen, moves, node.player, self._stamp)
        return self._reward(winner)

    def _reward(self, winner: int) -> float:
        """Player 1's reward for a playout won by ``winner`` (0: a draw or unfinished)."""
        return 1.0 if winner == 1 else 0.0 if winner == 2 else self._draw

    def _learn(self, path: list[tuple[Node, int]], moves: np.ndarray, winner: int) -> None:
        """Teach the reply table (``lgr``) one simulation: the tree's moves, then the playout's."""
        assert self._replies is not None
        tree = np.array([n.actions[i] for n, i in path], np.int32)  # type: ignore[index]
        lgr_update(self._replies, tree, moves, path[0][0].player, int(winner))

    def _simulate(self, root: Node) -> None:
        g = self.game
        node = root
        path: list[tuple[Node, int]] = []
        rave = self._rave
        if rave:
            self._stamp += 1
        while True:
            if node.proven is not None and (node.actions is None or self._solving):
                # terminal, or proven by the solver
                r = node.proven
                if r == 0.5 and node.player != CHANCE:
                    r = self._draw  # a drawn end (an exact chance value is not one)
                break
            if node.actions is None:
                if node is not root and (node.visits == 0 or self.entries > MAX_ENTRIES):
                    r = (self._amaf_playout(node, path) if rave
                         else self._playout(node.state, path))
                    break
                self._expand(node, _last_action(path))
            i = self._select(node)
            path.append((node, i))
            child = node.children.get(i)
            if child is None:
                child = self._node(g.play_unchecked(node.state, int(node.actions[i])))  # type: ignore[index]
                node.children[i] = child
                if child.player == CHANCE and child.proven is None:
                    if node.cmask is None:
                        node.cmask = np.zeros(len(node.n), np.bool_)
                    node.cmask[i] = True
            node = child
        node.visits += 1
        node.wsum += r
        proving = self._solving
        chance = self.config.chance
        for parent, i in reversed(path):
            if chance and parent.probs is not None:
                parent.add_outcome(i, r)
            else:
                parent.n[i] += 1
                parent.w[i] += r
            parent.visits += 1
            parent.wsum += r
            if rave and parent.player != CHANCE:
                seen = self._seen[parent.player]
                seen[parent.actions[i]] = self._stamp  # type: ignore[index]
                amaf_update(parent.rn, parent.rw, parent.actions, seen, self._stamp, r)
            if chance and parent.cmask is not None and parent.cmask[i]:
                parent.ev[i] = parent.children[i].expectation()
            if proving:
                proving = self._prove(parent, i)

    def _prove(self, node: Node, i: int) -> bool:
        """Update the solver after a backup through ``node.children[i]``; whether ``node``
        is (now) proven, so the update continues upward."""
        child = node.children[i]
        if child.proven is None:
            return node.proven is not None
        assert node.actions is not None
        m = node.player
        if m == CHANCE:
            if len(node.children) == len(node.actions) and all(
                    c.proven is not None for c in node.children.values()):
                assert node.probs is not None
                node.proven = float(sum(node.probs[j] * c.proven  # type: ignore[operator]
                                        for j, c in node.children.items()))
            return node.proven is not None
        v = mover_value(child.proven, m)
        node.bonus[i] = math.inf if v == 1.0 else -math.inf if v == 0.0 else 0.0
        if v == 1.0:
            node.proven = child.proven
        elif len(node.children) == len(node.actions) and all(
                c.proven is not None for c in node.children.values()):
            best = max(mover_value(c.proven, m) for c in node.children.values())  # type: ignore[arg-type]
            node.proven = mover_value(best, m)
        return node.proven is not None

    def _find(self, state: State) -> Node | None:
        """The node of ``state`` in the kept tree, if any: with the table, the one node of its
        position, however reached; without it, of the nodes equal to ``state`` a few plies
        below the old root (several orders of moves may lead there), the most visited."""
        if self.root is None:
            return None
        if self._tt:
            return self.table.get(self.game.transposition_key(state))
        best: Node | None = None
        todo = deque([(self.root, 0)])
        while todo:
            node, depth = todo.popleft()
            if node.state == state:
                if best is None or node.visits > best.visits:
                    best = node
            elif depth < 4 and node.state.ply < state.ply:
                todo.extend((c, depth + 1) for c in node.children.values())
        return best

    # -- public -----------------------------------------------------------------------------
    def search(self, state: State, budget: Budget) -> SearchResult:
        """Search from ``state`` (non-terminal) within ``budget``."""
        with collector_paused():  # its passes over a big tree cost 5% of a 2 s Blobs search
            return self._search(state, budget)

    def _search(self, state: State, budget: Budget) -> SearchResult:
        t0 = time.perf_counter()
        mover = self.game.current_player(state)
        draw = 0.5 - self.config.contempt if mover == 1 else 0.5 + self.config.contempt
        # a kept tree holds rewards with the draws valued for the player it searched for
        root = self._find(state) if self.config.reuse and draw == self._draw else None
        self._draw = draw
        if root is None:
            self.table = {}
            root = self._node(state)
            self.entries = 0
        else:
            self._index(root)  # forget the positions the game has left behind
        reused = root.visits
        self.root = root
        sims = 0
        while True:
            if budget.sims is not None and sims >= budget.sims:
                break
            if sims % 8 == 0 and (
                    (budget.seconds is not None and time.perf_counter() - t0 >= budget.seconds)
                    or (budget.stop is not None and sims and budget.stop())):
                break
            won = root.proven is not None and root.proven == mover_value(1.0, root.player)
            if self.config.solver and won and root.actions is not None:
                break  # a proven win: nothing left to find
            # a root proven lost (or drawn) is searched on without the proofs, for the most
            # resistant move against an opponent who may not find the win
            self._solving = self.config.solver and (root.proven is None or won)
            self._simulate(root)
            sims += 1
        return self._result(root, sims, time.perf_counter() - t0, reused)

    def _result(self, root: Node, sims: int, seconds: float, reused: int) -> SearchResult:
        m = root.player
        moves = []
        if root.actions is not None:
            # in the node's random order, so that the stable sort below breaks ties (common in
            # small searches) at random rather than by action index
            ranks = root.order if root.order is not None else np.arange(len(root.n))
            for i in ranks[root.n[ranks] > 0]:
                child = root.children.get(int(i))
                proven = child.proven if child is not None else None
                q = root.w[i] / root.n[i]
                if (self.config.chance and child is not None and root.cmask is not None
                        and root.cmask[i]):
                    q = child.expectation()
                moves.append(MoveStat(int(root.actions[i]), int(root.n[i]),
                                      float(mover_value(q, m)), winner_of(proven)))
        moves.sort(key=lambda s: (-_proof_rank(s.proven, m), -s.visits, -s.value))
        if not moves:  # no simulation reached a move (tiny budget): any legal move
            acts = self.game.legal_actions(root.state)
            moves = [MoveStat(int(acts[int(self.rng.integers(len(acts)))]), 0, 0.5)]
        value = mover_value(root.wsum / max(root.visits, 1), m)
        if root.proven is not None:
            value = mover_value(root.proven, m)
        return SearchResult(value, moves, self._pv(root), sims, seconds, winner_of(root.proven),
                            reused)

    def _pv(self, root: Node) -> list[int]:
        pv: list[int] = []
        node = root
        while node.actions is not None and node.children and len(pv) < 40:
            i = max(node.children, key=lambda j: (
                _proof_rank(winner_of(node.children[j].proven), node.player), node.n[j]))
            pv.append(int(node.actions[i]))
            node = node.children[i]
        return pv


def _last_action(path: list[tuple[Node, int]]) -> int:
    """The action that led to the end of ``path`` (-1 at the root)."""
    if not path:
        return -1
    node, i = path[-1]
    return int(node.actions[i])  # type: ignore[index]


def _proof_rank(proven: int | None, mover: int) -> int:
    """2 for a proven win of ``mover``, 0 for a proven loss, 1 otherwise."""
    if proven is None or proven == 0 or mover == CHANCE:
        return 1
    return 2 if proven == mover else 0
