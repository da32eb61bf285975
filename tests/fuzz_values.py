"""Hypothesis strategies shared by the fuzz tests: JSON values an attacker would send, with the
known troublemakers (integers of more digits than Python converts, deep nesting, lone
surrogates, NaN-like text, out-of-range numbers) drawn often."""

from __future__ import annotations

from hypothesis import strategies as st

import stonegarden
from stonegarden.core.registry import game_class

GAMES = stonegarden.available_games()
AGENTS = ["human", "random", "random:seed=3", "greedy", "mcts:sims=20", "level:1",
          "uct-flat:sims=10"]

# long values are built (not listed) so that Hypothesis' reports stay short
weird_text = st.one_of(
    st.text(max_size=30),
    st.sampled_from(["", " ", "\ud800", "a\udfffb", "\x00", "self", "game_id", "NaN", "-1",
                     "1e309", "Rd4,Yc3", "pass", "resign", "A1", "human", "mcts:time=100000",
                     "random:seed=-1", "level:7", "level:", ":", "mcts:,", "mcts:sims=0"]),
    st.sampled_from(["9", "[", "mcts:seed=9"]).map(lambda t: t * 5000),
)
weird_int = st.one_of(
    st.integers(min_value=-3, max_value=40),
    st.sampled_from([31, 63, 64, 333, 5000]).map(lambda e: 2**e),
    st.sampled_from([63, 5000]).map(lambda e: -(2**e)),
)


def deep(depth: int) -> list:
    out: list = []
    for _ in range(depth):
        out = [out]
    return out


leaf = st.one_of(st.none(), st.booleans(), weird_int,
                 st.floats(allow_nan=False, allow_infinity=False), weird_text)
json_value = st.one_of(
    leaf,
    st.sampled_from([50, 400]).map(deep),
    st.recursive(leaf, lambda inner: st.one_of(st.lists(inner, max_size=4),
                                              st.dictionaries(weird_text, inner, max_size=4)),
                 max_leaves=10),
)

#: parameter names (the real ones, and some that are not)
param_name = st.one_of(
    st.sampled_from(sorted({p.name for g in GAMES for p in game_class(g).param_specs}
                           | {"self", "game_id", "params", ""})),
    weird_text,
)
params = st.dictionaries(param_name, json_value, max_size=4)
game_id = st.one_of(st.sampled_from(GAMES), json_value)
