"""End-to-end tests in a real headless Chromium (Debian's /usr/bin/chromium driven by
Playwright; scripts/install-browser.sh installs both). They skip, saying why, only when the
browser or Playwright is missing. Screenshots go to docs/screenshots/."""

from __future__ import annotations

import json
import os
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from webhelpers import ROOT, Server

CHROMIUM = "/usr/bin/chromium"
ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
        "--disable-background-networking", "--disable-component-update", "--disable-sync"]
SHOTS = ROOT / "docs" / "screenshots"
WAIT = 60_000  # ms; bounded waits for the page, never a timing assertion

if not os.path.exists(CHROMIUM):
    pytest.skip(f"{CHROMIUM} is missing: run scripts/install-browser.sh", allow_module_level=True)
sync_api = pytest.importorskip(
    "playwright.sync_api",
    reason="the playwright package is missing: run scripts/install-browser.sh")


@pytest.fixture(scope="module")
def browser() -> Iterator[object]:
    with sync_api.sync_playwright() as pw:
        b = pw.chromium.launch(executable_path=CHROMIUM, args=ARGS, headless=True)
        yield b
        b.close()


@pytest.fixture
def server(tmp_path: Path) -> Iterator[Server]:
    s = Server(tmp_path / "games.db").start()
    yield s
    s.stop()


def shot(page, name: str) -> None:
    SHOTS.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(SHOTS / name), full_page=True)


def start_from_home(page, server: Server, game: str, params: dict[str, str],
                    seats: tuple[str, str]) -> None:
    page.goto(server.url + "/")
    page.select_option("#game-select", game)
    for name, value in params.items():
        page.fill(f'[data-param="{name}"]', value)
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
def test_blooms_against_the_agent_to_the_end_then_undo_hint_download_replay(
        browser, server, tmp_path, cli):
    page = browser.new_page(viewport={"width": 1280, "height": 900})
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

    page.click("#undo")
    page.wait_for_function(f"+document.body.dataset.length < {final}", timeout=WAIT)
    assert page.evaluate("document.body.dataset.terminal") == "false"
    assert "Your turn" in page.inner_text("#status")

    page.click("#hint")
    page.wait_for_selector("#board .hint-ring", timeout=WAIT)
    assert page.inner_text("#hint-text").startswith("Hint (")
    shot(page, "blooms-hint.png")

    page.click("#analyse")
    page.wait_for_selector("#winprob polyline", timeout=WAIT)

    with page.expect_download(timeout=WAIT) as dl:
        page.click("#download")
    path = tmp_path / "download.json"
    dl.value.save_as(str(path))
    record = json.loads(path.read_text())
    assert record["format"] == "stonegarden-record" and record["game"] == "blooms"
    replay = cli("replay", str(path), "--json")
    assert replay.returncode == 0, replay.stderr
    assert len(replay.stdout.splitlines()) == len(record["moves"])
    assert errors == []


@pytest.mark.slow
def test_two_people_on_their_seat_links_while_a_third_watches_live(browser, server):
    host = browser.new_context(viewport={"width": 1280, "height": 900})
    guest = browser.new_context(viewport={"width": 1280, "height": 900})
    watcher = browser.new_context(viewport={"width": 1280, "height": 900})
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
    wait_ready(a)
    a.click("#pass")
    for page in (a, b, c):
        page.wait_for_function("document.body.dataset.terminal === 'true'", timeout=WAIT)
        assert "Game over" in page.inner_text("#status")
    shot(a, "blooms-territory-game.png")
    for ctx in (host, guest, watcher):
        ctx.close()


@pytest.mark.slow
def test_rules_and_stored_games_pages(browser, server):
    from stonegarden.core.registry import available_games

    page = browser.new_page(viewport={"width": 1100, "height": 900})
    page.goto(server.url + "/")
    page.select_option("#game-select", "blooms-territory")
    assert page.locator('[data-param="superko"]').count() == 1  # the game's own parameters
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
    if (ROOT / "docs" / "games" / "blooms.md").exists():
        assert page.locator(".doc h2").count() > 0  # the game's doc, rendered
    for game_id in available_games():  # every rules page renders, with its doc's pictures
        page.goto(server.url + f"/rules/{game_id}")
        assert page.locator("figure svg").count() > 0, game_id
        broken = page.evaluate("[...document.images].filter(i => !i.naturalWidth).length")
        assert broken == 0, game_id
    shot(page, "blooms-rules.png")
    _, made = server.request("POST", "/api/games", {
        "game": "blooms", "params": {"size": 2}, "seats": ["human", "human"]})
    page.goto(server.url + "/games")
    assert page.locator(f'tr[data-gid="{made["id"]}"]').count() == 1
    page.goto(server.url + "/game/nope")
    assert "Error 404" in page.inner_text("h1")


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
    page = browser.new_page(viewport={"width": 520, "height": 520})
    page.set_content(f'<body style="margin:0;background:#f6f1e6">'
                     f'<div style="width:500px">{view.svg(game, states[-1], marks)}</div></body>')
    assert page.locator("[data-cell]").count() == 81
    assert page.locator('[data-cell="E5"].last').count() == 1
    assert page.locator(".captured-mark").count() == 3
    shot(page, "square-board.png")


def _games_with_builder(kind: str, what: str) -> list[Any]:
    from stonegarden.core.registry import available_games, make
    from stonegarden.web.views import view_for

    found = [g for g in available_games() if view_for(make(g)).kind == kind]
    return found or [pytest.param(None, marks=pytest.mark.skip(
        reason=f"no {what} game is registered yet"))]


@pytest.mark.parametrize("game_id", _games_with_builder("point", "square-board (Go)"))
@pytest.mark.slow
def test_square_game_against_the_agent_to_the_end_by_clicks(browser, server, tmp_path, cli,
                                                            game_id):
    from stonegarden.core.registry import game_class

    size = next(p for p in game_class(game_id).param_specs if p.name == "size")
    page = browser.new_page(viewport={"width": 1280, "height": 900})
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
    with page.expect_download(timeout=WAIT) as dl:
        page.click("#download")
    path = tmp_path / "download.json"
    dl.value.save_as(str(path))
    replay = cli("replay", str(path), "--json")
    assert replay.returncode == 0, replay.stderr
    assert page.locator("#download-sgf").count() == 1


@pytest.mark.parametrize("game_id", _games_with_builder("blobs", "dice (Blobs)"))
@pytest.mark.slow
def test_dice_game_against_the_agent_to_the_end_by_clicks(browser, server, tmp_path, cli,
                                                          game_id):
    page = browser.new_page(viewport={"width": 1280, "height": 900})
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
        page.locator("button.face-option").first.click()  # ... then one of its faces
        page.wait_for_function(f"+document.body.dataset.length > {length}", timeout=WAIT)
    assert page.evaluate("document.body.dataset.terminal") == "true"
    shot(page, f"{game_id}-game-over.png")
    with page.expect_download(timeout=WAIT) as dl:
        page.click("#download")
    path = tmp_path / "download.json"
    dl.value.save_as(str(path))
    replay = cli("replay", str(path), "--json")
    assert replay.returncode == 0, replay.stderr
