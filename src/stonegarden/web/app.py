"""The ASGI app: HTML pages, the JSON API and live updates (server-sent events).

``create_app(db)`` builds it; ``stonegarden serve`` runs it with uvicorn. See docs/web.md for
the API, the limits and the security model.
"""

from __future__ import annotations

import asyncio
import contextlib
import functools
import re
import time
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

from jinja2 import Environment, PackageLoader, select_autoescape
from starlette.applications import Starlette
from starlette.exceptions import HTTPException
from starlette.middleware import Middleware
from starlette.requests import Request
from starlette.responses import (
    FileResponse,
    HTMLResponse,
    RedirectResponse,
    Response,
    StreamingResponse,
)
from starlette.routing import Match, Mount, Route

from ..core.registry import available_games, game_class, make
from ..errors import StonegardenError, StoreError, quote
from ..jobs import JobPool, Limits
from ..sgf import decode_sgf, has_sgf_form
from ..store import open_store
from ..store.watchdog import AskingExecutor
from . import lobby, study_tools
from .http import (
    JSON,
    MAX_RECORD_BODY,
    SGF,
    ApiError,
    Json,
    OneBodyLength,
    SecurityHeaders,
    Static,
    bounded,
    client_of,
    content_type,
    declared_charset,
    error_response,
    no_query,
    query_value,
    read_body,
    read_json,
)
from .job_kinds import server_agent_docs
from .live import listed_now
from .pages import (
    DOCS,
    agent_suggestions,
    game_context,
    home_context,
    listing_words,
    rules_context,
    rules_index_context,
    stored_context,
)
from .seats import OPEN
from .service import Budgets, GameService
from .site import HostCheck, Site, StripPrefix, trust_forwarded
from .views import view_for
from .warmup import WARM_UP_KIND, EngineWarmUp

HERE = Path(__file__).resolve().parent
#: the names of the docs' pictures (a plain file name, nothing that climbs out of the folder)
_FILE_NAME = re.compile(r"[A-Za-z0-9][A-Za-z0-9_.-]{0,99}")
SSE_KEEPALIVE = 15.0
#: the methods a path with a trailing slash is redirected for (307 keeps the method and body)
SLASH_METHODS = ["GET", "HEAD", "POST", "PUT", "DELETE", "PATCH", "OPTIONS"]
#: the modules the workers import: they register the web app's job kinds
JOB_MODULES = ("stonegarden.web.job_kinds", "stonegarden.web.review_job",
               "stonegarden.web.warmup")


def create_app(db: str | Path, workers: int = 2, budgets: Budgets | None = None,
               hint_spec: str | None = None, allowed_hosts: list[str] | None = None,
               limits: Limits | None = None,
               worker_env: dict[str, str] | None = None, warm_up: bool = True,
               site: Site | None = None, forwarded_allow_ips: list[str] | None = None,
               ) -> Starlette:
    """The web app over the games store ``db`` (a SQLite file, created on demand, or
    ``postgresql://...``). Agents, hints, analysis and uploads run as jobs in ``workers``
    processes, within ``budgets`` and the queue ``limits``. ``allowed_hosts`` restricts the
    Host header (against DNS rebinding); ``None`` allows any. With ``warm_up`` every game's
    kernels are loaded (or compiled) before the first job and the first page need them
    (``web/warmup.py``). ``site``: the public URL links start with; ``forwarded_allow_ips``:
    the proxies whose ``X-Forwarded-*`` headers count.

    Raises:
        StoreError: the store cannot be used (one line naming the file and the cause).
    """
    store = open_store(db)
    budgets = budgets or Budgets()
    site = site or Site()
    templates = Environment(loader=PackageLoader("stonegarden.web", "templates"),
                            autoescape=select_autoescape(["html"]))
    templates.globals.update(url=site.path, base=site.prefix)
    state: dict[str, GameService] = {}
    engine: dict[str, EngineWarmUp] = {}

    def service() -> GameService:
        return state["service"]

    @contextlib.asynccontextmanager
    async def lifespan(app: Starlette) -> AsyncIterator[None]:
        # the threads of the store's calls (and of replays): a call's bound counts from when
        # it was asked for, its wait for a free thread included
        asyncio.get_running_loop().set_default_executor(
            AskingExecutor(thread_name_prefix="stonegarden"))
        pool = JobPool(workers, JOB_MODULES, limits, env=worker_env,
                       warm_up=WARM_UP_KIND if warm_up else None)
        await pool.start()
        warming = EngineWarmUp(pool, enabled=warm_up)
        engine["warm-up"] = warming
        svc = GameService(store, pool, budgets, hint_spec=hint_spec,
                          engine_ready=lambda: warming.ready)
        state["service"] = svc
        loop = asyncio.get_running_loop()
        # called from uvicorn's signal handler, which runs between any two steps of the loop's
        # work: the shutdown's first steps are the loop's next
        app.state.begin_shutdown = lambda: loop.call_soon_threadsafe(svc.begin_shutdown)

        def heard(what: str, gid: str) -> None:  # in the store's listening thread
            loop.call_soon_threadsafe(svc.elsewhere.changed, what, gid)

        store.listen(heard)
        await svc.keeper.start()
        warming.start()
        try:
            yield
        finally:
            warming.close()
            await svc.close()
            store.close()

    def page(name: str, status: int = 200, **ctx: Any) -> HTMLResponse:
        return HTMLResponse(templates.get_template(name).render(**ctx), status_code=status)

    # -- pages ------------------------------------------------------------------------------
    async def home(request: Request) -> HTMLResponse:
        return page("home.html", games=_games_meta(), agents=agent_suggestions(),
                    **home_context(budgets.max_think))

    async def game_page(request: Request) -> HTMLResponse:
        live = await service().load(request.path_params["gid"], client_of(request))
        # the example plays to the first decision: its kernels run (and from an empty cache
        # compile) in a thread, never on the event loop
        legend, example = await asyncio.to_thread(
            lambda: (view_for(live.game).legend(live.game), _example_move(live.game)))
        return page("game.html", gid=live.id, title=live.game.title, game_id=live.game.id,
                    legend=legend, sgf=has_sgf_form(live.game), example=example,
                    **game_context(live.game))

    async def rules_page(request: Request) -> HTMLResponse:
        gid = request.path_params["game"]
        try:
            game_class(gid)
        except StonegardenError:
            raise ApiError(404, f"no game {quote(gid)}") from None
        return page("rules.html", **rules_context(gid))

    async def rules_image(request: Request) -> Response:
        """Pictures the game docs refer to as img/... (shipped with them)."""
        name = request.path_params["name"]
        path = DOCS / "img" / name
        if not _FILE_NAME.fullmatch(name) or not path.is_file():
            raise ApiError(404, f"no picture {quote(name)}")
        return FileResponse(path)

    async def rules_index(request: Request) -> HTMLResponse:
        return page("rules_index.html", **rules_index_context())

    async def stored_page(request: Request) -> HTMLResponse:
        rows = await asyncio.to_thread(store.list_games)
        return page("stored.html", **stored_context([r.to_json() for r in rows]))

    # -- API ----------------------------------------------------------------------------------
    async def meta(request: Request) -> Json:
        return Json({"games": _games_meta(), "agents": server_agent_docs(),
                     "limits": _limits(budgets, service().jobs),
                     "client": client_of(request)})

    async def health(request: Request) -> Json:
        """For a load balancer, a container or a monitor: 200 while this process serves games
        (its database answers, in the store's bounded time), 503 while it stops or when the
        database does not answer. The engine's readiness is said, not required: games between
        people are served while it loads."""
        svc = service()
        if svc.closing:
            raise ApiError(503, "this server process is stopping")
        await asyncio.to_thread(store.get, "health-check")  # StoreError: answered 503
        return Json({"ok": True, "engine_ready": engine["warm-up"].ready,
                     "workers": svc.jobs.ready_workers()})

    async def engine_status(request: Request) -> Json:
        """Whether the kernels are loaded (the home page shows the progress)."""
        return Json(engine["warm-up"].status())

    async def list_games(request: Request) -> Json:
        """The public listing, or (``?ids=a,b``) the games named, which anyone holding their
        ids may watch anyway."""
        ids = query_value(request, "ids")
        if ids is None:
            rows = await asyncio.to_thread(store.list_games)
        else:
            # as a many-games stream's: more than 100, or one of another shape, is refused,
            # not dropped without a word
            wanted = lobby.watched_ids(ids) if ids.strip(",") else []
            rows = await asyncio.to_thread(store.list_games, lobby.MAX_WATCHED, False, wanted)
        now = time.time()
        # a public game no one joined in a week has left the lobby: "my games" says so, where
        # it said "Waiting for a player" of it for ever
        return Json({"games": [{**r.to_json(), **listing_words(r.to_json()),
                                "clock_text": lobby.clock_words(r.clock),
                                "in_lobby": listed_now(r.listed, r.seats, r.result is not None,
                                                       r.created, now)} for r in rows]})

    async def create_game(request: Request) -> Json:
        body = await read_json(request, ("game", "params", "seats", "public", "hints", "name",
                                         "seat", "clock"))
        live, keys = await service().create(body.get("game"), body.get("params", {}),
                                            body.get("seats", ["human", "human"]),
                                            client_of(request), body.get("public", False),
                                            body.get("hints", False), body.get("name"),
                                            body.get("clock"), body.get("seat"))
        return Json(_links(site, live.id, live.seats, keys), status_code=201)

    async def get_game(request: Request) -> Json:
        svc = service()
        live = await svc.load(request.path_params["gid"], client_of(request))
        seat = svc.seat_of(live, request.headers.get("x-seat-secret"))
        # its player is here (not its link checked by whoever made it for a friend): a
        # first move may be waited for from now on
        if seat is not None and request.headers.get("x-seat-present") != "0":
            await svc.arrive(live, seat)
            live = svc.live.get(live.id, live)
        out = svc.snapshot(live, query_value(request, "ply"), seat)
        # a rematch that was aborted is offered no more: a new one may be, and the page says
        # what became of the one it offered
        out["rematch"], out["rematch_aborted"], out["rematch_over"] = \
            await lobby.rematch_news(svc, live)
        return Json(out)

    def action(name: str) -> Any:
        async def handler(request: Request) -> Json:
            svc = service()
            client = client_of(request)
            live = await svc.load(request.path_params["gid"], client)
            body = await read_json(request, ("secret", "move", "ply") if name == "move"
                                   else ("secret",))
            secret = body.get("secret")
            extra: dict[str, Any] = {}
            if name == "move":
                live = await svc.play(live, secret, body.get("move"), body.get("ply"),
                                      client)
            elif name == "undo":
                await study_tools.undo(svc, live, secret)
            elif name == "redo":
                await study_tools.redo(svc, live, secret, client)
            elif name == "cancel":
                await study_tools.cancel(svc, live, secret)
            elif name == "abort":
                await svc.abort(live, secret)
            elif name == "resume":
                await study_tools.resume(svc, live, secret, client)
            elif name == "hint":
                extra["hint"] = await study_tools.hint(svc, live, secret, client)
            elif name == "seat":
                extra["seat"] = svc.require_seat(live, secret)
            out = svc.snapshot(live, None, svc.seat_of(live, secret))
            out.update(extra)
            return Json(out)

        return handler

    async def analysis(request: Request) -> Json:
        svc = service()
        no_query(request)  # /analysis?ply=3 is no point of it: the analysis is the game's
        client = client_of(request)
        live = await svc.load(request.path_params["gid"], client)
        seat = svc.seat_of(live, request.headers.get("x-seat-secret"))
        return Json(svc.reviewer.analysis(live, seat, client))

    async def request_analysis(request: Request) -> Json:
        svc = service()
        no_query(request)
        client = client_of(request)
        live = await svc.load(request.path_params["gid"], client)
        body = await read_json(request, ("secret",))
        return Json(await svc.reviewer.request(live, body.get("secret"), client), status_code=202)

    async def cancel_analysis(request: Request) -> Json:
        svc = service()
        no_query(request)
        client = client_of(request)
        live = await svc.load(request.path_params["gid"], client)
        body = await read_json(request, ("secret",))
        return Json(await svc.reviewer.cancel(live, body.get("secret"), client))

    async def record(request: Request) -> Response:
        svc = service()
        no_query(request)
        live = await svc.load(request.path_params["gid"], client_of(request))
        name = f"{live.game.id}-{live.id}.json"
        seat = svc.seat_of(live, request.headers.get("x-seat-secret"))
        return Response(svc.record(live, seat).to_json() + "\n", media_type="application/json",
                        headers=_download(name))

    async def record_sgf(request: Request) -> Response:
        svc = service()
        no_query(request)
        live = await svc.load(request.path_params["gid"], client_of(request))
        body = await svc.sgf(live)
        name = f"{live.game.id}-{live.id}.sgf"
        return Response(body, media_type="application/x-go-sgf", headers=_download(name))

    async def upload(request: Request) -> Json:
        raw = await read_body(request, MAX_RECORD_BODY, (JSON, SGF))
        sgf = content_type(request) == SGF
        try:  # an SGF file in the charset its CA[] names (GB2312, Latin-1), as convert reads it
            text = (decode_sgf(raw, "the SGF file", declared_charset(request)) if sgf
                    else raw.decode("utf-8"))
        except UnicodeDecodeError:
            raise ApiError(400, "bad record: it is not UTF-8 text") from None
        except StonegardenError as exc:
            raise ApiError(400, f"bad record: {exc}") from None
        game = query_value(request, "game")
        live, keys = await service().upload(text, sgf, client_of(request), game)
        return Json(_links(site, live.id, live.seats, keys), status_code=201)

    async def events(request: Request) -> StreamingResponse:
        svc = service()
        client = client_of(request)
        live = await svc.load(request.path_params["gid"], client)
        return lobby.updates(svc, client, live.id, budgets.streams_per_client)

    async def without_slash(request: Request) -> Response:
        """``/games/`` is ``/games`` (its query kept), linked under the prefix: starlette's own
        redirect named the server's internal address and dropped the prefix."""
        target = request.url.path.rstrip("/")
        scope = {**request.scope, "path": target}
        if not target or not any(r.matches(scope)[0] != Match.NONE for r in routes):
            raise HTTPException(404)
        query = request.url.query
        return RedirectResponse(site.path(target) + (f"?{query}" if query else ""), 307)

    # -- errors -------------------------------------------------------------------------------
    async def api_error(request: Request, exc: Exception) -> Response:
        assert isinstance(exc, ApiError)
        if request.url.path.startswith("/api/"):
            return error_response(exc.status, exc.message, exc.headers)
        return page("error.html", status=exc.status, code=exc.status,
                    message=bounded(exc.message))

    async def http_error(request: Request, exc: Exception) -> Response:
        assert isinstance(exc, HTTPException)
        headers = dict(exc.headers or {})  # a 405's Allow (the static files give none)
        if exc.status_code == 405:
            headers.setdefault("Allow", "GET, HEAD")
        if request.url.path.startswith("/api/"):
            return error_response(exc.status_code, _refusal(request, exc, headers), headers)
        answer = page("error.html", status=exc.status_code, code=exc.status_code,
                      message=str(exc.detail))
        answer.headers.update(headers)
        return answer

    async def stonegarden_error(request: Request, exc: Exception) -> Response:
        return error_response(400, str(exc))

    async def store_error(request: Request, exc: Exception) -> Response:
        if request.url.path.startswith("/api/"):
            return error_response(503, str(exc))
        return page("error.html", status=503, code=503, message=str(exc))

    async def server_error(request: Request, exc: Exception) -> Response:
        return error_response(500, f"internal error ({type(exc).__name__}); nothing was changed")

    routes = [
        Route("/", home),
        Route("/game/{gid}", game_page),
        Route("/rules/img/{name:path}", rules_image),
        Route("/rules", rules_index),
        Route("/rules/{game}", rules_page),
        Route("/games", stored_page),
        Route("/api/meta", meta),
        Route("/api/engine", engine_status),
        Route("/api/health", health),
        # one route a path, so that a 405's Allow names every method the path takes
        Route("/api/games", by_method(list_games, create_game), methods=["GET", "POST"]),
        Route("/api/records", upload, methods=["POST"]),
        Route("/api/games/{gid}", get_game),
        Route("/api/games/{gid}/analysis", by_method(analysis, request_analysis),
              methods=["GET", "POST"]),
        Route("/api/games/{gid}/analysis/cancel", cancel_analysis, methods=["POST"]),
        Route("/api/games/{gid}/record", record),
        Route("/api/games/{gid}/record.sgf", record_sgf),
        Route("/api/games/{gid}/events", events),
        *[Route(f"/api/games/{{gid}}/{name}", action(name), methods=["POST"])
          for name in ("move", "undo", "redo", "cancel", "resume", "hint", "seat",
                       "abort")],
        *lobby.routes(service, site, page),
        Mount("/static", Static(directory=HERE / "static"), name="static"),
    ]
    routes.append(Route("/{rest:path}/", without_slash, methods=SLASH_METHODS))
    middleware = [Middleware(SecurityHeaders), Middleware(OneBodyLength)]
    if forwarded_allow_ips:
        middleware.insert(0, Middleware(trust_forwarded, trusted=forwarded_allow_ips))
    if site.prefix:
        middleware.append(Middleware(StripPrefix, prefix=site.prefix))
    if allowed_hosts is not None:
        middleware.append(Middleware(HostCheck, allowed_hosts=allowed_hosts))
    app = Starlette(
        routes=routes,
        middleware=middleware,
        lifespan=lifespan,
        exception_handlers={ApiError: api_error, HTTPException: http_error,
                            StoreError: store_error, StonegardenError: stonegarden_error,
                            Exception: server_error},
    )
    app.router.redirect_slashes = False  # ``without_slash`` does it, under the prefix
    return app


def _refusal(request: Request, exc: HTTPException, headers: dict[str, str]) -> str:
    """The error of a request the routes refused, in words a client can act on (starlette's
    own were "Not Found" and "Method Not Allowed")."""
    path = quote(request.url.path)
    if exc.status_code == 404:
        return f"no API path {path}: docs/web.md lists them"
    if exc.status_code == 405:
        why = " (the server grants no cross-origin request)" if request.method == "OPTIONS" else ""
        return f"{request.method} is not a method of {path}{why}: it takes {headers['Allow']}"
    return str(exc.detail)


def by_method(get: Any, post: Any) -> Any:
    """One handler for a path that reads with ``GET`` (and ``HEAD``) and acts with ``POST``."""

    async def handler(request: Request) -> Response:
        return await (post if request.method == "POST" else get)(request)

    return handler


def _download(name: str) -> dict[str, str]:
    """The headers of a record to download: a file named ``name``, kept by no cache (it is the
    game now, and its analysis is there only for a viewer who may see it)."""
    return {"Content-Disposition": f'attachment; filename="{name}"', "Cache-Control": "no-store"}


def _example_move(game: Any) -> str:
    """A legal first move, shown as the placeholder of the move text field."""
    state = game.first_decision()
    acts = game.legal_actions(state)
    return game.action_to_text(state, int(acts[len(acts) // 2])) if len(acts) else "resign"


@functools.cache
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


def _limits(budgets: Budgets, jobs: JobPool) -> dict[str, Any]:
    """The server's bounds, for clients to show or respect."""
    return {"max_think": budgets.max_think, "hint_seconds": budgets.hint_seconds,
            "analysis_seconds": budgets.analysis_seconds, "max_moves": budgets.max_moves,
            "job_threads": budgets.job_threads,
            "max_record_bytes": MAX_RECORD_BODY, "queue": jobs.limits.queue,
            "jobs_per_client": jobs.limits.per_client,
            "games_per_client_hour": budgets.games_per_client, **jobs.describe()}


def _links(site: Site, gid: str, seats: tuple[str, str], keys: dict[str, str]
           ) -> dict[str, Any]:
    """Seat links carry the secret in the URL fragment, which browsers never send to a server
    (so it stays out of logs and Referer headers); with ``--public-url`` they are absolute. An
    open seat's secret is not given: it goes to whoever joins."""
    mine = {s: k for s, k in keys.items() if seats[int(s) - 1] != OPEN}
    return {
        "id": gid,
        "seats": list(seats),
        "links": {**{s: lobby.seat_link(site, gid, k) for s, k in mine.items()},
                  "spectator": site.link(f"/game/{gid}")},
        "secrets": mine,
    }
