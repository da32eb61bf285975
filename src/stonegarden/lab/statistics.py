"""Confidence intervals and the summary statistics of a set of self-play games.

Proportions use the Wilson score interval (sensible near 0 and 1 and for small samples);
means use Student's t with the sample standard deviation (the normal approximation's 1.96 is
far too narrow for a few games: 2.78 is right for five)."""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Sequence
from dataclasses import asdict, dataclass
from typing import Any

from .. import stats
from ..core.protocol import Game
from ..stats import Z95, wilson_bounds
from .selfplay import agent_identity


@dataclass(frozen=True)
class Estimate:
    """A value with its 95% interval and the sample size behind it."""

    value: float
    low: float
    high: float
    n: int

    def as_dict(self) -> dict[str, float | int | None]:
        """The fields, a figure that does not exist (the mean of no values) as ``None``: JSON
        has no ``NaN`` or ``Infinity``."""
        return {k: v if not isinstance(v, float) or math.isfinite(v) else None
                for k, v in asdict(self).items()}

    def __str__(self) -> str:
        return f"{self.value:.3f} [{self.low:.3f}, {self.high:.3f}] (n={self.n})"


def wilson(successes: float, n: int, z: float = Z95) -> Estimate:
    """Wilson score interval for a proportion (``successes`` may be fractional: draws = 1/2)."""
    if n <= 0:
        return Estimate(math.nan, 0.0, 1.0, 0)
    low, high = wilson_bounds(successes, n, z)
    return Estimate(successes / n, low, high, n)


def mean_ci(values: Sequence[float]) -> Estimate:
    """Mean with its 95% interval by Student's t (n - 1 degrees of freedom); one value gives
    no interval (its bounds are NaN: ``None`` in JSON), not one of no width. The interval of
    values none of which is negative (lengths, counts) does not go below 0."""
    n = len(values)
    if n == 0:
        return Estimate(math.nan, math.nan, math.nan, 0)
    m = sum(values) / n
    if n < 2:
        return Estimate(m, math.nan, math.nan, n)
    sd = math.sqrt(sum((v - m) ** 2 for v in values) / (n - 1))
    half = stats.t95(n - 1) * sd / math.sqrt(n)
    low = m - half if min(values) < 0 else max(0.0, m - half)
    return Estimate(m, low, m + half, n)


def elo_estimate(wins: int, losses: int, draws: int) -> Estimate:
    """Elo of A minus B with the interval mapped from the Wilson interval of the score, as
    ``match`` reports it (``stats.MatchStats``: a clean sweep is counted half a game from the
    end, and its interval's open end is infinite: ``None`` in ``as_dict``)."""
    m = stats.MatchStats(wins, losses, draws)
    if m.games == 0:
        return Estimate(0.0, -math.inf, math.inf, 0)
    lo, hi = m.elo_ci95
    return Estimate(m.elo, lo, hi, m.games)


def leader_at(track: Sequence[Sequence[int]], ply: int) -> int:
    """1 or 2 for the player ahead on score after ``ply`` entries, 0 when level."""
    if ply <= 0 or not track:
        return 0
    s1, s2 = track[min(ply, len(track)) - 1]
    return 1 if s1 > s2 else 2 if s2 > s1 else 0


def lead_changes(track: Sequence[Sequence[int]]) -> int:
    """How often the player ahead on score changed (ties do not end a lead)."""
    changes, last = 0, 0
    for s1, s2 in track:
        lead = 1 if s1 > s2 else 2 if s2 > s1 else 0
        if lead and last and lead != last:
            changes += 1
        if lead:
            last = lead
    return changes


def summarise(games: Sequence[dict[str, Any]], agents: Sequence[str] | None = None,
              game: Game | None = None) -> dict[str, Any]:
    """The study's statistics from its games (see ``docs/lab.md`` for each definition);
    ``agents`` A and B are told apart as ``agent_identity`` does in ``game``."""
    n = len(games)
    p1 = sum(1 for g in games if g["winner"] == 1)
    draws = sum(1 for g in games if g["winner"] == 0)
    lengths = [len(g["moves"]) for g in games]
    out: dict[str, Any] = {
        "games": n,
        "first_player_win_rate": wilson(p1, n).as_dict(),
        "first_player_score": wilson(p1 + 0.5 * draws, n).as_dict(),
        "draw_rate": wilson(draws, n).as_dict(),
        "length": mean_ci(lengths).as_dict(),
        "length_histogram": dict(sorted(Counter(lengths).items())),
    }
    branching = [c for g in games for c in g["legal"] if c > 0]
    out["branching_factor"] = mean_ci(branching).as_dict()
    longest = max(lengths, default=0)
    per_ply = []
    for ply in range(longest):
        vals = [g["legal"][ply] for g in games if ply < len(g["legal"]) and g["legal"][ply] > 0]
        per_ply.append(mean_ci(vals).as_dict() if vals else None)
    out["branching_by_ply"] = per_ply
    scored = [g for g in games if any(any(s) for s in g["score_track"])]
    if scored:
        led, leader_won = 0, 0
        for g in scored:
            lead = leader_at(g["score_track"], len(g["moves"]) // 2)
            if lead:
                led += 1
                leader_won += g["winner"] == lead
        out["midgame_leader_wins"] = wilson(leader_won, led).as_dict()
        out["lead_changes"] = mean_ci([lead_changes(g["score_track"]) for g in scored]).as_dict()
    else:
        out["midgame_leader_wins"] = None  # games without a running score (Bridge Go, Blobs)
        out["lead_changes"] = None
    reasons = Counter(str(g["reason"]) for g in games)
    out["end_reasons"] = {r: wilson(k, n).as_dict() for r, k in sorted(reasons.items())}
    if agents and len(agents) == 2 and (agent_identity(agents[0], game)
                                        != agent_identity(agents[1], game)):
        # a game stored under another spelling of A (a study resumed with its options in
        # another order, or a default written out) is A's
        a = agent_identity(agents[0], game)
        by_seat = {name: _head_to_head([g for g in games
                                        if agent_identity(g["seats"][seat], game) == a], a, game)
                   for name, seat in (("first", "1"), ("second", "2"))}
        a_wins = sum(t["a_wins"] for t in by_seat.values())
        b_wins = sum(t["b_wins"] for t in by_seat.values())
        out["a_wins"], out["b_wins"], out["a_by_seat"] = a_wins, b_wins, by_seat
        out["a_seat_adjusted"] = stats.seat_adjusted(
            *(stats.MatchStats(t["a_wins"], t["b_wins"], t["draws"]) for t in by_seat.values()))
        out["a_score"] = wilson(a_wins + 0.5 * draws, n).as_dict()
        out["elo_a_minus_b"] = elo_estimate(a_wins, b_wins, draws).as_dict()
    return out


def _head_to_head(games: Sequence[dict[str, Any]], a: str, game: Game | None) -> dict[str, int]:
    """A's wins, losses and draws in ``games`` (where the first player's edge shows)."""
    wins = sum(1 for g in games if g["winner"] in (1, 2)
               and agent_identity(g["seats"][str(g["winner"])], game) == a)
    draws = sum(1 for g in games if g["winner"] == 0)
    return {"games": len(games), "a_wins": wins, "b_wins": len(games) - wins - draws,
            "draws": draws}


def balance_text(score: dict[str, Any]) -> str:
    """Which player the first player's ``score`` (an ``Estimate.as_dict``) favours, and how
    sure that is: whether its 95% interval lies above 1/2, below it, or holds it."""
    if score["low"] > 0.5:
        return "favours the first player (the whole interval is above 1/2)"
    if score["high"] < 0.5:
        return "favours the second player (the whole interval is below 1/2)"
    return "fair within the interval (no advantage shown for either player)"


def wld(tally: dict[str, int]) -> str:
    """``a_wins-b_wins-draws`` of a seat's tally, as the reports print it."""
    return f"{tally['a_wins']}-{tally['b_wins']}-{tally['draws']}"


def seat_text(adjusted: dict[str, Any] | None) -> str:
    """``stats.seat_adjusted``'s figures as the reports print them ('' without both seats)."""
    if adjusted is None:
        return ""
    lo, hi = adjusted["elo_ci95"]
    return (f"; without the first move's edge ({adjusted['first_move_elo']:+.0f}) "
            f"Elo {adjusted['elo']:+.0f} (95% CI {elo_bound_text(lo, '-')} .. "
            f"{elo_bound_text(hi, '+')})")


def elo_bound_text(elo: float | None, side: str) -> str:
    """An Elo interval's bound as the reports print it: ``+166``, or ``-inf``/``+inf``
    (``side``) for a sweep's open end (``None`` in the JSON)."""
    return f"{side}inf" if elo is None else f"{elo:+.0f}"
