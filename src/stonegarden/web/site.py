"""Where the server is seen from: its public URL (``serve --public-url``), the path prefix it
is served under behind a reverse proxy, and which proxies' ``X-Forwarded-*`` headers it
believes (``serve --forwarded-allow-ips``).

Links in answers and pages are made from the public URL, never from a request's ``Host`` or
forwarded headers, which a client could forge. A request reaches the app with or without the
prefix (a proxy may strip it or pass it on); the prefix is taken off before routing.
"""

from __future__ import annotations

import ipaddress
from dataclasses import dataclass
from typing import Any
from urllib.parse import urlsplit

from starlette.datastructures import Headers
from starlette.middleware.trustedhost import TrustedHostMiddleware
from starlette.responses import PlainTextResponse
from starlette.types import ASGIApp, Receive, Scope, Send

from ..errors import ParameterError, quote
from .http import Json


@dataclass(frozen=True)
class Site:
    """``origin`` (``https://host:port``, empty when not given) and ``prefix`` (``/path``
    without a trailing slash, empty for the root)."""

    origin: str = ""
    prefix: str = ""

    @classmethod
    def parse(cls, public_url: str | None) -> Site:
        """The site of a ``--public-url`` (``None``: links are paths on this host).

        Raises:
            ParameterError: not an absolute http(s) URL, or with a query or fragment.
        """
        if not public_url:
            return cls()
        parts = urlsplit(public_url)
        if parts.scheme not in ("http", "https") or not parts.hostname:
            raise ParameterError(f"--public-url {public_url!r}: give an absolute http(s) URL, "
                                 "e.g. https://games.example.org/stonegarden")
        if parts.query or parts.fragment or any(c in parts.path for c in "%?#\"'<> \\"):
            raise ParameterError(f"--public-url {public_url!r}: no query, fragment or special "
                                 "characters in it")
        return cls(f"{parts.scheme}://{parts.netloc}", parts.path.rstrip("/"))

    @property
    def host(self) -> str | None:
        """The public host name (allowed in ``Host`` headers), or ``None``."""
        return urlsplit(self.origin).hostname if self.origin else None

    def path(self, path: str) -> str:
        """A path on this site as pages use it (``/static/x.js`` -> ``/prefix/static/x.js``)."""
        return self.prefix + path

    def link(self, path: str) -> str:
        """A link for answers, to share: absolute with the public URL when there is one."""
        return self.origin + self.prefix + path


class StripPrefix:
    """ASGI middleware: a request for ``/prefix/...`` is routed as ``/...`` (a proxy that
    passes the prefix on); one without it is routed as it is (a proxy that strips it)."""

    def __init__(self, app: ASGIApp, prefix: str) -> None:
        self.app = app
        self.prefix = prefix

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] in ("http", "websocket") and self.prefix:
            path: str = scope["path"]
            if path == self.prefix or path.startswith(self.prefix + "/"):
                scope = {**scope, "path": path[len(self.prefix):] or "/",
                         "raw_path": (path[len(self.prefix):] or "/").encode()}
        await self.app(scope, receive, send)


class HostCheck:
    """ASGI middleware: answers only requests whose ``Host`` is one of ``allowed_hosts`` (a
    server bound to loopback: no DNS rebinding from web pages). The check is starlette's
    ``TrustedHostMiddleware``; a refusal is a 400 that says which names are answered (JSON
    for the API, like its other errors)."""

    def __init__(self, app: ASGIApp, allowed_hosts: list[str]) -> None:
        self.app = app
        self.allowed_hosts = allowed_hosts

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] not in ("http", "websocket"):
            await self.app(scope, receive, send)
            return
        allowed = False

        async def passed(scope: Scope, receive: Receive, send: Send) -> None:
            nonlocal allowed
            allowed = True

        async def refusal(message: Any) -> None:
            pass  # starlette's own answer is replaced below

        await TrustedHostMiddleware(passed, self.allowed_hosts, www_redirect=False)(
            scope, receive, refusal)
        if allowed:
            await self.app(scope, receive, send)
            return
        names = ", ".join(h for h in self.allowed_hosts if h != "::1")
        message = (f"this server answers only to the host names {names}, not "
                   f"{quote(Headers(scope=scope).get('host', ''))}: behind a proxy, give serve "
                   "--public-url with the address people use")
        response = (Json({"error": message}, status_code=400)
                    if scope["path"].startswith("/api/") or scope["type"] == "websocket"
                    else PlainTextResponse(message, status_code=400))
        await response(scope, receive, send)


def check_forwarded_ips(value: str | None) -> list[str] | None:
    """The trusted proxies of ``--forwarded-allow-ips`` (addresses or networks, comma
    separated; ``*`` trusts every peer, for a server only a proxy can reach).

    Raises:
        ParameterError: an entry that is not an address or a network.
    """
    if value is None:
        return None
    out = []
    for item in (v.strip() for v in value.split(",")):
        if not item:
            continue
        if item != "*":
            try:
                network = ipaddress.ip_network(item, strict=False)
            except ValueError:
                raise ParameterError(f"--forwarded-allow-ips: {item!r} is not an address or "
                                     "a network") from None
            # a network written with host bits (10.0.0.1/8) as the network it names: uvicorn
            # would take it for a name and trust no one
            if "/" in item:
                item = str(network)
        out.append(item)
    return ["*"] if "*" in out else out


def trust_forwarded(app: Any, trusted: list[str] | None = None) -> Any:
    """``app`` behind uvicorn's proxy-headers middleware when proxies are trusted: a request
    from one of them counts as from the client its ``X-Forwarded-For`` names (the job queue's
    per-client limits then hold per person, not per proxy), with its ``X-Forwarded-Proto``.
    From any other peer those headers are ignored.

    The client is the last address in ``X-Forwarded-For`` that is not a trusted proxy's. With
    ``*`` (every peer is a proxy) it is the last address, the one the proxy itself saw: a
    proxy adds that after whatever the client sent, so the client cannot choose it."""
    if not trusted:
        return app
    from uvicorn.middleware.proxy_headers import ProxyHeadersMiddleware

    inner = ProxyHeadersMiddleware(app, trusted_hosts=trusted)
    return _LastHop(inner) if trusted == ["*"] else inner


class _LastHop:
    """ASGI middleware: ``X-Forwarded-For`` cut to its last address (``trust_forwarded``)."""

    def __init__(self, app: Any) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] in ("http", "websocket"):
            values = [v for k, v in scope["headers"] if k == b"x-forwarded-for"]
            if values:
                last = b",".join(values).split(b",")[-1].strip()
                headers = [(k, v) for k, v in scope["headers"] if k != b"x-forwarded-for"]
                scope = {**scope, "headers": [*headers, (b"x-forwarded-for", last)]}
        await self.app(scope, receive, send)
