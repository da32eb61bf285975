"""The game pages in a real headless Chromium (Debian's /usr/bin/chromium through Playwright)
when things go wrong or get in the way: a server that restarts or answers through a proxy's
error page, a stream closed for good, a move refused as out of date, a double click, a phone's
small screen, browsing back while the game goes on; names checked as the server checks them,
hints offered only where they can be given, text contrast, where the keyboard focus goes, and
what a screen reader is told."""

from __future__ import annotations

import json
import re
from typing import Any

import pytest
from browsers import WAIT, change_answers
from webhelpers import Server

from stonegarden.core.record import make_record
from stonegarden.core.registry import make
from stonegarden.errors import ParameterError
from stonegarden.web.names import clean_name

# Pages are opened with bypass_csp: Playwright's wait_for_function evaluates strings, which the
# server's Content-Security-Policy forbids (the policy itself is tested in test_privacy.py).

PROXY_PAGE = ("<html><head><title>502 Bad Gateway</title></head><body><center><h1>502 Bad "
              "Gateway</h1></center><hr><center>nginx</center></body></html>")
OFFLINE = "Can't reach the server"


@pytest.fixture(scope="module")
def server(module_server):
    """The module's tests share one server (``module_server`` says when that is sound); the
    tests that read the lobby have their own."""
    return module_server



def new_game(server: Server, game: str = "freego", seats: tuple[str, str] = ("human", "human"),
             **extra: Any) -> dict[str, Any]:
    status, made = server.request("POST", "/api/games", {"game": game, "seats": list(seats),
                                                         **extra})
    assert status == 201, made
    return made


def move(server: Server, made: dict[str, Any], seat: str, text: str, ply: int) -> None:
    status, answer = server.request("POST", f"/api/games/{made['id']}/move",
                                    {"secret": made["secrets"][seat], "move": text, "ply": ply})
    assert status == 200, answer


def open_page(browser, errors: list[str] | None = None, phone: bool = False, **context: Any):
    """A page in a context of its own, its name chosen (the name form stays out of the way)."""
    context.setdefault("viewport", {"width": 375, "height": 667} if phone
                       else {"width": 1280, "height": 900})
    ctx = browser.new_context(bypass_csp=True, is_mobile=phone, has_touch=phone, **context)
    ctx.add_init_script("localStorage.setItem('sg-name', 'Kay')")
    page = ctx.new_page()
    if errors is not None:
        page.on("pageerror", lambda e: errors.append(str(e)))
    return page


def wait_text(page, selector: str, part: str) -> None:
    page.wait_for_function("([s, t]) => document.querySelector(s).textContent.includes(t)",
                           arg=[selector, part], timeout=WAIT)


def wait_length(page, n: int) -> None:
    page.wait_for_function(f"document.body.dataset.length === '{n}'", timeout=WAIT)


def wait_ready(page) -> None:
    page.wait_for_selector("#status.your-turn", timeout=WAIT)


def proxy_error(status: int = 502):
    """A route handler answering as nginx does while the server restarts."""
    return lambda route: route.fulfill(status=status, content_type="text/html", body=PROXY_PAGE)


def test_on_a_phone_moves_scroll_the_move_list_never_the_page(browser, server):
    made = new_game(server, params={"size": 9})
    played = ["E5", "D4", "C3", "F6", "G7", "B2", "H8", "A1", "J9", "B8", "C7", "D6", "E3", "F2"]
    for i, text in enumerate(played):
        move(server, made, "1" if i % 2 == 0 else "2", text, i)
    page = open_page(browser, phone=True)
    page.goto(server.url + made["links"]["2"])
    wait_length(page, len(played))
    page.wait_for_selector("#moves li.current", timeout=WAIT)
    assert page.evaluate("scrollY") == 0  # the board and the status stay where they are
    shown = """() => { const list = document.getElementById('moves'), cur = list.querySelector('.current');
      const a = list.getBoundingClientRect(), b = cur.getBoundingClientRect();
      return list.scrollTop > 0 && b.top >= a.top - 1 && b.bottom <= a.bottom + 1; }"""
    assert page.evaluate(shown)  # the list itself scrolled to its last move
    move(server, made, "1", "H2", len(played))
    wait_length(page, len(played) + 1)
    page.wait_for_function(shown, timeout=WAIT)
    assert page.evaluate("scrollY") == 0
    # each move a finger's target (WCAG 2.2: 24 px), the lines touching as they do
    heights = page.evaluate("[...document.querySelectorAll('#moves button.move')]"
                            ".map((b) => b.getBoundingClientRect().height)")
    assert len(heights) == len(played) + 1 and min(heights) >= 24, heights


def test_a_stream_closed_by_an_error_reopens_and_says_reconnecting_meanwhile(browser, server):
    made = new_game(server, params={"size": 5})
    page = open_page(browser)
    refused = {"now": True}

    def events(route) -> None:  # a proxy's 502 while the server restarts closes an EventSource
        if refused["now"]:
            proxy_error()(route)
        else:
            route.continue_()

    page.route("**/api/games/*/events", events)
    page.goto(server.url + made["links"]["2"])
    page.wait_for_selector("#board [data-cell]", timeout=WAIT)
    page.wait_for_function("document.body.dataset.live === 'reconnecting'", timeout=WAIT)
    assert page.is_visible("#live-notice") and page.inner_text("#live-notice") == "Reconnecting…"
    refused["now"] = False
    page.wait_for_function("document.body.dataset.live === 'on'", timeout=WAIT)
    assert page.inner_text("#live-notice") == ""
    move(server, made, "1", "C3", 0)  # heard through the reopened stream
    wait_length(page, 1)
    wait_ready(page)


def test_server_errors_are_said_in_words_and_the_pages_load_again(browser, own_server):
    server = own_server  # the lobby is the whole server's
    made = new_game(server, params={"size": 5})
    errors: list[str] = []
    page = open_page(browser, errors)
    page.route("**/api/games/*/events", lambda route: None)  # the stream never answers
    failing = {"snapshot": 2, "lobby": 2}

    def sometimes(what: str):
        def handle(route) -> None:
            if failing[what]:
                failing[what] -= 1
                proxy_error()(route)
            else:
                route.continue_()
        return handle

    # the first loads of the game page fail: it says so, and loads once it can
    page.route(f"**/api/games/{made['id']}", sometimes("snapshot"))
    page.goto(server.url + made["links"]["1"])
    wait_text(page, "#status", OFFLINE + " — retrying…")
    wait_ready(page)
    assert page.locator("#board [data-cell]").count() == 25
    # a move answered by the proxy's 504 page: said in words; a fresh snapshot clears it
    page.route("**/move", proxy_error(504))
    page.click("#board [data-cell='C3']")
    wait_text(page, "#move-error", OFFLINE)
    page.unroute("**/move")
    page.evaluate("dispatchEvent(new Event('focus'))")  # coming back to the tab checks
    page.wait_for_function("document.getElementById('move-error').textContent === ''",
                           timeout=WAIT)
    # the lobby answered by the proxy: in words, then the list once the server is back
    page.unroute("**/api/games/*/events")
    page.route("**/api/lobby", sometimes("lobby"))
    page.goto(server.url + "/lobby")
    wait_text(page, "#lobby-error", OFFLINE + " — retrying…")
    page.wait_for_function("document.body.dataset.lobbyCount === '0'", timeout=WAIT)
    assert page.inner_text("#lobby-error") == ""
    assert errors == []


def test_the_hint_button_is_offered_only_where_a_hint_can_be_given(browser, server):
    page = open_page(browser)
    friends = new_game(server, params={"size": 5})  # two people who did not agree to hints
    page.goto(server.url + friends["links"]["1"])
    wait_ready(page)
    assert page.is_hidden("#hint")
    agent = new_game(server, seats=("human", "level:1"), params={"size": 5})
    page.goto(server.url + agent["links"]["1"])
    wait_ready(page)
    assert page.is_enabled("#hint")
    # a hint refused on the way: the error says why, and "thinking…" goes
    page.route("**/hint", proxy_error(503))
    page.click("#hint")
    wait_text(page, "#move-error", OFFLINE)
    assert page.inner_text("#hint-text") == ""
    page.unroute("**/hint")
    page.click("#board [data-cell='C3']")
    wait_length(page, 2)
    wait_ready(page)
    assert page.is_enabled("#hint")
    page.click("#nav-prev")  # an old position: no hint for it
    page.wait_for_function("document.body.dataset.ply === '1'", timeout=WAIT)
    assert page.is_disabled("#hint")
    # Undo from the keyboard takes both moves back and disables itself: the focus goes to the
    # board, not to the top of the page
    page.focus("#undo")
    page.keyboard.press("Enter")
    wait_length(page, 0)
    assert page.is_disabled("#undo")
    assert page.evaluate("!!document.activeElement.dataset.cell")


def test_a_move_refused_as_out_of_date_brings_the_page_up_to_date(browser, server):
    made = new_game(server, params={"size": 5})
    page = open_page(browser)
    page.route("**/api/games/*/events", lambda route: None)  # an update missed
    page.goto(server.url + made["links"]["1"])
    wait_ready(page)
    page.check("#confirm-moves")
    page.click("#board [data-cell='D4']")
    assert page.input_value("#move-text") == "D4"
    move(server, made, "1", "C3", 0)  # the same seat, from another tab
    page.click("#confirm")
    wait_length(page, 1)
    assert "White to move" in page.inner_text("#status")
    assert "moved on" in page.inner_text("#move-error")
    assert page.input_value("#move-text") == "" and page.locator("#board .ghost").count() == 0
    assert page.get_attribute("#board [data-cell='C3']", "aria-label") == "C3, black stone"


def test_browsing_back_keeps_the_clock_the_moves_and_the_turn_alert_live(browser, server):
    made = new_game(server, params={"size": 5}, clock={"initial": 60, "increment": 0})
    for i, text in enumerate(["C3", "D4", "B2"]):
        move(server, made, "1" if i % 2 == 0 else "2", text, i)
    page = open_page(browser)
    page.goto(server.url + made["links"]["2"])  # White's turn, White's clock running
    wait_ready(page)
    page.click("#nav-prev")
    page.wait_for_function("document.body.dataset.ply === '2'", timeout=WAIT)
    assert page.title().startswith("● Your turn")
    left = float(page.get_attribute("#clock-2", "data-left"))
    page.wait_for_function(f"+document.querySelector('#clock-2').dataset.left < {left - 1}",
                           timeout=WAIT)
    move(server, made, "2", "A1", 3)  # White on another device
    wait_length(page, 4)
    page.wait_for_function("!document.title.startsWith('● Your turn')", timeout=WAIT)
    move(server, made, "1", "E5", 4)
    wait_length(page, 5)
    page.wait_for_function("document.title.startsWith('● Your turn')", timeout=WAIT)
    assert page.evaluate("document.body.dataset.ply") == "2"  # still the old position
    assert page.locator("#moves li").count() == 5
    assert "move 2 of 5" in page.inner_text("#status")
    # the move shown is marked for a screen reader, and not by its shade alone
    current = page.locator("#moves").get_by_role("button", name="Move 2: White D4")
    assert current.get_attribute("aria-current") == "step"
    assert page.locator("#moves [aria-current]").count() == 1
    assert current.evaluate("e => getComputedStyle(e).fontWeight") == "700"


def test_the_lobby_and_my_games_keep_their_buttons_in_view_on_a_phone(browser, own_server):
    server = own_server  # the lobby is the whole server's
    long = "Wolfeschlegelsteinhausen"  # 24 letters, no space
    new_game(server, seats=("human", "open"), public=True, name=long,
             clock={"initial": 600, "increment": 5})
    mine = new_game(server, params={"size": 5}, name=long, seat=1)
    page = open_page(browser, phone=True)
    page.goto(server.url + "/lobby")
    page.wait_for_function("document.body.dataset.lobbyCount === '1'", timeout=WAIT)
    fits = """sel => [...document.querySelectorAll(sel)].every((e) => {
      const r = e.getBoundingClientRect(); return r.width > 0 && r.left >= 0 && r.right <= innerWidth; })"""
    unscrolled = "[...document.querySelectorAll('.table-wrap')].every(w => w.scrollWidth <= w.clientWidth)"
    assert page.evaluate(fits, "#lobby button.join") and page.evaluate(unscrolled)
    assert long in page.inner_text("#lobby")
    page.evaluate("k => localStorage.setItem('sg-keys', JSON.stringify(k))",
                  {mine["id"]: {"1": mine["secrets"]["1"]}})
    page.goto(server.url + "/my-games")
    page.wait_for_function("document.body.dataset.turns === '1'", timeout=WAIT)
    assert page.evaluate(fits, "#mine tbody td:last-child a") and page.evaluate(unscrolled)


def test_the_lobby_at_200_percent_zoom_breaks_no_button_in_two(browser, own_server):
    server = own_server  # the lobby is the whole server's
    # a 1280-pixel window at 200%: 640 CSS pixels, the table's six columns squeezed, and its
    # words broken anywhere, "Join" as "Jo" over "in"
    new_game(server, "blooms", seats=("human", "open"), public=True, name="Ana Longname",
             clock={"initial": 300, "increment": 3})
    page = open_page(browser, viewport={"width": 640, "height": 450})
    page.goto(server.url + "/lobby")
    page.wait_for_function("document.body.dataset.lobbyCount === '1'", timeout=WAIT)
    # the button is looked up inside the measuring call: one found before it could be a button
    # the lobby's live update had since replaced, detached, with no lines at all
    lines = """() => { const r = document.createRange();
      r.selectNodeContents(document.querySelector('#lobby button.join'));
      return new Set([...r.getClientRects()].map((x) => Math.round(x.top))).size; }"""
    assert page.evaluate(lines) == 1
    assert page.evaluate("[...document.querySelectorAll('.table-wrap')]"
                         ".every(w => w.scrollWidth <= w.clientWidth)")


NAMES = ["Ann", "  Ann   Bo  ", "\u3164", "\u115f\u1160", "\u2800", "\u0301Ann", "e\u0301",
         "x" * 24, "x" * 25, "\U0001d538" * 24, "\U0001d538" * 25, "a\tb", "a\u00a0\u3000b",
         "\ufeffAnn", "\x1cAnn\x85", "A\u200bB", "A\u2028B", "\u202eAnn", "\U000e0041",
         "\ue000", "\u00a0", "", "   ", "Ann\u0301", "علی\u200cرضا", "Sam 👩\u200d💻",
         "\u200dAnn", "A\u200d\u200dB", "🏴\U000e0067\U000e0062\U000e0073\U000e0063\U000e0074\U000e007f",
         "🏴\U000e0067", "Bo \U0001fae8", "\ufdd0", "a\U0001fffe", "\u0378",
         "x" + "\u0301" * 4, "x" + "\u0301" * 5, "Bx\u0301\u0308\u030a\u20dd\u0327"]


def test_the_browser_checks_a_name_as_the_server_does(browser, server):
    page = open_page(browser)
    page.goto(server.url + "/")
    check = "n => { try { return SG.cleanName(n); } catch (e) { return null; } }"
    for name in NAMES:
        try:
            want: str | None = clean_name(name)
        except ParameterError:
            want = None
        assert page.evaluate(check, name) == want, ascii(name)
    # letters outside the BMP count one each (not two UTF-16 units): typed in full and kept
    fancy = "𝔸𝕝𝕚𝕔𝕖𝔹𝕠𝕓𝕔𝕒𝕣𝕠𝕝"
    page.click("#rename")
    page.fill("#name-input", fancy)
    page.click("#name-form button[type=submit]")
    page.wait_for_function("document.getElementById('my-name').textContent !== 'Kay'",
                           timeout=WAIT)
    assert page.inner_text("#my-name") == fancy and page.inner_text("#name-error") == ""


def test_a_double_click_or_a_double_tap_on_confirm_plays_one_move(browser, server):
    page = open_page(browser)
    posts: list[str] = []
    page.on("request", lambda r: posts.append(r.url) if r.method == "POST" else None)
    for confirm in (False, True):
        made = new_game(server, params={"size": 5})
        page.goto(server.url + made["links"]["1"])
        wait_ready(page)
        posts.clear()
        if confirm:
            page.check("#confirm-moves")
            page.click("#board [data-cell='C3']")
            page.dblclick("#confirm")
        else:
            page.uncheck("#confirm-moves")
            page.dblclick("#board [data-cell='C3']")
        wait_length(page, 1)
        page.wait_for_timeout(300)  # time for a second request's events to arrive, if any
        assert len(posts) == 1, posts
        assert page.inner_text("#move-error") == ""


CONTRAST = r"""() => {
  const parse = (c) => { const v = c.match(/rgba?\(([^)]+)\)/)[1].split(/[ ,\/]+/).filter(Boolean).map(Number); return [v[0], v[1], v[2], v.length > 3 ? v[3] : 1]; };
  const lum = ([r, g, b]) => { const f = (x) => { x /= 255; return x <= 0.03928 ? x / 12.92 : Math.pow((x + 0.055) / 1.055, 2.4); }; return 0.2126 * f(r) + 0.7152 * f(g) + 0.0722 * f(b); };
  const blend = (top, under) => [0, 1, 2].map((i) => top[i] * top[3] + under[i] * (1 - top[3])).concat([1]);
  function background(el) {
    const layers = [];
    for (let e = el; e; e = e.parentElement) { const c = parse(getComputedStyle(e).backgroundColor); if (c[3] > 0) { layers.push(c); if (c[3] >= 1) break; } }
    let out = [255, 255, 255, 1];
    for (const c of layers.reverse()) out = blend(c, out);
    return out;
  }
  const low = [];
  for (const el of document.querySelectorAll('body *')) {
    if (el.closest('svg, :disabled, [hidden]')) continue;
    if (![...el.childNodes].some((n) => n.nodeType === 3 && n.textContent.trim())) continue;
    const r = el.getBoundingClientRect(), cs = getComputedStyle(el);
    if (!r.width || !r.height || cs.visibility === 'hidden') continue;
    let opacity = 1; for (let e = el; e; e = e.parentElement) opacity *= Number(getComputedStyle(e).opacity);
    const under = background(el), fg = parse(cs.color);
    const L1 = lum(blend([fg[0], fg[1], fg[2], fg[3] * opacity], under)), L2 = lum(under);
    const ratio = (Math.max(L1, L2) + 0.05) / (Math.min(L1, L2) + 0.05);
    const size = parseFloat(cs.fontSize), large = size >= 24 || (Number(cs.fontWeight) >= 700 && size >= 18.66);
    if (ratio < (large ? 3 : 4.5)) low.push(`${ratio.toFixed(2)} ${el.tagName}${el.id ? '#' + el.id : ''}.${el.className} "${el.textContent.trim().slice(0, 30)}"`);
  }
  return low;
}"""


def test_text_has_enough_contrast_in_both_themes(browser, server):
    """WCAG AA: 4.5:1 (3:1 for large text), from the computed styles of every visible text;
    the game on the player's turn and on the opponent's (the builder was faded then, Resign
    and the settings with it)."""
    made = new_game(server, params={"size": 5})
    move(server, made, "1", "C3", 0)
    for scheme in ("light", "dark"):
        page = open_page(browser, color_scheme=scheme)
        for path in ("/", made["links"]["2"], made["links"]["1"]):
            page.goto(server.url + path)
            page.wait_for_selector("#start, #status.your-turn, #status:has-text('to move')",
                                   timeout=WAIT)
            assert page.evaluate("document.documentElement.dataset.theme") == scheme
            assert page.evaluate(CONTRAST) == [], (scheme, path)


def test_the_focus_returns_after_a_question_and_a_colour_choice(browser, server):
    made = new_game(server, "blooms")
    page = open_page(browser)
    page.goto(server.url + made["links"]["1"])
    wait_ready(page)
    active = "document.activeElement.id"
    for answer in ("Enter", "Escape"):  # No (focused first), or Escape
        page.focus("#resign")
        page.keyboard.press("Enter")
        assert page.evaluate(active) == "ask-no"
        page.keyboard.press(answer)
        assert page.is_hidden("#ask") and page.evaluate(active) == "resign"
    second = page.locator("button.colour").nth(1)
    letter = second.get_attribute("data-colour")
    second.focus()
    page.keyboard.press("Enter")  # the buttons are made anew: the focus stays on the chosen one
    assert page.evaluate("document.activeElement.dataset.colour") == letter
    assert "selected" in page.evaluate("document.activeElement.className")
    page.goto(server.url + "/")
    page.check('input[name="mode"][value="friend"]')
    assert page.get_by_role("combobox", name="Clock").count() == 1


def test_a_seat_link_opened_over_the_spectators_page_takes_the_seat(browser, server):
    made = new_game(server, params={"size": 5})
    page = open_page(browser)
    page.goto(server.url + made["links"]["spectator"])
    wait_text(page, "#seats", "watching")
    page.evaluate("k => { location.hash = '#key=' + k; }", made["secrets"]["1"])
    wait_text(page, "#seats", "you play Black")
    wait_ready(page)


def test_an_ordinary_go_sgf_is_uploaded_once_its_game_is_chosen(browser, server, tmp_path):
    sgf = tmp_path / "go.sgf"
    sgf.write_text("(;GM[1]FF[4]SZ[9]KM[6.5];B[ee];W[dc])")  # no RU[stonegarden ...]
    page = open_page(browser)
    page.goto(server.url + "/")
    page.set_input_files("#upload-file", str(sgf))
    wait_text(page, "#upload-error", "choose the game when uploading it")
    page.select_option("#upload-game", "freego")  # sent again with its game
    page.wait_for_url("**/game/**", timeout=WAIT)
    wait_length(page, 2)
    assert page.evaluate("document.body.dataset.game") == "freego"


def test_the_live_notice_takes_no_room_while_the_page_is_live(browser, server):
    made = new_game(server, params={"size": 5})
    page = open_page(browser)
    page.goto(server.url + made["links"]["1"])
    page.wait_for_function("document.body.dataset.live === 'on'", timeout=WAIT)
    box = page.locator("#live-notice").bounding_box()
    assert box is None or box["width"] * box["height"] == 0


FOCUS_ON_BOARD = "!!document.activeElement.dataset.cell"


def test_tumbling_dice_on_a_phone_from_the_keyboard_says_the_roll_and_the_auto_moves(browser,
                                                                                  server):
    """Red's turn after a roll: the roll, the auto moves and the last move are said in words
    and marked on the board (the roll since does not hide the mark); the keyboard chooses and
    confirms a move, and the focus comes back to the board, drawn unlike every mark."""
    moves = ["roll:R", "h9R", "roll:M", "g8M", "roll:M", "i9M", "roll:B"]
    record = make_record(make("blobs", tumbling=True), moves).to_json().encode()
    status, made = server.request("POST", "/api/records", record)
    assert status == 201, made
    page = open_page(browser, phone=True)
    page.goto(server.url + made["links"]["1"])
    wait_ready(page)
    assert page.is_checked("#confirm-moves")  # a phone: a move is chosen, then confirmed
    assert "you rolled a Blue face and must place it" in page.inner_text("#colours")
    # the move field's example is a move of the face rolled (it was the first decision's, R)
    assert re.search(r"e\.g\. [a-o][0-9]+B$", page.get_attribute("#move-text", "placeholder"))
    said = "Blue played i9M, then one die placed automatically: i8B; then a Blue face was rolled."
    assert page.inner_text("#last-move") == said
    assert page.get_attribute("#last-move", "aria-live") == "polite"
    assert "Blue i9M (auto i8B)\nroll:B (a Blue face was rolled)" in page.inner_text("#moves")
    assert page.locator("#board .die.last[data-cell='i9']").count() == 1
    assert "filled automatically" in page.get_attribute("#board [data-cell='i8']", "aria-label")
    assert page.get_attribute("#board [data-cell='h8']", "aria-label") == \
        "h8, Mixed face: red north-west, blue south-east"
    # a group of buttons a screen reader can walk, not a picture; the coordinates are not read
    assert page.get_attribute("#board svg", "role") == "group"
    assert page.locator("#board svg > text:not([aria-hidden='true'])").count() == 0
    # the cells a die fits say so; Enter on another says why nothing happens
    assert page.get_attribute("#board [data-cell='h7']", "aria-label") == \
        "h7, empty, a die fits here"
    page.locator("#board [data-cell='h10']").focus()
    page.keyboard.press("Enter")
    assert page.inner_text("#move-error") == "no die fits h10: the highlighted cells take one"
    for step in range(40):  # arrows to a cell where the rolled face fits
        if page.evaluate("document.activeElement.classList.contains('legal')"):
            break
        page.keyboard.press(("ArrowRight", "ArrowDown", "ArrowLeft", "ArrowUp")[step // 3 % 4])
    cell = page.evaluate("document.activeElement.dataset.cell")
    page.keyboard.press("Enter")
    assert page.input_value("#move-text").startswith(cell)
    for _ in range(6):
        if page.evaluate("document.activeElement.id") == "confirm":
            break
        page.keyboard.press("Tab")
    page.keyboard.press("Enter")
    wait_length(page, len(moves) + 2)  # the move, then Blue's roll
    assert page.evaluate(FOCUS_ON_BOARD), page.evaluate("document.activeElement.outerHTML")
    assert page.locator("#board .focus-ring").count() == 2
    wait_text(page, "#last-move", f"You played {cell}")
    assert page.locator(f"#board .last[data-cell='{cell}']").count() == 1
    assert page.evaluate("document.documentElement.scrollWidth") <= 375


def test_a_cell_reached_without_the_arrow_keys_keeps_the_focus_through_a_new_snapshot(
        browser, server):
    # Tab, a click or a screen reader's cursor reaches a cell; the opponent then names her
    # seat, which redraws the board: Enter must still choose the cell reached
    made = new_game(server, "blooms", params={"size": 3})
    page = open_page(browser)
    page.goto(server.url + made["links"]["1"])
    wait_ready(page)
    page.locator("#board [data-cell='c5']").focus()
    status, _ = server.request("POST", f"/api/games/{made['id']}/name",
                               {"secret": made["secrets"]["2"], "name": "Bo"})
    assert status == 200
    wait_text(page, "#seats", "Bo")
    assert page.evaluate("document.activeElement.dataset.cell") == "c5"
    page.keyboard.press("Enter")
    assert page.get_attribute("#board [data-cell='c5']", "aria-label") == \
        "c5, empty, chosen: red stone"


def test_a_cell_clicked_or_reached_by_a_screen_reader_is_the_boards_stop_for_tab(browser,
                                                                                 server):
    # the board is one stop for Tab (the arrows move within it): a cell reached otherwise
    # left that stop on the cell before, so Shift+Tab went back to a1, not off the board, and
    # Tab after a Blobs cell could land on another cell rather than on its faces
    made = new_game(server, "blooms", params={"size": 3})
    page = open_page(browser)
    page.goto(server.url + made["links"]["1"])
    wait_ready(page)
    page.click("#board [data-cell='c5']")  # chosen, to confirm: the board is not redrawn
    assert page.evaluate("document.activeElement.dataset.cell") == "c5"
    page.keyboard.press("Shift+Tab")
    assert page.evaluate(FOCUS_ON_BOARD) is False
    page.keyboard.press("Tab")
    assert page.evaluate("document.activeElement.dataset.cell") == "c5"
    page.keyboard.press("Tab")
    assert page.evaluate("document.activeElement.dataset.colour") == "R"


def test_a_blooms_stone_taken_back_is_the_colour_chosen_next(browser, server):
    # red on a1, yellow on e3, then a1 again takes the red stone back: the page went on
    # choosing yellow ("Choose a cell for yellow", whose next cell moved the yellow stone)
    made = new_game(server, "blooms", params={"size": 3})
    move(server, made, "1", "Rc3", 0)
    move(server, made, "2", "Kb2,Gd4", 1)
    page = open_page(browser)
    page.goto(server.url + made["links"]["1"])
    wait_ready(page)
    for cell in ("a1", "e3", "a1"):
        page.locator(f"#board [data-cell='{cell}']").focus()
        page.keyboard.press("Enter")
    assert page.inner_text("#choice") == \
        "Chosen: yellow on e3 (Ye3). Choose a cell for red, or Confirm."
    assert page.get_attribute("#colours [data-colour='R']", "aria-pressed") == "true"
    page.locator("#board [data-cell='b1']").focus()
    page.keyboard.press("Enter")
    assert page.input_value("#move-text") == "Rb1,Ye3"


def test_a_blooms_move_typed_then_a_capture_are_said_and_the_focus_stays_on_the_board(
        browser, server):
    made = new_game(server, "blooms", params={"size": 3})
    for i, text in enumerate(["Ra1", "Kc4,Gd4", "Ra2", "Kc2,Gd1", "Ya3", "Kb2,Gc3", "Rb4", "Gd3"]):
        move(server, made, "1" if i % 2 == 0 else "2", text, i)
    page = open_page(browser)
    page.goto(server.url + made["links"]["1"])
    wait_ready(page)
    # two colours a player: a stone's name says whose it is
    assert page.get_attribute("#board [data-cell='a3']", "aria-label") == \
        "a3, yellow stone, Player 1"
    assert page.get_attribute("#board [data-cell='c3']", "aria-label") == \
        "c3, grey stone, Player 2"
    assert page.inner_text("#last-move") == "Player 2 played Gd3."
    # a stone chosen from the keyboard is said, and named on its cell; chosen again, it goes
    page.locator("#board [data-cell='c5']").focus()
    page.keyboard.press("Enter")
    assert page.get_attribute("#board [data-cell='c5']", "aria-label") == \
        "c5, empty, chosen: red stone"
    assert page.inner_text("#choice") == \
        "Chosen: red on c5 (Rc5). Choose a cell for yellow, or Confirm."
    assert page.get_attribute("#choice", "aria-live") == "polite"
    page.keyboard.press("Enter")
    assert page.get_attribute("#board [data-cell='c5']", "aria-label") == "c5, empty"
    assert page.inner_text("#choice") == ""
    page.keyboard.press("Enter")  # chosen again, then cleared with Clear: said too
    page.focus("#clear")
    page.keyboard.press("Enter")
    assert page.inner_text("#choice") == "Cleared: nothing is chosen."
    assert page.get_attribute("#board [data-cell='c5']", "aria-label") == "c5, empty"
    page.locator("#board [data-cell='c5']").focus()
    page.keyboard.press("ArrowLeft")  # c4, Player 2's black stone
    page.keyboard.press("Enter")
    assert page.inner_text("#move-error") == "c4 is taken"
    page.focus("#move-text")
    page.keyboard.type("Yc5")
    page.keyboard.press("Enter")
    wait_length(page, 9)
    assert page.inner_text("#last-move") == "You played Yc5."
    assert page.evaluate(FOCUS_ON_BOARD)  # not lost to the page's top with the disabled field
    move(server, made, "2", "Kc1", 9)
    wait_text(page, "#last-move", "Player 2 played Kc1, capturing c5.")
    wait_ready(page)
    page.focus("#nav-first")
    page.keyboard.press("Enter")  # back to the start
    page.wait_for_function("document.body.dataset.ply === '0'", timeout=WAIT)
    page.locator("#board [data-cell='b1']").focus()
    page.keyboard.press("Enter")
    assert page.inner_text("#move-error").startswith("this is an earlier position: End")
    page.keyboard.press("End")  # as it says, from the board too
    page.wait_for_function("document.body.dataset.ply === '10'", timeout=WAIT)
    assert page.evaluate("document.activeElement.dataset.cell") == "b1"


def test_a_control_a_new_snapshot_hides_leaves_the_focus_on_the_board(browser, server):
    # Take the open seat, once taken, and the move field, once the opponent resigns, are
    # hidden under the keyboard's focus: it fell to the top of the page
    status, made = server.request("POST", "/api/games", {
        "game": "freego", "params": {"size": 5}, "seats": ["human", "open"], "public": True,
        "name": "Ana"})
    assert status == 201, made
    page = open_page(browser)
    page.goto(server.url + made["links"]["spectator"])
    page.wait_for_selector("#join:not([hidden])", timeout=WAIT)
    page.focus("#join")
    page.keyboard.press("Enter")
    wait_text(page, "#seats", "you play White")
    page.wait_for_function("!!document.activeElement.dataset.cell", timeout=WAIT)
    move(server, made, "1", "C3", 0)
    wait_ready(page)
    page.focus("#move-text")
    page.keyboard.type("B2")
    move(server, made, "1", "resign", 1)
    wait_text(page, "#status", "You won")
    page.wait_for_function("!!document.activeElement.dataset.cell", timeout=WAIT)


def test_a_blobs_face_chosen_to_confirm_says_so_on_its_button(browser, server):
    made = new_game(server, "blobs")
    page = open_page(browser, phone=True)  # Confirm moves: a face is chosen, then confirmed
    page.goto(server.url + made["links"]["2"])  # Blue moves first
    wait_ready(page)
    page.locator("#board [data-cell='h9']").focus()
    page.keyboard.press("Enter")
    page.keyboard.press("Tab")
    assert page.evaluate("document.activeElement.dataset.move") == "h9R"
    page.keyboard.press("Enter")
    assert page.inner_text("#choice") == "h9R chosen: Confirm to play it."
    faces = page.locator("#colours").get_by_role("button", pressed=True)
    assert faces.count() == 1 and faces.get_attribute("data-move") == "h9R"
    assert page.locator("#colours").get_by_role("button", pressed=False).count() == 1


def test_the_engine_being_prepared_is_said_as_it_starts_and_ends_not_at_each_step(browser,
                                                                                   server):
    steps = [0, 3, 6, 9, 10]  # of 10; the server prepares it in a few seconds, or a minute

    def engine(route):
        done = steps.pop(0) if len(steps) > 1 else steps[0]
        route.fulfill(status=200, content_type="application/json", body=json.dumps({
            "ready": done == 10, "done": done, "of": 10, "server": {"done": done, "game": "blobs"},
            "workers": [{"ready": False, "done": done, "game": "freego"}]}))

    page = open_page(browser)
    page.route("**/api/engine", engine)
    page.add_init_script(SAID_EVERYWHERE)
    page.goto(server.url + "/")
    # #engine starts hidden in the page's HTML: wait for the last poll's words, not for hidden
    page.wait_for_function("window.said.includes('The engine is ready.')", timeout=WAIT)
    assert page.is_hidden("#engine")
    assert "3 of 10 steps" in " ".join(page.evaluate("window.shown"))  # shown on the way
    assert page.evaluate("window.said") == [
        "Preparing the engine (first start only). Games can start now; the computer's first "
        "move waits for it.", "The engine is ready."]


def test_an_undo_says_the_moves_it_took_back(browser, server):
    # back at the start, the same player to move: a screen reader heard nothing
    made = new_game(server, params={"size": 5}, seats=("human", "random"))
    page = open_page(browser)
    page.goto(server.url + made["links"]["1"])
    wait_ready(page)
    page.locator("#board [data-cell='C3']").focus()
    page.keyboard.press("Enter")
    wait_length(page, 2)
    wait_ready(page)
    reply = page.evaluate("document.querySelector('#moves li:nth-child(2)').textContent")
    page.focus("#undo")
    page.keyboard.press("Enter")
    wait_length(page, 0)
    assert page.inner_text("#last-move") == f"Undone: White's {reply.split()[-1]} and your C3."
    assert page.get_attribute("#last-move", "aria-live") == "polite"
    page.focus("#redo")
    page.keyboard.press("Enter")  # the game goes on: its last move is said again
    page.wait_for_function("document.body.dataset.length !== '0'", timeout=WAIT)
    wait_text(page, "#last-move", " played ")
    assert "Undone" not in page.inner_text("#last-move")


def test_the_colour_chosen_is_drawn_unlike_the_keyboards_focus(browser, server):
    # both were a blue outline: with the focus on yellow, red chosen looked the same
    made = new_game(server, "blooms", params={"size": 3})
    page = open_page(browser)
    page.goto(server.url + made["links"]["1"])
    wait_ready(page)
    page.locator("button.colour").first.focus()
    page.keyboard.press("Tab")
    # both read in one call, on the buttons shown then: a live update makes them anew (the
    # stream's first one can come now), and a button it replaced has no style, nor focus
    looks = page.evaluate("""() => ["button.colour.selected", "button.colour:focus"].map((sel) => {
      const e = document.querySelector(sel), s = e && getComputedStyle(e);
      return e && [e.dataset.colour, s.outlineStyle, s.fontWeight];
    })""")
    assert looks == [["R", "none", "700"], ["Y", "solid", "400"]], looks


def black_listening(browser, server, made, change):
    """Black's page of ``made``, its snapshots changed by ``change`` and all it says kept in
    ``window.said``; closed if it fails to open (a route left open breaks the next test)."""
    page = open_page(browser)
    change_answers(page, f"**/api/games/{made['id']}", change)
    page.add_init_script(SAID_EVERYWHERE)
    try:
        page.goto(server.url + made["links"]["1"])
        wait_ready(page)
    except BaseException:
        page.context.close()
        raise
    return page


def test_a_players_clock_running_low_is_said_once(browser, server):
    # framed in red, and silent: a screen reader heard nothing until the game was lost on time
    made = new_game(server, params={"size": 5}, clock={"initial": 60, "increment": 0})
    for i, text in enumerate(["C3", "D4"]):
        move(server, made, "1" if i % 2 == 0 else "2", text, i)

    def low(snap):  # Black's clock, running, about to pass 10 s
        snap["clock"]["1"] = min(snap["clock"]["1"], 11)

    page = black_listening(browser, server, made, low)
    try:
        wait_text(page, "#clock-said", "Less than 10 seconds left on your clock.")
        assert page.get_attribute("#clock-said", "aria-live") == "assertive"
        page.wait_for_timeout(1000)  # the clock counts on, shown every 0.2 s: said once
        assert page.evaluate("window.said").count(
            "Less than 10 seconds left on your clock.") == 1
        # the opponent resigns on Black's turn (no move is added): the warning is not left
        # for a screen reader to come upon beside "You won"
        move(server, made, "2", "resign", 2)
        page.wait_for_function("document.body.dataset.terminal === 'true'", timeout=WAIT)
        page.wait_for_timeout(500)
        assert page.inner_text("#status").startswith("Game over: You won")
        assert page.evaluate("document.querySelector('#clock-said').textContent") == ""
    finally:
        page.context.close()  # its route asks this server: left open, it breaks the next test


def test_the_wait_for_a_players_first_move_is_said_as_it_begins_and_near_its_end(browser,
                                                                                  server):
    # no clock runs before a first move: the game aborts itself when it does not come in
    # time, shown counting down and never said, so a screen reader heard of it once aborted
    made = new_game(server, params={"size": 5}, clock={"initial": 60, "increment": 0})

    def near(snap):  # Black's first move, due in 1-3 minutes, due in 12 s
        if snap["clock"]["abort_in"] is not None:
            snap["clock"]["abort_in"] = min(snap["clock"]["abort_in"], 12)

    page = black_listening(browser, server, made, near)
    try:
        wait_text(page, "#clock-said", "Less than 10 seconds to make your first move")
        said = page.evaluate("window.said")
        begun = [t for t in said if t.startswith("Make your first move within 0:1")]
        assert len(begun) == 1 and begun[0].endswith(", or the game is aborted."), said
        page.wait_for_timeout(1000)  # counted down every 0.2 s: each said once
        assert page.evaluate("window.said").count(
            "Less than 10 seconds to make your first move, or the game is aborted.") == 1
        assert page.get_attribute("#clock-said", "aria-live") == "assertive"
    finally:
        page.context.close()  # its route asks this server: left open, it breaks the next test


def test_a_click_on_a_point_the_rules_refuse_says_which_rule(browser, server):
    # a newcomer clicks the ko point, then a stone: the page says why, as a typed move's
    # refusal does, not "nothing can be played on C3"
    errors: list[str] = []
    made = new_game(server, params={"size": 5})
    for i, text in enumerate(["B3", "C3", "C4", "D4", "C2", "D2", "A5", "E3", "D3"]):
        move(server, made, "1" if i % 2 == 0 else "2", text, i)
    page = open_page(browser, errors)
    page.goto(server.url + made["links"]["2"])
    wait_ready(page)
    page.click("#board [data-cell='C3']")
    assert page.inner_text("#move-error") == \
        "C3 cannot be played: it recreates the board before the opponent's last move (ko)"
    page.click("#board [data-cell='D3']")
    assert page.inner_text("#move-error") == "D3 is taken"
    assert errors == []


def test_a_free_go_suicide_is_said_to_count_for_nothing_until_the_next_move(browser, server):
    # Black's A1 has no liberty: it stays, and White's next move, wherever it is, scores it;
    # the page said "Black played A1." and "A1, black stone", as if White had to capture it
    made = new_game(server, params={"size": 5})
    for i, text in enumerate(["C3", "A2", "D4", "B1", "A1"]):
        move(server, made, str(i % 2 + 1), text, i)
    page = open_page(browser)
    page.goto(server.url + made["links"]["2"])
    wait_ready(page)
    assert page.inner_text("#last-move") == ("Black played A1; A1 has no liberty: your next "
                                             "move removes it and scores it.")
    assert page.get_attribute("#board [data-cell='A1']", "aria-label") == \
        "A1, black stone, no liberty: White's next move removes it and scores it"
    page.goto(server.url + made["links"]["spectator"])
    wait_text(page, "#last-move", "Black played A1; A1 has no liberty: White's next move")


def test_a_refusal_stays_through_a_snapshot_that_changes_no_position(browser, server):
    # the opponent names her seat while a refusal is on the page: the new snapshot (its
    # position unchanged) erased the refusal the player was reading; one fetched for a
    # position a move changed still clears an old error (test_online's moves)
    made = new_game(server, params={"size": 5})
    move(server, made, "1", "C3", 0)
    page = open_page(browser)
    page.goto(server.url + made["links"]["2"])
    wait_ready(page)
    page.click("#board [data-cell='C3']")
    assert page.inner_text("#move-error") == "C3 is taken"
    status, _ = server.request("POST", f"/api/games/{made['id']}/name",
                               {"secret": made["secrets"]["1"], "name": "Bo"})
    assert status == 200
    wait_text(page, "#seats", "Bo")
    assert page.inner_text("#move-error") == "C3 is taken"


def test_a_pass_that_would_end_the_game_says_so_before_it_is_played(browser, server):
    # territory rules: the opponent passed, and a newcomer's pass would end the game at once
    errors: list[str] = []
    made = new_game(server, "blooms-territory", params={"size": 3})
    move(server, made, "1", "Rc3", 0)
    page = open_page(browser, errors)
    page.goto(server.url + made["links"]["2"])
    wait_ready(page)
    page.click("#pass")
    assert page.inner_text("#ask-text") == "Pass your turn?"  # the first pass: nothing ends
    page.click("#ask-no")
    move(server, made, "2", "pass", 1)
    page.goto(server.url + made["links"]["1"])
    wait_text(page, "#last-move", "Player 2 passed.")
    wait_ready(page)
    page.click("#pass")
    assert page.inner_text("#ask-text") == ("Pass your turn? Your opponent passed: passing too "
                                            "ends the game, and the score is counted.")
    assert errors == []


def test_an_undo_is_said_once_not_again_on_coming_back_to_now(browser, server):
    # stepping back after an undo and then to now said "Undone: ..." again, as if it undid again
    made = new_game(server, params={"size": 5}, seats=("human", "random"))
    page = open_page(browser)
    page.goto(server.url + made["links"]["1"])
    wait_ready(page)
    for n in (2, 4):
        page.locator("#board [data-cell].legal").first.focus()
        page.keyboard.press("Enter")
        wait_length(page, n)
        wait_ready(page)
    page.focus("#undo")
    page.keyboard.press("Enter")
    wait_length(page, 2)
    wait_text(page, "#last-move", "Undone: ")
    page.focus("#nav-prev")
    page.keyboard.press("Enter")
    page.wait_for_function("document.body.dataset.ply === '1'", timeout=WAIT)
    page.focus("#nav-last")
    page.keyboard.press("Enter")
    page.wait_for_function("document.body.dataset.ply === '2'", timeout=WAIT)
    wait_text(page, "#last-move", "White played ")
    assert "Undone" not in page.inner_text("#last-move")


#: the control with the keyboard's focus whose ring (its outline) has under 3:1 against what is
#: around it (WCAG 1.4.11), in words; null when it has enough (a board cell draws its own)
FOCUS_RING = r"""() => {
  const parse = (c) => { const v = c.match(/rgba?\(([^)]+)\)/)[1].split(/[ ,\/]+/).filter(Boolean).map(Number); return [v[0], v[1], v[2], v.length > 3 ? v[3] : 1]; };
  const lum = ([r, g, b]) => { const f = (x) => { x /= 255; return x <= 0.03928 ? x / 12.92 : Math.pow((x + 0.055) / 1.055, 2.4); }; return 0.2126 * f(r) + 0.7152 * f(g) + 0.0722 * f(b); };
  const el = document.activeElement;
  if (!el || el === document.body || el.closest('svg')) return null;
  let under = [255, 255, 255];
  for (let e = el.parentElement; e; e = e.parentElement) { const c = parse(getComputedStyle(e).backgroundColor); if (c[3] >= 1) { under = c; break; } }
  const cs = getComputedStyle(el);
  if (cs.outlineStyle === 'none') return `no ring: ${el.tagName} "${el.textContent.trim()}"`;
  const L1 = lum(parse(cs.outlineColor)), L2 = lum(under);
  const ratio = (Math.max(L1, L2) + 0.05) / (Math.min(L1, L2) + 0.05);
  return ratio < 3 ? `${ratio.toFixed(2)} ${el.tagName} "${el.textContent.trim()}"` : null;
}"""


def test_the_keyboards_focus_ring_stands_out_from_what_is_around_it(browser, server):
    # the header's links and buttons were ringed in the accent's dark blue on its dark brown
    # (2.5:1 in the light theme), hard to find from the keyboard
    made = new_game(server, params={"size": 5})
    for scheme in ("light", "dark"):
        page = open_page(browser, color_scheme=scheme)
        for path in ("/", made["links"]["1"]):
            page.goto(server.url + path)
            page.wait_for_selector("#start, #status.your-turn", timeout=WAIT)
            faint = set()
            for _ in range(30):  # the header, the form or the board's page, and round again
                page.keyboard.press("Tab")
                faint.add(page.evaluate(FOCUS_RING))
            assert faint == {None}, (scheme, path)
        page.context.close()


#: what every live region of a page takes (window.said), and every text shown (window.shown),
#: once the page is parsed
SAID_EVERYWHERE = """
window.said = []; window.shown = [];
addEventListener("DOMContentLoaded", () => new MutationObserver((changes) => {
  for (const c of changes) {
    const el = c.target.nodeType === 1 ? c.target : c.target.parentElement;
    if (!el) continue;
    window.shown.push(el.textContent);
    const live = el.closest("[aria-live], [role=status], [role=alert]");
    if (live && live.textContent) window.said.push(live.textContent);
  }
}).observe(document.body, {childList: true, characterData: true, subtree: true}));
"""


CELLS = """() => { const r = [...document.querySelectorAll('#board [data-cell]')].map((c) => c.getBoundingClientRect());
  return Math.min(...r.map((x) => Math.min(x.width, x.height))); }"""


def tap_cell(page, cell: str) -> None:
    """A finger's tap where the cell is drawn on the screen (not Playwright's tap on an element,
    which would scroll it into view first)."""
    # measured in one call: each update draws the board anew, and a cell found before it had
    # no box once replaced
    x, y = page.evaluate("""(cell) => { const r = document.querySelector(`#board [data-cell="${cell}"]`)
      .getBoundingClientRect(); return [r.x + r.width / 2, r.y + r.height / 2]; }""", cell)
    page.touchscreen.tap(x, y)


def test_a_big_board_on_a_phone_zooms_to_cells_a_finger_can_hit(browser, server):
    """A 19x19 board fitted to a 375 px phone has 17 px points, Blooms' size 12 in landscape
    12 px cells: under WCAG 2.2's 24 px. Zoomed in, the cells are 28 px and the board's box
    scrolls sideways (never the page); a tap plays where it lands; the box keeps its place
    through the next drawing and brings a far move of the opponent into view."""
    made = new_game(server, params={"size": 19})
    page = open_page(browser, phone=True)
    page.goto(server.url + made["links"]["1"])
    wait_ready(page)
    assert page.evaluate(CELLS) < 24 and page.is_visible("#board-zoom")
    # two quick taps on the board are two taps, never the phone's double-tap zoom
    assert page.evaluate("[document.getElementById('board'), document.getElementById('board-zoom')]"
                         ".map((e) => getComputedStyle(e).touchAction)") == ["manipulation"] * 2
    page.tap("#board-zoom")
    page.wait_for_function(f"({CELLS})() >= 24", timeout=WAIT)
    assert page.inner_text("#board-zoom") == "Whole board"
    assert page.evaluate("document.documentElement.scrollWidth") <= 375
    assert page.evaluate("(b => b.scrollWidth > b.clientWidth)(document.getElementById('board'))")
    # the far right of the board, in view by scrolling its box, and T19 tapped there
    page.evaluate("""() => { const b = document.getElementById('board');
      scrollTo(0, b.getBoundingClientRect().top + scrollY - 10); b.scrollLeft = b.scrollWidth; }""")
    right = page.evaluate("document.getElementById('board').scrollLeft")
    assert right > 0
    tap_cell(page, "T19")
    assert page.input_value("#move-text") == "T19"  # Confirm moves: on by default on a phone
    page.tap("#confirm")
    wait_length(page, 1)
    assert page.evaluate("document.getElementById('board').scrollLeft") == right
    assert page.locator('#board [data-cell="T19"].last').count() == 1
    # the opponent's reply far to the left comes into view
    move(server, made, "2", "A1", 1)
    wait_length(page, 2)
    in_view = """() => { const b = document.getElementById('board').getBoundingClientRect();
      const r = document.querySelector('#board [data-cell="A1"]').getBoundingClientRect();
      return r.left >= b.left && r.right <= b.right; }"""
    page.wait_for_function(in_view, timeout=WAIT)
    # kept in this browser, and opened where the game is (the last move), not at its left
    # edge; Whole board fits it again
    page.reload()
    wait_ready(page)
    page.wait_for_function(f"({CELLS})() >= 24", timeout=WAIT)
    assert page.evaluate("document.getElementById('board').scrollLeft") == 0  # A1: the left
    move(server, made, "1", "K10", 2)
    move(server, made, "2", "L10", 3)
    page.reload()
    wait_ready(page)
    page.wait_for_function(f"({CELLS})() >= 24", timeout=WAIT)
    centred = """() => { const b = document.getElementById('board').getBoundingClientRect();
      const r = document.querySelector('#board [data-cell="L10"]').getBoundingClientRect();
      return Math.abs((r.left + r.right) / 2 - (b.left + b.right) / 2) < 2; }"""
    assert page.evaluate(centred)
    page.tap("#board-zoom")
    page.wait_for_function(f"({CELLS})() < 24", timeout=WAIT)
    assert page.evaluate("(b => b.scrollWidth <= b.clientWidth)(document.getElementById('board'))")
    page.tap("#board-zoom")
    # Blobs' dice are big enough as they are: nothing offered
    dice = new_game(server, "blobs")
    page.goto(server.url + dice["links"]["1"])
    page.wait_for_selector("#board [data-cell]", timeout=WAIT)
    assert page.evaluate(CELLS) >= 24 and page.is_hidden("#board-zoom")
    page.context.close()
    # landscape, where the height limited Blooms' size 12 to 12 px cells
    blooms = new_game(server, "blooms", params={"size": 12})
    page = open_page(browser, phone=True, viewport={"width": 667, "height": 375})
    page.goto(server.url + blooms["links"]["1"])
    wait_ready(page)
    assert page.evaluate(CELLS) < 24
    page.tap("#board-zoom")
    page.wait_for_function(f"({CELLS})() >= 24", timeout=WAIT)
    assert page.evaluate("document.documentElement.scrollWidth") <= 667
    page.context.close()


def zoomed_on_a_phone(browser, url: str):
    """The game page at ``url`` on a phone held upright, its board zoomed in (the choice kept
    in the browser), ready."""
    page = open_page(browser, phone=True)
    page.add_init_script("localStorage.setItem('sg-board-zoom', 'on')")
    page.goto(url)
    wait_ready(page)
    page.wait_for_function(f"({CELLS})() >= 24", timeout=WAIT)
    return page


def test_on_a_phone_confirm_stays_in_reach_of_a_cell_tapped_at_the_boards_top(browser, server):
    """A 19x19 board zoomed in on a phone held upright is taller than the screen: a point
    tapped on its top rows left Confirm (and Pass, Resign, a question) a screen further down,
    to be scrolled to and back for every move. The move bar stays at the screen's foot."""
    made = new_game(server, params={"size": 19})
    page = zoomed_on_a_phone(browser, server.url + made["links"]["1"])
    page.evaluate("scrollTo(0, document.getElementById('board').getBoundingClientRect().top + scrollY)")
    tap_cell(page, "K19")
    assert page.input_value("#move-text") == "K19"
    within = """id => { const r = document.getElementById(id).getBoundingClientRect();
      return r.top >= 0 && r.bottom <= innerHeight; }"""
    assert page.evaluate(within, "confirm") and page.evaluate(within, "resign")
    # what shows there is the button itself, not the board under it
    hit = """id => { const r = document.getElementById(id).getBoundingClientRect();
      return document.elementFromPoint(r.left + r.width / 2, r.top + r.height / 2).id; }"""
    assert page.evaluate(hit, "confirm") == "confirm"
    box = page.locator("#confirm").bounding_box()
    page.touchscreen.tap(box["x"] + box["width"] / 2, box["y"] + box["height"] / 2)
    wait_length(page, 1)
    assert page.locator('#board [data-cell="K19"].last').count() == 1
    # at the page's foot the bar is back in its place, below the whole board
    page.evaluate("scrollTo(0, document.body.scrollHeight)")
    below = """() => document.getElementById('confirm').getBoundingClientRect().top
      >= document.getElementById('board').getBoundingClientRect().bottom"""
    assert page.evaluate(below)
    page.context.close()


def test_on_a_phone_the_clocks_stay_in_view_while_the_board_is(browser, server):
    """A game on a clock, its 19x19 board zoomed in on a phone held upright: playing on the
    board's lower half scrolled the status and both clocks off the screen's top."""
    made = new_game(server, params={"size": 19}, clock={"initial": 600, "increment": 5})
    page = zoomed_on_a_phone(browser, server.url + made["links"]["1"])
    page.evaluate("""() => { const b = document.getElementById('board').getBoundingClientRect();
      scrollTo(0, b.bottom + scrollY - innerHeight + 150); }""")
    shown = """id => { const r = document.getElementById(id).getBoundingClientRect();
      const at = document.elementFromPoint(r.left + r.width / 2, r.top + r.height / 2);
      return r.top >= 0 && r.bottom <= innerHeight && !!at && at.closest('#' + id) !== null; }"""
    assert page.evaluate("document.documentElement.scrollTop") > 0
    assert page.evaluate(shown, "clock-1") and page.evaluate(shown, "status")
    tap_cell(page, "K2")  # a point on the board's foot, the clock in view above it
    page.tap("#confirm")
    wait_length(page, 1)
    assert page.evaluate(shown, "clock-2")
    page.context.close()


def test_on_a_phone_the_reconnecting_notice_leaves_the_move_bar_s_buttons_free(browser, server):
    """The "Reconnecting…" notice, fixed at the screen's foot, lay over the move bar stuck
    there on a phone held upright: the buttons under it could not be tapped, though moves
    are still sent while the live updates reconnect."""
    made = new_game(server, params={"size": 19})
    page = zoomed_on_a_phone(browser, server.url + made["links"]["1"])
    page.evaluate("SG.liveState('reconnecting')")
    assert page.inner_text("#live-notice") == "Reconnecting…"
    free = """() => { const n = document.getElementById('live-notice').getBoundingClientRect();
      const bar = document.querySelector('.builder-bar');
      const shown = [...bar.querySelectorAll('button')].filter((b) => b.offsetParent !== null);
      const clear = (b) => { const r = b.getBoundingClientRect();
        const apart = r.bottom <= n.top || r.top >= n.bottom || r.right <= n.left
          || r.left >= n.right;
        return apart && document.elementFromPoint(r.left + r.width / 2, r.top + r.height / 2)
          === b; };
      return [bar.getBoundingClientRect().bottom <= innerHeight + 1, n.height > 0,
              shown.length > 0, shown.filter((b) => !clear(b)).map((b) => b.id)]; }"""
    assert page.evaluate(free) == [True, True, True, []]
    # the bar grows while the notice shows (Resign asks first, in the bar): its question's
    # Yes and No lay under the notice, placed for the bar as it was
    page.click("#resign")
    assert page.is_visible("#ask-yes")
    page.wait_for_function(f"({free})()[3].length === 0", timeout=WAIT)
    assert page.evaluate(free) == [True, True, True, []]
    page.evaluate("SG.liveState('on')")
    assert page.inner_text("#live-notice") == ""
    page.context.close()


# the focused cell wholly in sight: inside the board's box, on the screen, clear of the status
# row above and the move bar below (stuck to a phone's screen, or in their places), and what is
# drawn at its centre is itself
CLEAR = """() => { const c = document.activeElement, r = c.getBoundingClientRect();
  const b = document.getElementById('board').getBoundingClientRect();
  const top = document.querySelector('.status-row').getBoundingClientRect().bottom;
  const foot = document.querySelector('.builder-bar').getBoundingClientRect().top;
  const at = document.elementFromPoint(r.left + r.width / 2, r.top + r.height / 2);
  const clear = r.left >= b.left && r.right <= b.right && r.top >= Math.max(0, top)
    && r.bottom <= Math.min(innerHeight, foot) && !!at && at.closest('[data-cell]') === c;
  return clear ? true : [c.dataset.cell, r.left, r.right, r.top, r.bottom, b.left, b.right, top, foot]; }"""


def test_on_a_phone_the_arrows_keep_the_focused_cell_in_sight(browser, server):
    """A 19x19 board zoomed in on a phone held upright, a game on a clock: the arrows took the
    focus under the move bar stuck at the screen's foot (rows 18 and 4 to 8 going down) and
    under the status and clocks at its top (rows 12 to 19 going up), and to the right a point
    was focused with a pixel of it in the board's box. Each cell reached is now wholly in
    sight, the box and the page scrolled as needed; so is a control reached by Tab."""
    made = new_game(server, params={"size": 19}, clock={"initial": 600, "increment": 5})
    page = zoomed_on_a_phone(browser, server.url + made["links"]["1"])
    page.focus('#board [data-cell="A19"]')
    page.keyboard.press("ArrowRight")
    page.keyboard.press("ArrowLeft")
    for key in ["ArrowDown"] * 18 + ["ArrowRight"] * 18 + ["ArrowUp"] * 18 + ["ArrowLeft"] * 18:
        page.keyboard.press(key)
        assert page.evaluate(CLEAR) is True, key
    assert page.evaluate("document.activeElement.dataset.cell") == "A19"
    # Shift+Tab from the board's top row (the status row stuck above it) to Zoom in and back
    page.keyboard.press("Shift+Tab")
    assert page.evaluate("document.activeElement.id") == "board-zoom"
    shown = """() => { const e = document.activeElement, r = e.getBoundingClientRect();
      const at = document.elementFromPoint(r.left + r.width / 2, r.top + r.height / 2);
      return r.top >= 0 && r.bottom <= innerHeight && at === e; }"""
    assert page.evaluate(shown)
    page.context.close()


def test_the_bars_stick_only_on_a_screen_held_upright(browser, server):
    """The move bar and the status row stuck to the screen's foot and top on any screen up to
    900 px wide and 500 px high: a desktop's window at 150% zoom (853 by 533 px) or a tablet's
    narrow landscape had a third of its height covered by them over the board. They stick on a
    screen held upright alone."""
    made = new_game(server, params={"size": 19}, clock={"initial": 600, "increment": 5})
    position = """() => ['.status-row', '.builder-bar']
      .map((s) => getComputedStyle(document.querySelector(s)).position)"""
    for phone, viewport, stuck in [(False, {"width": 853, "height": 533}, False),
                                   (True, {"width": 880, "height": 600}, False),
                                   (False, {"width": 1280, "height": 900}, False),
                                   (True, {"width": 375, "height": 667}, True)]:
        page = open_page(browser, phone=phone, viewport=viewport)
        page.goto(server.url + made["links"]["1"])
        wait_ready(page)
        page.wait_for_selector("#clocks:not([hidden])", timeout=WAIT)
        assert page.evaluate(position) == (["sticky"] * 2 if stuck else ["static"] * 2), viewport
        # nothing kept clear of bars that do not stick
        padding = "getComputedStyle(document.documentElement).scrollPaddingBottom"
        assert (page.evaluate(padding) != "0px") == stuck, viewport
        page.context.close()


FIELDS = """() => [...document.querySelectorAll('input, select, textarea')]
  .filter((e) => !['checkbox', 'radio', 'hidden', 'file'].includes(e.type))
  .map((e) => [e.id || e.name, parseFloat(getComputedStyle(e).fontSize)])"""


def test_on_a_phone_no_field_is_under_16_px(browser, own_server):
    """A phone's browser (Safari on an iPhone) zooms the page in on a text field under 16 px
    as it takes the focus, and leaves it zoomed once the keyboard has gone: the name, the
    move field, the new game's parameters and clock, and the invite link were 13 to 15 px."""
    server = own_server  # the lobby is the whole server's
    made = new_game(server, params={"size": 5})
    page = open_page(browser, phone=True)
    page.add_init_script("localStorage.removeItem('sg-name')")  # the name form shown
    for path in ("/", "/lobby", "/my-games", "/games", made["links"]["1"]):
        page.goto(server.url + path)
        page.wait_for_load_state("networkidle")
        fields = page.evaluate(FIELDS)
        assert fields and all(size >= 16 for _, size in fields), (path, fields)
    assert page.is_visible("#name-input") and page.is_visible("#move-text")
    page.context.close()
