"""Adding a game touches its own package and one registration, nothing else: a toy game
defined here alone, with a search profile of its own, gets strength levels, the search (with
its proofs), the web app's view (the text view: it brings no board view), the lab's games
and statistics, and the kernels' warm-up."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import ClassVar

import numpy as np
import pytest

from stonegarden.agents import make_agent
from stonegarden.agents.search_agents import SearchAgent
from stonegarden.core import registry
from stonegarden.core.params import Param
from stonegarden.core.protocol import Game, State, foreign_state, without_bom
from stonegarden.errors import NotationError, PositionError, quote
from stonegarden.lab.selfplay import play_game
from stonegarden.lab.statistics import summarise
from stonegarden.search.config import Budget, SearchConfig
from stonegarden.search.profile import SearchProfile, profile_for


@dataclass(frozen=True, kw_only=True, repr=False)
class RowState(State):
    board: bytes


class RowProfile(SearchProfile):
    """The toy's own levels: a few simulations each."""

    levels: ClassVar[Mapping[int, tuple[int | None, float]]] = {
        1: (7, 1.0), 2: (15, 1.5), 3: (31, 2.0), 4: (63, 2.5), 5: (127, 3.0), 6: (None, 0.2)}


class ThreeInARow(Game):
    """Players place stones on a row of points; three of one's own in a row wins, a full row
    is a draw."""

    id = "toy-row"
    title = "Three in a row"
    param_specs = (Param("size", "int", 7, "points in the row", low=3, high=20),)
    search_profile = RowProfile

    @property
    def num_distinct_actions(self) -> int:
        return self.params["size"]

    @property
    def max_game_length(self) -> int:
        return self.params["size"]

    def initial_state(self) -> RowState:
        return RowState(player=1, board=bytes(self.params["size"]))

    def _own(self, state: State) -> RowState:
        if not isinstance(state, RowState):
            raise foreign_state(self, state)
        if len(state.board) != self.params["size"]:
            raise foreign_state(self, state, (len(state.board), self.params["size"]))
        return state

    def _row(self, state: State) -> bytes:
        return self._own(state).board

    def _three(self, state: State) -> int:
        row = self._row(state)
        for i in range(len(row) - 2):
            if row[i] and row[i] == row[i + 1] == row[i + 2]:
                return row[i]
        return 0

    def _is_over(self, state: State) -> bool:
        return bool(self._three(state)) or 0 not in self._row(state)

    def _winner_when_over(self, state: State) -> int:
        return self._three(state)

    def _reason_when_over(self, state: State) -> str:
        return "three" if self._three(state) else "full"

    def scores(self, state: State) -> tuple[int, int]:
        self._row(state)
        return (0, 0)

    def legal_actions(self, state: State) -> np.ndarray:
        if self.is_terminal(state):
            return np.empty(0, np.int64)
        return np.flatnonzero(np.frombuffer(self._row(state), np.uint8) == 0).astype(np.int64)

    def illegal_reason(self, state: State, action: int) -> str | None:
        if self.is_terminal(state):
            return "the game is over"
        if not 0 <= action < self.params["size"] or self._row(state)[action]:
            return "not an empty point"
        return None

    def play_unchecked(self, state: State, action: int) -> RowState:
        row = bytearray(self._row(state))
        row[action] = state.player
        return RowState(player=3 - state.player, ply=state.ply + 1, board=bytes(row))

    def action_to_text(self, state: State, action: int) -> str:
        self._own(state)
        return f"p{action + 1}"

    def parse_action(self, state: State, text: str) -> int:
        self._row(state)
        point = text.strip().lower()
        if not point.startswith("p") or not point[1:].isdigit() or len(point) > 4:
            raise NotationError(f"{quote(text)} is not a point (p1, p2, ...)")
        return int(point[1:]) - 1

    def position_text(self, state: State) -> str:
        return "".join(".xo"[c] for c in self._row(state)) + f" {state.player}"

    def parse_position(self, text: str) -> RowState:
        parts = without_bom(text).split()
        if len(parts) != 2 or parts[1] not in ("1", "2") or set(parts[0]) - set(".xo"):
            raise NotationError(f"{quote(text)} is not a row and a player (e.g. 'x.o 1')")
        if len(parts[0]) != self.params["size"]:
            raise PositionError(f"{quote(text)} has {len(parts[0])} points, not "
                                f"{self.params['size']}")
        cells = bytes(".xo".index(c) for c in parts[0])
        return RowState(player=int(parts[1]), ply=sum(c > 0 for c in cells), board=cells)

    def diagram(self, state: State) -> str:
        return self.position_text(state)

    def parse_diagram(self, text: str) -> RowState:
        return self.parse_position(text)

    @property
    def observation_shape(self) -> tuple[int, ...]:
        return (2, self.params["size"])

    def observation_planes(self, state: State, player: int) -> np.ndarray:
        row = np.frombuffer(self._row(state), np.uint8)
        return np.stack([row == player, row == 3 - player]).astype(np.float32)


@pytest.fixture
def toy(monkeypatch):
    monkeypatch.setitem(registry._GAMES, ThreeInARow.id, ThreeInARow)
    return registry.make("toy-row")


def test_a_level_searches_with_the_toy_s_own_budget(toy):
    agent = make_agent("level:2,seed=1")
    assert isinstance(agent, SearchAgent)
    assert agent.budget_for(toy).sims == 15
    state = toy.initial_state()
    result = agent.analyse(toy, state)
    assert result.sims == 15 and toy.is_legal(state, result.best)


@pytest.mark.parametrize("spec", ["mcts:sims=300,seed=1", "mcts:sims=300,seed=1,tt=on",
                                  "uct-flat:sims=300,seed=1"])
def test_the_search_takes_the_toy_s_win_and_proves_it(toy, spec):
    state = toy.parse_position("xx.o.o. 1")
    agent = make_agent(spec)
    assert isinstance(agent, SearchAgent)
    result = agent.analyse(toy, state, Budget(sims=300))
    assert toy.action_to_text(state, result.best) == "p3"
    if "uct-flat" not in spec:  # the baseline has no solver
        assert result.proven == 1


def test_the_web_app_draws_the_toy_with_the_text_view(toy):
    from stonegarden.web.views import view_for

    assert view_for(toy).kind == "text"


def test_the_lab_plays_and_summarises_the_toy(toy):
    games = [play_game({"game": "toy-row", "params": {}, "index": i, "seed": i,
                        "seats": {"1": "level:1", "2": "random"} if i % 2 == 0
                        else {"1": "random", "2": "level:1"}}) for i in range(6)]
    assert all(toy.is_terminal(toy.replay(g["moves"])[-1]) for g in games)
    summary = summarise(games, ["level:1", "random"])
    assert summary["games"] == 6


def test_the_toy_s_kernels_warm_up_through_its_profile(toy):
    from stonegarden.search import engines

    profile = profile_for(toy)
    assert isinstance(profile, RowProfile)
    profile.warm_up()
    assert (ThreeInARow, SearchConfig()) in engines._WARM



def _conformance():
    from . import test_conformance

    return test_conformance


def _cases(check, params):
    """The keyword arguments ``check``'s own parametrisations give it, with ``params`` for
    the toy's game (``game_id`` is the toy's)."""
    cases: list[dict] = [{}]
    for mark in getattr(check, "pytestmark", []):
        if mark.name != "parametrize":
            continue
        names = [n.strip() for n in mark.args[0].split(",")]
        if "game_id" in names:
            rows = [(params,)] if "params" in names else [()]
            names = [n for n in names if n == "params"]
        else:
            rows = [tuple(getattr(v, "values", v)) if len(names) > 1 or hasattr(v, "marks")
                    else (v,) for v in mark.args[1]]
        cases = [{**c, **dict(zip(names, row))} for c in cases for row in rows]
    return cases


@pytest.mark.parametrize("name", [n for n in dir(_conformance()) if n.startswith("test_")])
def test_the_conformance_tests_pass_for_the_toy(toy, monkeypatch, name):
    """The toy follows architecture.md's "How a game plugs in" and no more, so every
    conformance test, which a registered game meets without being named, passes for it."""
    conformance = _conformance()
    monkeypatch.setitem(conformance.SMALL, toy.id, {"size": 5})
    check = getattr(conformance, name)
    for case in _cases(check, {"size": 5}):
        check(game_id=toy.id, **case)
