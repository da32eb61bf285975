"""The game page's study parts from the keyboard and with a screen reader, in a real headless
Chromium: the move list and the analysis' graph, reached and worked by keys and named by their
roles."""

from __future__ import annotations

import json
import re

import pytest
from browsers import WAIT
from test_browser_robust import move, new_game, open_page, wait_text

# Pages are opened with bypass_csp: Playwright's wait_for_function evaluates strings, which the
# server's Content-Security-Policy forbids (the policy itself is tested in test_privacy.py).

FOCUSED_PLY = "document.activeElement.closest('#moves li')?.dataset.ply"


@pytest.fixture(scope="module")
def server(module_server):
    """The module's tests share one server (``module_server`` says when that is sound)."""
    return module_server



def three_moves(server):
    made = new_game(server, params={"size": 5}, hints=True)  # a spectator may analyse it
    for i, text in enumerate(["C3", "D4", "B2"]):
        move(server, made, str(i % 2 + 1), text, i)
    return made


def test_the_move_list_is_reached_and_worked_from_the_keyboard(browser, server):
    """The moves were list items that a click alone could show: Tab passed them by and a
    screen reader heard text. Each is a button, named with its number; the list is one Tab
    stop, at the position shown; Up and Down go along it, Enter shows a move, and stepping
    from the list keeps the focus on the move shown."""
    made = three_moves(server)
    page = open_page(browser)
    try:
        page.goto(server.url + made["links"]["spectator"])
        page.wait_for_function("document.body.dataset.length === '3'", timeout=WAIT)
        assert page.locator("#moves").aria_snapshot() == "\n".join([
            '- list "Moves":',
            "  - listitem:", """    - 'button "Move 1: Black C3"': Black C3""",
            "  - listitem:", """    - 'button "Move 2: White D4"': White D4""",
            "  - listitem:", """    - 'button "Move 3: Black B2"': Black B2"""])
        page.focus("#nav-last")
        page.keyboard.press("Tab")  # one stop: the move shown, the last one
        assert page.evaluate(FOCUSED_PLY) == "3"
        current = page.locator("#moves").get_by_role("button", name="Move 3: Black B2")
        assert current.get_attribute("aria-current") == "step"
        page.keyboard.press("ArrowUp")
        page.keyboard.press("ArrowUp")
        assert page.evaluate(FOCUSED_PLY) == "1"
        assert page.evaluate("document.body.dataset.ply") == "3"  # the focus moved, not the game
        # its ring drawn inside the move: outside, the scrolled list cut it and the next hid it
        assert page.evaluate("getComputedStyle(document.activeElement).outlineOffset")[0] == "-"
        page.keyboard.press("Enter")
        page.wait_for_function("document.body.dataset.ply === '1'", timeout=WAIT)
        assert page.locator("#moves [aria-current=step]").get_attribute("aria-label") \
            == "Move 1: Black C3"
        page.keyboard.press("ArrowRight")  # a step from the list takes the focus along
        page.wait_for_function("document.body.dataset.ply === '2'", timeout=WAIT)
        page.wait_for_function(f"{FOCUSED_PLY} === '2'", timeout=WAIT)
        page.keyboard.press("Shift+Tab")  # the list's one stop: off it, to the buttons above
        assert page.evaluate("document.activeElement.id") == "nav-last"
        page.keyboard.press("Tab")
        assert page.evaluate(FOCUSED_PLY) == "2"  # back on the move shown
        move(server, made, "2", "A1", 3)  # a new move leaves the focus where it was
        page.wait_for_function("document.body.dataset.length === '4'", timeout=WAIT)
        assert page.evaluate(FOCUSED_PLY) == "2"
    finally:
        page.context.close()


def test_the_analysis_graph_is_a_slider_over_the_positions(browser, server):
    """The graph's dots were reached by a click alone, and a screen reader met one picture:
    it is a slider, reached by Tab, at the position shown and saying it; its keys step
    through the positions as a slider's do."""
    made = three_moves(server)
    page = open_page(browser)
    try:
        page.goto(server.url + made["links"]["spectator"])
        wait_text(page, "#seats", "watching")
        assert page.get_attribute("#analysis", "tabindex") is None  # nothing to reach yet
        page.focus("#analyse")
        page.keyboard.press("Enter")
        wait_text(page, "#analysis-status", ", 4 positions;")  # done
        page.keyboard.press("Tab")  # from the analysis' state, where the button left the focus
        graph = page.get_by_role("slider", name="Black's winning chances by move")
        assert page.evaluate("document.activeElement.id") == "analysis" and graph.count() == 1
        assert graph.get_attribute("aria-valuenow") == "3"
        assert graph.get_attribute("aria-valuemax") == "3"
        assert graph.get_attribute("aria-valuetext").startswith("after move 3 of 3: ")
        for key, ply in (("ArrowDown", "2"), ("PageDown", "0"), ("ArrowUp", "1"),
                         ("ArrowRight", "2"), ("End", "3"), ("Home", "0")):
            page.keyboard.press(key)
            page.wait_for_function(f"document.body.dataset.ply === '{ply}'", timeout=WAIT)
            page.wait_for_function(
                f"document.getElementById('analysis').getAttribute('aria-valuenow') === '{ply}'",
                timeout=WAIT)
            assert page.evaluate("document.activeElement.id") == "analysis", key
        assert graph.get_attribute("aria-valuetext").startswith("the start: ")
        assert page.locator("#winprob").get_attribute("aria-hidden") == "true"  # its dots, drawn
    finally:
        page.context.close()



def test_the_analysis_graph_gone_under_the_focus_leaves_it_on_the_analysis_offered(browser,
                                                                                   server):
    """The graph, reached from the keyboard, went from the page with the focus on it (the
    server restarted before it stored any of the analysis' positions): the focus fell to the
    top of the page, and a keyboard user had to find the place again. It goes to the
    analysis offered again."""
    made = three_moves(server)
    page = open_page(browser)
    try:
        page.goto(server.url + made["links"]["spectator"])
        wait_text(page, "#seats", "watching")
        page.focus("#analyse")
        page.keyboard.press("Enter")
        wait_text(page, "#analysis-status", ", 4 positions;")  # done
        page.keyboard.press("Tab")
        assert page.evaluate("document.activeElement.id") == "analysis"
        # from now on the server has no analysis of the game, as after such a restart
        page.route(re.compile(rf".*/api/games/{made['id']}(\?ply=\d+)?$"), lambda route: (
            route.fulfill(json={**route.fetch().json(), "analysis": None, "review": None})))
        page.keyboard.press("ArrowDown")  # a step: the page asks for the position
        page.wait_for_function("!document.getElementById('analysis').hasAttribute('role')",
                               timeout=WAIT)
        assert page.evaluate("document.activeElement.id") == "analyse"
    finally:
        # a poll still on its way through the route would fail the next test's first call
        page.unroute_all(behavior="ignoreErrors")
        page.context.close()


def test_the_links_and_buttons_of_the_lists_of_games_say_which_game_they_act_on(browser,
                                                                              own_server):
    """Each row of the stored games, the lobby and "My games" had its own "Review",
    "Download", "Resume", "Join", "Withdraw" or "Open", and the game page's result a "New
    game" beside the header's, to another page: a screen reader's list of links or buttons
    read the same name again and again. Each is named by its words, then its game's."""
    server = own_server
    games = [new_game(server, params={"size": size}, seats=("human", "open"), public=True,
                      name="Ana") for size in (5, 7)]
    for size in (5, 7):
        games.append(new_game(server, params={"size": size}, public=True))
        move(server, games[-1], "1", "resign", 0)
    keys = {g["id"]: g["secrets"] for g in games}
    page = open_page(browser)
    try:
        page.add_init_script(f"localStorage.setItem('sg-keys', {json.dumps(json.dumps(keys))})")
        for path, words in (("/games", {"Review", "Download", "Resume"}),
                            ("/lobby", {"Withdraw", "Your board"}),
                            ("/my-games", {"Open", "Review"})):
            page.goto(server.url + path)
            page.wait_for_selector("main a.resume:not([hidden]), #lobby button, #mine a",
                                   timeout=WAIT)
            controls = re.findall(r'- (?:link|button) "([^"]*)"',
                                  page.locator("main table").aria_snapshot())
            named = [n for n in controls if n.split(",")[0] in words]
            assert len(named) == len(controls) >= 4 and len(set(named)) == len(named), controls
            assert any(", size 7," in n for n in named), controls
        page.goto(server.url + games[2]["links"]["1"])
        page.wait_for_selector("#result:not([hidden])", timeout=WAIT)
        assert page.get_by_role("link", name="New game", exact=True).count() == 1  # the header's
        assert page.get_by_role("link", name="New game of Free Go (a capture race)").count() == 1
    finally:
        page.context.close()


def arrows(page, key: str, times: int) -> list[str]:
    """The cells the keyboard's focus goes through, pressing ``key`` ``times`` times."""
    path = []
    for _ in range(times):
        page.keyboard.press(key)
        path.append(page.evaluate("document.activeElement.dataset.cell"))
    return path


def test_the_arrows_go_row_by_row_on_a_hexagonal_board_and_back(browser, server):
    """On Blooms' board Up skipped every other row (the cell straight up two rows was nearer
    than a neighbour above, half a cell aside), Down did not come back where Up started, and
    Left at a row's end went up a row. Each arrow goes to a neighbour, a run of them keeps
    to its line, and the opposite arrow comes back the same way."""
    made = new_game(server, "blooms")
    page = open_page(browser)
    try:
        page.goto(server.url + made["links"]["1"])
        page.wait_for_selector("#status.your-turn", timeout=WAIT)
        page.locator("#board [data-cell='a1']").focus()
        up = arrows(page, "ArrowUp", 6)
        assert [c[0] for c in up] == list("bcdefg"), up  # every row, in turn
        assert arrows(page, "ArrowDown", 6) == [*up[-2::-1], "a1"]
        assert arrows(page, "ArrowLeft", 1) == ["a1"]  # the row's end: nowhere to go
        page.locator("#board [data-cell='d1']").focus()
        assert arrows(page, "ArrowRight", 6) == [f"d{i}" for i in range(2, 8)]
        assert arrows(page, "ArrowLeft", 6) == [f"d{i}" for i in range(6, 0, -1)]
    finally:
        page.context.close()


def test_tab_stays_in_a_question_until_it_is_answered(browser, server):
    """Tab from a question's No ("Resign this game?") went on to the move form, the question
    left open behind it, where Escape no longer closed it: Tab and Shift+Tab go between Yes
    and No, and Escape answers No, back on Resign."""
    made = new_game(server, params={"size": 5})
    page = open_page(browser)
    try:
        page.goto(server.url + made["links"]["1"])
        page.wait_for_selector("#status.your-turn", timeout=WAIT)
        page.focus("#resign")
        page.keyboard.press("Enter")
        assert page.get_by_role("alertdialog", name="Resign this game?").count() == 1
        focused = []
        for key in ("Tab", "Tab", "Shift+Tab", "Shift+Tab"):
            page.keyboard.press(key)
            focused.append(page.evaluate("document.activeElement.id"))
        assert focused == ["ask-yes", "ask-no", "ask-yes", "ask-no"]
        page.keyboard.press("Escape")
        assert page.is_hidden("#ask") and page.evaluate("document.activeElement.id") == "resign"
        assert page.evaluate("document.body.dataset.terminal") == "false"  # not resigned
    finally:
        page.context.close()
