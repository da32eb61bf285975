"""Search agents: ``uct-flat`` (the baseline), ``mcts`` (our best) and ``level:1`` .. ``level:6``.

``mcts:threads=N`` searches with N threads (``search/parallel.py``): ``parallel=root`` a
tree each, merged at the root; ``parallel=tree`` one tree shared by them
(``search/shared_tree.py``). ``mcts`` alone takes one. Levels 5 and 6 take every core the
process may use; levels 1-4 one, so that they are the same strength on any machine.

Every agent option is parsed here: the search's own (``SearchConfig``), the budget, and the
options a game's search profile declares (checked against their declared ranges).

An agent keeps its search engine (and tree) between moves of the same game object, so the
tree is reused: the engine finds the new root from the moves played since its last search."""

from __future__ import annotations

import dataclasses
from collections.abc import Callable
from pathlib import Path
from typing import Any

from ..core.numbers import decimal_number
from ..core.protocol import Game, State
from ..errors import ParameterError, quote
from ..search.config import FLAT, MAX_THREADS, Budget, SearchConfig, default_threads
from ..search.parallel import DEFAULT_PARALLEL, RootParallel, Searcher, new_searcher, parallel_mode
from ..search.profile import LEVELS, declared_options, profile_for
from ..search.result import SearchResult
from ..search.shared_tree import SharedTree
from .registry import check_to_move, int_option, no_more_options, register_agent


def level_budget(level: int, game: Game) -> tuple[int | None, float]:
    """(simulations or ``None``, seconds) of ``level`` in ``game`` (its profile's levels)."""
    return profile_for(game).levels[level]


#: the simulations a move searches when it is the only legal one (at most: a smaller budget stays)
FORCED_SIMS = 100
#: and the seconds, at most
FORCED_SECONDS = 0.5

_SWITCHES = ("rave", "solver", "chance", "reuse", "tt", "fast", "lgr", "bias")
#: the words of a switch: on/off, and as everywhere a switch is written as text (a game's
#: boolean parameters: ``core/params.py``) 1/0, true/false and yes/no, in any case
_TRUE = {"on", "1", "true", "yes"}
_FALSE = {"off", "0", "false", "no"}


class SearchAgent:
    """Chooses the move a search ranks first. ``last`` holds the last search's result."""

    def __init__(self, config: SearchConfig, budget: Budget, seed: int | None, spec: str,
                 threads: int = 1, parallel: str = DEFAULT_PARALLEL) -> None:
        self.config = config
        self.budget = budget
        self.seed = seed
        self.spec = spec
        self.threads = threads
        self.parallel = parallel
        self.last: SearchResult | None = None
        self._engine: Searcher | None = None
        self._game: Game | None = None

    # an engine of threads holds its threads' queues, which do not pickle: a pickled agent is
    # its settings and last result, and its copy builds a new engine at its first search
    def __getstate__(self) -> dict[str, Any]:
        return {**self.__dict__, "_engine": None, "_game": None}

    def engine(self, game: Game) -> Searcher:
        """The engine for ``game`` (kept while the same game object is played): one tree, or
        ``threads`` trees searching at once."""
        if self._engine is None or self._game is not game:
            if isinstance(self._engine, RootParallel | SharedTree):
                self._engine.close()
            self._engine = new_searcher(game, self.config, self.seed, self.threads,
                                        self.parallel)
            self._game = game
        return self._engine

    def forget(self) -> None:
        """Drop the kept engine, its tree and its count of searches (which salts the seed),
        ending its threads: the next search is the one a new agent would make, whatever this
        one searched before (a review's position searched as ``analyse --ply`` searches it)."""
        if isinstance(self._engine, RootParallel | SharedTree):
            self._engine.close()
        self._engine = None
        self._game = None

    def budget_for(self, game: Game) -> Budget:
        """The budget of a search in ``game`` (the same in every game but for levels)."""
        return self.budget

    def config_for(self, game: Game) -> SearchConfig:
        """The search's settings in ``game`` (the same in every game but for levels)."""
        return self.config

    def check(self, game: Game) -> None:
        """Refuse, before any search, what ``game``'s search cannot do of this agent's
        settings (``SearchProfile.check``).

        Raises:
            ParameterError: the game's reason.
        """
        profile_for(game).check(self.config_for(game))

    def __repr__(self) -> str:
        return f"make_agent({self.spec!r})"

    def analyse(self, game: Game, state: State, budget: Budget | None = None) -> SearchResult:
        """The search's result from ``state`` (a chance node included), kept in ``last``, on
        ``budget`` (default: the agent's own, ``budget_for(game)``).

        Raises:
            PositionError: the game is over.
            ParameterError: ``budget`` is not a ``Budget`` (a bare ``100`` could be
            simulations or seconds: it failed with ``AttributeError`` deep in the search).
        """
        if budget is not None and not isinstance(budget, Budget):
            raise ParameterError(f"a search budget is a Budget(sims=..., seconds=...), not "
                                 f"{quote(budget)}")
        check_to_move(game, state, chance=False)
        self.last = self.engine(game).search(state, budget or self.budget_for(game))
        return self.last

    def choose(self, game: Game, state: State) -> int:
        """The move the search ranks first.

        Raises:
            PositionError: the game is over or a chance event is due.
        """
        check_to_move(game, state)
        budget = self.budget_for(game)
        if game.count_legal_actions(state) == 1:
            # nothing to choose: a short search still gives ``last`` the position's value
            # (resigning and the records read it), without spending the move's whole budget
            # (and the seconds bound how long it waits for the trees of helper processes)
            seconds = None if budget.seconds is None else min(budget.seconds, FORCED_SECONDS)
            budget = dataclasses.replace(budget, seconds=seconds,
                                         sims=min(budget.sims or FORCED_SIMS, FORCED_SIMS))
        return self.analyse(game, state, budget).best

    def stop_when(self, stop: Callable[[], bool]) -> None:
        """End each search early once ``stop()`` is true (the best move so far is played)."""
        self.budget = dataclasses.replace(self.budget, stop=stop)

    def cap_threads(self, most: int, where: str) -> None:
        """Search with at most ``most`` threads, before the first search: an agent that asks
        for more (``threads=N``) is refused, since it named its count.

        Raises:
            ParameterError: ``threads`` above ``most``; ``where`` says whose bound it is.
        """
        if self.threads > most:
            raise ParameterError(f"agent {self.spec!r}: option 'threads' must be 1..{most} "
                                 f"{where}")


def _float_option(options: dict[str, str], key: str, spec: str,
                  zero: bool = False) -> float | None:
    """The number under ``key`` (positive, or with ``zero`` also 0), removed from ``options``."""
    if key not in options:
        return None
    raw = options.pop(key)
    try:
        value = decimal_number(raw)
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
    raise ParameterError(f"agent {spec!r}: option {key!r} must be on or off (or 1/0, "
                         f"true/false, yes/no), not {raw!r}")


def threads_option(options: dict[str, str], spec: str) -> int:
    """The ``threads`` option (1 if absent), removed from ``options``.

    Raises:
        ParameterError: not a whole number in 1..MAX_THREADS.
    """
    threads = int_option(options, "threads", 1, spec)
    assert threads is not None
    if not 1 <= threads <= MAX_THREADS:
        raise ParameterError(f"agent {spec!r}: option 'threads' must be 1..{MAX_THREADS}, "
                             f"not {threads!r}")
    return threads


def parallel_option(options: dict[str, str], spec: str) -> str:
    """The ``parallel`` option (``DEFAULT_PARALLEL`` if absent), removed from ``options``.

    Raises:
        ParameterError: not one of ``parallel.PARALLEL_MODES``.
    """
    try:
        return parallel_mode(options.pop("parallel", DEFAULT_PARALLEL))
    except ParameterError as exc:
        raise ParameterError(f"agent {spec!r}: option {exc}") from None


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
    model = _model_option(options, spec)
    if model is not None:
        changes["model"] = model
    game = _game_options(options, spec)
    return dataclasses.replace(base, **changes).with_game_options(game)


def _model_option(options: dict[str, str], spec: str) -> str | None:
    """The ``model`` option, removed from ``options``: ``none`` (no learned model),
    ``shipped`` (the game's shipped model, even one not loaded by default), or the path of a
    model file, read here so that a bad one is refused before any search;
    ``None`` if absent (the game's shipped model).

    Raises:
        ParameterError: neither ``none``, ``shipped`` nor a readable model file.
    """
    raw = options.pop("model", None)
    if raw is None:
        return None
    if raw.lower() in ("none", "shipped"):
        return raw.lower()
    from ..learn.model import load_model

    try:
        if not raw.strip():
            raise ParameterError("it is empty")
        load_model(raw)
    except ParameterError as exc:
        # the path went on past a ',' (read as a bare value): say where the spec cut it
        cut = ("; a ',' ends an option, so a model file's path cannot hold one: copy or link "
               "the model to a path without it" if "_" in options and not Path(raw).expanduser().exists()
               else "")
        raise ParameterError(f"agent {spec!r}: option 'model' must be none, shipped or a model "
                             f"file: {exc}{cut}") from None
    return raw


def _game_options(options: dict[str, str], spec: str) -> dict[str, int]:
    """The options some game's search profile declares (``split``, ``captures``, ...), checked
    against their declaration, removed from ``options``."""
    values: dict[str, int] = {}
    for name, option in declared_options().items():
        if name not in options:
            continue
        if option.kind == "bool":
            flag = _bool_option(options, name, spec)
            assert flag is not None
            values[name] = int(flag)
            continue
        value = int_option(options, name, None, spec)
        assert value is not None
        if not option.low <= value <= option.high:
            raise ParameterError(
                f"agent {spec!r}: option {name!r} must be {option.low}..{option.high}")
        values[name] = value
    return values


#: the ``model`` option in the ``mcts`` line (a server, which reads no file a client names,
#: offers it without ``PATH``: ``web.job_kinds.server_agent_docs``)
MODEL_CHOICES = "model=none|shipped|PATH"


def _mcts_doc() -> str:
    """The ``mcts`` line, with the options the games' profiles declare (a list written here
    went stale: it missed ``eyes`` and ``patterns``)."""
    own = ", ".join(f"{name}=on|off" if option.kind == "bool" else f"{name}=K"
                    for name, option in declared_options().items())
    return ("our best search (options: time=S, sims=N, seed, threads=N, parallel=tree|root, c, "
            f"rave_k, grave=N, prior=N, contempt=C, {MODEL_CHOICES}, "
            f"rave/solver/chance/reuse/tt/fast/lgr/bias=on|off, and the game's own: {own})")


@register_agent("mcts", _mcts_doc)
def _mcts(options: dict[str, str], spec: str) -> SearchAgent:
    seed = int_option(options, "seed", None, spec)
    threads = threads_option(options, spec)
    parallel = parallel_option(options, spec)
    budget = _budget(options, spec, 1.0)
    config = _config(options, spec, SearchConfig())
    no_more_options(options, spec)
    return SearchAgent(config, budget, seed, spec, threads, parallel)


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
    # ASCII digits only: "²" is a digit to isdigit() but not to int(), "٤" is 4 to int()
    if raw is None or not (raw.isascii() and raw.isdigit()) or int(raw) not in LEVELS:
        raise ParameterError(f"agent {spec!r}: say which level, level:1 .. level:{len(LEVELS)}")
    seed = int_option(options, "seed", None, spec)
    no_more_options(options, spec)
    # its spec as pages and records name a level ("level:3"), whatever the case and spacing
    # it was written in ("LEVEL: 03" was shown as "computer (LEVEL: 03)")
    canonical = f"level:{int(raw)}" + ("" if seed is None else f",seed={seed}")
    return LevelAgent(int(raw), seed, canonical)


#: the lowest level that searches with every core
PARALLEL_LEVEL = 5


class LevelAgent(SearchAgent):
    """``mcts`` with the default search and the budget of a level, which depends on the game
    (its search profile's ``levels``); ``budget`` holds the common levels' budget until a game
    is known. Levels from ``PARALLEL_LEVEL`` search with every core, the others with one. A
    level loads the game's default model only where the profile's ``model_levels`` name it."""

    def __init__(self, level: int, seed: int | None, spec: str) -> None:
        sims, seconds = LEVELS[level]
        threads = default_threads() if level >= PARALLEL_LEVEL else 1
        super().__init__(SearchConfig(model="none"), Budget(sims=sims, seconds=seconds), seed,
                         spec, threads)
        self.level = level

    def engine(self, game: Game) -> Searcher:
        self.config = self.config_for(game)
        return super().engine(game)

    def cap_threads(self, most: int, where: str) -> None:
        """A level's threads are every core it is given: at most ``most``."""
        self.threads = min(self.threads, most)

    def config_for(self, game: Game) -> SearchConfig:
        """The level's search in ``game`` (its profile's ``level_config``)."""
        return profile_for(game).level_config(self.level)

    def budget_for(self, game: Game) -> Budget:
        """The level's budget in ``game``; its simulations are per thread (a level with
        several threads searches more, within the same time cap, never less than with one)."""
        sims, seconds = level_budget(self.level, game)
        if sims is not None:
            sims *= self.threads
        return dataclasses.replace(self.budget, sims=sims, seconds=seconds)
