"""Declared game parameters: one place that turns CLI text, JSON values and keyword arguments
into validated values, so every game checks its parameters the same way."""

from __future__ import annotations

import json
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from ..errors import ParameterError, quote
from .numbers import whole_number


@dataclass(frozen=True)
class Param:
    """One parameter of a game.

    ``kind`` is one of ``int``, ``bool``, ``choice``, ``str_list``, ``int_pair``, ``opt_int``.
    ``default`` may be ``None`` when the game derives it from other parameters. ``low`` and
    ``high`` bound an integer (both values of a pair); for ``str_list``, ``high`` is the most
    items. Every value a server accepts is bounded: its work and memory grow with them.
    """

    name: str
    kind: str
    default: Any
    doc: str
    low: int | None = None
    high: int | None = None
    choices: tuple[str, ...] = ()

    def convert(self, value: Any) -> Any:
        """Validate a Python/JSON value (or CLI text) and return the canonical value.

        Raises:
            ParameterError: the value has the wrong type or is out of range.
        """
        if isinstance(value, str) and self.kind != "choice":
            value = self._from_text(value)
        value = _plain(value)
        try:
            return self._check(value)
        except ParameterError:
            raise
        except (TypeError, ValueError, RecursionError) as exc:  # pragma: no cover - defensive
            raise ParameterError(f"parameter {self.name!r}: bad value {quote(value)}"
                                 f" ({type(exc).__name__})") from None

    def range_text(self) -> str:
        """The documented range, e.g. ``1..1000`` (``""`` when unbounded)."""
        if self.low is None and self.high is None:
            return ""
        return f"{'' if self.low is None else self.low}..{'' if self.high is None else self.high}"

    def values_text(self) -> str:
        """The values the parameter takes, in the form ``--param`` reads them (``1..1000``,
        ``simple, superko, none``, ``true, false``)."""
        if self.kind == "choice":
            return ", ".join(self.choices)
        if self.kind == "bool":
            return "true, false"
        if self.kind == "str_list":
            return f"up to {self.high} names" if self.high is not None else "names"
        if self.kind == "int_pair":
            return f"two integers, each {self.range_text()}"
        return self.range_text()

    def _out_of_range(self, value: Any) -> ParameterError:
        values = value if isinstance(value, list) else [value]
        side = (f"below {self.low}" if self.low is not None and min(values) < self.low
                else f"above {self.high}")
        return ParameterError(f"parameter {self.name!r}: {quote(value)} is {side} (its range "
                              f"is {self.range_text()})")

    def _from_text(self, text: str) -> Any:
        t = text.strip()
        if self.kind == "int":
            return _int_text(self.name, t)
        if self.kind == "opt_int":
            return None if t.lower() in ("", "none", "null", "off") else _int_text(self.name, t)
        if self.kind == "bool":
            low = t.lower()
            if low in ("1", "true", "yes", "on"):
                return True
            if low in ("0", "false", "no", "off"):
                return False
            raise ParameterError(f"parameter {self.name!r}: {quote(text)} is not a boolean")
        if self.kind == "str_list":
            if t.startswith("["):
                try:
                    return json.loads(t)
                except (ValueError, RecursionError):
                    raise ParameterError(f"parameter {self.name!r}: {quote(text)} is not a "
                                         "list") from None
            # commas, semicolons or spaces: OpenSpiel game strings cannot hold commas
            return [p for p in re.split(r"[,;\s]+", t) if p]
        if self.kind == "int_pair":
            parts = [p for p in re.split(r"[,;\s]+", t.strip("[]()")) if p]
            return [_int_text(self.name, p) for p in parts]
        return t

    def _check(self, value: Any) -> Any:
        name = self.name
        if self.kind in ("int", "opt_int"):
            if value is None and self.kind == "opt_int":
                return None
            if isinstance(value, bool) or not isinstance(value, int):
                raise ParameterError(f"parameter {name!r}: {quote(value)} is not an integer")
            if not self._in_range(value):
                raise self._out_of_range(value)
            return value
        if self.kind == "bool":
            if not isinstance(value, bool):
                raise ParameterError(f"parameter {name!r}: {quote(value)} is not a boolean")
            return value
        if self.kind == "choice":
            if not isinstance(value, str) or value.strip().lower() not in self.choices:
                raise ParameterError(
                    f"parameter {name!r}: {quote(value)} is not one of {', '.join(self.choices)}"
                )
            return value.strip().lower()
        if self.kind == "str_list":
            if not isinstance(value, Sequence) or isinstance(value, (str, bytes)):
                raise ParameterError(f"parameter {name!r}: {quote(value)} is not a list")
            if self.high is not None and len(value) > self.high:
                raise ParameterError(f"parameter {name!r} lists at most {self.high} names, "
                                     f"not {len(value)}")
            if not all(isinstance(v, str) for v in value):
                raise ParameterError(f"parameter {name!r}: {quote(value)} must list strings")
            return tuple(v.strip() for v in value)
        if self.kind == "int_pair":
            if (
                not isinstance(value, Sequence)
                or isinstance(value, (str, bytes))
                or len(value) != 2
                or not all(isinstance(v, int) and not isinstance(v, bool) for v in value)
            ):
                raise ParameterError(f"parameter {name!r}: {quote(value)} is not a pair of "
                                     "integers")
            if not all(self._in_range(v) for v in value):
                raise self._out_of_range(list(value))
            return tuple(value)
        raise ParameterError(f"parameter {name!r}: unknown kind {self.kind!r}")  # pragma: no cover

    def _in_range(self, value: int) -> bool:
        return ((self.low is None or value >= self.low)
                and (self.high is None or value <= self.high))

    def to_json(self, value: Any) -> Any:
        """The JSON form of a canonical value (tuples become lists)."""
        return list(value) if isinstance(value, tuple) else value


def _plain(value: Any) -> Any:
    """``value`` with NumPy's integers and booleans (``np.arange``'s sizes, a mask's flag) as
    Python's, in a list or pair too: they are the numbers they say, and a record or an OpenSpiel
    game string must be able to write them."""
    if isinstance(value, np.bool_):
        return bool(value)
    if isinstance(value, np.integer):
        return int(value)
    if isinstance(value, (list, tuple)):
        return type(value)(_plain(v) for v in value)
    return value


def _int_text(name: str, text: str) -> int:
    try:
        return whole_number(text)
    except ValueError:  # also a number of more digits than Python converts
        raise ParameterError(f"parameter {name!r}: {quote(text)} is not an integer") from None


def resolve_params(
    game_id: str, specs: Sequence[Param], given: Mapping[str, Any]
) -> dict[str, Any]:
    """Check ``given`` against ``specs``: unknown names and bad values raise, missing names take
    their defaults (``None`` where the game derives the value itself, which ``None`` given for
    such a parameter asks for too).

    Raises:
        ParameterError: an unknown parameter name or a bad value.
    """
    known = {p.name: p for p in specs}
    out: dict[str, Any] = {}
    for key in given:
        if key not in known:
            raise ParameterError(
                f"game {game_id!r} has no parameter {quote(key)} (known: {', '.join(known)})"
            )
    for p in specs:
        if p.name in given and not (given[p.name] is None and p.default is None):
            out[p.name] = p.convert(given[p.name])
        else:
            out[p.name] = p.convert(p.default) if p.default is not None else None
    return out


def value_text(value: object) -> str:
    """A parameter's value as one would give it with ``--param`` (not in Python's forms):
    booleans in lower case, a pair or list with commas, an empty list as "empty"."""
    if isinstance(value, bool):
        return str(value).lower()
    if isinstance(value, (list, tuple)):
        return ",".join(str(v) for v in value) if value else "empty"
    return str(value)


def params_text(params: Mapping[str, Any]) -> str:
    """``size=3 target=10``: parameters as ``--param`` takes them (``standard`` for none)."""
    return " ".join(f"{k}={value_text(v)}" for k, v in params.items()) or "standard"


def parse_param_options(options: Sequence[str]) -> dict[str, str]:
    """Turn CLI ``--param k=v`` strings into a dict of text values.

    Raises:
        ParameterError: an option without ``=`` or with an empty name, or a name given twice
            (which value was meant cannot be known: the last one was kept silently).
    """
    out: dict[str, str] = {}
    for opt in options:
        key, sep, value = opt.partition("=")
        if not sep or not key.strip():
            raise ParameterError(f"parameter option {quote(opt)} is not of the form name=value")
        if key.strip() in out:
            raise ParameterError(f"parameter {quote(key.strip())} is given twice "
                                 f"({quote(out[key.strip()])} and {quote(value)})")
        out[key.strip()] = value
    return out
