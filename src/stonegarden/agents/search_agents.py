"""Search agents: ``uct-flat`` (the baseline), ``mcts`` (our best) and ``level:1`` .. ``level:6``.

An agent keeps its search engine (and tree) between moves of the same game object, so the
tree is reused: the engine finds the new root from the moves played since its last search."""

from __future__ import annotations

import dataclasses
from collections.abc import Callable
from typing import Any

from ..core.protocol import Game, State
from ..errors import ParameterError
from ..search.config import FLAT, Budget, SearchConfig
from ..search.fast import make_engine
from ..search.result import SearchResult
from .registry import int_option, no_more_options, register_agent

#: level -> (simulations per move, or None; seconds per move), whichever ends first.
#: Calibrated on Blooms n=5 (docs/ai.md): one doubling of simulations scores about 65-75%
#: there, so about 2.5x per level aims at 75%; there the simulations end the search long before
#: the time (levels 1-5 are the same strength on any machine). The time caps also grow 2.5x a
#: level, so in a game whose search is slower (Free Go, Bridge Go, territory Blooms, big
#: boards) every level still searches longer than the one below and level 5 never takes more
#: than 1.6 s; level 6 is the strongest interactive setting, 4 s of search.
LEVELS: dict[int, tuple[int | None, float]] = {
    1: (600, 0.04),
    2: (1500, 0.1),
    3: (4000, 0.25),
    4: (10000, 0.64),
    5: (40000, 1.6),
    6: (None, 4.0),
}

#: Games whose levels need other budgets (game id -> level -> budget as in ``LEVELS``), with
#: time caps (the common ones but in Bridge Go) that only guard a slow machine: the
#: simulations end levels 1-5.
#: In Blobs 2.5x the search scored only 59% a step (levels 2 and 3 against the level below, 40
#: games each, docs/ai.md); its levels are simulations 2-5x apart, each measured at 75-89%
#: against the level below. Free Go and Bridge Go search with RAVE (stop 22), which gains less
#: from a doubling above about 1,000 simulations than below (2.5x scored 55-65% a step at their
#: top common levels). Both games' levels were chosen again in stop 30, from level 6 (4 s)
#: down, each level about 75% against the one below. Free Go: level 6 makes ~185,000
#: simulations on 9x9, yet scored only 0.65-0.70 against 8,000-12,000 (and 9-0 against 5,000),
#: so level 5 is 8,000, and below it 2-2.5x a level scored 0.675-0.800, down to level 1. With
#: `safe` playouts (Free Go's default since stop 32) 700 against 300 simulations scored 0.825
#: in 200 games, so level 1 is 400 since stop 33 (level 2 against it 0.785 in 200 games, 40-0
#: against random). Bridge Go's, from level 6
#: (~20,000-28,000 simulations on 9x9 on the generic tree): 9,000 simulations scored
#: 0.30 against level 6 (6,000 scored 0.15), and below it each halving of simulations scored
#: 0.70-0.85 against the level above, so level 1 is 500 simulations (40-0 against random). The
#: time caps of Bridge Go are its own, about twice the time its simulations take on this
#: machine. Every step is measured in docs/ai.md ("Levels of Free Go and Bridge Go from level 6
#: down (stop 30)").
#: Territory Blooms searches at only ~1,100-2,500 simulations/s, so the common levels' time
#: caps decided its budgets and the steps came out uneven (0.725 to 0.900, stop 33); a doubling
#: of simulations there scored 0.78-0.90 and 1.5x 0.63-0.65, so its levels are ~1.85x apart, up
#: to 4,000 below level 6 (4 s, ~6,000-10,000 simulations). Its time caps are guards, 1.3-2x
#: the time the simulations take from the empty board here (~1,400/s); they stay below level
#: 6's 4 s, so on a slower machine level 5 may be cut short on the first moves. Each step scored
#: 0.633-0.850 against the level below (20-40 games; docs/ai.md, "The levels of
#: `blooms-territory` (stop 34)").
GAME_LEVELS: dict[str, dict[int, tuple[int | None, float]]] = {
    "blobs": {
        1: (100, 0.04),
        2: (200, 0.1),
        3: (1000, 0.25),
        4: (3200, 0.64),
        5: (12800, 1.6),
        6: (None, 4.0),
    },
    "freego": {
        1: (400, 0.04),
        2: (700, 0.1),
        3: (1500, 0.25),
        4: (3200, 0.64),
        5: (8000, 1.6),
        6: (None, 4.0),
    },
    "bridgego": {
        1: (500, 0.25),
        2: (1000, 0.5),
        3: (2000, 1.0),
        4: (4000, 2.0),
        5: (9000, 3.2),
        6: (None, 4.0),
    },
    "blooms-territory": {
        1: (350, 0.5),
        2: (650, 1.0),
        3: (1200, 1.6),
        4: (2200, 2.8),
        5: (4000, 3.6),
        6: (None, 4.0),
    },
}


def level_budget(level: int, game_id: str) -> tuple[int | None, float]:
    """(simulations or ``None``, seconds) of ``level`` in the game ``game_id``."""
    return GAME_LEVELS.get(game_id, LEVELS)[level]

_SWITCHES = ("split", "rave", "solver", "chance", "reuse", "tt", "fast", "bridges", "lgr")
_TRUE = {"1", "on", "true", "yes"}
_FALSE = {"0", "off", "false", "no"}


class SearchAgent:
    """Chooses the move a search ranks first. ``last`` holds the last search's result."""

    def __init__(self, config: SearchConfig, budget: Budget, seed: int | None, spec: str) -> None:
        self.config = config
        self.budget = budget
        self.seed = seed
        self.spec = spec
        self.last: SearchResult | None = None
        self._engine: Any = None
        self._game: Game | None = None

    def engine(self, game: Game) -> Any:
        """The engine for ``game`` (kept while the same game object is played)."""
        if self._engine is None or self._game is not game:
            self._engine = make_engine(game, self.config, self.seed)
            self._game = game
        return self._engine

    def budget_for(self, game: Game) -> Budget:
        """The budget of a search in ``game`` (the same in every game but for levels)."""
        return self.budget

    def analyse(self, game: Game, state: State, budget: Budget | None = None) -> SearchResult:
        self.last = self.engine(game).search(state, budget or self.budget_for(game))
        return self.last

    def choose(self, game: Game, state: State) -> int:
        return self.analyse(game, state).best

    def stop_when(self, stop: Callable[[], bool]) -> None:
        """End each search early once ``stop()`` is true (the best move so far is played)."""
        self.budget = dataclasses.replace(self.budget, stop=stop)


def _float_option(options: dict[str, str], key: str, spec: str,
                  zero: bool = False) -> float | None:
    """The number under ``key`` (positive, or with ``zero`` also 0), removed from ``options``."""
    if key not in options:
        return None
    raw = options.pop(key)
    try:
        value = float(raw)
    except ValueError:
        raise ParameterError(
            f"agent {spec!r}: option {key!r} must be a number, not {raw!r}") from None
    if zero and value == 0:
        return value
    if not value > 0 or value != value or value == float("inf"):
        least = "0 or more" if zero else "positive"
        raise ParameterError(f"agent {spec!r}: option {key!r} must be {least} and finite")
    return value


def _bool_option(options: dict[str, str], key: str, spec: str) -> bool | None:
    if key not in options:
        return None
    raw = options.pop(key).lower()
    if raw in _TRUE:
        return True
    if raw in _FALSE:
        return False
    raise ParameterError(f"agent {spec!r}: option {key!r} must be on/off (1/0), not {raw!r}")


def _budget(options: dict[str, str], spec: str, default_seconds: float) -> Budget:
    seconds = _float_option(options, "time", spec)
    sims = int_option(options, "sims", None, spec)
    if sims is not None and sims < 1:
        raise ParameterError(f"agent {spec!r}: option 'sims' must be at least 1")
    if sims is None and seconds is None:
        seconds = default_seconds
    return Budget(sims=sims, seconds=seconds)


def _config(options: dict[str, str], spec: str, base: SearchConfig) -> SearchConfig:
    changes: dict[str, Any] = {}
    for key in _SWITCHES:
        value = _bool_option(options, key, spec)
        if value is not None:
            changes[key] = value
    c = _float_option(options, "c", spec)
    if c is not None:
        changes["c"] = c
    k = _float_option(options, "rave_k", spec)
    if k is not None:
        changes["rave_k"] = k
    contempt = _float_option(options, "contempt", spec, zero=True)
    if contempt is not None:
        if not 0 <= contempt <= 0.5:
            raise ParameterError(f"agent {spec!r}: option 'contempt' must be 0..0.5")
        changes["contempt"] = contempt
    grave = int_option(options, "grave", None, spec)
    if grave is not None:
        if grave < 0:
            raise ParameterError(f"agent {spec!r}: option 'grave' must be 0 (off) or more")
        changes["grave"] = grave
    prior = int_option(options, "prior", None, spec)
    if prior is not None:
        if not 0 <= prior <= 10_000:
            raise ParameterError(f"agent {spec!r}: option 'prior' must be 0 (off)..10000")
        changes["prior"] = prior
    for key in ("captures", "safe"):  # playout policies: candidate moves tried per move
        tries = int_option(options, key, None, spec)
        if tries is not None:
            if not 0 <= tries <= 64:
                raise ParameterError(f"agent {spec!r}: option {key!r} must be 0..64")
            changes[key] = tries
    return dataclasses.replace(base, **changes)


@register_agent("mcts", "our best search (options: time=S, sims=N, seed, c, rave_k, grave=N, "
                        "captures=K, safe=K, prior=N, contempt=C, "
                        "split/rave/solver/chance/reuse/tt/fast/bridges/lgr=on|off)")
def _mcts(options: dict[str, str], spec: str) -> SearchAgent:
    seed = int_option(options, "seed", None, spec)
    budget = _budget(options, spec, 1.0)
    config = _config(options, spec, SearchConfig())
    no_more_options(options, spec)
    return SearchAgent(config, budget, seed, spec)


@register_agent("uct-flat", "plain UCT over whole turns with uniform playouts, the baseline "
                            "(options: time=S, sims=N, seed, c)")
def _uct_flat(options: dict[str, str], spec: str) -> SearchAgent:
    seed = int_option(options, "seed", None, spec)
    budget = _budget(options, spec, 1.0)
    c = _float_option(options, "c", spec)
    no_more_options(options, spec)
    config = FLAT if c is None else dataclasses.replace(FLAT, c=c)
    return SearchAgent(config, budget, seed, spec)


@register_agent("level", "strength levels level:1 (beginner) .. level:6 (maximum) (option: seed)")
def _level(options: dict[str, str], spec: str) -> SearchAgent:
    raw = options.pop("_", None)
    if raw is None or not raw.isdigit() or int(raw) not in LEVELS:
        raise ParameterError(f"agent {spec!r}: say which level, level:1 .. level:{len(LEVELS)}")
    seed = int_option(options, "seed", None, spec)
    no_more_options(options, spec)
    return LevelAgent(int(raw), seed, spec)


class LevelAgent(SearchAgent):
    """``mcts`` with the default search and the budget of a level, which depends on the game
    (``GAME_LEVELS``); ``budget`` holds the default levels' budget until a game is known."""

    def __init__(self, level: int, seed: int | None, spec: str) -> None:
        sims, seconds = LEVELS[level]
        super().__init__(SearchConfig(), Budget(sims=sims, seconds=seconds), seed, spec)
        self.level = level

    def budget_for(self, game: Game) -> Budget:
        sims, seconds = level_budget(self.level, game.id)
        return dataclasses.replace(self.budget, sims=sims, seconds=seconds)
