"""The example records on the games' pages are records: each replays, and its result is the
replay's."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from stonegarden.core.record import parse_record, replay_record

PAGES = sorted((Path(__file__).resolve().parents[1] / "docs" / "games").glob("*.md"))
BLOCK = re.compile(r"```json\n(\{.*?\})\n```", re.S)


def examples() -> list[tuple[str, str]]:
    return [(page.name, text) for page in PAGES for text in BLOCK.findall(page.read_text())
            if '"stonegarden-record"' in text]


def test_every_game_page_has_an_example_record():
    assert sorted({name for name, _ in examples()}) == sorted(
        p.name for p in PAGES if p.stem in ("blooms", "freego", "bridgego", "blobs"))


@pytest.mark.parametrize("page,text", examples())
def test_an_example_record_replays_to_its_result(page, text):
    record = parse_record(text)
    assert record.result is not None, page
    replay_record(record)  # raises on an illegal move or a result the replay disagrees with
