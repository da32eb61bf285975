"""``stonegarden serve``: the web app (docs/web.md)."""

from __future__ import annotations

import asyncio
import errno
import socket
import stat
import sys
import threading
import webbrowser
from pathlib import Path
from typing import Any

import click

from ..search.config import MAX_THREADS, default_threads
from .common import FiniteRange, NamedText, WholeRange


@click.command()
@click.option("--host", type=NamedText(), default="127.0.0.1", show_default=True,
              help="address to listen on (127.0.0.1 keeps it to this machine)")
@click.option("--port", default=8000, show_default=True, type=WholeRange(0, 65535),
              help="port to listen on (0: any free port, named when it starts)")
@click.option("--db", "db_path", type=NamedText(), default=None, metavar="PATH|postgresql://...",
              envvar="STONEGARDEN_DB", show_envvar=True,
              help="where games are kept: a SQLite file [default: "
                   "$XDG_DATA_HOME/stonegarden/games.db, ~/.local/share/stonegarden/games.db "
                   "where XDG_DATA_HOME is not set], served by this process alone, or a "
                   "PostgreSQL database that several serve processes share "
                   "(postgresql://user:password@host:port/database; from the environment, "
                   "its password stays out of the process list)")
@click.option("--public-url", type=NamedText(), default=None, metavar="URL",
              help="the address people reach this server at (e.g. https://host/stonegarden): "
                   "links in answers and pages start with it, and its path is the prefix the "
                   "server answers under")
@click.option("--forwarded-allow-ips", type=NamedText(), default=None, metavar="IPS",
              help="comma-separated addresses or networks of reverse proxies whose "
                   "X-Forwarded-For/-Proto headers are believed ('*': any peer); from anyone "
                   "else those headers are ignored")
@click.option("--open", "open_browser", is_flag=True, help="open the home page in a browser")
@click.option("--workers", default=2, show_default=True, type=WholeRange(1, 64),
              help="worker processes for the AI, hints, analysis and uploads")
@click.option("--max-think", default=10.0, show_default=True, type=FiniteRange(0.1, 600),
              help="seconds an agent may think for one move (a longer 'time' is refused; a "
                   "search is stopped there and plays its best move)")
@click.option("--hint-seconds", default=2.0, show_default=True, type=FiniteRange(0.1, 60),
              help="seconds a hint's search may take")
@click.option("--analysis-seconds", default=30.0, show_default=True,
              type=FiniteRange(1, 600),
              help="seconds each job of the computer's analysis (a few positions) may take")
@click.option("--job-memory", default=2048, show_default=True, type=WholeRange(64, 65536),
              help="MiB one job may allocate in its worker")
@click.option("--queue", "queue", default=64, show_default=True, type=WholeRange(1, 10000),
              help="jobs that may wait, all clients together")
@click.option("--client-jobs", default=4, show_default=True, type=WholeRange(1, 1000),
              help="jobs one client (address) may have waiting or running")
@click.option("--client-games", default=200, show_default=True, type=WholeRange(1, 100000),
              help="new games (uploads included) one client (address) may make in an hour, "
                   "as many at once")
@click.option("--job-threads", default=None, type=WholeRange(1, MAX_THREADS),
              help="threads one job's search may take (levels 5 and 6 take that many) "
                   "[default: the cores shared out among the workers, at least 1]")
@click.option("--hint-agent", default=None, help="agent spec for hints [default: strongest]")
def serve(host: str, port: int, db_path: str | None, public_url: str | None,
          forwarded_allow_ips: str | None, open_browser: bool, workers: int,
          max_think: float, hint_seconds: float, analysis_seconds: float, job_memory: int,
          queue: int, client_jobs: int, client_games: int, job_threads: int | None,
          hint_agent: str | None) -> None:
    """Start the web app: play, study and review games in the browser."""
    from ..errors import StonegardenError
    from ..jobs import Limits
    from ..store import default_db_path, sqlite_file
    from ..store.postgres import redacted
    from ..store.sqlite import serve_alone
    from ..web.app import create_app
    from ..web.service import Budgets, MiB
    from ..web.site import Site, check_forwarded_ips

    path = db_path or str(default_db_path())
    budgets = Budgets(max_think=max_think, hint_seconds=hint_seconds,
                      analysis_seconds=analysis_seconds, job_memory=job_memory * MiB,
                      job_threads=job_threads or cores_per_worker(workers),
                      games_per_client=client_games)
    try:
        site = Site.parse(public_url)
        trusted = check_forwarded_ips(forwarded_allow_ips)
        hosts = loopback_hosts(host, site)
        if hint_agent is not None:
            from ..web.job_kinds import server_agent

            server_agent(hint_agent, budgets.job_threads)
        sqlite_path = sqlite_file(path)
        if sqlite_path is not None:
            if db_path is not None:
                named_folder_exists(sqlite_path)
            serve_alone(sqlite_path)
        app = create_app(path, workers=workers, budgets=budgets, hint_spec=hint_agent,
                         allowed_hosts=hosts, limits=Limits(queue=queue, per_client=client_jobs),
                         site=site, forwarded_allow_ips=trusted)
    except StonegardenError as exc:
        click.echo(f"stonegarden serve: {exc}", err=True)
        sys.exit(2)
    try:
        sockets = listening_sockets(host, port)
    except OSError as exc:
        click.echo(f"stonegarden serve: cannot listen on {host}:{port}: "
                   f"{(exc.strerror or str(exc)).lower()}", err=True)
        sys.exit(2)
    port = sockets[0].getsockname()[1]  # the one chosen, for --port 0
    url = f"http://{local_address(host)}:{port}/"
    shown = f" (public URL {site.link('/')})" if site.origin else ""
    # a file by its whole path: where to find it to back it up, whatever the folder it ran in
    stored = redacted(path) if sqlite_path is None else str(sqlite_path.absolute())
    click.echo(f"stonegarden: serving {url}{shown} (games stored in {stored}); "
               "Ctrl-C stops")
    if open_browser:
        threading.Timer(1.0, open_in_browser, args=(url,)).start()
    run_server(app, host, port, sockets)


def open_in_browser(url: str) -> None:
    """``--open``: the page in the default browser, or a line saying there is none (a machine
    without a desktop, reached over SSH: ``webbrowser`` then opens nothing, and said nothing)."""
    try:
        opened = webbrowser.open(url)
    except (webbrowser.Error, OSError):  # a launcher that fails ends no server
        opened = False
    if not opened:
        click.echo(f"stonegarden serve: --open found no browser on this machine: open {url} "
                   "in one that reaches it", err=True)


def local_address(host: str) -> str:
    """Where this machine reaches a server bound to ``host``, as a URL writes it: the
    loopback address of the family for "any address", an IPv6 address in brackets."""
    if host == "0.0.0.0":
        return "127.0.0.1"
    if host == "::":  # IPv6 only (as asyncio binds it)
        return "[::1]"
    return f"[{host}]" if ":" in host else host


def loopback_hosts(host: str, site: Any) -> list[str] | None:
    """The ``Host`` names a server bound to ``host`` answers to: bound to a loopback address
    (any of 127.0.0.0/8, ::1), only loopback names, its own address and the public URL's host
    (reached through a proxy on this machine), so that no web page can reach it by DNS
    rebinding; ``None`` (any) otherwise."""
    import ipaddress

    try:
        loopback = host == "localhost" or ipaddress.ip_address(host).is_loopback
    except ValueError:
        return None
    if not loopback:
        return None
    hosts = ["127.0.0.1", "localhost", "[::1]", "::1"]
    for name in (host, site.host):
        if name and name not in hosts:
            hosts.append(f"[{name}]" if ":" in name else name)
    return hosts


def cores_per_worker(workers: int) -> int:
    """The default ``--job-threads``: this process's cores shared out among the workers (at
    least one each), so that searches in every worker at once never ask for more cores."""
    return max(1, default_threads() // workers)


def listening_sockets(host: str, port: int) -> list[socket.socket]:
    """Sockets bound to ``host``:``port`` (each address the name has, as asyncio binds them),
    before the server starts: a port in use stops the start with one line, and the server
    does not say it serves where it cannot.

    Raises:
        OSError: an address cannot be bound (in use, not this machine's, a name not found).
    """
    found = socket.getaddrinfo(host, port, type=socket.SOCK_STREAM, flags=socket.AI_PASSIVE)
    sockets: list[socket.socket] = []
    unavailable: OSError | None = None
    try:
        for family, kind, proto, _, address in dict.fromkeys(found):
            try:
                sock = socket.socket(family, kind, proto)
            except OSError:  # a family this machine does not have
                continue
            sockets.append(sock)
            sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
            if family == socket.AF_INET6:
                sock.setsockopt(socket.IPPROTO_IPV6, socket.IPV6_V6ONLY, 1)
            try:
                sock.bind(address)
            except OSError as exc:
                if exc.errno != errno.EADDRNOTAVAIL:
                    raise
                # the family is not enabled (IPv6 off): the name's other addresses serve
                sockets.pop().close()
                unavailable = exc
    except OSError:
        for sock in sockets:
            sock.close()
        raise
    if not sockets:
        raise unavailable or OSError(errno.EADDRNOTAVAIL, "no address to listen on")
    return sockets


#: seconds an idle connection is kept open: longer than a reverse proxy keeps one to the server
#: (nginx's upstream ``keepalive_timeout`` 60 s, Caddy's 2 min), so that the proxy, not the
#: server, closes it. Closed under the proxy (uvicorn's default is 5 s), a request the proxy
#: sent on it at that moment failed: nginx answers a POST (a move) 502 rather than send it again.
KEEP_ALIVE = 150


#: seconds a client has to send a request's head (its line and headers), from its connection
#: or from the first byte of its next request: nginx's ``client_header_timeout``. Without it a
#: connection that sends nothing, or a head a byte at a time, was held for ever.
REQUEST_HEAD_SECONDS = 60.0


def guarded_http(seconds: float = REQUEST_HEAD_SECONDS) -> type:
    """uvicorn's HTTP protocol, closing a connection whose request's head has not all arrived
    ``seconds`` after the connection was made, or after the first byte of a request that
    follows an answer (a connection idle between requests is uvicorn's keep-alive's)."""
    from uvicorn.protocols.http.auto import AutoHTTPProtocol

    class Guarded(AutoHTTPProtocol):  # type: ignore[misc, valid-type]
        _head_timer: asyncio.TimerHandle | None = None

        def connection_made(self, transport: Any) -> None:
            super().connection_made(transport)
            self._await_head()

        def data_received(self, data: bytes) -> None:
            super().data_received(data)
            if self.cycle is None or self.cycle.response_complete:
                self._await_head()  # a head under way (or only part of one arrived)
            elif self._head_timer is not None:
                self._head_timer.cancel()
                self._head_timer = None

        def connection_lost(self, exc: Exception | None) -> None:
            if self._head_timer is not None:
                self._head_timer.cancel()
                self._head_timer = None
            super().connection_lost(exc)

        def _await_head(self) -> None:
            if self._head_timer is None and not self.transport.is_closing():
                self._head_timer = asyncio.get_running_loop().call_later(seconds, self._too_slow)

        def _too_slow(self) -> None:
            self._head_timer = None
            if self.cycle is None or self.cycle.response_complete:
                self.transport.close()

    return Guarded


def run_server(app: Any, host: str, port: int,
               sockets: list[socket.socket] | None = None) -> None:
    """uvicorn (on ``sockets`` when given), telling the app when a shutdown begins
    (``app.state.begin_shutdown``), so its live-update streams end at once instead of holding
    the shutdown up."""
    import uvicorn

    class Server(uvicorn.Server):
        def handle_exit(self, sig: int, frame: Any) -> None:
            begin = getattr(app.state, "begin_shutdown", None)
            if begin is not None:
                begin()
            super().handle_exit(sig, frame)

    # proxy_headers off: uvicorn would otherwise believe X-Forwarded-For from 127.0.0.1 by
    # default; the app trusts those headers only from --forwarded-allow-ips
    Server(uvicorn.Config(app, host=host, port=port, log_level="warning",
                          timeout_graceful_shutdown=2, timeout_keep_alive=KEEP_ALIVE,
                          proxy_headers=False, http=guarded_http())).run(sockets)


def named_folder_exists(path: Path) -> None:
    """Refuse a SQLite file named with ``--db`` in a folder that does not exist: a mistyped
    folder was made, and an empty site served from it, its games not found (the default
    file's folder is made at the first start).

    Raises:
        StoreError: the folder is missing, is not a folder, or cannot be looked at (a name
        too long, say: ``Path.exists`` raised that as a traceback).
    """
    from ..errors import StoreError

    folder = path.absolute().parent
    try:
        is_folder = stat.S_ISDIR(folder.stat().st_mode)
    except (FileNotFoundError, NotADirectoryError):
        raise StoreError(f"{path}: the folder {folder} does not exist (mistyped? make it "
                         "first to keep games there)") from None
    except OSError as exc:
        raise StoreError(f"{path}: cannot open its folder ({exc.strerror})") from None
    if not is_folder:
        raise StoreError(f"{path}: {folder} is not a folder")
