"""Layer 3: one named test per rule and decision of docs/games/blooms.md, written in notation.

Positions are given as position text: rows from the top row down (size 3: e, d, c, b, a),
then player to move, scores, ply, consecutive passes, first passer."""

from __future__ import annotations

import pytest

import stonegarden
from stonegarden import IllegalMoveError, NotationError, ParameterError, PositionError


def race(**params):
    return stonegarden.make("blooms", **params)


def territory(**params):
    return stonegarden.make("blooms-territory", **params)


def play(game, state, *moves):
    for m in moves:
        state = game.play_text(state, m)
    return state


# -- board and names ------------------------------------------------------------------------

def test_board_sizes_follow_3n_n_minus_1_plus_1():
    for n, cells in [(2, 7), (4, 37), (5, 61), (6, 91), (12, 397)]:
        assert race(size=n).num_cells == cells


def test_cell_names_a1_is_bottom_left_and_middle_row_is_d_for_size_4():
    g = race(size=4)
    s = play(g, g.initial_state(), "Ra1")
    assert g.diagram(s).splitlines()[6].split() == ["a", "R", ".", ".", "."]
    s = play(g, g.initial_state(), "Rd7")
    assert g.diagram(s).splitlines()[3].split() == ["d", ".", ".", ".", ".", ".", ".", "R"]


@pytest.mark.parametrize(("size", "target"), [(2, 5), (4, 15), (5, 20), (6, 25), (12, 55)])
def test_default_target_is_5_times_size_minus_1(size, target):
    assert race(size=size).params["target"] == target


def test_defaults_are_size_4_for_the_race_and_size_5_for_the_territory_rules():
    assert race().params == {"size": 4, "target": 15, "holes": (), "start_scores": (0, 0)}
    assert territory().params == {"size": 5, "holes": (), "superko": False, "max_turns": None}
    assert territory().num_cells == 61


@pytest.mark.parametrize("size", [1, 13, True, "x", 4.0, None])
def test_board_size_out_of_range_is_a_parameter_error(size):
    with pytest.raises(ParameterError):
        race(size=size)


# -- the capture race -----------------------------------------------------------------------

def test_first_turn_is_a_single_stone_of_either_colour():
    g = race(size=4)
    s0 = g.initial_state()
    assert g.count_legal_actions(s0) == 74
    play(g, s0, "Yd4")
    with pytest.raises(IllegalMoveError, match="exactly one stone"):
        g.play_text(s0, "Rd4,Yc3")


def test_later_turns_have_2E_plus_E_times_E_minus_1_options():
    g = race(size=4)
    s = play(g, g.initial_state(), "Rd4")
    assert g.count_legal_actions(s) == 2 * 36 + 36 * 35 == 1332
    assert len(g.legal_actions(s)) == 1332


def test_two_stone_turn_needs_one_stone_of_each_colour():
    g = race(size=4)
    s = play(g, g.initial_state(), "Rd4")
    with pytest.raises(IllegalMoveError, match="one stone of each colour"):
        g.play_text(s, "Kb2,Kc3")


def test_two_stone_turn_needs_two_different_cells():
    g = race(size=4)
    s = play(g, g.initial_state(), "Rd4")
    with pytest.raises(IllegalMoveError, match="different cells"):
        g.play_text(s, "Kb2,Gb2")


def test_two_stone_turn_parses_in_either_order_and_prints_first_colour_first():
    g = race(size=4)
    s = play(g, g.initial_state(), "Rd4")
    a = g.parse_move(s, " ge5 , KB2 ")
    assert g.action_to_text(s, a) == "Kb2,Ge5"
    assert a == g.parse_move(s, "Kb2,Ge5")


def test_colours_of_the_other_player_are_illegal():
    g = race(size=4)
    with pytest.raises(IllegalMoveError, match="belongs to player 2") as info:
        g.play_text(g.initial_state(), "Kd4")
    # the reasons the text alone gives name the position too, as every illegal move does
    assert info.value.position == g.position_text(g.initial_state())
    s = play(g, g.initial_state(), "Rd4")
    with pytest.raises(IllegalMoveError, match="different cells") as info:
        g.parse_move(s, "Kb2,Gb2")
    assert str(info.value).endswith(f"in position {g.position_text(s)!r}")


def test_occupied_cell_is_illegal():
    g = race(size=4)
    s = play(g, g.initial_state(), "Rd4")
    with pytest.raises(IllegalMoveError, match="occupied"):
        g.play_text(s, "Kd4")


def test_there_is_no_pass_in_the_capture_race():
    g = race(size=4)
    s = play(g, g.initial_state(), "Rd4")
    with pytest.raises(IllegalMoveError, match="no pass"):
        g.play_text(s, "pass")


def test_simultaneous_capture_of_several_enemy_blooms():
    # R a1 and Y a2 touch; removing one first would give the other a liberty, but both are
    # judged on the board after placement, so both go.
    g = race(size=3)
    s = g.parse_position(".../..../...../K.../RYK 2 0,0 5 0 0")
    after = g.play_text(s, "Kb2,Gb3")
    assert after.captured == 2
    assert g.scores(after) == (0, 2)
    assert g.position_text(after).startswith(".../..../...../KKG./..K ")


def test_a_players_two_colours_never_join_one_bloom():
    # R a1 touches Y a2, which has liberties (a3, b3); were they one bloom, a1 would live
    g = race(size=3)
    s = g.parse_position(".../..../...../K.../RY. 2 0,0 3 0 0")
    after = g.play_text(s, "Gb2")
    assert after.captured == 1
    assert g.position_text(after).startswith(".../..../...../KG../.Y. ")


def test_two_stone_turn_resolves_captures_after_both_stones():
    # neither stone alone fences R a1 (its liberties are b1 and b2); the pair does
    g = race(size=3)
    s = g.parse_position(".../..../...../..../RK. 2 0,0 3 0 0")
    for single in ("Kb1", "Gb2"):
        assert g.play_text(s, single).captured == 0
    assert g.play_text(s, "Kb1,Gb2").captured == 1


def test_self_fenced_bloom_stays_and_is_captured_by_the_opponents_next_turn():
    g = race(size=3, target=1)
    s = g.parse_position(".../..../...../KK../.K. 1 0,0 4 0 0")
    s = g.play_text(s, "Ra1")  # fills its own last liberty
    assert s.captured == 0
    assert g.position_text(s).endswith("RK. 2 0,0 5 0 0")
    assert not g.is_terminal(s)
    s = g.play_text(s, "Ke3")  # far away: the self-fenced stone is still removed
    assert s.captured == 1
    assert g.scores(s) == (0, 1)
    assert g.winner(s) == 2 and g.result_reason(s) == "target"


def test_mover_wins_at_once_when_score_reaches_target():
    g = race(size=3, target=2)
    s = g.parse_position(".../..../...../K.../RYK 2 0,1 5 0 0")
    after = g.play_text(s, "Kb2,Gb3")
    assert g.is_terminal(after) and g.winner(after) == 2 and g.scores(after) == (0, 3)
    with pytest.raises(IllegalMoveError, match="game is over"):
        g.play_text(after, "Ra3")


def test_start_scores_handicap_counts_toward_target():
    g = race(size=3, target=2, start_scores=[0, 1])
    s = g.initial_state()
    assert g.scores(s) == (0, 1)
    with pytest.raises(ParameterError, match="below the target"):
        race(size=3, target=2, start_scores=[2, 0])


def test_no_empty_cell_ends_the_game_as_a_draw_on_equal_scores():
    holes = ["a1", "a2", "b1", "b3", "c1", "c2"]  # a size-2 board with only b2 left
    g = race(size=2, holes=holes)
    s = g.play_text(g.initial_state(), "Rb2")  # self-fenced, stays; player 2 has no empty cell
    assert g.is_terminal(s) and g.winner(s) == 0 and g.result_reason(s) == "no-empty-cell"


def test_no_empty_cell_ends_the_game_and_the_higher_score_wins():
    holes = ["a1", "a2", "b1", "b3", "c1", "c2"]
    g = race(size=2, holes=holes, start_scores=[1, 0], target=5)
    s = g.play_text(g.initial_state(), "Yb2")
    assert g.winner(s) == 1 and g.result_reason(s) == "no-empty-cell"


# -- holes ----------------------------------------------------------------------------------

def test_holes_are_not_cells_and_not_neighbours():
    g = race(size=3, holes=["b2", "d2"])
    assert g.num_cells == 17
    with pytest.raises(NotationError, match="hole"):
        g.parse_move(g.initial_state(), "Rb2")
    # a1's neighbours are a2, b1 and the hole b2: two stones fence it
    s = g.parse_position(".../.-../...../.-../R.. 2 0,0 1 0 0")
    assert g.play_text(s, "Ka2").captured == 0
    assert g.play_text(s, "Ka2,Gb1").captured == 1


def test_hole_that_is_not_a_cell_is_a_parameter_error():
    with pytest.raises(ParameterError, match="not a cell"):
        race(size=3, holes=["z9"])
    with pytest.raises(ParameterError, match="no cell"):
        race(size=2, holes=["a1", "a2", "b1", "b2", "b3", "c1", "c2"])


def test_position_with_a_hole_marked_as_a_stone_is_impossible():
    g = race(size=3, holes=["b2"])
    with pytest.raises(PositionError):
        g.parse_position(".../..../...../.R../... 2 0,0 1 0 0")


# -- territory rules ------------------------------------------------------------------------

KO = ".../K-R./K.KR./K-R./... 1 0,0 8 0 0"  # a ko on size 3 with holes b2 and d2


def test_territory_first_turn_is_a_stone_not_a_pass():
    g = territory(size=3)
    with pytest.raises(IllegalMoveError, match="first turn places a stone"):
        g.play_text(g.initial_state(), "pass")
    assert g.count_legal_actions(g.initial_state()) == 38


def test_territory_self_fencing_is_illegal():
    g = territory(size=3)
    s = g.parse_position(".../..../...../KK../.K. 1 0,0 4 0 0")
    # said to the player who tried it (the page, the terminal), in the words of the rules
    # page: it said "a bloom of the mover", a newcomer's "who?"
    with pytest.raises(IllegalMoveError, match=r"it leaves one of your blooms fenced, with no "
                       r"empty cell next to it \(self-fencing is illegal here\)"):
        g.play_text(s, "Ra1")
    assert g.parse_move(s, "Ra3") >= 0


def test_territory_self_fencing_counts_each_colour_as_its_own_bloom():
    # R a1 next to Y a2 (which breathes at a3 and b3) is still a fenced bloom of the mover
    g = territory(size=3)
    s = g.parse_position(".../..../...../KG../.Y. 1 0,0 4 0 0")
    with pytest.raises(IllegalMoveError, match="self-fencing"):
        g.play_text(s, "Ra1")


def test_territory_filling_a_cell_ringed_by_the_same_colour_is_legal():
    # a1's neighbours a2, b1, b2 are all red; the bloom keeps liberties, so Ra1 is legal (one
    # online implementation forbids it, the written rules do not)
    g = territory(size=3)
    s = g.parse_position("..K/..../...../RR../.R. 1 0,0 4 0 0")
    after = g.play_text(s, "Ra1")
    assert g.position_text(after).split()[0] == "..K/..../...../RR../RR."


def test_territory_captures_are_judged_before_self_fencing():
    # R c2 has no empty neighbour once placed, but it fences K c3 first, which frees c3
    g = territory(size=3, holes=["b2", "d2"])
    s = g.parse_position(KO)
    after = g.play_text(s, "Rc2")
    assert after.captured == 1
    assert g.position_text(after).split()[0] == ".../K-R./KR.R./K-R./..."


def test_territory_captures_do_not_score():
    g = territory(size=3, holes=["b2", "d2"])
    after = g.play_text(g.parse_position(KO), "Rc2")
    assert after.scores == (0, 0)


def test_territory_scores_count_stones_plus_surrounded_empty_cells():
    g = territory(size=2)
    s = g.parse_position("../.R./.. 2 0,0 1 0 0")
    assert g.scores(s) == (7, 0)


def test_territory_touching_both_players_belongs_to_nobody():
    g = territory(size=2)
    s = g.parse_position("../R.K/.. 1 0,0 2 0 0")
    assert g.scores(s) == (1, 1)


def test_territory_an_empty_region_touching_no_stone_belongs_to_nobody():
    # holes a2, b1 and b2 cut a1 off: it touches no stone, so it is nobody's territory
    g = territory(size=3, holes=["a2", "b1", "b2"])
    s = g.play_text(g.initial_state(), "Re3")
    assert g.scores(s) == (1 + 14, 0)  # the stone and the other 14 empty cells, not a1
    assert g.scores(g.initial_state()) == (0, 0)


def test_territory_holes_are_never_territory():
    g = territory(size=2, holes=["a1"])
    s = g.parse_position("../.R./-. 2 0,0 1 0 0")
    assert g.scores(s) == (6, 0)


def test_two_consecutive_passes_end_the_game():
    g = territory(size=2)
    s = g.parse_position("../R.K/.. 1 0,0 2 0 0")
    s1 = g.play_text(s, "pass")
    assert not g.is_terminal(s1)
    s2 = g.play_text(s1, "pass")
    assert g.is_terminal(s2) and g.result_reason(s2) == "two-passes"


def test_a_pass_then_a_placement_resets_the_pass_count():
    g = territory(size=2)
    s = play(g, g.parse_position("../R.K/.. 1 0,0 2 0 0"), "pass", "Kc1", "pass")
    assert not g.is_terminal(s)


def test_first_passer_wins_a_tie_player_1():
    g = territory(size=2)
    s = play(g, g.parse_position("../R.K/.. 1 0,0 2 0 0"), "pass", "pass")
    assert g.scores(s) == (1, 1) and g.winner(s) == 1


def test_first_passer_wins_a_tie_player_2():
    g = territory(size=2)
    s = play(g, g.parse_position("../R.K/.. 2 0,0 3 0 0"), "pass", "pass")
    assert g.scores(s) == (1, 1) and g.winner(s) == 2


def test_first_passer_is_the_first_pass_of_the_whole_game():
    g = territory(size=2)
    s = play(g, g.initial_state(), "Rb1", "pass", "Yc1", "Kb3", "pass", "pass")
    # player 2 passed first (ply 1); later passes do not change that
    assert s.first_passer == 2


def test_higher_territory_score_wins_whoever_passed_first():
    g = territory(size=2)
    s = play(g, g.initial_state(), "Rb2", "pass", "pass")
    assert g.scores(s) == (7, 0) and g.winner(s) == 1


def test_superko_forbids_recreating_an_earlier_position():
    g = territory(size=3, holes=["b2", "d2"], superko=True)
    s = g.play_text(g.parse_position(KO), "Rc2")
    with pytest.raises(IllegalMoveError, match="superko"):
        g.play_text(s, "Kc3")
    assert g.illegal_reason(s, g.parse_action(s, "pass")) is None


def test_without_superko_the_ko_cycle_is_legal():
    g = territory(size=3, holes=["b2", "d2"])
    s0 = g.parse_position(KO)
    s = play(g, s0, "Rc2", "Kc3")
    assert g.position_text(s).split()[0] == g.position_text(s0).split()[0]


def test_superko_history_includes_positions_after_passes():
    g = territory(size=3, holes=["b2", "d2"], superko=True)
    s = play(g, g.parse_position(KO), "Rc2")
    assert len(s.history) == 2
    s = play(g, s, "pass")
    assert len(s.history) == 3


def test_max_turns_ends_the_game_counting_passes_tie_to_first_passer():
    g = territory(size=2, max_turns=3)
    s = play(g, g.initial_state(), "Rb1", "Kb3", "pass")
    assert g.is_terminal(s) and g.result_reason(s) == "max-turns"
    assert g.scores(s) == (1, 1) and g.winner(s) == 1


def test_max_turns_tie_goes_to_player_2_if_nobody_passed():
    g = territory(size=2, max_turns=2)
    s = play(g, g.initial_state(), "Rb1", "Kb3")
    assert g.is_terminal(s) and g.scores(s) == (1, 1) and g.winner(s) == 2


def test_territory_needs_a_board_where_a_first_stone_can_breathe():
    with pytest.raises(ParameterError, match="adjacent"):
        territory(size=2, holes=["a1", "a2", "b1", "b3", "c1", "c2"])


# -- impossible positions -------------------------------------------------------------------

def test_position_where_the_player_to_move_has_a_fenced_bloom_is_impossible():
    g = race(size=3)
    with pytest.raises(PositionError, match="fenced"):
        g.parse_position(".../..../...../KK../RK. 1 0,0 4 0 0")


def test_position_with_the_wrong_player_for_its_ply_is_impossible():
    g = race(size=3)
    with pytest.raises(PositionError, match="to move"):
        g.parse_position(".../..../...../..../... 2 0,0 0 0 0")


def test_position_with_passes_in_the_capture_race_is_impossible():
    g = race(size=3)
    with pytest.raises(PositionError, match="no passes"):
        g.parse_position(".../..../...../..../R.. 2 0,0 1 1 1")


@pytest.mark.parametrize("tail", ["2 0,0 1 1 1", "1 0,0 2 0 1", "1 0,0 2 2 2", "1 0,0 4 1 1"])
def test_territory_position_whose_passes_need_a_first_turn_pass_is_impossible(tail):
    # the first turn is a stone: at ply 1 nobody has passed, at ply 2 only player 2 has (once)
    g = territory(size=3)
    with pytest.raises(PositionError, match="first turn is never a pass"):
        g.parse_position(f".../..../...../..../R.. {tail}")


@pytest.mark.parametrize(("tail", "why"), [
    ("1 0,0 4 3 1", "the second pass in a row ends the game"),
    ("2 0,0 1 2 2", "too few turns for so many passes in a row"),
    ("1 0,0 4 1 0", "someone passed, so someone passed first"),
    ("2 0,0 1 0 2", "player 2 has had no turn yet"),
    ("1 0,0 2 0 2", "a pass by player 2 as the last turn would make passes=1, and the first "
                    "turn is never a pass"),
    ("1 0,0 4 2 2", "player 2's first pass must come before player 1's pass at the end, but not "
                    "on the first turn (never a pass) nor just before the last 2 passes (that "
                    "would make 3 in a row)"),
])
def test_territory_position_with_impossible_passes_says_which_rule_rules_them_out(tail, why):
    # each was said to be impossible "(the first turn is never a pass)", which is not the reason
    g = territory(size=3)
    with pytest.raises(PositionError) as caught:
        g.parse_position(f".../..../...../..../R.. {tail}")
    assert str(caught.value).endswith(f"({why})")


def test_territory_position_with_passes_that_fit_its_ply_parses():
    g = territory(size=3)
    assert g.parse_position(".../..../...../..../R.. 1 0,0 2 1 2").first_passer == 2
    done = g.parse_position(".../..../...../..../R.. 2 0,0 3 2 2")  # passes at plies 1 and 2
    assert g.is_terminal(done) and g.winner(done) == 1


def test_position_where_the_player_to_move_reached_the_target_is_impossible():
    # the turn that reaches the target ends the game: only the player who just moved can be there
    g = race(size=3, target=2)
    for scores in ("0,2", "2,2", "9,9"):
        with pytest.raises(PositionError, match="at or above the target 2"):
            g.parse_position(f".../..../...../K.../R.. 2 {scores} 3 0 0")
    won = g.parse_position(".../..../...../K.../R.. 2 2,0 3 0 0")
    assert g.winner(won) == 1 and g.result_reason(won) == "target"


def test_position_with_scores_before_anyone_could_capture_is_impossible():
    g = race(size=3, target=5)
    for text in (".../..../...../..../... 1 1,0 0 0 0", ".../..../...../..../R.. 2 0,1 1 0 0"):
        with pytest.raises(PositionError, match="before anyone could capture"):
            g.parse_position(text)
    handicap = race(size=3, target=5, start_scores=[0, 2])
    assert handicap.parse_position(".../..../...../..../R.. 2 0,2 1 0 0").scores == (0, 2)


def test_position_with_a_score_below_its_start_score_is_impossible():
    g = race(size=3, target=5, start_scores=[0, 1])
    with pytest.raises(PositionError, match="below the start scores"):
        g.parse_position(".../..../...../..../R.. 2 0,0 1 0 0")
    assert g.scores(g.parse_position(".../..../...../..../R.. 2 0,1 1 0 0")) == (0, 1)


def test_resign_ends_the_game_for_the_other_player():
    g = race(size=3)
    s = play(g, g.initial_state(), "Rc3", "resign")
    assert g.is_terminal(s) and g.winner(s) == 1 and g.result_reason(s) == "resign"


def test_an_unreadable_stone_is_named_once():
    """``'foo': 'foo' is not a stone``: a one-stone text was quoted twice."""
    game = stonegarden.make("blooms")
    state = game.initial_state()
    with pytest.raises(NotationError) as one:
        game.parse_move(state, "foo")
    assert str(one.value) == "'foo' is not a stone (colour letter then cell)"
    with pytest.raises(NotationError) as two:
        game.parse_move(state, "Rd4,foo")
    assert str(two.value) == "'Rd4,foo': 'foo' is not a stone (colour letter then cell)"


def test_two_stones_apart_by_a_space_are_told_to_join_with_a_comma():
    # "Rd4 Yc3" was "'Rd4 Yc3' is not a stone", which did not say what the move lacked
    game = stonegarden.make("blooms")
    with pytest.raises(NotationError) as err:
        game.parse_move(game.initial_state(), " Rd4  yc3 ")
    assert str(err.value) == "' Rd4  yc3 ': two stones are joined by a comma, 'Rd4,yc3'"


# -- the docs' examples ---------------------------------------------------------------------------
def test_the_docs_examples_play_as_they_say():
    """docs/games/blooms.md's examples: each position and diagram is on the page, and the moves
    do what its words say."""
    from pathlib import Path

    doc = (Path(__file__).resolve().parents[1] / "docs" / "games" / "blooms.md").read_text()
    examples = doc.split("## Examples", 1)[1].split("\n## ", 1)[0]
    g, t = race(size=3), territory(size=3)

    both = ".../..../...../R.../K.. 1 0,0 2 0 0"
    s = g.parse_position(both)
    assert f"`{both}`" in examples and g.diagram(s).rsplit("\n", 1)[0] in examples
    assert [g.play_text(s, m).scores for m in ("Ra2", "Yb2", "Ra2,Yb2")] == [(0, 0), (0, 0),
                                                                              (1, 0)]

    waits = "R../..../...../GK../.K. 1 0,0 4 0 0"
    s = g.parse_position(waits)
    assert f"`{waits}`" in examples and g.diagram(s).rsplit("\n", 1)[0] in examples
    fenced = g.play_text(s, "Ra1")
    assert fenced.captured == 0 and g.position_text(fenced).startswith("R../..../...../GK../RK.")
    after = g.play_text(fenced, "Ke3")
    assert after.captured == 1 and after.scores == (0, 1)

    first = ".../..../...../GRR./.KR 1 0,0 4 0 0"
    s = t.parse_position(first)
    assert f"`{first}`" in examples and t.diagram(s).rsplit("\n", 1)[0] in examples
    legal = t.play_text(s, "Ya1")
    assert legal.captured == 1 and t.scores(legal) == (5, 1)
    without = ".../..../...../GR../.KR 1 0,0 4 0 0"
    assert f"`{without}`" in examples
    with pytest.raises(IllegalMoveError, match="self-fencing"):
        t.play_text(t.parse_position(without), "Ya1")
