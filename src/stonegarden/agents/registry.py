"""Agent specs ``NAME[:key=value,...]`` and the registry that turns them into agents.

The same string names an agent on the command line, in records and in the web app."""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any, Protocol

from ..core.numbers import decimal_number, whole_number
from ..core.protocol import CHANCE, Game, State
from ..errors import ParameterError, PositionError, quote

_NAME = re.compile(r"^[a-z][a-z0-9_-]*$")
MAX_SPEC = 200

#: the documented range of every numeric option of the search (docs/web.md, "Limits"): (low,
#: high, whole number). A search's time and memory grow with its budget, so a server can rely
#: on these bounds (and caps the time further). The agents' own option parsing checks the
#: lower bounds of the options they read, in their own words; these add the upper bounds, and
#: the seed's lower bound, before any agent is built. The numeric options a game's search
#: profile declares (``captures``, ``safe``, ...) are bounded by their declaration alike.
OPTION_RANGES: dict[str, tuple[float, float, bool]] = {
    "seed": (0, 2**63 - 1, True),
    "sims": (1, 10_000_000, True),
    "time": (0.001, 600.0, False),
    "c": (0.0, 100.0, False),
    "rave_k": (0.0, 1e9, False),
    "grave": (0, 1_000_000, True),
    "prior": (0, 10_000, True),
    "contempt": (0.0, 0.5, False),
    "threads": (1, 64, True),
}
#: options whose lower bound no agent checks itself (a search checks only that its time is
#: positive: a nanosecond would pass)
_LOW_CHECKED_HERE = frozenset({"seed", "time"})


class Agent(Protocol):
    """Chooses a move. ``spec`` is the string that recreates it."""

    spec: str

    def choose(self, game: Game, state: State) -> int:
        """A legal action for the player to move in a non-terminal, non-chance ``state``.

        Raises:
            PositionError: the game is over or a chance event is due (``check_to_move``).
        """
        ...


def check_to_move(game: Game, state: State, chance: bool = True) -> None:
    """Refuse a ``state`` where no player is to choose a move, or a ``game`` no agent plays.

    Raises:
        PositionError: the game is over, or (with ``chance``) a chance event is due, whose
        outcome is drawn from ``game.chance_outcomes`` with their probabilities, not chosen
        by an agent.
        ParameterError: ``game`` is not a stonegarden game (an OpenSpiel game, whose own is
        its ``.sg``, failed with ``AttributeError``)."""
    if not isinstance(game, Game):
        raise ParameterError(f"{type(game).__name__} is not a stonegarden game, which an agent "
                             "plays (stonegarden.make(...); an OpenSpiel game's is its .sg)")
    if game.is_terminal(state):
        raise PositionError(f"position {game.position_text(state)!r}: the game is over")
    if chance and game.current_player(state) == CHANCE:
        raise PositionError(f"position {game.position_text(state)!r}: a chance event is due "
                            "(draw it from game.chance_outcomes)")


AgentFactory = Callable[[dict[str, str], str], Agent]
#: an agent's line about itself, or what writes it when asked (once the games are known)
AgentDoc = str | Callable[[], str]
_AGENTS: dict[str, tuple[AgentFactory, AgentDoc]] = {}


def register_agent(name: str, doc: AgentDoc) -> Callable[[AgentFactory], AgentFactory]:
    """Decorator registering ``factory(options, spec) -> Agent`` under ``name``, with one
    line about it (or a function writing that line when ``agent_names`` asks)."""

    def deco(factory: AgentFactory) -> AgentFactory:
        _AGENTS[name] = (factory, doc)
        return factory

    return deco


def _load() -> None:
    from . import basic, search_agents  # noqa: F401  (register the built-in agents)


def agent_names() -> dict[str, str]:
    """Registered agent names and one line about each."""
    _load()
    return {k: doc() if callable(doc) else doc for k, (_, doc) in _AGENTS.items()}


def parse_agent_spec(spec: str) -> tuple[str, dict[str, str]]:
    """Split ``NAME[:key=value,...]``; ``level:3`` is the name ``level`` with option ``3``.

    Raises:
        ParameterError: malformed spec.
    """
    if not isinstance(spec, str) or not spec.strip():
        raise ParameterError(f"agent spec {quote(spec)} is empty or not text")
    if len(spec) > MAX_SPEC:
        raise ParameterError(f"agent spec {quote(spec)} is longer than {MAX_SPEC} characters")
    name, _, rest = spec.strip().partition(":")
    name = name.lower()
    if not _NAME.match(name):
        raise ParameterError(f"agent spec {quote(spec)}: {quote(name)} is not an agent name")
    options: dict[str, str] = {}
    if rest:
        for part in rest.split(","):
            key, sep, value = part.partition("=")
            key = key.strip().lower()
            if not part.strip():  # was read as a bare value: "unknown option(s) _"
                raise ParameterError(f"agent spec {quote(spec)}: an empty option (a comma "
                                     "too many?)")
            if not sep:
                # a bare value, as in level:3
                if "_" in options:
                    raise ParameterError(f"agent spec {quote(spec)}: two bare values, "
                                         f"{quote(options['_'])} and {quote(key)}")
                options["_"] = key
                continue
            if not key:
                raise ParameterError(f"agent spec {quote(spec)}: empty option name in "
                                     f"{quote(part)}")
            if key in options:  # the last would silently win
                raise ParameterError(f"agent spec {quote(spec)}: option {key!r} is given "
                                     "twice")
            options[key] = value.strip()
            check_option_range(spec, key, options[key])
    return name, options


def with_option(spec: str, key: str, value: object) -> str:
    """``spec`` with the option ``key=value`` added after its others (``mcts`` and ``mcts:``
    alike give ``mcts:key=value``: a comma after the colon would be an empty option)."""
    spec = spec.strip()
    sep = ":" if ":" not in spec else "" if spec.endswith(":") else ","
    return f"{spec}{sep}{key}={value}"


def option_range(key: str) -> tuple[float, float, bool] | None:
    """(low, high, whole number) of a numeric agent option: the search's own
    (``OPTION_RANGES``) or one a game's search profile declares; ``None`` for any other."""
    if key in OPTION_RANGES:
        return OPTION_RANGES[key]
    from ..search.profile import declared_options

    option = declared_options().get(key)
    if option is None or option.kind != "int":
        return None
    return option.low, option.high, True


def check_option_range(spec: str, key: str, value: str) -> None:
    """Raises: ParameterError naming the option and its range when a numeric option
    (``option_range``) is above its range (or, for a seed, below it). Text that is not a
    number is left to the agent, which says what it expects."""
    bounds = option_range(key)
    if bounds is None:
        return
    low, high, whole = bounds
    text = value.strip()
    try:
        number: float = whole_number(text) if whole else decimal_number(text)
    except ValueError:  # not a number, or an integer of more digits than Python converts
        if not (whole and text.lstrip("+-").isascii() and text.lstrip("+-").isdigit()):
            return
        number = float("-inf") if text.startswith("-") else float("inf")
    if number != number:  # NaN: the agent refuses it in its own words
        return
    if number > high or (number < low and key in _LOW_CHECKED_HERE):
        shown = f"{int(low)}..{int(high)}" if whole else f"{low:.15g}..{high:.15g}"
        raise ParameterError(f"agent {quote(spec)}: option {key!r} must be {shown}, "
                             f"not {quote(value)}")


def make_agent(spec: str) -> Agent:
    """The agent a spec names.

    Raises:
        ParameterError: unknown agent or bad option.
    """
    _load()
    name, options = parse_agent_spec(spec)
    if name not in _AGENTS:
        raise ParameterError(f"unknown agent {name!r} in {quote(spec)} (known: "
                             f"{', '.join(_AGENTS)})")
    return _AGENTS[name][0](options, spec.strip())


def agent_for(game: Game, spec: str) -> Agent:
    """The agent a spec names, checked against ``game``: what the game's search cannot do of
    its settings (a model of another game, say) is refused now, not at its first move.

    Raises:
        ParameterError: unknown agent, bad option, or settings ``game`` cannot use (naming the
            spec).
    """
    agent = make_agent(spec)
    check = getattr(agent, "check", None)
    if check is not None:
        try:
            check(game)
        except ParameterError as exc:
            raise ParameterError(f"agent {quote(spec)}: {exc}") from None
    return agent


def int_option(options: dict[str, Any], key: str, default: int | None, spec: str) -> int | None:
    """Raises: ParameterError when the option is not an integer."""
    if key not in options:
        return default
    try:
        value = options.pop(key)
        return value if isinstance(value, int) else whole_number(value)
    except ValueError:
        raise ParameterError(f"agent {spec!r}: option {key!r} must be an integer") from None


def no_more_options(options: dict[str, Any], spec: str) -> None:
    """Raises: ParameterError naming options an agent does not know, or a value without its
    option name (``mcts:sims``, which was "unknown option(s) _")."""
    if "_" in options:
        raise ParameterError(f"agent {spec!r}: {quote(options['_'])} is not an option: give "
                             "each as key=value (sims=500)")
    if options:
        raise ParameterError(f"agent {spec!r}: unknown option(s) {', '.join(sorted(options))}")
