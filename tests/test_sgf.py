"""SGF import and export for Free Go and Bridge Go (``stonegarden.sgf``, the ``convert``
command)."""

from __future__ import annotations

import json

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import stonegarden
from stonegarden.core.record import load_record, make_record, replay_record, save_record
from stonegarden.errors import NotationError, RecordError
from stonegarden.geometry.square import square_board
from stonegarden.sgf import (
    decode_sgf,
    has_sgf_form,
    parse_sgf,
    point_of_sgf,
    record_to_sgf,
    sgf_point,
    sgf_to_record,
)

GAMES = [
    ("freego", {"size": 5, "target": 4}),
    ("freego", {"size": 6, "ko": "superko"}),
    ("freego", {"size": 7, "ko": "none", "target": 9}),
    ("bridgego", {"size": 5}),
    ("bridgego", {"size": 6, "win_check": "after-self-capture", "external": "perpendicular"}),
    ("bridgego", {"size": 4, "superko": False, "max_turns": 12}),
]


def random_record(game_id, params, seed, players=None):
    game = stonegarden.make(game_id, **params)
    rng = np.random.default_rng(seed)
    state, moves = game.initial_state(), []
    while not game.is_terminal(state):
        acts = game.legal_actions(state)
        a = int(acts[int(rng.integers(len(acts)))])
        moves.append(game.action_to_text(state, a))
        state = game.play(state, a)
    return make_record(game, moves, state, players=players)


@pytest.mark.parametrize(("game_id", "params"), GAMES)
@settings(max_examples=8, deadline=None)
@given(seed=st.integers(0, 2**32 - 1))
def test_records_round_trip_through_sgf(game_id, params, seed):
    record = random_record(game_id, params, seed, players={"1": "Ann [B]", "2": "Bo\\b"})
    back = sgf_to_record(record_to_sgf(record))
    assert back == record


def test_points_follow_sgf_letters_from_the_top_left():
    board = stonegarden.make("freego", size=9).board
    assert sgf_point(board, board.point("D4")) == "df"
    assert sgf_point(board, board.point("A9")) == "aa"
    assert sgf_point(board, board.point("J1")) == "ii"


@pytest.mark.parametrize("value", ["d", "d44", "D4", "jj"])
def test_an_unreadable_sgf_point_is_a_notation_error(value):
    """The one hierarchy: a point that is not two letters on the board is malformed notation."""
    with pytest.raises(NotationError, match=repr(value)):
        point_of_sgf(square_board(9), value)


def test_rule_parameters_travel_in_ru():
    record = make_record(stonegarden.make("freego", size=6, ko="superko", target=7), ["C3"])
    text = record_to_sgf(record)
    assert "RU[stonegarden freego size=6 target=7 ko=superko]" in text
    assert "SZ[6]" in text and "GM[1]" in text and ";B[cd]" in text
    assert sgf_to_record(text).params == {"size": 6, "target": 7, "ko": "superko"}


def sgf(moves, ru="stonegarden freego size=5", extra=""):
    return f"(;GM[1]FF[4]SZ[5]RU[{ru}]{extra}" + "".join(f";{m}" for m in moves) + ")"


def test_an_illegal_move_is_rejected_with_its_sgf_move_number():
    with pytest.raises(RecordError, match=r"SGF move 3 \(B\[cc\] = C3\).*occupied") as err:
        sgf_to_record(sgf(["B[cc]", "W[dd]", "B[cc]"]))
    assert err.value.entry == 2


def test_a_ko_violation_is_rejected_with_its_sgf_move_number():
    # the ko of test_freego_rules, reached from the empty board
    setup = ["B[cb]", "W[db]", "B[bc]", "W[cc]", "B[cd]", "W[dd]", "B[aa]", "W[ec]"]
    sgf_to_record(sgf([*setup, "B[dc]"]))  # Black takes the ko
    with pytest.raises(RecordError, match=r"SGF move 10.*ko"):
        sgf_to_record(sgf([*setup, "B[dc]", "W[cc]"]))


@pytest.mark.parametrize(("moves", "why"), [
    (["W[cc]"], "B's turn"),
    (["B[cc]", "B[dd]"], "W's turn"),
    (["B[]"], "no pass"),
    (["B[tt]"], "no pass"),
    (["B[zz]"], "off a 5x5"),
    (["B[c]"], "not an SGF point"),
    (["B[cc]W[dd]"], "both B and W"),
    # two points for one move was read as its first, without a word
    (["B[cc]", "W[dd][ee]"], r"W\[dd\]\[ee\]\): a move holds one point"),
])
def test_bad_moves_name_the_move_number(moves, why):
    with pytest.raises(RecordError, match=f"SGF move {len(moves)}.*{why}"):
        sgf_to_record(sgf(moves))


@pytest.mark.parametrize(("text", "why"), [
    ("(;GM[2]SZ[5]RU[stonegarden freego];B[cc])", "not Go"),
    ("(;GM[1]SZ[5];B[cc])", "no RU"),
    ("(;GM[1]SZ[5]RU[Japanese];B[cc])", r"RU\[Japanese\] names another program.s rules.*--game"),
    ("(;GM[1]SZ[7]RU[stonegarden freego size=5];B[cc])", "disagrees"),
    ("(;GM[1]SZ[5]RU[stonegarden freego ko=maybe];B[cc])", "ko"),
    # a parameter twice was read as its last value, without a word, as the command line refuses
    ("(;GM[1]SZ[5]RU[stonegarden freego target=3 target=4];B[cc])",
     r"gives 'target' twice \('3' and '4'\): give each parameter once"),
    ("(;GM[1]SZ[5]RU[stonegarden blooms];B[cc])", "not played on a square"),
    ("(;GM[1]SZ[5]RU[stonegarden chess];B[cc])", "unknown game"),
    ("(;GM[1]SZ[5]RU[stonegarden freego]AB[aa];B[cc])", "setup property"),
    ("(;GM[1]SZ[5]RU[stonegarden freego target=1]RE[W+];B[ba];W[aa];B[ab])",
     "disagrees with the replayed result"),
])
def test_bad_games_are_rejected(text, why):
    with pytest.raises(RecordError, match=why):
        sgf_to_record(text)


def test_moves_after_the_end_are_rejected():
    # target 1: Black's capture at A2 ends the game; a further move is refused
    moves = ["B[bd]", "W[ae]", "B[be]", "W[ee]", "B[ad]", "W[dd]"]
    with pytest.raises(RecordError, match=r"SGF move 6.*already over"):
        sgf_to_record(sgf(moves, ru="stonegarden freego size=5 target=1"))


def test_game_option_names_the_game_of_a_plain_go_sgf():
    record = sgf_to_record("(;GM[1]FF[4]SZ[7];B[dd];W[cc])", game_id="freego")
    assert record.game == "freego" and record.params == {"size": 7}
    assert record.moves == ("D4", "C5")


def test_resignation_travels_as_the_result():
    game = stonegarden.make("bridgego", size=5)
    state = game.play_text(game.initial_state(), "C3")
    record = make_record(game, ["C3", "resign"], game.resign(state))
    text = record_to_sgf(record)
    assert "RE[B+R]" in text
    assert sgf_to_record(text).moves == ("C3", "resign")


def test_a_loss_on_time_travels_as_the_result():
    """The web app's record of a game a clock ended says so in ``meta.ended``; SGF has
    ``X+T`` for it, which reads back as the unfinished game it is by the rules."""
    game = stonegarden.make("freego", size=5)
    record = make_record(game, ["C3"], meta={"ended": {"winner": 1, "reason": "time"}})
    text = record_to_sgf(record)
    assert "RE[B+T]" in text
    assert sgf_to_record(text).moves == ("C3",)
    assert "RE[" not in record_to_sgf(make_record(game, ["C3"]))


def test_the_main_line_is_the_first_variation():
    text = "(;GM[1]SZ[5]RU[stonegarden bridgego size=5];B[cc](;W[dd];B[ee])(;W[aa]))"
    assert sgf_to_record(text).moves == ("C3", "D2", "E1")


def test_text_around_the_game_and_a_collections_later_games_are_not_read():
    """A file with a header before its game (a mail, a server's export) was refused as
    "property 'Some' outside a node"; text after it as "unexpected ... after the game tree".
    The game is read from its first "(;", as other SGF readers do; a collection gives its
    first game."""
    game = "(;GM[1]SZ[5]RU[stonegarden freego size=5] ;B[cc];W[dd])"
    for text in (f"Game of 3 May, sent by mail:\n{game}", f"\ufeff{game}\n-- end --\n",
                 f"{game}\n(;GM[1]SZ[5]RU[stonegarden freego size=5];B[aa])",
                 "( ;GM[1]SZ[5]RU[stonegarden freego size=5] ;B[cc];W[dd])trailing"):
        assert sgf_to_record(text).moves == ("C3", "D2"), text
    with pytest.raises(RecordError, match="outside a node at offset 0"):  # no game in it
        sgf_to_record("no game here (at all)")


def test_property_values_are_unescaped():
    nodes = parse_sgf(r"(;C[a \] b \\ c]PB[x\
y];B[aa])")
    assert nodes[0]["C"] == ["a ] b \\ c"] and nodes[0]["PB"] == ["xy"]


@pytest.mark.parametrize("text", ["", "(", ")", "(;", "(;B[aa]", "(;B[aa)", ";B[aa]", "(B[aa])",
                                  "(;B)", "(;B[aa]B[bb])", "()", "(;1[aa])"])
def test_malformed_sgf_is_a_record_error(text):
    try:
        sgf_to_record(text)
    except RecordError:
        return
    pytest.fail(f"{text!r} was accepted")


def test_a_property_in_lower_case_is_named_as_such_not_outside_a_node():
    with pytest.raises(RecordError, match=r"property 'b' has no capital letter .*'B'.* at offset 13"):
        parse_sgf("(;GM[1]SZ[9];b[dd])")


@settings(max_examples=300, deadline=None)
@given(text=st.text(alphabet="(;)[]\\BWAGMSZRU aetc1=\n", max_size=60) | st.text(max_size=60))
@pytest.mark.slow
def test_garbage_never_crashes(text):
    try:
        record = sgf_to_record(text)
    except RecordError:
        return
    # accepted SGF is a record that replays and survives the way back to SGF
    _, states = replay_record(record)
    assert len(states) == len(record.moves) + 1
    assert sgf_to_record(record_to_sgf(record)).moves == record.moves


# -- the convert command --------------------------------------------------------------------------

@pytest.mark.slow
def test_convert_round_trip_through_the_cli(tmp_path, cli):
    record = random_record("freego", {"size": 5, "target": 4}, 11)
    src = tmp_path / "game.json"
    save_record(record, src)
    r = cli("convert", str(src), str(tmp_path / "game.sgf"))
    assert r.returncode == 0, r.stderr
    r = cli("convert", str(tmp_path / "game.sgf"), str(tmp_path / "back.json"))
    assert r.returncode == 0, r.stderr
    assert load_record(tmp_path / "back.json") == record


@pytest.mark.parametrize(("extra", "prop"), [({"players": {"1": "Ana\ud800"}}, "PB"),
                                             ({"meta": {"date": "2026-01-01\udc00"}}, "DT")])
def test_half_a_character_in_a_record_is_refused_as_sgf_not_a_traceback(tmp_path, cli, extra,
                                                                        prop):
    # JSON's \ud800 reads as a lone surrogate, which no UTF-8 file holds: writing it raised
    # UnicodeEncodeError and left the temporary file behind
    src = tmp_path / "game.json"
    src.write_text(json.dumps({"format": "stonegarden-record", "version": 1, "game": "freego",
                               "params": {"size": 5}, "moves": ["C3"]})[:-1]
                   + ", " + json.dumps(extra)[1:], encoding="utf-8")
    r = cli("convert", str(src), str(tmp_path / "game.sgf"))
    assert r.returncode == 2 and "Traceback" not in r.stderr, r.stderr
    assert f"{prop} cannot be written as SGF" in r.stderr and "lone surrogate" in r.stderr
    assert sorted(p.name for p in tmp_path.iterdir()) == ["game.json"]


@pytest.mark.slow
def test_convert_reports_the_sgf_move_number_of_an_illegal_move(tmp_path, cli):
    bad = tmp_path / "bad.sgf"
    bad.write_text(sgf(["B[cc]", "W[cc]"]), encoding="utf-8")
    r = cli("convert", str(bad), str(tmp_path / "out.json"))
    assert r.returncode == 2
    assert "SGF move 2" in r.stderr and "occupied" in r.stderr
    assert "Traceback" not in r.stderr
    assert not (tmp_path / "out.json").exists()


@pytest.mark.slow
def test_convert_rejects_unknown_extensions_and_missing_files(tmp_path, cli):
    r = cli("convert", str(tmp_path / "a.txt"), str(tmp_path / "b.json"))
    assert r.returncode == 2 and "extension" in r.stderr
    r = cli("convert", str(tmp_path / "missing.sgf"), str(tmp_path / "b.json"))
    assert r.returncode == 2 and "cannot read" in r.stderr


@pytest.mark.slow
def test_convert_plain_go_sgf_with_game_option(tmp_path, cli):
    src = tmp_path / "plain.sgf"
    src.write_text("(;GM[1]FF[4]SZ[9];B[ee];W[dc])", encoding="utf-8")
    out = tmp_path / "plain.json"
    r = cli("convert", str(src), str(out), "--game", "bridgego")
    assert r.returncode == 0, r.stderr
    assert json.loads(out.read_text())["moves"] == ["E5", "D7"]


@pytest.mark.parametrize("game_id", stonegarden.available_games())
def test_the_web_app_offers_sgf_for_exactly_the_games_sgf_writes(game_id):
    """The home page's SGF upload and the game page's SGF download asked the board view
    whether its builder was ``point``, a second answer to what ``sgf.py`` decides; both now ask
    ``has_sgf_form``, which says yes exactly where a record converts."""
    from stonegarden.web.pages import home_context

    game = stonegarden.make(game_id)
    record = make_record(game, [], game.initial_state())
    try:
        record_to_sgf(record)
        writes = True
    except RecordError:
        writes = False
    assert has_sgf_form(game) == writes
    offered = {g["id"] for g in home_context()["sgf_games"]}
    assert (game_id in offered) == writes


def test_convert_refuses_a_game_option_it_would_not_follow(tmp_path, cli):
    src = tmp_path / "rules.sgf"  # the RU[] names the game: --game cannot make it another
    src.write_text("(;GM[1]FF[4]SZ[5]RU[stonegarden freego size=5];B[cc])", encoding="utf-8")
    r = cli("convert", str(src), str(tmp_path / "a.json"), "--game", "bridgego")
    assert r.returncode == 2 and "freego by its RU[], not of bridgego" in r.stderr
    assert not (tmp_path / "a.json").exists()
    r = cli("convert", str(src), str(tmp_path / "a.json"), "--game", "freego")
    assert r.returncode == 0, r.stderr
    r = cli("convert", str(tmp_path / "a.json"), str(tmp_path / "b.sgf"), "--game", "bridgego")
    assert r.returncode == 2 and "--game is for an SGF file" in r.stderr
    assert not (tmp_path / "b.sgf").exists()


# -- results the rules did not reach, and other programs' files ------------------------------

@pytest.mark.parametrize("ended,re_text", [
    ({"winner": 1, "reason": "time"}, "B+T"),
    ({"winner": 2, "reason": "time"}, "W+T"),
    ({"winner": 2, "reason": "resign"}, "W+R"),  # player 1 resigned on player 2's turn
    ({"winner": None, "reason": "aborted"}, "Void"),
])
def test_an_end_off_the_board_survives_the_way_through_sgf(ended, re_text):
    """A web record's ``meta.ended`` went out as ``RE[..]`` and came back as nothing: the
    converted record of a game lost on time, resigned out of turn or aborted had no end."""
    game = stonegarden.make("freego", size=5)
    moves = [] if ended["reason"] == "aborted" else ["C3"]
    record = make_record(game, moves, meta={"ended": ended})
    text = record_to_sgf(record)
    assert f"RE[{re_text}]" in text
    assert sgf_to_record(text) == record


@pytest.mark.parametrize("clock,props", [
    ({"initial": 600, "increment": 5}, "TM[600]OT[Fischer: +5 s a move]"),
    ({"initial": 90.5, "increment": 0}, "TM[90.5]OT[Fischer: +0 s a move]"),
    ({"days_per_move": 3}, "OT[correspondence: 3 days a move]"),
])
def test_a_web_records_date_and_clock_survive_the_way_through_sgf(tmp_path, cli, clock, props):
    """The web app's record says when the game began and on which clock (``meta.date``,
    ``meta.clock``); its SGF said neither, and ``convert`` back lost both."""
    game = stonegarden.make("freego", size=5)
    record = make_record(game, ["C3"], meta={"date": "2026-12-06", "clock": clock,
                                             "ended": {"winner": 1, "reason": "time"}})
    save_record(record, tmp_path / "game.json")
    r = cli("convert", str(tmp_path / "game.json"), str(tmp_path / "game.sgf"))
    assert r.returncode == 0, r.stderr
    assert f"DT[2026-12-06]{props}RE[B+T]" in (tmp_path / "game.sgf").read_text()
    r = cli("convert", str(tmp_path / "game.sgf"), str(tmp_path / "back.json"))
    assert r.returncode == 0, r.stderr
    assert load_record(tmp_path / "back.json") == record


@pytest.mark.parametrize("props,meta", [
    ("DT[2024-03-01,02]TM[300]", {"date": "2024-03-01,02",
                                  "clock": {"initial": 300, "increment": 0}}),
    ("TM[1800]OT[5x30 byo-yomi]", None),  # an overtime a record's clock cannot say
    ("TM[fast]", None),
])
def test_another_programs_date_and_time_limit_are_read(props, meta):
    record = sgf_to_record(f"(;GM[1]FF[4]SZ[9]{props};B[ee])", game_id="freego")
    assert record.meta == meta


def test_an_overtime_of_thousands_of_days_is_dropped_not_a_traceback(tmp_path, cli):
    """``OT[correspondence: 999...9 days a move]`` (5000 digits) broke ``convert`` with
    Python's "Exceeds the limit (4300 digits)"; no record's clock says it, as for byo-yomi."""
    src = tmp_path / "g.sgf"
    src.write_text(f"(;GM[1]FF[4]SZ[9]OT[correspondence: {'9' * 5000} days a move];B[ee])")
    r = cli("convert", str(src), str(tmp_path / "g.json"), "--game", "freego")
    assert r.returncode == 0 and "Traceback" not in r.stderr, r.stderr
    record = load_record(tmp_path / "g.json")
    assert record.moves == ("E5",) and record.meta is None


def test_a_fischer_increment_beyond_a_float_is_dropped_not_a_refusal(tmp_path, cli):
    """``OT[Fischer: +999...9 s a move]`` (400 digits) read as an infinite increment, and
    ``convert`` then refused the record: "Out of range float values are not JSON compliant"."""
    src = tmp_path / "g.sgf"
    src.write_text(f"(;GM[1]FF[4]SZ[9]TM[600]OT[Fischer: +{'9' * 400} s a move];B[ee])")
    r = cli("convert", str(src), str(tmp_path / "g.json"), "--game", "freego")
    assert r.returncode == 0, r.stderr
    record = load_record(tmp_path / "g.json")
    assert record.moves == ("E5",) and record.meta is None


@pytest.mark.parametrize("re_text,ended", [
    ("W+Time", {"winner": 2, "reason": "time"}),
    ("B+Resign", {"winner": 1, "reason": "resign"}),  # White resigned with Black to move
])
def test_another_programs_time_loss_and_out_of_turn_resignation_are_kept(re_text, ended):
    record = sgf_to_record(f"(;GM[1]FF[4]SZ[9]RE[{re_text}];B[ee];W[cc])", game_id="freego")
    assert record.moves == ("E5", "C7") and record.result is None
    assert record.meta == {"ended": ended}


def test_a_go_board_without_sz_is_19_by_19():
    """SGF's Go board is 19×19 when ``SZ`` is absent; it was read as the game's 9×9."""
    record = sgf_to_record("(;GM[1]FF[4];B[pd];W[dp])", game_id="freego")
    assert record.params == {"size": 19} and record.moves == ("Q16", "D4")


@pytest.mark.parametrize("ru", ["Japanese", "Chinese"])
def test_another_programs_rules_ask_for_the_game(tmp_path, cli, ru):
    """``RU[Japanese]`` (most Go programs write one) was answered "does not name a
    stonegarden game (expected 'stonegarden GAME name=value ...')", with no word of --game."""
    src = tmp_path / "kgs.sgf"
    src.write_text(f"(;GM[1]FF[4]RU[{ru}]SZ[9]KM[6.5];B[ee];W[cc])", encoding="utf-8")
    r = cli("convert", str(src), str(tmp_path / "a.json"))
    assert r.returncode == 2 and f"RU[{ru}] names another program's rules" in r.stderr
    assert "--game" in r.stderr and len(r.stderr.splitlines()) == 1
    r = cli("convert", str(src), str(tmp_path / "a.json"), "--game", "freego")
    assert r.returncode == 0, r.stderr
    assert json.loads((tmp_path / "a.json").read_text())["moves"] == ["E5", "C7"]


@pytest.mark.parametrize("raw,name", [
    (b"\xef\xbb\xbf(;GM[1]FF[4]SZ[9]PB[Ann];B[ee])", "Ann"),  # UTF-8 with a byte order mark
    (b"(;GM[1]FF[4]CA[ISO-8859-1]SZ[9]PB[J\xe9r\xf4me];B[ee])", "J\u00e9r\u00f4me"),
    (b"(;GM[1]FF[4]SZ[9]PB[J\xe9r\xf4me];B[ee])", "J\u00e9r\u00f4me"),  # SGF's default charset
    (b"(;GM[1]FF[4]CA[GB2312]SZ[9]PB[\xc0\xee\xca\xc0\xca\xaf];B[ee])", "\u674e\u4e16\u77f3"),
    # Windows' "Unicode" files, told by their byte order mark: read as Latin-1 they began
    # with "property '\xff\xfe' outside a node"
    *(("\ufeff(;GM[1]FF[4]SZ[9]PB[\u014ctake];B[ee])".encode(codec), "\u014ctake")
      for codec in ("utf-16-le", "utf-16-be", "utf-32-le")),
])
def test_convert_reads_sgf_in_the_charset_it_names(tmp_path, cli, raw, name):
    """A byte order mark was "unexpected character '\\ufeff'", and a file in the charset its
    ``CA[]`` names (older programs' Latin-1, Chinese servers' GB2312) "is not UTF-8 text"."""
    src = tmp_path / "old.sgf"
    src.write_bytes(raw)
    r = cli("convert", str(src), str(tmp_path / "a.json"), "--game", "freego")
    assert r.returncode == 0, r.stderr
    record = load_record(tmp_path / "a.json")
    assert record.moves == ("E5",) and record.players == {"1": name}


def test_a_file_that_is_not_the_utf_16_its_byte_order_mark_names_says_so():
    with pytest.raises(RecordError, match="byte order mark of UTF-16 but is not UTF-16 text"):
        decode_sgf(b"\xff\xfe(\x00;\x00\x00\xd8", "odd.sgf")  # a lone surrogate


def test_convert_names_a_charset_it_cannot_read(tmp_path, cli):
    src = tmp_path / "odd.sgf"
    src.write_bytes(b"(;GM[1]FF[4]CA[klingon]SZ[9]PB[J\xe9r\xf4me];B[ee])")
    r = cli("convert", str(src), str(tmp_path / "a.json"), "--game", "freego")
    assert r.returncode == 2 and "CA[klingon]" in r.stderr and "Traceback" not in r.stderr


def test_a_square_size_in_the_rectangle_form_is_read():
    """``SZ[9:9]`` is SGF's rectangle form of a square board; it was "parameter 'size': '9:9'
    is not an integer"."""
    assert sgf_to_record("(;GM[1]FF[4]SZ[9:9];B[ee])", game_id="freego").moves == ("E5",)
    with pytest.raises(RecordError, match=r"SZ\[9:7\] is not a square board"):
        sgf_to_record("(;GM[1]FF[4]SZ[9:7];B[ee])", game_id="freego")


@pytest.mark.parametrize("game_id", ["blobs", "blooms"])
def test_an_sgf_file_given_a_game_without_an_sgf_form_says_so(game_id):
    # Blobs has no size: it was refused as "game 'blobs' has no parameter 'size'"
    with pytest.raises(RecordError, match=f"game {game_id!r} is not played on a square Go "
                                          "board, so it has no SGF form"):
        sgf_to_record("(;GM[1]FF[4]SZ[5];B[cc])", "x.sgf", game_id=game_id)
