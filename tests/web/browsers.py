"""Debian's Chromium driven by Playwright for the end-to-end tests, launched through its
explicit path (never ``playwright install``); scripts/install-browser.sh installs both. A test
module imports ``chromium`` and ``SHOTS``/``WAIT``; the ``browser`` and ``server`` fixtures are
in ``conftest.py``."""

from __future__ import annotations

import json
import os
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any

import pytest
from webhelpers import ROOT

CHROMIUM = "/usr/bin/chromium"
ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
        "--disable-background-networking", "--disable-component-update", "--disable-sync"]
SHOTS = ROOT / "docs" / "screenshots"
WAIT = 60_000  # ms; bounded waits for the page, never a timing assertion


@contextmanager
def chromium() -> Iterator[Any]:
    """A headless Chromium; the test skips, saying why, when the browser or Playwright is
    missing (CI installs both, so there it never does)."""
    if not os.path.exists(CHROMIUM):
        pytest.skip(f"{CHROMIUM} is missing: run scripts/install-browser.sh")
    sync_api = pytest.importorskip(
        "playwright.sync_api",
        reason="the playwright package is missing: run scripts/install-browser.sh")
    with sync_api.sync_playwright() as pw:
        browser = pw.chromium.launch(executable_path=CHROMIUM, args=ARGS, headless=True)
        try:
            yield browser
        finally:
            browser.close()


def change_answers(page: Any, url: str, change: Callable[[dict[str, Any]], None],
                   method: str | None = None) -> None:
    """Answer the page's requests to ``url`` with the server's own JSON (asked with ``method``
    when given: a GET in place of a POST that would start a job), changed in place by
    ``change``: a state the server would take long to reach. Close the page before the test's
    server stops: a route that asks a stopped server fails the next test's calls."""
    def answer(route: Any) -> None:
        try:
            data = route.fetch(method=method).json() if method else route.fetch().json()
        except Exception as exc:
            # the page closed while its request was asked of the server (its answer is
            # "disposed" with its context): no one waits for the answer, and raising here
            # would fail the next test's first call to the browser
            if page.is_closed() or "disposed" in str(exc) or "has been closed" in str(exc):
                return
            raise
        change(data)
        route.fulfill(status=200, content_type="application/json", body=json.dumps(data))

    page.route(url, answer)
