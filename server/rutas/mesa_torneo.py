"""A tournament table from a phone: the pages and their JSON API (server.servicios.mesa_torneo does the work).

    /mesa?codigo=...          join: the table's code typed, or opened from the table's QR code
    /mesa/{clave}             the table's match: parejas, the server's marcador, this partida's,
                              the hands waiting, refused (with what to do) or corrected; Nueva mano
    /mesa/{clave}/parte       its changing part, for the page to refresh itself
    /api/mesas-torneo         join (JSON)
    /api/partidas/{clave}/torneo         the same state as JSON; POST .../enviar sends now

Each load of the table's page or of its part sends what waits, after answering (a background
task): the phones that follow the table keep the queue moving, as the tablet's timer does.

The server a join names (the form's ``servidor``, the JSON's, or the one in the QR code's link)
is this server or one the operator configured (``mus servir --torneo-remoto URL``, in
``app.state.torneos_remotos``); any other is refused before anything is opened
(server.servicios.mesa_torneo.destino). A remote server's requests are awaited in server.servicios.mesa_torneo's own
threads, never in the event loop or the threads that answer the phones. Joins count against
the tournament's join limit per client address (``--limite-uniones``).
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from typing import Annotated, Any, Final, TypeVar

from fastapi import APIRouter, BackgroundTasks, Depends, Request
from fastapi.concurrency import run_in_threadpool
from fastapi.responses import RedirectResponse
from pydantic import BaseModel, Field

from scoring.protocolo import PARAMETRO_CODIGO, codigo_de, servidor_de
from server.cuerpo import leer_formulario
from server.deps import Idioma, cuerpo, lang, sesiones
from server.esquemas import Estricto
from server.rutas.paginas import REFRESCO_S, render
from server.rutas.partidas import MarcadorOut
from server.servicios import mesa_torneo
from server.servicios.partidas import WebError
from server.servicios.torneos import ServicioError

router = APIRouter(tags=["mesa_torneo"])
MAX_FORM: Final = 4 * 1024
Sesiones = Annotated[mesa_torneo.Sesiones, Depends(sesiones)]
R = TypeVar("R")


class UnirseIn(Estricto):
    codigo: Annotated[str, Field(min_length=4, max_length=400)]  # typed, or the QR code's link
    # this server when absent; else this server's address or one configured with --torneo-remoto
    servidor: Annotated[str, Field(max_length=200)] | None = None


class UnidaOut(BaseModel):
    clave: str
    url: str  # the table's page, /mesa/{clave}


class MarcadorServidorOut(BaseModel):
    tantos: list[int] | None = None
    juegos: list[int] | None = None
    vacas: list[int] | None = None
    manos: int | None = None
    terminada: bool | None = None
    ganador: int | None = None


class MesaTorneoOut(BaseModel):
    clave: str
    torneo: str
    mesa: int | None
    parejas: list[str]
    servidor: str
    marcador_servidor: MarcadorServidorOut  # the match as the tournament server counts it
    marcador: MarcadorOut  # this partida's marcador (it follows the server's corrections)
    pendientes: int  # hands confirmed here that the server has not stored yet
    conexion: bool  # whether the last send reached the tournament server
    aviso: str
    rechazadas: list[str]  # each refusal with what to do, in the player's language
    correcciones: list[str]  # hands the server stored with its own tanteo
    actualizado: str | None


def _este_servidor(request: Request) -> str:
    """This server's address as the phone reached it: the tournament server when the phone
    opened the table's QR code."""
    return str(request.base_url).rstrip("/")


def _destino(request: Request, pedido: str | None) -> str:
    """server.servicios.mesa_torneo.destino for this request: this server under any address it was reached
    by or announces, else a configured remote server (WebError otherwise, nothing opened)."""
    este = [_este_servidor(request), *filter(None, [getattr(request.app.state, "direccion_lan", None)])]
    return mesa_torneo.destino(pedido, este, mesa_torneo.remotos_de(request.app.state))


def _limitar(request: Request) -> None:
    """The tournament's join limit per client address (codes are not guessed from a phone page)."""
    srv = request.app.state.servidor
    try:
        srv.limitar(srv.limite_unirse, request)
    except ServicioError as exc:
        raise WebError(exc.msgid, exc.estado) from None


async def _en_hilo(remoto: bool, fn: Callable[..., R], *args: Any) -> R:
    """A remote server's work in the remote threads, this server's in the usual ones."""
    if remoto:
        return await asyncio.wrap_future(mesa_torneo.en_hilo_remoto(fn, *args))
    return await run_in_threadpool(fn, *args)


async def _unirse(request: Request, abrir: mesa_torneo.Sesiones, pedido: str | None, codigo: str, idioma: str) -> str:
    _limitar(request)
    servidor = _destino(request, pedido)
    return await _en_hilo(servidor != mesa_torneo.LOCAL, mesa_torneo.unirse, abrir, servidor, codigo, idioma)


async def _enviar(request: Request, abrir: mesa_torneo.Sesiones, clave: str, idioma: str, reintentar: bool) -> Any:
    local = await run_in_threadpool(mesa_torneo.es_local, abrir, clave)
    remotos = mesa_torneo.remotos_de(request.app.state)
    return await _en_hilo(not local, mesa_torneo.enviar, abrir, clave, idioma, reintentar, True, remotos)


# -- pages --------------------------------------------------------------------------------------


def _unirse_pagina(request: Request, estado: int = 200, error: str | None = None, **form: str) -> Any:
    return render(
        request,
        "mesa_unirse.html",
        estado,
        error=error,
        codigo=form.get("codigo", ""),
        servidor=form.get("servidor") or _este_servidor(request),
    )


@router.get("/mesa")
def unirse_pagina(request: Request, codigo: str = "", servidor: str = "") -> Any:
    """The join form; opened from a table's QR code it comes with the code filled in."""
    return _unirse_pagina(request, codigo=codigo_de(codigo) or codigo.strip()[:40], servidor=servidor.strip()[:200])


@router.post("/mesa")
async def unirse(request: Request, abrir: Sesiones) -> Any:
    idioma = lang(request)
    try:
        form = await leer_formulario(request, MAX_FORM)
    except ValueError:
        form = {}
    codigo, servidor = form.get(PARAMETRO_CODIGO, "")[:400], form.get("servidor", "")[:200]
    try:
        clave = await _unirse(request, abrir, servidor or servidor_de(codigo), codigo, idioma)
    except WebError as exc:  # the form again, as filled, with the reason
        return _unirse_pagina(request, exc.estado, exc.texto(idioma), codigo=codigo, servidor=servidor)
    return RedirectResponse(f"/mesa/{clave}", status_code=303)


def _enviar_luego(
    tareas: BackgroundTasks, request: Request, abrir: mesa_torneo.Sesiones, clave: str, idioma: str
) -> None:
    remotos = mesa_torneo.remotos_de(request.app.state)
    tareas.add_task(mesa_torneo.enviar_si_torneo, abrir, clave, idioma, remotos)


@router.get("/mesa/{clave}")
def mesa_pagina(clave: str, request: Request, idioma: Idioma, abrir: Sesiones, tareas: BackgroundTasks) -> Any:
    e = mesa_torneo.estado(abrir, clave, idioma)
    _enviar_luego(tareas, request, abrir, clave, idioma)
    return render(request, "mesa_partida.html", e=e, m=e["marcador"], clave=clave, refresco=REFRESCO_S)


@router.get("/mesa/{clave}/parte")
def mesa_parte(clave: str, request: Request, idioma: Idioma, abrir: Sesiones, tareas: BackgroundTasks) -> Any:
    e = mesa_torneo.estado(abrir, clave, idioma)
    _enviar_luego(tareas, request, abrir, clave, idioma)
    return render(request, "mesa_estado.html", e=e, m=e["marcador"], clave=clave)


@router.post("/mesa/{clave}/reintentar")
async def reintentar(clave: str, request: Request, idioma: Idioma, abrir: Sesiones) -> Any:
    await _enviar(request, abrir, clave, idioma, True)
    return RedirectResponse(f"/mesa/{clave}", status_code=303)


# -- JSON ---------------------------------------------------------------------------------------


@router.post("/api/mesas-torneo", status_code=201, response_model=UnidaOut)
async def unirse_api(
    request: Request, idioma: Idioma, abrir: Sesiones, body: Annotated[UnirseIn, Depends(cuerpo(UnirseIn))]
) -> Any:
    clave = await _unirse(request, abrir, body.servidor or servidor_de(body.codigo), body.codigo, idioma)
    return {"clave": clave, "url": f"/mesa/{clave}"}


@router.get("/api/partidas/{clave}/torneo", response_model=MesaTorneoOut)
def estado_api(clave: str, request: Request, idioma: Idioma, abrir: Sesiones, tareas: BackgroundTasks) -> Any:
    e = mesa_torneo.estado(abrir, clave, idioma)
    _enviar_luego(tareas, request, abrir, clave, idioma)
    return e


@router.post("/api/partidas/{clave}/torneo/enviar", response_model=MesaTorneoOut)
async def enviar_api(clave: str, request: Request, idioma: Idioma, abrir: Sesiones, reintentar: bool = False) -> Any:
    return await _enviar(request, abrir, clave, idioma, reintentar)
