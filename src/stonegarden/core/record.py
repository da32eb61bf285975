"""Game records (docs/games/, "Records and replay"): read, validate by replaying, write; and the per-move rows
of ``stonegarden replay --json``.

A record is only ever turned into states by replaying every move through the rules, so a bad
record raises before anything is handed back: nothing is partially applied.
"""

from __future__ import annotations

import contextlib
import json
import os
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ..errors import ParameterError, RecordError, StonegardenError, quote
from . import strict_json
from .protocol import CHANCE, Game, State
from .registry import game_class, make

FORMAT = "stonegarden-record"
VERSION = 1
MAX_RECORD_BYTES = 16 * 1024 * 1024
#: the keys of a version-1 record and of its result (docs/games/, "Records"): anything else is
#: refused, since a misspelt "result" would otherwise go unchecked; extras belong in "meta"
RECORD_KEYS = ("format", "version", "game", "params", "moves", "result", "players", "meta")
RESULT_KEYS = ("winner", "reason", "scores")


@dataclass(frozen=True)
class Record:
    """A game as stored: game id, non-default parameters, move texts and optional extras."""

    game: str
    params: Mapping[str, Any] = field(default_factory=dict)
    moves: tuple[str, ...] = ()
    result: Mapping[str, Any] | None = None
    players: Mapping[str, str] | None = None
    meta: Mapping[str, Any] | None = None

    def to_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = {
            "format": FORMAT,
            "version": VERSION,
            "game": self.game,
            "params": dict(self.params),
            "moves": list(self.moves),
        }
        if self.result is not None:
            out["result"] = dict(self.result)
        if self.players is not None:
            out["players"] = dict(self.players)
        if self.meta is not None:
            out["meta"] = dict(self.meta)
        return out

    def to_json(self, indent: int | None = 1) -> str:
        """The record as JSON text, which ``parse_record`` reads back.

        Raises:
            RecordError: a value JSON cannot hold, or holds only as an extension that
            records refuse (``NaN``, infinity), in ``players`` or ``meta``.
        """
        try:
            return json.dumps(self.to_dict(), indent=indent, allow_nan=False)
        except (TypeError, ValueError) as exc:  # a numpy number, a set, NaN, ...
            raise RecordError(f"the record cannot be written as JSON: {exc}") from None


def parse_record(data: Any) -> Record:
    """Check the shape of a record given as JSON text, bytes or an already-decoded object.
    Moves are not replayed here (see :func:`replay_record`).

    Raises:
        RecordError: not JSON, not an object, a missing or wrongly typed field.
    """
    if isinstance(data, (bytes, bytearray)):
        if len(data) > MAX_RECORD_BYTES:
            raise RecordError(f"record of {len(data)} bytes is larger than {MAX_RECORD_BYTES}")
        try:
            data = data.decode("utf-8-sig")  # a byte order mark (an editor's) is no JSON
        except UnicodeDecodeError:
            raise RecordError("record is not UTF-8 text") from None
    if isinstance(data, str):
        data = data.removeprefix("\ufeff")
        if len(data) > MAX_RECORD_BYTES:
            raise RecordError(f"record of {len(data)} characters is too large")
        if not data.strip():  # an empty file: "Expecting value: line 1 column 1" said nothing
            raise RecordError("record is empty: the file holds no text")
        try:
            # a key given twice ("moves" pasted in again): which one was meant is not known
            data = strict_json.loads(data, unique_keys=True)
        except strict_json.DuplicateKey as exc:
            raise RecordError(f"record gives {quote(exc.key, 60)} twice in one object: give "
                              "each key once") from None
        except RecursionError:  # Python's words ("maximum recursion depth") say nothing
            raise RecordError("record is nested too deeply to read: lists or objects within "
                              "one another, hundreds of levels down") from None
        except ValueError as exc:  # also numbers of too many digits
            raise RecordError(f"record is not valid JSON: {quote(str(exc), 200)}") from None
    if not isinstance(data, dict):
        raise RecordError(f"a record is a JSON object, not {strict_json.kind(data)}")
    if "format" not in data:  # another program's JSON: "'format' is None" said nothing
        raise RecordError(f"record has no 'format' (expected {FORMAT!r}): it is not a "
                          "stonegarden record")
    if data["format"] != FORMAT:
        raise RecordError(f"record 'format' is {_shown(data['format'])}, expected {FORMAT!r}")
    for key in ("version", "game", "moves"):
        if key not in data:
            raise RecordError(f"record has no {key!r}")
    if data["version"] != VERSION or isinstance(data["version"], bool):
        raise RecordError(f"record 'version' {_shown(data['version'])} is not supported "
                          f"(only {VERSION})")
    for key in data:
        if key not in RECORD_KEYS:
            raise RecordError(f"record has an unknown key {quote(key, 60)}: a record holds "
                              f"only {', '.join(RECORD_KEYS)} (anything else goes in 'meta')",
                              key=key)
    game = data["game"]
    if not isinstance(game, str):
        raise RecordError(f"record 'game' must be a string, not {_shown(game)}")
    params = data.get("params", {})
    if params is None:
        params = {}
    if not isinstance(params, dict):
        raise RecordError(f"record 'params' must be an object, not {_shown(params)}")
    moves = data.get("moves")
    if not isinstance(moves, list):
        raise RecordError(f"record 'moves' must be a list, not {_shown(moves)}")
    for i, m in enumerate(moves):
        if not isinstance(m, str):
            raise RecordError(f"move {i} ({_shown(m)}) is not a string", entry=i)
    result = data.get("result")
    if result is not None:
        _check_result_shape(result)
    players = data.get("players")
    if players is not None and (not isinstance(players, dict) or not all(
        k in ("1", "2") and isinstance(v, str) for k, v in players.items()
    )):
        raise RecordError(f"record 'players' must map '1'/'2' to text, not {_shown(players)}")
    meta = data.get("meta")
    if meta is not None and not isinstance(meta, dict):
        raise RecordError(f"record 'meta' must be an object, not {_shown(meta)}")
    return Record(game, params, tuple(moves), result, players, meta)


def _shown(value: Any) -> str:
    """A value read from JSON as a message shows it: text quoted as notation is (``'C3'``),
    anything else in JSON's words (``null``, ``true``, ``{"1": null}``), not Python's
    (``None``, ``True``)."""
    if isinstance(value, str):
        return quote(value)
    try:
        text = json.dumps(value, ensure_ascii=False, allow_nan=False)
    except (TypeError, ValueError, RecursionError):
        return quote(value)
    return text if len(text) <= 80 else text[:77] + "..."


def _check_result_shape(result: Any) -> None:
    if not isinstance(result, dict):
        raise RecordError(f"record 'result' must be an object, not {_shown(result)}")
    for key in result:
        if key not in RESULT_KEYS:
            raise RecordError(f"result has an unknown key {quote(key, 60)}: a result holds "
                              f"only {', '.join(RESULT_KEYS)}", key=f"result.{key}")
    w = result.get("winner")
    if w is not None and (isinstance(w, bool) or w not in (0, 1, 2)):
        raise RecordError(f"result 'winner' must be 1, 2, 0 (draw) or null, not {_shown(w)}")
    s = result.get("scores")
    if s is not None and not (
        isinstance(s, list) and len(s) == 2
        and all(isinstance(v, int) and not isinstance(v, bool) for v in s)
    ):
        raise RecordError(f"result 'scores' must be a list of two integers, not {_shown(s)}")
    r = result.get("reason")
    if r is not None and not isinstance(r, str):
        raise RecordError(f"result 'reason' must be text, not {_shown(r)}")


def load_record(path: str | Path) -> Record:
    """Read and shape-check a record file.

    Raises:
        RecordError: unreadable file or malformed record.
    """
    return parse_record(read_record_bytes(path))


def read_record_bytes(path: str | Path) -> bytes:
    """The bytes of a record file, read once (it may be a pipe).

    Raises:
        RecordError: unreadable, or larger than a record may be.
    """
    try:
        return read_bounded(path, MAX_RECORD_BYTES)
    except OSError as exc:
        raise RecordError(f"cannot read record {str(path)!r}: {exc.strerror}") from None


def record_before(raw: bytes, entry: int) -> Record | None:
    """The record ``raw`` cut before its entry ``entry``, without its result: what ``replay``
    shows before an entry that is malformed (not text), which ``parse_record`` refuses before
    any move is played. ``None`` when the rest of the record is malformed too (that is then
    not what the error is about)."""
    try:
        data = dict(strict_json.loads(raw.decode("utf-8-sig"), unique_keys=True))
        data.pop("result", None)
        data["moves"] = data["moves"][:entry]
        return parse_record(data)
    except (ValueError, TypeError, KeyError, RecursionError):  # RecordError is a ValueError
        return None


def read_bounded(path: str | Path, limit: int) -> bytes:
    """The bytes of ``path``, read no further than ``limit`` + 1 bytes: a device or a pipe
    (``/dev/zero``, ``/dev/stdin``) has no size to check beforehand.

    Raises:
        RecordError: the file holds more than ``limit`` bytes.
        OSError: it cannot be read.
    """
    with open(path, "rb") as f:
        raw = f.read(limit + 1)
    if len(raw) > limit:
        raise RecordError(f"{str(path)!r} is larger than any record ({limit} bytes at most)")
    return raw


def game_of(record: Record) -> Game:
    """The record's game. Its parameters are in their JSON form, as ``make_record`` writes
    them: text where a number, a boolean or a list belongs is refused (the command line's
    ``--param size=9`` is text; a record's ``"size": "9"`` is not a size).

    Raises:
        RecordError: naming the unknown game or the bad parameter.
    """
    try:
        return make_from_json(record.game, record.params)
    except StonegardenError as exc:
        raise RecordError(f"record game/params: {exc}") from None


#: a parameter's kind as its JSON form is called in a message (docs/games/, "Records")
_JSON_FORMS = {"int": "number", "opt_int": "number (or null)", "bool": "true or false",
               "str_list": "list of texts", "int_pair": "list of two numbers"}
#: what a parameter's JSON value must be, as a message says it
_JSON_EXPECTED = {"int": "an integer", "opt_int": "an integer or null",
                  "bool": "true or false", "str_list": "a list of texts",
                  "int_pair": "a list of two integers"}


def make_from_json(game_id: str, params: Mapping[str, Any]) -> Game:
    """The game ``game_id`` with ``params`` in their JSON form, as records hold them (and the
    engine's queries): text where a number, a boolean or a list belongs is refused.

    Raises:
        ParameterError: an unknown game, a bad parameter, or text for a parameter not a choice.
    """
    specs = {p.name: p for p in game_class(game_id).param_specs}
    for name, value in params.items():
        spec = specs.get(name)
        if spec is None or spec.kind == "choice":
            continue
        form = _JSON_FORMS.get(spec.kind, spec.kind)
        if isinstance(value, str):
            raise ParameterError(f"parameter {name!r}: {quote(value)} is text, not the "
                                 f"{form} a record holds")
        if not _json_form_fits(spec.kind, value, spec.default is None):
            # said in JSON's words (null, true), as the record has it, not Python's
            raise ParameterError(f"parameter {name!r}: {_shown(value)} is not "
                                 f"{_JSON_EXPECTED.get(spec.kind, form)}")
    return make(game_id, **dict(params))


def _json_form_fits(kind: str, value: Any, derived: bool) -> bool:
    """Whether a parameter's JSON value has the form its kind needs (its range is checked by
    the game); ``derived``: ``null`` asks for the default the game derives."""
    def is_int(v: Any) -> bool:
        return isinstance(v, int) and not isinstance(v, bool)

    if value is None:
        return derived or kind == "opt_int"
    if kind in ("int", "opt_int"):
        return is_int(value)
    if kind == "bool":
        return isinstance(value, bool)
    if kind == "str_list":
        return isinstance(value, (list, tuple)) and all(isinstance(v, str) for v in value)
    if kind == "int_pair":
        return (isinstance(value, (list, tuple)) and len(value) == 2
                and all(is_int(v) for v in value))
    return True


def move_error(index: int, text: str, exc: StonegardenError) -> RecordError:
    """The error for entry ``index`` of a list of moves, ``text``, which ``exc`` refused: the
    text is named once, after the move's number (``exc`` may begin with it too)."""
    why = str(exc).removeprefix(f"{quote(text)}: ")
    return RecordError(f"move {index} ({quote(text)}): {why}", entry=index, text=text)


def replay_rows(record: Record) -> Iterator[tuple[dict[str, Any], State]]:
    """Yield, move by move, the ``replay --json`` row and the state after the move.

    Raises:
        RecordError: at the first bad entry (after yielding the rows before it).
    """
    game = game_of(record)
    state = game.initial_state()
    for i, text in enumerate(record.moves):
        if game.is_terminal(state):
            raise RecordError(f"move {i} ({quote(text)}): the game was already over", entry=i, text=text)
        mover = game.current_player(state)
        legal = game.count_legal_actions(state) if mover != CHANCE else len(game.chance_outcomes(state))
        try:
            after = game.play_text(state, text)
        except StonegardenError as exc:
            raise move_error(i, text, exc) from None
        canonical = "resign" if after.resigned else game.action_to_text(state, game.parse_action(state, text))
        row: dict[str, Any] = {"ply": i}
        if mover != CHANCE:
            row["player"] = mover
        row.update(
            move=canonical,
            legal_moves=legal,
            captured=after.captured,
            self_captured=after.self_captured,
            scores=list(game.scores(after)),
            terminal=game.is_terminal(after),
            winner=game.winner(after),
        )
        row.update(game.replay_extras(state, after))
        yield row, after
        state = after


def replay_record(record: Record) -> tuple[Game, list[State]]:
    """Replay every move and check the stated result; all states, the initial one first.

    Raises:
        RecordError: unknown game or parameter, a bad move (with its index), moves after the
        end, or a result that disagrees with the replay.
    """
    game = game_of(record)
    states = [game.initial_state()]
    for _, after in replay_rows(record):
        states.append(after)
    if record.result is not None:
        check_result(game, states[-1], record.result)
    return game, states


def _winner_words(winner: int | None) -> str:
    return {None: "no winner yet: the game is not over", 0: "a draw"}.get(
        winner, f"player {winner} wins")


def check_result(game: Game, final: State, result: Mapping[str, Any]) -> None:
    """Raises: RecordError if ``result`` disagrees with the replayed final state."""
    # an end the moves do not make (a clock, a resignation on the opponent's turn) is no
    # result: the record's writer is told where it goes
    elsewhere = ("; a game that ended outside its rules (on time, resigned on the opponent's "
                 "turn, aborted) says so in 'meta.ended', as {\"winner\": 2, \"reason\": "
                 "\"time\"}, with no 'result'") if not game.is_terminal(final) else ""
    if "winner" in result and result["winner"] != game.winner(final):
        raise RecordError(
            f"result winner {quote(result['winner'])} disagrees with the replay "
            f"({_winner_words(game.winner(final))}){elsewhere}"
        )
    if "reason" in result and result["reason"] != game.result_reason(final):
        found = game.result_reason(final)
        raise RecordError(
            f"result reason {quote(result['reason'])} disagrees with the replay "
            f"({'the game is not over' if found is None else repr(found)}){elsewhere}"
        )
    if result.get("scores") is not None and list(result["scores"]) != list(game.scores(final)):
        raise RecordError(
            f"result scores {quote(result['scores'])} disagree with the replay ({list(game.scores(final))!r})"
        )


def result_of(game: Game, state: State) -> dict[str, Any] | None:
    """The ``result`` object for a finished game, ``None`` while it goes on."""
    if not game.is_terminal(state):
        return None
    return {
        "winner": game.winner(state),
        "reason": game.result_reason(state),
        "scores": list(game.scores(state)),
    }


def ended_outside_rules(record: Record) -> dict[str, Any] | None:
    """How a game its rules had not ended did end, as the web app's records say it in
    ``meta.ended``: ``{"winner": 1 or 2, "reason": "time" or "resign"}`` (a loss on time, a
    resignation on the opponent's turn) or ``{"winner": None, "reason": "aborted"}``; ``None``
    when the record says nothing of the kind (or not in this shape)."""
    ended = (record.meta or {}).get("ended")
    if not isinstance(ended, dict):
        return None
    winner, reason = ended.get("winner"), ended.get("reason")
    if reason == "aborted" and winner is None:
        return {"winner": None, "reason": "aborted"}
    if reason in ("time", "resign") and winner in (1, 2) and not isinstance(winner, bool):
        return {"winner": winner, "reason": reason}
    return None


def make_record(game: Game, moves: list[str], final: State | None = None,
                players: Mapping[str, str] | None = None,
                meta: Mapping[str, Any] | None = None) -> Record:
    """A record of ``moves`` (canonical texts) played in ``game``; ``final`` adds the result.
    Moves are not replayed here (see :func:`replay_record`).

    Raises:
        RecordError: ``moves`` is one string rather than a list of move texts, a move is not
        text, or ``players`` does not map "1"/"2" to text (what ``parse_record`` refuses).
    """
    if isinstance(moves, str):
        raise RecordError(f"moves are a list of move texts, not one string {quote(moves)}")
    record = Record(
        game=game.id,
        params=game.non_default_params(),
        moves=tuple(moves),
        result=result_of(game, final) if final is not None else None,
        players=players,
        meta=meta,
    )
    parse_record(record.to_dict())  # a record made here reads back
    return record


def save_record(record: Record, path: str | Path) -> None:
    """Write atomically (temp file then rename) so a crash never leaves half a record; a
    failed write leaves nothing behind.

    Raises:
        RecordError: ``path`` names no file (a folder, ``.``) or cannot be written, or the
        record holds a value JSON cannot (``to_json``).
    """
    p = Path(path)
    if p.name in ("", ".", "..") or p.is_dir() or str(path).endswith(("/", os.sep)):
        raise RecordError(f"cannot save the record to {str(path)!r}: it is a folder, not a "
                          "file name")
    text = record.to_json()
    tmp = p.with_name(p.name + ".tmp")
    try:
        tmp.write_text(text + "\n", encoding="utf-8")
        tmp.replace(p)
    except OSError as exc:
        with contextlib.suppress(OSError):  # on a read-only file system even this fails
            tmp.unlink(missing_ok=True)
        raise RecordError(f"cannot save the record to {str(path)!r}: "
                          f"{exc.strerror or exc}") from None
    except ValueError as exc:  # a name no file can have: a NUL typed at the prompt (Ctrl-@)
        raise RecordError(f"cannot save the record to {str(path)!r}: {exc}") from None
