"""What every route takes by ``Depends``, once for the whole server: the request's language,
the database session, the server's state, the logged-in account (and its role in the route's
tournament), a table's token, the rate limits and a JSON body read within its limits.

A route lists the login (or the token) before its body, so credentials are checked before any
body is read.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Iterator
from contextlib import AbstractContextManager, contextmanager
from dataclasses import dataclass
from typing import Annotated, Any, Final, TypeVar

from fastapi import Depends, Request
from pydantic import BaseModel
from sqlalchemy.orm import Session, sessionmaker

from mesa.i18n import IDIOMAS, N_, SOURCE
from server.errores import ServidorError
from server.esquemas import LIMITE_CUERPO
from server.estado import Estado
from server.modelos.torneo import Cuenta
from server.servicios import auth
from server.servicios import torneos as servicio

M = TypeVar("M", bound=BaseModel)
COOKIE_IDIOMA: Final = "lang"  # the language switch of the phone pages, remembered by the browser
CUERPOS: list[type[BaseModel]] = []  # every body model read by `cuerpo`, for the OpenAPI schema

# -- the language -------------------------------------------------------------------------------


def elegir_idioma(elegido: str | None, accept: str | None) -> str:
    """``elegido`` if it is one we have, else the first of Accept-Language we have, else Spanish.

    >>> elegir_idioma("eu", "en-GB,en;q=0.8"), elegir_idioma(None, "en-GB,en;q=0.8"), elegir_idioma("fr", "fr")
    ('eu', 'en', 'es')
    """
    if elegido in IDIOMAS:
        return elegido
    for part in (accept or "").split(","):
        code = part.split(";")[0].strip().lower()[:2]
        if code in IDIOMAS:
            return code
    return SOURCE


def lang(request: Request) -> str:
    """A request's language, pages and API alike: ``?lang=``, else the language switch's cookie,
    else Accept-Language, else Spanish."""
    elegido = request.query_params.get("lang") or request.cookies.get(COOKIE_IDIOMA)
    return elegir_idioma(elegido, request.headers.get("accept-language"))


Idioma = Annotated[str, Depends(lang)]

# -- the database -------------------------------------------------------------------------------


def _sesiones(request: Request) -> sessionmaker[Session]:
    return request.app.state.web_sesiones


def sesion(request: Request) -> Iterator[Session]:
    """One transaction for the request: committed when it answers, rolled back on an error."""
    with _sesiones(request)() as s, s.begin():
        yield s


# what a route takes: the transaction commits before the answer leaves ("function" scope; by
# default FastAPI would end it after the answer, so a phone could be told of a hand a kill -9 loses,
# or read its own last step back stale)
Sesion = Annotated[Session, Depends(sesion, scope="function")]


def sesiones(request: Request) -> Callable[[], AbstractContextManager[Session]]:
    """For a service that needs more than one transaction (a confirm that lost a race)."""
    fabrica = _sesiones(request)

    @contextmanager
    def abrir() -> Iterator[Session]:
        with fabrica() as s, s.begin():
            yield s

    return abrir


Sesiones = Annotated[Callable[[], AbstractContextManager[Session]], Depends(sesiones)]


def estado(request: Request) -> Estado:
    """The server's state (server.estado.Estado): its engine, limits and body reader."""
    srv: Estado = request.app.state.servidor
    return srv


Servidor = Annotated[Estado, Depends(estado)]

# -- who asks -----------------------------------------------------------------------------------


def cuenta_actual(request: Request, srv: Servidor) -> Cuenta:
    """The account of the request's login token (header or cookie), or 401."""
    with srv.sesion() as s:
        return auth.cuenta_del_token(s, auth.token_de(request))


CuentaActual = Annotated[Cuenta, Depends(cuenta_actual)]


def organizador(cuenta: CuentaActual) -> Cuenta:
    if cuenta.rol != "organizador":
        raise ServidorError(N_("solo un organizador puede hacer esto"), 403)
    return cuenta


Organizador = Annotated[Cuenta, Depends(organizador)]


@dataclass(frozen=True)
class Permiso:
    """A logged-in account and its role in the route's tournament (server.modelos.torneo.Miembro)."""

    cuenta: Cuenta
    torneo_id: int
    rol: str


def miembro(torneo_id: int, cuenta: CuentaActual, srv: Servidor) -> Permiso:
    """The account's role in ``torneo_id``; 404 when it is no member (as if it did not exist)."""
    with srv.sesion() as s:
        return Permiso(cuenta, torneo_id, servicio.rol_en(s, torneo_id, cuenta))


Miembro = Annotated[Permiso, Depends(miembro)]


def organizador_del_torneo(permiso: Miembro) -> Permiso:
    """One of the tournament's organisers (its creator or a co-organiser); 403 for a referee."""
    if permiso.rol != "organizador":
        raise ServidorError(N_("solo un organizador del torneo puede hacer esto"), 403)
    return permiso


OrganizadorTorneo = Annotated[Permiso, Depends(organizador_del_torneo)]


def token_mesa(request: Request, srv: Servidor) -> str:
    """The table's token, within the table's own rate limit."""
    token = auth.token_de(request)
    if not token:
        raise ServidorError(N_("falta el token de la mesa"), 401)
    srv.limitar(srv.limite_mesa, request, "mesa:" + servicio.huella(token))
    return token


TokenMesa = Annotated[str, Depends(token_mesa)]


def limite_entrar(request: Request, srv: Servidor) -> None:
    srv.limitar(srv.limite_entrar, request)


def limite_unirse(request: Request, srv: Servidor) -> None:
    srv.limitar(srv.limite_unirse, request)


# -- the body -----------------------------------------------------------------------------------


def cuerpo(model: type[M], limite: int = LIMITE_CUERPO) -> Callable[..., Awaitable[M]]:
    """A dependency that reads the JSON body as ``model``: a size ceiling, `mus tanteo`'s JSON
    limits, then the model's strict checks (a clear line naming the field)."""
    CUERPOS.append(model)

    async def leer(request: Request, srv: Servidor) -> M:
        return await srv.leer(request, model, limite)

    return leer


def documentar(model: type[BaseModel]) -> dict[str, Any]:
    """The OpenAPI ``requestBody`` of a body read by ``cuerpo`` (FastAPI sees no body parameter)."""
    return {
        "requestBody": {
            "required": True,
            "content": {"application/json": {"schema": {"$ref": f"#/components/schemas/{model.__name__}"}}},
        }
    }
