"""Makes ``webhelpers`` (and the shared ``fuzz_values``) importable from the web tests (pytest
runs with importlib mode); a PostgreSQL cluster for the tests that need one. Every test that
starts a real Chromium, PostgreSQL or nginx is ``slow``: the quick run leaves them to CI."""

import itertools
import os
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(1, str(Path(__file__).resolve().parents[1]))

_databases = itertools.count()

#: fixtures that start a real outside program (seconds each): their tests are ``slow``
_SERVICES = {"browser", "postgres", "nginx_factory", "caddy_factory"}


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    for item in items:
        if _SERVICES.intersection(getattr(item, "fixturenames", ())):
            item.add_marker(pytest.mark.slow)


def require(what: str) -> None:
    """Skip a test whose server is not installed, except under scripts/test.sh (CI), which
    installs them all and sets STONEGARDEN_REQUIRE_SERVICES: there a missing one fails."""
    message = f"{what} is not installed: run scripts/install-services.sh"
    if os.environ.get("STONEGARDEN_REQUIRE_SERVICES"):
        pytest.fail(message)
    pytest.skip(message)


@pytest.fixture(scope="session")
def postgres(tmp_path_factory: pytest.TempPathFactory) -> Iterator[object]:
    """One throw-away PostgreSQL cluster per test process (Debian's package), stopped at the
    end; tests take a fresh database each (``pg_database``)."""
    from services import Postgres, postgres_available

    if not postgres_available():
        require("PostgreSQL")
    pg = Postgres(tmp_path_factory.mktemp("pg")).start()
    yield pg
    pg.stop()


@pytest.fixture
def pg_database(postgres) -> str:
    """The DSN of a fresh, empty database."""
    return postgres.create_database(f"t{next(_databases)}")


@pytest.fixture
def nginx_factory(tmp_path: Path) -> Iterator[object]:
    """Starts nginx (Debian's package) with a test's ``server`` blocks; stopped at the end."""
    from services import Nginx, nginx_available

    if not nginx_available():
        require("nginx")
    started: list[Nginx] = []

    def start(body: str, name: str = "nginx") -> Nginx:
        n = Nginx(tmp_path / name, body).start()
        started.append(n)
        return n

    yield start
    for n in started:
        n.stop()


@pytest.fixture
def caddy_factory(tmp_path: Path) -> Iterator[object]:
    """Starts Caddy (Debian's package) with a test's Caddyfile site; stopped at the end."""
    from services import Caddy, caddy_available

    if not caddy_available():
        require("Caddy")
    started: list[Caddy] = []

    def start(site: str) -> Caddy:
        c = Caddy(tmp_path / "caddy", site).start()
        started.append(c)
        return c

    yield start
    for c in started:
        c.stop()


@pytest.fixture(scope="module")
def browser() -> Iterator[object]:
    """One headless Chromium for a module's browser tests (``browsers.chromium``)."""
    from browsers import chromium

    with chromium() as b:
        yield b


def _server(folder: Path) -> Iterator[object]:
    from webhelpers import Server

    s = Server(folder / "games.db").start()
    yield s
    s.stop()


@pytest.fixture
def server(tmp_path: Path) -> Iterator[object]:
    """A real ``serve`` process on a free port over a fresh SQLite file."""
    yield from _server(tmp_path)


@pytest.fixture
def own_server(tmp_path: Path) -> Iterator[object]:
    """The test's own server, where its module shares one as ``server``: for a test that reads
    what the whole server keeps (the lobby)."""
    yield from _server(tmp_path)


@pytest.fixture(scope="module")
def module_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[object]:
    """One ``serve`` process for a module of browser tests that share it (a start is about a
    second of CPU): each test plays its own games in its own browser contexts, reads nothing
    the whole server keeps (the lobby, the list of stored games, the workers' queue), and
    neither stops nor restarts it. Each test's pages are closed after it (``_closed_pages``),
    so that none goes on with the server (a live stream counts against the client's limit)."""
    yield from _server(tmp_path_factory.mktemp("shared"))


@pytest.fixture(autouse=True)
def _closed_pages(request: pytest.FixtureRequest) -> Iterator[None]:
    """Closes every browser context a test leaves open, in every module that has a browser:
    a page left open goes on reading its game's stream and running its timers, and dozens
    of them slowed the later tests' servers many times over."""
    browser = (request.getfixturevalue("browser") if "browser" in request.fixturenames
               else None)
    yield
    if browser is not None:
        for context in list(browser.contexts):
            # a route's handler caught asking the server as its page closes would raise
            # in the next test's first call to the browser ("Response has been disposed")
            for page in context.pages:
                page.unroute_all(behavior="ignoreErrors")
            context.unroute_all(behavior="ignoreErrors")
            context.close()


@pytest.fixture
def db(tmp_path: Path) -> Path:
    """A fresh SQLite file for an in-process app."""
    return tmp_path / "games.db"


@pytest.fixture
def client(db: Path) -> Iterator[object]:
    """The web app in this process with one worker, over ``db`` (Starlette's TestClient)."""
    pytest.importorskip("httpx2", reason="starlette's TestClient needs httpx2 (test extra)")
    from starlette.testclient import TestClient

    from stonegarden.web.app import create_app

    with TestClient(create_app(db, workers=1)) as c:
        yield c
