"""JSON as the standard writes it: ``NaN``, ``Infinity`` and numbers too large for a float are
refused, so whatever is read can be written back as valid JSON."""

from __future__ import annotations

import json
import math
from typing import Any

from ..errors import quote


def _no_constant(name: str) -> Any:
    raise ValueError(f"{name} is not a JSON number")


def _finite(text: str) -> float:
    value = float(text)
    if not math.isfinite(value):
        raise ValueError(f"{text[:20]} is too large a number")
    return value


def _integer(text: str) -> int:
    try:
        return int(text)
    except ValueError:  # more digits than Python converts (its message tells how to allow them)
        raise ValueError(f"{text[:20]}... ({len(text)} digits) is too large a number") from None


class DuplicateKey(ValueError):
    """An object that gives one key twice: which of its values was meant cannot be known."""

    def __init__(self, key: str) -> None:
        super().__init__(f"{quote(key)} is given twice in one object")
        self.key = key


def _once_each(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for key, value in pairs:
        if key in out:
            raise DuplicateKey(key)
        out[key] = value
    return out


def loads(text: str | bytes, unique_keys: bool = False) -> Any:
    """``json.loads`` without the non-standard constants; with ``unique_keys``, without an
    object that gives a key twice (``json.loads`` keeps its last value without a word).

    Raises:
        ValueError: not JSON, a non-finite number, or an integer of more digits than Python
        converts; ``DuplicateKey`` for a key given twice.
        RecursionError: nested too deeply.
    """
    return json.loads(text, parse_constant=_no_constant, parse_float=_finite,
                      parse_int=_integer, object_pairs_hook=_once_each if unique_keys else None)


def show(value: Any, limit: int = 80) -> str:
    """``value``, read from JSON, as its writer wrote it (``null``, ``true``, ``["a", 1]``), for
    messages: Python's ``None``, ``True`` and ``['a', 1]`` are not what the client sent. A
    string is quoted as every message quotes one (``'a'``); cut to about ``limit``
    characters; never raises."""
    if isinstance(value, str):
        return quote(value, limit)
    try:
        text = json.dumps(value, ensure_ascii=False)
    except (ValueError, TypeError, RecursionError):  # an integer of more digits than shown
        return quote(value, limit)
    return text if len(text) <= limit else text[: limit - 3] + "..."


def kind(value: Any) -> str:
    """What ``value``, as read from JSON, is in JSON's own words (``null``, ``an array``),
    for messages: Python's type names (``NoneType``, ``list``) mean nothing to the writer."""
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "a boolean"
    if isinstance(value, (int, float)):
        return "a number"
    if isinstance(value, str):
        return "a string"
    if isinstance(value, (list, tuple)):
        return "an array"
    return "an object" if isinstance(value, dict) else type(value).__name__
