"""The territory rules' learned move model: the capture race's stone model (``model.py``) over
the territory rules' turns, with one more weight, for the pass.

A turn is read as the compiled tree's decisions (``territory_tree.py``): first the first
colour's stone, the pass, or none of the first colour; then (but after the pass) the second
colour's stone, or none after a first stone. The candidates are those the legal turns allow
(self-fencing is illegal here), each with its pattern and tactics weights at its stage
(``features.py``); "none" has a weight per stage and the pass its own.

The compiled tree reads the model at each stage (``territory_tree.stage_priors``). The
protocol tree's actions are whole turns, so ``TurnPriors`` gives a turn the sum of its
choices' logits, both stones judged on the board as it stands (the second as though the first
were not yet placed: one labelling of the board a node, not one per first stone), and turns
the sums into prior values (``learn/priors.py``).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, cast

import numpy as np
from numba import njit

from ...geometry.edges import edge_distance
from ...geometry.flood import label_groups
from ...learn.learner import Choices
from ...learn.priors import logit_priors
from .features import TACTICS, stone_codes
from .model import RaceLearner, feature_scratch, model_tables

if TYPE_CHECKING:
    from ...core.protocol import Game, State
    from ...learn.model import MoveModel
    from .rules import BloomsState, BloomsTerritory

#: the "none" weights: no first stone, no second stone after a first, the pass
NONE_FIRST, NONE_SECOND, PASS = range(3)


@njit(cache=True)
def stage_codes(board, nb, edge, player, stage, cells, feat, pat_out, tac_out):
    """The pattern and tactics codes of a stone of colour ``stage`` on each of ``cells``."""
    bloom, libs_of, size_of, stack, mark, ids = feat[0], feat[1], feat[2], feat[3], feat[4], feat[5]
    label_groups(board, nb, bloom, libs_of, size_of, stack, mark)
    for k in range(cells.shape[0]):
        pat_out[k], tac_out[k] = stone_codes(board, nb, edge, player, stage, cells[k], bloom,
                                             libs_of, size_of, ids)


@njit(cache=True)
def turn_priors(board, nb, edge, player, actions, pattern_w, tactic_w, none_w, scale, feat,
                first, second, priors):
    """Prior values in [0, 1] of the territory turns ``actions`` into ``priors`` (module
    docstring); ``first`` and ``second`` are scratch, one slot per cell."""
    bloom, libs_of, size_of, stack, mark, ids = feat[0], feat[1], feat[2], feat[3], feat[4], feat[5]
    logits = feat[6]
    n = board.shape[0]
    label_groups(board, nb, bloom, libs_of, size_of, stack, mark)
    for c in range(n):
        if board[c] == 0:
            p, t = stone_codes(board, nb, edge, player, 0, c, bloom, libs_of, size_of, ids)
            first[c] = pattern_w[0, p] + tactic_w[0, t]
            p, t = stone_codes(board, nb, edge, player, 1, c, bloom, libs_of, size_of, ids)
            second[c] = pattern_w[1, p] + tactic_w[1, t]
    count = actions.shape[0]
    for k in range(count):
        x = actions[k]
        if x < 2 * n:
            c = x // 2
            if x % 2 == 0:
                logits[k] = first[c] + none_w[NONE_SECOND]
            else:
                logits[k] = none_w[NONE_FIRST] + second[c]
        elif x == 2 * n + n * n:
            logits[k] = none_w[PASS]
        else:
            a = (x - 2 * n) // n
            logits[k] = first[a] + second[x - 2 * n - a * n]
    logit_priors(logits, count, scale, priors)


def _stones(game: BloomsTerritory, actions: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Each turn's first and second choice as the compiled tree takes them: a cell or -1
    for none, the pass as (N, -1)."""
    pairs = [game.decode(int(x)) or (game.num_cells, -1) for x in actions]
    return (np.array([a for a, _ in pairs], np.int64), np.array([b for _, b in pairs], np.int64))


class TerritoryLearner(RaceLearner):
    """The race's weights (``RaceLearner``) and one for the pass, last."""

    #: the pass a first-stage choice of its own (the kind before it read the pass as none
    #: then none: its files are refused rather than read another way)
    kind = "blooms-territory-stages"

    def __init__(self) -> None:
        super().__init__()
        self.num_features += 1

    def _stage_rows(self, nb: np.ndarray, edge: np.ndarray, feat: tuple[np.ndarray, ...],
                    board: np.ndarray, player: int, stage: int, cells: np.ndarray,
                    nones: list[int]) -> np.ndarray:
        """The rows of one decision: ``cells``, then each of ``nones`` (the "none" weights'
        indices: ``NONE_FIRST``, ``NONE_SECOND``, ``PASS``)."""
        pat = np.empty(len(cells), np.int64)
        tac = np.empty(len(cells), np.int64)
        stage_codes(board, nb, edge, player, stage, cells, feat, pat, tac)
        rows = self._columns(stage, self.index[pat], tac)
        base = 2 * self.classes + 2 * TACTICS
        for none in nones:
            rows = np.vstack([rows, [[base + none, self.num_features]]])
        return rows

    def choices(self, game: Game, actions: list[int],
                visits: list[dict[int, int]] | None = None) -> Choices:
        """Every decision along one game, as the compiled tree takes them: the turn's first
        stone among those the legal turns allow, the pass or none; then (but after the pass)
        its second stone, or none after a first stone where that is legal."""
        g = cast("BloomsTerritory", game)
        n = g.num_cells
        nb = g.board.neighbours
        fixed = (nb, edge_distance(nb), feature_scratch(n))
        out = Choices.builder()
        state = cast("BloomsState", g.initial_state())
        for action in actions:
            firsts, seconds = _stones(g, g.legal_actions(state))
            a, b = g.decode(action) or (n, -1)
            board = state.cells().copy()
            p = state.player
            cells = np.unique(firsts[(firsts >= 0) & (firsts < n)])
            nones = [k for k, there in ((PASS, (firsts == n).any()),
                                        (NONE_FIRST, (firsts < 0).any())) if there]
            rows = self._stage_rows(*fixed, board, p, 0, cells, nones)
            out.add(rows, int(np.flatnonzero(cells == a)[0]) if 0 <= a < n
                    else len(cells) + nones.index(PASS if a == n else NONE_FIRST))
            if a != n:
                after = seconds[firsts == a]
                cells = np.unique(after[after >= 0])
                if a >= 0:
                    board[a] = 2 * p - 1
                rows = self._stage_rows(*fixed, board, p, 1, cells,
                                        [NONE_SECOND] if (after < 0).any() else [])
                out.add(rows, int(np.flatnonzero(cells == b)[0]) if b >= 0 else len(cells))
            state = cast("BloomsState", g.play(state, action))
        return out.build()

    def arrays(self, weights: np.ndarray) -> dict[str, np.ndarray]:
        """The race's tables, with "none" holding the pass's weight as a third entry."""
        tables = super().arrays(weights)
        base = 2 * self.classes + 2 * TACTICS
        tables["none"] = weights[base:base + 3].astype(np.float32)
        return tables


class TurnPriors:
    """The protocol tree's priors from a territory model (``SearchProfile.prior_values_for``);
    each tree holds its own, so its scratch buffers are never shared between threads."""

    def __init__(self, game: BloomsTerritory, model: MoveModel) -> None:
        n = game.num_cells
        self.game = game
        self.edge = edge_distance(game.board.neighbours)
        self.feat = feature_scratch(n)
        self.first = np.empty(n)
        self.second = np.empty(n)
        self.tables = model_tables(model, TerritoryLearner.kind, 3)

    def __call__(self, state: State, actions: np.ndarray, last: int = -1) -> np.ndarray:
        s = cast("BloomsState", state)
        pattern_w, tactic_w, none_w, scale = self.tables
        priors = np.empty(len(actions))
        turn_priors(s.cells(), self.game.board.neighbours, self.edge, s.player,
                    np.asarray(actions, np.int64), pattern_w, tactic_w, none_w, scale, self.feat,
                    self.first, self.second, priors)
        return priors

