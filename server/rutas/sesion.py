"""Logins: a token for a right password, a password change, and the account's invitations to
tournaments (accepted or declined by it)."""

from __future__ import annotations

from typing import Annotated, Any

from fastapi import APIRouter, Depends, Request, Response
from fastapi.responses import JSONResponse

from server.deps import CuentaActual, Servidor, cuerpo, documentar, limite_entrar
from server.esquemas import ClaveIn, Entrada, ErrorOut, MiInvitacionOut, SesionOut, TorneoCorto
from server.rutas import ERRORES
from server.servicios import auth, miembros

router = APIRouter(prefix="/api/sesion", tags=["sesion"], responses=ERRORES)


@router.post(
    "",
    response_model=SesionOut,
    dependencies=[Depends(limite_entrar)],
    openapi_extra=documentar(Entrada),
    responses={503: {"model": ErrorOut, "description": "other passwords are being checked: retry"}},
)
async def entrar(
    srv: Servidor, request: Request, body: Annotated[Entrada, Depends(cuerpo(Entrada))]
) -> SesionOut | JSONResponse:
    """A login token for a right password. Limited per address and per account: after repeated
    wrong passwords for one account, 429 with ``Retry-After`` until its wait is over."""
    direccion = srv.direccion(request)
    token, caduca = await srv.en_hilo(lambda s: auth.entrar(s, body.usuario, body.clave, srv.intentos, direccion))
    return SesionOut(token=token, caduca=caduca.isoformat() + "Z")


@router.post("/clave", status_code=204, dependencies=[Depends(limite_entrar)], openapi_extra=documentar(ClaveIn))
async def cambiar_clave(
    srv: Servidor, cuenta: CuentaActual, body: Annotated[ClaveIn, Depends(cuerpo(ClaveIn))], request: Request
) -> Response:
    """A new password, given the current one; every other login of the account ends."""
    token = auth.token_de(request) or ""
    await srv.en_hilo(lambda s: auth.cambiar_clave(s, cuenta.id, body.actual, body.nueva, token))
    return Response(status_code=204)


@router.delete("", status_code=204)
async def salir(srv: Servidor, request: Request) -> Response:
    token = auth.token_de(request)
    if token:
        await srv.en_hilo(lambda s: auth.salir(s, token))
    return Response(status_code=204)


@router.get("/invitaciones", response_model=list[MiInvitacionOut])
async def invitaciones(srv: Servidor, cuenta: CuentaActual) -> Any:
    """The invitations to tournaments this account may accept."""
    return await srv.en_hilo(lambda s: miembros.invitaciones_de(s, cuenta))


@router.post("/invitaciones/{invitacion_id}/aceptar", response_model=TorneoCorto, status_code=201)
async def aceptar(invitacion_id: int, srv: Servidor, cuenta: CuentaActual) -> Any:
    """Become a member of the invitation's tournament, in its role."""

    def run(s: Any) -> TorneoCorto:
        t = miembros.aceptar(s, cuenta, invitacion_id)
        return TorneoCorto(id=t.id, nombre=t.nombre)

    return await srv.en_hilo(run)


@router.post("/invitaciones/{invitacion_id}/rechazar", status_code=204)
async def rechazar(invitacion_id: int, srv: Servidor, cuenta: CuentaActual) -> Response:
    await srv.en_hilo(lambda s: miembros.rechazar(s, cuenta, invitacion_id))
    return Response(status_code=204)
