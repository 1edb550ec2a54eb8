"""A phone table's part in the day's running (issue 55): call the referee from the table's page
and read the round's clock. A table of this server's own tournament does it in-process (with the
table token's hash the partida keeps: torneo.llamadas, torneo.reloj); a table of a remote
tournament server the operator configured, through the table's own client
(mesa.torneo.ClienteTorneo, its queue folder), in web.mesa_torneo's remote threads.

    POST /mesa/{clave}/llamar                 the page's button (a form): back to the table's page
    POST /api/partidas/{clave}/torneo/llamar  the same as JSON: {"texto": ...} in the player's language
    GET  /api/partidas/{clave}/torneo/reloj   the round's clock (torneo.reloj.estado; {} without one)
"""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Annotated, Any

from fastapi import APIRouter, Depends, Request
from fastapi.concurrency import run_in_threadpool
from fastapi.responses import JSONResponse, RedirectResponse

from mesa.i18n import N_, t
from mesa.torneo import MensajeTorneo
from torneo import llamadas, reloj
from torneo.servicio import ServicioError
from web import mesa_torneo
from web.dependencias import lang, sesiones
from web.servicio import WebError

router = APIRouter(tags=["mesa_torneo"])
Idioma = Annotated[str, Depends(lang)]
Sesiones = Annotated[mesa_torneo.Sesiones, Depends(sesiones)]

LLAMADO = N_("Árbitro llamado: viene a la mesa")
YA_LLAMADO = N_("Ya habéis llamado al árbitro: viene a la mesa")
SOLO_LOCAL = N_("Esta mesa llama al árbitro desde la tableta del torneo")


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


def _remota(info: dict[str, Any], datos: Path, remotos: tuple[str, ...], idioma: str, fn: Any) -> Any:
    """``fn(cliente)`` with the remote table's own client (in the remote threads)."""
    if not mesa_torneo._configurado(str(info.get("servidor")), remotos) or not info.get("cola"):
        raise WebError(mesa_torneo.NO_CONFIGURADO, 409)
    with mesa_torneo._cliente(Path(datos) / mesa_torneo.CARPETA / info["cola"], idioma) as cliente:
        try:
            return fn(cliente)
        except MensajeTorneo as exc:
            raise mesa_torneo._error(exc, idioma) from None


def llamar_remota(info: dict[str, Any], datos: Path, remotos: tuple[str, ...], idioma: str) -> tuple[int, str]:
    doc = _remota(info, datos, remotos, idioma, lambda c: c.llamar_arbitro())
    return (409, YA_LLAMADO) if "error" in doc else (201, LLAMADO)


async def _llamar(request: Request, abrir: mesa_torneo.Sesiones, clave: str, idioma: str) -> tuple[int, str]:
    info = await run_in_threadpool(_info, abrir, clave)
    if _local(info):
        return await run_in_threadpool(llamar, abrir, clave)
    datos, remotos = _datos(request), mesa_torneo.remotos_de(request.app.state)
    return await asyncio.wrap_future(mesa_torneo.en_hilo_remoto(llamar_remota, info, datos, remotos, idioma))


def _datos(request: Request) -> Path:
    return mesa_torneo.datos_de(getattr(request.app.state, "datos", None))


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


def reloj_remota(info: dict[str, Any], datos: Path, remotos: tuple[str, ...], idioma: str) -> dict[str, Any]:
    out: dict[str, Any] = _remota(info, datos, remotos, idioma, lambda c: c.reloj())
    return out


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
    datos, remotos = _datos(request), mesa_torneo.remotos_de(request.app.state)
    return await asyncio.wrap_future(mesa_torneo.en_hilo_remoto(reloj_remota, info, datos, remotos, idioma))
