"""The study tools of the game page in a real headless Chromium (Debian's /usr/bin/chromium
through Playwright): the computer's analysis (the graph says whose chances it shows, the counts
read as words, a spectator's page follows a game that goes on after its analysis and a restart
that stops it) and hints."""

from __future__ import annotations

import json
import random
import re
import time

from browsers import WAIT, change_answers
from test_analysis_cancel import study_record
from test_browser_robust import move, new_game, open_page, wait_text
from webhelpers import Server

from stonegarden import make

# Pages are opened with bypass_csp: Playwright's wait_for_function evaluates strings, which the
# server's Content-Security-Policy forbids (the policy itself is tested in test_privacy.py).


#: records each text a live region takes (what a screen reader would say) in window.said
SAID = """(selector) => {
  window.said = [];
  const el = document.querySelector(selector);
  new MutationObserver(() => { if (el.textContent) window.said.push(el.textContent); })
    .observe(el, {childList: true, characterData: true, subtree: true});
}"""


def analysed_evenly(answer) -> None:
    """The server's own answer (the positions it covers), changed as if the analysis were done
    and every position were even."""
    answer.update(engine="mcts:time=0.5,seed=1", done=True, points=[
        {"ply": p, "p1_win": 0.5, "best_move": "A1", "played_loss": 0.0,
         "judgement": None} for p in range(answer["of"])])


def review_shown(browser, server, made, point) -> str:
    """What a spectator's page says of the current position when the server's snapshot holds
    the analysis ``point`` there."""
    page = open_page(browser)
    change_answers(page, f"**/api/games/{made['id']}", lambda snap: snap.update(review=point))
    try:
        page.goto(server.url + made["links"]["spectator"])
        wait_text(page, "#review-here", "best move here")
        # said as it changes (stepping through the moves), not only shown
        assert page.get_attribute("#review-here", "aria-live") == "polite"
        return page.inner_text("#review-here")
    finally:
        page.context.close()  # its route asks the server, which the next test does not have


def test_a_spectator_analyses_the_moves_played_after_an_analysis(browser, server):
    made = new_game(server, params={"size": 5}, hints=True)  # spectators may see it meanwhile
    for i, text in enumerate(["C3", "D4"]):
        move(server, made, str(i % 2 + 1), text, i)
    errors: list[str] = []
    page = open_page(browser, errors)
    page.goto(server.url + made["links"]["spectator"])
    wait_text(page, "#seats", "watching")
    page.evaluate(SAID, "#analysis-said")
    page.click("#analyse")
    wait_text(page, "#analysis-status", ", 3 positions;")  # done, not "0 of 3 positions; …"
    assert page.is_hidden("#analyse")
    move(server, made, "1", "B2", 2)  # the game goes on: its new position is not analysed
    wait_text(page, "#analysis-status", "3 of 4 positions analysed")
    page.click("#analyse")
    wait_text(page, "#analysis-status", ", 4 positions;")  # done, not "0 of 4 positions; …"
    assert page.locator("#winprob .apt").count() == 4
    # the graph names the player whose chances it shows
    assert page.text_content("#winprob .graph-title") == "Black's winning chances"
    assert page.get_attribute("#analysis", "aria-label") == "Black's winning chances by move"
    # a screen reader hears it start and end, not each position counted on the way
    said = page.evaluate("window.said")
    assert said[0] == "Analysing…" and said[-1] == page.inner_text("#analysis-status"), said
    assert not [s for s in said if re.search(r"\d+ of \d+ positions…", s)], said
    assert page.get_attribute("#analysis-status", "aria-live") is None
    assert errors == []


def test_the_judgements_are_counted_in_words(browser, server):
    made = new_game(server, params={"size": 5}, hints=True)
    points = [{"ply": 0, "p1_win": 0.5, "best_move": "C3", "played_loss": None,
               "judgement": None}]
    answer = {"engine": "mcts:time=0.5,seed=1", "done": True, "running": False, "error": "",
              "of": 1, "points": points}
    page = open_page(browser)
    page.route(f"**/api/games/{made['id']}/analysis",
               lambda route: route.fulfill(status=200, content_type="application/json",
                                           body=json.dumps(answer)))
    page.goto(server.url + made["links"]["spectator"])
    wait_text(page, "#seats", "watching")
    page.click("#analyse")  # a game of no moves yet: one position
    wait_text(page, "#analysis-status", "1 position; no inaccuracies")
    move(server, made, "1", "C3", 0)
    points.append({"ply": 1, "p1_win": 0.4, "best_move": "D4", "played_loss": 0.1,
                   "judgement": "inaccuracy"})
    answer["of"] = 2
    page.reload()
    wait_text(page, "#seats", "watching")
    page.focus("#analyse")
    page.keyboard.press("Enter")
    wait_text(page, "#analysis-status", ", 2 positions;")  # done, not "0 of 2 positions; …"
    assert page.inner_text("#analysis-status").endswith(
        "1 inaccuracy, 0 mistakes, 0 blunders")
    page.wait_for_selector("#moves .judgement.j-inaccuracy", timeout=WAIT)
    # the button asked is gone: the focus is on what it started, not the top of the page
    assert page.evaluate("document.activeElement.id") == "analysis-status"
    # the mark "?!" is shown; a screen reader is told what it means
    assert page.locator("#moves li button").first.get_attribute("aria-label") == \
        "Move 1: Black C3 (inaccuracy: lost 10%; best was C3)"


def test_a_hint_on_a_blobs_frontier_cell_is_drawn_as_a_hint(browser, server):
    """A hint is always on a cell the player may place on: drawn as a hint (green, dashed),
    not in the frontier's blue, which with the hint's width is the last move's mark."""
    made = new_game(server, "blobs", seats=("human", "random"))
    page = open_page(browser)
    page.goto(server.url + made["links"]["1"])
    page.wait_for_selector("#status.your-turn", timeout=WAIT)
    page.evaluate(SAID, "#hint-text")
    page.click("#hint")
    wait_text(page, "#hint-text", "Hint: ")
    page.wait_for_timeout(500)  # the updates that follow the hint change nothing to say
    hint = page.inner_text("#hint-text")
    assert page.get_attribute("#hint-text", "aria-live") == "polite"
    assert page.evaluate("window.said").count(hint) == 1  # said once, as it comes
    # read in one call: each update draws the board anew, and a cell replaced has no style
    style = page.evaluate("() => [...document.querySelectorAll('#board rect.cell.legal.hint')]"
                          ".map((e) => { const s = getComputedStyle(e); "
                          "return [s.stroke, s.strokeDasharray]; })")
    assert style == [["rgb(0, 158, 115)", "6px, 4px"]]


def test_an_analysis_cut_short_by_a_restart_is_offered_again(browser, tmp_path):
    game = make("freego", size=5)
    rng = random.Random(5)
    state, moves = game.initial_state(), []
    while len(moves) < 30 and not game.is_terminal(state):
        actions = [int(a) for a in game.legal_actions(state)
                   if game.action_to_text(state, int(a)) not in ("pass", "resign")]
        moves.append(game.action_to_text(state, rng.choice(actions)))
        state = game.play_text(state, moves[-1])
    record = {"format": "stonegarden-record", "version": 1, "game": "freego",
              "params": {"size": 5}, "moves": moves}  # unfinished: spectators may see it
    server = Server(tmp_path / "games.db").start()
    try:
        status, made = server.request("POST", "/api/records", record)
        assert status == 201, made
        page = open_page(browser)
        page.goto(server.url + made["links"]["spectator"])
        wait_text(page, "#seats", "watching")
        page.click("#analyse")
        wait_text(page, "#analysis-status", "Analysing:")
        server.kill9()  # before its first positions are stored
        wait_text(page, "#analysis-status", "Can't reach the server")  # it stops asking
        server = Server(tmp_path / "games.db", server.port).start()
        # the page sees the analysis stopped (none of it stored), and offers it again
        page.wait_for_selector("#analyse:not([hidden])", timeout=WAIT)
        assert page.inner_text("#analysis-status") == ""
        page.click("#analyse")
        wait_text(page, "#analysis-status", f"Analysing: 0 of {len(moves) + 1} positions")
    finally:
        server.stop()


def test_a_best_move_that_is_a_pass_is_not_said_to_be_on_the_board(browser, server):
    made = new_game(server, "blooms-territory", hints=True)
    move(server, made, "1", "Ra1", 0)
    point = {"ply": 1, "p1_win": 0.3, "best_move": "pass", "played_loss": None,
             "judgement": None, "cells": []}

    # the snapshot as the server gives it where pass is best
    assert review_shown(browser, server, made, point) == (
        "Player 1's winning chances: 30%; the engine's best move here: pass.")


def test_a_hint_to_pass_is_not_said_to_be_on_the_board(browser, server):
    """A hint to pass (Blooms' territory rules, once the board is settled) said "Hint: pass,
    marked on the board", where no cell is marked: it names the pass alone."""
    made = new_game(server, "blooms-territory", hints=True)
    hint = {"ply": 0, "move": "pass", "agent": "mcts", "cells": []}
    page = open_page(browser)
    # the snapshot as the server gives it once a hint to pass was asked for
    change_answers(page, f"**/api/games/{made['id']}", lambda snap: snap.update(hint=hint))
    try:
        page.goto(server.url + made["links"]["1"])
        wait_text(page, "#hint-text", "Hint")
        assert page.inner_text("#hint-text") == "Hint: pass (from the computer's search)"
    finally:
        page.context.close()


def test_a_spectator_is_not_shown_the_players_undo_redo_and_cancel(browser, server):
    made = new_game(server, "bridgego", seats=("human", "mcts:time=8"), params={"size": 5})
    page = open_page(browser, phone=True)
    page.goto(server.url + made["links"]["spectator"])
    wait_text(page, "#seats", "watching")
    move(server, made, "1", "C3", 0)
    wait_text(page, "#thinking", "is thinking")
    assert page.is_hidden("#cancel")
    server.request("POST", f"/api/games/{made['id']}/cancel", {"secret": made["secrets"]["1"]})
    wait_text(page, "#thinking", "paused")
    assert page.is_hidden("#study-row") and page.is_hidden("#resume")
    page.goto(server.url + made["links"]["1"])  # the player has them
    page.wait_for_selector("#resume:not([hidden])", timeout=WAIT)
    assert page.is_enabled("#undo") and page.is_visible("#redo")


def test_the_keys_that_step_through_the_moves_are_told_to_a_reviewer(browser, server):
    """A finished game's reader (no move builder) is told how to step with the keyboard."""
    made = new_game(server, params={"size": 5})
    move(server, made, "1", "resign", 0)
    page = open_page(browser)
    page.goto(server.url + made["links"]["spectator"])
    page.wait_for_function("document.body.dataset.terminal === 'true'", timeout=WAIT)
    assert page.is_hidden("#builder")
    assert "← → step through the moves" in page.inner_text("#nav-keys")
    page.keyboard.press("ArrowLeft")
    page.wait_for_function("document.body.dataset.ply === '0'", timeout=WAIT)


def test_steps_asked_faster_than_the_server_answers_are_all_taken(browser, server):
    """Three presses of ← (or clicks of ◀) before the first position comes back go back three
    moves, not one: each step counts from the position asked for last."""
    made = new_game(server, params={"size": 5})
    for i, text in enumerate(["C3", "D4", "B2", "A1", "resign"]):
        move(server, made, str(i % 2 + 1), text, i)
    page = open_page(browser)
    page.goto(server.url + made["links"]["spectator"])
    page.wait_for_function("document.body.dataset.terminal === 'true'", timeout=WAIT)
    # in one task: the three keys are all pressed before any answer can come
    page.evaluate("""() => { for (let i = 0; i < 3; i++) document.dispatchEvent(
        new KeyboardEvent("keydown", {key: "ArrowLeft", bubbles: true})); }""")
    page.wait_for_function("document.body.dataset.ply === '2'", timeout=WAIT)
    page.evaluate("() => { for (let i = 0; i < 2; i++) document.getElementById('nav-prev')"
                  ".click(); }")
    page.wait_for_function("document.body.dataset.ply === '0'", timeout=WAIT)
    page.evaluate("() => { for (let i = 0; i < 9; i++) document.getElementById('nav-next')"
                  ".click(); }")  # past the end: the game as it is
    page.wait_for_function("document.body.dataset.ply === '5'", timeout=WAIT)
    assert not page.inner_text("#status").startswith("Viewing")


def test_the_first_roll_of_tumbling_dice_is_told_at_its_position(browser, server):
    """Stepping to the position after the game's first roll says what was rolled, as it does
    for every later roll."""
    made = new_game(server, "blobs", seats=("random", "random"),
                    params={"tumbling": True, "dice": 12})
    page = open_page(browser)
    page.goto(server.url + made["links"]["spectator"])
    page.wait_for_function("document.body.dataset.terminal === 'true'", timeout=WAIT)
    first = page.inner_text("#moves li:first-child")
    page.keyboard.press("Home")
    page.wait_for_function("document.body.dataset.ply === '0'", timeout=WAIT)
    page.keyboard.press("ArrowRight")
    page.wait_for_function("document.body.dataset.ply === '1'", timeout=WAIT)
    words = re.search(r"\((a \w+ face was rolled)\)", first)
    assert words, first
    wait_text(page, "#last-move", "face was rolled")
    assert page.inner_text("#last-move") == "A" + words.group(1)[1:] + "."


def test_a_moves_loss_is_said_to_be_its_movers(browser, server):
    made = new_game(server, params={"size": 5}, hints=True)
    move(server, made, "1", "C3", 0)
    move(server, made, "2", "A1", 1)
    point = {"ply": 2, "p1_win": 0.9, "best_move": "B2", "played_loss": 0.3,
             "judgement": "blunder", "cells": ["B2"]}

    # White's move gave Black the game
    assert review_shown(browser, server, made, point) == (
        "Black's winning chances: 90%; White's move A1 was a blunder: it cost White 30% of "
        "winning chances; the engine's best move here: B2 (marked on the board).")
    # losses are counted in whole percents as the thresholds (6%, 12%, 25%) are: one just
    # under a threshold is not said to reach it
    point.update(played_loss=0.1175, judgement="inaccuracy")
    assert "White's move A1 was an inaccuracy: it cost White 11% of winning chances" in (
        review_shown(browser, server, made, point))
    point.update(played_loss=0.0575, judgement=None)
    assert "White's move A1: it cost White 5% of winning chances" in (
        review_shown(browser, server, made, point))
    point.update(played_loss=0.0, judgement=None)  # as good as the engine's best
    assert review_shown(browser, server, made, point) == (
        "Black's winning chances: 90%; White's move A1: it cost White nothing; the engine's "
        "best move here: B2 (marked on the board).")


def test_an_unfinished_record_uploaded_to_study_is_analysed_on_its_page(browser, server,
                                                                          tmp_path):
    """The home page promises the computer's analysis of an upload; an unfinished one lands on
    its uploader's seat, which holds both seats: the page offers the analysis there and shows
    it, not "Opens once the game is over"."""
    from stonegarden.core.record import make_record, save_record

    game = make("freego", size=5)
    moves = ["C3", "D4", "B2"]
    path = tmp_path / "unfinished.json"
    save_record(make_record(game, moves, game.replay(moves)[-1]), path)
    errors: list[str] = []
    page = open_page(browser, errors)
    try:
        upload_file(page, server, path)
        page.wait_for_function("document.body.dataset.length === '3'", timeout=WAIT)
        assert page.is_hidden("#analysis-closed")
        page.click("#analyse")
        wait_text(page, "#analysis-status", ", 4 positions;")  # done, not "0 of 4 positions; …"
        assert page.locator("#winprob .apt").count() == 4
        page.keyboard.press("Home")
        wait_text(page, "#review-here", "the engine's best move here")
        assert errors == []
    finally:
        page.context.close()


def upload_two_moves_of_free_go(page, server, name: str, mime: str, data: bytes) -> None:
    """The home page's upload of a file of two Free Go moves, until its game page shows them."""
    page.goto(server.url + "/")
    page.select_option("#upload-game", "freego")
    page.set_input_files("#upload-file", files=[{"name": name, "mimeType": mime,
                                                 "buffer": data}])
    page.wait_for_url("**/game/**#key=*", timeout=WAIT)
    page.wait_for_function("document.body.dataset.length === '2'", timeout=WAIT)


def test_an_sgf_file_not_named_sgf_is_uploaded_as_sgf(browser, server):
    """A Go program's SGF saved as .txt (or with no extension) was sent as a JSON record and
    refused as "not valid JSON"; the page knows SGF by its text."""
    page = open_page(browser)
    try:
        upload_two_moves_of_free_go(page, server, "game.sgf.txt", "text/plain",
                                    "\ufeff(;GM[1]FF[4]SZ[9];B[ee];W[dc])".encode())
        assert page.inner_text("#moves").split("\n")[:2] == ["Black E5", "White D7"]
    finally:
        page.context.close()


def upload_file(page, server, path) -> None:
    """The home page's upload of the record in ``path``, until its game page opens."""
    page.goto(server.url + "/")
    page.set_input_files("#upload-file", str(path))
    page.wait_for_url("**/game/**#key=*", timeout=WAIT)


def upload_finished_game(page, server, path) -> None:
    """The home page's upload of the record of a finished game, until its page says it is
    over (the page holds both seats' keys)."""
    upload_file(page, server, path)
    page.wait_for_function("document.body.dataset.terminal === 'true'", timeout=WAIT)


def test_an_uploaded_game_is_not_said_to_be_won_or_lost_by_its_uploader(browser, server,
                                                                       tmp_path):
    """The uploader holds both seats of a record uploaded to study (someone else's game, as
    often as not): its page names the players, not "You won" and "You played"."""
    from stonegarden.core.record import make_record, save_record

    game = make("freego", size=5)
    moves = ["C3", "D4", "B2", "resign"]
    path = tmp_path / "resigned.json"
    save_record(make_record(game, moves, game.replay(moves)[-1]), path)
    page = open_page(browser)
    try:
        upload_finished_game(page, server, path)
        assert page.inner_text("#status") == "Game over: Black won: White resigned"
        assert page.inner_text("#last-move") == "White resigned."
        page.wait_for_timeout(500)  # the page would have named the seat after its uploader
        assert page.inner_text("#seats") == (
            "Black (a person) · White (a person) — you hold both seats; this link plays Black")
        page.keyboard.press("ArrowLeft")
        wait_text(page, "#last-move", "Black played B2.")
    finally:
        page.context.close()


def test_an_sgf_file_in_an_older_charset_names_its_players_on_the_page(browser, server):
    """An SGF file in the charset its CA[] names goes as its bytes: its players' names were
    read by the page as UTF-8 and shown as replacement characters."""
    page = open_page(browser)
    try:
        upload_two_moves_of_free_go(
            page, server, "old.sgf", "application/x-go-sgf",
            "(;GM[1]FF[4]CA[GB2312]SZ[9]PB[李昌镐]PW[曹薰铉];B[ee];W[dc])".encode("gb2312"))
        assert "Black (\u2068李昌镐\u2069) · White (\u2068曹薰铉\u2069)" in page.inner_text("#seats")
    finally:
        page.context.close()


def test_a_record_not_in_utf8_is_refused_on_the_page_as_the_api_refuses_it(browser, server):
    """A record in Latin-1 was read by the page as UTF-8 and uploaded with its players' names
    in replacement characters ("M\ufffdller"), where the API and ``replay`` refuse it; one
    with a byte order mark is read."""
    record = {"format": "stonegarden-record", "version": 1, "game": "freego",
              "params": {"size": 9}, "moves": ["E5", "D7"],
              "players": {"1": "Müller", "2": "Löw"}}
    text = json.dumps(record, ensure_ascii=False)
    page = open_page(browser)
    try:
        page.goto(server.url + "/")
        page.set_input_files("#upload-file", files=[{"name": "game.json",
                                                     "mimeType": "application/json",
                                                     "buffer": text.encode("latin-1")}])
        wait_text(page, "#upload-error", "not UTF-8")
        assert page.inner_text("#upload-error") == "bad record: it is not UTF-8 text"
        upload_two_moves_of_free_go(page, server, "game.json", "application/json",
                                    "\ufeff".encode() + text.encode())
        assert "Black (\u2068Müller\u2069) · White (\u2068Löw\u2069)" in page.inner_text("#seats")
    finally:
        page.context.close()


def test_an_analysis_waiting_for_a_free_worker_says_so(browser, server):
    made = new_game(server, params={"size": 5}, hints=True)
    answer = {"engine": "mcts:time=0.5,seed=1", "done": False, "running": True,
              "queued": True, "waiting": 3, "error": "", "of": 1, "points": []}
    page = open_page(browser)
    page.route(f"**/api/games/{made['id']}/analysis",
               lambda route: route.fulfill(status=200, content_type="application/json",
                                           body=json.dumps(answer)))
    try:
        page.goto(server.url + made["links"]["spectator"])
        wait_text(page, "#seats", "watching")
        page.click("#analyse")
        wait_text(page, "#analysis-status", "waits")
        assert page.inner_text("#analysis-status") == (
            "Analysing: 0 of 1 position; waits for a free worker (3 jobs ahead)…")
        answer.update(waiting=1)
        wait_text(page, "#analysis-status", "(1 job ahead)")
        answer.update(queued=False, waiting=0)
        wait_text(page, "#analysis-status", "Analysing: 0 of 1 position…")
    finally:
        page.context.close()


def test_a_finished_game_uploaded_for_review_says_who_won_and_offers_no_rematch(
        browser, server, tmp_path):
    # a terminal game (you, player 1, against level 1) uploaded to review it: this browser
    # holds both seats, so the page says who won as to a spectator, not "You lost", and offers
    # a new game, not a rematch no one could play the other side of
    path = tmp_path / "game.json"
    path.write_text(json.dumps({"format": "stonegarden-record", "version": 1, "game": "blooms",
                                "params": {}, "moves": ["Rd4", "Kb4,Ge2", "resign"],
                                "players": {"1": "human", "2": "level:1"}}))
    page = browser.new_page(bypass_csp=True, viewport={"width": 1280, "height": 900})
    errors: list[str] = []
    page.on("pageerror", lambda e: errors.append(str(e)))
    upload_finished_game(page, server, path)
    assert page.inner_text("#status") == "Game over: Player 2 won: Player 1 resigned"
    assert page.inner_text("#last-move") == "Player 1 resigned."
    assert page.is_hidden("#rematch") and page.is_visible("#new-game")
    assert errors == []
    page.close()


def test_a_game_longer_than_the_analysis_says_which_moves_it_covers(browser, server):
    """The analysis covers a game's first 400 moves: a longer game's page says so, and at a
    later move says why there is nothing to show, rather than leave the moves unexplained."""
    game = make("freego", size=19, target=200)
    rng = random.Random(3)
    state, moves = game.initial_state(), []
    while len(moves) < 402:
        actions = [int(a) for a in game.legal_actions(state)
                   if game.action_to_text(state, int(a)) not in ("pass", "resign")]
        moves.append(game.action_to_text(state, rng.choice(actions)))
        state = game.play_text(state, moves[-1])
    status, made = server.request("POST", "/api/records", {
        "format": "stonegarden-record", "version": 1, "game": "freego",
        "params": {"size": 19, "target": 200}, "moves": moves})
    assert status == 201, made

    page = open_page(browser)
    change_answers(page, f"**/api/games/{made['id']}/analysis", analysed_evenly,
                   method="GET")
    try:
        page.goto(server.url + made["links"]["spectator"])
        wait_text(page, "#seats", "watching")
        page.click("#analyse")
        wait_text(page, "#analysis-status", "401 positions (the first 400 moves of 402);")
        page.keyboard.press("End")
        wait_text(page, "#review-here", "The analysis covers the first 400 moves only.")
        assert page.locator("#winprob .graph-now").count() == 0  # not drawn off the graph
        page.keyboard.press("ArrowLeft")
        page.keyboard.press("ArrowLeft")
        page.wait_for_function("document.body.dataset.ply === '400'", timeout=WAIT)
        assert page.inner_text("#review-here") == ""  # the last move analysed
        assert page.get_attribute("#winprob .graph-now", "x1") == "300.0"  # the graph's end
    finally:
        page.context.close()


def test_a_step_through_the_moves_keeps_the_move_list(browser, server):
    """Each step rebuilt the whole move list (a long game's thousands of items, laid out again:
    most of a second a step); it moves the current mark, and a new move lists again."""
    made = new_game(server, params={"size": 5})
    for i, text in enumerate(["C3", "D4", "B2"]):
        move(server, made, str(i % 2 + 1), text, i)
    errors: list[str] = []
    page = open_page(browser, errors)
    try:
        page.goto(server.url + made["links"]["spectator"])
        page.wait_for_function("document.body.dataset.length === '3'", timeout=WAIT)
        page.evaluate("document.querySelectorAll('#moves li').forEach((li) => li.kept = true)")
        page.keyboard.press("ArrowLeft")
        page.wait_for_function("document.body.dataset.ply === '2'", timeout=WAIT)
        assert page.evaluate("[...document.querySelectorAll('#moves li')].every((li) => li.kept)")
        current = page.locator("#moves [aria-current=step]")
        assert current.count() == 1 and current.inner_text() == "White D4"
        assert page.locator("#moves li.current").count() == 1
        page.keyboard.press("Home")
        page.wait_for_function("document.body.dataset.ply === '0'", timeout=WAIT)
        assert page.locator("#moves li.current").count() == 0
        move(server, made, "2", "A1", 3)  # the game goes on: listed, the position kept
        page.wait_for_function("document.body.dataset.length === '4'", timeout=WAIT)
        assert page.inner_text("#moves").split("\n") == [
            "Black C3", "White D4", "Black B2", "White A1"]
        page.locator("#moves li").nth(1).click()
        page.wait_for_function("document.body.dataset.ply === '2'", timeout=WAIT)
        assert page.locator("#moves [aria-current=step]").inner_text() == "White D4"
        assert errors == []
    finally:
        page.context.close()


def test_an_unfinished_record_uploaded_is_played_on_from_its_page(browser, server, tmp_path):
    """An uploaded record, both of whose seats are its uploader's, opened on player 1's link:
    at White's turn the page said "White to move" and offered Abort (a record to study, which
    no one waits for), and White's moves could be played only from the other seat's link. The
    page plays the side to move."""
    path = tmp_path / "one.json"
    path.write_text(json.dumps({"format": "stonegarden-record", "version": 1, "game": "freego",
                                "params": {"size": 5}, "moves": ["C3"]}))
    errors: list[str] = []
    page = open_page(browser, errors)
    try:
        upload_file(page, server, path)
        wait_text(page, "#status", "Your turn (White)")
        keys = page.evaluate("JSON.parse(localStorage.getItem('sg-keys'))")
        gid = page.evaluate("document.body.dataset.gid")
        assert page.url.endswith("#key=" + keys[gid]["2"])
        assert "this link plays White" in page.inner_text("#seats")
        assert page.is_hidden("#abort")
        page.click('#board [data-cell="B2"]')
        wait_text(page, "#status", "Your turn (Black)")
        assert page.url.endswith("#key=" + keys[gid]["1"])
        assert page.inner_text("#moves").split("\n") == ["Black C3", "White B2"]
        assert page.is_hidden("#abort")
        assert page.title().startswith("Free Go")  # no turn alert: no one waits for it
        assert errors == []
    finally:
        page.context.close()


def test_a_game_over_before_its_first_move_offers_no_analysis(browser, server):
    """Blobs with one die is drawn before anyone moves: the page offered its analysis (one
    position, "Red's winning chances: 50%"); it says there is nothing to analyse."""
    status, made = server.request("POST", "/api/records", {
        "format": "stonegarden-record", "version": 1, "game": "blobs", "params": {"dice": 1},
        "moves": []})
    assert status == 201, made
    errors: list[str] = []
    page = open_page(browser, errors)
    try:
        page.goto(server.url + made["links"]["spectator"])
        page.wait_for_function("document.body.dataset.terminal === 'true'", timeout=WAIT)
        page.wait_for_selector("#analysis-none:not([hidden])", timeout=WAIT)
        assert page.inner_text("#analysis-none") == (
            "Nothing to analyse: the game was over before its first move.")
        assert page.is_hidden("#analyse") and page.is_hidden("#analysis-closed")
        assert errors == []
    finally:
        page.context.close()


def test_a_running_analysis_is_cancelled_from_the_keyboard(browser, server):
    """A long review asked for by mistake is stopped from the page: "Cancel the analysis" is
    reached with Tab from the analysis' state, pressed with Enter, said to a screen reader,
    and the server's worker is free at once; the analysis is offered again."""
    status, made = server.request("POST", "/api/records", study_record())
    assert status == 201, made
    errors: list[str] = []
    page = open_page(browser, errors)
    try:
        page.goto(server.url + made["links"]["spectator"])
        wait_text(page, "#seats", "watching")
        page.evaluate(SAID, "#analysis-said")
        page.focus("#analyse")
        page.keyboard.press("Enter")
        page.wait_for_selector("#analysis-cancel:not([hidden])", timeout=WAIT)
        assert page.evaluate("document.activeElement.id") == "analysis-status"
        page.keyboard.press("Tab")
        assert page.evaluate("document.activeElement.id") == "analysis-cancel"
        page.keyboard.press("Enter")
        wait_text(page, "#analysis-status", "was cancelled")
        text = page.inner_text("#analysis-status")
        status, a = server.request("GET", f"/api/games/{made['id']}/analysis")
        assert status == 200 and not a["running"] and a["cancelled"], a
        assert text == (f"The analysis was cancelled: {len(a['points'])} of {a['of']} positions "
                        "analysed are kept (those of the job it stopped are not); ask for it "
                        "again to go on from them."), text
        assert page.is_hidden("#analysis-cancel") and page.is_visible("#analyse")
        assert page.evaluate("document.activeElement.id") == "analysis-status"  # not lost
        assert page.evaluate("window.said")[-1] == text
        t0 = time.monotonic()  # its worker stops the search at once
        while server.request("GET", "/api/meta")[1]["limits"]["busy"]:
            assert time.monotonic() - t0 < 10, "the worker is still busy"
            time.sleep(0.1)
        assert errors == []
    finally:
        page.context.close()


def test_a_poll_answered_after_a_cancel_does_not_show_the_analysis_running(browser, server):
    """A poll of the analysis sent just before a cancel, and answered after it (the server
    was busy), is older than the cancel's answer: the page keeps saying it was cancelled."""
    status, made = server.request("POST", "/api/records", study_record())
    assert status == 201, made
    page = open_page(browser)
    parked: list = []
    try:
        page.goto(server.url + made["links"]["spectator"])
        wait_text(page, "#seats", "watching")
        page.click("#analyse")
        page.wait_for_selector("#analysis-cancel:not([hidden])", timeout=WAIT)
        running = server.request("GET", f"/api/games/{made['id']}/analysis")[1]
        assert running["running"], running
        page.route(f"**/api/games/{made['id']}/analysis",
                   lambda route: parked.append(route) if route.request.method == "GET"
                   else route.continue_())
        while not parked:  # the page's next poll, held
            page.wait_for_timeout(100)
        page.click("#analysis-cancel")
        wait_text(page, "#analysis-status", "was cancelled")
        running["can_cancel"] = True  # as the server answered the asker before the cancel
        with page.expect_event("requestfinished", timeout=WAIT):
            parked[0].fulfill(status=200, content_type="application/json",
                              body=json.dumps(running))
        page.evaluate("() => new Promise((done) => setTimeout(done, 200))")  # its answer read
        assert "was cancelled" in page.inner_text("#analysis-status")
        assert page.is_hidden("#analysis-cancel")
    finally:
        page.context.close()


def test_an_uploaded_games_page_says_the_time_control_it_was_played_under(browser, server,
                                                                           tmp_path):
    """A record of a clock game uploaded again said nothing of its clock on its page."""
    from stonegarden.core.record import make_record, save_record

    game = make("freego", size=5)
    moves = ["C3", "D4", "B2", "resign"]
    path = tmp_path / "timed.json"
    save_record(make_record(game, moves, game.replay(moves)[-1],
                            meta={"clock": {"initial": 300, "increment": 3}}), path)
    page = open_page(browser)
    try:
        upload_finished_game(page, server, path)
        wait_text(page, "#seats", "played at 5 min + 3 s")
        assert page.inner_text("#seats") == ("Black (a person) · White (a person) — played at "
                                             "5 min + 3 s — you hold both seats; this link "
                                             "plays Black")
        assert page.is_hidden("#clocks")  # no clock runs for it
    finally:
        page.context.close()


def test_a_tap_anywhere_on_the_graph_on_a_phone_shows_the_nearest_position(browser, server):
    """The graph's dots are 5 to 8 px, a few px apart in a long game: on a phone a tap meant
    for one fell between them, or on the line, and did nothing."""
    made = new_game(server, params={"size": 9}, hints=True)  # analysed while it goes on
    played = ["E5", "D4", "C3", "F6", "G7", "B2", "H8", "A1", "J9", "B8", "C7", "D6", "E3", "F2"]
    for i, text in enumerate(played):
        move(server, made, "1" if i % 2 == 0 else "2", text, i)

    page = open_page(browser, phone=True)
    change_answers(page, f"**/api/games/{made['id']}/analysis", analysed_evenly,
                   method="GET")
    try:
        page.goto(server.url + made["links"]["spectator"])
        wait_text(page, "#seats", "watching")
        page.tap("#analyse")
        wait_text(page, "#analysis-status", "15 positions;")
        # between the dots of moves 10 and 11, nearer 10's, at the graph's foot (the line,
        # and every dot, at 50% in its middle)
        where = page.evaluate("""() => { const svg = document.getElementById('winprob');
          svg.scrollIntoView({block: 'center'});
          const p = new DOMPoint(300 * 10.3 / 14, 110).matrixTransform(svg.getScreenCTM());
          return [p.x, p.y, document.elementFromPoint(p.x, p.y).tagName]; }""")
        assert where[2] != "circle"  # no dot there
        page.touchscreen.tap(where[0], where[1])
        page.wait_for_function("document.body.dataset.ply === '10'", timeout=WAIT)
    finally:
        page.context.close()
