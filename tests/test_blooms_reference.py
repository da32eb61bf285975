"""Differential tests: the kernels against the naive implementation in reference_blooms.py, on
positions from seeded random games (sizes 2-4, with and without holes)."""

from __future__ import annotations

import itertools

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import stonegarden
from stonegarden.geometry.hexhex import all_names, name_to_axial

from . import reference_blooms as ref


def to_ref(game, state):
    """Reference board (coord -> colour letter) and cells of a state."""
    cells = ref.cells_of(game.board.size, set(game.board.holes))
    board = {}
    for i, v in enumerate(state.cells()):
        if v:
            board[name_to_axial(game.board.size, game.board.names[i])] = "RYKG"[v - 1]
    return board, cells


def turn_texts(game, state, turns):
    out = set()
    mine = "RY" if state.player == 1 else "KG"
    for t in turns:
        if t is None:
            out.add("pass")
            continue
        stones = sorted(t, key=lambda s: mine.index(s[0]))
        out.add(",".join(c + ref.cells_of(game.board.size)[xy] for c, xy in stones))
    return out


def random_states(game, seed, limit=60):
    rng = np.random.default_rng(seed)
    s = game.initial_state()
    out = [s]
    while not game.is_terminal(s) and len(out) < limit:
        acts = game.legal_actions(s)
        s = game.play(s, int(acts[rng.integers(len(acts))]))
        out.append(s)
    return out


boards = st.tuples(
    st.integers(2, 4),
    st.integers(0, 10_000),
    st.lists(st.integers(0, 200), max_size=4),
)


def make_game(game_id, size, hole_picks):
    names = all_names(size)
    holes = sorted({names[h % len(names)] for h in hole_picks})
    if len(holes) >= len(names) - 2:
        holes = []
    try:
        if game_id == "blooms":
            return stonegarden.make(game_id, size=size, holes=holes, target=4 * size)
        return stonegarden.make(game_id, size=size, holes=holes, max_turns=40)
    except stonegarden.ParameterError:
        return stonegarden.make(game_id, size=size)


@pytest.mark.parametrize("game_id", ["blooms", "blooms-territory"])
@settings(max_examples=25, deadline=None)
@given(boards)
@pytest.mark.slow
def test_legal_turns_equal_the_reference(game_id, board_args):
    size, seed, hole_picks = board_args
    game = make_game(game_id, size, hole_picks)
    territory = game_id == "blooms-territory"
    for s in random_states(game, seed)[::5]:
        if game.is_terminal(s):
            continue
        b, cells = to_ref(game, s)
        expected = turn_texts(game, s, ref.legal_turns(b, cells, s.player, s.ply == 0, territory))
        assert set(game.legal_moves_text(s)) == expected, game.position_text(s)


@pytest.mark.parametrize("game_id", ["blooms", "blooms-territory"])
@settings(max_examples=25, deadline=None)
@given(boards)
@pytest.mark.slow
def test_captures_and_scores_equal_the_reference(game_id, board_args):
    size, seed, hole_picks = board_args
    game = make_game(game_id, size, hole_picks)
    states = random_states(game, seed)
    full_names = ref.cells_of(game.board.size)
    for before, after in itertools.pairwise(states):
        b, cells = to_ref(game, before)
        # find the move by diffing, then apply it in the reference
        stones = [
            ("RYKG"[v - 1], name_to_axial(game.board.size, game.board.names[i]))
            for i, (v0, v) in enumerate(zip(before.cells(), after.cells()))
            if v and not v0 and v in ((1, 2) if before.player == 1 else (3, 4))
        ]
        if not stones:  # a pass, or stones placed and captured in the same turn cannot happen
            continue
        nb, removed, _ = ref.apply(b, cells, before.player, stones)
        assert after.captured == removed
        after_ref, _ = to_ref(game, after)
        assert after_ref == nb, [full_names[c] for c in nb]
        if game_id == "blooms-territory":
            assert game.scores(after) == ref.territory_score(nb, cells)
