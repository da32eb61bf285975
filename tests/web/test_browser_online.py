"""Two people online in a real headless Chromium (Debian's /usr/bin/chromium through
Playwright), each in a browser context of their own (their own stored name and seat keys):
names, the live lobby, joining, the clock shown live, turn alerts in the title, rematch
offered live, "my games" with your turn first. Screenshots go to docs/screenshots/."""

from __future__ import annotations

import json
import re
import sqlite3
import time

import pytest
from browsers import SHOTS, WAIT, change_answers

# Pages are opened with bypass_csp: Playwright's wait_for_function evaluates strings, which the
# server's Content-Security-Policy forbids (the policy itself is tested in test_privacy.py).


def person(browser, errors: list[str]):
    context = browser.new_context(bypass_csp=True, viewport={"width": 1280, "height": 900})
    page = context.new_page()
    page.on("pageerror", lambda e: errors.append(str(e)))
    return page


def anas_game(server, **fields) -> dict:
    """A game of Free Go 5x5 between two people that Ana made, with ``fields`` (a clock, a
    seat), as its answer gives it."""
    status, made = server.request("POST", "/api/games", {
        "game": "freego", "params": {"size": 5}, "seats": ["human", "human"], "name": "Ana",
        **fields})
    assert status == 201, made
    return made


def choose_name(page, name: str) -> None:
    page.wait_for_selector("#name-form:not([hidden])", timeout=WAIT)
    page.fill("#name-input", name)
    page.click("#name-form button[type=submit]")
    page.wait_for_selector("#you-are:not([hidden])", timeout=WAIT)
    assert page.inner_text("#my-name") == name


def play_one(page) -> None:
    # a page just opened (or gone back to) has no state until its first answer: wait for it
    page.wait_for_selector("#status.your-turn", timeout=WAIT)
    page.wait_for_function("document.body.dataset.length !== undefined", timeout=WAIT)
    length = int(page.evaluate("document.body.dataset.length"))
    page.locator("#board .cell.legal").first.click()
    page.click("#confirm")
    page.wait_for_function(f"+document.body.dataset.length > {length}", timeout=WAIT)


@pytest.mark.slow
def open_game(server, game: str = "freego", params: dict | None = None, **extra) -> dict:
    """A public game waiting in the lobby for an opponent (its creator's answer)."""
    status, made = server.request("POST", "/api/games", {
        "game": game, "params": params or {"size": 5}, "seats": ["human", "open"],
        "public": True, **extra})
    assert status == 201, made
    return made


def test_two_people_meet_in_the_lobby_play_on_the_clock_and_rematch(browser, server):
    errors: list[str] = []
    ana, bo = person(browser, errors), person(browser, errors)

    # Bo waits in the lobby before there is any game: it must appear by itself
    bo.goto(server.url + "/lobby")
    choose_name(bo, "Bo")
    bo.wait_for_function("document.body.dataset.lobbyCount === '0'", timeout=WAIT)

    ana.goto(server.url + "/")
    choose_name(ana, "Ana <b>")  # shown as text, never as markup
    ana.select_option("#game-select", "blooms")
    ana.click("#params-box summary")
    ana.fill('[data-param="size"]', "3")
    ana.check('input[name="mode"][value="friend"]')
    ana.check('input[name="invite"][value="lobby"]')
    ana.select_option("#clock-kind", "fischer")
    ana.fill("#clock-minutes", "5")
    ana.fill("#clock-increment", "3")
    ana.check('input[name="seat"][value="first"]')
    ana.click("#start")
    ana.wait_for_url("**/game/**", timeout=WAIT)
    ana.wait_for_selector("#waiting:not([hidden])", timeout=WAIT)
    assert "Waiting for someone to join" in ana.inner_text("#status")
    assert ana.is_visible("#clocks")

    bo.wait_for_function("document.body.dataset.lobbyCount === '1'", timeout=WAIT)
    row = bo.locator("#lobby tbody tr").first
    assert "Ana <b>" in row.inner_text() and "5 min + 3 s" in row.inner_text()
    assert bo.locator("#lobby tbody b").count() == 0
    SHOTS.mkdir(parents=True, exist_ok=True)
    bo.screenshot(path=str(SHOTS / "lobby.png"), full_page=True)
    row.locator("button.join").click()
    bo.wait_for_url("**/game/**#key=*", timeout=WAIT)

    # Ana's page hears the join: her turn, with Bo's name, and the title says so
    ana.wait_for_selector("#status.your-turn", timeout=WAIT)
    # Bo's page draws its seats once its first fetch answers: wait for that, then read
    bo.wait_for_function("document.querySelector('#seats').textContent.includes('Ana')",
                         timeout=WAIT)
    assert "Bo" in ana.inner_text("#seats") and "Ana <b>" in bo.inner_text("#seats")
    assert ana.title().startswith("● Your turn")
    play_one(ana)
    bo.wait_for_selector("#status.your-turn", timeout=WAIT)
    assert bo.title().startswith("● Your turn") and not ana.title().startswith("●")
    play_one(bo)

    # both have moved: Ana's clock runs, on both pages, counting down
    ana.wait_for_selector("#clock-1.running", timeout=WAIT)
    bo.wait_for_selector("#clock-1.running", timeout=WAIT)
    first = float(bo.get_attribute("#clock-1", "data-left"))
    bo.wait_for_function(f"+document.querySelector('#clock-1').dataset.left < {first - 1}",
                         timeout=WAIT)
    assert float(bo.get_attribute("#clock-2", "data-left")) > 300  # 300 s + 3 s increment
    ana.screenshot(path=str(SHOTS / "online-clock.png"), full_page=True)

    # Ana resigns; she asks for a rematch, and Bo's page offers it at once
    ana.click("#resign")
    ana.click("#ask-yes")
    ana.wait_for_function("document.body.dataset.terminal === 'true'", timeout=WAIT)
    ana.wait_for_selector("#rematch:not([hidden])", timeout=WAIT)
    # each page's old address is read before its click: a click returns only once a navigation
    # asked while it was on its way has happened (Playwright waits for it), so on a loaded
    # machine the address read after the click can already be the rematch's
    anas_old, bos_old = ana.url, bo.url
    ana.click("#rematch")
    ana.wait_for_function(f"location.href !== {anas_old!r}", timeout=WAIT)
    bo.wait_for_selector("#rematch-offer:not([hidden])", timeout=WAIT)
    bo.click("#accept-rematch")
    bo.wait_for_function(f"location.href !== {bos_old!r}", timeout=WAIT)
    bo.wait_for_selector("#status.your-turn", timeout=WAIT)  # seats swapped: Bo moves first
    assert bo.url.split("#")[0] == ana.url.split("#")[0] != anas_old.split("#")[0]
    # back on the old game, Ana is not offered the rematch she offered: she goes to it
    ana.go_back()
    ana.wait_for_function("document.body.dataset.terminal === 'true'", timeout=WAIT)
    ana.wait_for_function("document.getElementById('rematch').textContent === 'Go to the rematch'",
                          timeout=WAIT)
    assert ana.is_hidden("#rematch-offer")

    # Bo's games: the rematch (his turn) first, then the finished game
    bo.goto(server.url + "/my-games")
    bo.wait_for_function("document.body.dataset.turns === '1'", timeout=WAIT)
    rows = bo.locator("#mine tbody tr")
    assert rows.count() == 2
    assert rows.nth(0).get_attribute("data-turn") == "true"
    assert "Your turn" in rows.nth(0).inner_text() and "You won" in rows.nth(1).inner_text()
    assert bo.title().startswith("(1) Your turn")
    bo.screenshot(path=str(SHOTS / "my-games.png"), full_page=True)
    # Ana's "my games" updates when Bo moves in the rematch
    ana.goto(server.url + "/my-games")
    ana.wait_for_function("document.body.dataset.turns === '0'", timeout=WAIT)
    bo.go_back()
    play_one(bo)
    ana.wait_for_function("document.body.dataset.turns === '1'", timeout=WAIT)
    assert errors == []


def test_the_name_can_wait_until_it_is_needed(browser, server):
    errors: list[str] = []
    ana = person(browser, errors)
    made = open_game(server, "blooms", {"size": 2})
    ana.goto(server.url + "/lobby")
    ana.wait_for_selector("#name-form:not([hidden])", timeout=WAIT)
    ana.click("#name-later")
    ana.reload()
    ana.wait_for_function("document.body.dataset.lobbyCount === '1'", timeout=WAIT)
    assert ana.is_hidden("#name-form")
    ana.locator("#lobby button.join").focus()
    ana.keyboard.press("Enter")  # joining needs a name: the form comes back, focused
    ana.wait_for_selector("#name-form:not([hidden])", timeout=WAIT)
    assert "Choose your name" in ana.inner_text("#lobby-error")
    assert ana.evaluate("document.activeElement.id") == "name-input"
    # the lobby is drawn anew while she types (a game opens): the request for a name is still
    # said, and her Join is the one found again (its button was replaced: the focus went to
    # "change", and the request went at the lobby's next update, as soon as the page loaded)
    open_game(server, name="Cy")
    ana.wait_for_function("document.body.dataset.lobbyCount === '2'", timeout=WAIT)
    assert "Choose your name" in ana.inner_text("#lobby-error")
    ana.keyboard.type("Ana")
    ana.keyboard.press("Enter")
    ana.wait_for_selector("#you-are:not([hidden])", timeout=WAIT)
    # the focus is back on the Join that asked for the name, not at the top of the page, and
    # the request for a name is no longer shown
    assert ana.evaluate("document.activeElement.textContent") == "Join"
    assert ana.inner_text("#lobby-error") == ""
    ana.keyboard.press("Enter")
    ana.wait_for_url(f"**/game/{made['id']}#key=*", timeout=WAIT)
    ana.wait_for_function("document.querySelector('#seats').textContent.includes('Ana')",
                          timeout=WAIT)
    assert errors == []


def invite_by_link(page, server, seat: str | None = None) -> None:
    """Ana starts a Free Go game with a friend invited by a link (``seat``: hers, else the
    page's default)."""
    page.goto(server.url + "/?game=freego")
    choose_name(page, "Ana")
    page.check('input[name="mode"][value="friend"]')
    page.check('input[name="invite"][value="link"]')
    if seat is not None:
        page.check(f'input[name="seat"][value="{seat}"]')
    page.click("#start")


def test_the_creator_of_a_game_with_a_friend_keeps_only_her_own_seat(browser, server):
    # Ana sends Bo his seat link: her board offers it to pass on, but her "my games" is hers
    # alone (her turn, her name, her seat's link), not "your turn" on Bo's turns
    errors: list[str] = []
    ana, bo = person(browser, errors), person(browser, errors)
    invite_by_link(ana, server, "second")  # Bo, Black, moves first
    ana.wait_for_selector("#invite:not([hidden])", timeout=WAIT)
    invite, own = ana.input_value("#invite-url"), ana.get_attribute("#go-to-seat", "href")
    ana.click("#go-to-seat")
    ana.wait_for_selector("#invite-link:not([hidden])", timeout=WAIT)
    assert ana.input_value("#invite-url") == invite
    ana.focus("#copy-invite")
    ana.keyboard.press("Enter")  # copied, or refused (no permission here): said either way
    ana.wait_for_function("document.getElementById('copy-note').textContent !== ''",
                          timeout=WAIT)
    assert ana.inner_text("#copy-note") in ("Copied.", "Select the link and copy it (Ctrl+C).")
    assert ana.get_attribute("#copy-note", "aria-live") == "polite"
    bo.goto(server.url + "/lobby")
    choose_name(bo, "Bo")
    bo.goto(invite)
    bo.wait_for_function("document.querySelector('#seats').textContent.includes('Bo')",
                         timeout=WAIT)

    ana.goto(server.url + "/my-games")
    ana.wait_for_function("document.body.dataset.turns === '0'", timeout=WAIT)
    row = ana.locator("#mine tbody tr")
    assert row.count() == 1 and row.get_attribute("data-turn") == "false"
    assert row.locator("td").nth(0).inner_text() == "Their turn"
    assert row.locator('td[data-label="You"]').inner_text() == "Ana"
    assert row.locator('td[data-label="Against"]').inner_text() == "Bo"
    assert row.locator("a").get_attribute("href").endswith(own.split("/game/")[1])
    assert not ana.title().startswith("(")
    bo.wait_for_selector("#status.your-turn", timeout=WAIT)
    bo.fill("#move-text", "C3")
    bo.press("#move-text", "Enter")
    ana.wait_for_function("document.body.dataset.turns === '1'", timeout=WAIT)
    assert "Your turn" in row.inner_text()
    assert errors == []


@pytest.mark.slow
def test_a_creator_who_opens_her_friends_link_leaves_that_seat_to_the_friend(browser, server):
    # Ana opens the link she is to send Bo (to check it): the seat is not named after her,
    # nor made one of hers, so Bo's name is the one the game shows, and her games are hers
    errors: list[str] = []
    ana, bo = person(browser, errors), person(browser, errors)
    invite_by_link(ana, server)
    ana.wait_for_selector("#invite:not([hidden])", timeout=WAIT)
    invite, own = ana.input_value("#invite-url"), ana.get_attribute("#go-to-seat", "href")
    gid = own.split("/game/")[1].split("#")[0]
    ana.goto(invite)
    ana.wait_for_function("document.querySelector('#seats').textContent.includes('you play')",
                          timeout=WAIT)
    ana.wait_for_timeout(500)  # a name it would give the seat is on its way by now
    assert server.request("GET", f"/api/games/{gid}")[1]["names"] == {"1": "Ana", "2": None}
    assert ana.evaluate(f"Object.keys(SG.keys()['{gid}'] || {{}})") == ["1"]
    assert ana.is_hidden("#invite-link")  # her own seat's link is not one to pass on
    bo.goto(server.url + "/lobby")
    choose_name(bo, "Bo")
    bo.goto(invite)
    bo.wait_for_function("document.querySelector('#seats').textContent.includes('Bo')",
                         timeout=WAIT)
    assert server.request("GET", f"/api/games/{gid}")[1]["names"] == {"1": "Ana", "2": "Bo"}
    assert errors == []


def test_a_friends_first_move_is_waited_for_from_when_he_opens_his_link(browser, server):
    # a game on a real-time clock made with a link aborted itself a few minutes after it was
    # made, had the friend not moved by then: a link read late led to an aborted game. Ana
    # checking the link she sends does not start his wait either.
    errors: list[str] = []
    ana, bo = person(browser, errors), person(browser, errors)
    ana.goto(server.url + "/?game=freego")
    choose_name(ana, "Ana")
    ana.check('input[name="mode"][value="friend"]')
    ana.check('input[name="invite"][value="link"]')
    ana.check('input[name="seat"][value="second"]')  # Bo, Black, moves first
    ana.select_option("#clock-kind", "fischer")
    ana.fill("#clock-minutes", "1")
    ana.click("#start")
    ana.wait_for_selector("#invite:not([hidden])", timeout=WAIT)
    invite, own = ana.input_value("#invite-url"), ana.get_attribute("#go-to-seat", "href")
    gid = own.split("/game/")[1].split("#")[0]
    ana.goto(invite)
    ana.wait_for_function("document.body.dataset.length === '0'", timeout=WAIT)
    ana.goto(server.url + own)
    ana.wait_for_function("document.body.dataset.length === '0'", timeout=WAIT)
    # Bo has not come yet: his first move's wait has not begun, and her page says why, and
    # how long he has to open the game before it aborts itself (a day: it no longer waits
    # for ever for a link never followed)
    assert server.request("GET", f"/api/games/{gid}")[1]["clock"]["abort_in"] > 86000
    assert re.fullmatch(r"Black has not opened the game yet: their first move is waited for "
                        r"from when they do\. Unless they open it within 23:59:\d\d, the game "
                        r"is aborted\.", ana.inner_text("#first-move"))
    opened = time.monotonic()  # his wait of a minute begins after this (not within 5 s of it)
    bo.goto(invite)
    bo.wait_for_selector("#first-move:not([hidden])", timeout=WAIT)
    assert bo.inner_text("#first-move").startswith("Make your first move within")
    left = server.request("GET", f"/api/games/{gid}")[1]["clock"]["abort_in"]
    assert 60 - (time.monotonic() - opened) - 0.1 <= left <= 60, left
    ana.wait_for_selector("#first-move:has-text('to make a first move')", timeout=WAIT)  # live
    assert errors == []


def test_a_move_from_a_tab_behind_the_game_is_refused_in_words_a_player_reads(browser, server):
    # two tabs of one seat: the other tab moved, this one had not heard yet (its stream cut
    # here), and its move was refused with "the game has moved on: ply 1, not 0"
    errors: list[str] = []
    tab = person(browser, errors)
    made = server.request("POST", "/api/games", {
        "game": "freego", "params": {"size": 5}, "seats": ["human", "human"]})[1]
    gid = made["id"]
    tab.route("**/events*", lambda route: route.abort())  # it hears of no change
    tab.goto(server.url + made["links"]["1"])
    tab.wait_for_selector("#status.your-turn", timeout=WAIT)
    status, _ = server.request("POST", f"/api/games/{gid}/move",
                               {"secret": made["secrets"]["1"], "move": "C3", "ply": 0})
    assert status == 200  # the other tab's move
    tab.fill("#move-text", "D4")
    tab.press("#move-text", "Enter")
    tab.wait_for_function("document.body.dataset.length === '1'", timeout=WAIT)  # caught up
    tab.wait_for_function("document.getElementById('move-error').textContent !== ''",
                          timeout=WAIT)
    assert tab.inner_text("#move-error") == (
        "The game had moved on (a move from another tab or device, or an update this page "
        "missed): here it is now. Your move was not played.")
    assert server.request("GET", f"/api/games/{gid}")[1]["moves"][0]["text"] == "C3"
    tab.unroute("**/events*")
    assert errors == []


def test_the_opponents_seat_link_opened_by_mistake_stays_the_opponents(browser, server):
    # Ana sent Bo her own address by mistake: his browser then held both seats, as a record
    # studied here: "my games" said "Studying", his own board played whichever side was to
    # move (hers too), and his opening her link counted as her arrival
    errors: list[str] = []
    bo = person(browser, errors)
    made = anas_game(server, clock={"initial": 300})
    gid = made["id"]
    bo.goto(server.url + made["links"]["2"])
    bo.wait_for_function("document.body.dataset.length === '0'", timeout=WAIT)
    bo.wait_for_function("document.querySelector('#seats').textContent.includes('you play')",
                         timeout=WAIT)
    bo.goto(server.url + made["links"]["1"])
    bo.wait_for_selector("#foreign-seat:not([hidden])", timeout=WAIT)
    assert bo.inner_text("#foreign-seat") == ("This is \u2068Ana\u2069's seat link (Black), not "
                                              "yours: you play White in this game. Go to your "
                                              "board.")
    assert bo.inner_text("#status") == "Black to move (your opponent)"
    assert not bo.title().startswith("●")
    assert "your opponent's seat" in bo.inner_text("#seats")
    keys = bo.evaluate("JSON.parse(localStorage.getItem('sg-keys'))")
    assert keys == {gid: {"2": made["secrets"]["2"]}}  # not kept as his
    assert server.request("GET", f"/api/games/{gid}")[1]["clock"]["not_here"] == 1  # not Ana
    bo.click("#foreign-own")
    bo.wait_for_function("document.querySelector('#seats').textContent.endsWith('you play White')",
                         timeout=WAIT)
    assert bo.is_hidden("#foreign-seat")
    bo.goto(server.url + "/my-games")
    bo.wait_for_selector(f"#mine tr[data-gid='{gid}']", timeout=WAIT)
    assert bo.inner_text(f"#mine tr[data-gid='{gid}'] td:first-child") == "Their turn"
    assert errors == []


def test_the_opponents_page_says_the_rematch_it_offered_was_aborted(browser, server):
    # Ana offers a rematch and aborts it: Bo's page went on offering "Play the rematch" (a
    # click made a new one), or, read again, dropped the offer without a word
    errors: list[str] = []
    bo = person(browser, errors)
    made = anas_game(server, clock={"initial": 60})
    gid, k1, k2 = made["id"], made["secrets"]["1"], made["secrets"]["2"]
    assert server.request("POST", f"/api/games/{gid}/name", {"secret": k2, "name": "Bo"})[0] == 200
    assert server.request("POST", f"/api/games/{gid}/move", {"secret": k1, "move": "resign"})[0] == 200
    bo.goto(server.url + made["links"]["2"])
    bo.wait_for_function("document.body.dataset.terminal === 'true'", timeout=WAIT)
    status, offered = server.request("POST", f"/api/games/{gid}/rematch", {"secret": k1})
    assert status == 201
    bo.wait_for_selector("#rematch-offer:not([hidden])", timeout=WAIT)
    assert bo.is_hidden("#rematch-aborted")
    status, _ = server.request("POST", f"/api/games/{offered['id']}/abort",
                               {"secret": offered["secret"]})
    assert status == 200
    bo.wait_for_selector("#rematch-aborted:not([hidden])", timeout=WAIT)  # told live
    assert bo.inner_text("#rematch-aborted") == ("\u2068Ana\u2069 aborted the rematch. "
                                                   "Rematch offers a new one.")
    assert bo.is_hidden("#rematch-offer") and bo.inner_text("#rematch") == "Rematch"
    assert bo.get_attribute("#rematch-aborted", "role") == "status"  # said as it appears
    # the new rematch Bo offers replaces the aborted one, and the words go
    bo.click("#rematch")
    bo.wait_for_function(f"!location.href.includes({gid!r})", timeout=WAIT)
    bo.wait_for_selector("#status.your-turn", timeout=WAIT)  # seats swapped: Bo plays Black
    assert errors == []


def test_a_visitor_is_told_when_the_game_is_withdrawn(browser, server):
    # the creator takes her game back while someone looks at it: the page says so, and no
    # longer offers the seat (it offered "Take the open seat" under "no game 'ID'")
    errors: list[str] = []
    bo = person(browser, errors)
    made = open_game(server, name="Ana", clock={"initial": 60})
    bo.goto(server.url + made["links"]["spectator"])
    bo.wait_for_selector("#join:not([hidden])", timeout=WAIT)
    status, _ = server.request("POST", f"/api/games/{made['id']}/withdraw",
                               {"secret": made["secrets"]["1"]})
    assert status == 200
    bo.wait_for_selector("body[data-gone=true]", timeout=WAIT)
    assert "withdrawn" in bo.inner_text("#status")
    assert bo.is_hidden("#join") and bo.is_hidden("#waiting") and bo.is_hidden("#clocks")
    assert bo.inner_text("#move-error") == ""
    assert bo.is_visible("#new-game")
    assert errors == []


def held_answer(page, address: str, which: int) -> list:
    """The ``which``-th of the page's requests to ``address`` (a regular expression; 1: the first),
    asked of the server at once but answered only by ``answer_late``: an answer overtaken by
    a later one, as a loaded server or a proxy may give them."""
    asked, held = [0], []

    def hold(route) -> None:
        asked[0] += 1
        if asked[0] == which:
            held.append((route, route.fetch()))
        else:
            route.continue_()

    page.route(re.compile(address), hold)
    return held


def wait_asked(page, held: list) -> None:
    """Until the page has asked for the answer ``held_answer`` keeps back."""
    for _ in range(600):  # bounded: the page's handlers run while Playwright waits
        if held:
            return
        page.wait_for_timeout(50)
    raise AssertionError("the page never asked")


def answer_late(page, held: list) -> None:
    """Gives the page the answer ``held_answer`` kept back, once it has been asked for."""
    wait_asked(page, held)
    route, answer = held[0]
    with page.expect_event("requestfinished", timeout=WAIT):
        route.fulfill(response=answer)
    page.evaluate("() => new Promise((done) => setTimeout(done, 200))")  # its answer read


def test_the_lobby_shows_a_creators_name_chosen_after_the_game_was_made(browser, server):
    # a game made before its creator chose a name waits as "someone's"; the name she then
    # gives her seat reaches every open lobby, and stays: the page's first load, answered
    # after the one its stream's first update asked for, showed the list as it was before
    errors: list[str] = []
    bo = person(browser, errors)
    made = open_game(server)
    held = held_answer(bo, r"/api/lobby$", 1)
    bo.goto(server.url + "/lobby")
    bo.wait_for_function("document.body.dataset.lobbyCount === '1'", timeout=WAIT)
    assert "someone" in bo.inner_text("#lobby tbody")
    status, _ = server.request("POST", f"/api/games/{made['id']}/name",
                               {"secret": made["secrets"]["1"], "name": "Ana"})
    assert status == 200
    bo.wait_for_function("document.querySelector('#lobby tbody').textContent.includes('Ana')",
                         timeout=WAIT)
    answer_late(bo, held)
    assert "Ana" in bo.inner_text("#lobby tbody")
    assert errors == []


def test_a_finished_games_unnamed_seat_is_not_named_when_its_link_is_opened(browser, server):
    # the page named a seat held without a name once its player had chosen one, over too: the
    # server refused (the record names who played) and the console showed a 409
    errors: list[str] = []
    over, going = anas_game(server), anas_game(server)
    resigned = server.request("POST", f"/api/games/{over['id']}/move",
                              {"secret": over["secrets"]["1"], "move": "resign"})
    assert resigned[0] == 200 and resigned[1]["terminal"], resigned
    bo = person(browser, errors)
    bo.add_init_script("localStorage.setItem('sg-name', 'Bo')")
    named: list[str] = []
    bo.on("request", lambda r: named.append(r.url) if r.url.endswith("/name") else None)
    bo.on("response", lambda r: errors.append(f"{r.status} {r.url}") if r.status >= 400 else None)
    # a game going on: the page names the seat (what the page does, checked to be seen here)
    bo.goto(server.url + going["links"]["2"])
    bo.wait_for_function("document.querySelector('#seats').textContent.includes('Bo')",
                         timeout=WAIT)
    assert named == [server.url + f"/api/games/{going['id']}/name"]
    bo.goto(server.url + over["links"]["2"])
    bo.wait_for_function("document.body.dataset.terminal === 'true'", timeout=WAIT)
    # a request the page would have sent as it drew the game goes before this one
    assert bo.evaluate("fetch(SG.url('/api/meta')).then((r) => r.status)") == 200
    assert named == [server.url + f"/api/games/{going['id']}/name"]
    assert "Bo" not in bo.inner_text("#seats")
    assert errors == []


def two_at_a_new_clock_game(browser, server, errors):
    """Ana's game of Free Go 5x5 on a 5-minute clock, and Bo seated: each page open, no move."""
    ana, bo = person(browser, errors), person(browser, errors)
    made = anas_game(server, clock={"initial": 300})
    ana.goto(server.url + made["links"]["1"])
    bo.goto(server.url + made["links"]["2"])
    for page in (ana, bo):
        page.wait_for_function("document.body.dataset.length === '0'", timeout=WAIT)
    return made, ana, bo


def test_a_player_whose_opponent_left_resigns_on_their_turn(browser, server):
    # Ana made the game and moves first, then left before moving: Bo's page lets him resign
    # on her turn (it only said "it is player 1's turn"), and each page says who won and why
    errors: list[str] = []
    _, ana, bo = two_at_a_new_clock_game(browser, server, errors)
    assert "Black to move" in bo.inner_text("#status") and bo.is_enabled("#resign")
    assert bo.is_disabled("#confirm")
    bo.click("#resign")
    bo.click("#ask-yes")
    for page in (ana, bo):
        page.wait_for_function("document.body.dataset.terminal === 'true'", timeout=WAIT)
    assert bo.inner_text("#status") == "Game over: You lost: you resigned"
    assert ana.inner_text("#status") == "Game over: You won: White resigned"
    assert bo.inner_text("#move-error") == "" and bo.is_visible("#rematch")
    assert "running" not in (ana.get_attribute("#clock-1", "class") or "")
    assert errors == []


def waits_shown(page, words: str) -> int:
    """The seconds a page's first move's wait shows, in ``words`` ({} where the m:ss is)."""
    before, after = words.split("{}")
    text = page.inner_text("#first-move")
    shown = re.fullmatch(re.escape(before) + r"(\d+):(\d\d)" + re.escape(after), text)
    assert shown, text
    return int(shown[1]) * 60 + int(shown[2])


def test_the_wait_for_a_first_move_is_shown_counting_down(browser, server):
    # a game on a real-time clock aborts itself when a first move does not come in time (3
    # minutes here): the pages said nothing of it until it had happened
    errors: list[str] = []
    # each wait is 3 minutes from when it began, after this: it is checked against the time
    # since (it was taken to be 10 s at most, which two pages opening on a loaded machine
    # may take)
    began = time.monotonic()
    made, ana, bo = two_at_a_new_clock_game(browser, server, errors)
    for page in (ana, bo):
        page.wait_for_selector("#first-move:not([hidden])", timeout=WAIT)
    left = [waits_shown(ana, "Make your first move within {}, or the game is aborted."),
            waits_shown(bo, "Black has {} to make a first move, or the game is aborted.")]
    assert all(180 - (time.monotonic() - began) - 1 <= s <= 180 for s in left), left
    first = float(bo.get_attribute("#first-move", "data-left"))
    bo.wait_for_function(f"+document.querySelector('#first-move').dataset.left < {first - 1}",
                         timeout=WAIT)
    move = f"/api/games/{made['id']}/move"
    began = time.monotonic()
    assert server.request("POST", move, {"secret": made["secrets"]["1"], "move": "C3"})[0] == 200
    bo.wait_for_selector("#first-move:has-text('Make your first move')", timeout=WAIT)
    # each page hears the move on its own stream: Bo's first says nothing of Ana's
    ana.wait_for_selector("#first-move:has-text('White has')", timeout=WAIT)
    left = waits_shown(ana, "White has {} to make a first move, or the game is aborted.")
    assert 180 - (time.monotonic() - began) - 1 <= left <= 180, left
    # both have moved: the clock runs, nothing aborts
    assert server.request("POST", move, {"secret": made["secrets"]["2"], "move": "D4"})[0] == 200
    for page in (ana, bo):
        page.wait_for_selector("#clock-1.running", timeout=WAIT)
        assert page.is_hidden("#first-move")
    assert errors == []


def test_a_player_aborts_before_both_moved_and_the_other_page_says_so_live(browser, server):
    errors: list[str] = []
    made, ana, bo = two_at_a_new_clock_game(browser, server, errors)
    # Ana moved, Bo not yet: either may still abort
    assert server.request("POST", f"/api/games/{made['id']}/move",
                          {"secret": made["secrets"]["1"], "move": "C3"})[0] == 200
    for page in (ana, bo):
        page.wait_for_function("document.body.dataset.length === '1'", timeout=WAIT)
    assert ana.is_visible("#abort") and bo.is_visible("#abort")
    bo.click("#abort")
    bo.click("#ask-yes")
    for page in (ana, bo):
        page.wait_for_function("document.body.dataset.terminal === 'true'", timeout=WAIT)
    words = "Game over: Aborted: {} aborted it before it started: no one wins or loses"
    # to the player it names, "you" (it said "White aborted it" to White, as of someone else)
    assert ana.inner_text("#status") == words.format("White")
    assert bo.inner_text("#status") == words.format("you")
    for page in (ana, bo):  # no abort left, and no rematch of a game that never started
        assert not page.is_visible("#abort") and not page.is_visible("#rematch")
    assert errors == []


@pytest.mark.parametrize("kind, field", [("fischer", "#clock-minutes"),
                                         ("fischer", "#clock-increment"),
                                         ("correspondence", "#clock-days-per-move")])
def test_a_clock_field_left_empty_is_pointed_at_not_sent_as_0(browser, server, kind, field):
    # an empty "min each" was sent as 0 s: "clock 'initial' must be a number in 10..10800, not
    # 0", in seconds the page never asked for (an empty increment was taken as 0 in silence)
    errors: list[str] = []
    ana = person(browser, errors)
    ana.goto(server.url + "/?game=freego")
    ana.check('input[name="mode"][value="friend"]')
    ana.select_option("#clock-kind", kind)
    ana.fill(field, "")
    ana.click("#start")
    assert ana.evaluate("document.activeElement.id") == field[1:]
    assert ana.evaluate(f"document.querySelector('{field}').validity.valueMissing")
    assert ana.inner_text("#create-error") == "" and "/game/" not in ana.url
    assert errors == []


def test_a_question_to_abort_closes_when_the_opponents_first_move_comes(browser, server):
    # it went on asking "Abort this game?" with the Abort button gone, and a Yes was refused
    errors: list[str] = []
    made, ana, _ = two_at_a_new_clock_game(browser, server, errors)
    gid = made["id"]
    assert server.request("POST", f"/api/games/{gid}/move",
                          {"secret": made["secrets"]["1"], "move": "C3"})[0] == 200
    ana.wait_for_function("document.body.dataset.length === '1'", timeout=WAIT)
    ana.click("#abort")
    assert ana.is_visible("#ask") and "Abort" in ana.inner_text("#ask-text")
    assert server.request("POST", f"/api/games/{gid}/move",
                          {"secret": made["secrets"]["2"], "move": "D4"})[0] == 200
    ana.wait_for_function("document.body.dataset.length === '2'", timeout=WAIT)
    assert ana.is_hidden("#ask") and ana.is_hidden("#abort")
    assert ana.inner_text("#move-error") == ("Both players have moved: the game can no longer "
                                             "be aborted (Resign ends it).")
    assert ana.evaluate("document.activeElement.closest('#board') !== null")
    assert errors == []


def lobby_with_a_game_on_a_fake_clock(browser, server, errors: list[str]):
    """Bo's lobby, its clock Playwright's to move, listing one game of Ana's, and hearing of
    no change: its live stream's first update loaded the list again, after the test had moved
    the clock on (sometimes), and the wait counted from then was the server's few seconds."""
    bo = person(browser, errors)
    bo.clock.install()
    bo.route("**/api/lobby/events", lambda route: route.abort())
    open_game(server, name="Ana")
    bo.goto(server.url + "/lobby")
    bo.wait_for_function("document.body.dataset.lobbyCount === '1'", timeout=WAIT)
    return bo


def test_the_lobby_counts_how_long_a_game_has_waited(browser, server):
    # a lobby left open said "0 s" for as long as nothing else changed in it
    errors: list[str] = []
    bo = lobby_with_a_game_on_a_fake_clock(browser, server, errors)
    waited = bo.locator('#lobby tbody td[data-label="Waiting"]')
    assert waited.inner_text().endswith(" s")
    bo.clock.fast_forward("05:00")
    bo.wait_for_function("document.querySelector('#lobby tbody td[data-label=Waiting]')"
                         ".textContent === '5 min'", timeout=WAIT)
    assert errors == []


def test_the_lobby_counts_the_time_the_machine_slept_in_a_games_wait(browser, server):
    # the wait was counted by performance.now(), which browsers do not count while the machine
    # sleeps: a lobby on a phone unlocked after ten minutes said a game had waited seconds
    errors: list[str] = []
    bo = lobby_with_a_game_on_a_fake_clock(browser, server, errors)
    bo.clock.set_system_time(time.time() + 600)  # the wall clock moves on, performance's not
    bo.clock.run_for(5000)
    bo.wait_for_function("document.querySelector('#lobby tbody td[data-label=Waiting]')"
                         ".textContent === '10 min'", timeout=WAIT)
    assert errors == []


def test_a_creator_waiting_in_the_lobby_is_told_her_game_was_joined(browser, server):
    # her row left the list without a word, and a first move of hers is waited for only a
    # few minutes before the game aborts itself
    errors: list[str] = []
    ana = person(browser, errors)
    made = open_game(server, name="Ana", clock={"initial": 120})
    ana.goto(server.url + made["links"]["1"])  # her board keeps her seat's key
    ana.wait_for_selector("#waiting:not([hidden])", timeout=WAIT)
    ana.goto(server.url + "/lobby")
    ana.wait_for_function("document.body.dataset.lobbyCount === '1'", timeout=WAIT)
    assert ana.is_hidden("#lobby-joined")
    status, _ = server.request("POST", f"/api/games/{made['id']}/join", {"name": "Bo"})
    assert status == 201
    ana.wait_for_selector("#lobby-joined:not([hidden])", timeout=WAIT)
    said = ana.inner_text("#lobby-joined")
    assert "\u2068Bo\u2069 joined your game of Free Go" in said, said
    assert ana.title().startswith("● ")
    ana.click("#lobby-joined a")
    ana.wait_for_selector("#status.your-turn", timeout=WAIT)
    # a game of hers withdrawn (here, from another tab) is not said to be joined
    other = open_game(server, name="Ana")
    ana.goto(server.url + other["links"]["1"])
    ana.wait_for_selector("#waiting:not([hidden])", timeout=WAIT)
    ana.goto(server.url + "/lobby")
    ana.wait_for_function("document.body.dataset.lobbyCount === '1'", timeout=WAIT)
    status, _ = server.request("POST", f"/api/games/{other['id']}/withdraw",
                               {"secret": other["secrets"]["1"]})
    assert status == 200
    ana.wait_for_function("document.body.dataset.lobbyCount === '0'", timeout=WAIT)
    assert ana.is_hidden("#lobby-joined") and not ana.title().startswith("●")
    assert errors == []


def test_a_game_waiting_for_an_opponent_shows_its_link_and_keeps_its_creator_off_its_seat(
        browser, server):
    # the page spoke of "the link below", which it did not show; and the creator opening that
    # link (to check it) was offered the open seat: a click sat her down against herself
    errors: list[str] = []
    ana = person(browser, errors)
    made = open_game(server, name="Ana")
    ana.goto(server.url + made["links"]["1"])
    ana.wait_for_selector("#waiting:not([hidden])", timeout=WAIT)
    shown = ana.get_attribute("#open-link", "href")
    assert shown == server.url + made["links"]["spectator"]
    assert ana.inner_text("#open-link") == shown
    ana.goto(shown)
    ana.wait_for_selector("#waiting:not([hidden])", timeout=WAIT)
    ana.wait_for_selector("#waiting-own:not([hidden])", timeout=WAIT)
    assert ana.is_hidden("#join")
    ana.click("#own-board")
    ana.wait_for_function("location.hash.startsWith('#key=')", timeout=WAIT)
    ana.wait_for_selector("#withdraw:not([hidden])", timeout=WAIT)
    bo = person(browser, errors)  # anyone else is offered the seat
    bo.goto(shown)
    bo.wait_for_selector("#join:not([hidden])", timeout=WAIT)
    assert bo.is_hidden("#waiting-own")
    assert errors == []


def test_a_double_click_on_take_the_open_seat_seats_you_without_an_error(browser, server):
    # the second click's request was refused, and the page told its new player that
    # "someone has joined" the game they had just joined
    errors: list[str] = []
    bo = person(browser, errors)
    made = open_game(server, name="Ana")
    bo.goto(server.url + "/lobby")
    choose_name(bo, "Bo")
    bo.goto(server.url + made["links"]["spectator"])
    bo.wait_for_selector("#join:not([hidden])", timeout=WAIT)
    bo.dblclick("#join")
    bo.wait_for_function("document.querySelector('#seats').textContent.includes('you play')",
                         timeout=WAIT)
    bo.wait_for_timeout(1000)  # the second click's answer, if one was sent
    assert bo.inner_text("#move-error") == ""
    assert "you play White" in bo.inner_text("#seats")
    assert errors == []


def test_a_seat_link_whose_key_was_wrong_is_not_offered_to_resume(browser, server):
    # a link cut short in a chat message is kept until its seat is known, which it never is:
    # the stored games offered "Resume" to "#key=undefined"
    errors: list[str] = []
    bo = person(browser, errors)
    made = server.request("POST", "/api/games", {"game": "freego", "params": {"size": 5},
                                                 "seats": ["human", "human"], "public": True,
                                                 "name": "Ana"})[1]
    bo.goto(server.url + made["links"]["2"][:-6])
    bo.wait_for_function("document.querySelector('#seats').textContent.includes('not valid')",
                         timeout=WAIT)
    bo.goto(server.url + "/games")
    row = bo.locator(f'#stored tr[data-gid="{made["id"]}"]')
    assert row.count() == 1 and row.locator(".resume").is_hidden()
    bo.goto(server.url + made["links"]["2"])  # the whole link: its seat is Bo's to resume
    bo.wait_for_function("document.querySelector('#seats').textContent.includes('you play')",
                         timeout=WAIT)
    bo.goto(server.url + "/games")
    assert row.locator(".resume").get_attribute("href").endswith(made["links"]["2"])
    assert errors == []


def test_the_lobby_and_my_games_keep_the_keyboards_focus_through_their_updates(browser,
                                                                               server):
    # each live update made the list anew, and the Join or Play reached with Tab was lost
    errors: list[str] = []
    bo = person(browser, errors)
    first, second = open_game(server, name="Ana"), open_game(server, name="Cy")
    bo.goto(server.url + "/lobby")
    choose_name(bo, "Bo")
    bo.wait_for_function("document.body.dataset.lobbyCount === '2'", timeout=WAIT)
    focused = "document.activeElement.closest('tr')?.dataset.gid"
    bo.locator(f'#lobby tr[data-gid="{first["id"]}"] button.join').focus()
    third = open_game(server, name="Di")
    bo.wait_for_function("document.body.dataset.lobbyCount === '3'", timeout=WAIT)
    assert bo.evaluate(focused) == first["id"]
    assert bo.evaluate("document.activeElement.textContent") == "Join"
    # a game withdrawn: the focus goes to the row in its place
    for made, waiting in ((first, [second["id"], third["id"]]), (second, [third["id"]])):
        status, _ = server.request("POST", f"/api/games/{made['id']}/withdraw",
                                   {"secret": made["secrets"]["1"]})
        assert status == 200
        bo.wait_for_function(f"document.body.dataset.lobbyCount === '{len(waiting)}'",
                             timeout=WAIT)
        assert bo.evaluate(focused) in waiting
    bo.keyboard.press("Enter")  # Di's game
    bo.wait_for_url("**/game/**#key=*", timeout=WAIT)
    bo.wait_for_function("document.querySelector('#seats').textContent.includes('you play')",
                         timeout=WAIT)
    bo.goto(server.url + "/my-games")
    bo.wait_for_function("document.body.dataset.turns === '0'", timeout=WAIT)
    bo.locator("#mine tbody a").focus()
    status, _ = server.request("POST", f"/api/games/{third['id']}/move",
                               {"secret": third["secrets"]["1"], "move": "C3", "ply": 0})
    assert status == 200
    bo.wait_for_function("document.body.dataset.turns === '1'", timeout=WAIT)
    assert bo.evaluate(focused) == third["id"]
    assert bo.evaluate("document.activeElement.textContent") == "Play"


def test_my_games_says_what_each_game_is_whom_it_is_against_and_how_it_ended(browser, server):
    # a newcomer back from a closed tab: the games' titles, her side, the computer's level in
    # words, and the result from her side, not ids, seat numbers, agent specs or "Over"
    errors: list[str] = []
    page = person(browser, errors)
    status, lost = server.request("POST", "/api/games", {
        "game": "blooms", "params": {"size": 3}, "seats": ["human", "level:1"]})
    assert status == 201
    assert server.request("POST", f"/api/games/{lost['id']}/move",
                          {"secret": lost["secrets"]["1"], "move": "resign"})[0] == 200
    status, going = server.request("POST", "/api/games", {
        "game": "bridgego", "params": {"size": 5}, "seats": ["level:2", "human"]})
    assert status == 201
    # two computers to watch, whose first seat's link the home page keeps
    status, watched = server.request("POST", "/api/games", {
        "game": "freego", "params": {"size": 5}, "seats": ["level:1", "level:1"]})
    assert status == 201
    page.goto(server.url + "/my-games")
    for made, seat in ((lost, "1"), (going, "2"), (watched, "1")):
        page.evaluate(f"SG.saveKey({made['id']!r}, {seat!r}, {made['secrets'][seat]!r})")
    page.reload()
    page.wait_for_selector(f"#mine tr[data-gid={lost['id']!r}]", timeout=WAIT)
    page.wait_for_selector(f"#mine tr[data-gid={going['id']!r}]", timeout=WAIT)
    row = page.locator(f"#mine tr[data-gid={going['id']!r}]")
    assert row.locator("td").nth(1).inner_text() == "Bridge Go"
    assert row.locator('td[data-label="You"]').inner_text() == "White"
    assert row.locator('td[data-label="Against"]').inner_text() == "computer, level 2"
    row = page.locator(f"#mine tr[data-gid={lost['id']!r}]")
    assert row.locator("td").nth(0).inner_text() == "You lost"
    assert row.locator("td").nth(1).inner_text() == "Blooms (capture race)"
    assert row.locator("a").inner_text() == "Review"
    row = page.locator(f"#mine tr[data-gid={watched['id']!r}]")
    row.locator("a", has_text="Review").wait_for(timeout=WAIT)  # the computers finish
    assert row.locator("td").nth(0).inner_text() in ("Black won", "White won")
    assert row.locator('td[data-label="You"]').inner_text() == "watching"
    assert row.locator('td[data-label="Against"]').inner_text() == \
        "computer, level 1 vs computer, level 1"
    assert errors == []


def test_my_games_names_an_uploaded_records_players_as_theirs_not_as_you(browser, server):
    """An uploaded record, both of whose seats this browser holds: its players (PB, PW) are
    the record's people; "You" was its first player's name, "Against" its second's."""
    errors: list[str] = []
    page = person(browser, errors)
    status, made = server.request(
        "POST", "/api/records",
        b"(;GM[1]FF[4]SZ[5]RU[stonegarden freego size=5]PB[Lee Sedol]PW[Cho Hunhyun];B[cc])",
        headers={"Content-Type": "application/x-go-sgf"})
    assert status == 201
    page.goto(server.url + "/my-games")
    for seat in ("1", "2"):
        key = made["links"][seat].split("#key=")[1]
        page.evaluate(f"SG.saveKey({made['id']!r}, {seat!r}, {key!r})")
    page.reload()
    row = page.locator(f"#mine tr[data-gid={made['id']!r}]")
    row.wait_for(timeout=WAIT)
    assert row.locator('td[data-label="You"]').inner_text() == "both seats"
    assert row.locator('td[data-label="Against"]').inner_text() == \
        "\u2068Lee Sedol\u2069 vs \u2068Cho Hunhyun\u2069"
    # studied, not waited for: neither "Your turn" nor counted in the title
    assert row.locator("td").first.inner_text() == "Studying"
    assert row.get_attribute("data-turn") == "false" and row.locator("a").inner_text() == "Open"
    assert page.evaluate("document.body.dataset.turns") == "0"
    assert "Your turn" not in page.title()
    # nor does its own page's title call for a move (the status still says whose it is)
    page.goto(server.url + made["links"]["2"])
    page.wait_for_function("document.getElementById('board').querySelector('svg')",
                           timeout=WAIT)
    assert page.locator("#status").inner_text().startswith("Your turn")
    assert not page.title().startswith("● Your turn"), page.title()
    assert errors == []


#: a page that counts its sounds and notifications, with notifications allowed and turned on,
#: the sound on, and ``window.hidden`` standing for the tab being hidden
ALERTS = """
window.__beeps = 0; window.__notes = []; window.hidden = false;
window.AudioContext = class {
  constructor() { window.__beeps++; this.currentTime = 0; this.destination = {}; }
  createOscillator() { return { frequency: {}, connect() {}, start() {}, stop() {} }; }
  createGain() { return { gain: {}, connect() {} }; }
};
window.Notification = class {
  constructor(title, options) { window.__notes.push([title, (options || {}).body || ""]); }
  static get permission() { return "granted"; }
  static requestPermission() { return Promise.resolve("granted"); }
};
Object.defineProperty(Document.prototype, "hidden", { get: () => window.hidden });
localStorage.setItem("sg-turn-sound", "on"); localStorage.setItem("sg-turn-notify", "on");
"""


def test_a_game_the_other_side_ends_is_said_by_the_sound_and_the_notification(browser, server):
    """A player waiting in another tab learned of her turn by a sound and a notification, but
    of the game's end (her opponent's resignation or winning move) by nothing."""
    errors: list[str] = []
    ana = person(browser, errors)
    ana.add_init_script(ALERTS)
    games = []
    for _ in range(2):
        status, made = server.request("POST", "/api/games", {
            "game": "freego", "params": {"size": 5}, "seats": ["human", "human"]})
        assert status == 201, made
        games.append(made)

    def alerts() -> tuple[int, list[list[str]]]:
        return ana.evaluate("window.__beeps"), ana.evaluate("window.__notes")

    # the opponent resigns while Ana's tab is hidden: one sound, one notification
    made = games[0]
    ana.goto(server.url + made["links"]["1"])
    ana.wait_for_selector("#status.your-turn", timeout=WAIT)
    ana.evaluate("window.hidden = true")
    beeps, notes = alerts()
    assert server.request("POST", f"/api/games/{made['id']}/move",
                          {"secret": made["secrets"]["2"], "move": "resign"})[0] == 200
    ana.wait_for_function("document.body.dataset.terminal === 'true'", timeout=WAIT)
    assert ana.title().startswith("Game over")
    after, said = alerts()
    assert after == beeps + 1
    assert said[len(notes):] == [[f"Game over · {ana.title().split(' · ', 1)[1]}",
                                  "You won: White resigned"]]
    # Ana resigns herself, the tab shown: nothing to tell her
    made = games[1]
    ana.goto(server.url + made["links"]["1"])
    ana.wait_for_selector("#status.your-turn", timeout=WAIT)
    beeps, notes = alerts()
    ana.click("#resign")
    ana.click("#ask-yes")
    ana.wait_for_function("document.body.dataset.terminal === 'true'", timeout=WAIT)
    ana.wait_for_timeout(500)  # the stream's update after the answer
    assert alerts() == (beeps, notes)
    assert errors == []


def test_my_games_says_a_computer_paused_by_the_player_waits_for_them(browser, server):
    errors: list[str] = []
    page = person(browser, errors)
    status, made = server.request("POST", "/api/games", {
        "game": "freego", "params": {"size": 5}, "seats": ["mcts:time=10", "human"]})
    assert status == 201, made
    gid, key = made["id"], made["secrets"]["2"]
    page.goto(server.url + "/my-games")
    page.evaluate(f"SG.saveKey({gid!r}, '2', {key!r})")
    page.reload()
    row = page.locator(f"#mine tr[data-gid={gid!r}]")
    row.wait_for(timeout=WAIT)
    assert row.locator("td").first.inner_text() == "Their turn"  # the computer thinks
    deadline = time.monotonic() + 60
    while server.request("POST", f"/api/games/{gid}/cancel", {"secret": key})[0] != 200:
        assert time.monotonic() < deadline, "the agent never started thinking"
        time.sleep(0.2)
    page.wait_for_function(f"document.querySelector(\"#mine tr[data-gid='{gid}'] td\")"
                           "?.textContent === 'Computer paused'", timeout=WAIT)

def test_a_join_refused_is_shown_and_said_to_the_spectator_who_asked(browser, server):
    # the refusal was written inside the move builder, which a spectator (and a finished game's
    # page, asking for a rematch) does not see: Take the open seat did nothing, in silence
    for _ in range(8):  # this address's games joined but not begun: the most it may have
        joined = open_game(server, name="Ana")
        assert server.request("POST", f"/api/games/{joined['id']}/join", {"name": "Cy"})[0] == 201
    made = open_game(server, name="Ana")
    errors: list[str] = []
    bo = person(browser, errors)
    bo.add_init_script("localStorage.setItem('sg-name', 'Bo')")
    bo.goto(server.url + made["links"]["spectator"])
    bo.wait_for_selector("#join:not([hidden])", timeout=WAIT)
    bo.focus("#join")
    bo.keyboard.press("Enter")
    bo.wait_for_selector("#move-error:has-text('you have joined 8 games')", timeout=WAIT)
    assert bo.is_visible("#move-error") and bo.get_attribute("#move-error", "role") == "alert"
    # in the lobby, the refusal stays said through the lobby's updates (the list loaded again
    # after it, and each of its live updates, wiped it at once)
    bo.goto(server.url + "/lobby")
    bo.wait_for_function("document.body.dataset.lobbyCount === '1'", timeout=WAIT)
    bo.click("#lobby button.join")
    bo.wait_for_selector("#lobby-error:has-text('you have joined 8 games')", timeout=WAIT)
    open_game(server, name="Di")
    bo.wait_for_function("document.body.dataset.lobbyCount === '2'", timeout=WAIT)
    assert "you have joined 8 games" in bo.inner_text("#lobby-error")
    assert errors == []


def test_my_games_says_a_game_that_becomes_your_turn(browser, server):
    # its row was shaded and the tab's title counted it, neither of which a screen reader
    # reads out: a blind player waiting there heard nothing of the opponent's move
    errors: list[str] = []
    page = person(browser, errors)
    made = anas_game(server, seat=1)
    page.goto(server.url + "/my-games")
    page.evaluate(f"SG.saveKey({made['id']!r}, '2', {made['secrets']['2']!r})")
    # the load the stream's first update asks for is answered after the move's: the list as
    # it was then (their turn) showed over the newer one, until the next change
    held = held_answer(page, r"/api/games\?ids=", 2)
    page.reload()
    page.wait_for_selector(f"#mine tr[data-gid={made['id']!r}]", timeout=WAIT)
    assert page.inner_text("#mine-said") == ""  # a game already listed is not said again
    wait_asked(page, held)
    assert server.request("POST", f"/api/games/{made['id']}/move",
                          {"secret": made["secrets"]["1"], "move": "C3"})[0] == 200
    page.wait_for_function("document.body.dataset.turns === '1'", timeout=WAIT)
    said = "Your turn in Free Go (a capture race), against \u2068Ana\u2069."
    assert page.get_attribute("#mine-said", "role") == "status"
    assert page.text_content("#mine-said") == said
    answer_late(page, held)
    assert page.evaluate("document.body.dataset.turns") == "1"
    assert page.text_content("#mine-said") == said
    assert errors == []


#: where two characters of the text in an element are drawn (their left edges), by character
# the element is looked up inside the measuring call: a handle taken before it could name a row
# the lobby had since redrawn, detached from the page, where every character sits at x = 0
DRAWN_AT = """([selector, chars]) => {
  const el = document.querySelector(selector);
  const walk = document.createTreeWalker(el, NodeFilter.SHOW_TEXT), at = {};
  for (let n = walk.nextNode(); n; n = walk.nextNode()) {
    for (const ch of chars) {
      const i = n.data.indexOf(ch);
      if (i < 0 || ch in at) continue;
      const r = document.createRange(); r.setStart(n, i); r.setEnd(n, i + ch.length);
      at[ch] = r.getBoundingClientRect().x;
    }
  }
  return at;
}"""


def test_a_right_to_left_name_keeps_its_punctuation_and_its_neighbours_in_place(browser, server):
    # an Arabic name ending in "!" (read first from the right, its "!" at the left end) was
    # laid out in the page's left-to-right direction: its "!" drawn on the right, as if it
    # began the name, in the lobby, on the game page and in My games
    name = "سارة!"
    made = open_game(server, name=name)
    errors: list[str] = []
    bo = person(browser, errors)
    bo.goto(server.url + "/lobby")
    bo.wait_for_function("document.body.dataset.lobbyCount === '1'", timeout=WAIT)
    cell = bo.locator('#lobby td[data-label="Created by"]')
    assert cell.inner_text() == name
    at = bo.evaluate(DRAWN_AT, ['#lobby td[data-label="Created by"]', ["!", "س"]])
    assert at["!"] < at["س"], at
    bo.goto(server.url + made["links"]["spectator"])
    bo.wait_for_function(f"document.querySelector('#seats').textContent.includes({name!r})",
                         timeout=WAIT)
    at = bo.evaluate(DRAWN_AT, ["#seats", ["!", "س"]])
    assert at["!"] < at["س"], at
    gid = made["id"]
    assert server.request("POST", f"/api/games/{gid}/join", {"name": "Bo"})[0] == 201
    bo.goto(server.url + "/my-games")
    bo.evaluate(f"SG.saveKey({gid!r}, '2', 'not-checked-here')")
    bo.reload()
    against = bo.locator(f'#mine tr[data-gid={gid!r}] td[data-label="Against"]')
    against.wait_for(timeout=WAIT)
    assert against.inner_text() == name
    at = bo.evaluate(DRAWN_AT, [f'#mine tr[data-gid={gid!r}] td[data-label="Against"]', ["!", "س"]])
    assert at["!"] < at["س"], at
    assert errors == []


def test_a_rematch_its_maker_resigned_is_not_offered_to_play(browser, server):
    made = anas_game(server)
    gid, k1, k2 = made["id"], made["secrets"]["1"], made["secrets"]["2"]
    status, _ = server.request("POST", f"/api/games/{gid}/move", {"secret": k1, "move": "resign"})
    assert status == 200
    errors: list[str] = []
    bo = person(browser, errors)
    bo.add_init_script("localStorage.setItem('sg-name', 'Bo')")
    bo.goto(server.url + f"/game/{gid}#key={k2}")
    bo.wait_for_function("document.body.dataset.terminal === 'true'", timeout=WAIT)
    status, offered = server.request("POST", f"/api/games/{gid}/rematch", {"secret": k1})
    assert status == 201
    bo.wait_for_selector("#rematch-offer:not([hidden])", timeout=WAIT)
    assert bo.inner_text("#accept-rematch") == "Play the rematch"
    status, _ = server.request("POST", f"/api/games/{offered['id']}/move",
                               {"secret": offered["secret"], "move": "resign"})
    assert status == 200
    bo.wait_for_selector("#rematch-text:has-text('The rematch offered is over.')", timeout=WAIT)
    assert bo.inner_text("#accept-rematch") == "See the rematch"
    assert errors == []


def test_a_game_a_week_in_the_lobby_says_it_is_listed_there_no_more(browser, tmp_path):
    # its page said that public games are listed in the lobby, which had left it out for days
    from webhelpers import Server

    server = Server(tmp_path / "games.db").start()
    try:
        made = open_game(server, name="Ana")
        errors: list[str] = []
        ana = person(browser, errors)
        ana.goto(server.url + made["links"]["1"])
        ana.wait_for_selector("#in-lobby:not([hidden])", timeout=WAIT)
        assert ana.is_hidden("#lobby-stale")
        server.stop()
        with sqlite3.connect(tmp_path / "games.db") as con:  # made eight days ago
            con.execute("UPDATE games SET created = ? WHERE id = ?",
                        (time.time() - 8 * 86400, made["id"]))
        con.close()
        server.start()
        ana.goto("about:blank")  # the same address again would be a move within the page
        ana.goto(server.url + made["links"]["1"])
        ana.wait_for_selector("#lobby-stale:not([hidden])", timeout=WAIT)
        assert ana.is_hidden("#in-lobby") and ana.is_visible("#withdraw")
        assert "no longer listed" in ana.inner_text("#waiting-text")
        # "my games" said "Waiting for a player" of it, a week and more after anyone looked
        ana.goto(server.url + "/my-games")
        row = ana.locator(f"#mine tr[data-gid={made['id']!r}]")
        row.wait_for(timeout=WAIT)
        assert row.locator("td").nth(0).inner_text() == "No one joined: unlisted after a week"
        assert errors == []
    finally:
        server.stop()


def test_my_games_lists_a_game_going_on_after_a_hundred_newer_ones(browser, server):
    # only the last 100 seats taken were read: a correspondence game, her turn in it, left the
    # list without a word once she had played 100 quick games since
    errors: list[str] = []
    page = person(browser, errors)
    made = anas_game(server, clock={"days_per_move": 3})
    newer = [f"gone{i:08d}" for i in range(100)]  # games since withdrawn: not found, left out
    page.goto(server.url + "/my-games")
    page.evaluate("([gid, key, newer]) => { SG.saveKey(gid, '1', key);"
                  " for (const g of newer) SG.saveKey(g, '1', 'k' + g); }",
                  [made["id"], made["secrets"]["1"], newer])
    page.reload()
    row = page.locator(f"#mine tr[data-gid={made['id']!r}]")
    row.wait_for(timeout=WAIT)
    assert row.locator("td").nth(0).inner_text() == "Your turn"
    page.wait_for_function("document.body.dataset.turns === '1'", timeout=WAIT)
    # still watched live: her opponent's page is not needed, a move through the API will do
    assert server.request("POST", f"/api/games/{made['id']}/move",
                          {"secret": made["secrets"]["1"], "move": "C3"})[0] == 200
    page.wait_for_function("document.body.dataset.turns === '0'", timeout=WAIT)
    assert row.locator("td").nth(0).inner_text() == "Their turn"
    assert errors == []


def test_the_clock_shown_after_the_machine_slept_counts_the_time_it_slept(browser, server):
    # a browser's performance.now() does not count while the machine sleeps (Linux, macOS): a
    # phone locked or a laptop's lid closed for minutes, the page's clock went on from where it
    # stopped, minutes more than the server's, until the next change of the game
    made = anas_game(server, clock={"initial": 600})
    k1, k2 = made["secrets"]["1"], made["secrets"]["2"]
    for key, move, ply in ((k1, "C3", 0), (k2, "D4", 1), (k1, "B2", 2)):  # White's clock runs
        assert server.request("POST", f"/api/games/{made['id']}/move",
                              {"secret": key, "move": move, "ply": ply})[0] == 200
    errors: list[str] = []
    page = person(browser, errors)
    page.clock.install()
    # the page hears of no change: an update of its stream (each one loads the game again)
    # coming after the clock was moved on showed the server's time, right but not the page's
    page.route("**/events*", lambda route: route.abort())
    # the server's engine is still being prepared as the page opens (a server just started):
    # it is asked again each second, and its being ready draws the game again, the time at
    # which is here the test's to choose
    ready = {"now": False}
    change_answers(page, f"**/api/games/{made['id']}", lambda snap: snap.update(engine_ready=False))
    page.route("**/api/engine", lambda route: route.fulfill(
        status=200, content_type="application/json", body=json.dumps({"ready": ready["now"]})))
    page.goto(server.url + made["links"]["2"])
    page.wait_for_function("document.body.dataset.length === '3'", timeout=WAIT)
    page.wait_for_selector("#clock-2.running", timeout=WAIT)
    before = float(page.get_attribute("#clock-2", "data-left"))
    # the machine slept two minutes: the wall clock moved on, performance.now() did not
    page.clock.set_system_time(time.time() + 120)
    page.clock.run_for(1000)
    shown = float(page.get_attribute("#clock-2", "data-left"))
    assert 115 < before - shown < 135, (before, shown)
    # the game drawn again (the engine ready) goes on counting: it showed the snapshot's times
    # anew, as if no time had passed since it came (two minutes here, seconds as a rule)
    ready["now"] = True
    with page.expect_response("**/api/engine", timeout=WAIT):
        page.clock.run_for(1000)
    assert page.evaluate("fetch(SG.url('/api/meta')).then((r) => r.status)") == 200  # read
    page.clock.run_for(200)
    again = float(page.get_attribute("#clock-2", "data-left"))
    assert 0.5 < shown - again < 2, (shown, again)
    assert errors == []
