"""The tables' tablets: join with the table's code, read the match, post its hands."""

from __future__ import annotations

from typing import Annotated, Any

from fastapi import APIRouter, Depends, Request
from fastapi.concurrency import run_in_threadpool
from fastapi.responses import JSONResponse

from server.deps import Servidor, TokenMesa, cuerpo, documentar, limite_unirse
from server.esquemas import ManoIn, ManoOut, PartidaOut, Unirse, UnirseOut
from server.modelos.torneo import Enfrentamiento
from server.rutas import ERRORES
from server.servicios import confirmacion, reloj
from server.servicios import torneos as servicio

router = APIRouter(prefix="/api", tags=["mesa"], responses=ERRORES)


@router.post(
    "/mesas/unirse",
    response_model=UnirseOut,
    dependencies=[Depends(limite_unirse)],
    openapi_extra=documentar(Unirse),
    response_model_exclude_unset=True,
)
async def unirse(srv: Servidor, body: Annotated[Unirse, Depends(cuerpo(Unirse))]) -> Any:
    def run(s: Any) -> Any:
        token, t, e = servicio.unirse(s, body.codigo)
        return {"token": token, "torneo": {"id": t.id, "nombre": t.nombre}, "partida": servicio.estado_partida(s, t, e)}

    return await srv.en_hilo(run)


@router.get("/mesa/partida", response_model=PartidaOut, response_model_exclude_unset=True)
async def partida(srv: Servidor, token: TokenMesa) -> Any:
    def run(s: Any) -> Any:
        t, e = servicio.mesa_del_token(s, token)
        return servicio.estado_partida(s, t, e)

    return await srv.en_hilo(run)


@router.post(
    "/mesa/manos",
    response_model=ManoOut,
    status_code=201,
    openapi_extra=documentar(ManoIn),
    responses={200: {"model": ManoOut, "description": "a resend: the first answer again"}},
    response_model_exclude_unset=True,
)
async def mano(
    srv: Servidor, token: TokenMesa, body: Annotated[ManoIn, Depends(cuerpo(ManoIn))], request: Request
) -> Any:
    discrepancia = (body.discrepancia[0], body.discrepancia[1]) if body.discrepancia else None
    enviada = servicio.ManoEnviada(
        body.id, body.numero, body.registro, (body.tanteo[0], body.tanteo[1]), body.foto, body.anula, discrepancia
    )

    def run() -> Any:
        with srv.sesion() as s:
            _t, e = servicio.mesa_del_token(s, token)
            eid = e.id
        with servicio.cerrojo(eid), srv.sesion() as s:  # one writer per match
            t, _e = servicio.mesa_del_token(s, token)
            bloqueada = s.get(Enfrentamiento, eid, with_for_update=True)  # the row locked for this hand
            if bloqueada is None:  # the token names its match (a foreign key): kept for the type
                raise servicio.ServicioError("no existe esa partida", 404)
            if confirmacion.exigida(t) and not confirmacion.ya_guardada(s, bloqueada, body.id):
                return confirmacion.guardar(s, t, bloqueada, body.model_dump())  # the opponents confirm it first
            return reloj.registrar_mano(s, t, bloqueada, enviada)  # the round clock has its say

    estado, respuesta = await run_in_threadpool(run)
    if isinstance(respuesta, servicio.ServicioError):  # refused, with its incident committed
        raise respuesta
    return JSONResponse(respuesta, status_code=estado)  # as stored: a resend gets the same bytes
