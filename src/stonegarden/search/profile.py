"""What the search knows about a game: its search profile.

A game's package subclasses ``SearchProfile`` (``games/<id>/search.py``) and names it in the
game class (``Game.search_profile``), the seam OpenSpiel calls an evaluator: default settings
of the search, the options only that game has, its strength levels, its playouts and move
priors, when two positions are one for the search, and its compiled tree kernels if it has
any. Everything the generic search, the agents and the web app need to know about a game comes
through here; none of them holds a table keyed by game id.
"""

from __future__ import annotations

from collections.abc import Callable, Hashable, Mapping
from importlib import resources
from typing import TYPE_CHECKING, ClassVar

import numpy as np

from ..core.protocol import Game, State
from .config import GameOption, SearchConfig

if TYPE_CHECKING:
    from ..learn.learner import Learner
    from ..learn.model import MoveModel
    from .tree import TreeSpec

#: a node's priors in the protocol tree: (state, legal actions, the move into it; -1 unknown)
#: -> a value in [0, 1] per action, or ``None`` (``SearchProfile.prior_values``)
PriorValues = Callable[[State, np.ndarray, int], "np.ndarray | None"]

#: level -> (simulations per move, or None; seconds per move), whichever ends first.
#: Calibrated on Blooms n=5 (docs/ai.md): one doubling of simulations scores about 65-75%
#: there, so about 2.5x per level aims at 75%; the simulations end levels 1-5 long before the
#: time there (the same strength on any machine for levels 1-4, which search with one tree;
#: levels 5-6 search with one tree per core, level 5's simulations per tree). The time caps
#: also grow 2.5x a level, so in a game whose search is slower every level still searches
#: longer than the one below and level 5 never takes more than 1.6 s; level 6 is the
#: strongest interactive setting, 4 s.
LEVELS: Mapping[int, tuple[int | None, float]] = {
    1: (600, 0.04),
    2: (1500, 0.1),
    3: (4000, 0.25),
    4: (10000, 0.64),
    5: (40000, 1.6),
    6: (None, 4.0),
}


class SearchProfile:
    """The generic profile: every game searches with it unless its package provides its own.
    Class attributes are the defaults a config's ``None`` fields take."""

    #: UCT exploration constant (``mcts:c=C`` overrides)
    c: ClassVar[float] = 0.2
    #: RAVE's equivalence parameter: about the visits at which a move's own mean outweighs its
    #: RAVE mean (``mcts:rave_k=K`` overrides)
    rave_k: ClassVar[float] = 300.0
    #: one node per position however reached (``mcts:tt=on|off`` overrides)
    tt: ClassVar[bool] = False
    #: last good replies in the playouts (``mcts:lgr=on|off``), where ``replies`` is true
    lgr: ClassVar[bool] = False
    #: virtual RAVE samples of ``prior_values`` per move of a new node (``mcts:prior=N``);
    #: with a learned model, the model's own count
    prior: ClassVar[int] = 0
    #: the learned move model the search loads by default (``mcts:model=none`` turns it
    #: off): a file name in the ``model`` folder of the profile's package, or ``None``
    shipped_model: ClassVar[str | None] = None
    #: whether plain ``mcts`` loads the shipped model; a model not shown to beat the search
    #: without it waits for ``mcts:model=shipped``
    model_by_default: ClassVar[bool] = True
    #: strength levels (``level:N``): simulations (or None) and seconds per move
    levels: ClassVar[Mapping[int, tuple[int | None, float]]] = LEVELS
    #: the levels that load the model plain ``mcts`` loads: those measured with it; the
    #: others search without one, as they were calibrated
    model_levels: ClassVar[frozenset[int]] = frozenset()
    #: game options the levels search with in place of the defaults: a default measured
    #: after the levels were calibrated reaches them only with a match of its own
    level_options: ClassVar[Mapping[str, int]] = {}
    #: for a level measured with other game options than ``level_options``, those options
    level_options_measured: ClassVar[Mapping[int, Mapping[str, int]]] = {}
    #: options of the search only this game has (``mcts:NAME=VALUE``)
    options: ClassVar[tuple[GameOption, ...]] = ()
    #: whether ``playout`` reports the moves it played (RAVE on the protocol tree): games
    #: whose actions are stones on points, played by alternating players
    amaf: ClassVar[bool] = False
    #: whether ``playout`` takes a last-good-reply table (the ``lgr`` policy)
    replies: ClassVar[bool] = False

    def __init__(self, game: Game) -> None:
        self.game = game

    # -- settings ---------------------------------------------------------------------------
    def c_for(self, config: SearchConfig) -> float:
        return float(self.c if config.c is None else config.c)

    def rave_k_for(self, config: SearchConfig) -> float:
        return float(self.rave_k if config.rave_k is None else config.rave_k)

    def tt_for(self, config: SearchConfig) -> bool:
        return bool(self.tt if config.tt is None else config.tt)

    def lgr_for(self, config: SearchConfig) -> bool:
        """Whether playouts use last good replies: the config's choice, else the profile's
        default, and only where the playouts take a reply table."""
        return bool(self.lgr if config.lgr is None else config.lgr) and self.replies

    def prior_for(self, config: SearchConfig) -> int:
        if config.prior is not None:
            return int(config.prior)
        model = self.model_for(config)
        return model.prior if model is not None else int(self.prior)

    # -- learned knowledge ------------------------------------------------------------------
    def learner(self) -> Learner | None:
        """How ``stonegarden train`` featurises this game's decisions and what its search
        reads of the fitted weights (``learn/learner.py``); ``None``: no model."""
        return None

    def shipped_model_path(self) -> str | None:
        """The file of the shipped model, ``None`` if the game ships none."""
        if self.shipped_model is None:
            return None
        package = type(self).__module__.rpartition(".")[0]
        path = resources.files(package) / "model" / self.shipped_model
        return str(path) if path.is_file() else None

    def model_for(self, config: SearchConfig) -> MoveModel | None:
        """The learned model ``config`` asks for (``SearchConfig.model``), ``None`` if off or,
        by default, if the game ships none.

        Raises:
            ParameterError: ``shipped`` in a game that ships no model, a model file that
                cannot be read, or a model of another game (before any search reads it).
        """
        from ..errors import ParameterError
        from ..learn.model import load_model

        if config.model == "none" or (config.model is None and not self.model_by_default):
            return None
        path = (self.shipped_model_path() if config.model in (None, "shipped")
                else config.model)
        if path is None and config.model == "shipped":
            raise ParameterError(f"{self.game.id!r} ships no learned model: model=none, or "
                                 "model=PATH for one made by stonegarden train")
        if path is None:
            return None
        model = load_model(path)
        learner = self.learner()
        if learner is not None:
            if model.kind != learner.kind:
                raise ParameterError(f"model {path!r} is a {model.kind!r} model, not one of "
                                     f"{self.game.id!r} ({learner.kind!r})")
            # its tables too, now: a search would refuse them only at its first move
            model.require(learner.kind, learner.table_shapes())
        return model

    def option(self, config: SearchConfig, name: str) -> int:
        """The value of this game's option ``name`` under ``config``.

        Raises:
            KeyError: the profile declares no such option.
        """
        spec = next(o for o in self.options if o.name == name)
        value = config.game_option(name)
        if value is not None:
            return value
        return spec.default if config.game_defaults else spec.off

    def option_values(self, config: SearchConfig) -> dict[str, int]:
        """Every option this profile declares, with its value under ``config``."""
        return {o.name: self.option(config, o.name) for o in self.options}

    def level_options_for(self, level: int) -> dict[str, int]:
        """The game options ``level`` searches with: ``level_options``, and those it was
        measured with where ``level_options_measured`` names it."""
        return {**self.level_options, **self.level_options_measured.get(level, {})}

    # -- what the protocol tree asks --------------------------------------------------------
    def playout(self, state: State, seed: int, options: Mapping[str, int],
                replies: np.ndarray | None = None,
                last: int = -1) -> tuple[int, np.ndarray | None]:
        """One playout from ``state`` under the policy ``options`` ask for: (the winner, 1, 2
        or 0 for a draw or an unfinished game; the actions played, the first by the player to
        move and then alternating, or ``None`` where ``amaf`` is false). ``replies``: a
        last-good-reply table the playout consults (``replies`` profiles); ``last``: the
        action that led to ``state`` (-1: unknown). Generic: the game's ``random_playouts``."""
        totals = self.game.random_playouts(state, 1, seed)
        return (1 if totals[0] else 2 if totals[1] else 0), None

    def prior_values(self, state: State, actions: np.ndarray, last: int = -1) -> np.ndarray | None:
        """What the game knows of ``actions`` (legal in ``state``, reached by the action
        ``last``; -1: unknown) before any search: per action a value in [0, 1] for the player
        to move, counted as ``prior`` RAVE samples; ``None``: nothing known."""
        return None

    def prior_values_for(self, config: SearchConfig) -> PriorValues:
        """What the protocol tree under ``config`` calls for a new node's priors: a learned
        model's values where the game reads one there, else ``prior_values``.

        Raises:
            ParameterError: a model file that cannot be read.
        """
        return self.prior_values

    def transposition_key(self, state: State) -> Hashable:
        """A key equal for two states exactly when they have the same future, so the search
        may share one node between them (``tt``); it must tell states of different ``ply``
        apart. The state itself by default."""
        return state

    # -- compiled tree ----------------------------------------------------------------------
    def tree(self, config: SearchConfig) -> TreeSpec | None:
        """The game's compiled tree kernels for ``config`` (``search/tree.py``), or ``None``:
        then the search runs its simulations through the protocol."""
        return None

    def check(self, config: SearchConfig) -> None:
        """Refuse ``config`` if this game's search cannot do what it asks, before any search
        (the web server refuses such a seat when the game is made, not at its first move).

        Raises:
            ParameterError: for example ``model=shipped`` in a game that ships none, or a
                model file that cannot be read.
        """
        self.model_for(config)

    def level_config(self, level: int) -> SearchConfig:
        """The search of ``level``: the default one, with the game's default model only if
        the level was measured with it (``model_levels``), and the game options it keeps
        (``level_options_for``)."""
        model = None if level in self.model_levels else "none"
        return SearchConfig(model=model).with_game_options(self.level_options_for(level))

    def warm_up(self) -> None:
        """Load (or compile) the kernels of this game's default search and of its levels'
        (which may search another tree), so that no timed search pays for it: a
        two-simulation search of a throwaway engine each."""
        from .engines import warm_up

        for config in dict.fromkeys([SearchConfig(), *map(self.level_config, self.levels)]):
            warm_up(self.game, config)


def profile_for(game: Game) -> SearchProfile:
    """The search profile of ``game`` (the generic one if its package provides none)."""
    cached = game.__dict__.get("_search_profile")
    if cached is None:
        cls = getattr(type(game), "search_profile", None) or SearchProfile
        cached = game.__dict__["_search_profile"] = cls(game)
    assert isinstance(cached, SearchProfile)
    return cached


def declared_options() -> dict[str, GameOption]:
    """Every game option some registered game's profile declares, by name.

    Raises:
        ValueError: two profiles declare one name with different kinds or ranges.
    """
    from ..core.registry import available_games, game_class

    out: dict[str, GameOption] = {}
    for game_id in available_games():
        cls = getattr(game_class(game_id), "search_profile", None) or SearchProfile
        for option in cls.options:
            known = out.setdefault(option.name, option)
            if (known.kind, known.low, known.high) != (option.kind, option.low, option.high):
                raise ValueError(f"game option {option.name!r} is declared twice differently")
    return out
