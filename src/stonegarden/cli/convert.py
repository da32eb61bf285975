"""``stonegarden convert IN OUT``: game records to and from SGF, by file extension (or
``--from``/``--to``, which ``-``, standard input or output, needs); an Abstract Play game record
(AP Game Record JSON, Blooms) is read as a ``.json`` input too."""

from __future__ import annotations

import contextlib
from pathlib import Path

import click

from ..core import strict_json
from ..core.foreign import foreign_reader
from ..core.record import Record, parse_record, read_bounded, replay_record, save_record
from ..errors import RecordError
from ..sgf import MAX_SGF_CHARS, decode_sgf, record_to_sgf, sgf_to_record
from .common import friendly_errors, named_file, read_standard_input

FORMATS = {".sgf": "sgf", ".json": "json"}
#: the most bytes read of IN (an SGF file's characters, each up to 4 bytes in UTF-8)
MAX_IN_BYTES = MAX_SGF_CHARS * 4
#: IN or OUT: standard input or output
STDIO = "-"


def _format_of(path: str, given: str | None, option: str) -> str:
    """The format ``option`` gives, else the one of ``path``'s extension."""
    if given is not None:
        return given
    if path == STDIO:
        stream = "standard input" if option == "--from" else "standard output"
        raise RecordError(f"'-' ({stream}) has no extension to tell its format: give "
                          f"{option} sgf or {option} json")
    fmt = FORMATS.get(Path(path).suffix.lower())
    if fmt is None:
        raise RecordError(f"{path!r}: unknown extension (use .sgf or .json, or {option} sgf "
                          f"or {option} json)")
    return fmt


def _read_bytes(path: str) -> bytes:
    if path == STDIO:
        return read_standard_input(MAX_IN_BYTES)
    try:
        return read_bounded(path, MAX_IN_BYTES)
    except OSError as exc:
        raise RecordError(f"cannot read {path!r}: {exc.strerror}") from None


def _read_text(path: str, raw: bytes) -> str:
    try:
        return raw.decode("utf-8-sig")  # a byte order mark is no JSON
    except UnicodeDecodeError:
        raise RecordError(f"{named_file(path)} is not UTF-8 text") from None


def _read_json_record(path: str) -> Record:
    """A stonegarden record, or another program's record (an AP Game Record) converted to one
    by the reader a game registered for its format."""
    raw = _read_bytes(path)
    text = _read_text(path, raw)
    try:
        try:
            data = strict_json.loads(text, unique_keys=True)  # what `replay` refuses, `convert` refuses too
        except (ValueError, RecursionError):
            return parse_record(raw)  # says what is wrong with it
        reader = foreign_reader(data)
        if reader is None:
            return parse_record(data)
    except RecordError as exc:
        if exc.entry is not None:  # a move's error names its entry
            raise
        raise RecordError(f"{named_file(path)}: {exc}") from None  # IN or OUT: say which file
    return reader.read(data, "standard input" if path == STDIO else path)


def _write_sgf(text: str, target: str) -> None:
    """Atomically (a temporary file, then renamed): a failed write leaves nothing behind."""
    tmp = Path(target).with_name(Path(target).name + ".tmp")
    try:
        tmp.write_text(text, encoding="utf-8")
        tmp.replace(target)
    except OSError:
        with contextlib.suppress(OSError):
            tmp.unlink(missing_ok=True)
        raise


@click.command()
@click.argument("source", metavar="IN", type=click.Path(dir_okay=False, allow_dash=True))
@click.argument("target", metavar="OUT", type=click.Path(dir_okay=False, allow_dash=True))
@click.option("--from", "from_format", type=click.Choice(["sgf", "json"]), default=None,
              help="the format of IN [default: by its extension]; needed for - (standard input)")
@click.option("--to", "to_format", type=click.Choice(["sgf", "json"]), default=None,
              help="the format of OUT [default: by its extension]; needed for - (standard "
                   "output)")
@click.option("--game", "game_id", default=None,
              help="the game of an SGF file without a stonegarden RU[] (e.g. freego)")
@friendly_errors
def convert(source: str, target: str, from_format: str | None, to_format: str | None,
            game_id: str | None) -> None:
    """Convert a game between a record (.json) and SGF (.sgf), replaying every move. IN may
    also be an Abstract Play game record of Blooms (.json, as Abstract Play exports it). IN
    or OUT - is standard input or output (with --from or --to): `curl URL | stonegarden
    convert --from json - game.sgf`."""
    src, dst = _format_of(source, from_format, "--from"), _format_of(target, to_format, "--to")
    if game_id is not None and src != "sgf":
        raise RecordError(f"--game is for an SGF file without RU[stonegarden ...]; a record "
                          f"({named_file(source)}) names its own game")
    if src == "sgf":
        name = "standard input" if source == STDIO else source
        record = sgf_to_record(decode_sgf(_read_bytes(source), name), name, game_id)
        if game_id is not None and record.game != game_id:  # its RU[] named the game
            raise RecordError(f"{named_file(source)} is a game of {record.game} by its RU[], not of "
                              f"{game_id} (--game)")
    else:
        record = _read_json_record(source)
        replay_record(record)  # validate before writing anything
    text = record.to_json() + "\n" if dst == "json" else record_to_sgf(record, source)
    n = len(record.moves)
    said = f"{source} -> {target}: {record.game}, {n} move{'' if n == 1 else 's'}"
    if target == STDIO:  # the converted game alone on standard output, the line on stderr
        click.echo(text, nl=False)
        click.echo(said, err=True)
        return
    try:
        if dst == "json":
            save_record(record, target)
        else:
            _write_sgf(text, target)
    except OSError as exc:
        raise RecordError(f"cannot write {target!r}: {exc.strerror}") from None
    click.echo(said)
