"""Abstract Play's game records ("AP Game Record", the ``gamerecord`` JSON that Abstract Play
exports) of Blooms, read into stonegarden records.

An AP record has a ``header`` (the game's ``name`` and ``variants``, the ``players`` with their
``score`` and ``result``) and ``moves``: one list per round, player 1's move then player 2's.
Blooms moves use our cell names; each stone is written ``1d4`` or ``2d4``, the player's dark (1)
or light (2) stone, so player 1's dark and light stones are our R and Y, player 2's K and G.
The board size is the variant ``size-N`` (exported by its name, "Smaller board (base 5)"; 6
without one) and the target is 5 per cell of the side, Abstract Play's threshold (ours by
default is 5 less, so the record states it). The header's scores and results are checked
against the replay. A game that ended by resignation keeps its ``resign``; one that ended by
timeout, agreement or abandonment has no rules event here, so the record keeps its moves and
stays unfinished (``meta.ap_end`` says how it ended there); a timeout whose header names the
winner is a game lost on time, ``meta.ended`` as the web app's records say it. The header's
``date-start`` gives ``meta.date``.

The reader is registered with ``core.foreign`` (``READER``), so ``convert`` and the web app's
upload read these records without knowing Blooms.
"""

from __future__ import annotations

import datetime
import json
import re
from typing import Any, cast

from ...core.foreign import ForeignReader, register_reader
from ...core.record import MAX_RECORD_BYTES, Record, make_record
from ...core.registry import make
from ...errors import NotationError, RecordError, StonegardenError, quote

#: (player, stone) -> our colour letter: dark stones are red and black, light ones yellow and grey
LETTERS = {(1, "1"): "R", (1, "2"): "Y", (2, "1"): "K", (2, "2"): "G"}
_STONE = re.compile(r"^([12])([a-z][0-9]{1,2})$")
_SIZE = re.compile(r"^size-([0-9]{1,2})$")
_BASE = re.compile(r"\(base ([0-9]{1,2})\)")
#: AP moves that end a game outside the rules (no stonegarden move stands for them)
OFF_BOARD_ENDS = ("timeout", "abandoned", "draw")


def looks_like_ap_record(data: Any) -> bool:
    """Whether decoded JSON has the shape of an AP Game Record (a ``header`` with a ``game``,
    and ``moves``), so callers can tell it from a stonegarden record."""
    return (isinstance(data, dict) and isinstance(data.get("header"), dict)
            and isinstance(data["header"].get("game"), dict) and "moves" in data)


def _decode(data: Any, source: str) -> dict[str, Any]:
    if isinstance(data, (bytes, bytearray)):
        if len(data) > MAX_RECORD_BYTES:
            raise RecordError(f"{source!r}: {len(data)} bytes is larger than {MAX_RECORD_BYTES}")
        try:
            data = data.decode("utf-8")
        except UnicodeDecodeError:
            raise RecordError(f"{source!r}: not UTF-8 text") from None
    if isinstance(data, str):
        try:
            data = json.loads(data)
        except (json.JSONDecodeError, RecursionError) as exc:
            raise RecordError(f"{source!r}: not valid JSON: {exc}") from None
    if not looks_like_ap_record(data):
        raise RecordError(f"{source!r}: not an AP Game Record (no header.game and moves)")
    return cast(dict[str, Any], data)


def _size(variants: Any, source: str) -> int:
    """The board size from the variants: by id (``size-4``) or, as exported, by name
    ("Smallest board (base 4)", "Default board (base 6)"); 6 without one."""
    if variants is None:
        variants = []
    if not isinstance(variants, list) or not all(isinstance(v, str) for v in variants):
        raise RecordError(f"{source!r}: header.game.variants must be a list of text")
    sizes = []
    for v in variants:
        m = _SIZE.match(v.strip().lower()) or _BASE.search(v)
        if m:
            sizes.append(int(m.group(1)))
        elif v.strip().lower().startswith("default") or v.strip() in ("", "#board"):
            sizes.append(6)
        else:
            raise RecordError(f"{source!r}: unknown Blooms variant {v!r}")
    if len(set(sizes)) > 1:
        raise RecordError(f"{source!r}: more than one board size in {variants!r}")
    return sizes[0] if sizes else 6


def _move_text(entry: Any) -> str:
    """A move of the ``moves`` lists: a string, or an object with ``move`` (AP's annotated
    form)."""
    text = entry.get("move") if isinstance(entry, dict) else entry
    if not isinstance(text, str):  # the entry itself is named: {} has no move, not a move None
        raise RecordError(f"a move is text, or an object with its text as 'move', not "
                          f"{quote(entry)}")
    return text.strip()


def _our_move(text: str, player: int) -> str:
    """``1d2,2g4`` for ``player`` -> ``Rd2,Yg4`` (player 1)."""
    parts = []
    for stone in text.lower().split(","):
        m = _STONE.match(stone.strip())
        if not m:
            raise NotationError(f"{stone.strip()!r} is not a stone (1 or 2, then a cell, e.g. 1d4)")
        parts.append(LETTERS[(player, m.group(1))] + m.group(2))
    return ",".join(parts)


def ap_to_record(data: Any, source: str = "<AP record>") -> Record:
    """A stonegarden record from an AP Game Record of Blooms (JSON text, bytes or decoded),
    every move replayed through our rules.

    Raises:
        RecordError: not an AP Game Record, not Blooms, an unknown variant, a malformed or
        illegal move (naming the AP round and player), or a result that disagrees with the
        replay.
    """
    rec = _decode(data, source)
    header = rec["header"]
    name = header["game"].get("name")
    if not isinstance(name, str) or name.strip().lower() != "blooms":
        raise RecordError(f"{source!r}: the game is {name!r}; only Blooms records are read")
    if header.get("pie-invoked"):
        raise RecordError(f"{source!r}: the pie rule swapped the seats, which Blooms here has not")
    size = _size(header["game"].get("variants"), source)
    try:
        game = make("blooms", size=size, target=5 * size)
    except StonegardenError as exc:
        raise RecordError(f"{source!r}: {exc}") from None
    rounds = rec["moves"]
    if not isinstance(rounds, list):
        raise RecordError(f"{source!r}: moves must be a list of rounds")
    state = game.initial_state()
    moves: list[str] = []
    ended = ""
    for r, round_ in enumerate(rounds, start=1):
        if not isinstance(round_, list) or len(round_) > 2:
            raise RecordError(f"{source!r}: round {r} is not a list of at most two moves")
        for player, entry in enumerate(round_, start=1):
            where = f"{source!r}: round {r}, player {player}"
            try:
                text = _move_text(entry)
            except RecordError as exc:
                raise RecordError(f"{where}: {exc}", entry=len(moves)) from None
            low = text.lower()
            if low == "" or ended:
                if text and ended:
                    raise RecordError(f"{where} ({text!r}): the game was already over",
                                      entry=len(moves), text=text)
                continue  # the other player's empty slot in a round that ended the game
            if low in OFF_BOARD_ENDS:
                ended = low
                continue
            if game.is_terminal(state):
                raise RecordError(f"{where} ({text!r}): the game was already over",
                                  entry=len(moves), text=text)
            if game.current_player(state) != player:
                raise RecordError(f"{where} ({text!r}): it is player "
                                  f"{game.current_player(state)}'s turn", entry=len(moves),
                                  text=text)
            try:
                ours = "resign" if low == "resign" else _our_move(text, player)
                after = game.play_text(state, ours)
                if ours != "resign":  # the canonical text (R before Y, K before G)
                    ours = game.action_to_text(state, game.parse_action(state, ours))
            except StonegardenError as exc:
                raise RecordError(f"{where} ({text!r}): {exc}", entry=len(moves),
                                  text=text) from None
            state = after
            moves.append(ours)
    _check_players(game, state, header.get("players"), source, ended)
    players = _names(header.get("players"))
    meta: dict[str, Any] = {"source": "Abstract Play"}
    site = header.get("site")
    if isinstance(site, dict) and isinstance(site.get("gameid"), str):
        meta["ap_gameid"] = site["gameid"]
    day = header.get("date-start")
    if isinstance(day, str) and _is_day(day[:10]):
        meta["date"] = day[:10]  # the day it began, as the web app's records say it
    if ended:
        meta["ap_end"] = ended
    lost_on_time = _winner(header.get("players")) if ended == "timeout" else None
    if lost_on_time in (1, 2):  # as the web app's records say a game lost on time
        meta["ended"] = {"winner": lost_on_time, "reason": "time"}
    return make_record(game, moves, state if game.is_terminal(state) else None,
                       players=players, meta=meta)


def _is_day(text: str) -> bool:
    try:
        datetime.date.fromisoformat(text)
    except ValueError:
        return False
    return len(text) == 10


def _winner(players: Any) -> int | None:
    """The winner the header's results give (1 a win, 0 a loss): 1, 2, 0 for a draw, or
    ``None`` for no result."""
    if not isinstance(players, list) or len(players) != 2:
        return None
    first, second = (p.get("result") if isinstance(p, dict) else None for p in players)
    if any(isinstance(v, bool) or not isinstance(v, (int, float)) for v in (first, second)):
        return None
    winners: dict[tuple[Any, Any], int] = {(1, 0): 1, (0, 1): 2, (0.5, 0.5): 0}
    return winners.get((first, second))


def _names(players: Any) -> dict[str, str] | None:
    if not isinstance(players, list):
        return None
    out = {str(i + 1): p["name"] for i, p in enumerate(players[:2])
           if isinstance(p, dict) and isinstance(p.get("name"), str)}
    return out or None


def _check_players(game: Any, state: Any, players: Any, source: str, ended: str) -> None:
    """The header's results (1 a win, 0 a loss, 0.5 a draw) and scores must agree with the
    replay."""
    if not isinstance(players, list) or len(players) != 2 or ended:
        return
    scores = [p.get("score") if isinstance(p, dict) else None for p in players]
    if all(isinstance(v, int) for v in scores) and scores != list(game.scores(state)):
        raise RecordError(f"{source!r}: the header's scores {scores!r} disagree with the "
                          f"replay's {list(game.scores(state))!r}")
    results = [p.get("result") if isinstance(p, dict) else None for p in players]
    if not all(isinstance(v, (int, float)) and v in (0, 0.5, 1) for v in results):
        return  # an unfinished game (AP writes no usable result then)
    winner = 1 if results == [1, 0] else 2 if results == [0, 1] else 0 if results == [0.5, 0.5] \
        else None
    if winner is None:
        raise RecordError(f"{source!r}: the players' results {results!r} are not a game result")
    if game.winner(state) != winner:
        raise RecordError(f"{source!r}: the header says the result is {results!r}, the replay "
                          f"gives winner {game.winner(state)!r}")


#: Abstract Play's records of Blooms, as ``convert`` and the web app's upload find them
READER = register_reader(ForeignReader("Abstract Play game record", looks_like_ap_record,
                                       ap_to_record))
