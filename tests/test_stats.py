"""Elo and confidence intervals against values worked out by hand."""

from __future__ import annotations

import math

import pytest

from stonegarden.errors import ParameterError
from stonegarden.stats import Z95, MatchStats, elo_from_score, seat_adjusted


def test_an_even_score_is_zero_elo():
    assert elo_from_score(0.5) == 0.0


def test_three_to_one_is_400_log10_3_elo():
    # s = 0.75: -400 log10(1/0.75 - 1) = 400 log10 3 = 190.8485...
    assert elo_from_score(0.75) == pytest.approx(190.8485, abs=1e-4)
    assert elo_from_score(0.25) == pytest.approx(-190.8485, abs=1e-4)


@pytest.mark.parametrize("score", [0.0, 1.0, -0.1, 1.5, math.nan])
def test_scores_without_a_finite_elo_are_rejected(score):
    with pytest.raises(ParameterError, match="strictly between 0 and 1"):
        elo_from_score(score)


def test_75_of_100_wilson_interval():
    # Wilson, z = 1.96: centre (0.75 + 0.019207) / 1.038415 = 0.740750;
    # half 1.96/1.038415 * sqrt(0.001875 + 0.000096) = 0.083797 -> (0.65695, 0.82455)
    st = MatchStats(75, 25, 0)
    assert st.games == 100
    assert st.score == 0.75
    lo, hi = st.score_ci95
    assert lo == pytest.approx(0.6570, abs=2e-4)
    assert hi == pytest.approx(0.8245, abs=2e-4)
    elo_lo, elo_hi = st.elo_ci95
    assert elo_lo == pytest.approx(-400 * math.log10(1 / lo - 1))
    assert elo_lo < st.elo < elo_hi


def test_a_clean_sweep_is_clamped_half_a_game_from_the_end_and_its_interval_stays_open():
    # 10 of 10 -> s clamped to 0.95 -> 400 log10 19 = 511.5; Wilson lower bound 0.7225
    st = MatchStats(10, 0, 0)
    assert st.elo == pytest.approx(400 * math.log10(19))
    assert st.score_ci95[0] == pytest.approx(0.7225, abs=2e-4)
    # the upper bound was the clamped figure, +511.5: as if 10-0 showed at most that
    assert st.elo_ci95 == (pytest.approx(elo_from_score(st.score_ci95[0])), math.inf)
    lost = MatchStats(0, 10, 0)
    assert lost.elo == pytest.approx(-st.elo)
    assert lost.elo_ci95 == (-math.inf, pytest.approx(-st.elo_ci95[0]))


def test_draws_count_half():
    st = MatchStats(3, 1, 2)
    assert st.score == pytest.approx(4 / 6)
    assert st.elo == pytest.approx(400 * math.log10(2))


def test_no_games_means_no_information():
    st = MatchStats(0, 0, 0)
    assert st.score == 0.5 and st.elo == 0.0
    assert st.elo_ci95 == (-math.inf, math.inf)


def test_negative_counts_are_rejected():
    with pytest.raises(ParameterError, match="negative"):
        MatchStats(-1, 0, 0)


def test_one_won_game_is_a_positive_elo_with_an_honest_interval():
    # 1 of 1 used to be clamped to 0.5: Elo 0 with the interval (0, 0), as if certain
    st = MatchStats(1, 0, 0)
    assert st.elo == pytest.approx(400 * math.log10(3))  # 0.75: half of two games from the end
    lo, hi = st.elo_ci95
    assert lo == pytest.approx(elo_from_score(st.score_ci95[0]))  # Wilson's 0.2065, not clamped
    assert lo < 0 < st.elo < hi == math.inf


def test_interval_bounds_inside_zero_and_one_are_not_narrowed():
    # 1-1: Wilson (0.0945, 0.9055); a clamp half a game from the end would narrow it to
    # (0.25, 0.75)
    st = MatchStats(1, 1, 0)
    lo, hi = st.elo_ci95
    assert lo == pytest.approx(elo_from_score(st.score_ci95[0]))
    assert hi == pytest.approx(-lo)
    assert hi > 380


def test_seat_adjusted_elo_takes_the_first_move_out():
    # A moving first 14-3 (Elo 400 log10(14/3) = +267.6), second 6-11 (400 log10(6/11) =
    # -105.3): d = +81.2, f = +186.4; plain score 20/34 = 0.588 is only +62
    adj = seat_adjusted(MatchStats(14, 3, 0), MatchStats(6, 11, 0))
    assert adj["elo"] == pytest.approx(81.2, abs=0.05)
    assert adj["first_move_elo"] == pytest.approx(186.4, abs=0.05)
    # delta method: v = (400/ln 10)^2 / (n s (1 - s)) per seat -> 12,240 and 7,775
    lo, hi = adj["elo_ci95"]
    v1 = (400 / math.log(10)) ** 2 / (17 * (14 / 17) * (3 / 17))
    v2 = (400 / math.log(10)) ** 2 / (17 * (6 / 17) * (11 / 17))
    assert hi - adj["elo"] == pytest.approx(1.959964 * math.sqrt((v1 + v2) / 4), abs=0.1)
    assert adj["elo"] - lo == pytest.approx(hi - adj["elo"], abs=0.1)


def test_seat_adjusted_elo_without_a_seat_effect_is_the_plain_elo():
    even = seat_adjusted(MatchStats(15, 5, 0), MatchStats(15, 5, 0))
    assert even["elo"] == pytest.approx(MatchStats(30, 10, 0).elo, abs=0.05)
    assert even["first_move_elo"] == 0.0
    swapped = seat_adjusted(MatchStats(5, 15, 0), MatchStats(5, 15, 0))
    assert swapped["elo"] == -even["elo"]


def test_seat_adjusted_elo_needs_both_seats_and_survives_a_clean_sweep():
    assert seat_adjusted(MatchStats(3, 0, 0), MatchStats(0, 0, 0)) is None
    sweep = seat_adjusted(MatchStats(5, 0, 0), MatchStats(0, 5, 0))  # the seat decides all
    assert sweep["elo"] == 0.0 and sweep["first_move_elo"] > 300
    # each seat's Elo is unbounded, one up, one down: the games bound d on neither side
    assert sweep["elo_ci95"] == [None, None]


@pytest.mark.parametrize("first, second", [((2, 0, 0), (2, 0, 0)), ((5, 0, 0), (5, 0, 0)),
                                           ((3, 0, 0), (2, 0, 0)), ((0, 6, 0), (0, 6, 0))])
def test_seat_adjusted_elo_of_a_clean_sweep_is_the_plain_one_with_its_open_end(first, second):
    """A clean sweep read +338 (95% CI +7 .. +inf) plain but +191 (-202 .. +584) without the
    first move's edge: each seat was moved half a game of its own games and its interval
    closed with the moved figure."""
    whole = MatchStats(*(x + y for x, y in zip(first, second)))
    adj = seat_adjusted(MatchStats(*first), MatchStats(*second))
    assert adj["elo"] == pytest.approx(whole.elo, abs=0.05)
    assert adj["first_move_elo"] == 0.0
    lo, hi = adj["elo_ci95"]
    if whole.a_wins:
        assert hi is None and whole.elo_ci95[1] == math.inf and lo < adj["elo"]
    else:
        assert lo is None and whole.elo_ci95[0] == -math.inf and hi > adj["elo"]


def test_seat_adjusted_interval_is_open_where_one_seat_is_swept():
    # A won all 10 moving first: that seat's Elo, and so d, has no upper bound
    adj = seat_adjusted(MatchStats(10, 0, 0), MatchStats(5, 5, 0))
    assert adj["elo_ci95"][1] is None and adj["elo_ci95"][0] < adj["elo"]
    assert adj["elo"] > 0 and adj["first_move_elo"] > 0


@pytest.mark.parametrize("n", [7, 9, 10, 12, 13, 25, 100])
def test_no_successes_or_all_of_them_bound_the_interval_at_exactly_0_or_1(n):
    """Rounding left 2.8e-17 and 0.9999999999999999 in summaries and reports."""
    from stonegarden.stats import wilson_bounds

    assert wilson_bounds(0, n)[0] == 0.0 and wilson_bounds(n, n)[1] == 1.0
    high = wilson_bounds(0, n)[1]
    assert high == pytest.approx(Z95**2 / (n + Z95**2))  # the textbook upper bound at p = 0
