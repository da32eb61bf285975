"""Numbers as typed in agent specs, game parameters and lab grids: ASCII digits only.

Python's ``int`` and ``float`` also read ``5_0`` as 50, Arabic-Indic and other Unicode digits
as their values, and ``inf`` or ``nan``: a spec that reads as one thing to a person would be
another to the program, and a record would keep the odd spelling."""

from __future__ import annotations

import re

_WHOLE = re.compile(r"[+-]?[0-9]+")
_DECIMAL = re.compile(r"[+-]?(?:[0-9]+(?:\.[0-9]*)?|\.[0-9]+)(?:[eE][+-]?[0-9]+)?")


def whole_number(text: str) -> int:
    """``text`` (ASCII spaces around it allowed) as an integer.

    Raises:
        ValueError: anything but an optional sign and ASCII digits, or more digits than
            Python converts.
    """
    text = text.strip(" \t")
    if not _WHOLE.fullmatch(text):
        raise ValueError(f"{text[:20]!r} is not a whole number")
    return int(text)


def decimal_number(text: str) -> float:
    """``text`` (ASCII spaces around it allowed) as a float: digits, a point, an exponent.

    Raises:
        ValueError: anything else, ``inf`` and ``nan`` included.
    """
    text = text.strip(" \t")
    if not _DECIMAL.fullmatch(text):
        raise ValueError(f"{text[:20]!r} is not a number")
    return float(text)
