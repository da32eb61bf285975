"""What the API routes share: reading requests within their limits, JSON answers that any
input can be written into, the client a request counts for, and the security headers."""

from __future__ import annotations

import asyncio
import difflib
import ipaddress
import json
from typing import Any

from starlette.requests import ClientDisconnect, Request
from starlette.responses import JSONResponse, Response
from starlette.staticfiles import StaticFiles
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from ..core import strict_json
from ..errors import quote

#: the largest request body accepted (a move is a few bytes; a record upload can be larger)
MAX_BODY = 64 * 1024
MAX_RECORD_BODY = 1024 * 1024
#: seconds a request's body may take to arrive, from when its head did (a 1 MiB upload at
#: 70 kbit/s): a body sent a byte now and then would hold its connection for ever
BODY_SECONDS = 120.0
JSON = "application/json"
SGF = "application/x-go-sgf"


class ApiError(Exception):
    """A refused request: HTTP ``status``, a message for the JSON body, extra headers."""

    def __init__(self, status: int, message: str, headers: dict[str, str] | None = None) -> None:
        super().__init__(message)
        self.status = status
        self.message = message
        self.headers = headers or {}

#: no script or style but the server's own files (the templates hold none inline; a
#: ``<script type="application/json">`` block is data, which a CSP does not govern; the
#: scripts size things through the DOM's style properties, which a CSP allows), no framing,
#: no plugins
CSP = ("default-src 'self'; script-src 'self'; style-src 'self'; "
       "img-src 'self' data:; connect-src 'self'; font-src 'self'; object-src 'none'; "
       "base-uri 'none'; form-action 'self'; frame-ancestors 'none'")
SECURITY_HEADERS = (
    (b"content-security-policy", CSP.encode()),
    (b"x-frame-options", b"DENY"),
    (b"x-content-type-options", b"nosniff"),
    (b"referrer-policy", b"no-referrer"),
    (b"cross-origin-opener-policy", b"same-origin"),
)


class SecurityHeaders:
    """ASGI middleware: the security headers on every answer (pages, API, files, errors)."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return

        async def send_with_headers(message: Message) -> None:
            if message["type"] == "http.response.start":
                headers = list(message.get("headers", []))
                present = {name.lower() for name, _ in headers}
                headers += [h for h in SECURITY_HEADERS if h[0] not in present]
                message = {**message, "headers": headers}
            await send(message)

        await self.app(scope, receive, send_with_headers)


class OneBodyLength:
    """ASGI middleware: a request that gives its body's length twice over, by
    ``Transfer-Encoding`` and by ``Content-Length``, is refused (400) and its connection
    closed. The server reads such a body as chunked and answered what followed on the
    connection as a request of its own: a proxy in front that went by the ``Content-Length``
    would pass a request smuggled inside the body (HTTP/1.1 asks to close the connection)."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        names = {name.lower() for name, _ in scope.get("headers", ())}
        if (scope["type"] != "http"
                or not {b"transfer-encoding", b"content-length"} <= names):
            await self.app(scope, receive, send)
            return
        await error_response(400, "a request gives its body's length once: Transfer-Encoding "
                                  "and Content-Length together are refused",
                             {"Connection": "close"})(scope, receive, send)


class Json(JSONResponse):
    """JSON in ASCII: any text (a lone surrogate quoted back in an error too) can be written.
    Never stored by a cache: an answer is the game now, and may be one seat's (its hint)."""

    def __init__(self, content: Any, status_code: int = 200,
                 headers: dict[str, str] | None = None) -> None:
        super().__init__(content, status_code, {"Cache-Control": "no-store", **(headers or {})})

    def render(self, content: Any) -> bytes:
        return json.dumps(content, ensure_ascii=True, allow_nan=False,
                          separators=(",", ":")).encode("ascii")


def client_of(request: Request) -> str:
    """The client a request counts for in the per-client limits: its IPv4 address, or the
    /64 network of an IPv6 one (a home or a host is given a whole /64, so each of its
    addresses is not another client)."""
    return client_key(request.client.host) if request.client is not None else "unknown"


def client_key(host: str) -> str:
    """``host`` as the per-client limits count it (see :func:`client_of`)."""
    try:
        address = ipaddress.ip_address(host)
    except ValueError:
        return host  # not an address (a test client's name)
    if isinstance(address, ipaddress.IPv6Address):
        if address.ipv4_mapped is not None:
            return str(address.ipv4_mapped)
        return str(ipaddress.IPv6Network((address, 64), strict=False))
    return host


def query_value(request: Request, name: str) -> str | None:
    """The query parameter ``name``, the one the request takes, given at most once (``None``
    when it is not given).

    Raises:
        ApiError: 400 when it is given more than once: which one was meant cannot be known
        (``?ids=A&ids=B`` took ``B`` alone, and answered as if ``A`` were no game); or with
        another parameter (``?plies=3`` showed the game now, as if no ply were asked for).
    """
    for key in request.query_params:
        if key != name:
            raise ApiError(400, f"unknown query parameter {quote(key)}: this request takes "
                                f"only {name!r}")
    values = request.query_params.getlist(name)
    if len(values) > 1:
        also = ", its values separated by commas" if name == "ids" else ""
        raise ApiError(400, f"{name!r} is given {len(values)} times in the query: give it "
                            f"once{also}")
    return values[0] if values else None


def no_query(request: Request) -> None:
    """Raises: ApiError 400 for any query parameter, which a request that takes none would
    otherwise ignore (``/record?ply=3`` gave the whole game, as if it were the record of the
    first three moves)."""
    for key in request.query_params:
        raise ApiError(400, f"unknown query parameter {quote(key)}: this request takes none")


def content_type(request: Request) -> str:
    """The media type of the request's body, lower case (media types ignore case)."""
    return request.headers.get("content-type", "").split(";")[0].strip().lower()


def declared_charset(request: Request) -> str | None:
    """The ``charset`` parameter of the request's ``Content-Type``, if it has one."""
    for param in request.headers.get("content-type", "").split(";")[1:]:
        name, _, value = param.partition("=")
        if name.strip().lower() == "charset" and value.strip().strip('"'):
            return value.strip().strip('"')[:40]
    return None


async def read_body(request: Request, limit: int = MAX_BODY,
                    types: tuple[str, ...] = (JSON,)) -> bytes:
    """The request body, refusing more than ``limit`` bytes before reading them all.

    Raises:
        ApiError: 415 unless the body is declared as JSON (a cross-site HTML form cannot send
        that without a CORS preflight, which this server never grants), 413 for a larger body
        (by Content-Length or by what arrives), 400 when the client goes away before it all
        arrived, 408 when it has not all arrived within ``BODY_SECONDS``.
    """
    ctype = content_type(request)
    if ctype not in types:
        raise ApiError(415, f"send Content-Type {' or '.join(types)}, not {quote(ctype)}")
    declared = request.headers.get("content-length")
    if declared is not None:
        if not (declared.isascii() and declared.isdigit()) or len(declared) > 18:
            raise ApiError(400, f"bad Content-Length {quote(declared)}")
        size = int(declared)
        if size > limit:
            raise ApiError(413, f"request body of {size} bytes is over the {limit}-byte limit")
    chunks: list[bytes] = []
    total = 0
    try:
        async with asyncio.timeout(BODY_SECONDS):
            async for chunk in request.stream():
                total += len(chunk)
                if total > limit:
                    raise ApiError(413, f"request body is over the {limit}-byte limit")
                chunks.append(chunk)
    except ClientDisconnect:  # no one hears the answer; it is not the server's fault
        raise ApiError(400, "the client went away before its request's body arrived") from None
    except TimeoutError:
        raise ApiError(408, f"the request's body did not all arrive within {BODY_SECONDS:g} s "
                            f"({total} bytes came)", {"Connection": "close"}) from None
    return b"".join(chunks)


async def read_json(request: Request, fields: tuple[str, ...],
                    limit: int = MAX_BODY) -> dict[str, Any]:
    """The body as a JSON object of the ``fields`` a request takes (each optional here: the
    handler says which it needs).

    Raises:
        ApiError: 413 too large, 400 not UTF-8 JSON (too deep, or a number of more digits than
        Python converts, included), not an object, with a field the request does not take
        (a misspelt ``"publik": true`` would otherwise make an unlisted game without a word),
        or with a key given twice in an object (which value was meant cannot be known), or a
        ``secret`` that is not text.
    """
    raw = await read_body(request, limit)
    try:  # a byte order mark (a file saved by Windows' Notepad) is read past, as a record's is
        data = strict_json.loads(raw.decode("utf-8-sig"), unique_keys=True)
    except UnicodeDecodeError as exc:  # JSON between programs is UTF-8 (RFC 8259)
        raise ApiError(400, f"the body is not UTF-8 text (byte 0x{raw[exc.start]:02x} at offset "
                            f"{exc.start}): send JSON in UTF-8") from None
    except strict_json.DuplicateKey as exc:  # ``{"move": "a1", "move": "b2"}`` played b2
        raise ApiError(400, f"the body gives {quote(exc.key, 60)} twice: give each field once "
                            "(which one was meant cannot be known)") from None
    except RecursionError:  # Python's words would be "maximum recursion depth exceeded"
        raise ApiError(400, "the body nests arrays or objects too deeply for this server: no "
                            "request needs more than a few levels") from None
    except ValueError as exc:
        raise ApiError(400, f"the body is not valid JSON: {exc}"[:300]) from None
    if not isinstance(data, dict):
        raise ApiError(400, f"the body must be a JSON object, not {strict_json.kind(data)}")
    for key in data:
        if key not in fields:
            raise ApiError(400, unknown_field(key, fields))
    # a seat's secret of another type is a malformed request, not a wrong secret (403)
    if "secret" in data and data["secret"] is not None and not isinstance(data["secret"], str):
        raise ApiError(400, f"'secret' must be text (a seat's secret, from its link), not "
                            f"{strict_json.kind(data['secret'])}")
    return data


def unknown_field(key: str, fields: tuple[str, ...]) -> str:
    """The message for a field a request does not take: the closest one it does, if any,
    and all of them."""
    close = difflib.get_close_matches(key.lower(), fields, n=1)
    hint = f" (did you mean {close[0]!r}?)" if close else ""
    takes = ", ".join(fields) if fields else "no fields"
    return f"unknown field {quote(key)}{hint}: this request takes {takes}"


def error_response(status: int, message: str, headers: dict[str, str] | None = None) -> Json:
    return Json({"error": bounded(message)}, status_code=status, headers=headers)


#: the most characters of an error message
MAX_ERROR = 1000


def bounded(message: str) -> str:
    """``message`` cut to ``MAX_ERROR`` characters: its start and its end, where what was
    refused and why are said, around what it quotes of a client's input (a property of an
    uploaded SGF file can be a megabyte long, and was answered back twice)."""
    if len(message) <= MAX_ERROR:
        return message
    return f"{message[:MAX_ERROR * 2 // 3]} ... {message[-(MAX_ERROR // 3 - 5):]}"


class Static(StaticFiles):
    """The scripts, the style and the icon, asked for again on each use (``no-cache``: a 304
    while the ETag still matches), so that a browser never runs an old script against a
    server updated since, as a cache's own guess from the file's age would have it do."""

    def file_response(self, *args: Any, **kwargs: Any) -> Response:
        response = super().file_response(*args, **kwargs)
        response.headers.setdefault("Cache-Control", "no-cache")
        return response
