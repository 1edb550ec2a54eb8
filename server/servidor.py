"""The HTTP server: a FastAPI app over one database, its API in one APIRouter per resource
(server/rutas), the organiser's pages beside it (torneo/paginas).

JSON bodies are read through scoring.inputs.parse_json (the limits of `mus tanteo`: depth,
number size, printable text), then checked by pydantic models (torneo/modelos); a request body
larger than its limit is refused before it is read whole, and a route's login or table token is
checked before its body is read. Each client address has a rate limit. Every API error is one
line in ``{"error": ...}`` in the request's language; every page error is a page. The OpenAPI
schema is served at /api/openapi.json.
"""

from __future__ import annotations

from collections.abc import Collection
from typing import Any

from fastapi import FastAPI, Request
from fastapi.concurrency import run_in_threadpool
from fastapi.openapi.utils import get_openapi
from fastapi.responses import Response

from mesa.i18n import N_
from server.deps import CUERPOS
from server.errores import ServidorError
from server.esquemas import _VALIDACION, Estricto, TorneoIn, error_de_validacion  # noqa: F401 (callers import these here)
from server.estado import Estado
from server.handlers import instalar, responder
from server.rutas import dia, informes, mesa, sesion, torneos, vistas
from server.rutas.paginas_torneo import pagina_error, rutas_paginas
from server.seguridad import Seguridad
from server.servicios.resumen import a_csv, celda  # noqa: F401 (the same)


class Servidor(Estado):
    """The server's state (server.estado.Estado) and ``app``, the ASGI application."""

    def __init__(
        self,
        url: str,
        limite_mesa: int = 120,
        limite_entrar: int = 10,
        limite_unirse: int | None = None,
        limite_general: int | None = None,
        proxies: Collection[str] = (),
    ) -> None:
        super().__init__(url, limite_mesa, limite_entrar, limite_unirse, limite_general, proxies)
        self.app = self._app()

    def _app(self) -> FastAPI:
        app = FastAPI(title="musmesa torneo", docs_url=None, redoc_url=None, openapi_url="/api/openapi.json")
        app.state.servidor = self
        for router in (sesion.router, torneos.router, torneos.perfiles, informes.router, mesa.router, vistas.router):
            app.include_router(router)
        for router in (dia.router, dia.paginas):  # the day's running: the referee's calls, the round clock
            app.include_router(router)
        instalar(app, pagina_error)  # server.handlers: the one place errors become HTTP

        @app.middleware("http")
        async def _limite(request: Request, call_next: Any) -> Response:
            # per client address only: a fresh token on each request escapes nothing
            permitida = await run_in_threadpool(self.contadores.permitir, self.limite_general, self.direccion(request))
            if not permitida:
                return responder(ServidorError(N_("demasiadas peticiones: espera un momento"), 429), request)
            return await call_next(request)

        rutas_paginas(app, self)
        app.add_middleware(Seguridad, responder=responder)  # forms and origins (server.seguridad)
        app.openapi = lambda: _openapi(app)  # type: ignore[method-assign]
        return app


def _openapi(app: FastAPI) -> dict[str, Any]:
    """FastAPI's schema, with the body models the routes read themselves (server.deps.cuerpo)."""
    if app.openapi_schema is None:
        schema = get_openapi(title=app.title, version="1", routes=app.routes)
        componentes = schema.setdefault("components", {}).setdefault("schemas", {})
        for model in CUERPOS:
            js = model.model_json_schema(ref_template="#/components/schemas/{model}")
            componentes.update(js.pop("$defs", {}))
            componentes[model.__name__] = js
        app.openapi_schema = schema
    return app.openapi_schema


def crear_app(url: str) -> FastAPI:
    return Servidor(url).app
