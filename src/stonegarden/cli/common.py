"""What the sub-commands share: building a game from ``--param`` options, and turning
stonegarden errors into a one-line message with exit status 2."""

from __future__ import annotations

import functools
import math
import os
import sys
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Any, TypeVar

import click
from click.core import ParameterSource

from ..core.numbers import decimal_number, whole_number
from ..core.params import parse_param_options
from ..core.protocol import Game
from ..core.registry import make
from ..errors import ParameterError, RecordError, StonegardenError, quote

if TYPE_CHECKING:
    from ..core.record import Record

F = TypeVar("F", bound=Callable[..., Any])

param_option = click.option(
    "--param", "params", multiple=True, metavar="NAME=VALUE",
    help="a game parameter, e.g. --param size=5 (repeatable)",
)


#: more digits than any option's range holds: refused as too large before Python converts them
#: (it converts no more than 4300, and click would print the whole number in its message)
_MOST_DIGITS = 30


class WholeRange(click.IntRange):
    """``click.IntRange`` reading ASCII digits only, as agent specs and game parameters do
    (``core.numbers``): click reads with ``int``, which takes ``5_0`` for 50 and Arabic-Indic
    or other Unicode digits for theirs, a number other than the one its reader sees."""

    def convert(self, value: Any, param: click.Parameter | None,
                ctx: click.Context | None) -> Any:
        if isinstance(value, str):
            value = _read_number(self, whole_number, "a whole number (digits 0-9 only)", value,
                                 param, ctx)
        return super().convert(value, param, ctx)

    def _describe_range(self) -> str:
        """No range where there is none (``--ply``, whose range is the record's): click's
        wrote ``[x<=None]`` in the help."""
        return "" if self.min is None and self.max is None else super()._describe_range()


class FiniteRange(click.FloatRange):
    """``click.FloatRange`` reading ASCII digits, a point and an exponent only (as
    ``WholeRange``; ``float`` also takes ``inf``, and ``nan``, which compares false with both
    bounds and so passes any range), and a finite number only (``1e999`` is ``inf``)."""

    name = "finite float range"

    def convert(self, value: Any, param: click.Parameter | None,
                ctx: click.Context | None) -> Any:
        if isinstance(value, str):
            value = _read_number(self, decimal_number, "a number (digits 0-9, and a point: 2.5)",
                                 value, param, ctx)
        return super().convert(value, param, ctx)


def _read_number(kind: click.FloatRange | click.IntRange, read: Callable[[str], float],
                 what: str, value: str, param: click.Parameter | None,
                 ctx: click.Context | None) -> float:
    """``value`` read by ``read`` (``core.numbers``), or ``kind``'s one-line refusal."""
    shown = quote(value, 40)
    too_large = (f"{shown} is not in the range {kind._describe_range()}."
                 if kind.min is not None or kind.max is not None else f"{shown} is too large.")
    digits = value.strip(" \t").lstrip("+-").partition(".")[0].partition("e")[0].lstrip("0")
    if len(digits) > _MOST_DIGITS and digits.isascii() and digits.isdigit():
        kind.fail(too_large, param, ctx)
    try:
        number = read(value)
    except ValueError:
        kind.fail(f"{shown} is not {what}.", param, ctx)
    if not math.isfinite(number):
        kind.fail(too_large, param, ctx)
    return number


class NamedPath(click.Path):
    """``click.Path`` that refuses an empty name (``--save "$FILE"`` with ``FILE`` unset),
    which would otherwise mean no file at all, or the current folder."""

    def convert(self, value: Any, param: click.Parameter | None,
                ctx: click.Context | None) -> Any:
        if isinstance(value, str) and not value.strip():
            self.fail("an empty name is no file or folder (an unset variable?)", param, ctx)
        if (isinstance(value, str) and not self.dir_okay
                and os.path.basename(value) in ("", ".", "..")):
            # click checks only a folder that exists, and Path("games/") is "games": the
            # record would be a file named as the folder meant
            self.fail(f"{value!r} is a folder, not a file name", param, ctx)
        return super().convert(value, param, ctx)


class NamedText(click.ParamType):
    """Text that may not be empty: ``--db "$DB"`` with ``DB`` unset would otherwise mean the
    option's default (the games of another database), without a word."""

    name = "text"

    def convert(self, value: Any, param: click.Parameter | None,
                ctx: click.Context | None) -> Any:
        if isinstance(value, str) and not value.strip():
            self.fail("an empty value names nothing (an unset variable?)", param, ctx)
        return value


def game_from_options(game_id: str, params: Sequence[str]) -> Game:
    return make(game_id, **parse_param_options(params))


def friendly_errors(fn: F) -> F:
    """Print ``error: ...`` on stderr and exit 2 for any stonegarden error."""

    @functools.wraps(fn)
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        try:
            return fn(*args, **kwargs)
        except StonegardenError as exc:
            click.echo(f"error: {exc}", err=True)
            sys.exit(2)

    return wrapper  # type: ignore[return-value]


def resign_options(fn: F) -> F:
    """``--resign V [--resign-moves K]``: adjudicate resignations (see ``lab.adjudication``)."""
    fn = click.option("--resign-moves", type=WholeRange(min=1), default=2, show_default=True,
                      help="consecutive own moves below --resign before resigning")(fn)
    return click.option(  # type: ignore[return-value]
        "--resign", type=FiniteRange(0, 0.5, min_open=True, max_open=True), default=None,
        metavar="V", help="a player resigns when its own search rates its position below V "
                          "(win probability) for --resign-moves moves, or proves it lost")(fn)


def resign_rule(resign: float | None, moves: int) -> Any:
    """The ``ResignRule`` the options name, or ``None``.

    Raises:
        ParameterError: ``--resign-moves`` given without ``--resign``, which would play every
            game out while the command line asked for adjudication.
    """
    from ..lab.adjudication import ResignRule

    ctx = click.get_current_context(silent=True)
    if (resign is None and ctx is not None
            and ctx.get_parameter_source("resign_moves") is ParameterSource.COMMANDLINE):
        raise ParameterError(f"--resign-moves {moves} counts moves below --resign V: give "
                             "--resign V too (without it no player resigns)")
    return None if resign is None else ResignRule(resign, moves)


def read_record_argument(path: str) -> bytes:
    """The bytes of the record a command's RECORD names: the file, or standard input for
    ``-`` (``curl ... | stonegarden replay -``), read once and no further than a record may be.

    Raises:
        RecordError: unreadable, or larger than a record may be.
    """
    from ..core.record import MAX_RECORD_BYTES, read_record_bytes

    if path != "-":
        return read_record_bytes(path)
    return read_standard_input(MAX_RECORD_BYTES)


def parse_record_file(path: str, raw: bytes) -> Record:
    """The ``Record`` of ``raw``, the bytes read from ``path``.

    Raises:
        RecordError: of one entry (a move) as ``parse_record`` raises it; of the whole record
            (not JSON, not a record) naming the file, as ``whole_record_error`` words it.
    """
    from ..core.record import parse_record

    try:
        return parse_record(raw)
    except RecordError as exc:
        if exc.entry is not None:
            raise
        raise RecordError(whole_record_error(path, exc, raw)) from None


def read_standard_input(limit: int) -> bytes:
    """Standard input's bytes (a command's ``-``), read no further than ``limit`` + 1 bytes.

    Raises:
        RecordError: it holds more than ``limit`` bytes.
    """
    raw = sys.stdin.buffer.read(limit + 1)
    if len(raw) > limit:
        raise RecordError(f"standard input is larger than any record ({limit} bytes at most)")
    return raw


def named_file(path: str) -> str:
    """A command's file as messages name it: ``-`` is standard input."""
    return "standard input" if path == "-" else repr(path)


def whole_record_error(path: str, exc: RecordError, raw: bytes) -> str:
    """The message of ``exc``, an error of the whole record ``raw`` read from ``path`` (not of
    one of its entries): it names the file (a loop over many records says which failed) and,
    where the bytes are an SGF or an Abstract Play record (which ``convert`` reads), says so."""
    return f"{named_file(path)}: {exc}{_convert_hint(path, raw)}"


def _convert_hint(path: str, raw: bytes) -> str:
    head = raw[:4096].lstrip()
    if head.startswith(b"(;") or path.lower().endswith(".sgf"):
        kind = "an SGF file"
    elif b'"header"' in head and b'"format"' not in head:
        kind = "an Abstract Play record"
    else:
        return ""
    return f" (this looks like {kind}: `stonegarden convert` it to a record first)"
