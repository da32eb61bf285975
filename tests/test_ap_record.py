"""Abstract Play game records (AP Game Record JSON) of Blooms, made by Abstract Play's own games
library (tests/data/abstractplay/README.md), read into records and replayed."""

from __future__ import annotations

import copy
import json
from pathlib import Path

import pytest

from stonegarden.core.record import load_record, replay_record
from stonegarden.errors import RecordError
from stonegarden.games.blooms.ap_record import ap_to_record, looks_like_ap_record

DATA = Path(__file__).resolve().parent / "data" / "abstractplay"
FILES = sorted(DATA.glob("ap-*.json"))


def _ap(name: str) -> dict:
    return json.loads((DATA / name).read_text())


def test_the_data_is_there():
    assert len(FILES) == 6


@pytest.mark.parametrize("path", FILES, ids=lambda p: p.stem)
def test_convert_reads_each_record_and_its_replay_agrees_with_the_header(path, tmp_path, cli):
    out = tmp_path / "game.json"
    done = cli("convert", str(path), str(out))
    assert done.returncode == 0, done.stderr
    record = load_record(out)
    game, states = replay_record(record)
    ap = json.loads(path.read_text())
    header = ap["header"]
    ours = [m for m in record.moves]
    theirs = [m for rnd in ap["moves"] for m in rnd if m]
    assert len(ours) == len(theirs)
    assert record.players == {"1": "Alice", "2": "Bob"}
    final = states[-1]
    results = [p["result"] for p in header["players"]]
    assert game.winner(final) == (1 if results == [1, 0] else 2)
    if theirs[-1] == "resign":
        assert game.result_reason(final) == "resign"
    else:
        assert list(game.scores(final)) == [p["score"] for p in header["players"]]
        assert game.result_reason(final) == "target"
        assert max(game.scores(final)) >= game.params["target"]


def test_sizes_and_targets_come_from_the_variant_names():
    sizes = {}
    for path in FILES:
        record = ap_to_record(path.read_text(), path.name)
        game, _ = replay_record(record)
        sizes[path.name] = (game.params["size"], game.params["target"])
    assert sizes["ap-blooms-size4-s1.json"] == (4, 20)
    assert sizes["ap-blooms-size6-s4.json"] == (6, 30)  # "Default board (base 6)"
    assert sizes["ap-blooms-size8-s5.json"] == (8, 40)


def test_colours_map_dark_and_light_stones_per_player():
    ap = _ap("ap-blooms-size5-s3.json")
    record = ap_to_record(ap)
    assert ap["moves"][0][0] == "2g1" and record.moves[0] == "Yg1"  # player 1's light stone
    assert ap["moves"][0][1] == "1a1,2d5" and record.moves[1] == "Ka1,Gd5"


def test_an_illegal_move_is_refused_naming_the_round():
    ap = _ap("ap-blooms-size4-s2.json")
    ap["moves"][2][0] = ap["moves"][0][0]  # a stone on an occupied cell
    with pytest.raises(RecordError, match=r"round 3, player 1"):
        ap_to_record(ap, "bad")


def test_a_result_that_disagrees_with_the_replay_is_refused():
    ap = _ap("ap-blooms-size4-s2.json")
    for p in ap["header"]["players"]:
        p["result"] = 1 - p["result"]
        p["score"] = None
    with pytest.raises(RecordError, match="result"):
        ap_to_record(ap, "swapped")
    ap = _ap("ap-blooms-size4-s2.json")
    ap["header"]["players"][0]["score"] += 1
    with pytest.raises(RecordError, match="scores"):
        ap_to_record(ap, "scores")


@pytest.mark.parametrize("change, message", [
    (lambda ap: ap["header"]["game"].update(name="Blobs"), "only Blooms"),
    (lambda ap: ap["header"]["game"].update(variants=["Hex board"]), "unknown Blooms variant"),
    (lambda ap: ap.update(moves="1d4"), "list of rounds"),
    (lambda ap: ap["moves"].__setitem__(0, ["1d4", "1e5", "1f6"]), "at most two"),
    (lambda ap: ap["moves"][0].__setitem__(0, "3d4"), "not a stone"),
    (lambda ap: ap["moves"][0].__setitem__(0, 7), "is text"),
    # an annotated move without its text was named as the move None
    (lambda ap: ap["moves"][0].__setitem__(0, {}), r"round 1, player 1: a move is text, or an "
     r"object with its text as 'move', not \{\}$"),
    (lambda ap: ap["moves"][0].__setitem__(0, {"move": 3}), r"not \{'move': 3\}$"),
    (lambda ap: ap["header"].update({"pie-invoked": True}), "pie"),
])
def test_malformed_records_give_a_typed_error(change, message):
    ap = copy.deepcopy(_ap("ap-blooms-size4-s1.json"))
    change(ap)
    with pytest.raises(RecordError, match=message):
        ap_to_record(ap, "bad")


def test_garbage_is_not_an_ap_record():
    for data in (b"\xff", "not json", "[]", '{"header": {}}', {"format": "stonegarden-record"}):
        with pytest.raises(RecordError):
            ap_to_record(data)
    assert not looks_like_ap_record({"format": "stonegarden-record", "moves": []})


def test_a_timeout_leaves_the_game_unfinished_with_its_moves():
    ap = _ap("ap-blooms-size4-s1.json")
    ap["moves"] = [*ap["moves"][:3], ["timeout", ""]]
    record = ap_to_record(ap)
    assert len(record.moves) == 6 and record.result is None
    assert record.meta is not None and record.meta["ap_end"] == "timeout"


def test_a_timeout_with_its_winner_is_a_game_lost_on_time_and_the_record_keeps_its_day(
        tmp_path, cli):
    """A game that ended on Abstract Play by a timeout converted to a record that said
    nothing of who won (``meta.ap_end`` only): uploaded, the web app served it as a game
    going on. Its header's results name the winner, as ``meta.ended`` says a game lost on
    time; and its ``date-start`` was dropped."""
    ap = _ap("ap-blooms-size4-s1.json")
    assert [p["result"] for p in ap["header"]["players"]] == [0, 1]
    ap["moves"] = [*ap["moves"][:3], ["timeout", ""]]
    (tmp_path / "ap.json").write_text(json.dumps(ap))
    done = cli("convert", str(tmp_path / "ap.json"), str(tmp_path / "game.json"))
    assert done.returncode == 0, done.stderr
    record = load_record(tmp_path / "game.json")
    assert record.result is None
    assert record.meta == {"source": "Abstract Play", "ap_gameid": "stonegarden-test-1",
                           "date": "2026-01-01", "ap_end": "timeout",
                           "ended": {"winner": 2, "reason": "time"}}
    done = cli("replay", str(tmp_path / "game.json"))
    assert done.stdout.rstrip().endswith("result: winner 2 (time, from meta.ended)")
    # no winner named (a header of a game not over), or an agreed draw: no end to say
    for results, change in (([None, None], "timeout"), ([0.5, 0.5], "draw")):
        for player, result in zip(ap["header"]["players"], results):
            player["result"] = result
        ap["moves"][-1] = [change, ""]
        meta = ap_to_record(ap).meta
        assert meta is not None and "ended" not in meta and meta["ap_end"] == change
