"""Game clocks, kept by the server: Fischer real-time clocks and correspondence clocks.

A clock is a value: :class:`Clock` holds each seat's time left, which seat's clock runs and
since when. Every change is a pure function of the old value and a time stamp (``now``, seconds
since the epoch), so the service stores the value with each move and any server process can
compute who has flagged, at any moment, without having watched the game.

- **Fischer** (``{"initial": S, "increment": I}``): each player starts with ``S`` seconds; a
  move costs the time it took and then adds ``I`` (a first move, never timed, too: FIDE
  gives the increment for move one).
- **Correspondence** (``{"days_per_move": N}``): each move must come within ``N`` days of the
  opponent's; every move gives the next player ``N`` days again.

A clock runs only for a person to move; chance (dice) and the time before the game starts do
not count.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, replace
from typing import Any

from ..core import strict_json
from ..errors import ParameterError, quote

#: ranges of the clock settings (seconds, except days)
INITIAL_RANGE = (10, 3 * 3600)
INCREMENT_RANGE = (0, 180)
DAYS_RANGE = (1, 14)
DAY = 86400.0


@dataclass(frozen=True)
class ClockSpec:
    """The time control: ``kind`` is ``"fischer"`` or ``"correspondence"``."""

    kind: str
    initial: float = 0.0
    increment: float = 0.0
    days_per_move: int = 0

    @property
    def allowance(self) -> float:
        """Seconds each player has at the start (and, in correspondence, after each move)."""
        return self.initial if self.kind == "fischer" else self.days_per_move * DAY

    def to_json(self) -> dict[str, Any]:
        if self.kind == "fischer":
            return {"initial": _num(self.initial), "increment": _num(self.increment)}
        return {"days_per_move": self.days_per_move}

    def describe(self) -> str:
        """The time control in words, as lists show it ("5 min + 3 s", "2 days a move")."""
        if self.kind == "correspondence":
            n = self.days_per_move
            return f"{n} day{'s' if n != 1 else ''} a move"
        # whole minutes and the seconds left over: 100 s read "1.667 min"
        minutes, seconds = divmod(self.initial, 60)
        parts = ([f"{int(minutes)} min"] if minutes else []) + (
            [f"{_num(seconds)} s"] if seconds or not minutes else [])
        return f"{' '.join(parts)} + {_num(self.increment)} s"


def _num(x: float) -> int | float:
    return int(x) if float(x).is_integer() else round(x, 3)


def parse_clock(value: Any) -> ClockSpec | None:
    """The clock of a create request: ``None`` (no clock), ``{"initial", "increment"}`` or
    ``{"days_per_move"}``.

    Raises:
        ParameterError: another shape, a key of the wrong kind, or a value out of its range.
    """
    if value is None:
        return None
    if not isinstance(value, dict):
        raise ParameterError(f"'clock' must be an object or null, not {strict_json.kind(value)}")
    keys = set(value)
    if keys == {"days_per_move"}:
        days = _bounded_number(value, "days_per_move", DAYS_RANGE, integer=True)
        return ClockSpec("correspondence", days_per_move=int(days))
    if keys <= {"initial", "increment"} and "initial" in keys:
        initial = _bounded_number(value, "initial", INITIAL_RANGE)
        increment = _bounded_number(value, "increment", INCREMENT_RANGE) if "increment" in keys \
            else 0.0
        return ClockSpec("fischer", initial=initial, increment=increment)
    raise ParameterError("'clock' is {\"initial\": SECONDS, \"increment\": SECONDS} or "
                         "{\"days_per_move\": DAYS}, not an object with keys "
                         f"{quote(sorted(keys)[:5])}")


def _bounded_number(obj: dict[str, Any], key: str, bounds: tuple[int, int],
                    integer: bool = False) -> float:
    v = obj[key]
    lo, hi = bounds
    kind = "an integer" if integer else "a number"
    ok = isinstance(v, int) and not isinstance(v, bool)
    if not integer:
        ok = ok or (isinstance(v, float) and math.isfinite(v))
    if not ok or not lo <= v <= hi:
        raise ParameterError(f"clock {key!r} must be {kind} in {lo}..{hi}, not "
                             f"{strict_json.show(v)}")
    return float(v)


@dataclass(frozen=True)
class Clock:
    """Time left per seat (``left[0]`` is seat 1's), the seat whose clock runs (or ``None``)
    and the time stamp it started running at; ``present``: whether each seat's holder has
    opened the game (its link, or the join of its open seat), from which on a first move
    is waited for a bounded time (``clock_keeper.abort_deadline``)."""

    spec: ClockSpec
    left: tuple[float, float]
    running: int | None = None
    since: float = 0.0
    present: tuple[bool, bool] = (True, True)

    @classmethod
    def new(cls, spec: ClockSpec) -> Clock:
        return cls(spec, (spec.allowance, spec.allowance), present=(False, False))

    def arrived(self, seat: int) -> Clock:
        """The clock once ``seat``'s holder has opened the game."""
        present = list(self.present)
        present[seat - 1] = True
        return replace(self, present=(present[0], present[1]))

    def remaining(self, seat: int, now: float) -> float:
        """Seconds seat ``seat`` has left at ``now`` (at least 0)."""
        left = self.left[seat - 1]
        if self.running == seat:
            left -= max(0.0, now - self.since)
        return max(0.0, left)

    def flagged(self, now: float) -> int | None:
        """The seat whose time has run out at ``now``, if any."""
        if self.running is not None and self.remaining(self.running, now) <= 0.0:
            return self.running
        return None

    def deadline(self) -> float | None:
        """When the running clock runs out (a time stamp), or ``None`` when none runs."""
        if self.running is None:
            return None
        return self.since + self.left[self.running - 1]

    def start(self, seat: int | None, now: float) -> Clock:
        """Run ``seat``'s clock from ``now`` (``None``: stop), without charging anyone."""
        return replace(self, running=seat, since=now)

    def after_move(self, mover: int, next_seat: int | None, now: float,
                   final: bool = False) -> Clock:
        """The clock after ``mover`` moved at ``now``; ``next_seat`` is the next person to move
        (``None`` when the game is over or no clock should run); ``final``: the move ended the
        game (a resignation too), and adds no increment: the time shown at the end is the
        time the player had left. The caller checks :meth:`flagged` first: a move after the
        flag does not count."""
        left = list(self.left)
        if self.spec.kind == "fischer":
            used = max(0.0, now - self.since) if self.running == mover else 0.0
            left[mover - 1] = max(0.0, left[mover - 1] - used) + (
                0.0 if final else self.spec.increment)
        else:
            left[mover - 1] = self.spec.allowance
            if next_seat is not None:
                left[next_seat - 1] = self.spec.allowance
        return replace(self, left=(left[0], left[1]), running=next_seat, since=now)

    def to_json(self, now: float) -> dict[str, Any]:
        """The snapshot's ``clock``: seconds left per seat at ``now`` and the running seat."""
        return {"1": round(self.remaining(1, now), 1), "2": round(self.remaining(2, now), 1),
                "running": self.running, **self.spec.to_json(),
                "describe": self.spec.describe()}

    def to_store(self) -> dict[str, Any]:
        """What the store keeps (exact values)."""
        return {"spec": self.spec.to_json(), "left": list(self.left),
                "running": self.running, "since": self.since, "present": list(self.present)}

    @classmethod
    def from_store(cls, data: dict[str, Any]) -> Clock:
        """Raises: ParameterError for a stored value of the wrong shape."""
        try:
            spec = parse_clock(data["spec"])
            left = (float(data["left"][0]), float(data["left"][1]))
            running = data["running"]
            since = float(data["since"])
            # a clock stored before presence was kept: both seats count as present
            present = tuple(data.get("present", (True, True)))
        except (KeyError, TypeError, IndexError, ValueError) as exc:
            raise ParameterError(f"stored clock is malformed: {exc!r}") from None
        if (spec is None or running not in (None, 1, 2) or len(present) != 2
                or not all(isinstance(p, bool) for p in present)):
            raise ParameterError("stored clock is malformed")
        return cls(spec, left, running, since, (present[0], present[1]))
