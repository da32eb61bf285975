"""Readers of other programs' records: a game package registers one (``core.foreign``) and
``convert`` and the web app's upload find it without knowing the game or the format."""

from __future__ import annotations

import json

import pytest
from click.testing import CliRunner

from stonegarden.cli.main import cli
from stonegarden.core import foreign
from stonegarden.core.foreign import ForeignReader, foreign_reader, register_reader
from stonegarden.core.record import load_record, make_record
from stonegarden.core.registry import make
from stonegarden.games.blooms import ap_record
from stonegarden.web.job_kinds import json_record


def _toy_read(data, source):
    game = make("freego", size=5)
    return make_record(game, data["toy"], players={"1": source})


TOY = ForeignReader("toy record", lambda d: isinstance(d, dict) and "toy" in d, _toy_read)


@pytest.fixture
def toy(monkeypatch):
    monkeypatch.setattr(foreign, "_READERS", list(foreign.foreign_readers()))
    register_reader(TOY)
    return TOY


def test_blooms_registers_the_abstract_play_reader():
    ap = {"header": {"game": {"name": "Blooms"}}, "moves": []}
    assert foreign_reader(ap) is ap_record.READER
    assert foreign_reader({"format": "stonegarden-record", "moves": []}) is None


def test_a_second_reader_under_a_registered_name_is_refused(toy):
    with pytest.raises(ValueError, match="'toy record' registered twice"):
        register_reader(ForeignReader("toy record", TOY.recognises, TOY.read))
    assert register_reader(TOY) is TOY  # registering the same one again is harmless


def test_convert_and_the_upload_read_a_registered_format(toy, tmp_path):
    src, out = tmp_path / "toy.json", tmp_path / "game.json"
    src.write_text(json.dumps({"toy": ["c3", "d4"]}))
    r = CliRunner().invoke(cli, ["convert", str(src), str(out)])
    assert r.exit_code == 0, r.output
    assert r.output == f"{src} -> {out}: freego, 2 moves\n"
    record = load_record(out)
    assert list(record.moves) == ["c3", "d4"] and record.players == {"1": str(src)}
    src.write_text(json.dumps({"toy": ["c3"]}))
    one = CliRunner().invoke(cli, ["convert", str(src), str(tmp_path / "one.json")])
    assert one.output == f"{src} -> {tmp_path / 'one.json'}: freego, 1 move\n"
    upload = json_record(json.dumps({"toy": ["c3"]}))
    assert list(upload.moves) == ["c3"] and upload.players == {"1": "upload"}
