"""Logins: a token for a right password, and a password change."""

from __future__ import annotations

from typing import Annotated

from fastapi import APIRouter, Depends, Request, Response
from fastapi.responses import JSONResponse

from torneo import auth
from torneo.dependencias import CuentaActual, Servidor, cuerpo, documentar, limite_entrar
from torneo.modelos import ClaveIn, Entrada, ErrorOut, SesionOut
from torneo.rutas import ERRORES, con_espera

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
    try:
        token, caduca = await srv.en_hilo(lambda s: auth.entrar(s, body.usuario, body.clave, srv.intentos, direccion))
    except auth.Espera as exc:
        return con_espera(exc, request)
    return SesionOut(token=token, caduca=caduca.isoformat() + "Z")


@router.post("/clave", status_code=204, dependencies=[Depends(limite_entrar)], openapi_extra=documentar(ClaveIn))
async def cambiar_clave(
    srv: Servidor, cuenta: CuentaActual, body: Annotated[ClaveIn, Depends(cuerpo(ClaveIn))], request: Request
) -> Response:
    """A new password, given the current one; every other login of the account ends."""
    token = auth.token_de(request) or ""
    try:
        await srv.en_hilo(lambda s: auth.cambiar_clave(s, cuenta.id, body.actual, body.nueva, token))
    except auth.Espera as exc:
        return con_espera(exc, request)
    return Response(status_code=204)


@router.delete("", status_code=204)
async def salir(srv: Servidor, request: Request) -> Response:
    token = auth.token_de(request)
    if token:
        await srv.en_hilo(lambda s: auth.salir(s, token))
    return Response(status_code=204)
