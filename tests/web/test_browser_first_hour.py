"""A new player's first hour in a real headless Chromium (Debian's /usr/bin/chromium through
Playwright): the game page read in order, on a phone and on a wide screen, the mistakes a
newcomer makes on the way (clicks at the wrong time, a field out of range, the spectator's link
of their own game), and the words of the computer's turn and of the end."""

from __future__ import annotations

import re
import time
from typing import Any

import pytest
from browsers import WAIT
from webhelpers import Server

# Pages are opened with bypass_csp: Playwright's wait_for_function evaluates strings, which the
# server's Content-Security-Policy forbids (the policy itself is tested in test_privacy.py).


@pytest.fixture(scope="module")
def server(module_server):
    """The module's tests share one server (``module_server`` says when that is sound)."""
    return module_server



def new_game(server: Server, game: str = "freego", seats: tuple[str, str] = ("human", "human"),
             **extra: Any) -> dict[str, Any]:
    status, made = server.request("POST", "/api/games", {"game": game, "seats": list(seats),
                                                         **extra})
    assert status == 201, made
    return made


def open_page(browser, width: int = 1280, height: int = 900, phone: bool = False):
    """A page in a context of its own, its name chosen (the name form stays out of the way)."""
    ctx = browser.new_context(bypass_csp=True, viewport={"width": width, "height": height},
                              is_mobile=phone, has_touch=phone)
    ctx.add_init_script("localStorage.setItem('sg-name', 'Kay')")
    return ctx.new_page()


def test_the_game_pages_title_comes_before_the_board(browser, server):
    """The game's name, the players and the score came after the board, the move form and the
    settings in the page's order: a screen reader's heading list led past the board to them,
    and a phone showed them only below the builder. They come first: above the board on a
    phone, at the top of the side column beside it on a wide screen."""
    made = new_game(server, "blooms", ("human", "random"))
    for width, phone in ((375, True), (1280, False)):
        page = open_page(browser, width, 740 if phone else 900, phone)
        page.goto(server.url + made["links"]["1"])
        page.wait_for_selector("#board [data-cell]", timeout=WAIT)
        assert page.evaluate("document.querySelector('h1').compareDocumentPosition("
                             "document.getElementById('board')) & Node.DOCUMENT_POSITION_FOLLOWING")
        title = page.locator(".game-title").bounding_box()
        board = page.locator("#board").bounding_box()
        status = page.locator("#status").bounding_box()
        assert title and board and status
        if phone:  # above the status line and the board, all in view at once
            assert title["y"] + title["height"] <= status["y"] < board["y"]
            assert board["y"] < 740
        else:  # beside the board, at the top of its column, level with the status line
            assert title["x"] >= board["x"] + board["width"]
            assert abs(title["y"] - status["y"]) < 2
        page.context.close()


def wait_length(page, n: int) -> None:
    page.wait_for_function(f"document.body.dataset.length === '{n}'", timeout=WAIT)


def test_a_click_on_the_board_at_the_wrong_time_says_why_nothing_happened(browser, server):
    """A click on the board on the opponent's turn, or while an earlier position was shown,
    did nothing, in silence (only Enter said why): it says so. A double click's second click,
    after the move its first played, still says nothing."""
    made = new_game(server, params={"size": 5})
    page = open_page(browser)
    page.goto(server.url + made["links"]["1"])
    page.wait_for_selector("#status.your-turn", timeout=WAIT)
    page.uncheck("#confirm-moves")
    page.click("#board [data-cell='C3']")
    wait_length(page, 1)
    page.click("#board [data-cell='D4']")  # White's turn
    assert page.inner_text("#move-error") == "not your turn: White to move"
    status, _ = server.request("POST", f"/api/games/{made['id']}/move",
                               {"secret": made["secrets"]["2"], "move": "D4", "ply": 1})
    assert status == 200
    wait_length(page, 2)
    page.click("#nav-first")
    page.wait_for_function("document.body.dataset.ply === '0'", timeout=WAIT)
    page.click("#board [data-cell='B2']")
    assert page.inner_text("#move-error").startswith("this is an earlier position: End")
    page.click("#nav-last")
    # the status line says the live turn while an earlier position is shown: wait for the
    # position itself, else the double click lands on the earlier one
    page.wait_for_function("document.body.dataset.ply === '2'", timeout=WAIT)
    page.wait_for_selector("#status.your-turn", timeout=WAIT)
    page.dblclick("#board [data-cell='B2']")
    wait_length(page, 3)
    page.wait_for_timeout(300)  # the second click's events, if any
    assert page.inner_text("#move-error") == ""
    page.context.close()


def test_the_status_line_names_a_thinking_level_as_the_seats_line_does(browser, server):
    """The status line said "Black (level:6) is thinking…", the agent's spec, under a seats
    line that says "computer, level 6": it says it in those words too. So does the thinking
    box, which said "level:6 is thinking: 2 s of at most 10 s (budget: time=4)", and it says
    what the level searches in words."""
    for _ in range(600):  # bounded: the worker loads every game's kernels first
        if server.request("GET", "/api/engine")[1]["ready"]:
            break
        time.sleep(0.1)
    made = new_game(server, "freego", ("level:6", "human"))
    page = open_page(browser)
    page.goto(server.url + made["links"]["2"])
    page.wait_for_function("document.getElementById('thinking').textContent"
                           ".startsWith('The computer (level 6) is thinking: ')", timeout=WAIT)
    assert page.inner_text("#status") == "Black (computer, level 6) is thinking…"
    assert page.inner_text("#thinking").endswith(" s (it searches for 4 s)")
    assert "Black (computer, level 6)" in page.inner_text("#seats")
    page.context.close()


def test_the_spectator_link_of_your_own_game_leads_back_to_your_board(browser, server):
    """The Record card's spectator link, followed from a player's own board, opened a page that
    only watched ("Black to move", "watching", no move to make) with no way back but the
    browser's: it says this browser holds a seat there and links to its board."""
    made = new_game(server, params={"size": 5})
    page = open_page(browser)
    page.goto(server.url + made["links"]["1"])
    page.wait_for_selector("#status.your-turn", timeout=WAIT)
    assert page.is_hidden("#own-seat")
    page.click("#spectator-link")
    page.wait_for_function("!location.hash && document.getElementById('seats')?.textContent"
                           ".includes('watching')", timeout=WAIT)
    assert page.is_visible("#own-seat") and "You hold a seat" in page.inner_text("#own-seat")
    page.click("#own-seat-link")
    page.wait_for_selector("#status.your-turn", timeout=WAIT)
    assert page.is_hidden("#own-seat") and "you play Black" in page.inner_text("#seats")
    # a stranger's browser, holding no seat, is told nothing of the kind
    other = open_page(browser)
    other.goto(server.url + f"/game/{made['id']}")
    other.wait_for_function("document.getElementById('seats').textContent.includes('watching')",
                            timeout=WAIT)
    assert other.is_hidden("#own-seat")
    page.context.close()
    other.context.close()


def test_the_end_of_a_game_offers_rematch_and_new_game_as_two_buttons(browser, server):
    """At the end, Rematch and New game touched, read as one button split in two: they stand
    apart."""
    made = new_game(server, params={"size": 5})
    status, _ = server.request("POST", f"/api/games/{made['id']}/move",
                               {"secret": made["secrets"]["2"], "move": "resign"})
    assert status == 200
    page = open_page(browser)
    page.goto(server.url + made["links"]["1"])
    page.wait_for_function("document.body.dataset.terminal === 'true'", timeout=WAIT)
    assert page.inner_text("#status") == "Game over: You won: White resigned"
    rematch = page.locator("#rematch").bounding_box()
    again = page.locator("#new-game").bounding_box()
    assert rematch and again and again["x"] >= rematch["x"] + rematch["width"] + 4
    page.context.close()


def test_start_with_a_field_out_of_range_out_of_view_says_why_or_starts(browser, server):
    """A parameter out of its range in the folded-away Parameters, or a friend's clock out of
    its range left behind on choosing the computer, made Start do nothing, in silence: the
    browser had no field in view to point at. The Parameters unfold at the field, and the
    clock of a choice not taken is not checked (it is not sent)."""
    page = open_page(browser, 375, 740, phone=True)
    page.goto(server.url + "/?game=freego")
    page.click("#params-box summary")
    page.fill('[data-param="size"]', "99")
    page.click("#params-box summary")  # folded away again
    page.click("#start")
    page.wait_for_function("document.getElementById('params-box').open", timeout=WAIT)
    assert page.evaluate("document.activeElement.dataset.param") == "size"
    assert "/game/" not in page.url
    page.fill('[data-param="size"]', "5")
    page.check('input[name="mode"][value="friend"]')
    page.select_option("#clock-kind", "fischer")
    page.fill("#clock-minutes", "999")
    page.check('input[name="mode"][value="computer"]')
    page.click("#start")
    page.wait_for_url("**/game/**", timeout=WAIT)
    # the clock of a friend's game, chosen, is still sent
    page.goto(server.url + "/?game=freego")
    page.check('input[name="mode"][value="friend"]')
    page.select_option("#clock-kind", "fischer")
    page.fill("#clock-minutes", "7")
    page.click("#start")
    page.wait_for_selector("#invite:not([hidden])", timeout=WAIT)
    gid = page.get_attribute("#link-spectator", "href").rsplit("/", 1)[1]
    status, snap = server.request("GET", f"/api/games/{gid}")
    assert status == 200 and snap["clock"]["1"] == 7 * 60
    page.context.close()


def test_a_cancelled_computer_is_said_paused_not_to_move(browser, server):
    """Once its thinking was cancelled, the status line said "Black to move", as if the
    computer would play: it says the computer is paused (the box beside says how to go on)."""
    made = new_game(server, "freego", ("level:6", "human"))
    page = open_page(browser)
    page.goto(server.url + made["links"]["2"])
    page.wait_for_selector("#cancel:not([hidden])", timeout=WAIT)
    page.click("#cancel")
    page.wait_for_selector("#resume:not([hidden])", timeout=WAIT)
    assert page.inner_text("#status") == "Black (computer, level 6) is paused"
    page.click("#resume")
    page.wait_for_selector("#status.your-turn", timeout=WAIT)
    page.context.close()


def test_a_hint_names_the_computer_in_words_and_where_it_is(browser, server):
    """A hint said "Hint (mcts): E5": the search's spec, which a newcomer cannot read, and not
    where to look. It says "Hint: E5, marked on the board (from the computer's search)"."""
    made = new_game(server, "freego", ("human", "random"))
    page = open_page(browser)
    page.goto(server.url + made["links"]["1"])
    page.wait_for_selector("#status.your-turn", timeout=WAIT)
    page.click("#hint")
    page.wait_for_function("document.getElementById('hint-text').textContent.startsWith('Hint')",
                           timeout=WAIT)
    hint = page.inner_text("#hint-text")
    assert re.fullmatch(r"Hint: [A-J]\d, marked on the board \(from the computer's search\)",
                        hint), hint
    page.context.close()


def test_the_end_says_you_to_the_player_it_names(browser, server):
    """A player who resigned read "You lost: Black resigned", as if Black were someone else:
    the sentence says "you" to the player it names, and names them to the other."""
    made = new_game(server, params={"size": 5})
    status, _ = server.request("POST", f"/api/games/{made['id']}/move",
                               {"secret": made["secrets"]["1"], "move": "resign"})
    assert status == 200
    for seat, words in (("1", "Game over: You lost: you resigned"),
                        ("2", "Game over: You won: Black resigned")):
        page = open_page(browser)
        page.goto(server.url + made["links"][seat])
        page.wait_for_function("document.body.dataset.terminal === 'true'", timeout=WAIT)
        assert page.inner_text("#status") == words
        page.context.close()


def test_blooms_builder_says_confirm_plays_the_stones(browser, server):
    """In Blooms a click only chooses a stone (a second may follow), where in Free Go it plays:
    a newcomer clicked a cell and waited, as the words in view named no Confirm (only a screen
    reader heard it)."""
    made = new_game(server, "blooms", ("human", "human"))
    later = new_game(server, "blooms", ("human", "human"))
    for seat, move in (("1", "Rd4"), ("2", "Ke4")):
        status, _ = server.request("POST", f"/api/games/{later['id']}/move",
                                   {"secret": later["secrets"][seat], "move": move})
        assert status == 200
    for game, words in ((made, "first turn: one stone, then Confirm"),
                        (later, "one or two stones (one of each colour), then Confirm")):
        page = open_page(browser)
        page.goto(server.url + game["links"]["1"])
        page.wait_for_selector("#status.your-turn", timeout=WAIT)
        page.wait_for_function(
            "document.getElementById('colours').textContent.includes('stone')", timeout=WAIT)
        assert page.inner_text("#colours .muted") == words
        assert page.is_visible("#colours .muted") and page.is_visible("#confirm")
        page.context.close()


def test_a_settings_words_stay_beside_its_checkbox_on_a_phone(browser, server):
    """On a phone, "Browser notification on my turn and at the end" wrapped below its checkbox,
    which stood alone on a line as if it were another setting's: the words wrap beside it."""
    made = new_game(server, "freego", ("human", "human"))
    page = open_page(browser, 375, 740, phone=True)
    page.goto(server.url + made["links"]["1"])
    page.wait_for_selector("#status.your-turn", timeout=WAIT)
    for box in ("#turn-notify", "#turn-sound", "#confirm-moves"):
        top = page.evaluate("""(sel) => {
            const label = document.querySelector(sel).closest('label');
            const text = [...label.childNodes].find((n) => n.nodeType === 3 && n.textContent.trim());
            const range = document.createRange(); range.selectNodeContents(text);
            const words = range.getClientRects()[0], tick = document.querySelector(sel).getBoundingClientRect();
            return [words.top, words.bottom, tick.top, tick.bottom, words.left - tick.right];
        }""", box)
        words_top, words_bottom, tick_top, tick_bottom, gap = top
        assert tick_top < words_bottom and words_top < tick_bottom, (box, top)  # one line
        assert gap >= 0, (box, top)  # to its right
    page.context.close()
