"""End-to-end tests in a real headless Chromium (Debian's /usr/bin/chromium driven by
Playwright; scripts/install-browser.sh installs both). They skip, saying why, only when the
browser or Playwright is missing. Screenshots go to docs/screenshots/."""

from __future__ import annotations

import json
import time
from typing import Any

import pytest
from browsers import SHOTS, WAIT
from webhelpers import ROOT, Server

# Pages are opened with bypass_csp: Playwright's wait_for_function evaluates strings, which the
# server's Content-Security-Policy forbids (the policy itself is tested in test_privacy.py).


@pytest.fixture
def server(module_server):
    """The module's tests share one server (``module_server`` says when that is sound); those
    that read the list of stored games or the lobby, whose computers play on after them, or
    that need the worker free, take their own (``own_server``)."""
    return module_server


def shot(page, name: str) -> None:
    SHOTS.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(SHOTS / name), full_page=True)


def start_from_home(page, server: Server, game: str, params: dict[str, str],
                    seats: tuple[str, str]) -> None:
    """Start a game with the given seats through the home page's advanced fields."""
    page.goto(server.url + "/")
    page.select_option("#game-select", game)
    if params:
        page.click("#params-box summary")
        for name, value in params.items():
            page.fill(f'[data-param="{name}"]', value)
    page.click("#advanced summary")
    page.fill("#seat1", seats[0])
    page.fill("#seat2", seats[1])
    page.click("#start")


def wait_ready(page) -> None:
    """Until it is this page's turn or the game is over."""
    page.wait_for_function(
        "document.body.dataset.terminal === 'true'"
        " || !!document.querySelector('#status.your-turn')",
        timeout=WAIT)


@pytest.mark.slow
def test_blooms_against_the_agent_with_a_hint_to_the_end_then_analysis_download_replay(
        browser, server, tmp_path, cli):
    page = browser.new_page(bypass_csp=True, viewport={"width": 1280, "height": 900})
    errors: list[str] = []
    page.on("pageerror", lambda e: errors.append(str(e)))
    start_from_home(page, server, "blooms", {"size": "2", "target": "2"}, ("human", "random"))
    page.wait_for_url("**/game/**", timeout=WAIT)
    took_midgame_shot = False
    for _ in range(40):
        wait_ready(page)
        if page.evaluate("document.body.dataset.terminal") == "true":
            break
        length = int(page.evaluate("document.body.dataset.length"))
        if length >= 2 and not took_midgame_shot:
            shot(page, "blooms-game.png")
            took_midgame_shot = True
            page.click("#hint")
            page.wait_for_selector("#board .hint-ring", timeout=WAIT)
            assert page.inner_text("#hint-text").startswith("Hint: ")
            shot(page, "blooms-hint.png")
        page.locator("#board .cell.legal").first.click()
        assert page.input_value("#move-text") != ""  # the builder wrote the notation
        page.click("#confirm")
        page.wait_for_function(f"+document.body.dataset.length > {length}", timeout=WAIT)
    assert page.evaluate("document.body.dataset.terminal") == "true"
    assert "Game over" in page.inner_text("#status")
    # every cell of the board is addressable
    assert page.locator("#board [data-cell]").count() == 7
    shot(page, "blooms-game-over.png")
    final = int(page.evaluate("document.body.dataset.length"))

    # no undo after the end: a finished game stays finished; a new game is offered
    assert page.is_disabled("#undo") and not page.is_visible("#undo")
    assert page.is_visible("#new-game")
    # the players may ask for the computer's analysis once the game is over
    assert page.is_visible("#analyse")
    page.click("#analyse")
    page.wait_for_function("document.querySelectorAll('#winprob .apt').length"
                           f" === {final + 1}", timeout=WAIT)
    assert int(page.evaluate("document.body.dataset.length")) == final

    with page.expect_download(timeout=WAIT) as dl:
        page.click("#download")
    path = tmp_path / "download.json"
    dl.value.save_as(str(path))
    record = json.loads(path.read_text())
    assert record["format"] == "stonegarden-record" and record["game"] == "blooms"
    assert len(record["meta"]["analysis"]["points"]) == final + 1
    replay = cli("replay", str(path), "--json")
    assert replay.returncode == 0, replay.stderr
    assert len(replay.stdout.splitlines()) == len(record["moves"])
    assert errors == []


@pytest.mark.slow
def test_two_people_on_their_seat_links_while_a_third_watches_live(browser, server):
    host = browser.new_context(bypass_csp=True, viewport={"width": 1280, "height": 900})
    guest = browser.new_context(bypass_csp=True, viewport={"width": 1280, "height": 900})
    watcher = browser.new_context(bypass_csp=True, viewport={"width": 1280, "height": 900})
    a = host.new_page()
    start_from_home(a, server, "blooms-territory", {"size": "3"}, ("human", "human"))
    a.wait_for_selector("#invite:not([hidden])", timeout=WAIT)
    link2 = a.get_attribute("#link-2", "href")
    spectator = a.get_attribute("#link-spectator", "href")
    a.click("#link-1")
    a.wait_for_url("**/game/**", timeout=WAIT)
    b = guest.new_page()
    b.goto(server.url + link2)
    c = watcher.new_page()
    c.goto(server.url + spectator)
    c.wait_for_selector("#board [data-cell]", timeout=WAIT)
    assert "watching" in c.inner_text("#seats")

    wait_ready(a)
    assert "Your turn" not in b.inner_text("#status")
    assert b.is_disabled("#confirm") and c.is_disabled("#confirm")
    # player 1 builds a move by clicks: a colour, a cell, confirm
    a.click('button.colour[data-colour="Y"]')
    a.click('#board [data-cell="c3"]')
    assert a.input_value("#move-text") == "Yc3"
    a.click("#confirm")
    for page in (b, c):  # both other browsers see it live
        page.wait_for_selector('#board [data-cell="c3"][data-content="Y"]', timeout=WAIT)
    # player 2 builds a two-stone turn by clicks
    wait_ready(b)
    b.click('button.colour[data-colour="K"]')
    b.click('#board [data-cell="a1"]')
    b.click('#board [data-cell="e3"]')  # the builder moved on to the other colour, G
    assert b.input_value("#move-text") == "Ka1,Ge3"
    b.click("#confirm")
    c.wait_for_selector('#board [data-cell="e3"][data-content="G"]', timeout=WAIT)
    # player 1 types a move in the text field
    wait_ready(a)
    a.fill('input[name="move"]', "Rb2")
    a.press('input[name="move"]', "Enter")
    c.wait_for_selector('#board [data-cell="b2"][data-content="R"]', timeout=WAIT)
    shot(c, "blooms-territory-spectator.png")
    # two passes end the game; every page sees the end
    wait_ready(b)
    b.click("#pass")
    assert b.is_visible("#ask")  # a pass asks first
    b.click("#ask-yes")
    wait_ready(a)
    a.click("#pass")
    a.click("#ask-yes")
    for page in (a, b, c):
        page.wait_for_function("document.body.dataset.terminal === 'true'", timeout=WAIT)
        assert "Game over" in page.inner_text("#status")
    shot(a, "blooms-territory-game.png")
    for ctx in (host, guest, watcher):
        ctx.close()


@pytest.mark.slow
def test_rules_and_stored_games_pages(browser, own_server):
    server = own_server  # the list of stored games is the whole server's
    from stonegarden.core.registry import available_games

    page = browser.new_page(bypass_csp=True, viewport={"width": 1100, "height": 900})
    page.goto(server.url + "/")
    page.select_option("#game-select", "blooms-territory")
    page.click("#params-box summary")
    assert page.locator('[data-param="superko"]').count() == 1  # the game's own parameters
    # a whole number that may be left empty is a text field: a phone shows its number pad
    assert page.get_attribute('[data-param="max_turns"]', "inputmode") == "numeric"
    page.select_option("#game-select", "blooms")
    assert page.input_value('[data-param="target"]') == ""  # derived from the size unless set
    shot(page, "home.png")
    bad = {"format": "stonegarden-record", "version": 1, "game": "blooms", "params": {},
           "moves": ["Rd4", "Kd4"]}
    page.set_input_files("#upload-file", files=[{"name": "bad.json", "mimeType": "application/json",
                                                 "buffer": json.dumps(bad).encode()}])
    page.wait_for_function("document.getElementById('upload-error').textContent !== ''",
                           timeout=WAIT)
    assert "move 1" in page.inner_text("#upload-error")
    page.goto(server.url + "/rules/blooms")
    assert page.locator("figure svg [data-cell]").count() > 0
    assert "target" in page.inner_text("#params-table")
    assert page.locator(".doc h2").count() > 0  # the game's doc, rendered
    for game_id in available_games():  # every rules page renders, with its doc's pictures
        page.goto(server.url + f"/rules/{game_id}")
        assert page.locator("figure svg").count() > 0, game_id
        broken = page.evaluate("[...document.images].filter(i => !i.naturalWidth).length")
        assert broken == 0, game_id
    shot(page, "blooms-rules.png")
    _, made = server.request("POST", "/api/games", {
        "game": "blooms", "params": {"size": 2}, "seats": ["human", "human"], "public": True})
    page.goto(server.url + "/games")
    assert page.locator(f'tr[data-gid="{made["id"]}"]').count() == 1
    page.goto(server.url + "/game/nope")
    assert "Error 404" in page.inner_text("h1")


def test_the_move_list_of_a_long_game_shows_every_move_number_whole(browser, server):
    from stonegarden.core.registry import make

    game = make("freego", size=19, target=1000)
    state, moves = game.initial_state(), []
    for _ in range(120):  # past move 99: three-digit numbers
        move = game.legal_moves_text(state)[0]
        state = game.play_text(state, move)
        moves.append(move)
    record = {"format": "stonegarden-record", "version": 1, "game": "freego",
              "params": {"size": 19, "target": 1000}, "moves": moves}
    status, made = server.request("POST", "/api/records", record)
    assert status == 201, made
    page = browser.new_page(bypass_csp=True, viewport={"width": 1100, "height": 900})
    page.goto(server.url + made["links"]["spectator"])
    page.wait_for_function("document.querySelectorAll('#moves li').length === 120", timeout=WAIT)
    # the numbers are drawn left of the items, inside the list's padding, which clips them:
    # "120. " must fit there in the list's own font
    room, needed = page.evaluate("""() => {
      const ol = document.getElementById("moves"), css = getComputedStyle(ol);
      const ctx = document.createElement("canvas").getContext("2d");
      ctx.font = css.font;
      return [parseFloat(css.paddingLeft), ctx.measureText("120. ").width];
    }""")
    assert room >= needed, (room, needed)


def test_square_view_draws_a_good_board_in_the_browser(browser):
    from fakesquare import FakeSquare

    from stonegarden.games.square_go_view import SquareView
    from stonegarden.web.views import Marks

    game = FakeSquare(size=9)
    view = SquareView()
    moves = ["D4", "E6", "F5", "E4", "E3", "D5", "E5"]  # E5 (centre) captures E6, E4, D5
    states = game.replay(moves)
    marks = Marks(last=("E5",), captured=tuple(view.captured_cells(game, states[-2], states[-1])),
                  targets=tuple(view.legal_targets(game, states[-1])), hint=("C7",))
    page = browser.new_page(bypass_csp=True, viewport={"width": 520, "height": 520})
    page.set_content(f'<body style="margin:0;background:#f6f1e6">'
                     f'<div style="width:500px">{view.svg(game, states[-1], marks)}</div></body>')
    assert page.locator("[data-cell]").count() == 81
    assert page.locator('[data-cell="E5"].last').count() == 1
    assert page.locator(".captured-mark").count() == 3
    shot(page, "square-board.png")


def _games_with_builder(kind: str, what: str) -> list[str]:
    """The games whose page builds moves with ``kind``; none is an error, not a skip (a
    renamed kind would otherwise leave its games untested)."""
    from stonegarden.core.registry import available_games, make
    from stonegarden.web.views import view_for

    found = [g for g in available_games() if view_for(make(g)).kind == kind]
    if not found:
        raise AssertionError(f"no {what} game has the builder {kind!r}")
    return found


@pytest.mark.parametrize("game_id", _games_with_builder("point", "square-board (Go)"))
@pytest.mark.slow
def test_square_game_against_the_agent_to_the_end_by_clicks(browser, server, tmp_path, cli,
                                                            game_id):
    from stonegarden.core.registry import game_class

    size = next(p for p in game_class(game_id).param_specs if p.name == "size")
    page = browser.new_page(bypass_csp=True, viewport={"width": 1280, "height": 900})
    start_from_home(page, server, game_id, {"size": str(size.low)}, ("human", "random"))
    page.wait_for_url("**/game/**", timeout=WAIT)
    for _ in range(400):
        wait_ready(page)
        if page.evaluate("document.body.dataset.terminal") == "true":
            break
        length = int(page.evaluate("document.body.dataset.length"))
        if length in (4, 5):  # after a few moves, whoever started
            shot(page, f"{game_id}-game.png")
        page.locator("#board .cell.legal").first.click()
        page.wait_for_function(f"+document.body.dataset.length > {length}", timeout=WAIT)
    assert page.evaluate("document.body.dataset.terminal") == "true"
    shot(page, f"{game_id}-game-over.png")
    _download_replays(page, tmp_path, cli)
    assert page.locator("#download-sgf").count() == 1


def _download_replays(page, tmp_path, cli) -> None:
    """The page's record download replays through the CLI."""
    with page.expect_download(timeout=WAIT) as dl:
        page.click("#download")
    path = tmp_path / "download.json"
    dl.value.save_as(str(path))
    replay = cli("replay", str(path), "--json")
    assert replay.returncode == 0, replay.stderr


@pytest.mark.parametrize("game_id", _games_with_builder("die-face", "dice (Blobs)"))
@pytest.mark.slow
def test_dice_game_against_the_agent_to_the_end_by_clicks(browser, server, tmp_path, cli,
                                                          game_id):
    page = browser.new_page(bypass_csp=True, viewport={"width": 1280, "height": 900})
    start_from_home(page, server, game_id, {}, ("human", "random"))
    page.wait_for_url("**/game/**", timeout=WAIT)
    took_shot = False
    for _ in range(400):
        wait_ready(page)
        if page.evaluate("document.body.dataset.terminal") == "true":
            break
        length = int(page.evaluate("document.body.dataset.length"))
        if length >= 4 and not took_shot:
            shot(page, f"{game_id}-game.png")
            took_shot = True
        page.locator("#board .legal").first.click()  # a frontier cell ...
        if page.locator("button.face-option").count():  # ... then one of its faces (when
            face = page.locator("button.face-option").first  # only one fits, it is played),
            name = face.get_attribute("aria-label")  # named as shown, then which way round
            assert name.startswith(face.inner_text().strip() + ", ") and "north-" in name, name
            face.click()
        page.wait_for_function(f"+document.body.dataset.length > {length}", timeout=WAIT)
    assert page.evaluate("document.body.dataset.terminal") == "true"
    shot(page, f"{game_id}-game-over.png")
    _download_replays(page, tmp_path, cli)


# -- the first five minutes, the end of a game, the keyboard, every page --------------------
def snapshot(server: Server, page) -> dict[str, Any]:
    gid = page.evaluate("document.body.dataset.gid")
    return server.request("GET", f"/api/games/{gid}")[1]


def test_the_start_button_alone_starts_a_game_against_the_default_level(browser, server):
    page = browser.new_page(bypass_csp=True, viewport={"width": 1280, "height": 900})
    page.goto(server.url + "/")
    assert page.is_checked('input[name="mode"][value="computer"]')
    assert page.is_checked('input[name="level"][value="2"]')
    assert page.locator("#levels li").count() == 6
    assert "Newcomers" in page.inner_text("#levels")
    # level 5's time a move is the chosen game's (a slower search has longer caps)
    level5 = page.locator("#levels li").nth(4)
    assert "up to 1.6 seconds a move" in level5.inner_text()
    page.select_option("#game-select", "bridgego")
    assert "up to 3.2 seconds a move" in level5.inner_text()
    page.select_option("#game-select", "blooms")
    page.click("#start")
    page.wait_for_url("**/game/**", timeout=WAIT)
    assert snapshot(server, page)["seats"] == ["human", "level:2"]
    # Blobs: "first" is the player who makes the first choice, Blue (player 2)
    page.goto(server.url + "/?game=blobs")
    assert page.input_value("#game-select") == "blobs"
    assert "player 2: Blue" in page.inner_text("#seat-choice")
    page.check('input[name="level"][value="1"]')
    page.click("#start")
    page.wait_for_url("**/game/**", timeout=WAIT)
    assert snapshot(server, page)["seats"] == ["level:1", "human"]


@pytest.mark.parametrize("seats,mine", [(("level:1", "human"), "2"),
                                        (("level:1", "Human"), "2"),
                                        (("human", "level:1"), "1")])
def test_an_agent_named_in_the_first_advanced_field_leaves_you_the_second_seat(
        browser, server, seats, mine):
    """Advanced fields of ``level:1`` for player 1 and ``human`` for player 2: the page
    opened the second seat but kept the computer's link as yours and your own as a friend's
    to pass on, so "My games" listed the game as two computers watched, and your name was not
    given to your seat."""
    ctx = browser.new_context(bypass_csp=True, viewport={"width": 1280, "height": 900})
    ctx.add_init_script("localStorage.setItem('sg-name', 'Ann')")
    page = ctx.new_page()
    start_from_home(page, server, "freego", {"size": "5"}, seats)
    page.wait_for_url("**/game/**", timeout=WAIT)
    wait_ready(page)
    gid = page.evaluate("document.body.dataset.gid")
    assert page.evaluate("JSON.parse(localStorage.getItem('sg-keys'))")[gid].keys() == {mine}
    assert gid not in page.evaluate("JSON.parse(localStorage.getItem('sg-invites') || '{}')")
    assert snapshot(server, page)["names"][mine] == "Ann"
    page.goto(server.url + "/my-games")
    row = page.locator(f"#mine tr[data-gid={gid!r}]")
    row.wait_for(timeout=WAIT)
    assert row.locator('td[data-label="You"]').inner_text() == "Ann"
    assert row.locator('td[data-label="Against"]').inner_text() == "computer, level 1"
    ctx.close()


def test_play_a_friend_with_a_copied_invite_and_watch_computers(browser, own_server):
    server = own_server  # its two computers play on after it
    ctx = browser.new_context(bypass_csp=True, viewport={"width": 1280, "height": 900})
    ctx.grant_permissions(["clipboard-read", "clipboard-write"], origin=server.url)
    page = ctx.new_page()
    page.goto(server.url + "/?game=freego")
    page.check('input[name="mode"][value="friend"]')
    page.check('input[name="seat"][value="second"]')
    page.click("#start")
    page.wait_for_selector("#invite:not([hidden])", timeout=WAIT)
    invite = page.input_value("#invite-url")
    assert invite.endswith(page.get_attribute("#link-1", "href"))  # the friend plays first
    page.click("#copy-invite")
    page.wait_for_function("document.getElementById('copy-note').textContent === 'Copied.'",
                           timeout=WAIT)
    assert page.evaluate("navigator.clipboard.readText()") == invite
    friend = browser.new_context(bypass_csp=True, viewport={"width": 1280, "height": 900}).new_page()
    friend.goto(invite)
    wait_ready(friend)
    assert "Your turn (Black)" in friend.inner_text("#status")
    # computer against computer: the creator watches two levels play
    page.goto(server.url + "/?game=freego")
    page.check('input[name="mode"][value="watch"]')
    assert page.is_hidden("#seat-choice")
    page.select_option("#watch-1", "1")
    page.select_option("#watch-2", "3")
    page.click("#start")
    page.wait_for_url("**/game/**", timeout=WAIT)
    assert snapshot(server, page)["seats"] == ["level:1", "level:3"]
    ctx.close()


def test_two_computers_watched_to_the_end_are_not_the_watchers_win_or_loss(browser, server):
    """The creator's link holds a computer's seat (to cancel or resume it): the page says who
    won, not "You won", and offers no undo, hint or move builder."""
    page = browser.new_page(bypass_csp=True, viewport={"width": 1280, "height": 900})
    page.goto(server.url + "/?game=freego")
    page.check('input[name="mode"][value="watch"]')
    page.select_option("#watch-1", "1")
    page.select_option("#watch-2", "1")
    page.click("#params-box summary")
    page.fill('[data-param="size"]', "5")
    page.click("#start")
    page.wait_for_url("**/game/**", timeout=WAIT)
    assert "key=" in page.url
    page.wait_for_function("document.body.dataset.terminal === 'true'", timeout=WAIT)
    outcome = snapshot(server, page)["outcome"]
    winner = ("Black", "White")[outcome["winner"] - 1]
    assert page.inner_text("#status") == f"Game over: {winner} won: {outcome['detail']}"
    # the seats in words, as the lists of games say them, not as agent specs ("level:1")
    assert page.inner_text("#seats") == (
        "Black (computer, level 1) · White (computer, level 1) — watching")
    assert page.is_hidden("#study-row") and page.is_hidden("#builder")


def test_an_agent_waiting_for_a_free_worker_says_so_then_thinks(browser, own_server):
    """The server's one worker searches another game of this client: this game's agent waits
    for it, and the page says so (not that it thinks, past its limit), then that it thinks
    once the worker takes its job. Each state lasts until the test has seen it (the other
    search is cancelled then; this one thinks its 10 s): a search of a few seconds could end
    while a loaded machine was still opening the page."""
    server = own_server  # the server's one worker is the test's
    for _ in range(600):  # bounded: the worker loads every game's kernels first
        if server.request("GET", "/api/engine")[1]["ready"]:
            break
        time.sleep(0.1)
    games = []
    for game, spec in (("blooms", "mcts:time=10"), ("freego", "mcts:time=10")):
        status, made = server.request("POST", "/api/games",
                                      {"game": game, "seats": [spec, "human"]})
        assert status == 201, made
        games.append(made)
    blocker, made = games
    page = browser.new_page(bypass_csp=True, viewport={"width": 1280, "height": 900})
    page.goto(server.url + made["links"]["2"])
    page.wait_for_function("document.getElementById('thinking').textContent"
                           ".startsWith('The computer (mcts:time=10) waits for a free worker (')", timeout=WAIT)
    assert page.inner_text("#status") == "Black (mcts:time=10) waits for a free worker…"
    status, answer = server.request("POST", f"/api/games/{blocker['id']}/cancel",
                                    {"secret": blocker["secrets"]["2"]})
    assert status == 200, answer
    page.wait_for_function("document.getElementById('thinking').textContent"
                           ".startsWith('The computer (mcts:time=10) is thinking: ')", timeout=WAIT)
    assert page.inner_text("#status") == "Black (mcts:time=10) is thinking…"
    wait_ready(page)


def test_keyboard_confirm_moves_asking_first_arrow_keys_and_the_turn_alert(browser, server):
    _, made = server.request("POST", "/api/games", {
        "game": "freego", "params": {"size": 5}, "seats": ["human", "human"]})
    page = browser.new_page(bypass_csp=True, viewport={"width": 1280, "height": 900})
    page.goto(server.url + made["links"]["1"])
    wait_ready(page)
    assert page.title().startswith("● Your turn")
    assert not page.is_checked("#confirm-moves")  # off on a large screen with a mouse
    # the board from the keyboard: one cell takes the focus, arrows move it, Enter plays
    first = page.locator('#board [data-cell][tabindex="0"]')
    assert first.count() == 1
    first.focus()
    name = page.evaluate("document.activeElement.dataset.cell")
    assert page.evaluate("document.activeElement.getAttribute('aria-label')") == f"{name}, empty"
    page.keyboard.press("ArrowRight")
    moved = page.evaluate("document.activeElement.dataset.cell")
    assert moved != name and moved[1:] == name[1:]  # same row, next column
    page.keyboard.press("Enter")
    page.wait_for_function("+document.body.dataset.length === 1", timeout=WAIT)
    assert snapshot(server, page)["moves"][0]["text"] == moved
    assert not page.title().startswith("● Your turn")
    server.request("POST", f"/api/games/{made['id']}/move",
                   {"secret": made["secrets"]["2"], "move": "A5"})
    page.wait_for_function("+document.body.dataset.length === 2", timeout=WAIT)
    wait_ready(page)
    assert page.title().startswith("● Your turn")
    # confirm moves: a click chooses (a ghost stone), Confirm plays
    page.check("#confirm-moves")
    page.locator('#board [data-cell="C3"]').click()
    assert page.locator("#board .ghost").count() == 1
    assert page.input_value("#move-text") == "C3"
    assert int(page.evaluate("document.body.dataset.length")) == 2
    page.click("#confirm")
    page.wait_for_function("+document.body.dataset.length === 3", timeout=WAIT)
    # resign asks first; No keeps the game
    server.request("POST", f"/api/games/{made['id']}/move",
                   {"secret": made["secrets"]["2"], "move": "A4"})
    wait_ready(page)
    page.click("#resign")
    assert page.is_visible("#ask") and "Resign" in page.inner_text("#ask-text")
    page.click("#ask-no")
    assert page.is_hidden("#ask") and page.evaluate("document.body.dataset.terminal") == "false"
    # arrow keys step through the moves
    page.locator("h1").click()
    page.keyboard.press("ArrowLeft")
    page.wait_for_function("+document.body.dataset.ply === 3", timeout=WAIT)
    page.keyboard.press("Home")
    page.wait_for_function("+document.body.dataset.ply === 0", timeout=WAIT)
    page.keyboard.press("End")
    page.wait_for_function("+document.body.dataset.ply === 4", timeout=WAIT)
    # resigning for real ends it in words, with a new game offered
    page.click("#resign")
    page.click("#ask-yes")
    page.wait_for_function("document.body.dataset.terminal === 'true'", timeout=WAIT)
    assert "You lost: you resigned" in page.inner_text("#status")
    assert page.get_attribute("#new-game", "href") == "/?game=freego"
    small = browser.new_page(bypass_csp=True, viewport={"width": 375, "height": 800}, has_touch=True)
    small.goto(server.url + made["links"]["2"])
    small.wait_for_selector("#board [data-cell]", timeout=WAIT)
    assert small.is_checked("#confirm-moves")  # on by default on a small screen
    assert "You won: Black resigned" in small.inner_text("#status")


PAGES_375 = ["/", "/rules", "/games", "/lobby", "/my-games"]


def test_every_page_fits_a_phone_has_an_icon_and_a_dark_mode(browser, own_server):
    server = own_server  # the lobby and the stored games are the whole server's
    from stonegarden.core.registry import available_games

    games = []
    for game_id in available_games():
        _, made = server.request("POST", "/api/games", {"game": game_id, "seats": ["human",
                                                                                    "human"]})
        games.append(made)
    paths = PAGES_375 + [f"/rules/{g}" for g in available_games()] + \
        [m["links"]["1"] for m in games]
    # a light and a dark page, each path opened in both before either's network is awaited:
    # their half seconds of quiet (networkidle) pass together, not one after the other
    pages, failed, errors = {}, {}, {}
    for scheme in ("light", "dark"):
        ctx = browser.new_context(bypass_csp=True, viewport={"width": 375, "height": 800}, color_scheme=scheme)
        page = pages[scheme] = ctx.new_page()
        failed[scheme], errors[scheme] = [], []
        page.on("response", lambda r, failed=failed[scheme]: failed.append(f"{r.status} {r.url}")
                if r.status >= 400 else None)
        page.on("console", lambda m, errors=errors[scheme]: errors.append(m.text)
                if m.type == "error" else None)
        page.on("pageerror", lambda e, errors=errors[scheme]: errors.append(str(e)))
    for path in paths:
        for page in pages.values():
            page.goto(server.url + path)
        for scheme, page in pages.items():
            page.wait_for_load_state("networkidle")
            assert page.evaluate("document.documentElement.dataset.theme") == scheme
            wide = page.evaluate("document.documentElement.scrollWidth")
            assert wide <= 375, (path, scheme, wide)
    assert failed == {"light": [], "dark": []} and errors == {"light": [], "dark": []}, \
        (failed, errors)
    pages["dark"].goto(server.url + "/")
    shot(pages["dark"], "home-375-dark.png")
    for page in pages.values():
        page.context.close()
    # the toggle overrides the system's choice, and is remembered
    page = browser.new_page(bypass_csp=True, viewport={"width": 1280, "height": 900}, color_scheme="light")
    page.goto(server.url + "/")
    page.click("#theme-toggle")
    assert page.evaluate("document.documentElement.dataset.theme") == "dark"
    page.reload()
    assert page.evaluate("document.documentElement.dataset.theme") == "dark"
    assert page.inner_text("#theme-toggle") == "Light mode"
    icon = page.evaluate("document.querySelector('link[rel=icon]').href")
    assert icon.endswith("/static/favicon.svg")


@pytest.mark.slow
def test_pages_work_under_a_strict_content_security_policy(browser, server):
    """The server's own headers aside, the pages need nothing a strict policy forbids."""
    policy = ("default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:; "
              "connect-src 'self'")
    page = browser.new_page(viewport={"width": 1280, "height": 900})

    def with_policy(route) -> None:
        response = route.fetch()
        headers = {**response.headers, "content-security-policy": policy}
        route.fulfill(response=response, headers=headers)

    page.route("**/*", with_policy)
    page.route("**/events", lambda route: route.continue_())  # a stream, not fetched whole
    page.add_init_script("window.__csp = []; document.addEventListener("
                         "'securitypolicyviolation', e => window.__csp.push("
                         "e.violatedDirective + ' ' + e.blockedURI));")
    page.goto(server.url + "/?game=freego")
    page.check('input[name="mode"][value="friend"]')
    page.click("#start")
    page.wait_for_selector("#invite:not([hidden])", timeout=WAIT)
    page.click("#go-to-seat")
    page.wait_for_url("**/game/**", timeout=WAIT)
    # (no wait_for_function here: Playwright evaluates its predicate with eval, which the
    # policy rightly forbids)
    page.wait_for_selector("#status.your-turn", timeout=WAIT)
    page.locator("#board .cell.legal").first.click()
    page.wait_for_selector('body[data-length="1"]', timeout=WAIT)
    assert page.locator("#score .bar span").count() == 2
    page.click("#theme-toggle")
    for path in ("/", "/rules", "/rules/blobs", "/games"):
        page.goto(server.url + path)
        page.wait_for_load_state("networkidle")
        assert page.evaluate("window.__csp") == [], path
    page.goto(server.url + "/games")
    assert page.evaluate("window.__csp") == []
    # a request still in flight (the favicon) must not reach the handler once this test's
    # server is gone: its error would surface in the next test on this browser
    page.unroute_all(behavior="ignoreErrors")
    page.close()


def test_stored_games_list_filters_and_rules_index(browser, own_server):
    server = own_server  # the list of stored games is the whole server's
    server.request("POST", "/api/games", {"game": "freego", "params": {"size": 7},
                                          "seats": ["human", "level:2"], "public": True})
    _, made = server.request("POST", "/api/games", {"game": "blooms", "seats": ["human", "human"],
                                                    "public": True})
    server.request("POST", f"/api/games/{made['id']}/move",
                   {"secret": made["secrets"]["1"], "move": "resign"})
    page = browser.new_page(bypass_csp=True, viewport={"width": 1280, "height": 900})
    page.goto(server.url + "/games")
    rows = page.locator("#stored tbody tr")
    assert rows.count() == 2
    text = page.inner_text("#stored")
    assert "size 7" in text and "computer, level 2" in text and "Player 2 won" in text
    assert "1970" not in text and page.locator("#stored time").count() == 2
    page.select_option("#filter-status", "finished")
    assert page.locator("#stored tbody tr:visible").count() == 1
    page.select_option("#filter-status", "")
    page.select_option("#filter-game", "freego")
    assert page.locator("#stored tbody tr:visible").count() == 1
    page.select_option("#filter-game", "")
    page.fill("#filter-text", "level 2")
    assert page.locator("#stored tbody tr:visible").count() == 1
    page.fill("#filter-text", "")
    shot(page, "stored-games.png")
    page.goto(server.url + "/rules")
    assert page.locator(".rules-index li").count() >= 5
    shot(page, "rules-index.png")
    page.click("text=Bridge Go")
    assert page.url.endswith("/rules/bridgego")
    assert "shared/spec" not in page.content()


def _finished(server: Server, game: str, params: dict[str, Any], moves: list[str]) -> dict:
    _, made = server.request("POST", "/api/games", {"game": game, "params": params,
                                                    "seats": ["human", "human"]})
    for i, move in enumerate(moves):
        status, snap = server.request("POST", f"/api/games/{made['id']}/move",
                                      {"secret": made["secrets"][str(i % 2 + 1)], "move": move})
        assert status == 200, snap
    return made


def test_what_decided_a_game_is_drawn_screenshots(browser, server):
    bridge = _finished(server, "bridgego", {"size": 7},
                       ["D1", "A1", "D2", "A2", "D3", "B3", "D4", "A4", "D5", "B5", "D6", "A6",
                        "D7"])
    territory = _finished(server, "blooms-territory", {"size": 3},
                          ["Yb3", "Ka2,Gb1", "Rd4,Yc1", "Kd2", "Rc3,Ya1", "Kb2,Ge1", "Rb4,Yc4",
                           "pass", "pass"])
    for made, name, words in ((bridge, "bridgego-won.png", "You won: you joined south and north"),
                              (territory, "blooms-territory-over.png",
                               "You won: both players passed")):
        for width, scheme in ((1280, "light"), (375, "dark")):
            page = browser.new_page(bypass_csp=True, viewport={"width": width, "height": 900},
                                    color_scheme=scheme)
            page.goto(server.url + made["links"]["1"])
            page.wait_for_function("document.body.dataset.terminal === 'true'", timeout=WAIT)
            assert words in page.inner_text("#status")
            assert page.locator("#board .decisive, #board [class*=territory-]").count() > 0
            shot(page, name if width == 1280 else name.replace(".png", "-375-dark.png"))
            page.close()
    # Blobs: the faces that fit a cell, drawn, before choosing one
    _, made = server.request("POST", "/api/games", {"game": "blobs", "seats": ["human",
                                                                                "human"]})
    page = browser.new_page(bypass_csp=True, viewport={"width": 1280, "height": 900})
    page.goto(server.url + made["links"]["2"])
    wait_ready(page)
    page.locator('#board [data-cell="h9"]').click()
    assert page.locator("button.face-option svg").count() == 2
    shot(page, "blobs-faces.png")
    # Free Go on 9x9: five star points, labels clear of the stones
    _, made = server.request("POST", "/api/games", {"game": "freego", "seats": ["human",
                                                                                 "human"]})
    for i, move in enumerate(["A1", "J9", "E5", "A9"]):
        server.request("POST", f"/api/games/{made['id']}/move",
                       {"secret": made["secrets"][str(i % 2 + 1)], "move": move})
    page.goto(server.url + made["links"]["1"])
    wait_ready(page)
    assert page.locator("#board .star").count() == 5
    shot(page, "freego-9x9.png")


@pytest.mark.slow
def test_an_abstract_play_record_uploaded_on_the_home_page_is_reviewed(browser, server):
    """Review like lichess: the upload, the computer's analysis as a spectator would see it
    (graph, judgements in the move list, the engine's best move on the board)."""
    record = ROOT / "tests" / "data" / "abstractplay" / "ap-blooms-size4-s1.json"
    seat_link = ""
    for width, scheme in ((1280, "light"), (375, "dark")):
        page = browser.new_page(bypass_csp=True, viewport={"width": width, "height": 900},
                                color_scheme=scheme)
        errors: list[str] = []
        page.on("pageerror", lambda e, errors=errors: errors.append(str(e)))
        if not seat_link:
            page.goto(server.url + "/")
            page.set_input_files("#upload-file", str(record))
            page.wait_for_url("**/game/**", timeout=WAIT)
            seat_link = page.url
        else:  # the same game, as a spectator
            page.goto(seat_link.split("#")[0])
        page.wait_for_function("document.body.dataset.terminal === 'true'", timeout=WAIT)
        length = int(page.evaluate("document.body.dataset.length"))
        if width == 1280:
            page.click("#analyse")
        # the analysis asked for at 1280 px is stored: the spectator's page shows it at once
        page.wait_for_function(f"document.querySelectorAll('#winprob .apt').length > {length}",
                               timeout=5 * WAIT)
        assert "positions" in page.inner_text("#analysis-status")
        judged = page.locator("#moves .judgement").count()
        assert judged == page.locator("#winprob .apt[class*=j-]").count()
        # a point of the graph opens that position, with the engine's best move drawn
        page.locator('#winprob .apt[data-ply="3"]').click()
        page.wait_for_function("document.body.dataset.ply === '3'", timeout=WAIT)
        page.wait_for_selector("#board .hint-ring", timeout=WAIT)
        assert "best move here" in page.inner_text("#review-here")
        shot(page, "review.png" if width == 1280 else "review-375-dark.png")
        assert page.evaluate("document.documentElement.scrollWidth") <= width
        assert errors == []
        page.close()


@pytest.mark.slow
def test_the_home_page_shows_the_engine_being_prepared(browser, tmp_path, monkeypatch):
    """From an empty kernel cache (a first start without the install step) the home page
    shows the warm-up's progress, and a game against the computer says why it waits."""
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "empty-cache"))
    monkeypatch.delenv("NUMBA_CACHE_DIR", raising=False)
    server = Server(tmp_path / "games.db").start()
    try:
        page = browser.new_page(bypass_csp=True, viewport={"width": 1280, "height": 900})
        page.goto(server.url + "/")
        page.wait_for_selector("#engine:not([hidden])", timeout=WAIT)
        page.wait_for_function("+document.getElementById('engine-bar').max > 0", timeout=WAIT)
        assert "Preparing the engine (first start only)" in page.inner_text("#engine-text")
        shot(page, "home-preparing.png")
        page.click("#seat-choice input[value=second]")  # the computer moves first
        page.click("#start")
        page.wait_for_url("**/game/**", timeout=WAIT)
        page.wait_for_function("document.getElementById('thinking-box').hidden === false",
                               timeout=WAIT)
        assert "Preparing the engine, first start only" in page.inner_text("#status")
        shot(page, "game-preparing.png")
        page.close()
    finally:
        server.stop()


def test_a_game_page_whose_script_cannot_load_says_so(browser, server):
    """The game page's script is ES modules: one that fails to load (the network, a proxy)
    stops them all, and the page said "Loading…" for ever without a word."""
    status, made = server.request("POST", "/api/games", json.dumps(
        {"game": "freego", "params": {"size": 5}, "seats": ["human", "human"]}).encode(),
        headers={"Content-Type": "application/json"})
    assert status == 201
    page = browser.new_page(bypass_csp=True)
    page.route("**/static/game/words.js", lambda route: route.abort())
    page.goto(server.url + made["links"]["1"])
    page.wait_for_function("!document.getElementById('status').textContent.includes('Loading')",
                           timeout=WAIT)
    assert "reload the page" in page.locator("#status").inner_text()
    # and a page whose script loads says nothing of it
    fine = browser.new_page(bypass_csp=True)
    fine.goto(server.url + made["links"]["1"])
    fine.wait_for_function("document.getElementById('board').querySelector('svg')", timeout=WAIT)
    assert "reload the page" not in fine.locator("#status").inner_text()
