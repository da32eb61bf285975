"""Match statistics: score, Elo difference and its 95% confidence interval.

The score of A is ``(wins + draws/2) / games``; Elo difference ``-400 log10(1/s - 1)``. The
interval is Wilson's 95% score interval (sound for small matches and for 0 or 100%: a draw
counts as half a win, which slightly overstates the spread when there are draws), mapped
through the same Elo formula. A score of 0 or 1 has no finite Elo: a clean sweep's score is
moved half a game from the end (counting at least two games), as is customary for small
matches, while its interval's open end stays infinite (the bound at the moved score read as
though the sweep's Elo were at most what it was counted as); every other figure is used as it
is.

``seat_adjusted`` also gives the Elo difference with the first move's advantage taken out
(below), for games whose first player wins most games between equals: there the plain score
of a seat-alternating match is pulled towards one half whatever the difference in strength.
"""

from __future__ import annotations

import functools
import math
from dataclasses import dataclass

from .errors import ParameterError

Z95 = 1.959963984540054


def elo_from_score(score: float) -> float:
    """Elo difference of a score fraction strictly between 0 and 1.

    Raises:
        ParameterError: a score outside (0, 1).
    """
    if not 0.0 < score < 1.0:
        raise ParameterError(
            f"a score fraction for Elo must lie strictly between 0 and 1, not {score!r}")
    return -400.0 * math.log10(1.0 / score - 1.0) + 0.0  # an even score is 0, not -0


@functools.lru_cache(maxsize=256)
def t95(df: int) -> float:
    """Student's t for a two-sided 95% interval with ``df`` degrees of freedom (12.71 for one,
    2.78 for four, 1.98 for a hundred; Z95 in the limit): the width of an interval of a mean
    from few values, whose spread is estimated from the values themselves.

    Raises:
        ParameterError: ``df`` below 1.
    """
    if df < 1:
        raise ParameterError(f"Student's t needs at least 1 degree of freedom, not {df!r}")
    if df > 100:  # Abramowitz and Stegun 26.7.5: within 1e-9 here
        z = Z95
        g = ((z**3 + z) / 4, (5 * z**5 + 16 * z**3 + 3 * z) / 96,
             (3 * z**7 + 19 * z**5 + 17 * z**3 - 15 * z) / 384,
             (79 * z**9 + 776 * z**7 + 1482 * z**5 - 1920 * z**3 - 945 * z) / 92160)
        return z + sum(gk / df ** (k + 1) for k, gk in enumerate(g))
    low, high = Z95, 13.0
    for _ in range(60):  # bisection on the exact P(|T| <= t) (Abramowitz and Stegun 26.7.3-4)
        mid = (low + high) / 2
        if _t_inside(mid, df) < 0.95:
            low = mid
        else:
            high = mid
    return (low + high) / 2


def _t_inside(t: float, df: int) -> float:
    """P(|T| <= t) for Student's T with ``df`` degrees of freedom, by its finite series."""
    theta = math.atan(t / math.sqrt(df))
    c2 = math.cos(theta) ** 2
    term = total = 1.0
    if df % 2:
        for k in range(1, (df - 1) // 2):
            term *= 2 * k / (2 * k + 1) * c2
            total += term
        tail = math.sin(theta) * math.cos(theta) * total if df > 1 else 0.0
        return 2 / math.pi * (theta + tail)
    for k in range(1, df // 2):
        term *= (2 * k - 1) / (2 * k) * c2
        total += term
    return math.sin(theta) * total


def wilson_bounds(successes: float, n: int, z: float = Z95) -> tuple[float, float]:
    """Wilson's score interval of a proportion (``successes`` may be fractional: draws = 1/2);
    (0, 1) when ``n`` is 0."""
    if n <= 0:
        return 0.0, 1.0
    p, z2 = successes / n, z * z
    centre = (p + z2 / (2 * n)) / (1 + z2 / n)
    half = z / (1 + z2 / n) * math.sqrt(p * (1 - p) / n + z2 / (4 * n * n))
    # at none or all, the bound is exactly 0 or 1 (the rounding left 3e-17 in the reports)
    low = 0.0 if successes <= 0 else max(0.0, centre - half)
    high = 1.0 if successes >= n else min(1.0, centre + half)
    return low, high


@dataclass(frozen=True)
class MatchStats:
    """Wins, losses and draws of A against B, with A's score and Elo (A minus B)."""

    a_wins: int
    b_wins: int
    draws: int

    def __post_init__(self) -> None:
        if min(self.a_wins, self.b_wins, self.draws) < 0:
            raise ParameterError(f"negative game counts in {self!r}")

    @property
    def games(self) -> int:
        return self.a_wins + self.b_wins + self.draws

    @property
    def score(self) -> float:
        """A's mean score (0.5 when no game was played)."""
        if self.games == 0:
            return 0.5
        return (self.a_wins + 0.5 * self.draws) / self.games

    def _finite(self, s: float) -> float:
        """``s`` with a clean sweep's 0 or 1 moved half a game from the end (counting at
        least two games, so one won game is not worth 0 Elo), since those have no finite
        Elo; any other score is left as it is."""
        half = 0.5 / max(self.games, 2)
        if s <= 1e-9:  # Wilson's bound for a clean sweep is 0 or 1 up to rounding
            return half
        return 1.0 - half if s >= 1.0 - 1e-9 else s

    @property
    def elo(self) -> float:
        if self.games == 0:
            return 0.0
        return elo_from_score(self._finite(self.score))

    @property
    def score_ci95(self) -> tuple[float, float]:
        """Wilson's 95% interval of the score."""
        return wilson_bounds(self.a_wins + 0.5 * self.draws, self.games)

    @property
    def elo_ci95(self) -> tuple[float, float]:
        """Elo bounds of the 95% interval of the score; a bound of 0 or 1 (a clean sweep's
        open end) is -inf or +inf: 10-0 is at least +166, not +166 to +512, the figure
        ``elo`` counts the sweep as."""
        if self.games == 0:
            return (-math.inf, math.inf)
        return _elo_bound(self.score_ci95[0]), _elo_bound(self.score_ci95[1])


def _elo_bound(score: float) -> float:
    """The Elo of an interval's bound: infinite at 0 or 1 (Wilson's bounds are exactly those
    at a clean sweep)."""
    if score <= 0.0:
        return -math.inf
    return math.inf if score >= 1.0 else elo_from_score(score)


#: Elo points per unit of logit: Elo = ELO_PER_LOGIT * ln(s / (1 - s))
ELO_PER_LOGIT = 400.0 / math.log(10.0)


def seat_adjusted(first: MatchStats, second: MatchStats) -> dict[str, object] | None:
    """A's Elo over B with the first move's advantage taken out, from A's results moving
    first and moving second; ``None`` unless A has played both seats.

    The model is Bradley-Terry with a seat term, as BayesElo's ``advantage``: A moving first
    scores ``sigma(d + f)``, moving second ``sigma(d - f)`` (in Elo units), so ``d`` is the
    mean and ``f`` half the difference of the two seats' Elo figures. Each seat's figure is its
    score's Elo; the 95% interval of ``d`` is the normal one from the delta method,
    ``Var = (v1 + v2) / 4`` with ``v = (ELO_PER_LOGIT)**2 / (n s (1 - s))`` per seat: rough
    for a handful of games. A seat swept (A won or lost all its games there) is treated as
    ``MatchStats`` treats a swept match: its score is moved half a game of the match from the
    end (so a clean sweep's ``d`` is the plain ``elo``), and since that seat's Elo has no
    bound, neither has ``d`` on its side: that end of the interval is ``None`` (infinite; JSON
    has no infinity), as the plain interval's open end is.
    Returns ``elo`` (d), ``elo_ci95`` and ``first_move_elo`` (f: what moving first is worth
    between these two players)."""
    if first.games == 0 or second.games == 0:
        return None
    # half a game of the whole match, as MatchStats moves a swept match's score
    whole = MatchStats(first.a_wins + second.a_wins, first.b_wins + second.b_wins,
                       first.draws + second.draws)
    figures, variances = [], []
    for st in (first, second):
        s = whole._finite(st.score)
        figures.append(elo_from_score(s))
        variances.append(ELO_PER_LOGIT ** 2 / (st.games * s * (1.0 - s)))
    d = (figures[0] + figures[1]) / 2
    half = Z95 * math.sqrt(sum(variances) / 4)
    f = (figures[0] - figures[1]) / 2
    # a seat A lost or won every game of leaves that side of the interval open
    low = None if min(first.score, second.score) <= 0.0 else round(d - half, 1)
    high = None if max(first.score, second.score) >= 1.0 else round(d + half, 1)
    return {"elo": round(d, 1) + 0.0, "elo_ci95": [low, high],
            "first_move_elo": round(f, 1) + 0.0}  # + 0.0: no -0.0 in the JSON
