"""Bridge Go: one named test per test position and decision of docs/games/bridgego.md.

The test positions of docs/games/bridgego.md give coordinates as (x, y), x from the west and y from the north;
``xy`` turns them into point names."""

from __future__ import annotations

import pytest

import stonegarden
from stonegarden.errors import IllegalMoveError, NotationError, PositionError
from stonegarden.geometry.square import COLUMNS

from .square_go_helpers import play, split_moves


def xy(size, x, y):
    return f"{COLUMNS[x]}{size - y}"


def position(game, rows, to_move):
    """A position from rows (top row first)."""
    return game.parse_position("/".join(rows) + f" {to_move} {20 + to_move - 1}")


def rows_with(size, black=(), white=()):
    grid = [["."] * size for _ in range(size)]
    for x, y in black:
        grid[y][x] = "X"
    for x, y in white:
        grid[y][x] = "O"
    return ["".join(r) for r in grid]


def stones(game, state, colour):
    ch = {1: "X", 2: "O"}[colour]
    return sorted(n for n, c in zip(game.board.names, state.cells()) if ".XO"[c] == ch)


# -- the rules page's test positions ----------------------------------------------------------------

def test_spec_two_eyes_die():
    g = stonegarden.make("bridgego", size=9)
    rows = [".........", "..OO.OO..", "..OXXXO..", "..OX.XO..", "..OXXXO..", "..OX.XO..",
            "..OXXXO..", "..OOOOO..", "........."]
    after = g.play_text(position(g, rows, to_move=2), xy(9, 4, 1))
    assert after.captured == 13 and stones(g, after, 1) == []
    assert after.self_captured == 0


def test_spec_own_ring_kills_own_inner_stone():
    g = stonegarden.make("bridgego", size=7)
    rows = [".......", ".XX.XX.", ".X...X.", ".X.X.X.", ".X...X.", ".XXXXX.", "......."]
    after = g.play_text(position(g, rows, to_move=1), xy(7, 3, 1))
    assert after.self_captured == 1 and after.captured == 0
    assert xy(7, 3, 3) not in stones(g, after, 1)
    assert len(stones(g, after, 1)) == 16, "the ring lives"


def test_spec_opponent_first_then_own():
    g = stonegarden.make("bridgego", size=5)
    s = position(g, rows_with(5, black=[(0, 2), (0, 4), (2, 4)], white=[(1, 4)]), to_move=1)
    after = g.play_text(s, xy(5, 1, 3))
    assert after.captured == 1 and after.self_captured == 1
    assert stones(g, after, 2) == []
    assert stones(g, after, 1) == sorted(xy(5, x, y) for x, y in [(0, 2), (1, 3), (2, 4)])


def test_spec_simultaneous_removal():
    g = stonegarden.make("bridgego", size=5)
    s = position(g, ["..XO.", "..XO.", "XX...", "OO...", "....."], to_move=2)
    after = g.play_text(s, xy(5, 2, 2))
    assert after.captured == 4 and stones(g, after, 1) == []


def test_spec_superko_a_suicide_that_changes_nothing_is_illegal():
    g = stonegarden.make("bridgego", size=5)
    s = position(g, rows_with(5, white=[(1, 0), (0, 1)]), to_move=1)
    with pytest.raises(IllegalMoveError, match="superko"):
        g.play_text(s, xy(5, 0, 0))
    loose = stonegarden.make("bridgego", size=5, superko=False)
    after = loose.play_text(position(loose, rows_with(5, white=[(1, 0), (0, 1)]), 1), "A5")
    assert after.self_captured == 1 and after.board == s.board


# -- decisions --------------------------------------------------------------------------------

# A1 and B2 lie on a diagonal: with C3 the black stones cut the board into two corners, and
# no black stone keeps an external liberty
DIAGONAL = ["O..", ".X.", "X.."]


def test_total_self_capture_removes_every_stone_of_the_mover():
    g = stonegarden.make("bridgego", size=3)
    after = g.play_text(position(g, DIAGONAL, to_move=1), "C3")
    assert after.self_captured == 3 and after.captured == 0
    assert stones(g, after, 1) == [] and stones(g, after, 2) == ["A3"]
    assert not g.is_terminal(after)


def test_superko_includes_the_empty_start_so_wiping_the_board_is_illegal():
    g = stonegarden.make("bridgego", size=3)
    s = position(g, ["...", ".X.", "X.."], to_move=1)
    with pytest.raises(IllegalMoveError, match="superko"):
        g.play_text(s, "C3")
    loose = stonegarden.make("bridgego", size=3, superko=False)
    after = loose.play_text(position(loose, ["...", ".X.", "X.."], 1), "C3")
    assert after.self_captured == 3 and not any(after.board)


# C3 joins the two black chains into one that touches all four sides, and splits the open
# region into a north-west and a south-east pocket: the new chain has no external liberty
BRIDGE_IN_POCKETS = ["..O.X", "....X", "XX.XX", "X....", "X...."]
BRIDGE_AFTER_C3 = ["..O.X", "....X", "XXXXX", "X....", "X...."]


def test_a_bridge_wins_although_it_would_be_self_captured():
    g = stonegarden.make("bridgego", size=5)
    after = g.play_text(position(g, BRIDGE_IN_POCKETS, to_move=1), "C3")
    assert g.is_terminal(after) and g.winner(after) == 1
    assert g.result_reason(after) == "bridge"
    assert after.self_captured == 0, "step 4 is not applied"
    assert g.without_external(after.cells(), 1), "the chain has no external liberty"


def test_win_check_after_self_capture_removes_the_bridge_first():
    g = stonegarden.make("bridgego", size=5, win_check="after-self-capture")
    after = g.play_text(position(g, BRIDGE_IN_POCKETS, to_move=1), "C3")
    assert after.self_captured == 9 and stones(g, after, 1) == []
    assert not g.is_terminal(after) and g.winner(after) is None


def test_a_bridge_that_survives_wins_under_both_win_checks():
    for check in ("before-self-capture", "after-self-capture"):
        g = stonegarden.make("bridgego", size=5, win_check=check)
        s = position(g, ["..X..", "..X..", ".....", "..X..", "..X.."], to_move=1)
        after = g.play_text(s, "C3")
        assert g.winner(after) == 1 and after.self_captured == 0


def test_enemy_stones_are_transparent():
    g = stonegarden.make("bridgego", size=5)
    # C4 is enclosed by white stones and the black stone C3, yet its open region for Black
    # crosses the white stones to every side: White filling C3's other liberties kills nothing
    s = position(g, ["..O..", ".O.O.", "..X..", "..O..", "....."], to_move=2)
    after = play(g, s, "B3", "A1", "D3")
    assert "C3" in stones(g, after, 1) and after.captured == 0
    # in ordinary Go the stone would have been captured: its only liberty is C4
    assert g.without_external(after.cells(), 1) == []


def test_enemy_stones_never_give_their_liberties_to_the_other_colour():
    g = stonegarden.make("bridgego", size=5)
    s = position(g, ["O....", "X....", ".....", ".....", "....."], to_move=1)
    # after B5, O at A5 has no empty neighbour at all: no liberty, external or not, although
    # its open region crosses the black stones to every side
    after = g.play_text(s, "B5")
    assert after.captured == 1 and stones(g, after, 2) == []


# The west and east walls are broken diagonally (no black chain reaches two opposite sides) and
# leave one open region that touches north and south only (through the white stones C7, E7 and
# the points B7, F7), not west or east. D7 between the two white stones has a single liberty,
# D6, reached by a southward step.
CORRIDOR = ["X.OXO.X", ".X...X.", "X.....X", ".X...X.", "X.....X", ".X...X.", "X.....X"]


def test_perpendicular_variant_counts_only_liberties_reaching_the_perpendicular_sides():
    std = stonegarden.make("bridgego", size=7)
    perp = stonegarden.make("bridgego", size=7, external="perpendicular")
    cells = std.parse_position("/".join(CORRIDOR) + " 2 21").cells()
    d7 = std.board.point("D7")
    assert d7 not in std.without_external(cells, 1), "standard: north and south suffice"
    assert d7 in perp.without_external(cells, 1), "a southward step needs west and east"


def test_perpendicular_variant_turned_sideways():
    turned = ["".join(row[c] for row in CORRIDOR) for c in range(7)]  # transpose
    std = stonegarden.make("bridgego", size=7)
    perp = stonegarden.make("bridgego", size=7, external="perpendicular")
    cells = std.parse_position("/".join(turned) + " 2 21").cells()
    a4 = std.board.point("A4")  # D7 turned: its single liberty B4 is an eastward step
    assert a4 not in std.without_external(cells, 1)
    assert a4 in perp.without_external(cells, 1)


def test_perpendicular_variant_removes_the_stone_in_play():
    # without White's C7, D7 also breathes at C7 (a westward step, whose region reaches north
    # and south); White taking C7 leaves it only D6
    open_c7 = ["X..XO.X", *CORRIDOR[1:]]
    perp = stonegarden.make("bridgego", size=7, external="perpendicular")
    std = stonegarden.make("bridgego", size=7)
    for game, removed in ((std, False), (perp, True)):
        after = game.play_text(game.parse_position("/".join(open_c7) + " 2 21"), "C7")
        assert ("D7" not in stones(game, after, 1)) == removed
        assert after.captured == removed


def test_a_position_where_the_player_who_just_moved_has_a_dead_chain_is_impossible():
    # every turn that does not win ends with no chain of either player without an external
    # liberty (step 2 for the opponent's, step 4 for the mover's)
    perp = stonegarden.make("bridgego", size=7, external="perpendicular")
    with pytest.raises(PositionError, match="player 1 has a chain without an external"):
        perp.parse_position("/".join(CORRIDOR) + " 2 21")  # D7 is dead under this variant
    g = stonegarden.make("bridgego", size=7)
    ring = ["..XXX..", ".X...X.", ".X.X.X.", ".X...X.", "..XXX..", ".......", "......."]
    with pytest.raises(PositionError, match="player 1 has a chain without an external"):
        position(g, ring, to_move=2)  # D5 inside Black's own ring
    # a bridge that won may keep a chain without one: the game is over
    won = position(stonegarden.make("bridgego", size=5), BRIDGE_AFTER_C3, to_move=2)
    assert won.won == 1
    # unless the win is checked after the self-capture: the bridge would have been removed
    after = stonegarden.make("bridgego", size=5, win_check="after-self-capture")
    with pytest.raises(PositionError, match="player 1 has a chain without an external"):
        position(after, BRIDGE_AFTER_C3, to_move=2)


def test_perpendicular_liberty_counts_if_any_adjacency_qualifies():
    perp = stonegarden.make("bridgego", size=5, external="perpendicular")
    # one black chain on the north edge, B4 below it: southward from B5 needs west and east,
    # and the open region below reaches every side, so it qualifies
    s = perp.parse_position("/".join([".XX..", ".....", ".....", ".....", "....."]) + " 2 1")
    assert perp.without_external(s.cells(), 1) == []


# -- draws ------------------------------------------------------------------------------------

def test_max_turns_draw_when_superko_is_off():
    g = stonegarden.make("bridgego", size=5, superko=False, max_turns=4)
    s = play(g, g.initial_state(), "A1", "E5", "C3", "B4")
    assert g.is_terminal(s) and g.winner(s) == 0 and g.result_reason(s) == "max-turns"


def test_a_bridge_on_the_last_turn_before_max_turns_still_wins():
    g = stonegarden.make("bridgego", size=3, superko=False, max_turns=5)
    s = play(g, g.initial_state(), "B1", "A1", "B2", "A2", "B3")
    assert g.is_terminal(s) and g.winner(s) == 1 and g.result_reason(s) == "bridge"


def test_max_turns_is_ignored_under_superko():
    g = stonegarden.make("bridgego", size=5, max_turns=4)
    s = play(g, g.initial_state(), "A1", "E5", "C3", "B4")
    assert not g.is_terminal(s)


def test_defaults_and_the_sizes_3_to_19():
    assert stonegarden.make("bridgego").params == {
        "size": 9, "superko": True, "max_turns": 324, "win_check": "before-self-capture",
        "external": "standard"}
    for size in (3, 19):
        assert stonegarden.make("bridgego", size=size).params["size"] == size
    for size in (2, 20):
        with pytest.raises(stonegarden.ParameterError, match=r"3\.\.19"):
            stonegarden.make("bridgego", size=size)


def test_default_max_turns_is_four_times_the_points():
    assert stonegarden.make("bridgego", size=7, superko=False).params["max_turns"] == 196


def test_no_legal_move_is_a_draw_under_the_default_rules():
    # found by random play on 3x3: White's two empty points B2 and C2 would both recreate
    # earlier positions, so White has no legal move
    g = stonegarden.make("bridgego", size=3)
    moves = split_moves("C1 C2 B1 C3 A3 B2 B3 A1 C2 A2 B1 C3 A3 A1 B3 B1 C1")
    s = play(g, g.initial_state(), *moves)
    assert g.position_text(s) == "XXO/O../OOX 2 17"
    assert len(g.legal_actions(s)) == 0
    with pytest.raises(IllegalMoveError, match="over"):
        g.play_text(s, "B2")
    assert g.is_terminal(s) and g.winner(s) == 0 and g.result_reason(s) == "no-legal-move"


def test_no_legal_move_is_a_draw():
    # found by random play on 3x3: Black's only empty point B2 would recreate an earlier
    # position (whatever its self-capture), so Black has no legal move
    g = stonegarden.make("bridgego", size=3, win_check="after-self-capture")
    s = play(g, g.initial_state(), "B3", "A1", "C1", "A2", "B1", "C3", "A3", "C2")
    assert g.position_text(s) == "XXO/O.O/OXX 1 8"
    assert len(g.legal_actions(s)) == 0
    assert g.is_terminal(s) and g.winner(s) == 0 and g.result_reason(s) == "no-legal-move"


# -- notation and positions -------------------------------------------------------------------

def test_no_pass_and_bad_points_are_notation_errors():
    g = stonegarden.make("bridgego", size=5)
    for bad in ("pass", "F1", "A6", "I3", ""):
        with pytest.raises(NotationError):
            g.parse_move(g.initial_state(), bad)


def test_a_position_whose_player_to_move_has_a_bridge_is_impossible():
    g = stonegarden.make("bridgego", size=3)
    with pytest.raises(PositionError, match="bridge"):
        position(g, [".X.", ".X.", ".X."], to_move=1)
    assert g.winner(position(g, [".X.", ".X.", ".X."], to_move=2)) == 1


def test_observation_planes_mark_points_forbidden_by_superko():
    g = stonegarden.make("bridgego", size=5)
    s = position(g, rows_with(5, white=[(1, 0), (0, 1)]), to_move=1)
    obs = g.observation_tensor(s, 1)
    assert obs.shape == g.observation_shape == (5, 5, 5)
    c, r = g.board.column_row(g.board.point("A5"))
    assert obs[3, r, c] == 1 and obs[3].sum() == 1
    assert obs[1].sum() == 2 and obs[0].sum() == 0 and obs[4].all()


@pytest.mark.parametrize("size", [3, 5])
@pytest.mark.parametrize("superko", [True, False])
def test_is_terminal_asks_for_one_legal_point_and_agrees_with_the_full_list(superko, size):
    # is_terminal stops at the first legal point (rules.py, for the search's new nodes); on
    # random games to the end it must agree with the full list, asked first of a fresh state
    # and again once the list is memoised. (Random games end by a bridge; the two
    # no-legal-move tests above ask it of fresh states with every empty point forbidden.)
    import numpy as np

    g = stonegarden.make("bridgego", size=size, superko=superko)
    rng = np.random.default_rng(11)
    for _ in range(40):
        s = g.initial_state()
        while True:
            over = g.is_terminal(s)  # a fresh state: the one-point question
            legal = g._legal(s)
            assert over == (bool(s.won) or g._turns_ran_out(s) or len(legal) == 0)
            assert g.is_terminal(s) == over  # the memoised list
            if over:
                break
            s = g.play_unchecked(s, int(legal[rng.integers(len(legal))]))
