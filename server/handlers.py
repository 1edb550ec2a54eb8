"""The one place where errors become HTTP: a :class:`server.errores.ServidorError` raised by a
service, an unknown address or method, a value of the wrong type in a path, query or body.

Under ``/api/`` the answer is JSON, ``{"error": line}`` in the request's language with the
error's extra keys (and ``Retry-After`` for a refusal that asks to wait); everywhere else it is
a page in the reader's language (the app's ``pagina_error``), and a tournament page that needs
a login sends a browser without one to the login page.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Final

from fastapi import FastAPI, Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import JSONResponse, RedirectResponse, Response
from starlette.exceptions import HTTPException as StarletteHTTPException

from mesa.i18n import N_
from server.deps import lang
from server.errores import ServidorError
from server.esquemas import error_de_validacion
from server.seguridad import token_csrf
from torneo.formato import FormatoError

# an error's page: (request, its line in the request's language, HTTP status) -> the page
PaginaError = Callable[[Request, str, int], Response]
# the pages a login opens: a browser asking one without a login goes to the login page
PAGINAS_CON_LOGIN: Final = ("/torneos", "/cuenta", "/invitaciones")


def es_api(request: Request) -> bool:
    return request.url.path.startswith("/api/")


def responder(exc: ServidorError, request: Request) -> Response:
    """JSON under /api/, a page everywhere else (see the module's docstring)."""
    idioma = lang(request)
    cabeceras = {"Retry-After": str(exc.reintento)} if exc.reintento is not None else None
    if es_api(request):
        return JSONResponse({"error": exc.linea(idioma), **exc.datos}, exc.estado, headers=cabeceras)
    if exc.estado == 401 and request.url.path.startswith(PAGINAS_CON_LOGIN):
        return RedirectResponse(f"/entrar?lang={idioma}", status_code=303)
    token_csrf(request)  # a refused form's page gives the browser a form token for its next try
    pagina: PaginaError = request.app.state.pagina_error
    resp = pagina(request, exc.linea(idioma), exc.estado)
    if cabeceras:
        resp.headers.update(cabeceras)
    return resp


def instalar(app: FastAPI, pagina_error: PaginaError) -> None:
    """The app's exception handlers, its errors' pages made by ``pagina_error`` (a later call,
    as `mus servir` makes over the tournament server, only changes the pages)."""
    app.state.pagina_error = pagina_error

    @app.exception_handler(ServidorError)
    async def _servidor(request: Request, exc: ServidorError) -> Response:
        return responder(exc, request)

    @app.exception_handler(FormatoError)
    async def _formato(request: Request, exc: FormatoError) -> Response:
        return responder(ServidorError.de(exc), request)

    @app.exception_handler(StarletteHTTPException)
    async def _http(request: Request, exc: StarletteHTTPException) -> Response:
        if exc.status_code == 405:
            return responder(ServidorError(N_("método no admitido"), 405), request)
        return responder(ServidorError(N_("no existe esa página"), exc.status_code), request)

    @app.exception_handler(RequestValidationError)
    async def _validacion(request: Request, exc: RequestValidationError) -> Response:
        # a path that is not a number (/torneos/abc) is a page that does not exist; a query or
        # body value of the wrong type, one line naming it
        if any(e.get("loc", ("",))[0] == "path" for e in exc.errors()):
            return responder(ServidorError(N_("no existe esa página"), 404), request)
        return responder(error_de_validacion(exc), request)  # type: ignore[arg-type]  # same errors()
