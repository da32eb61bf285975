"""Search settings: the techniques (each switchable), the options a game's search profile
declares, and the budget of one search."""

from __future__ import annotations

import dataclasses
import os
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field

import numpy as np

from ..errors import ParameterError, quote

#: the most trees a search runs at once (``mcts:threads=N``, ``search/parallel.py``)
MAX_THREADS = 64


#: the most threads "every core" means in this process (``share_cores``)
_share = MAX_THREADS


def share_cores(most: int) -> None:
    """Make "every core" at most ``most`` threads in this process: a worker of a pool that
    plays several games at once takes its share of the machine, not all of it."""
    global _share
    _share = max(1, min(MAX_THREADS, most))


def available_cores() -> int:
    """The cores this process may run on."""
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except AttributeError:  # not Linux
        return os.cpu_count() or 1


def default_threads() -> int:
    """The cores this process may run on (at most ``MAX_THREADS``, and its share where it is
    one of several: ``share_cores``): the trees of a search that takes every core."""
    return max(1, min(_share, available_cores()))


@dataclass(frozen=True)
class SearchConfig:
    """What the search does. Every technique can be switched off to measure its value; a field
    left ``None`` takes the game's default from its search profile (``search/profile.py``).

    ``c``: UCT exploration constant (rewards are in [0, 1]). ``rave``/``rave_k``: RAVE
    statistics shared across siblings, blended as ``docs/ai.md`` says; ``grave``: a node with
    fewer visits than this borrows the RAVE statistics of its nearest ancestor of the same
    player and stage with at least that many (GRAVE; 0 = off). ``solver``: MCTS-solver
    (proven wins and losses). ``chance``: a chance node is valued as the probability-weighted
    mean of its outcomes (else the plain sample mean; outcomes are visited in proportion to
    their probabilities either way). ``lgr``: playouts answer a move with the last good reply
    to it (LGRF-1), in games whose profile has that policy. ``prior``: virtual RAVE samples of
    the profile's move priors given to each move of a node as it is expanded. ``contempt``: a
    draw is worth 0.5 - contempt to the player searching. ``reuse``: keep the tree between
    moves. ``tt``: one node per position however it was reached (a transposition table).
    ``bias``: where the search runs without RAVE, the priors are a progressive bias, ``prior``
    times the prior value divided by the move's visits plus one, added to its UCT score
    (untried moves are tried in the order of their priors), instead of ``prior`` virtual
    visits of that value. ``fast``: use the game's compiled tree kernels when it has them.
    ``model``: the learned move model giving the priors (``learn/``): ``None`` the game's
    shipped one (if it has one), ``"none"`` none, else the path of a model file.

    ``game``: values of the options a game's profile declares (``split``, ``captures``,
    ``safe``, ``bridges``: see each game's profile), as sorted (name, value) pairs; a game
    ignores the options it does not declare. ``game_defaults``: unset game options take the
    profile's defaults; ``False`` turns them all off (the ``uct-flat`` baseline)."""

    c: float | None = None
    rave: bool = True
    rave_k: float | None = None
    grave: int = 0
    solver: bool = True
    chance: bool = False  # measured worse than the sample mean in Tumbling Dice (docs/ai.md)
    lgr: bool | None = None
    prior: int | None = None
    bias: bool = False
    contempt: float = 0.0
    reuse: bool = True
    tt: bool | None = None
    fast: bool = True
    model: str | None = None
    game: tuple[tuple[str, int], ...] = ()
    game_defaults: bool = True

    def __post_init__(self) -> None:
        """Refuse a switch that is not ``True`` or ``False`` (``None`` too where the game's
        default stands in): text such as ``rave="off"`` was true, and searched with RAVE on.

        Raises:
            ParameterError: the switch and its value.
        """
        for name in _SETTING_SWITCHES:
            value = getattr(self, name)
            if value is None and name in _GAME_DEFAULT_SWITCHES:
                continue
            if not isinstance(value, (bool, np.bool_)):
                either = "True, False or None (the game's)" if name in _GAME_DEFAULT_SWITCHES \
                    else "True or False"
                raise ParameterError(f"search setting {name!r} is {either}, not {quote(value)}")
            object.__setattr__(self, name, bool(value))  # a NumPy boolean as Python's
        # numbers as numbers: text failed deep in the search (TypeError, numba's TypingError)
        for name, whole, least, most in _SETTING_NUMBERS:
            value = getattr(self, name)
            if value is None and name in ("c", "rave_k", "prior"):
                continue
            number = isinstance(value, (int, np.integer)) if whole else isinstance(
                value, (int, float, np.integer, np.floating))
            if isinstance(value, (bool, np.bool_)) or not number \
                    or not least <= value <= most or (name in ("c", "rave_k") and value == 0):
                kind = "a whole number" if whole else "a number"
                top = int(most) if float(most).is_integer() else most
                within = (f"above 0, at most {top}" if name in ("c", "rave_k")
                          else f"in {int(least)}..{top}")
                raise ParameterError(f"search setting {name!r} is {kind} {within}, not "
                                     f"{quote(value)}")
            object.__setattr__(self, name, int(value) if whole else float(value))
        if self.model is not None and not isinstance(self.model, str):
            raise ParameterError(f"search setting 'model' is 'none', a model file's path or "
                                 f"None (the game's), not {quote(self.model)}")

    def with_game_options(self, values: Mapping[str, int]) -> SearchConfig:
        """This config with the game options ``values`` set (others kept).

        Raises:
            ParameterError: a value that is not a whole number (a switch's ``True`` and
            ``False`` are its 1 and 0): text such as ``"off"`` was kept, and read as on.
        """
        merged = dict(self.game)
        for name, value in values.items():
            if not isinstance(value, (int, np.integer, np.bool_)):  # a bool is an int
                raise ParameterError(f"search option {name!r} is a whole number (1 or 0 for "
                                     f"on or off), not {quote(value)}")
            merged[name] = int(value)
        return dataclasses.replace(self, game=tuple(sorted(merged.items())))

    def game_option(self, name: str) -> int | None:
        """The value set for the game option ``name``, ``None`` if unset."""
        for key, value in self.game:
            if key == name:
                return value
        return None

    def describe(self) -> dict[str, object]:
        out = {k: v for k, v in self.__dict__.items() if k != "game"}
        out.update(self.game)
        return out


#: the settings of ``SearchConfig`` that are on or off; those a game's profile may set
_SETTING_SWITCHES = ("rave", "solver", "chance", "lgr", "bias", "reuse", "tt", "fast",
                     "game_defaults")
_GAME_DEFAULT_SWITCHES = ("lgr", "tt")
#: the settings that are numbers: (name, whole, least, most), as the agents' specs bound them
_SETTING_NUMBERS = (("c", False, 0.0, 100.0), ("rave_k", False, 0.0, 1e9),
                    ("grave", True, 0, 1_000_000), ("prior", True, 0, 10_000),
                    ("contempt", False, 0.0, 0.5))


#: the plain baseline: UCT over whole turns, uniform playouts, nothing else
FLAT = SearchConfig(c=0.7, rave=False, grave=0, solver=False, chance=False, lgr=False, prior=0,
                    reuse=False, tt=False, fast=False, model="none", game_defaults=False)


@dataclass(frozen=True)
class GameOption:
    """An option of the search that only some games have, declared by their profiles:
    ``kind`` ``"bool"`` (on/off, stored as 1/0) or ``"int"`` (``low`` .. ``high``); ``off`` is
    its value in the ``uct-flat`` baseline."""

    name: str
    kind: str
    default: int
    help: str
    low: int = 0
    high: int = 1
    off: int = 0


#: the most visits a tree's root takes: the tree sums each edge's rewards in 32-bit floats,
#: which stop counting a win at 2**24 (16,777,216: one more rounds back to it), and no edge
#: has more visits than its root. A search whose root has them (its own simulations and those
#: kept from the moves before) ends there, whatever is left of its budget
MAX_TREE_VISITS = 16_000_000
#: the most simulations a ``Budget`` asks for (one tree's most)
MAX_SIMS = MAX_TREE_VISITS
#: the most seconds a ``Budget`` gives (a day: more is a slip of units, a search that never
#: ends)
MAX_SECONDS = 86_400.0


@dataclass(frozen=True)
class Budget:
    """Stop after ``sims`` simulations or ``seconds`` of wall time, whichever comes first, or
    as soon as ``stop()`` says so (checked every few simulations: the web server stops a
    search whose move nobody wants any more). A search also ends once its tree's root has
    ``MAX_TREE_VISITS`` visits.

    Raises:
        ParameterError: neither given, ``sims`` not a whole number or ``seconds`` not a
        number (a float of sims was compiled into a kernel of its own for half a minute, or
        failed with ``TypeError``, as text did), a non-positive value, or one past
        ``MAX_SIMS`` or ``MAX_SECONDS`` (infinity and NaN included: such a search never
        ended, and past ``MAX_TREE_VISITS`` its values went wrong).
    """

    sims: int | None = None
    seconds: float | None = None
    stop: Callable[[], bool] | None = field(default=None, compare=False, repr=False)

    def __post_init__(self) -> None:
        if self.sims is None and self.seconds is None:
            raise ParameterError("a search budget needs sims or seconds")
        if self.sims is not None:
            if not _is_whole(self.sims) or not 1 <= self.sims <= MAX_SIMS:
                raise ParameterError(f"sims must be a whole number, 1..{MAX_SIMS:,}, not "
                                     f"{quote(self.sims)}")
            object.__setattr__(self, "sims", int(self.sims))  # a NumPy integer as Python's
        if self.seconds is not None:
            if not (_is_whole(self.seconds) or isinstance(self.seconds, (float, np.floating))) \
                    or not 0 < self.seconds <= MAX_SECONDS:
                raise ParameterError(f"seconds must be a positive number, at most "
                                     f"{MAX_SECONDS:,.0f}, not {quote(self.seconds)}")
            object.__setattr__(self, "seconds", float(self.seconds))


def _is_whole(value: object) -> bool:
    """Whether ``value`` is an integer (NumPy's included), not a boolean."""
    return isinstance(value, (int, np.integer)) and not isinstance(value, (bool, np.bool_))
