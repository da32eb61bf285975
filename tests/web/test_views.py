"""Board views: every cell carries data-cell, marks land on the right cells, the registry
falls back to the text view, and the square view works on a fake square game."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

pytest.importorskip("httpx2", reason="starlette's TestClient needs httpx2 (test extra)")
from fakesquare import FakeSquare
from starlette.testclient import TestClient

from stonegarden.core import registry
from stonegarden.core.registry import make
from stonegarden.games.square_go_view import SquareView
from stonegarden.web.app import create_app
from stonegarden.web.views import Marks, view_for
from stonegarden.web.views.base import safe_move_cells
from stonegarden.web.views.text import TextView


def cells_of(svg: str) -> list[str]:
    return re.findall(r'data-cell="([^"]+)"', svg)


@pytest.mark.parametrize("game_id", ["blooms", "blooms-territory"])
def test_hex_view_names_every_cell_and_no_hole(game_id):
    game = make(game_id, size=3, holes=["c3"])
    svg = view_for(game).svg(game, game.initial_state(), Marks())
    assert sorted(cells_of(svg)) == sorted(game.board.names)
    assert 'data-cell="c3"' not in svg and 'class="hole"' in svg


def test_hex_view_marks_last_move_captures_and_stones_by_colour_and_mark():
    game = make("blooms", size=2, target=5)
    states = game.replay(["Ra1", "Ka2,Gb1", "Rb2"])
    view = view_for(game)
    before, after = states[-2], states[-1]
    svg = view.svg(game, after, Marks(last=tuple(view.move_cells(game, before, "Rb2")),
                                      captured=tuple(view.captured_cells(game, before, after))))
    assert view.move_cells(game, states[1], "Ka2,Gb1") == ["a2", "b1"]
    assert re.search(r'class="cell last" data-cell="b2"[^>]*data-content="R"', svg)
    # every colour letter has its own mark in the defs (not hue alone)
    for letter in "RYKG":
        assert f'id="sg-stone-{letter}"' in svg
    assert 'url(#sg-hatch)' in svg
    legend = view.legend(game)
    assert [c["mark"] for c in legend] == ["filled dot", "ring", "square", "diagonal hatch"]


def test_hex_view_legal_targets_are_the_cells_of_legal_moves():
    game = make("blooms-territory", size=2)
    s = game.replay(["Rb2"])[-1]
    targets = view_for(game).legal_targets(game, s)
    assert "b2" not in targets and set(targets) <= set(game.board.names)
    assert len(targets) == 6


def test_square_view_uses_gtp_names_rows_from_the_bottom():
    game = FakeSquare(size=9)
    view = SquareView()
    assert view.supports(game)
    names = cells_of(view.svg(game, game.initial_state(), Marks()))
    assert len(names) == 81 and "I1" not in names and {"A1", "J9", "E5"} <= set(names)
    state = game.replay(["A1", "J9"])[-1]
    svg = view.svg(game, state, Marks(last=("J9",)))
    assert re.search(r'data-cell="A1" data-x="0" data-y="288" data-content="B"', svg)
    assert re.search(r'class="cell last" data-cell="J9" data-x="288" data-y="0" '
                     r'data-content="W"', svg)


def test_square_view_captures_targets_and_builder():
    game = FakeSquare(size=3)
    view = SquareView()
    states = game.replay(["A2", "B1", "C2", "B2"])
    assert view.captured_cells(game, states[-2], states[-1]) == ["A2", "C2"]
    assert view.move_cells(game, states[-2], "b2") == ["B2"]
    assert "B2" not in view.legal_targets(game, states[-1])
    assert view.builder(game, states[-1])["kind"] == "point"


def test_free_go_draws_and_says_the_stones_a_suicide_left_without_a_liberty(tmp_path: Path):
    """A suicide stays on the board, counting for nothing until the opponent's next move
    removes and scores it; it was drawn and said as any stone, so a player could not see that
    it was there to be scored, not captured. It is drawn faded and struck through, said so on
    its cell and named in the snapshot, while the game goes on."""
    game = make("freego", size=5)
    view = view_for(game)
    states = game.replay(["C3", "A2", "D4", "B1", "A1"])
    svg = view.svg(game, states[-1], Marks(last=("A1",)))
    marked = re.findall(r'<g class="([^"]*)" data-cell="([^"]+)"[^>]*aria-label="([^"]*)"', svg)
    assert [(name, label) for cls, name, label in marked if "no-liberty" in cls.split()] == [
        ("A1", "A1, black stone, no liberty: White's next move removes it and scores it")]
    assert svg.count('class="no-liberty-mark"') == 1
    assert "no liberty" in view.mark_legend(game)[-1]["name"]
    later = game.play_text(states[-1], "E5")  # White's move removes it, scoring it
    assert view.no_liberty_cells(game, later) == [] and "no-liberty" not in view.svg(
        game, later, Marks())
    with TestClient(create_app(tmp_path / "g.db", workers=1)) as client:
        made = client.post("/api/games", json={"game": "freego", "params": {"size": 5},
                                               "seats": ["human", "human"]}).json()
        for ply, text in enumerate(["C3", "A2", "D4", "B1", "A1"]):
            r = client.post(f"/api/games/{made['id']}/move",
                            json={"secret": made["secrets"][str(ply % 2 + 1)], "move": text})
            assert r.status_code == 200, r.text
        assert r.json()["no_liberty"] == ["A1"]
        before = client.get(f"/api/games/{made['id']}?ply=4").json()
        assert before["no_liberty"] == []


def test_games_without_a_view_fall_back_to_the_text_view():
    class Unknown(FakeSquare):
        id = "unknown-game"
        board_view = ""  # names no view

    assert isinstance(view_for(Unknown()), TextView)
    svg = view_for(Unknown()).svg(Unknown(), Unknown().initial_state(), Marks())
    assert svg.startswith("<svg") and "......... 1" in svg


@pytest.fixture
def square_registered():
    registry._load()
    registry._GAMES[FakeSquare.id] = FakeSquare
    yield
    registry._GAMES.pop(FakeSquare.id, None)


def test_a_square_game_is_played_through_the_api_with_the_point_builder(
        square_registered, tmp_path: Path):
    with TestClient(create_app(tmp_path / "g.db", workers=1)) as client:
        made = client.post("/api/games", json={"game": "fake-square", "params": {"size": 3},
                                               "seats": ["human", "human"]}).json()
        gid, k1 = made["id"], made["secrets"]["1"]
        snap = client.get(f"/api/games/{gid}", headers={"X-Seat-Secret": k1}).json()
        assert snap["builder"]["kind"] == "point" and len(cells_of(snap["svg"])) == 9
        r = client.post(f"/api/games/{gid}/move", json={"secret": k1, "move": "b3"})
        assert r.status_code == 200 and r.json()["last"] == ["B3"]
        assert client.get(f"/game/{gid}").status_code == 200


def test_square_games_download_and_upload_sgf(tmp_path: Path):
    with TestClient(create_app(tmp_path / "g.db", workers=1)) as client:
        made = client.post("/api/games", json={"game": "freego", "params": {"size": 5},
                                               "seats": ["human", "human"]}).json()
        gid, k1, k2 = made["id"], made["secrets"]["1"], made["secrets"]["2"]
        assert 'id="download-sgf"' in client.get(f"/game/{gid}").text
        client.post(f"/api/games/{gid}/move", json={"secret": k1, "move": "C3"})
        client.post(f"/api/games/{gid}/move", json={"secret": k2, "move": "D4"})
        sgf = client.get(f"/api/games/{gid}/record.sgf")
        assert sgf.status_code == 200 and sgf.text.startswith("(;GM[1]FF[4]")
        assert ";B[cc];W[db]" in sgf.text and "SZ[5]" in sgf.text
        assert client.get(f"/api/games/{gid}/record.sgf").text == sgf.text
        client.post(f"/api/games/{gid}/move", json={"secret": k1, "move": "E5"})
        longer = client.get(f"/api/games/{gid}/record.sgf").text  # made anew for the new move
        assert ";B[cc];W[db];B[ea]" in longer
        up = client.post("/api/records", content=sgf.text.encode(),
                         headers={"Content-Type": "application/x-go-sgf"})
        assert up.status_code == 201, up.text
        again = client.get(f"/api/games/{up.json()['id']}").json()
        assert [m["text"] for m in again["moves"]] == ["C3", "D4"]
        count = len(client.get("/api/games").json()["games"])
        bad = client.post("/api/records", content=sgf.text.replace("W[db]", "W[cc]").encode(),
                          headers={"Content-Type": "application/x-go-sgf"})
        assert bad.status_code == 400 and bad.json()["error"].startswith("bad record")
        assert len(client.get("/api/games").json()["games"]) == count


def test_no_sgf_for_hex_games(tmp_path: Path):
    with TestClient(create_app(tmp_path / "g.db", workers=1)) as client:
        gid = client.post("/api/games", json={"game": "blooms", "params": {"size": 2},
                                              "seats": ["human", "human"]}).json()["id"]
        r = client.get(f"/api/games/{gid}/record.sgf")
        assert r.status_code == 404 and "square" in r.json()["error"]


@pytest.mark.parametrize("game_id", ["freego", "blooms"])
def test_a_capture_races_score_line_says_what_reaching_the_target_does(game_id):
    """Free Go's score line read "captures toward 10", where Blooms' reads "captures, first to
    15 wins": a newcomer was not told that reaching it ends the game."""
    game = make(game_id)
    track = view_for(game).score_track(game, game.initial_state())
    assert track["label"] == f"captures, first to {game.params['target']} wins"


def test_a_game_without_a_view_of_its_own_races_to_a_score_not_to_captures():
    """The shared view named a target's scores "captures", Free Go's; a game drawn by the
    text view that races to a target counts what its own rules count."""
    from stonegarden.web.views.text import VIEW

    class Racing:  # the little of a game the score track reads
        def __init__(self) -> None:
            self.params = {"target": 7}

        def scores(self, state):
            return (2, 3)

    track = VIEW.score_track(Racing(), None)
    assert track["label"] == "score, first to 7 wins" and track["scores"] == [2, 3]


@pytest.mark.parametrize("game_id", ["blooms", "blooms-territory"])
def test_blooms_builder_offers_a_pass_exactly_where_the_rules_allow_one(game_id):
    """The builder asks the rules, which refuse a pass in the race and on the first turn."""
    game = make(game_id, size=3)
    state = game.initial_state()
    offered = []
    for move in ("Rb2", "Kc3", "pass"):
        offered.append(view_for(game).builder(game, state)["can_pass"])
        if not game.is_legal(state, game.parse_action(state, move)):
            break
        state = game.play_text(state, move)
    assert offered == ([False, False, False] if game_id == "blooms" else [False, True, True])


def test_blooms_move_cells_are_read_by_its_notation():
    """The view read a move's cells by cutting its text itself; it reads them as the rules do,
    so any text they take names its cells (and a pass none)."""
    game = make("blooms-territory", size=3)
    state = game.play_text(game.initial_state(), "Rb2")
    view = view_for(game)
    assert view.move_cells(game, state, " ka2 , Gb1 ") == ["a2", "b1"]
    assert view.move_cells(game, state, "PASS") == []
    assert safe_move_cells(view, game, state, "resign") == []


@pytest.mark.parametrize("roll", ["roll:R", "roll:B", "roll:M"])
def test_blobs_builder_s_example_is_a_move_of_the_face_rolled(roll):
    """The move field's example after a Tumbling Dice roll places the face rolled (the page's
    own, of the first decision, was a Red face whatever came up)."""
    game = make("blobs", tumbling=True)
    state = game.play_text(game.initial_state(), roll)
    example = view_for(game).builder(game, state)["example"]
    assert example.endswith(roll[-1]) and game.is_legal(state, game.parse_action(state, example))
