"""Game clocks as values: Fischer and correspondence, flags, downtime, the stored form."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from stonegarden.errors import ParameterError
from stonegarden.web.time_control import DAY, Clock, parse_clock


def test_fischer_charges_the_time_taken_then_adds_the_increment():
    c = Clock.new(parse_clock({"initial": 300, "increment": 5})).start(1, now=1000.0)
    assert c.remaining(1, 1010.0) == 290.0
    assert c.remaining(2, 1010.0) == 300.0  # the waiting clock does not run
    c = c.after_move(1, 2, now=1012.5)
    assert c.left == (300 - 12.5 + 5, 300.0)
    assert c.running == 2 and c.since == 1012.5


def test_a_first_move_costs_nothing_and_gains_the_increment_as_under_fides_rules():
    """No clock runs before a player's first move (the time to open a link is not charged),
    and that move still adds the increment: FIDE's and US Chess's rules give it for move one."""
    c = Clock.new(parse_clock({"initial": 300, "increment": 5})).start(None, now=0.0)
    c = c.after_move(1, None, now=40.0)  # the opponent has not moved yet: no clock runs
    assert c.left == (305.0, 300.0) and c.running is None
    c = c.after_move(2, 1, now=100.0)  # the opponent's first move, free too; then 1's runs
    assert c.left == (305.0, 305.0) and c.running == 1 and c.since == 100.0


def test_fischer_flag_when_the_running_clock_reaches_zero():
    c = Clock.new(parse_clock({"initial": 60, "increment": 0})).start(2, now=0.0)
    assert c.flagged(59.9) is None
    assert c.flagged(60.0) == 2
    assert c.deadline() == 60.0
    assert c.remaining(2, 500.0) == 0.0  # never negative


def test_correspondence_gives_the_next_player_the_full_allowance():
    c = Clock.new(parse_clock({"days_per_move": 2})).start(1, now=0.0)
    c = c.after_move(1, 2, now=1.5 * DAY)
    assert c.left == (2 * DAY, 2 * DAY)
    assert c.remaining(2, 1.5 * DAY + 3600) == 2 * DAY - 3600
    assert c.flagged(3.5 * DAY) == 2


def test_no_clock_runs_after_the_last_move():
    c = Clock.new(parse_clock({"initial": 60})).start(1, now=0.0).after_move(1, None, now=5.0)
    assert c.running is None and c.deadline() is None
    assert c.flagged(10**9) is None


def test_the_move_that_ends_the_game_adds_no_increment():
    c = Clock.new(parse_clock({"initial": 60, "increment": 5})).start(1, now=0.0)
    assert c.after_move(1, None, now=10.0, final=True).left == (50.0, 60.0)
    assert c.after_move(1, None, now=10.0).left == (55.0, 60.0)  # a die to roll next


def test_stored_form_round_trips():
    c = Clock.new(parse_clock({"initial": 90, "increment": 2})).start(1, 7.25).after_move(1, 2, 9.0)
    assert Clock.from_store(c.to_store()) == c
    shown = c.to_json(now=10.0)
    assert shown["1"] == pytest.approx(90 - 1.75 + 2, abs=0.05)
    assert shown["2"] == 89.0 and shown["running"] == 2


@pytest.mark.parametrize("value", [
    5, [], {"initial": 5}, {"initial": 10**9}, {"initial": True}, {"initial": float("nan")},
    {"initial": 60, "increment": -1}, {"initial": 60, "increment": 1000},
    {"days_per_move": 0}, {"days_per_move": 1.5}, {"days_per_move": 30},
    {"initial": 60, "days_per_move": 1}, {"increment": 3}, {"x": 1},
])
def test_bad_clocks_are_refused_with_a_typed_error(value):
    with pytest.raises(ParameterError, match="clock"):
        parse_clock(value)


def test_describe():
    assert parse_clock({"initial": 300, "increment": 3}).describe() == "5 min + 3 s"
    assert parse_clock({"initial": 45}).describe() == "45 s + 0 s"
    assert parse_clock({"days_per_move": 1}).describe() == "1 day a move"
    # minutes and the seconds over them: 100 s read "1.667 min"
    assert parse_clock({"initial": 100, "increment": 2}).describe() == "1 min 40 s + 2 s"
    assert parse_clock({"initial": 90.5}).describe() == "1 min 30.5 s + 0 s"


@given(st.lists(st.floats(min_value=0, max_value=50, allow_nan=False), min_size=1, max_size=30))
def test_fischer_total_time_is_conserved(gaps):
    """Over any sequence of moves, the time left adds up to the allowance plus increments
    minus the time each player used."""
    spec = parse_clock({"initial": 600, "increment": 2})
    c, now, used = Clock.new(spec).start(1, 0.0), 0.0, [0.0, 0.0]
    for i, gap in enumerate(gaps):
        mover = 1 + i % 2
        now += gap
        used[mover - 1] += gap
        c = c.after_move(mover, 3 - mover, now)
    moves = [len(gaps[0::2]), len(gaps[1::2])]
    for seat in (1, 2):
        assert c.left[seat - 1] == pytest.approx(600 + 2 * moves[seat - 1] - used[seat - 1])
