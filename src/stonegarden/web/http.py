"""Request reading and error responses shared by the API routes."""

from __future__ import annotations

import json
from typing import Any

from starlette.requests import Request
from starlette.responses import JSONResponse

from .service import ApiError

#: the largest request body accepted (a move is a few bytes; a record upload can be larger)
MAX_BODY = 64 * 1024
MAX_RECORD_BODY = 1024 * 1024
JSON = "application/json"
SGF = "application/x-go-sgf"


async def read_body(request: Request, limit: int = MAX_BODY,
                    types: tuple[str, ...] = (JSON,)) -> bytes:
    """The request body, refusing more than ``limit`` bytes before reading them all.

    Raises:
        ApiError: 415 unless the body is declared as JSON (a cross-site HTML form cannot send
        that without a CORS preflight, which this server never grants), 413 for a larger body
        (by Content-Length or by what arrives).
    """
    ctype = request.headers.get("content-type", "").split(";")[0].strip().lower()
    if ctype not in types:
        raise ApiError(415, f"send Content-Type {' or '.join(types)}, not {ctype!r}")
    declared = request.headers.get("content-length")
    if declared is not None:
        try:
            size = int(declared)
        except ValueError:
            raise ApiError(400, f"bad Content-Length {declared!r}") from None
        if size > limit:
            raise ApiError(413, f"request body of {size} bytes is over the {limit}-byte limit")
    chunks: list[bytes] = []
    total = 0
    async for chunk in request.stream():
        total += len(chunk)
        if total > limit:
            raise ApiError(413, f"request body is over the {limit}-byte limit")
        chunks.append(chunk)
    return b"".join(chunks)


async def read_json(request: Request, limit: int = MAX_BODY) -> dict[str, Any]:
    """The body as a JSON object.

    Raises:
        ApiError: 413 too large, 400 not UTF-8 JSON or not an object.
    """
    raw = await read_body(request, limit)
    try:
        data = json.loads(raw.decode("utf-8"))
    except (UnicodeDecodeError, json.JSONDecodeError, RecursionError) as exc:
        raise ApiError(400, f"the body is not valid JSON: {exc}"[:300]) from None
    if not isinstance(data, dict):
        raise ApiError(400, f"the body must be a JSON object, not {type(data).__name__}")
    return data


def error_response(status: int, message: str) -> JSONResponse:
    return JSONResponse({"error": message}, status_code=status)
