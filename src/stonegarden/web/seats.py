"""Who sits in a game's seats: a person (``human``), nobody yet (``open``, waiting in the
lobby) or an agent's spec; a new game's names and clock checked against them; and what the
seats allow (hints between two people, undo against an agent, the computer's analysis)."""

from __future__ import annotations

import re
from typing import Any

from ..core import strict_json
from ..errors import StonegardenError
from .http import ApiError
from .live import Live
from .names import clean_name
from .time_control import ClockSpec, parse_clock

HUMAN = "human"
#: a seat waiting for someone to join (the lobby)
OPEN = "open"


def seat_words(spec: str) -> str:
    """``human`` -> "a person", ``open`` -> "an open seat", ``level:3`` -> "computer, level 3",
    other specs as they are."""
    if spec == HUMAN:
        return "a person"
    if spec == OPEN:
        return "an open seat"
    level = level_of(spec)
    return f"computer, level {level}" if level else f"computer ({spec})"


def agent_named(spec: str) -> str:
    """An agent in a notice: ``level:3`` -> "the computer (level 3)", as the page names it,
    not by its spec; other specs as they are ("the agent 'mcts:time=2'")."""
    level = level_of(spec)
    return f"the computer (level {level})" if level else f"the agent {spec!r}"


def level_of(spec: str) -> str | None:
    """The level a spec seats (``level:3`` -> "3"), or None for any other spec."""
    m = re.fullmatch(r"level:([1-6])", spec.strip())
    return m.group(1) if m else None


def seating(seats: tuple[str, str], name: Any, clock: Any, seat: Any,
            ) -> tuple[tuple[str | None, str | None], ClockSpec | None]:
    """The names and time control of a new game, checked against its seats.

    Raises:
        ApiError: 400 for a bad name, seat or clock; two open seats; an open seat or a clock
        in a game that is not between two people.
    """
    if seats.count(OPEN) > 1:
        raise ApiError(400, "at most one seat may be 'open' (the other is yours)")
    if OPEN in seats and HUMAN not in seats:
        raise ApiError(400, "an 'open' seat waits for a person to play you: the other seat "
                            "must be 'human'")
    try:
        spec = parse_clock(clock)
    except StonegardenError as exc:
        raise ApiError(400, str(exc)) from None
    if spec is not None and not all(s in (HUMAN, OPEN) for s in seats):
        raise ApiError(400, "a clock is for games between two people ('human' or 'open' "
                            "seats)")
    if seat is not None and (not isinstance(seat, int) or isinstance(seat, bool)
                             or seat not in (1, 2) or seats[seat - 1] != HUMAN):
        raise ApiError(400, "'seat' must be the number of a 'human' seat, not "
                            f"{strict_json.show(seat)}")
    names: list[str | None] = [None, None]
    if name is not None:
        mine = seat if seat is not None else next((i + 1 for i, s in enumerate(seats)
                                                   if s == HUMAN), None)
        if mine is None:
            raise ApiError(400, "'name' is a person's: this game has no 'human' seat")
        try:
            names[mine - 1] = clean_name(name)
        except StonegardenError as exc:
            raise ApiError(400, str(exc)) from None
    return (names[0], names[1]), spec


def hints_allowed(live: Live) -> bool:
    """Against an agent always; between two people if both agreed when the game was made (a
    game with an open seat waits for a person, who has agreed to nothing)."""
    return live.hints_agreed or any(s not in (HUMAN, OPEN) for s in live.seats)


def opponent_is_agent(live: Live, seat: int) -> bool:
    return live.seats[2 - seat] != HUMAN


def may_undo(live: Live, seat: int) -> bool:
    """A person playing an agent. Between two people an undo would need the other's consent;
    the link to an agent's seat (two agents to watch) has no turn of its own to go back to."""
    return live.seats[seat - 1] == HUMAN and opponent_is_agent(live, seat)


def may_abort(live: Live) -> bool:
    """A game between two people, going on, in which not both have made a move of their own
    yet: either player may end it with no winner (``GameService.abort``)."""
    return (live.seats == (HUMAN, HUMAN) and live.over is None
            and not live.game.is_terminal(live.state) and not {1, 2} <= set(live.history.movers))


def may_see_analysis(live: Live, seat: int | None) -> bool:
    """Everyone once the game is over. While it goes on, a person playing sees it only where
    both seats agreed to the computer's help when the game was made (``hints_agreed``: an
    uploaded game, whose seats are both its uploader's, is for study); else it would help
    them play. Spectators, and the link to an agent's seat, see it where the players may
    have the computer's help anyway (``hints_allowed``): a player can watch as a spectator
    by leaving out its secret."""
    if live.game.is_terminal(live.state) or live.over is not None or live.hints_agreed:
        return True
    return (seat is None or live.seats[seat - 1] != HUMAN) and hints_allowed(live)
