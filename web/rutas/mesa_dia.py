"""A phone table's part in the day's running (issue 55): call the referee from the table's page
and read the round's clock. For a table of this server's own tournament only (in-process, with
the table token's hash the partida keeps: torneo.llamadas); a table of a remote tournament
server is answered that it cannot (its tablet calls through that server's API).

    POST /mesa/{clave}/llamar                 the page's button (a form): back to the table's page
    POST /api/partidas/{clave}/torneo/llamar  the same as JSON: {"texto": ...} in the player's language
    GET  /api/partidas/{clave}/torneo/reloj   the round's clock (torneo.reloj.estado; {} without one)
"""

from __future__ import annotations

from typing import Annotated, Any

from fastapi import APIRouter, Depends
from fastapi.concurrency import run_in_threadpool
from fastapi.responses import JSONResponse, RedirectResponse

from mesa.i18n import N_, t
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


def _huella(s: Any, clave: str) -> str:
    _, info = mesa_torneo._torneo(s, clave)
    if info.get("servidor", mesa_torneo.LOCAL) != mesa_torneo.LOCAL or not info.get("token"):
        raise WebError(SOLO_LOCAL, 409)
    return str(info["token"])


def llamar(abrir: mesa_torneo.Sesiones, clave: str) -> tuple[int, str]:
    """(status, msgid): the call made, or the one already open."""
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
        try:
            huella = _huella(s, clave)
        except WebError:
            return {}
        torneo, _e = llamadas.mesa_de_huella(s, huella)
        return reloj.estado(s, torneo) or {}


@router.post("/mesa/{clave}/llamar")
async def llamar_pagina(clave: str, abrir: Sesiones) -> RedirectResponse:
    await run_in_threadpool(llamar, abrir, clave)
    return RedirectResponse(f"/mesa/{clave}", status_code=303)


@router.post("/api/partidas/{clave}/torneo/llamar")
async def llamar_api(clave: str, idioma: Idioma, abrir: Sesiones) -> JSONResponse:
    estado, texto = await run_in_threadpool(llamar, abrir, clave)
    return JSONResponse({"texto": t(texto, idioma)}, status_code=estado)


@router.get("/api/partidas/{clave}/torneo/reloj")
async def reloj_api(clave: str, abrir: Sesiones) -> Any:
    return await run_in_threadpool(estado_reloj, abrir, clave)
