"""Display names: chosen on a player's first visit, kept in the browser, sent with create and
join, shown on boards and in lists. There are no accounts: a name is a label, not an identity
(two players may pick the same one)."""

from __future__ import annotations

import re
import unicodedata
from typing import Any

from ..core import strict_json
from ..errors import ParameterError

MAX_NAME = 24
#: letters and symbols that draw nothing (Hangul fillers, the blank Braille pattern): a name
#: of them would look empty, or pad another name with invisible text
INVISIBLE = frozenset({0x115F, 0x1160, 0x3164, 0xFFA0, 0x2800})
#: the zero-width non-joiner and joiner, formatting characters that are part of the text
#: between two letters, marks or symbols: Persian's ZWNJ (علی‌رضا), the joiner of an Indic
#: conjunct or of an emoji sequence (👩‍💻, 🏳️‍🌈)
JOINERS = frozenset({0x200C, 0x200D})
#: the flag of a region (England's, Scotland's, Wales'): a black flag and its tag characters
REGION_FLAG = re.compile("\U0001F3F4[\U000E0020-\U000E007E]+\U000E007F")
#: the most combining marks drawn on one character (nonspacing or enclosing: they stack). A
#: script needs a few (a Hebrew letter's point, vowel and cantillation; a Tibetan stack); more
#: rise over the lines above the name, over the lobby's other games and the page's headings
MAX_MARKS = 4


def _joined(before: str, after: str) -> bool:
    """Whether a joiner between ``before`` and ``after`` joins two drawn characters."""
    return all(unicodedata.category(c)[0] in "LMS" for c in (before, after))


def _stacked(text: str, i: int) -> bool:
    """Whether ``text[i]`` is a combining mark past the ``MAX_MARKS`` on one character."""
    return i >= MAX_MARKS and all(unicodedata.category(c) in ("Mn", "Me")
                                  for c in text[i - MAX_MARKS:i + 1])


def _refused(text: str, i: int) -> bool:
    """Whether ``text[i]`` may not be in a name: a control, formatting, surrogate or private
    character, a noncharacter, a line break, or one that draws nothing. A character this
    server's Unicode does not know yet (a new emoji a browser sends) is let through."""
    ch, cp = text[i], ord(text[i])
    if cp in JOINERS:
        return not (0 < i < len(text) - 1 and _joined(text[i - 1], text[i + 1]))
    cat = unicodedata.category(ch)
    if cat == "Cn":
        return 0xFDD0 <= cp <= 0xFDEF or cp & 0xFFFE == 0xFFFE
    return cat[0] == "C" or cat in ("Zl", "Zp") or cp in INVISIBLE


def without_refused(text: str) -> str:
    """``text`` without the characters a name may not hold (``clean_name``: the marks past
    ``MAX_MARKS`` on one character too), a region flag's tags kept: another program's name
    for a player (an SGF file's ``PB[]``) may hold a right-to-left mark or a zero-width space,
    which would cost it the whole name."""
    out: list[str] = []
    at = 0
    for flag in [*REGION_FLAG.finditer(text), None]:
        part = text[at:flag.start() if flag else len(text)]
        kept = "".join(ch for i, ch in enumerate(part) if not _refused(part, i))
        out.extend(ch for i, ch in enumerate(kept) if not _stacked(kept, i))
        if flag is not None:
            out.append(flag.group())
            at = flag.end()
    return "".join(out)


def clean_name(value: Any, field: str = "name") -> str:
    """The display name as stored: NFC-normalised, surrounding space removed, 1-24 characters,
    no control or formatting characters (which could hide or reorder text on other players'
    screens) but the joiners between drawn characters and a region flag's tags, at most
    ``MAX_MARKS`` combining marks on one character. Pages escape it like any other text.

    Raises:
        ParameterError: not a string, empty, too long, with a character not allowed, or with
        more marks on one character.
    """
    if not isinstance(value, str):
        given = "not given" if value is None else f"not {strict_json.kind(value)}"
        raise ParameterError(f"{field!r} must be a string of 1-{MAX_NAME} characters, {given}")
    name = unicodedata.normalize("NFC", value).strip()
    if not 1 <= len(name) <= MAX_NAME:
        raise ParameterError(f"{field!r} must be 1-{MAX_NAME} characters, not {len(name)}")
    text = REGION_FLAG.sub("\U0001F3F4", name)
    for i, ch in enumerate(text):
        if _refused(text, i):
            raise ParameterError(f"{field!r} may not contain the character U+{ord(ch):04X}")
    if any(_stacked(name, i) for i in range(len(name))):
        raise ParameterError(f"{field!r} may not draw more than {MAX_MARKS} combining marks "
                             "on one character (they would cover the lines above it)")
    if unicodedata.category(name[0])[0] == "M":  # a mark would join the text before the name
        raise ParameterError(f"{field!r} may not start with a combining mark "
                             f"(U+{ord(name[0]):04X})")
    return " ".join(name.split())  # runs of spaces shown as one
