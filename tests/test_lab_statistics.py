"""The lab's statistics against hand-computed values and hand-made sets of games."""

from __future__ import annotations

import math

import pytest

from stonegarden.lab.statistics import (
    balance_text,
    elo_estimate,
    lead_changes,
    leader_at,
    mean_ci,
    summarise,
    wilson,
)
from stonegarden.stats import MatchStats, t95


def test_wilson_interval_matches_the_textbook_value():
    e = wilson(5, 10)
    assert e.value == 0.5
    assert e.low == pytest.approx(0.2366, abs=1e-4) and e.high == pytest.approx(0.7634, abs=1e-4)


def test_wilson_interval_at_zero_successes_is_not_degenerate():
    e = wilson(0, 20)
    assert e.low == 0.0 and e.high == pytest.approx(0.1611, abs=1e-4)


def test_wilson_with_no_games_is_the_whole_range():
    e = wilson(0, 0)
    assert math.isnan(e.value) and (e.low, e.high) == (0.0, 1.0)


def test_mean_interval_uses_the_sample_standard_deviation_and_students_t():
    """Five values: t with 4 degrees of freedom is 2.776 (the normal 1.96 made the interval of
    a few games' mean length 30% too narrow)."""
    e = mean_ci([1, 2, 3, 4, 5])
    half = 2.7764451051977934 * math.sqrt(2.5) / math.sqrt(5)
    assert e.value == 3 and e.low == pytest.approx(3 - half) and e.high == pytest.approx(3 + half)


@pytest.mark.parametrize("df, t", [(1, 12.7062047), (2, 4.3026527), (3, 3.1824463),
                                   (10, 2.2281389), (30, 2.0422725), (100, 1.9839715),
                                   (101, 1.9837310), (1000, 1.9623391)])
def test_students_t_is_the_textbook_value(df, t):
    assert t95(df) == pytest.approx(t, abs=1e-6)


def test_the_mean_of_one_value_has_no_interval():
    """One game's length is not known to the last decimal: [50.000, 50.000] said it was."""
    e = mean_ci([50])
    assert e.value == 50 and math.isnan(e.low) and math.isnan(e.high) and e.n == 1
    assert e.as_dict() == {"value": 50, "low": None, "high": None, "n": 1}


def test_the_mean_of_counts_has_no_negative_interval():
    """Lead changes per game of four games, 0 0 0 3: the normal interval reached -0.74."""
    e = mean_ci([0, 0, 0, 3])
    half = 3.1824463052837064 * 1.5 / 2
    assert e.value == 0.75 and e.low == 0.0 and e.high == pytest.approx(0.75 + half)
    assert mean_ci([-2, 1]).low < -2  # values that can be negative keep the whole interval


def test_a_studys_elo_is_the_one_match_reports():
    # a clean sweep used to be worth 2,400 Elo here (clamped 1e-6 from the end) and 511 in
    # ``match`` (half a game from the end); one convention now serves both
    est = elo_estimate(10, 0, 0)
    assert est.value == pytest.approx(400 * math.log10(19))
    assert est.low == pytest.approx(MatchStats(10, 0, 0).elo_ci95[0])
    assert elo_estimate(30, 10, 0).value == pytest.approx(190.85, abs=0.01)


def test_elo_estimate_is_antisymmetric():
    a = elo_estimate(30, 10, 0)
    b = elo_estimate(10, 30, 0)
    assert a.value == pytest.approx(-b.value) and a.low == pytest.approx(-b.high)


def test_leader_and_lead_changes():
    track = [[0, 0], [1, 0], [1, 2], [1, 2], [3, 2], [3, 3]]
    assert leader_at(track, 2) == 1 and leader_at(track, 3) == 2 and leader_at(track, 6) == 0
    assert lead_changes(track) == 2  # 1 -> 2 -> 1; the final tie does not count


def game(winner, length, reason="target", seats=("a", "b"), track=None, legal=None):
    return {
        "winner": winner, "reason": reason, "moves": ["m"] * length,
        "legal": legal or [10] * length, "score_track": track or [[0, 0]] * length,
        "seats": {"1": seats[0], "2": seats[1]},
    }


def test_summary_of_hand_made_games():
    games = [game(1, 10), game(1, 20), game(2, 30), game(0, 40, reason="no-empty-cell")]
    s = summarise(games)
    assert s["games"] == 4
    assert s["first_player_win_rate"]["value"] == 0.5
    assert s["first_player_score"]["value"] == pytest.approx(2.5 / 4)
    assert s["draw_rate"]["value"] == 0.25
    assert s["length"]["value"] == 25
    assert s["length_histogram"] == {10: 1, 20: 1, 30: 1, 40: 1}
    assert s["end_reasons"]["target"]["value"] == 0.75
    assert s["midgame_leader_wins"] is None  # no scores were ever recorded


def test_summary_midgame_leader_and_head_to_head():
    up1 = [[0, 0], [2, 0], [2, 1], [5, 1]]
    up2 = [[0, 0], [0, 3], [4, 3], [4, 6]]
    games = [game(1, 4, track=up1, seats=("a", "b")), game(1, 4, track=up2, seats=("b", "a"))]
    s = summarise(games, ["a", "b"])
    # game 1: player 1 led at ply 2 and won; game 2: player 2 led at ply 2 but player 1 won
    assert s["midgame_leader_wins"]["value"] == 0.5
    assert s["a_wins"] == 1 and s["b_wins"] == 1
    # a moved first in game 1 (and won), second in game 2 (and lost)
    assert s["a_by_seat"]["first"] == {"games": 1, "a_wins": 1, "b_wins": 0, "draws": 0}
    assert s["a_by_seat"]["second"] == {"games": 1, "a_wins": 0, "b_wins": 1, "draws": 0}
    assert s["lead_changes"]["value"] == 1.0  # none in game 1; 2 -> 1 -> 2 in game 2


def test_a_clean_sweeps_elo_interval_is_open_at_its_end_in_the_summary_and_report():
    """4-0 gave the Elo interval [7, 338]: the figure the sweep is counted as for its top."""
    from stonegarden.lab.study import summary_rows

    games = [game(1 + i % 2, 4, seats=("a", "b") if i % 2 == 0 else ("b", "a"))
             for i in range(4)]
    s = summarise(games, ["a", "b"])
    elo = s["elo_a_minus_b"]
    assert s["a_wins"] == 4 and elo["value"] == pytest.approx(MatchStats(4, 0, 0).elo)
    assert elo["low"] == pytest.approx(MatchStats(4, 0, 0).elo_ci95[0]) and elo["high"] is None
    assert ("Elo A minus B", f"{elo['value']:.0f}", f"[{elo['low']:.0f}, +inf]") in summary_rows(s)
    # without the first move's edge, the sweep is the same figure, open at the same end
    adjusted = s["a_seat_adjusted"]
    assert adjusted["elo"] == pytest.approx(elo["value"], abs=0.05)
    assert adjusted["elo_ci95"][1] is None
    seats_row = next(r for r in summary_rows(s) if r[0].startswith("A's wins-losses-draws"))
    assert seats_row[2].endswith(f"Elo {adjusted['elo']:+.0f} "
                                 f"(95% CI {adjusted['elo_ci95'][0]:+.0f} .. +inf)")


def test_balance_text_reads_the_interval_against_one_half():
    assert balance_text(wilson(18, 20).as_dict()).startswith("favours the first player")
    assert balance_text(wilson(2, 20).as_dict()).startswith("favours the second player")
    assert balance_text(wilson(13, 20).as_dict()).startswith("fair within the interval")


def test_the_mid_game_leaders_row_of_one_game_says_one_game():
    """A study of one game named its row "(of the 1 games with a player ahead)"."""
    from stonegarden.lab.study import summary_rows

    track = [[0, 0], [2, 0], [2, 1], [5, 1]]
    one = summary_rows(summarise([game(1, 4, track=track)]))
    assert any(r[0] == "player ahead at mid-game wins (of the one game with a player ahead)"
               for r in one)
    two = summary_rows(summarise([game(1, 4, track=track)] * 2))
    assert any(r[0] == "player ahead at mid-game wins (of the 2 games with a player ahead)"
               for r in two)
