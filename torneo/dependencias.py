"""The routes' dependencies (FastAPI ``Depends``): the server's state, the logged-in account,
the table's token, the rate limits and the body read within its limits. A route lists the
login (or the token) before its body, so credentials are checked before any body is read."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import Annotated, Any, TypeVar

from fastapi import Depends, Request
from pydantic import BaseModel

from torneo import auth, servicio
from torneo.db import Cuenta
from torneo.estado import Estado
from torneo.modelos import LIMITE_CUERPO

M = TypeVar("M", bound=BaseModel)
CUERPOS: list[type[BaseModel]] = []  # every body model, for the OpenAPI schema


def estado(request: Request) -> Estado:
    srv: Estado = request.app.state.servidor
    return srv


Servidor = Annotated[Estado, Depends(estado)]


def cuenta_actual(request: Request, srv: Servidor) -> Cuenta:
    """The account of the request's login token (header or cookie), or 401."""
    with srv.sesion() as s:
        return auth.cuenta_del_token(s, auth.token_de(request))


CuentaActual = Annotated[Cuenta, Depends(cuenta_actual)]


def organizador(cuenta: CuentaActual) -> Cuenta:
    if cuenta.rol != "organizador":
        raise servicio.ServicioError("solo un organizador puede hacer esto", 403)
    return cuenta


Organizador = Annotated[Cuenta, Depends(organizador)]


@dataclass(frozen=True)
class Permiso:
    """A logged-in account and its role in the route's tournament (torneo.db.Miembro)."""

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
        raise servicio.ServicioError("solo un organizador del torneo puede hacer esto", 403)
    return permiso


OrganizadorTorneo = Annotated[Permiso, Depends(organizador_del_torneo)]


def token_mesa(request: Request, srv: Servidor) -> str:
    """The table's token, within the table's own rate limit."""
    token = auth.token_de(request)
    if not token:
        raise servicio.ServicioError("falta el token de la mesa", 401)
    srv.limitar(srv.limite_mesa, request, "mesa:" + servicio.huella(token))
    return token


TokenMesa = Annotated[str, Depends(token_mesa)]


def limite_entrar(request: Request, srv: Servidor) -> None:
    srv.limitar(srv.limite_entrar, request)


def limite_unirse(request: Request, srv: Servidor) -> None:
    srv.limitar(srv.limite_unirse, request)


def cuerpo(model: type[M], limite: int = LIMITE_CUERPO) -> Callable[..., Awaitable[M]]:
    """A dependency that reads the body as ``model`` (size, JSON limits, strict types)."""
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
