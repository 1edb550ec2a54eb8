"""The HTTP server: a FastAPI app over one database, its API in one APIRouter per resource
(torneo/rutas), the organiser's pages beside it (torneo/paginas).

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
from fastapi.exceptions import RequestValidationError
from fastapi.openapi.utils import get_openapi
from fastapi.responses import JSONResponse, RedirectResponse, Response
from starlette.exceptions import HTTPException as StarletteHTTPException

from scoring.inputs import excerpt
from torneo import formato as fm
from torneo import servicio, vistas
from torneo.dependencias import CUERPOS
from torneo.estado import Estado
from torneo.i18n import idioma_de, mensaje
from torneo.modelos import _VALIDACION, Estricto, TorneoIn, error_de_validacion  # noqa: F401 (callers import these here)
from torneo.paginas import pagina_error, rutas_paginas
from torneo.resumen import a_csv, celda  # noqa: F401 (the same)
from torneo.rutas import dia, informes, mesa, sesion, torneos
from torneo.seguridad import Seguridad


def texto_error(exc: servicio.ServicioError, lang: str) -> str:
    return excerpt(" ".join(mensaje(exc.mensaje, exc.params, lang).split()), 280)


def error(exc: servicio.ServicioError, request: Request) -> JSONResponse:
    """The JSON the clients read: ``error`` (one line in the request's language) and any data."""
    return JSONResponse({"error": texto_error(exc, idioma_de(request)), **exc.datos}, status_code=exc.estado)


def responder_error(exc: servicio.ServicioError, request: Request) -> Response:
    """JSON under /api/, a page in the reader's language everywhere else (a page that needs a
    login sends a browser without one to the login page)."""
    if request.url.path.startswith("/api/"):
        return error(exc, request)
    if exc.estado == 401:
        return RedirectResponse(f"/entrar?lang={idioma_de(request)}", status_code=303)
    return pagina_error(request, texto_error(exc, idioma_de(request)), exc.estado)


class Servidor(Estado):
    """The server's state (torneo.estado.Estado) and ``app``, the ASGI application."""

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
        for router in (dia.router, dia.paginas):  # the day's running (issue 55)
            app.include_router(router)
        _errores(app)

        @app.middleware("http")
        async def _limite(request: Request, call_next: Any) -> Response:
            # per client address only: a fresh token on each request escapes nothing
            if not self.limite_general.permitir(self.direccion(request)):
                return responder_error(servicio.ServicioError("demasiadas peticiones: espera un momento", 429), request)
            return await call_next(request)

        rutas_paginas(app, self)
        app.add_middleware(Seguridad, responder=responder_error)  # forms and origins (torneo.seguridad)
        app.openapi = lambda: _openapi(app)  # type: ignore[method-assign]
        return app


def _errores(app: FastAPI) -> None:
    @app.exception_handler(servicio.ServicioError)
    async def _servicio(request: Request, exc: servicio.ServicioError) -> Response:
        return responder_error(exc, request)

    @app.exception_handler(fm.FormatoError)
    async def _formato(request: Request, exc: fm.FormatoError) -> Response:
        return responder_error(servicio.ServicioError(str(exc)), request)

    @app.exception_handler(StarletteHTTPException)
    async def _http(request: Request, exc: StarletteHTTPException) -> Response:
        if exc.status_code == 405:
            return responder_error(servicio.ServicioError("método no admitido", 405), request)
        return responder_error(servicio.ServicioError("no existe esa página", exc.status_code), request)

    @app.exception_handler(RequestValidationError)
    async def _validacion(request: Request, exc: RequestValidationError) -> Response:
        # a path that is not a number (/torneos/abc) is a page that does not exist
        if any(e.get("loc", ("",))[0] == "path" for e in exc.errors()):
            return responder_error(servicio.ServicioError("no existe esa página", 404), request)
        return responder_error(
            servicio.ServicioError("campo {campo}: valor no válido", campo=".".join(map(str, exc.errors()[0]["loc"]))),
            request,
        )


def _openapi(app: FastAPI) -> dict[str, Any]:
    """FastAPI's schema, with the body models the routes read themselves (torneo.dependencias.cuerpo)."""
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
