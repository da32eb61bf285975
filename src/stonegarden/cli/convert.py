"""``stonegarden convert IN OUT``: game records to and from SGF, by file extension; an Abstract
Play game record (AP Game Record JSON, Blooms) is read as a ``.json`` input too."""

from __future__ import annotations

from pathlib import Path

import click

from ..core import strict_json
from ..core.foreign import foreign_reader
from ..core.record import Record, load_record, parse_record, read_bounded, replay_record, save_record
from ..errors import RecordError
from ..sgf import MAX_SGF_CHARS, decode_sgf, record_to_sgf, sgf_to_record
from .common import friendly_errors

FORMATS = {".sgf": "sgf", ".json": "json"}


def _format_of(path: str) -> str:
    fmt = FORMATS.get(Path(path).suffix.lower())
    if fmt is None:
        raise RecordError(f"{path!r}: unknown extension (use .sgf or .json)")
    return fmt


def _read_bytes(path: str) -> bytes:
    try:
        return read_bounded(path, MAX_SGF_CHARS * 4)
    except OSError as exc:
        raise RecordError(f"cannot read {path!r}: {exc.strerror}") from None


def _read_text(path: str) -> str:
    try:
        return _read_bytes(path).decode("utf-8-sig")  # a byte order mark is no JSON
    except UnicodeDecodeError:
        raise RecordError(f"{path!r} is not UTF-8 text") from None


def _read_json_record(path: str) -> Record:
    """A stonegarden record, or another program's record (an AP Game Record) converted to one
    by the reader a game registered for its format."""
    text = _read_text(path)
    try:
        try:
            data = strict_json.loads(text, unique_keys=True)  # what `replay` refuses, `convert` refuses too
        except (ValueError, RecursionError):
            return load_record(path)  # says what is wrong with it
        reader = foreign_reader(data)
        if reader is None:
            return parse_record(data)
    except RecordError as exc:
        if exc.entry is not None:  # a move's error names its entry
            raise
        raise RecordError(f"{path!r}: {exc}") from None  # IN or OUT: say which file
    return reader.read(data, path)


@click.command()
@click.argument("source", metavar="IN", type=click.Path(dir_okay=False))
@click.argument("target", metavar="OUT", type=click.Path(dir_okay=False))
@click.option("--game", "game_id", default=None,
              help="the game of an SGF file without a stonegarden RU[] (e.g. freego)")
@friendly_errors
def convert(source: str, target: str, game_id: str | None) -> None:
    """Convert a game between a record (.json) and SGF (.sgf), replaying every move. IN may
    also be an Abstract Play game record of Blooms (.json, as Abstract Play exports it)."""
    src, dst = _format_of(source), _format_of(target)
    if game_id is not None and src != "sgf":
        raise RecordError(f"--game is for an SGF file without RU[stonegarden ...]; a record "
                          f"({source!r}) names its own game")
    if src == "sgf":
        record = sgf_to_record(decode_sgf(_read_bytes(source), source), source, game_id)
        if game_id is not None and record.game != game_id:  # its RU[] named the game
            raise RecordError(f"{source!r} is a game of {record.game} by its RU[], not of "
                              f"{game_id} (--game)")
    else:
        record = _read_json_record(source)
        replay_record(record)  # validate before writing anything
    try:
        if dst == "json":
            save_record(record, target)
        else:
            text = record_to_sgf(record, source)
            tmp = Path(target).with_name(Path(target).name + ".tmp")
            tmp.write_text(text, encoding="utf-8")
            tmp.replace(target)
    except OSError as exc:
        raise RecordError(f"cannot write {target!r}: {exc.strerror}") from None
    n = len(record.moves)
    click.echo(f"{source} -> {target}: {record.game}, {n} move{'' if n == 1 else 's'}")
