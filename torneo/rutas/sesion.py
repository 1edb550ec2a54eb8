"""Logins: a token for a right password, and a password change."""

from __future__ import annotations

from typing import Annotated

from fastapi import APIRouter, Depends, Request, Response

from torneo import auth
from torneo.dependencias import CuentaActual, Servidor, cuerpo, documentar, limite_entrar
from torneo.modelos import ClaveIn, Entrada, SesionOut
from torneo.rutas import ERRORES

router = APIRouter(prefix="/api/sesion", tags=["sesion"], responses=ERRORES)


@router.post("", response_model=SesionOut, dependencies=[Depends(limite_entrar)], openapi_extra=documentar(Entrada))
async def entrar(srv: Servidor, body: Annotated[Entrada, Depends(cuerpo(Entrada))]) -> SesionOut:
    token, caduca = await srv.en_hilo(lambda s: auth.entrar(s, body.usuario, body.clave))
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
