"""Free Go: one named test per rule and decision of docs/games/freego.md, built from diagrams/notation."""

from __future__ import annotations

import pytest

import stonegarden
from stonegarden.errors import IllegalMoveError, NotationError, PositionError

from .square_go_helpers import play, split_moves


def position(game, rows, to_move, scores=(0, 0), ply=None):
    """A position from rows (top row first), so tests read like diagrams."""
    if ply is None:
        ply = 10 + (to_move - 1)
    return game.parse_position("/".join(rows) + f" {to_move} {scores[0]},{scores[1]} {ply}")


def stone(game, state, name):
    return ".XO"[state.cells()[game.board.point(name)]]


# -- parameters -------------------------------------------------------------------------------

@pytest.mark.parametrize(("size", "target"), [(5, 3), (6, 4), (7, 6), (9, 10), (13, 21), (19, 45)])
def test_default_target_is_round_size_squared_over_8(size, target):
    assert stonegarden.make("freego", size=size).params["target"] == target


def test_the_docs_default_targets_are_the_games():
    """The decisions table's targets per size, and its sizes where rounding half up would give
    one more (10×10, 14×14 and 18×18 as well as 6×6), are the game's."""
    import math
    import re
    from pathlib import Path

    doc = (Path(__file__).resolve().parents[1] / "docs" / "games" / "freego.md").read_text()
    row = next(line for line in doc.splitlines() if line.startswith("| Default target |"))
    listed = re.findall(r"(\*\*)?(\d+) on (\d+)×\3", row)
    assert len(listed) >= 10
    for _, target, size in listed:
        assert stonegarden.make("freego", size=int(size)).params["target"] == int(target), size
    half_up = {n for n in range(5, 20) if math.floor(n * n / 8 + 0.5) != round(n * n / 8)}
    assert {int(size) for bold, _, size in listed if bold} == half_up == {6, 10, 14, 18}


def test_defaults_are_9x9_target_10_and_simple_ko():
    g = stonegarden.make("freego")
    assert g.params == {"size": 9, "target": 10, "ko": "simple"}
    assert g.count_legal_actions(g.initial_state()) == 81
    for size in (5, 19):
        assert stonegarden.make("freego", size=size).params["size"] == size


def test_sizes_outside_5_to_19_are_rejected():
    for bad in (4, 20):
        with pytest.raises(stonegarden.ParameterError):
            stonegarden.make("freego", size=bad)


# -- captures and suicide ---------------------------------------------------------------------

def test_capture_removes_the_chain_and_scores_for_the_mover():
    g = stonegarden.make("freego", size=5, target=10)
    s = position(g, [".....", "..X..", ".XOX.", ".....", "....."], to_move=1)
    after = g.play_text(s, "C2")
    assert stone(g, after, "C3") == "."
    assert after.captured == 1 and after.scores == (1, 0)


def test_all_dead_opponent_chains_are_removed_at_once():
    g = stonegarden.make("freego", size=5, target=10)
    s = position(g, ["OX...", ".....", "OX...", "X....", "....."], to_move=1)
    after = g.play_text(s, "A4")
    assert after.captured == 2 and after.scores == (2, 0)
    assert stone(g, after, "A5") == "." and stone(g, after, "A3") == "."


def test_suicide_stays_on_the_board_then_scores_for_the_opponent():
    g = stonegarden.make("freego", size=5, target=10)
    s = position(g, [".....", ".....", ".....", "O....", ".O..."], to_move=1)
    after = g.play_text(s, "A1")
    assert stone(g, after, "A1") == "X", "a suicide stays until the opponent's capture step"
    assert after.captured == 0 and after.scores == (0, 0)
    later = g.play_text(after, "E5")  # any move of White removes it
    assert stone(g, later, "A1") == "."
    assert later.captured == 1 and later.scores == (0, 1)


def test_the_stones_a_suicide_left_without_a_liberty_are_named_until_they_are_removed():
    # the board drew them as any stone: a player could not tell the stones that count for
    # nothing, which the next move removes and scores, from those to capture
    g = stonegarden.make("freego", size=5, target=10)
    s = position(g, [".....", ".....", "O....", "XO...", ".O..."], to_move=1)
    assert g.without_liberty(s) == [] and g.status_words(s) == ()
    after = g.play_text(s, "A1")
    assert [g.board.names[p] for p in g.without_liberty(after)] == ["A1", "A2"]
    assert g.status_words(after) == ("no liberty: A1 A2 (the next move removes them and "
                                      "scores them)",)
    later = g.play_text(after, "E5")
    assert g.without_liberty(later) == [] and g.status_words(later) == ()


def test_a_pending_suicide_and_a_new_capture_go_in_one_capture_step():
    g = stonegarden.make("freego", size=5, target=10)
    s = position(g, [".....", "..O..", ".OXO.", "O....", ".O..."], to_move=1)
    s = g.play_text(s, "A1")  # a suicide into White's eye: it stays
    after = g.play_text(s, "C2")  # White takes C3 and, in the same step, the suicided A1
    assert stone(g, after, "A1") == "." and stone(g, after, "C3") == "."
    assert after.captured == 2 and after.scores == (0, 2)


def test_a_suicide_of_several_stones_is_removed_whole():
    g = stonegarden.make("freego", size=5, target=10)
    s = position(g, [".....", ".....", "O....", "XO...", ".O..."], to_move=1)
    after = g.play_text(s, "A1")
    assert stone(g, after, "A1") == "X" and stone(g, after, "A2") == "X"
    later = g.play_text(after, "E5")
    assert later.captured == 2 and later.scores == (0, 2)


def test_a_placement_that_captures_is_not_suicide():
    g = stonegarden.make("freego", size=5, target=10)
    s = position(g, [".....", ".....", "X....", "OX...", ".O..."], to_move=1)
    after = g.play_text(s, "A1")  # takes the last liberty of O at A2 first
    assert stone(g, after, "A2") == "." and stone(g, after, "A1") == "X"
    assert after.scores == (1, 0)
    later = g.play_text(after, "E5")
    assert stone(g, later, "A1") == "X", "it had a liberty after the capture"


def test_suicide_that_fills_the_board_ends_the_game_on_scores():
    g = stonegarden.make("freego", size=5, target=20)
    s = position(g, ["XXXX.", "XXXXX", "XXXXX", "XXXXX", "XXXXX"], to_move=1, scores=(3, 5))
    after = g.play_text(s, "E5")
    assert g.is_terminal(after) and g.result_reason(after) == "no-legal-move"
    assert g.winner(after) == 2, "decision: no legal move -> the higher score wins"


def test_no_legal_move_with_equal_scores_is_a_draw():
    g = stonegarden.make("freego", size=5, target=20)
    s = position(g, ["XXXX.", "XXXXX", "XXXXX", "XXXXX", "XXXXX"], to_move=1, scores=(4, 4))
    after = g.play_text(s, "E5")
    assert g.winner(after) == 0 and g.returns(after) == (0.0, 0.0)


def test_reaching_the_target_wins_at_once():
    g = stonegarden.make("freego", size=5, target=2)
    s = position(g, [".....", "..X..", ".XOX.", ".....", "....."], to_move=1, scores=(1, 1))
    after = g.play_text(s, "C2")
    assert g.is_terminal(after) and g.winner(after) == 1
    assert g.result_reason(after) == "target"
    with pytest.raises(IllegalMoveError, match="over"):
        g.play_text(after, "A1")


# -- ko ---------------------------------------------------------------------------------------

KO = [".....", "..XO.", ".XO.O", "..XO.", "....."]  # Black takes at D3, White may not retake


def test_simple_ko_bans_the_immediate_retake_and_lifts_after_a_move_elsewhere():
    g = stonegarden.make("freego", size=5, target=10, ko="simple")
    taken = g.play_text(position(g, KO, to_move=1), "D3")
    assert taken.captured == 1
    with pytest.raises(IllegalMoveError, match="ko"):
        g.play_text(taken, "C3")
    assert g.board.point("C3") not in g.legal_actions(taken)
    later = play(g, taken, "A5", "A1")  # a threat and its answer
    retaken = g.play_text(later, "C3")
    assert retaken.captured == 1 and stone(g, retaken, "D3") == "."


def test_without_ko_the_retake_is_allowed():
    g = stonegarden.make("freego", size=5, target=10, ko="none")
    taken = g.play_text(position(g, KO, to_move=1), "D3")
    back = g.play_text(taken, "C3")
    assert back.board == position(g, KO, to_move=1).board


def test_simple_ko_also_bans_repeating_a_suicide_exchange():
    g = stonegarden.make("freego", size=7, ko="simple")
    s = position(g, SUICIDE_POCKETS, to_move=1)
    s = play(g, s, "A7", "G7")
    with pytest.raises(IllegalMoveError, match="ko"):
        g.play_text(s, "A7")


# White owns the eyes A7, A5, A3, A1; Black owns G7, G5, G3, G1 (the C..E columns are open)
SUICIDE_POCKETS = [
    ".O...X.",
    "OO...XX",
    ".O...X.",
    "OO...XX",
    ".O...X.",
    "OO...XX",
    ".O...X.",
]


def test_superko_bans_a_longer_cycle_that_simple_ko_allows():
    start = SUICIDE_POCKETS
    for ko, banned in (("superko", True), ("simple", False)):
        g = stonegarden.make("freego", size=7, ko=ko)
        s = play(g, position(g, start, to_move=1), "A7", "G7", "A5", "G5")
        assert s.scores == (1, 2)
        if banned:
            with pytest.raises(IllegalMoveError, match="superko"):
                g.play_text(s, "A7")
        else:
            assert g.play_text(s, "A7").board == play(
                g, position(g, start, to_move=1), "A7").board


def test_superko_compares_the_player_to_move_too():
    # Black E2 takes E3, White E3 takes E2 and E1 back, Black E1 recreates the start board, but
    # with White to move (Black was to move then): not a repetition under superko
    g = stonegarden.make("freego", size=5, target=40, ko="superko")
    start = position(g, [".OOOX", "OOOXX", "XX.XO", "XXOO.", ".XXOX"], to_move=1)
    s = play(g, start, "E2", "E3")
    assert (s.scores[0] - start.scores[0], s.scores[1] - start.scores[1]) == (1, 2)
    after = g.play_text(s, "E1")
    assert after.board == start.board and after.player == 2


# -- notation and positions -------------------------------------------------------------------

def test_moves_are_point_names_without_i_and_there_is_no_pass():
    g = stonegarden.make("freego", size=9)
    s = g.initial_state()
    assert g.action_to_text(s, g.parse_move(s, " j1 ")) == "J1"
    for bad in ("I1", "pass", "K10", "", "D", "4D"):
        with pytest.raises(NotationError):
            g.parse_move(s, bad)
    with pytest.raises(IllegalMoveError, match="occupied"):
        g.play_text(g.play_text(s, "E5"), "E5")


def test_diagram_is_a_go_diagram_that_parses_back():
    g = stonegarden.make("freego", size=5)
    s = play(g, g.initial_state(), "C3", "D4")
    text = g.diagram(s)
    assert text.splitlines()[0].split() == list("ABCDE")
    assert " 3 . . X . . 3" in text.splitlines()
    assert g.position_text(g.parse_diagram(text)) == g.position_text(s)


def test_position_where_the_player_to_move_has_a_dead_chain_is_impossible():
    g = stonegarden.make("freego", size=5)
    with pytest.raises(PositionError, match="without a liberty"):
        position(g, [".....", ".....", ".....", "O....", "XO..."], to_move=1)
    # the same chain is fine when its owner just moved: it waits for White's capture step
    assert position(g, [".....", ".....", ".....", "O....", "XO..."], to_move=2)


def test_position_with_scores_before_anyone_could_capture_is_impossible():
    g = stonegarden.make("freego", size=5)
    for text in ("...../...../...../...../..... 1 1,0 0", "...../...../...../...../X.... 2 0,1 1"):
        with pytest.raises(PositionError, match="before anyone could capture"):
            g.parse_position(text)
    assert g.parse_position("...../...../...../...../X.... 2 0,0 1").ply == 1


def test_observation_planes_follow_the_player_and_mark_the_ko_point():
    g = stonegarden.make("freego", size=5, target=10)
    taken = g.play_text(position(g, KO, to_move=1), "D3")
    white = g.observation_tensor(taken, 2)
    black = g.observation_tensor(taken, 1)
    assert white.shape == g.observation_shape == (7, 5, 5)
    assert (white[0] == black[1]).all() and (white[1] == black[0]).all()
    c, r = g.board.column_row(g.board.point("C3"))
    assert white[3, r, c] == 1 and white[3].sum() == 1
    assert white[4].all() and not black[4].any()
    assert black[5, 0, 0] == 0.1 and white[6, 0, 0] == 0.1


def test_every_empty_point_forbidden_by_superko_ends_the_game_on_scores():
    # found by random play: Black's only empty point C3 would capture all 24 white stones and
    # leave a lone black C3, a position of the game already seen with White to move
    g = stonegarden.make("freego", size=5, target=40, ko="superko")
    moves = split_moves(
        "C3 B4 A3 D5 E1 C4 E4 D2 C2 D3 A1 E3 E2 B1 B5 D4 C5 D1 A5 C1 A4 B2 E2 A2 "
        "E5 A1 E4 E1 E5 E2 E4 E5 E4 B3 C5 A4 B5 A3 C3 A5 C5 E4 B5 C2 C5 B5 C3 C5")
    s = play(g, g.initial_state(), *moves)
    assert g.position_text(s) == "OOOOO/OOOOO/OO.OO/OOOOO/OOOOO 1 0,24 48"
    assert len(g.legal_actions(s)) == 0
    assert g.is_terminal(s) and g.result_reason(s) == "no-legal-move"
    assert g.winner(s) == 2, "decision: the higher score wins"


@pytest.mark.parametrize("ko", ["simple", "superko", "none"])
def test_the_quick_has_a_move_check_never_claims_a_move_that_is_not_there(ko):
    # the search asks is_terminal of every new node; a count of empty points answers it without
    # the legal points when more are empty than ko can forbid (rules.py). Random games to the
    # end on 5x5 with a target out of reach reach full boards and ko bans: at every position
    # the check must agree with the legal points themselves.
    import numpy as np

    g = stonegarden.make("freego", size=5, target=40, ko=ko)
    rng = np.random.default_rng(7)
    quick = full = 0
    for _ in range(25):
        s = g.initial_state()
        while True:
            legal = g._legal(s)
            if g._surely_has_move(s):
                quick += 1
                assert len(legal) > 0, g.position_text(s)
            else:
                full += 1
            assert g.is_terminal(s) == (max(s.scores) >= 40 or len(legal) == 0)
            if g.is_terminal(s):
                break
            s = g.play_unchecked(s, int(legal[rng.integers(len(legal))]))
    assert quick > 0, "the quick answer was used"
    if ko != "none":  # without ko only a full board, which these games do not reach, needs it
        assert full > 0, "the legal points were needed near the end"


# -- the docs' examples ---------------------------------------------------------------------------
@pytest.mark.parametrize("ko", ["simple", "superko", "none"])
def test_the_docs_ko_example_plays_as_it_says(ko):
    from pathlib import Path

    doc = (Path(__file__).resolve().parents[1] / "docs" / "games" / "freego.md").read_text()
    example = doc.split("## Examples", 1)[1].split("\n## ", 1)[0]
    g = stonegarden.make("freego", size=5, ko=ko)
    start = g.parse_position("....X/.XO../XO.O./.XO../..... 1 0,0 8")
    assert g.diagram(start) in example and f"`{g.position_text(start)}`" in example
    took = g.play_text(start, "C3")
    assert took.scores == (1, 0)
    if ko == "none":
        assert g.play_text(took, "B3").captured == 1
    else:
        with pytest.raises(IllegalMoveError, match="ko"):
            g.play_text(took, "B3")
    later = play(g, took, "E1", "A1", "B3")
    assert later.captured == 1 and later.scores == (1, 1)
    assert g.play_text(g.parse_position(g.position_text(took)), "B3").captured == 1


@pytest.mark.parametrize("game_id", ["freego", "bridgego"])
def test_listing_the_legal_points_leaves_the_state_its_fields_alone(game_id):
    """A state is a frozen value: its legal points are memoised beside it, not written on it,
    so it pickles and copies as before (a 19x19 state grew by its memo of 361 points)."""
    import dataclasses
    import pickle

    game = stonegarden.make(game_id, size=19)
    state = game.initial_state()
    size = len(pickle.dumps(state))
    first = game.legal_actions(state)
    assert set(vars(state)) == {f.name for f in dataclasses.fields(state)}
    assert len(pickle.dumps(state)) == size
    assert (game.legal_actions(state) == first).all() and len(first) == 361
