"""Display names: 1-24 characters, checked."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from stonegarden.errors import ParameterError
from stonegarden.web.names import MAX_MARKS, MAX_NAME, clean_name, without_refused


@pytest.mark.parametrize("raw, shown", [
    ("Ada", "Ada"), ("  Ada  Lovelace ", "Ada Lovelace"), ("é", "\u00e9"), ("e\u0301", "\u00e9"),
    ("<b>x</b>", "<b>x</b>"),  # kept as text; pages escape it
    ("x" * MAX_NAME, "x" * MAX_NAME), ("Zoë\u0301", "Zoë\u0301"), ("李 明", "李 明"),
    # joiners between drawn characters: Persian's ZWNJ, an Indic conjunct's and emoji's ZWJ
    ("علی\u200cرضا", "علی\u200cرضا"), ("क्\u200dष", "क्\u200dष"), ("Sam 👩\u200d💻", "Sam 👩\u200d💻"),
    ("🏳\ufe0f\u200d🌈", "🏳\ufe0f\u200d🌈"),
    ("Ana 🏴\U000e0067\U000e0062\U000e0073\U000e0063\U000e0074\U000e007f",
     "Ana 🏴\U000e0067\U000e0062\U000e0073\U000e0063\U000e0074\U000e007f"),  # Scotland's flag
    # an emoji newer than the server's Unicode (the browser's may know it): a character, kept
    ("Bo \U0001fae8", "Bo \U0001fae8"), ("\U0001fabf", "\U0001fabf"),
    # a few combining marks on one character, as scripts stack them (a Tibetan stack)
    ("x" + "\u0301" * MAX_MARKS, "x" + "\u0301" * MAX_MARKS), ("བསྒྲུབས", "བསྒྲུབས"),
])
def test_good_names(raw, shown):
    assert clean_name(raw) == shown


@pytest.mark.parametrize("raw", [
    "", "   ", "x" * (MAX_NAME + 1), 7, None, ["Ada"], "a\u0000b", "a\nb", "\u202eevil",
    "a\ud800", "a\u2028b",
    "\u3164", "\uffa0", "\u115f", "\u2800", "Ada\u3164\u3164",  # letters that draw nothing
    "\u0301\u0301", "\u20ddAda",  # combining marks first: they join the text before
    "\u200dAda", "Ada\u200c", "A\u200d\u200dB", "A \u200dB",  # joiners joining nothing
    "\U000e0041", "🏴\U000e0067",  # tags outside a whole flag
    "\ufdd0", "a\U0001fffe", "\ue000",  # noncharacters, private use
    # marks stacked past a few rise over the lines above the name (the lobby's other rows)
    "x" + "\u0301" * (MAX_MARKS + 1), "Bx" + "\u0301\u0308\u030a\u20dd\u0327",
])
def test_bad_names_are_refused(raw):
    with pytest.raises(ParameterError, match="name"):
        clean_name(raw)


def test_a_tower_of_marks_is_refused_in_words_and_cut_down_in_a_records_name():
    with pytest.raises(ParameterError, match="more than 4 combining marks on one character"):
        clean_name("Z" + "\u0301" * 20)
    assert without_refused("Z" + "\u0301" * 20 + "oe") == "Z" + "\u0301" * MAX_MARKS + "oe"


@given(st.text(max_size=40))
def test_any_text_gives_a_name_or_a_typed_error(raw):
    try:
        name = clean_name(raw)
    except ParameterError:
        return
    assert 1 <= len(name) <= MAX_NAME and name == name.strip()
