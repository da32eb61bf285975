"""The ASGI app: HTML pages, the JSON API and live updates (server-sent events).

``create_app(db_path)`` builds it; ``stonegarden serve`` runs it with uvicorn. See docs/web.md
for the API and the security model.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import AsyncIterator, Callable
from concurrent.futures import Executor
from pathlib import Path
from typing import Any

from jinja2 import Environment, PackageLoader, select_autoescape
from starlette.applications import Starlette
from starlette.exceptions import HTTPException
from starlette.middleware import Middleware
from starlette.middleware.trustedhost import TrustedHostMiddleware
from starlette.requests import Request
from starlette.responses import HTMLResponse, JSONResponse, Response, StreamingResponse
from starlette.routing import Mount, Route
from starlette.staticfiles import StaticFiles

from ..agents.registry import agent_names
from ..core.record import parse_record
from ..core.registry import available_games, game_class, make
from ..errors import StonegardenError
from ..sgf import record_to_sgf, sgf_to_record
from . import ai
from .http import JSON, MAX_RECORD_BODY, SGF, error_response, read_body, read_json
from .pages import (
    DOCS,
    game_context,
    home_context,
    rules_context,
    rules_index_context,
    stored_context,
)
from .service import ApiError, GameService, StopSlots, new_pool
from .storage import Store
from .views import view_for

HERE = Path(__file__).resolve().parent
SSE_KEEPALIVE = 15.0


def create_app(db_path: str | Path, workers: int = 2, ai_timeout: float = 120.0,
               hint_spec: str | None = None,
               pool_factory: Callable[[], Executor] | None = None,
               allowed_hosts: list[str] | None = None) -> Starlette:
    """The web app over the SQLite database at ``db_path`` (created on demand). The agents
    think in ``workers`` processes (``pool_factory`` replaces that pool, for tests).
    ``allowed_hosts`` restricts the Host header (against DNS rebinding); ``None`` allows any."""
    store = Store(db_path)
    templates = Environment(loader=PackageLoader("stonegarden.web", "templates"),
                            autoescape=select_autoescape(["html"]))
    state: dict[str, GameService] = {}

    def service() -> GameService:
        return state["service"]

    @contextlib.asynccontextmanager
    async def lifespan(app: Starlette) -> AsyncIterator[None]:
        slots = None if pool_factory else StopSlots()
        pool = pool_factory() if pool_factory else new_pool(workers, slots)
        svc = GameService(store, pool, ai_timeout=ai_timeout, hint_spec=hint_spec, slots=slots)
        state["service"] = svc
        if pool_factory is None:
            pool.submit(ai.warm_up)
        svc.resume_all()
        try:
            yield
        finally:
            svc.closing = True
            for live in svc.live.values():
                svc.stop_agent(live)
            pool.shutdown(wait=False, cancel_futures=True)

    def page(name: str, status: int = 200, **ctx: Any) -> HTMLResponse:
        return HTMLResponse(templates.get_template(name).render(**ctx), status_code=status)

    # -- pages ------------------------------------------------------------------------------
    async def home(request: Request) -> HTMLResponse:
        return page("home.html", games=_games_meta(), agents=agent_names(), **home_context())

    async def game_page(request: Request) -> HTMLResponse:
        live = service().get(request.path_params["gid"])
        legend = view_for(live.game).legend(live.game)
        return page("game.html", gid=live.id, title=live.game.title, game_id=live.game.id,
                    legend=legend, sgf=view_for(live.game).kind == "point",
                    example=_example_move(live.game), **game_context(live.game))

    async def rules_page(request: Request) -> HTMLResponse:
        gid = request.path_params["game"]
        try:
            game_class(gid)
        except StonegardenError:
            raise ApiError(404, f"no game {gid!r}") from None
        return page("rules.html", **rules_context(gid))

    async def rules_index(request: Request) -> HTMLResponse:
        return page("rules_index.html", **rules_index_context())

    async def stored_page(request: Request) -> HTMLResponse:
        rows = store.list_games()
        return page("stored.html", **stored_context([service().summary(r) for r in rows]))

    # -- API ----------------------------------------------------------------------------------
    async def meta(request: Request) -> JSONResponse:
        return JSONResponse({"games": _games_meta(), "agents": agent_names()})

    async def list_games(request: Request) -> JSONResponse:
        return JSONResponse({"games": [service().summary(r) for r in store.list_games()]})

    async def create_game(request: Request) -> JSONResponse:
        body = await read_json(request)
        live, keys = service().create(body.get("game"), body.get("params", {}),
                                      body.get("seats", ["human", "human"]))
        return JSONResponse(_links(live.id, live.seats, keys), status_code=201)

    async def get_game(request: Request) -> JSONResponse:
        svc = service()
        live = svc.get(request.path_params["gid"])
        seat = svc.seat_of(live, request.headers.get("x-seat-secret"))
        return JSONResponse(svc.snapshot(live, request.query_params.get("ply"), seat))

    def action(name: str) -> Any:
        async def handler(request: Request) -> JSONResponse:
            svc = service()
            live = svc.get(request.path_params["gid"])
            body = await read_json(request)
            secret = body.get("secret")
            extra: dict[str, Any] = {}
            if name == "move":
                svc.play(live, secret, body.get("move"), body.get("ply"))
            elif name == "undo":
                svc.undo(live, secret)
            elif name == "redo":
                svc.redo(live, secret)
            elif name == "cancel":
                svc.cancel(live, secret)
            elif name == "resume":
                svc.resume(live, secret)
            elif name == "hint":
                extra["hint"] = await svc.hint(live, secret)
            elif name == "seat":
                extra["seat"] = svc.require_seat(live, secret)
            out = svc.snapshot(live, None, svc.seat_of(live, secret))
            out.update(extra)
            return JSONResponse(out)

        return handler

    async def analysis(request: Request) -> JSONResponse:
        svc = service()
        return JSONResponse(await svc.analysis(svc.get(request.path_params["gid"])))

    async def record(request: Request) -> Response:
        svc = service()
        live = svc.get(request.path_params["gid"])
        name = f"{live.game.id}-{live.id}.json"
        return Response(svc.record(live).to_json() + "\n", media_type="application/json",
                        headers={"Content-Disposition": f'attachment; filename="{name}"'})

    async def record_sgf(request: Request) -> Response:
        svc = service()
        live = svc.get(request.path_params["gid"])
        try:
            body = record_to_sgf(svc.record(live), source=f"game {live.id}")
        except StonegardenError as exc:
            raise ApiError(404, str(exc)) from None
        name = f"{live.game.id}-{live.id}.sgf"
        return Response(body, media_type="application/x-go-sgf",
                        headers={"Content-Disposition": f'attachment; filename="{name}"'})

    async def upload(request: Request) -> JSONResponse:
        raw = await read_body(request, MAX_RECORD_BODY, (JSON, SGF))
        try:
            if request.headers.get("content-type", "").startswith(SGF):
                try:
                    text = raw.decode("utf-8")
                except UnicodeDecodeError:
                    raise ApiError(400, "bad record: SGF is not UTF-8 text") from None
                record = sgf_to_record(text, source="upload")
            else:
                record = parse_record(raw)
            live, keys = service().upload(record)
        except StonegardenError as exc:
            raise ApiError(400, f"bad record: {exc}") from None
        return JSONResponse(_links(live.id, live.seats, keys), status_code=201)

    async def events(request: Request) -> StreamingResponse:
        svc = service()
        live = svc.get(request.path_params["gid"])
        queue = svc.hub.subscribe(live.id)

        async def stream() -> AsyncIterator[str]:
            try:
                yield f"event: update\ndata: {svc.hub.versions.get(live.id, 0)}\n\n"
                while not getattr(svc, "closing", False):
                    try:
                        v = await asyncio.wait_for(queue.get(), SSE_KEEPALIVE)
                    except TimeoutError:
                        yield ": keep-alive\n\n"
                        continue
                    yield f"event: update\ndata: {v}\n\n"
            finally:
                svc.hub.unsubscribe(live.id, queue)

        return StreamingResponse(stream(), media_type="text/event-stream",
                                 headers={"Cache-Control": "no-store",
                                          "X-Accel-Buffering": "no"})

    # -- errors -------------------------------------------------------------------------------
    async def api_error(request: Request, exc: Exception) -> Response:
        assert isinstance(exc, ApiError)
        if request.url.path.startswith("/api/"):
            return error_response(exc.status, exc.message)
        return page("error.html", status=exc.status, code=exc.status, message=exc.message)

    async def http_error(request: Request, exc: Exception) -> Response:
        assert isinstance(exc, HTTPException)
        if request.url.path.startswith("/api/"):
            return error_response(exc.status_code, str(exc.detail))
        return page("error.html", status=exc.status_code, code=exc.status_code,
                    message=str(exc.detail))

    async def stonegarden_error(request: Request, exc: Exception) -> Response:
        return error_response(400, str(exc))

    async def server_error(request: Request, exc: Exception) -> Response:
        return error_response(500, f"internal error ({type(exc).__name__}); nothing was changed")

    routes = [
        Route("/", home),
        Route("/game/{gid}", game_page),
        # pictures the game docs refer to as img/... (present in a source checkout)
        Mount("/rules/img", StaticFiles(directory=DOCS / "img", check_dir=False), name="docimg"),
        Route("/rules", rules_index),
        Route("/rules/{game}", rules_page),
        Route("/games", stored_page),
        Route("/api/meta", meta),
        Route("/api/games", list_games, methods=["GET"]),
        Route("/api/games", create_game, methods=["POST"]),
        Route("/api/records", upload, methods=["POST"]),
        Route("/api/games/{gid}", get_game),
        Route("/api/games/{gid}/analysis", analysis),
        Route("/api/games/{gid}/record", record),
        Route("/api/games/{gid}/record.sgf", record_sgf),
        Route("/api/games/{gid}/events", events),
        *[Route(f"/api/games/{{gid}}/{name}", action(name), methods=["POST"])
          for name in ("move", "undo", "redo", "cancel", "resume", "hint", "seat")],
        Mount("/static", StaticFiles(directory=HERE / "static"), name="static"),
    ]
    middleware = []
    if allowed_hosts is not None:
        middleware.append(Middleware(TrustedHostMiddleware, allowed_hosts=allowed_hosts))
    return Starlette(
        routes=routes,
        middleware=middleware,
        lifespan=lifespan,
        exception_handlers={ApiError: api_error, HTTPException: http_error,
                            StonegardenError: stonegarden_error, Exception: server_error},
    )


def _example_move(game: Any) -> str:
    """A legal first move, shown as the placeholder of the move text field."""
    state = game.initial_state()
    while game.current_player(state) == 0 and not game.is_terminal(state):
        state = game.play(state, game.chance_outcomes(state)[0][0])
    acts = game.legal_actions(state)
    return game.action_to_text(state, int(acts[len(acts) // 2])) if len(acts) else "resign"


def _games_meta() -> list[dict[str, Any]]:
    out = []
    for gid in available_games():
        cls = game_class(gid)
        default = make(gid)
        out.append({
            "id": gid,
            "title": cls.title,
            "params": [{"name": p.name, "kind": p.kind, "doc": p.doc,
                        "default": p.to_json(default.params[p.name]), "low": p.low,
                        "derived": p.default is None,
                        "high": p.high, "choices": list(p.choices)} for p in cls.param_specs],
        })
    return out


def _links(gid: str, seats: tuple[str, str], keys: dict[str, str]) -> dict[str, Any]:
    """Seat links carry the secret in the URL fragment, which browsers never send to a server
    (so it stays out of logs and Referer headers)."""
    return {
        "id": gid,
        "seats": list(seats),
        "links": {
            "1": f"/game/{gid}#key={keys['1']}",
            "2": f"/game/{gid}#key={keys['2']}",
            "spectator": f"/game/{gid}",
        },
        "secrets": keys,
    }
