"""The ranges docs/web.md documents are the ranges the code checks."""

from __future__ import annotations

import re
from pathlib import Path

from stonegarden.agents.registry import OPTION_RANGES, option_range
from stonegarden.core.registry import available_games, game_class
from stonegarden.search.profile import declared_options

DOC = (Path(__file__).resolve().parents[2] / "docs" / "web.md").read_text(encoding="utf-8")


def test_every_bounded_game_parameter_is_documented_with_its_range():
    rows = dict(((g, p), r.strip()) for g, p, r in
                re.findall(r"^\| `([\w-]+)` \| `(\w+)` \| ([^|]+)\|$", DOC, re.MULTILINE))
    expected = {}
    for gid in available_games():
        for p in game_class(gid).param_specs:
            if p.kind == "str_list" and p.high is not None:
                expected[(gid, p.name)] = f"at most {p.high} names"
            elif p.kind in ("int", "opt_int") and p.high is not None:
                expected[(gid, p.name)] = f"{p.low}..{p.high}"
            elif p.kind == "int_pair" and p.high is not None:
                expected[(gid, p.name)] = f"{p.low}..{p.high} each"
    assert rows == expected


def test_every_agent_option_range_is_documented():
    rows = {}
    for names, text in re.findall(r"^\| (`[\w`, ]+`) \| ([^|]+)\|$", DOC, re.MULTILINE):
        for name in re.findall(r"`(\w+)`", names):
            rows[name] = text
    numeric = [*OPTION_RANGES, *(n for n, o in declared_options().items() if o.kind == "int")]
    for key in numeric:
        bounds = option_range(key)
        assert bounds is not None, key
        low, high, whole = bounds
        shown = f"{int(low)}..{int(high)}" if whole else f"{low:.15g}..{high:.15g}"
        assert rows[key].startswith(shown), (key, rows.get(key), shown)
