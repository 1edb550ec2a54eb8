"""The one server, `mus servir`: the tournament server (its pages and the tables' API, URLs
unchanged) with the phone pages of a partida and their JSON API beside it, over one database.

Nothing that matters lives in the process: every request reads the database, so several
uvicorn workers (or servers behind a proxy) answer alike.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any, Final

from fastapi import FastAPI, Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import JSONResponse, Response
from fastapi.staticfiles import StaticFiles
from starlette.exceptions import HTTPException as StarletteHTTPException

from mesa.i18n import N_
from torneo.api import Servidor, error, error_de_validacion
from web.dependencias import texto_error
from web.lectura import Ocupado
from web.rutas import baraja, leer, mesa_dia, mesa_torneo, paginas, partidas
from web.servicio import WebError

ESTATICOS: Final = Path(__file__).resolve().parent / "static"


def crear_app(url: str, datos: Path | None = None, limite_entradas: int = 20) -> FastAPI:
    """The app over the database at ``url`` (migrated first, by the tournament server's
    ``server.db.motor``: one chain for every table); ``datos``: the data folder, when
    the database is a file in it; ``limite_entradas``: logins and join codes a minute per address."""
    app = Servidor(url, limite_entrar=limite_entradas).app
    app.state.web_sesiones = app.state.servidor.sesiones
    app.state.datos = datos
    app.include_router(partidas.router)
    app.include_router(leer.router)  # W2: POST /api/leer
    app.include_router(baraja.router)  # W2: the players' deck
    app.include_router(mesa_torneo.router)  # W3: a tournament table from a phone
    app.include_router(mesa_dia.router)  # issue 55: the table calls the referee, reads the round clock
    antes = len(app.router.routes)
    app.include_router(paginas.router)
    _primero(app, antes)  # the phone pages' home "/" before the tournament's redirect to /torneos
    app.mount("/static", StaticFiles(directory=ESTATICOS), name="static")

    @app.middleware("http")
    async def _paginas_sin_json(request: Request, call_next: Any) -> Response:
        # a refusal made before the pages' own handlers (the tournament server's rate limit, a
        # body over its limit) is JSON; on a page it becomes a page in the player's language
        resp = await call_next(request)
        if (
            request.url.path.startswith("/api/")
            or resp.status_code < 400
            or not resp.headers.get("content-type", "").startswith("application/json")
        ):
            return resp
        cuerpo = b"".join([parte async for parte in resp.body_iterator])
        try:
            texto = str(json.loads(cuerpo)["error"])
        except (ValueError, KeyError, TypeError):
            texto = N_("Algo ha fallado")
        return paginas.render(request, "error.html", resp.status_code, error=texto)

    @app.exception_handler(WebError)
    async def _web(request: Request, exc: WebError) -> Response:
        if request.url.path.startswith("/api/"):
            # the readers busy before a photo was read: the page retries after Retry-After
            espera = {"Retry-After": str(leer.REINTENTO_S)} if isinstance(exc, Ocupado) else None
            return JSONResponse({"error": texto_error(exc, request), **exc.datos}, exc.estado, headers=espera)
        return paginas.pagina_error(request, exc)

    @app.exception_handler(StarletteHTTPException)
    async def _http(request: Request, exc: StarletteHTTPException) -> Response:
        # an unknown address or method: a page (or a JSON line) in the player's language, never raw JSON
        texto = N_("esta página no existe") if exc.status_code == 404 else N_("esta petición no se admite")
        return await _web(request, WebError(texto, exc.status_code))

    @app.exception_handler(RequestValidationError)
    async def _validacion(request: Request, exc: RequestValidationError) -> Response:
        # a path or query value of the wrong type: one line naming it, as for a body
        return error(error_de_validacion(exc), request)  # type: ignore[arg-type]  # same errors()

    return app


def _primero(app: FastAPI, desde: int) -> None:
    """Move the routes registered from index ``desde`` on (one included router's, whatever
    form FastAPI keeps them in) before all the others: the first match answers."""
    rutas: list[Any] = app.router.routes
    nuevas = rutas[desde:]
    del rutas[desde:]
    rutas[:0] = nuevas
