"""What players read: the end of a game in words and what decided it drawn on the board, the
per-game fixes, rules pages that cite no file a player lacks, the stored-games list in words,
and pages without inline script or style (a strict Content-Security-Policy allows them)."""

from __future__ import annotations

import re
from pathlib import Path

import numpy as np
import pytest

pytest.importorskip("httpx2", reason="starlette's TestClient needs httpx2 (test extra)")
from starlette.testclient import TestClient

from stonegarden.core.protocol import CHANCE
from stonegarden.core.registry import available_games, make
from stonegarden.games.square_go_view import star_points
from stonegarden.web.app import _example_move, create_app
from stonegarden.web.pages import first_mover, params_words, player_doc
from stonegarden.web.seats import seat_words
from stonegarden.web.views import Marks, view_for

TEMPLATES = Path(__file__).resolve().parents[2] / "src" / "stonegarden" / "web" / "templates"
STATIC = TEMPLATES.parent / "static"


@pytest.fixture
def client(tmp_path: Path):
    with TestClient(create_app(tmp_path / "games.db", workers=1)) as c:
        yield c


def finish(game_id: str, params: dict, moves: list[str]):
    game = make(game_id, **params)
    states = game.replay(moves)
    assert game.is_terminal(states[-1])
    return game, states[-1]


# -- the end of a game ------------------------------------------------------------------------
BRIDGE = ["C1", "A1", "C2", "A2", "C3", "A3", "C4", "A4", "C5"]


def test_bridge_go_names_and_draws_the_winning_chain():
    game, final = finish("bridgego", {"size": 5}, BRIDGE)
    assert [game.board.names[p] for p in game.winning_chain(final)] == ["C1", "C2", "C3", "C4",
                                                                         "C5"]
    view = view_for(game)
    assert view.outcome(game, final) == {"winner": 1, "reason": "bridge",
                                         "detail": "Black joined south and north"}
    svg = view.svg(game, final, Marks())
    decisive = re.findall(r'class="cell[^"]*decisive[^"]*" data-cell="([A-Z0-9]+)"', svg)
    assert decisive == ["C1", "C2", "C3", "C4", "C5"]
    assert svg.count('class="chain"') == 5 + 4  # a halo per stone, a band per link
    # a screen reader is told it too, as a Blobs die round the closed blob
    assert 'aria-label="C3, black stone, in the chain that won"' in svg
    assert svg.count("in the chain that won") == 5
    # during the game there is neither chain nor score
    before = game.replay(BRIDGE[:-1])[-1]
    assert game.winning_chain(before) == [] and "decisive" not in view.svg(game, before, Marks())
    assert view.score_track(game, before)["scores"] == []


def test_territory_is_shaded_at_the_end_as_the_rules_count_it():
    game, final = finish("blooms-territory", {"size": 3},
                         ["Yb3", "Ka2,Gb1", "Rd4,Yc1", "Kd2", "Rc3,Ya1", "Kb2,Ge1", "Rb4,Yc4",
                          "pass", "pass"])
    owners = game.territory_owners(final)
    board = np.frombuffer(final.board, np.int8)
    s1, s2 = game.scores(final)
    assert s1 == int(np.sum((board == 1) | (board == 2))) + int(np.sum(owners == 1))
    assert s2 == int(np.sum(board >= 3)) + int(np.sum(owners == 2))
    assert (owners[board != 0] == 0).all() and (owners == 1).any() and (owners == 2).any()
    view = view_for(game)
    svg = view.svg(game, final, Marks())
    for p in (1, 2):
        shaded = set(re.findall(rf'class="cell[^"]*territory-{p}[^"]*" data-cell="(\w+)"', svg))
        assert shaded == {game.board.names[i] for i in np.flatnonzero(owners == p)}
    out = view.outcome(game, final)
    assert "both players passed" in out["detail"] and f"{s1} to {s2}" in out["detail"]
    assert "stones on the board plus territory" in view.score_track(game, final)["label"]
    playing = game.replay(["Yb3", "Ka2,Gb1"])[-1]
    assert "territory-" not in view.svg(game, playing, Marks())


def test_blobs_draws_the_dice_round_the_closed_blob_and_says_what_won():
    game = make("blobs")
    s = game.initial_state()
    rng = np.random.default_rng(5)
    while not game.is_terminal(s):
        acts = game.legal_actions(s)
        s = game.play(s, int(acts[rng.integers(len(acts))]))
    view = view_for(game)
    closed = [b for b in game.blobs(s) if b.closed]
    svg = view.svg(game, s, Marks())
    if closed:
        assert "decisive" in svg
    out = view.outcome(game, s)
    assert out["reason"] == game.result_reason(s)
    assert out["detail"] != out["reason"].replace("-", " ")  # words, not the code


@pytest.mark.parametrize("win, says", [
    ("either", "a closed blob, or a white circle ringed by one colour, wins for that colour"),
    ("white", "a white circle ringed by one colour wins for that colour"),
    ("own", "a closed blob wins for its colour"),
    ("enemy", "a closed blob wins for the other colour"),
])
def test_blobs_says_what_wins_under_its_win_rule(win, says):
    """The line over the board said "close a blob to win" under every ``win`` rule: under
    ``enemy`` closing a blob of your colour loses, and under ``white`` it does nothing. It left
    out the rule a newcomer loses a first game to: handing the opponent a win loses."""
    game = make("blobs", win=win)
    label = view_for(game).score_track(game, game.initial_state())["label"]
    assert label == (f"No score: {says}; a move that hands the opponent a win loses"
                     " · dice left: 47")


@pytest.mark.parametrize("game_id, moves, words", [
    ("blooms", ["Rd4", "resign"], "Player 2 resigned"),
    ("freego", ["E5", "resign"], "White resigned"),
    ("blobs", ["h9M", "resign"], "Red resigned"),
])
def test_resignation_in_words(game_id, moves, words):
    game, final = finish(game_id, {}, moves)
    assert view_for(game).outcome(game, final)["detail"] == words


@pytest.mark.parametrize("win, words", [
    ("enemy", "Blue closed a red blob (under these rules a closed blob wins for the other "
              "colour)"),
    ("either", "Blue completed Red's winning shape, which loses"),
])
def test_blobs_names_who_closed_the_blob(win, words):
    """T3: Blue's g9M closes the red disc on h8. Under ``win=enemy`` that wins for Blue, the
    player who closed it (not "Red closed a red blob")."""
    game, final = finish("blobs", {"win": win}, ["h9M", "g8M", "g9M"])
    assert view_for(game).outcome(game, final)["detail"] == words


def test_a_handicap_is_not_counted_as_captures():
    """The docs' Blooms record with player 2 given a point: its first capture reaches the
    target of 2, one stone captured, not two."""
    moves = ["Re1", "Ka2,Ge3", "Rc4,Yc1", "Kc2,Gb2", "Rc3,Ya1", "Kd4,Gb1"]
    game, final = finish("blooms", {"size": 3, "target": 2, "start_scores": [0, 1]}, moves)
    assert game.scores(final) == (0, 2)
    assert view_for(game).outcome(game, final)["detail"] == (
        "Player 2 captured 1 stone and was given 1 at the start: 2 (the target is 2)")
    game, final = finish("blooms", {"size": 3, "target": 1}, moves)
    assert view_for(game).outcome(game, final)["detail"] == (
        "Player 2 captured 1 stone (the target is 1)")
    game, final = finish("freego", {"size": 5, "target": 1},
                         ["B5", "E1", "A4", "C3", "B3", "A5", "B2"])
    assert view_for(game).outcome(game, final)["detail"] == (
        "Black captured 1 stone (the target is 1)")


@pytest.mark.parametrize("turns, words", [(1, "(1 move)"), (2, "(2 moves)")])
def test_a_move_limit_says_its_moves_in_good_english(turns, words):
    game, final = finish("bridgego", {"size": 5, "superko": False, "max_turns": turns},
                         ["C1", "A1"][:turns])
    assert view_for(game).outcome(game, final) == {
        "winner": 0, "reason": "max-turns", "detail": f"the move limit {words} was reached"}


def test_no_outcome_while_the_game_goes_on():
    for game_id in available_games():
        game = make(game_id)
        assert view_for(game).outcome(game, game.initial_state()) is None


# -- per-game fixes -----------------------------------------------------------------------------
def test_star_points_are_the_usual_ones():
    assert len(star_points(9)) == 5 and (4, 4) in star_points(9)
    assert len(star_points(13)) == 5 and len(star_points(19)) == 9
    assert len(star_points(8)) == 4


def test_square_labels_stay_clear_of_the_edge_stones():
    game = make("freego", size=9)
    svg = view_for(game).svg(game, game.initial_state(), Marks())
    stone = 36 * 0.47
    for y in re.findall(r'class="col-label" x="[^"]+" y="([-\d.]+)"', svg)[:1]:
        assert float(y) + 1 < -stone - 5  # the baseline sits above the top edge's stones
    for x in re.findall(r'class="row-label" x="([-\d.]+)"', svg)[:1]:
        assert float(x) + 8 < -stone  # half a two-digit label left of the left edge's stones


def test_the_last_move_mark_is_the_legend_key():
    game = make("freego", size=9)
    s = game.replay(["E5"])[-1]
    view = view_for(game)
    svg = view.svg(game, s, Marks(last=("E5",)))
    mark = re.search(r'<circle class="last-mark"[^>]*/>', svg).group(0)
    key = next(m for m in view.mark_legend(game) if m["name"] == "last move")["swatch"]
    assert 'class="last-mark"' in key and 'stroke="#ffffff"' in mark and 'stroke="#ffffff"' in key


def test_players_have_their_colours_in_the_score_bars():
    assert view_for(make("freego")).score_track(make("freego"),
                                                make("freego").initial_state())["colours"] == \
        ["p-black", "p-white"]
    game = make("blooms")
    assert view_for(game).player_colours(game)[0] == "red and yellow stones"


def test_blobs_offers_a_picture_of_each_face_and_moves_first_as_blue():
    game = make("blobs")
    builder = view_for(game).builder(game, game.initial_state())
    options = builder["options"]
    assert options and all(len(v) == 2 for v in options.values())  # two faces per frontier cell
    assert all(o["svg"].startswith("<svg") and 'data-face' in o["svg"]
               for v in options.values() for o in v)
    assert first_mover("blobs") == 2 and first_mover("blooms") == 1
    tumbling = make("blobs", tumbling=True)
    rolled = tumbling.play(tumbling.initial_state(), tumbling.chance_outcomes(
        tumbling.initial_state())[0][0])
    one = view_for(tumbling).builder(tumbling, rolled)["options"]
    assert all(len(v) == 1 for v in one.values())  # the rolled face fits one way: no choice


@pytest.mark.parametrize("game_id", available_games())
def test_who_chooses_first_is_known_without_playing_and_is_what_the_rules_play(game_id,
                                                                               monkeypatch):
    """The home page found who moves first by playing to the first decision, which ran
    Blobs' kernels in its request, on the event loop: from an empty cache they compiled there,
    and every request of the server waited about 20 s. The page plays no position, and says
    what the rules play."""
    from stonegarden.core.protocol import Game
    from stonegarden.web.pages import home_context

    games = [make(game_id)] + ([make(game_id, tumbling=True)] if game_id == "blobs" else [])
    played = [int(g.current_player(g.first_decision())) for g in games]
    def no_position(self):
        raise AssertionError("the home page played a position")

    monkeypatch.setattr(Game, "first_decision", no_position)
    monkeypatch.setattr(Game, "initial_state", no_position)
    for g in games:
        monkeypatch.setattr(type(g), "initial_state", no_position)
    assert {home_context(10)["seating"][game_id]["first"]} == set(played)


@pytest.mark.parametrize("params", [{}, {"tumbling": True}])
def test_the_move_field_s_example_is_a_legal_first_choice(params):
    """The example is played where a player first chooses, past the opening roll, as the
    protocol's ``first_decision`` walks to it."""
    game = make("blobs", **params)
    state = game.first_decision()
    assert game.current_player(state) == 2
    assert game.is_legal(state, game.parse_action(state, _example_move(game)))


def test_blobs_says_what_to_click_in_a_players_words():
    """The prompt said "click a highlighted frontier cell": "frontier" is a word of the rules'
    notes for programs, never met by a player."""
    for game in (make("blobs"), make("blobs", tumbling=True)):
        state = game.initial_state()
        if game.current_player(state) == CHANCE:
            state = game.play(state, game.chance_outcomes(state)[0][0])
        prompt = view_for(game).builder(game, state)["prompt"]
        assert "frontier" not in prompt and "click a highlighted cell, where a die fits" in prompt


def test_every_cell_has_an_accessible_name_and_can_take_the_focus():
    for game_id in available_games():
        game = make(game_id)
        svg = view_for(game).svg(game, game.initial_state(), Marks())
        cells = re.findall(r"<[^>]*data-cell=[^>]*>", svg)
        assert cells, game_id
        for tag in cells:
            assert 'tabindex="-1"' in tag and 'role="button"' in tag, (game_id, tag)
            name = re.search(r'data-cell="(\w+)"', tag).group(1)
            assert re.search(rf'aria-label="{name}, (empty|Mixed face)', tag), (game_id, tag)


def test_a_cells_name_says_what_its_picture_shows():
    """A die's face and which way round it lies; whose a Blooms stone is (two colours each)."""
    blobs = make("blobs")
    svg = view_for(blobs).svg(blobs, blobs.play_text(blobs.initial_state(), "h9R"), Marks())
    assert 'aria-label="h8, Mixed face: red north-west, blue south-east"' in svg
    assert 'aria-label="h9, Red face: red north-east, red south-west"' in svg
    # T4: Blue's f9R fills f8 by itself and closes a white circle ringed by Red's faces
    over = blobs.replay(["g8R", "g9R", "f9R"])[-1]
    svg = view_for(blobs).svg(blobs, over, Marks(auto=("f8",)))
    assert ('aria-label="f8, Red face: red north-west, red south-east, filled automatically, '
            'round the closed blob that ended the game"') in svg
    assert svg.count("round the closed blob that ended the game") == 4
    blooms = make("blooms", size=3)
    state = blooms.play_text(blooms.play_text(blooms.initial_state(), "Ya1"), "Kb2,Gc3")
    svg = view_for(blooms).svg(blooms, state, Marks())
    for label in ("a1, yellow stone, Player 1", "b2, black stone, Player 2",
                  "c3, grey stone, Player 2"):
        assert f'aria-label="{label}"' in svg


# -- pages ------------------------------------------------------------------------------------
def test_rules_index_and_pages_for_players(client):
    page = client.get("/rules")
    assert page.status_code == 200 and ".md" not in page.text
    for game_id in available_games():
        assert f'href="/rules/{game_id}"' in page.text
        rules = client.get(f"/rules/{game_id}").text
        assert "shared/spec" not in rules and not re.search(r"\w+\.py\b", rules), game_id
        assert f'href="/?game={game_id}"' in rules
    home = client.get("/").text
    assert 'href="/rules"' in home  # the header's link is the index, not one game


def test_the_games_are_named_in_words_a_first_time_player_knows(client):
    """The new-game chooser's titles and the rules index's summaries speak to a player, not in
    the designers' shorthand ("capture-N", "suicide")."""
    words = client.get("/api/meta").text + client.get("/rules").text
    assert "Free Go (a capture race)" in words
    for jargon in ("capture-N", "suicide"):
        assert jargon not in words


def test_rules_pages_leave_out_what_programs_read_and_give_the_parameters_once(client):
    """A player reading the rules met the action encoding and observation planes of networks
    ("Specs"), the record format and `replay --json` ("Records and replay"), and two tables
    headed "Parameters" that disagreed (the doc's, in the command line's words, and the
    page's): the page gives the rules, and its own table once."""
    for game_id in available_games():
        rules = client.get(f"/rules/{game_id}").text
        for words in ("Observation planes", "Action encoding", "stonegarden-record",
                      "replay RECORD", "<h2>Specs</h2>", "<h2>Records and replay</h2>"):
            assert words not in rules, (game_id, words)
        assert rules.count("<h2>Parameters</h2>") == 1, game_id
        assert "<h2>Notation</h2>" in rules, game_id  # how moves are written stays


def test_rules_pages_leave_out_the_terminals_commands_and_the_protocols_words(client):
    """The Blobs page opened with three command lines (`stonegarden replay game.json --json`,
    `stonegarden bench playouts ...`), and its Tumbling Dice told a player of a "chance node",
    `current_player` and `legal_moves`: words of the program's interface. The page keeps the
    rule (the roll, its odds, its record entry) and leaves the rest to the doc's Specs."""
    for game_id in available_games():
        rules = client.get(f"/rules/{game_id}").text
        for words in ("stonegarden bench", "stonegarden replay", "--json", "current_player",
                      "chance_outcomes", "chance node"):
            assert words not in rules, (game_id, words)
    blobs = client.get("/rules/blobs").text
    assert "Before each move the mover rolls the die" in blobs and "roll:M" in blobs


def test_rules_pages_notation_names_no_functions_or_commands(client):
    """The Notation sections named ``game.position_text``, ``game.parse_diagram`` and terminal
    commands (``stonegarden convert game.json game.sgf``, ``stonegarden play freego``), which a
    player in the browser cannot use: the page keeps the forms and what they hold."""
    for game_id in available_games():
        rules = client.get(f"/rules/{game_id}").text
        for words in ("<code>game.", "<code>stonegarden "):
            assert words not in rules, (game_id, words)
        assert "<strong>Diagram</strong>:" in rules, game_id
    assert "<strong>Position text</strong> (one line):" in client.get("/rules/blooms").text
    assert "the game chosen beside the upload" in client.get("/rules/freego").text


def test_the_upload_field_offers_an_sgf_file_saved_as_text(client):
    """The page reads an SGF file by its text whatever its name (a Go program's ``.txt``), but
    its file field offered only ``.json`` and ``.sgf``: the file picker greyed the ``.txt`` out."""
    field = re.search(r'<input type="file" id="upload-file" accept="([^"]*)"',
                      client.get("/").text)
    assert field is not None
    assert {".json", ".sgf", ".txt"} <= set(field.group(1).split(","))


def test_a_rules_pages_parameters_read_as_the_command_line_takes_them(client):
    """Defaults as ``--param`` takes them and ``stonegarden games`` writes them (not Python's
    ``()``, ``(0, 0)``, ``False``, ``None``), with the values each parameter takes."""
    def rows(game_id):
        table = client.get(f"/rules/{game_id}").text.split('id="params-table"')[1]
        table = table.split("</table>")[0]
        return {re.sub("<[^>]+>", "", cells[0]): [re.sub("<[^>]+>", "", c) for c in cells[1:3]]
                for cells in (re.findall(r"<td>(.*?)</td>", row)
                              for row in table.split("<tr>")[2:])}

    race = rows("blooms")
    assert race["holes"] == ["empty", "up to 400 names"]
    assert race["start_scores"] == ["0,0", "two integers, each 0..999"]
    assert race["size"] == ["4", "2..12"] and race["target"] == ["15", "1..1000"]
    territory = rows("blooms-territory")
    assert territory["superko"] == ["false", "true, false"]
    assert territory["max_turns"] == ["none", "1..10000"]
    assert rows("freego")["ko"] == ["simple", "none, simple, superko"]
    assert rows("bridgego")["max_turns"] == ["324", "1..10000"]
    assert rows("blobs")["tumbling"] == ["false", "true, false"]


def test_a_rules_pages_pictures_are_images_not_buttons_that_do_nothing(client):
    """Each cell of the pictures was a button to a screen reader (162 on Free Go's page, two
    of each name), which did nothing: the pictures are images, named by their titles."""
    for game_id in available_games():
        rules = client.get(f"/rules/{game_id}").text
        pictures = rules[rules.index('<div class="pictures">'):]
        assert 'role="button"' not in pictures and "tabindex" not in pictures, game_id
        assert pictures.count('role="img"') >= 2, game_id


def test_a_rules_pages_first_picture_is_captioned_as_what_it_shows():
    """Blobs starts with Red's opening die on the table, not an empty board; a Go board is
    labelled by its columns and rows, not cell by cell."""
    from stonegarden.web.pages import sample_pictures

    first = {g: sample_pictures(g, moves=0)[0] for g in ("blooms", "freego", "blobs")}
    assert first["blobs"]["caption"].startswith("The opening position: Red's die on h8")
    assert 'data-cell="h8"' in first["blobs"]["svg"]
    assert first["blooms"]["caption"] == "The empty board, with every cell named"
    assert "every cell named" not in first["freego"]["caption"]


def test_rules_pages_give_defaults_and_colours_as_players_write_them(client):
    # the parameters as the home page and --param take them, not Python's forms
    page = client.get("/rules/blooms-territory").text
    table = page.split('id="params-table"')[1].split("</table>")[0]
    assert "<td>empty</td>" in table and "<td>false</td>" in table and "<td>none</td>" in table
    assert not re.search(r"<td>(True|False|None|\(\))</td>", table)
    assert "<td>0,0</td>" in client.get("/rules/blooms").text
    # Blobs has dice, not stones: each colour named as the game page's legend names it
    blobs = client.get("/rules/blobs").text
    assert "Stones</h2>" not in blobs and "marked by a" not in blobs
    assert "<b>R</b> red (dotted regions), player 1" in blobs
    assert "is ringed" not in blobs  # a die's last move is outlined, not ringed


def test_the_advanced_seat_field_suggests_only_specs_that_work(client):
    # "level" alone is refused (which level?): the field offers and names level:2
    home = client.get("/").text
    assert '<option value="level">' not in home and "<code>level</code>" not in home
    assert '<option value="level:2">' in home
    for spec in re.findall(r'<datalist id="agents">(.*?)</datalist>', home, re.S)[0].split(
            '<option value="')[1:]:
        spec = spec.split('"')[0]
        seats = ["human", spec]
        made = client.post("/api/games", json={"game": "freego", "seats": seats})
        assert made.status_code == 201, (spec, made.json())


def test_player_doc_keeps_the_rules_and_drops_what_players_lack():
    md = ("# G\n\nIntro.\n\nThe authoritative text is `shared/spec/g.md`.\n\n## Rules\n\n"
          "Play (`games/g/rules.py`). See `docs/games/freego.md`.\n\n## Implementation\n\n"
          "Kernels.\n\n## Version history\n\n- v1\n")
    out = player_doc(md)
    assert "Intro." in out and "Play. See [its rules page](/rules/freego)." in out
    assert "shared/spec" not in out and "Kernels" not in out and "v1" not in out


def test_game_page_links_its_own_rules_and_has_the_new_parts(client):
    made = client.post("/api/games", json={"game": "freego", "seats": ["human", "human"]}).json()
    page = client.get(f"/game/{made['id']}").text
    assert 'href="/rules/freego">Rules</a>' in page  # the header's link too
    for part in ('id="new-game"', 'id="confirm-moves"', 'id="turn-sound"', 'id="ask"',
                 'rel="icon"', 'id="theme-toggle"'):
        assert part in page
    assert client.get("/static/favicon.svg").status_code == 200


def test_the_legends_pictures_are_hidden_from_screen_readers(client):
    # each key's words follow it: a screen reader heard "image" before each of Blooms' stones
    for game_id in available_games():
        made = client.post("/api/games", json={"game": game_id, "seats": ["human", "human"]})
        for path in (f"/game/{made.json()['id']}", f"/rules/{game_id}"):
            keys = re.findall(r'<svg [^>]*class="swatch[^>]*>', client.get(path).text)
            assert keys or path.startswith("/rules"), path
            assert all('aria-hidden="true"' in key for key in keys), (path, keys)


def test_every_column_of_the_lists_of_games_has_a_heading(client):
    # a screen reader names each cell by its column's heading: Join, Play and "Your turn" had none
    client.post("/api/games", json={"game": "freego", "seats": ["human", "human"], "public": True})
    for path in ("/lobby", "/my-games", "/games"):
        headings = re.findall(r"<th>(.*?)</th>", client.get(path).text)
        assert headings and all(re.sub(r"<[^>]+>", "", h).strip() for h in headings), path


def test_illegal_moves_are_explained_without_the_position_text(client):
    made = client.post("/api/games", json={"game": "freego", "seats": ["human", "human"]}).json()
    client.post(f"/api/games/{made['id']}/move", json={"secret": made["secrets"]["1"],
                                                     "move": "E5"})
    bad = client.post(f"/api/games/{made['id']}/move", json={"secret": made["secrets"]["2"],
                                                           "move": "E5"})
    assert bad.status_code == 422
    assert "E5" in bad.json()["error"] and "position" not in bad.json()["error"]


def test_snapshots_carry_the_outcome_and_the_players(client):
    made = client.post("/api/games", json={"game": "bridgego", "params": {"size": 5},
                                           "seats": ["human", "human"]}).json()
    for i, move in enumerate(BRIDGE):
        r = client.post(f"/api/games/{made['id']}/move",
                        json={"secret": made["secrets"][str(i % 2 + 1)], "move": move})
        assert r.status_code == 200
    snap = r.json()
    assert snap["players"] == ["Black", "White"]
    assert snap["outcome"]["detail"] == "Black joined south and north"


def test_stored_games_in_words(client):
    client.post("/api/games", json={"game": "blooms-territory", "params": {"superko": True},
                                    "seats": ["human", "level:3"], "public": True})
    page = client.get("/games").text
    assert "superko on" in page and "a person vs computer, level 3" in page
    assert re.search(r'<time datetime="\d{4}-\d\d-\d\dT', page)
    assert 'id="filter-game"' in page and "in progress" in page
    assert "{}" not in page
    assert params_words("blooms", {}) == "standard" and seat_words("mcts") == "computer (mcts)"


def test_a_lobby_game_waiting_for_a_player_is_listed_with_an_open_seat_not_a_computer(client):
    client.post("/api/games", json={"game": "freego", "seats": ["human", "open"],
                                    "public": True})
    page = client.get("/games").text
    assert "a person vs an open seat" in page and "computer (open)" not in page


def test_the_stored_games_page_says_that_only_public_games_are_listed(client):
    # a game against the computer is stored but not listed: the empty page says where it is
    client.post("/api/games", json={"game": "freego", "seats": ["human", "level:1"]})
    page = client.get("/games").text
    assert "No games yet" not in page
    assert "No public games yet" in page and 'href="/my-games"' in page


def test_my_games_lists_games_in_words(client):
    mine = client.post("/api/games", json={"game": "bridgego",
                                           "seats": ["level:6", "human"]}).json()
    rows = client.get(f"/api/games?ids={mine['id']}").json()["games"]
    assert rows[0]["title"] == "Bridge Go" and rows[0]["players"] == ["Black", "White"]
    assert rows[0]["seat_words"] == ["computer, level 6", "a person"]


def test_no_inline_script_handler_or_style_anywhere(client):
    """What a Content-Security-Policy of script-src 'self' (and style-src 'self') would block."""
    made = client.post("/api/games", json={"game": "blooms", "seats": ["human", "human"]}).json()
    pages = ["/", "/rules", "/rules/blobs", "/games", f"/game/{made['id']}"]
    texts = [client.get(p).text for p in pages]
    texts += [p.read_text() for p in TEMPLATES.glob("*.html")]
    snap = client.get(f"/api/games/{made['id']}").json()
    texts.append(snap["svg"])
    for text in texts:
        for tag in re.findall(r"<script\b[^>]*>", text):
            assert "src=" in tag or 'type="application/json"' in tag, tag
        assert not re.search(r"<[^>]+\son[a-z]+\s*=", text)
        assert not re.search(r"<[^>]+\sstyle\s*=", text)
    for js in STATIC.rglob("*.js"):
        assert "style=" not in js.read_text(), js.name  # styles go through the CSSOM


def test_the_levels_times_are_at_most_the_servers_cap(tmp_path: Path):
    """With ``--max-think 2`` level 6 still said "4 seconds of search a move", though the
    server stops every search at 2 s."""
    from stonegarden.web.service import Budgets

    with TestClient(create_app(tmp_path / "g.db", workers=1, warm_up=False,
                               budgets=Budgets(max_think=2))) as capped:
        page = capped.get("/").text
    assert "2 seconds of search a move" in page and "4 seconds of search" not in page
    assert "up to 1.6 seconds a move" in page  # below the cap: the level's own time


def test_the_game_pages_modules_import_only_what_they_export():
    """The game page is ES modules: a name imported from a module that does not export it
    stops the whole page in the browser, before any test of a feature would say why."""
    modules = {p.name: p.read_text() for p in (STATIC / "game").glob("*.js")}
    assert "main.js" in modules and "state.js" in modules
    exported = {name: set(re.findall(r"^export (?:async )?(?:function|const|let) ([\w$]+)", text, re.M))
                for name, text in modules.items()}
    imports = 0
    for name, text in modules.items():
        for names, target in re.findall(r'^import \{([^}]*)\} from "\./([\w.]+)";', text, re.M):
            assert target in modules, (name, target)
            wanted = {n.strip() for n in names.split(",")}
            assert wanted <= exported[target], (name, target, wanted - exported[target])
            imports += len(wanted)
    assert imports > 40
    game_page = (TEMPLATES / "game.html").read_text()
    assert '<script type="module" src="{{ base }}/static/game/main.js">' in game_page


def test_the_game_page_plays_its_example_move_off_the_event_loop(client, monkeypatch):
    """The move field's example plays to the first decision: in the page's request, on the
    event loop, its kernels (from an empty cache, compiled there) held every request up."""
    import asyncio

    from stonegarden.core.protocol import Game

    r = client.post("/api/games", json={"game": "blobs", "params": {},
                                         "seats": ["human", "human"]})
    assert r.status_code == 201, r.text
    played_on_loop = []
    first_decision = Game.first_decision

    def watched(self):
        try:
            asyncio.get_running_loop()
            played_on_loop.append(True)
        except RuntimeError:
            played_on_loop.append(False)
        return first_decision(self)

    monkeypatch.setattr(Game, "first_decision", watched)
    page = client.get(f"/game/{r.json()['id']}")
    assert page.status_code == 200
    assert played_on_loop == [False]
