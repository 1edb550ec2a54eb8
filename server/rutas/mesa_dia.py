"""A phone table's part in the day's running: call the referee from the table's page
and read the round's clock. A table of this server's own tournament does it in-process (with the
table token's hash the partida keeps: server.servicios.llamadas, server.servicios.reloj); a table of a remote
tournament server the operator configured, through the table's own client
(mesa.torneo.ClienteTorneo, its queue folder), in server.servicios.mesa_torneo's remote threads.

    POST /mesa/{clave}/llamar                 the page's button (a form): back to the table's page
    POST /api/partidas/{clave}/torneo/llamar  the same as JSON: {"texto": ...} in the player's language
    GET  /api/partidas/{clave}/torneo/reloj   the round's clock (server.servicios.reloj.estado; {} without one)
    POST /mesa/{clave}/confirmacion           the other pareja's answer about the hand that waits for it
                                              (a form: id, acepta "si"/"no", motivo): back to the table's page
"""

from __future__ import annotations

import asyncio
from typing import Annotated, Any

from fastapi import APIRouter, Depends, Request
from fastapi.concurrency import run_in_threadpool
from fastapi.responses import JSONResponse, RedirectResponse

from mesa.i18n import N_, t
from mesa.torneo import MensajeTorneo
from server.cuerpo import leer_formulario
from server.deps import lang, sesiones
from server.servicios import cola_remota, llamadas, mesa_torneo, reloj
from server.servicios.partidas import WebError
from server.servicios.torneos import ServicioError

router = APIRouter(tags=["mesa_torneo"])
Idioma = Annotated[str, Depends(lang)]
Sesiones = Annotated[mesa_torneo.Sesiones, Depends(sesiones)]

LLAMADO = N_("Árbitro llamado: viene a la mesa")
YA_LLAMADO = N_("Ya habéis llamado al árbitro: viene a la mesa")
SOLO_LOCAL = N_("Esta mesa llama al árbitro desde la tableta del torneo")
MAX_FORM = 4 * 1024


def _info(abrir: mesa_torneo.Sesiones, clave: str) -> dict[str, Any]:
    with abrir() as s:
        return mesa_torneo._torneo(s, clave)[1]


def _local(info: dict[str, Any]) -> bool:
    return info.get("servidor", mesa_torneo.LOCAL) == mesa_torneo.LOCAL


def _huella(s: Any, clave: str) -> str:
    _, info = mesa_torneo._torneo(s, clave)
    if not _local(info) or not info.get("token"):
        raise WebError(SOLO_LOCAL, 409)
    return str(info["token"])


def _remota(
    abrir: mesa_torneo.Sesiones, info: dict[str, Any], remotos: tuple[str, ...], idioma: str, metodo: str, ruta: str
) -> tuple[int, dict[str, Any]]:
    """One request of a remote table to its tournament server, with the token of its join (in
    the database: any host sends it), in the remote threads."""
    if not mesa_torneo._configurado(str(info.get("servidor")), remotos) or not info.get("cola"):
        raise WebError(mesa_torneo.NO_CONFIGURADO, 409)
    with abrir() as s:
        mesa = cola_remota.mesa_de(s, str(info["cola"]))
        if mesa is None:
            raise WebError(mesa_torneo.NO_CONFIGURADO, 409)
        servidor, token = mesa.servidor, mesa.token
    try:
        status, doc = mesa_torneo._transporte(servidor, idioma)(metodo, ruta, {} if metodo == "POST" else None, token)
        if status not in (200, 201, 409):
            raise cola_remota.rechazo(status, doc)
    except MensajeTorneo as exc:
        raise mesa_torneo._error(exc, idioma) from None
    return status, doc


def llamar_remota(
    abrir: mesa_torneo.Sesiones, info: dict[str, Any], remotos: tuple[str, ...], idioma: str
) -> tuple[int, str]:
    status, _doc = _remota(abrir, info, remotos, idioma, "POST", "/api/mesa/llamar")
    return (409, YA_LLAMADO) if status == 409 else (201, LLAMADO)


async def _llamar(request: Request, abrir: mesa_torneo.Sesiones, clave: str, idioma: str) -> tuple[int, str]:
    info = await run_in_threadpool(_info, abrir, clave)
    if _local(info):
        return await run_in_threadpool(llamar, abrir, clave)
    remotos = mesa_torneo.remotos_de(request.app.state)
    return await asyncio.wrap_future(mesa_torneo.en_hilo_remoto(llamar_remota, abrir, info, remotos, idioma))


def llamar(abrir: mesa_torneo.Sesiones, clave: str) -> tuple[int, str]:
    """(status, msgid): the call made, or the one already open (a table of this server)."""
    with abrir() as s:
        huella = _huella(s, clave)
    try:
        with abrir() as s:
            llamadas.llamar_huella(s, huella)
    except ServicioError as exc:
        if exc.estado == 409:
            return 409, YA_LLAMADO
        raise
    return 201, LLAMADO


def estado_reloj(abrir: mesa_torneo.Sesiones, clave: str) -> dict[str, Any]:
    with abrir() as s:
        torneo, _e = llamadas.mesa_de_huella(s, _huella(s, clave))
        return reloj.estado(s, torneo) or {}


def reloj_remota(
    abrir: mesa_torneo.Sesiones, info: dict[str, Any], remotos: tuple[str, ...], idioma: str
) -> dict[str, Any]:
    return _remota(abrir, info, remotos, idioma, "GET", "/api/mesa/reloj")[1]


@router.post("/mesa/{clave}/llamar")
async def llamar_pagina(clave: str, request: Request, idioma: Idioma, abrir: Sesiones) -> RedirectResponse:
    await _llamar(request, abrir, clave, idioma)
    return RedirectResponse(f"/mesa/{clave}", status_code=303)


@router.post("/api/partidas/{clave}/torneo/llamar")
async def llamar_api(clave: str, request: Request, idioma: Idioma, abrir: Sesiones) -> JSONResponse:
    estado, texto = await _llamar(request, abrir, clave, idioma)
    return JSONResponse({"texto": t(texto, idioma)}, status_code=estado)


@router.get("/api/partidas/{clave}/torneo/reloj")
async def reloj_api(clave: str, request: Request, idioma: Idioma, abrir: Sesiones) -> Any:
    info = await run_in_threadpool(_info, abrir, clave)
    if _local(info):
        return await run_in_threadpool(estado_reloj, abrir, clave)
    remotos = mesa_torneo.remotos_de(request.app.state)
    return await asyncio.wrap_future(mesa_torneo.en_hilo_remoto(reloj_remota, abrir, info, remotos, idioma))


@router.post("/mesa/{clave}/confirmacion")
async def confirmacion_pagina(clave: str, request: Request, abrir: Sesiones) -> RedirectResponse:
    """The other pareja confirms (``acepta`` "si") or refuses the hand waiting for it, with a reason
    (server.servicios.mesa_torneo.responder)."""
    form = await leer_formulario(request, MAX_FORM)
    id_mano, acepta, motivo = form.get("id", "")[:100], form.get("acepta") == "si", form.get("motivo", "")[:300]
    await run_in_threadpool(mesa_torneo.responder, abrir, clave, id_mano, acepta, motivo)
    return RedirectResponse(f"/mesa/{clave}", status_code=303)
