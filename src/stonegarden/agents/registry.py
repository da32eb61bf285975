"""Agent specs ``NAME[:key=value,...]`` and the registry that turns them into agents.

The same string names an agent on the command line, in records and in the web app."""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any, Protocol

from ..core.protocol import Game, State
from ..errors import ParameterError

_NAME = re.compile(r"^[a-z][a-z0-9_-]*$")


class Agent(Protocol):
    """Chooses a move. ``spec`` is the string that recreates it."""

    spec: str

    def choose(self, game: Game, state: State) -> int:
        """A legal action for the player to move in a non-terminal, non-chance ``state``."""
        ...


AgentFactory = Callable[[dict[str, str], str], Agent]
_AGENTS: dict[str, tuple[AgentFactory, str]] = {}


def register_agent(name: str, doc: str) -> Callable[[AgentFactory], AgentFactory]:
    """Decorator registering ``factory(options, spec) -> Agent`` under ``name``."""

    def deco(factory: AgentFactory) -> AgentFactory:
        _AGENTS[name] = (factory, doc)
        return factory

    return deco


def _load() -> None:
    from . import basic, search_agents  # noqa: F401  (register the built-in agents)


def agent_names() -> dict[str, str]:
    """Registered agent names and one line about each."""
    _load()
    return {k: doc for k, (_, doc) in _AGENTS.items()}


def parse_agent_spec(spec: str) -> tuple[str, dict[str, str]]:
    """Split ``NAME[:key=value,...]``; ``level:3`` is the name ``level`` with option ``3``.

    Raises:
        ParameterError: malformed spec.
    """
    if not isinstance(spec, str) or not spec.strip():
        raise ParameterError(f"agent spec {spec!r} is empty or not text")
    name, _, rest = spec.strip().partition(":")
    name = name.lower()
    if not _NAME.match(name):
        raise ParameterError(f"agent spec {spec!r}: {name!r} is not an agent name")
    options: dict[str, str] = {}
    if rest:
        for part in rest.split(","):
            key, sep, value = part.partition("=")
            key = key.strip().lower()
            if not sep:
                # a bare value, as in level:3
                options["_"] = key
                continue
            if not key:
                raise ParameterError(f"agent spec {spec!r}: empty option name in {part!r}")
            options[key] = value.strip()
    return name, options


def make_agent(spec: str) -> Agent:
    """The agent a spec names.

    Raises:
        ParameterError: unknown agent or bad option.
    """
    _load()
    name, options = parse_agent_spec(spec)
    if name not in _AGENTS:
        raise ParameterError(f"unknown agent {name!r} in {spec!r} (known: {', '.join(_AGENTS)})")
    return _AGENTS[name][0](options, spec.strip())


def int_option(options: dict[str, Any], key: str, default: int | None, spec: str) -> int | None:
    """Raises: ParameterError when the option is not an integer."""
    if key not in options:
        return default
    try:
        return int(options.pop(key))
    except ValueError:
        raise ParameterError(f"agent {spec!r}: option {key!r} must be an integer") from None


def no_more_options(options: dict[str, Any], spec: str) -> None:
    """Raises: ParameterError naming options an agent does not know."""
    if options:
        raise ParameterError(f"agent {spec!r}: unknown option(s) {', '.join(sorted(options))}")
