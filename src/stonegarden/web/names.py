"""Display names: chosen on a player's first visit, kept in the browser, sent with create and
join, shown on boards and in lists. There are no accounts: a name is a label, not an identity
(two players may pick the same one)."""

from __future__ import annotations

import unicodedata
from typing import Any

from ..core import strict_json
from ..errors import ParameterError

MAX_NAME = 24
#: letters and symbols that draw nothing (Hangul fillers, the blank Braille pattern): a name
#: of them would look empty, or pad another name with invisible text
INVISIBLE = frozenset({0x115F, 0x1160, 0x3164, 0xFFA0, 0x2800})


def clean_name(value: Any, field: str = "name") -> str:
    """The display name as stored: NFC-normalised, surrounding space removed, 1-24 characters,
    no control or formatting characters (which could hide or reorder text on other players'
    screens). Pages escape it like any other text.

    Raises:
        ParameterError: not a string, empty, too long, or with a character not allowed.
    """
    if not isinstance(value, str):
        given = "not given" if value is None else f"not {strict_json.kind(value)}"
        raise ParameterError(f"{field!r} must be a string of 1-{MAX_NAME} characters, {given}")
    name = unicodedata.normalize("NFC", value).strip()
    if not 1 <= len(name) <= MAX_NAME:
        raise ParameterError(f"{field!r} must be 1-{MAX_NAME} characters, not {len(name)}")
    for ch in name:
        cat = unicodedata.category(ch)
        # control, format, surrogate, unassigned; line breaks; characters that draw nothing
        if cat[0] == "C" or cat in ("Zl", "Zp") or ord(ch) in INVISIBLE:
            raise ParameterError(f"{field!r} may not contain the character U+{ord(ch):04X}")
    if unicodedata.category(name[0])[0] == "M":  # a mark would join the text before the name
        raise ParameterError(f"{field!r} may not start with a combining mark "
                             f"(U+{ord(name[0]):04X})")
    return " ".join(name.split())  # runs of spaces shown as one
