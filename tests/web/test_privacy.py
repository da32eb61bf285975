"""Headers and privacy: security headers on every answer, no inline script in any page,
hints that belong to the seat that asked (refused on the opponent's turn, and between two
people unless both agreed), and games unlisted unless created public."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

pytest.importorskip("httpx2", reason="starlette's TestClient needs httpx2 (test extra)")
from starlette.testclient import TestClient

from stonegarden.web.app import create_app
from stonegarden.web.service import Budgets

SMALL = {"size": 3, "target": 6}


@pytest.fixture(scope="module")
def client(tmp_path_factory):
    db = tmp_path_factory.mktemp("privacy") / "games.db"
    app = create_app(db, workers=1, hint_spec="random", budgets=Budgets(hint_seconds=5))
    with TestClient(app) as c:
        yield c


def new(client, seats, **extra):
    r = client.post("/api/games", json={"game": "blooms", "params": SMALL, "seats": seats,
                                        **extra})
    assert r.status_code == 201, r.text
    return r.json()


def test_every_kind_of_answer_carries_the_security_headers(client):
    made = new(client, ["human", "human"])
    for path in ("/", f"/game/{made['id']}", "/rules/blooms", "/games", "/api/meta",
                 f"/api/games/{made['id']}", "/api/games/nope", "/game/nope",
                 "/static/style.css", "/static/game/main.js", "/rules/img/nothing.svg"):
        r = client.get(path)
        csp = r.headers["content-security-policy"]
        directives = dict(d.strip().split(" ", 1) for d in csp.split(";"))
        assert directives["script-src"] == "'self'", path  # no inline script, no eval
        assert directives["style-src"] == "'self'", path  # no inline style either
        assert directives["frame-ancestors"] == "'none'" and directives["object-src"] == "'none'"
        assert r.headers["x-frame-options"] == "DENY"
        assert r.headers["x-content-type-options"] == "nosniff"
        assert r.headers["referrer-policy"] == "no-referrer"


def test_no_page_holds_inline_script(client):
    """Every <script> loads a file of the server's or is a JSON data block (which a CSP does
    not govern); no element has an on...= handler or a javascript: URL."""
    made = new(client, ["human", "random"])
    for path in ("/", f"/game/{made['id']}", "/rules/blooms", "/rules/blobs", "/games",
                 "/game/nope"):
        html = client.get(path).text
        for tag in re.findall(r"<script\b[^>]*>", html):
            assert re.search(r'\bsrc="/static/(game/)?[\w.-]+\.js"', tag) or \
                'type="application/json"' in tag, (path, tag)
        assert not re.search(r"<[^>]+\son[a-z]+\s*=", html, re.IGNORECASE), path
        assert "javascript:" not in html.lower(), path


def test_a_hint_is_its_seats_own_and_only_on_its_turn(client):
    made = new(client, ["human", "random"])
    gid, k1, k2 = made["id"], made["secrets"]["1"], made["secrets"]["2"]
    r = client.post(f"/api/games/{gid}/hint", json={"secret": k1})
    assert r.status_code == 200, r.text
    hint = r.json()["hint"]
    assert r.json()["hint"]["cells"]
    assert client.get(f"/api/games/{gid}", headers={"X-Seat-Secret": k1}).json()["hint"] == hint
    assert client.get(f"/api/games/{gid}").json()["hint"] is None  # a spectator
    assert client.get(f"/api/games/{gid}", headers={"X-Seat-Secret": k2}).json()["hint"] is None
    # the other seat (here the agent's, whose secret the creator holds) asks on player 1's turn
    r = client.post(f"/api/games/{gid}/hint", json={"secret": k2})
    assert r.status_code == 409 and "your own turn" in r.json()["error"]


def test_hints_between_two_people_need_both_seats_agreement_at_creation(client):
    plain = new(client, ["human", "human"])
    r = client.post(f"/api/games/{plain['id']}/hint", json={"secret": plain["secrets"]["1"]})
    assert r.status_code == 403 and "agreement" in r.json()["error"]
    assert client.get(f"/api/games/{plain['id']}").json()["hints_allowed"] is False
    agreed = new(client, ["human", "human"], hints=True)
    gid, k1, k2 = agreed["id"], agreed["secrets"]["1"], agreed["secrets"]["2"]
    assert client.get(f"/api/games/{gid}").json()["hints_allowed"] is True
    assert client.post(f"/api/games/{gid}/hint", json={"secret": k2}).status_code == 409
    r = client.post(f"/api/games/{gid}/hint", json={"secret": k1})
    assert r.status_code == 200 and r.json()["hint"]["move"]
    seen_by_2 = client.get(f"/api/games/{gid}", headers={"X-Seat-Secret": k2}).json()
    assert seen_by_2["hint"] is None and "hint-ring" not in seen_by_2["svg"]
    assert client.post("/api/games", json={"game": "blooms", "seats": ["human", "human"],
                                           "hints": "yes"}).status_code == 400


def test_games_are_unlisted_unless_created_public_and_spectator_links_still_work(client):
    hidden = new(client, ["human", "human"])
    shown = new(client, ["human", "human"], public=True)
    listing = client.get("/api/games").json()["games"]
    ids = {g["id"] for g in listing}
    assert shown["id"] in ids and hidden["id"] not in ids
    assert all(g["public"] for g in listing)
    page = client.get("/games").text
    assert shown["id"] in page and hidden["id"] not in page
    # whoever holds the link can watch, and ask for it by id
    assert client.get(hidden["links"]["spectator"]).status_code == 200
    snap = client.get(f"/api/games/{hidden['id']}").json()
    assert snap["public"] is False and snap["you"] is None
    asked = client.get(f"/api/games?ids={hidden['id']},nope").json()["games"]
    assert [g["id"] for g in asked] == [hidden["id"]]
    for text in (client.get("/api/games").text, page, str(asked)):
        assert hidden["secrets"]["1"] not in text and shown["secrets"]["1"] not in text


@pytest.mark.slow
def test_the_pages_run_under_the_policy_in_chromium(tmp_path: Path):
    """In a real browser: no CSP violation on any page, and the game page still works (its
    JSON data block is read, the board is drawn, a move is played)."""
    from browsers import chromium
    from webhelpers import Server

    server = Server(tmp_path / "games.db").start()
    try:
        _, made = server.request("POST", "/api/games", {"game": "blooms", "params": SMALL,
                                                        "seats": ["human", "random"]})
        with chromium() as browser:
            page = browser.new_page()
            problems: list[str] = []
            page.on("console", lambda m: problems.append(m.text)
                    if "Content Security Policy" in m.text else None)
            page.on("pageerror", lambda e: problems.append(str(e)))
            page.on("response", lambda r: problems.append(f"{r.status} {r.url}")
                    if r.status >= 400 and not r.url.endswith("/favicon.ico") else None)
            for path in ("/", "/rules/blooms", "/games", made["links"]["1"]):
                page.goto(server.url + path)
                page.wait_for_load_state("networkidle", timeout=60_000)
            page.wait_for_selector("#board [data-cell]", timeout=60_000)
            page.fill("#move-text", "Rc3")
            page.press("#move-text", "Enter")
            # (selectors only: Playwright's wait_for_function evaluates a string, which this
            # very policy forbids)
            page.wait_for_selector("#moves li", timeout=60_000)
            page.goto(server.url + "/")
            assert page.locator("#params label").count() > 0  # home.js read the data block
        assert problems == []
    finally:
        server.stop()
