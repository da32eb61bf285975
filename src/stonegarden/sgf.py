"""SGF (FF[4]) import and export for the square-board games (``freego``, ``bridgego``).

Export writes one game tree: ``GM[1]FF[4]CA[UTF-8]SZ[n]``, the rule parameters in
``RU[stonegarden GAME name=value ...]`` (every parameter, so the file is self-describing),
``PB``/``PW`` from the record's players, ``DT`` and ``TM``/``OT`` from its ``meta.date`` and
``meta.clock`` (the web app's records have them), ``RE`` when the game is over (``B+``/``W+``
for a win, ``B+R``/``W+R`` for a resignation, ``0`` for a draw, ``Void`` for a game aborted
before it started), then one node per move
(``;B[dd]``; SGF points are column then row letters from the top left).

Import reads the main line (the first variation at each fork), takes the game and its
parameters from ``RU`` (``SZ`` supplies or must agree with ``size``), and replays every move
through the rules: a move of the wrong colour or with two points (``B[dd][ee]``), a pass, a
setup property or an illegal move is a ``RecordError`` naming the SGF move number.
``RE[B+R]``/``RE[W+R]`` on an unfinished game whose loser is to move becomes a final ``resign``
entry; on one whose winner is to move (a
resignation on the opponent's turn), ``RE[B+T]``/``RE[W+T]`` (a loss on time) and ``RE[Void]``
become ``meta.ended``, as the web app's records say it; any other ``RE`` must agree with the
replayed result when the game is over. ``DT`` becomes ``meta.date``, and ``TM`` with an
``OT`` as export writes it (or none) ``meta.clock``.
"""

from __future__ import annotations

import codecs
import re
from typing import Any

from .core.protocol import Game
from .core.record import Record, ended_outside_rules, make_record, replay_record, result_of
from .core.registry import make
from .errors import NotationError, RecordError, StonegardenError, quote
from .geometry.square import SquareBoard

MAX_SGF_CHARS = 16 * 1024 * 1024
COLOURS = ("B", "W")  # player 1, player 2
SETUP = ("AB", "AW", "AE")

Node = dict[str, list[str]]
#: the charset an SGF file names (``CA[ISO-8859-1]``), read from its bytes
_CHARSET = re.compile(rb"CA\s*\[([^\]]{1,40})\]")
#: the overtime (``OT``) of a record's ``meta.clock`` as export writes it
_FISCHER_OT = re.compile(r"Fischer: \+([0-9]+(?:\.[0-9]+)?) s a move")
_DAYS_OT = re.compile(r"correspondence: ([0-9]{1,9}) days? a move")


# -- the SGF syntax ----------------------------------------------------------------------------


def decode_sgf(raw: bytes, source: str = "<sgf>", declared: str | None = None) -> str:
    """The text of an SGF file's bytes: UTF-8 (a byte order mark dropped), else UTF-16 or
    UTF-32 where a byte order mark says so, else the charset ``declared`` for it (an upload's
    ``Content-Type: ...; charset=GB2312``), else the one its ``CA[]`` names (older programs
    write ``CA[ISO-8859-1]``, ``CA[GB2312]``), else ISO-8859-1, SGF's charset when ``CA`` is
    absent.

    Raises:
        RecordError: neither UTF-8, nor the UTF-16 or UTF-32 its byte order mark names, nor
        text in the charset declared or named by its ``CA[]``.
    """
    try:
        return raw.decode("utf-8-sig")
    except UnicodeDecodeError:
        pass
    # a UTF-16 or UTF-32 file (Windows' "Unicode") says so by its byte order mark, which no
    # Latin-1 SGF starts with; read as Latin-1 it began with "property 'ÿþ' outside a node"
    for bom, codec in ((codecs.BOM_UTF32_LE, "utf-32"), (codecs.BOM_UTF32_BE, "utf-32"),
                       (codecs.BOM_UTF16_LE, "utf-16"), (codecs.BOM_UTF16_BE, "utf-16")):
        if raw.startswith(bom):
            try:
                return raw.decode(codec)
            except UnicodeDecodeError:
                raise RecordError(f"{source!r} begins with the byte order mark of "
                                  f"{codec.upper()} but is not {codec.upper()} text") from None
    m = _CHARSET.search(raw)
    charset = m.group(1).decode("ascii", "replace").strip() if m else "ISO-8859-1"
    named = f"the charset its CA[{charset}] names"
    if declared:
        charset, named = declared, f"the charset {declared!r} declared for it"
    try:
        return raw.decode(charset)
    except (LookupError, UnicodeError):  # UnicodeError: a codec that decodes nothing (undefined)
        raise RecordError(f"{source!r} is neither UTF-8 text nor text in {named}") from None



class _Tree:
    __slots__ = ("children", "nodes")

    def __init__(self) -> None:
        self.nodes: list[Node] = []
        self.children: list[_Tree] = []


#: where a game tree begins: "(" then its first node's ";", with space between allowed
_GAME_START = re.compile(r"\(\s*;")


def parse_sgf(text: str, source: str = "<sgf>") -> list[Node]:
    """The main line of the first game tree: each node's properties (upper-case names, values
    unescaped); text before the game and after it (a collection's later games) is not read.
    Iterative, so deep variations cannot exhaust the stack.

    Raises:
        RecordError: not SGF (naming ``source`` and the character offset).
    """
    if not isinstance(text, str):
        raise RecordError(f"{source!r}: SGF must be text, not {type(text).__name__}")
    if len(text) > MAX_SGF_CHARS:
        raise RecordError(f"{source!r}: {len(text)} characters is larger than any SGF game")

    def fail(why: str, at: int) -> RecordError:
        return RecordError(f"{source!r} is not valid SGF: {why} at offset {at}")

    first: _Tree | None = None
    stack: list[_Tree] = []
    node: Node | None = None
    # the game begins at its first "(;": what comes before it (a mail's or a server's header, a
    # UTF-8 file's byte order mark) is not SGF, and is passed over, as other SGF readers do
    start = _GAME_START.search(text)
    i, n = (start.start() if start else 1 if text.startswith("\ufeff") else 0), len(text)
    while i < n:
        ch = text[i]
        if ch.isspace():
            i += 1
        elif ch == "(":
            tree = _Tree()
            if stack:
                stack[-1].children.append(tree)
            elif first is None:
                first = tree
            stack.append(tree)
            node = None
            i += 1
        elif ch == ")":
            if not stack:
                raise fail("')' without '('", i)
            if not stack[-1].nodes:
                raise fail("a game tree without a node", i)
            stack.pop()
            node = None
            i += 1
            if not stack:
                break  # the first game is complete: later ones, and any text after, not read
        elif ch == ";":
            if not stack or stack[-1].children:
                raise fail("a node outside a sequence", i)
            node = {}
            stack[-1].nodes.append(node)
            i += 1
        elif ch.isalpha():
            j = i
            while j < n and text[j].isalpha():
                j += 1
            ident = "".join(c for c in text[i:j] if c.isupper())  # FF[3] allowed lower case
            if node is None:
                raise fail(f"property {text[i:j]!r} outside a node", i)
            if not ident:  # "outside a node" it was said, in a node
                raise fail(f"property {text[i:j]!r} has no capital letter (SGF names "
                           f"properties in capitals: {text[i:j].upper()!r})", i)
            values: list[str] = []
            while True:
                while j < n and text[j].isspace():
                    j += 1
                if j >= n or text[j] != "[":
                    break
                value, j = _read_value(text, j + 1, fail)
                values.append(value)
            if not values:
                raise fail(f"property {ident!r} without a value", j)
            if ident in node:
                raise fail(f"property {ident!r} twice in one node", i)
            node[ident] = values
            i = j
        else:
            raise fail(f"unexpected character {ch!r}", i)
    if first is None:
        raise RecordError(f"{source!r} is not valid SGF: no game tree")
    if stack:
        raise RecordError(f"{source!r} is not valid SGF: unclosed '('")
    main: list[Node] = []
    branch: _Tree | None = first
    while branch is not None:
        main.extend(branch.nodes)
        branch = branch.children[0] if branch.children else None
    return main


def _read_value(text: str, i: int, fail: Any) -> tuple[str, int]:
    out = []
    n = len(text)
    while i < n:
        ch = text[i]
        if ch == "\\":
            if i + 1 < n and text[i + 1] == "\n":  # soft line break
                i += 2
                continue
            if i + 1 < n:
                out.append(text[i + 1])
            i += 2
            continue
        if ch == "]":
            return "".join(out), i + 1
        out.append(ch)
        i += 1
    raise fail("unclosed '['", i)


def _escape(value: str) -> str:
    return value.replace("\\", "\\\\").replace("]", "\\]")


def _text_value(value: str, prop: str, source: str) -> str:
    """``value`` escaped as the text of ``prop``.

    Raises:
        RecordError: it holds half of a character (a lone surrogate, which JSON's ``\\ud800``
        can say), which no SGF file can hold.
    """
    try:
        value.encode("utf-8")
    except UnicodeEncodeError:
        raise RecordError(f"{source!r}: {prop} cannot be written as SGF: {quote(value)} holds "
                          "half of a character (a lone surrogate)") from None
    return _escape(value)


# -- points ---------------------------------------------------------------------------------


def sgf_point(board: SquareBoard, point: int) -> str:
    """SGF letters of a point: column from the left, row from the top, ``a`` first."""
    c, r = board.column_row(point)
    return chr(ord("a") + c) + chr(ord("a") + board.size - 1 - r)


def point_of_sgf(board: SquareBoard, value: str) -> int | None:
    """The point of SGF letters, ``None`` for a pass (empty, or ``tt`` on boards up to 19).

    Raises:
        NotationError: not two letters on this board.
    """
    v = value.strip()
    if v == "" or (v == "tt" and board.size <= 19):
        return None
    if len(v) != 2 or not all("a" <= ch <= "z" for ch in v):
        raise NotationError(f"{value!r} is not an SGF point")
    c = ord(v[0]) - ord("a")
    top = ord(v[1]) - ord("a")
    if c >= board.size or top >= board.size:
        raise NotationError(f"{value!r} is off a {board.size}x{board.size} board")
    return board.at(c, board.size - 1 - top)


# -- rules text ---------------------------------------------------------------------------------


def rules_text(game: Game) -> str:
    """``stonegarden GAME name=value ...`` with every parameter of ``game``."""
    parts = ["stonegarden", game.id]
    for p in game.param_specs:
        value = game.params[p.name]
        if isinstance(value, bool):
            text = "true" if value else "false"
        elif value is None:
            text = "none"
        elif isinstance(value, tuple):
            text = ",".join(str(v) for v in value)
        else:
            text = str(value)
        parts.append(f"{p.name}={text}")
    return " ".join(parts)


def parse_rules_text(text: str, source: str) -> tuple[str, dict[str, str]]:
    """(game id, parameter texts) from an ``RU`` value written by :func:`rules_text`.

    Raises:
        RecordError: not a stonegarden rules text.
    """
    words = text.split()
    if len(words) < 2 or words[0].lower() != "stonegarden":
        raise RecordError(f"{source!r}: RU[{text}] does not name a stonegarden game "
                          "(expected 'stonegarden GAME name=value ...')")
    params: dict[str, str] = {}
    for w in words[2:]:
        name, sep, value = w.partition("=")
        if not sep or not name:
            raise RecordError(f"{source!r}: RU[{text}]: {w!r} is not name=value")
        if name in params:  # the last would win unseen, a game its writer may not have meant
            raise RecordError(f"{source!r}: RU[{text}] gives {name!r} twice ({params[name]!r} "
                              f"and {value!r}): give each parameter once")
        params[name] = value
    return words[1], params


# -- records <-> SGF ----------------------------------------------------------------------------


def has_sgf_form(game: Game) -> bool:
    """Whether ``game`` is played on a square Go board, the games SGF writes and reads (the
    web app offers SGF downloads and uploads for these)."""
    return isinstance(getattr(game, "board", None), SquareBoard)


def _square_game(game: Game, source: str) -> SquareBoard:
    board = getattr(game, "board", None)
    if not isinstance(board, SquareBoard):
        raise RecordError(f"{source!r}: game {game.id!r} is not played on a square Go board, "
                          "so it has no SGF form")
    return board


def _result_text(game: Game, final: Any) -> str | None:
    result = result_of(game, final)
    if result is None:
        return None
    w = result["winner"]
    if w == 0:
        return "0"
    return COLOURS[w - 1] + "+" + ("R" if result["reason"] == "resign" else "")


def _ended_text(record: Record) -> str | None:
    """``X+T`` or ``X+R`` for a game its rules had not ended but a clock or a resignation on
    the opponent's turn did, ``Void`` for one aborted before both players moved: the web app's
    records say so in ``meta.ended`` (``{"winner": 1 or 2, "reason": "time" or "resign"}``, or
    ``{"winner": null, "reason": "aborted"}``)."""
    ended = ended_outside_rules(record)
    if ended is None:
        return None
    if ended["reason"] == "aborted":
        return "Void"
    return COLOURS[ended["winner"] - 1] + "+" + {"time": "T", "resign": "R"}[ended["reason"]]


def _number(value: Any) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool) and value >= 0


def _whole(value: float) -> int | float:
    return int(value) if float(value).is_integer() else value


def _num_text(value: float) -> str:
    return str(_whole(value))


def _clock_props(record: Record) -> list[str]:
    """``TM``/``OT`` of a record's ``meta.clock``, the time control the web app's records
    give (``{"initial": S, "increment": I}``, ``{"days_per_move": N}``); none for another
    shape."""
    clock = (record.meta or {}).get("clock")
    if not isinstance(clock, dict):
        return []
    if set(clock) <= {"initial", "increment"} and _number(clock.get("initial")) and _number(
            clock.get("increment", 0)):
        return [f"TM[{_num_text(clock['initial'])}]",
                f"OT[Fischer: +{_num_text(clock.get('increment', 0))} s a move]"]
    days = clock.get("days_per_move")
    if set(clock) == {"days_per_move"} and isinstance(days, int) and _number(days):
        return [f"OT[correspondence: {days} day{'s' if days != 1 else ''} a move]"]
    return []


def _clock_of(root: Node) -> dict[str, Any] | None:
    """The record's ``meta.clock`` of ``TM``/``OT`` as :func:`_clock_props` writes them (a
    ``TM`` without ``OT`` is a time limit with nothing added); ``None`` for another program's
    overtime (byo-yomi, Canadian), which a record's clock cannot say."""
    tm = root.get("TM", [""])[0].strip()
    ot = root.get("OT", [""])[0].strip()
    days = _DAYS_OT.fullmatch(ot)
    if days and not tm:
        return {"days_per_move": int(days.group(1))}
    try:
        initial = float(tm)
    except ValueError:
        return None
    fischer = _FISCHER_OT.fullmatch(ot)
    if not (initial >= 0 and initial < float("inf")) or not (fischer or not ot):
        return None
    increment = float(fischer.group(1)) if fischer else 0.0
    if increment == float("inf"):  # more digits than a float holds: no clock says it
        return None
    return {"initial": _whole(initial), "increment": _whole(increment)}


def record_to_sgf(record: Record, source: str = "<record>") -> str:
    """The SGF text of a record (replayed first, so only valid games are written).

    Raises:
        RecordError: the record does not replay, or its game has no SGF form.
    """
    game, states = replay_record(record)
    board = _square_game(game, source)
    root = [f"GM[1]FF[4]CA[UTF-8]AP[stonegarden]SZ[{board.size}]",
            f"RU[{_escape(rules_text(game))}]"]
    for key, prop in (("1", "PB"), ("2", "PW")):
        if record.players and key in record.players:
            root.append(f"{prop}[{_text_value(record.players[key], prop, source)}]")
    date = (record.meta or {}).get("date")
    if isinstance(date, str) and date.strip():
        root.append(f"DT[{_text_value(date.strip(), 'DT', source)}]")
    root.extend(_clock_props(record))
    result = _result_text(game, states[-1]) or _ended_text(record)
    if result is not None:
        root.append(f"RE[{result}]")
    moves = []
    for state, text in zip(states, record.moves):
        if text.strip().lower() == "resign":
            continue  # carried by RE[B+R] / RE[W+R]
        point = game.parse_action(state, text)
        moves.append(f";{COLOURS[state.player - 1]}[{sgf_point(board, point)}]")
    lines = ["(;" + "".join(root)]
    for k in range(0, len(moves), 12):
        lines.append("".join(moves[k : k + 12]))
    return "\n".join(lines) + ")\n"


def sgf_to_record(text: str, source: str = "<sgf>", game_id: str | None = None) -> Record:
    """A record from SGF text, every move replayed through the rules.

    ``game_id`` names the game when the file has no stonegarden ``RU`` (none, or another
    program's rules such as ``RU[Japanese]``): its parameters then take their defaults, with
    ``size`` from ``SZ`` (19, as SGF says, without one).

    Raises:
        RecordError: malformed SGF, unknown game or parameters, an unsupported property, or a
        bad move (naming the SGF move number).
    """
    nodes = parse_sgf(text, source)
    root = nodes[0]
    if "GM" in root and root["GM"][0].strip() != "1":
        raise RecordError(f"{source!r}: GM[{root['GM'][0]}] is not Go (GM[1])")
    params: dict[str, Any] = {}
    ru = root.get("RU", [""])[0]
    if ru.split()[:1] and ru.split()[0].lower() == "stonegarden":
        game_id, params = parse_rules_text(ru, source)
    if game_id is None:  # another program's RU (RU[Japanese]) names Go's rules, not a game here
        found = (f"RU[{ru}] names another program's rules, not" if ru.strip()
                 else "no RU[] property names")
        raise RecordError(f"{source!r}: {found} a stonegarden game (RU[stonegarden GAME ...]), "
                          "so say which game it is: choose the game when uploading it, or "
                          "--game (e.g. --game freego) on the command line")
    try:  # a game off the square board first: it has no size to take from SZ
        _square_game(make(game_id), source)
    except StonegardenError as exc:
        raise RecordError(f"{source!r}: {exc}" if not isinstance(exc, RecordError)
                          else str(exc)) from None
    if "SZ" in root:
        sz = root["SZ"][0].strip()
        columns, colon, rows = sz.partition(":")  # SZ[19:19], a square in the rectangle form
        if colon and columns.strip() != rows.strip():
            raise RecordError(f"{source!r}: SZ[{sz}] is not a square board")
        sz = columns.strip()
        if "size" in params and params["size"].strip() != sz:
            raise RecordError(f"{source!r}: SZ[{sz}] disagrees with size={params['size']} in RU")
        params.setdefault("size", sz)
    else:
        params.setdefault("size", "19")  # SGF's size of a Go board that states none
    try:
        game = make(game_id, **params)
    except StonegardenError as exc:
        raise RecordError(f"{source!r}: {exc}") from None
    board = _square_game(game, source)
    state = game.initial_state()
    moves: list[str] = []
    number = 0
    for k, node in enumerate(nodes):
        for prop in SETUP:
            if prop in node:
                raise RecordError(f"{source!r}: setup property {prop} (node {k}) is not "
                                  "supported: games start from the empty board")
        colours = [c for c in COLOURS if c in node]
        if not colours:
            continue
        number += 1
        where = f"{source!r}: SGF move {number}"
        if len(colours) > 1:
            raise RecordError(f"{where}: one node holds both B and W", entry=number - 1)
        colour = colours[0]
        value = node[colour][0]
        label = f"{colour}[{value}]"
        if len(node[colour]) > 1:  # B[dd][ee]: which one was played is not known
            raise RecordError(f"{where} ({colour}{''.join(f'[{v}]' for v in node[colour])}): "
                              "a move holds one point", entry=number - 1, text=label)
        if game.is_terminal(state):
            raise RecordError(f"{where} ({label}): the game was already over",
                              entry=number - 1, text=label)
        if COLOURS.index(colour) + 1 != state.player:
            raise RecordError(f"{where} ({label}): it is {COLOURS[state.player - 1]}'s turn",
                              entry=number - 1, text=label)
        try:
            point = point_of_sgf(board, value)
        except NotationError as exc:
            raise RecordError(f"{where} ({label}): {exc}", entry=number - 1, text=label) from None
        if point is None:
            raise RecordError(f"{where} ({label}): a pass, and {game.title} has no pass",
                              entry=number - 1, text=label)
        move = board.names[point]
        try:
            state = game.play_text(state, move)
        except StonegardenError as exc:
            raise RecordError(f"{where} ({label} = {move}): {exc}", entry=number - 1,
                              text=label) from None
        moves.append(move)
    state, ended = _apply_result(game, state, moves, root.get("RE", [""])[0].strip(), source)
    players = {str(i + 1): root[p][0] for i, p in enumerate(("PB", "PW")) if p in root}
    meta: dict[str, Any] = {}
    if root.get("DT", [""])[0].strip():
        meta["date"] = root["DT"][0].strip()
    clock = _clock_of(root)
    if clock is not None:
        meta["clock"] = clock
    if ended is not None:
        meta["ended"] = ended
    return make_record(game, moves, state, players=players or None, meta=meta or None)


def _apply_result(game: Game, state: Any, moves: list[str], re_text: str,
                  source: str) -> tuple[Any, dict[str, Any] | None]:
    """Turn ``RE[X+R]`` into a resignation where the loser is to move; a result the rules
    did not reach (a resignation on the winner's turn, ``X+T``, ``Void``) into ``meta.ended``
    (see :func:`_ended_text`); check any other result against the replay."""
    up = re_text.upper()
    if not game.is_terminal(state):
        if up == "VOID":
            return state, {"winner": None, "reason": "aborted"}
        for w, colour in ((1, "B"), (2, "W")):
            if up in (f"{colour}+R", f"{colour}+RESIGN"):
                if state.player == w:  # the loser resigned on the opponent's turn
                    return state, {"winner": w, "reason": "resign"}
                moves.append("resign")
                return game.resign(state), None
            if up in (f"{colour}+T", f"{colour}+TIME"):
                return state, {"winner": w, "reason": "time"}
        return state, None
    winner = {"0": 0, "DRAW": 0}.get(up)
    if up.startswith("B+"):
        winner = 1
    elif up.startswith("W+"):
        winner = 2
    if winner is not None and winner != game.winner(state):
        raise RecordError(f"{source!r}: RE[{re_text}] disagrees with the replayed result "
                          f"(winner {game.winner(state)})")
    return state, None
