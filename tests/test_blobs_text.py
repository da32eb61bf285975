"""Blobs text: move notation, position text, the server-style diagram and SVG; round trips,
garbage in gives typed errors, and the golden picture of T1."""

from __future__ import annotations

import dataclasses
import re
import textwrap
from pathlib import Path

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import stonegarden
from stonegarden import CHANCE, StonegardenError
from stonegarden.errors import NotationError, quote
from stonegarden.games.blobs.notation import cell_name, parse_cell
from stonegarden.games.blobs.svg import blobs_svg, face_svg

DATA = Path(__file__).resolve().parent / "data"

GAMES = {
    "default": stonegarden.make("blobs"),
    "tumbling": stonegarden.make("blobs", tumbling=True),
    "small": stonegarden.make("blobs", dice=16, max_grid=4, win="white"),
}
SETTINGS = settings(max_examples=60, deadline=None,
                    suppress_health_check=[HealthCheck.too_slow])


def random_states(game, seed, limit=60):
    rng = np.random.default_rng(seed)
    s = game.initial_state()
    out = [s]
    while not game.is_terminal(s) and len(out) < limit:
        if game.current_player(s) == CHANCE:
            outcomes = game.chance_outcomes(s)
            a = outcomes[int(rng.integers(len(outcomes)))][0]
        else:
            legal = game.legal_actions(s)
            a = int(legal[rng.integers(len(legal))])
        s = game.play(s, a)
        out.append(s)
    return out


# -- round trips --------------------------------------------------------------------------------
@pytest.mark.parametrize("name", list(GAMES))
@pytest.mark.parametrize("seed", range(4))
def test_every_action_text_reads_back_to_the_same_action(name, seed):
    game = GAMES[name]
    for s in random_states(game, seed)[::5]:
        for a in range(game.num_distinct_actions):
            text = game.action_to_text(s, a)
            assert game.parse_action(s, text) == a
            assert game.parse_action(s, f"  {text.lower()}\t") == a


@pytest.mark.parametrize("name", list(GAMES))
@pytest.mark.parametrize("seed", range(4))
def test_position_text_and_diagram_read_back(name, seed):
    game = GAMES[name]
    for s in random_states(game, seed):
        text = game.position_text(s)
        again = game.parse_position(text)
        assert game.position_text(again) == text
        assert (again.outcome, again.reason, again.player) == (s.outcome, s.reason, s.player)
        assert game.position_text(game.parse_diagram(game.diagram(s))) == text
        # trailing spaces stripped by an editor do not matter
        stripped = "\n".join(line.rstrip() for line in game.diagram(s).splitlines())
        assert game.position_text(game.parse_diagram(stripped)) == text


@pytest.mark.parametrize("indent", ["    ", "\t"])
def test_a_diagram_indented_as_a_whole_reads_back(indent):
    """A diagram pasted into an indented string was refused, "block row 1 has no rank
    number", where the other games' diagrams read back."""
    game = GAMES["small"]
    for s in random_states(game, 5)[::3]:
        moved = textwrap.indent(game.diagram(s), indent)
        assert game.position_text(game.parse_diagram(f"\n{moved}\n  ")) == game.position_text(s)


@SETTINGS
@given(data=st.data(), name=st.sampled_from(sorted(GAMES)))
def test_positions_of_any_game_read_back(data, name):
    game = GAMES[name]
    s = game.initial_state()
    for _ in range(data.draw(st.integers(0, 30))):
        if game.is_terminal(s):
            break
        legal = game.legal_actions(s)
        s = game.play(s, int(legal[data.draw(st.integers(0, len(legal) - 1))]))
    text = game.position_text(s)
    assert game.parse_position(text) == dataclasses.replace(s, auto=())
    assert game.parse_diagram(game.diagram(s)) == dataclasses.replace(s, auto=())
    for a in game.legal_actions(s):
        assert game.parse_move(s, game.action_to_text(s, int(a))) == a


def test_legal_moves_use_the_short_form_and_illegal_turns_the_full_form():
    game = GAMES["default"]
    s = game.initial_state()
    assert all(re.fullmatch(r"[a-o][0-9]{1,2}[RBM]", t) for t in game.legal_moves_text(s))
    # the Mixed die on h9 turned the wrong way cannot be written h9M (that is h9:BR)
    assert game.action_to_text(s, game.parse_action(s, "h9:RB")) == "h9:RB"


@given(st.integers(-7, 7), st.integers(-7, 7))
def test_cell_names_round_trip(r, c):
    assert parse_cell(cell_name(r, c)) == (r, c)


def test_cell_names_follow_the_spec():
    assert cell_name(0, 0) == "h8"
    assert cell_name(-7, -7) == "a15"
    assert cell_name(7, 7) == "o1"
    assert cell_name(-1, 0) == "h9"  # ranks grow northwards


# -- garbage ------------------------------------------------------------------------------------
@SETTINGS
@given(st.text(max_size=30))
def test_garbage_move_text_gives_a_typed_error(text):
    game = GAMES["tumbling"]
    for s in (game.initial_state(), game.play_text(game.initial_state(), "roll:M")):
        try:
            a = game.parse_move(s, text)
        except StonegardenError as exc:
            assert quote(text) in str(exc)
        else:
            assert game.is_legal(s, a)


@SETTINGS
@given(st.text(alphabet="abhiop0123456789:RBMWrbm ,-?x.oX", max_size=40))
def test_near_miss_move_text_gives_a_typed_error(text):
    game = GAMES["default"]
    s = game.initial_state()
    try:
        a = game.parse_action(s, text)
    except NotationError as exc:
        assert quote(text) in str(exc)
    else:
        assert game.parse_action(s, game.action_to_text(s, a)) == a


@SETTINGS
@given(st.text(max_size=60) | st.text(alphabet="h8:RBM,12 -?", max_size=60))
def test_garbage_position_text_gives_a_typed_error(text):
    game = GAMES["default"]
    try:
        s = game.parse_position(text)
    except StonegardenError:
        return
    assert game.parse_position(game.position_text(s)) == s


@SETTINGS
@given(st.text(max_size=30))
def test_garbage_cell_names_give_a_typed_error(text):
    try:
        rc = parse_cell(text)
    except NotationError as exc:
        assert quote(text) in str(exc)
    else:
        assert cell_name(*rc) == text.strip().lower()


@SETTINGS
@given(st.integers(0, 2000), st.sampled_from("ox .x\n~5"), st.integers(0, 3))
def test_damaged_diagrams_give_a_typed_error_or_a_valid_position(pos, ch, seed):
    game = GAMES["default"]
    s = random_states(game, seed, limit=6)[-1]
    text = game.diagram(s)
    pos %= len(text)
    damaged = text[:pos] + ch + text[pos + 1:]
    try:
        again = game.parse_diagram(damaged)
    except StonegardenError:
        return
    assert game.position_text(game.parse_position(game.position_text(again))) == \
        game.position_text(again)


@SETTINGS
@given(st.text(max_size=200))
def test_garbage_diagrams_give_a_typed_error(text):
    with pytest.raises(StonegardenError):
        GAMES["default"].parse_diagram(text)


def test_non_text_input_gives_a_typed_error():
    game = GAMES["default"]
    s = game.initial_state()
    for bad in (None, 3, b"h9M", ["h9M"]):
        with pytest.raises(NotationError):
            game.parse_move(s, bad)
        with pytest.raises(NotationError):
            game.parse_position(bad)
        with pytest.raises(NotationError):
            game.parse_diagram(bad)


# -- SVG ----------------------------------------------------------------------------------------
def test_svg_draws_every_die_and_frontier_cell_with_its_name():
    game = GAMES["default"]
    s = game.play_text(game.initial_state(), "h9M")
    svg = blobs_svg(game, s)
    assert svg.startswith("<svg") and svg.endswith("</svg>")
    assert 'data-cell="h8" data-placement="RB" data-face="M"' in svg
    assert 'data-cell="h9" data-placement="BR" data-face="M"' in svg
    frontier = set(re.findall(r'class="cell empty frontier" data-cell="([a-o][0-9]+)"', svg))
    assert frontier == {"h10", "g9", "i9", "g8", "i8", "h7"}
    # two arcs per die, and red and blue never told apart by hue alone
    assert svg.count(" A24 24 0 0 ") == 2 * 2 * 2  # fill and stroke of each arc
    assert "url(#blobs-red)" in svg and "url(#blobs-blue)" in svg
    assert "<circle" in svg and "rotate(45)" in svg  # dots for red, stripes for blue


@pytest.mark.parametrize(("face", "name"), [("RR", "red"), ("BB", "blue"), ("RB", "mixed")])
def test_docs_face_pictures_are_current(face, name):
    from stonegarden.games.blobs.lattice import PLACEMENTS

    path = DATA.parents[1] / "docs" / "games" / "img" / f"blobs-{name}.svg"
    assert path.read_text() == face_svg(PLACEMENTS.index(face)) + "\n"


@pytest.mark.parametrize(
    ("name", "position"),
    [("t1", "g8:RR,h8:RB,i8:BB,j8:BB,f7:RR,g7:RR,h7:BR,i7:BB,j7:BB 1 39 7 -"),
     ("t4", "f9:RR,g9:RR,f8:RR,g8:RR,h8:RB 1 43 3 -")],
)
def test_docs_board_pictures_are_current(name, position):
    game = GAMES["default"]
    path = DATA.parents[1] / "docs" / "games" / "img" / f"blobs-{name}.svg"
    assert path.read_text() == blobs_svg(game, game.parse_position(position)) + "\n"
