"""``stonegarden replay RECORD [--json]`` (the contract in docs/games/, "Records and replay")."""

from __future__ import annotations

import json
import sys
from typing import Any

import click

from ..core.protocol import Game, State
from ..core.record import (
    Record,
    check_result,
    ended_outside_rules,
    game_of,
    parse_record,
    record_before,
    replay_rows,
)
from ..errors import RecordError, StonegardenError, quote
from .common import read_record_argument, whole_record_error


@click.command()
@click.argument("record_path", metavar="RECORD", type=click.Path(dir_okay=False))
@click.option("--json", "as_json", is_flag=True, help="one JSON object per move")
def replay(record_path: str, as_json: bool) -> None:
    """Replay a game record move by move (diagrams, or JSON lines with --json), then check its
    stated result: a record that does not replay, or whose result disagrees, exits with 2.
    RECORD - reads the record from standard input."""
    try:
        raw = read_record_argument(record_path)
        try:
            record = parse_record(raw)
        except RecordError as exc:
            if exc.entry is None:  # not a record at all: say which file
                raise RecordError(whole_record_error(record_path, exc, raw)) from None
            before = record_before(raw, exc.entry) if exc.entry is not None else None
            if before is not None:
                _show(before, as_json)  # the lines before the malformed entry
            raise
        game, final = _show(record, as_json)
        ended = ended_outside_rules(record)
        if not as_json and game.is_terminal(final):
            winner = game.winner(final)
            said = "a draw" if winner == 0 else f"winner {winner}"  # "winner 0" read as a player
            # the score that decided it (the territory rules' board score, which the diagram's
            # capture scores do not show), as the terminal game's end says it
            s1, s2 = game.scores(final)
            scores = f"; scores {s1} : {s2}" if game.keeps_scores(final) else ""
            click.echo(f"result: {said} ({game.result_reason(final)}){scores}")
        elif not as_json and ended is not None:  # a clock or a resignation out of turn
            click.echo("result: no winner (aborted, from meta.ended)" if ended["winner"] is None
                       else f"result: winner {ended['winner']} ({ended['reason']}, from "
                            "meta.ended)")
        if record.result is not None:
            check_result(game, final, record.result)
    except RecordError as exc:
        where = ("" if exc.entry is None else f"ply {exc.entry}: " if exc.text is None
                 else f"ply {exc.entry} ({quote(exc.text)}): ")
        msg = str(exc) if not where else str(exc).split(": ", 1)[-1]
        if exc.text is not None:  # the text is named once, after the ply
            msg = msg.removeprefix(f"{quote(exc.text)}: ")
        click.echo(f"error: {where}{msg}", err=True)
        sys.exit(2)
    except StonegardenError as exc:
        click.echo(f"error: {exc}", err=True)
        sys.exit(2)


def _show(record: Record, as_json: bool) -> tuple[Game, State]:
    """Print the record's replay, move by move; the game and its last position.

    Raises:
        RecordError: at the first bad entry, after the lines before it.
    """
    game = game_of(record)
    console: Any = None
    if not as_json:
        from rich.console import Console

        from ..terminal.render import rich_diagram

        console = Console(highlight=False)
        console.soft_wrap = not console.is_terminal  # into a pipe or a file, lines stay whole
        console.print(f"{game.title}  {game!r}", markup=False)
        console.print(rich_diagram(game, game.initial_state()))
    final = game.initial_state()
    for row, state in replay_rows(record):
        final = state
        if as_json:
            click.echo(json.dumps(row))
            continue
        who = f"player {row['player']}" if "player" in row else "chance"
        notes = [f"captures {row['captured']}"] if row["captured"] else []
        if row["self_captured"]:
            notes.append(f"self-captures {row['self_captured']}")
        if row.get("auto_moves"):
            notes.append("auto " + " ".join(row["auto_moves"]))
        console.print(f"{row['ply'] + 1}. {who}: {row['move']}"
                      + (f"  ({'; '.join(notes)})" if notes else ""), markup=False)
        console.print(rich_diagram(game, state))
    return game, final
