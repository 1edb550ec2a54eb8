"""The day's running: a table calls the referee (``POST /api/mesa/llamar`` with the
table's token) and reads its round's clock; the tournament's members read and attend the calls
and its organisers run the round clock (start, pause, resume, extend, close on time), through
the API and the organiser's page forms (server/plantillas/torneo/torneo.html)."""

from __future__ import annotations

from typing import Annotated, Any

from fastapi import APIRouter, Depends, Request
from fastapi.concurrency import run_in_threadpool
from fastapi.responses import JSONResponse, RedirectResponse
from pydantic import Field
from sqlalchemy.orm import Session

from server.deps import Miembro, OrganizadorTorneo, Permiso, Servidor, TokenMesa, cuerpo, documentar
from server.esquemas import Estricto
from server.formularios import Formulario, formulario
from server.modelos.torneo import Enfrentamiento, Torneo
from server.rutas import ERRORES
from server.rutas.paginas_torneo import a_pagina
from server.servicios import confirmacion, llamadas, reloj
from server.servicios import torneos as servicio

router = APIRouter(tags=["dia"], responses=ERRORES)
paginas = APIRouter(include_in_schema=False)


class LlamadaIn(Estricto):
    motivo: Annotated[str, Field(max_length=200)] | None = None


class RelojIn(Estricto):
    """``inicio`` (``minutos``, ``regla``), ``pausa``, ``reanuda`` or ``prorroga`` (``minutos``
    more); every change but the start says why (``motivo``)."""

    accion: Annotated[str, Field(pattern="^(inicio|pausa|reanuda|prorroga)$")]
    minutos: int | None = None
    regla: str | None = None  # the tournament's ``formato.tiempo.al_acabar`` by default
    motivo: Annotated[str, Field(max_length=500)] = ""


class ConfirmacionIn(Estricto):
    """The other pareja's answer about the hand waiting: ``acepta``, or not with their own
    ``tanteo`` and why."""

    acepta: bool
    tanteo: Annotated[list[int], Field(min_length=2, max_length=2)] | None = None
    motivo: Annotated[str, Field(max_length=300)] = ""


class CierreIn(Estricto):
    forzar: bool = False  # close before time is up


def _torneo(s: Session, permiso: Permiso) -> Torneo:
    return servicio.torneo_de(s, permiso.torneo_id, permiso.cuenta)


def _reloj(s: Session, t: Torneo, usuario: str, body: RelojIn) -> Any:
    if body.accion == "inicio":
        tiempo = (t.formato or {}).get("tiempo") or {}
        minutos = body.minutos or _minutos_del_torneo(t)
        return reloj.iniciar(s, t, usuario, minutos, body.regla or tiempo.get("al_acabar") or "juegos_tantos")
    return reloj.cambiar(s, t, usuario, body.accion, body.motivo, body.minutos)


def _minutos_del_torneo(t: Torneo) -> int:
    """The tournament's option ``formato.tiempo.minutos``, where it has one."""
    tiempo = (t.formato or {}).get("tiempo") or {}
    minutos = tiempo.get("minutos") if isinstance(tiempo, dict) else None
    if not isinstance(minutos, int):
        raise servicio.ServicioError("faltan los minutos de la ronda")
    return minutos


# -- the table --------------------------------------------------------------------------------
@router.post("/api/mesa/llamar", status_code=201, openapi_extra=documentar(LlamadaIn))
async def llamar(srv: Servidor, token: TokenMesa, body: Annotated[LlamadaIn, Depends(cuerpo(LlamadaIn))]) -> Any:
    """Call the referee to the table; 409 while the table's last call is not attended."""
    return await srv.en_hilo(lambda s: llamadas.llamar(s, token, body.motivo))


@router.post(
    "/api/mesa/manos/{cliente_id}/confirmacion",
    openapi_extra=documentar(ConfirmacionIn),
    responses={201: {"description": "confirmed: the hand as stored (as POST /api/mesa/manos answers)"}},
)
async def confirmar(
    cliente_id: str, srv: Servidor, token: TokenMesa, body: Annotated[ConfirmacionIn, Depends(cuerpo(ConfirmacionIn))]
) -> Any:
    """The other pareja confirms (or refuses) the hand waiting (server.servicios.confirmacion)."""

    def run() -> tuple[int, Any]:
        with srv.sesion() as s:
            _t, e = servicio.mesa_del_token(s, token)
            eid = e.id
        with servicio.cerrojo(eid), srv.sesion() as s:  # one writer per match, as a hand
            t, _e = servicio.mesa_del_token(s, token)
            bloqueada = s.get(Enfrentamiento, eid, with_for_update=True)
            if bloqueada is None:  # the token names its match (a foreign key): kept for the type
                raise servicio.ServicioError("no existe esa partida", 404)
            return confirmacion.responder(
                s,
                t,
                bloqueada,
                cliente_id,
                body.acepta,
                lambda c: reloj.registrar_mano(s, t, bloqueada, _enviada(c)),
                body.tanteo,
                body.motivo,
            )

    estado, respuesta = await run_in_threadpool(run)
    if isinstance(respuesta, servicio.ServicioError):  # refused, with its incident committed
        raise respuesta
    return JSONResponse(respuesta, status_code=estado)


def _enviada(c: dict[str, Any]) -> servicio.ManoEnviada:
    """A waiting hand's body (server.esquemas.ManoIn, as the table sent it) as the service takes it."""
    d = c.get("discrepancia")
    return servicio.ManoEnviada(
        c["id"],
        c["numero"],
        c["registro"],
        (c["tanteo"][0], c["tanteo"][1]),
        c.get("foto"),
        c.get("anula"),
        (d[0], d[1]) if d else None,
    )


@router.get("/api/mesa/reloj")
async def reloj_mesa(srv: Servidor, token: TokenMesa) -> Any:
    """The clock of the table's round (``{}`` when it has none)."""

    def run(s: Session) -> Any:
        t, _e = servicio.mesa_del_token(s, token)
        return reloj.estado(s, t) or {}

    return await srv.en_hilo(run)


@router.get("/publico/{torneo_id}/{firma}/reloj.json", include_in_schema=False)
async def reloj_publico(torneo_id: int, firma: str, srv: Servidor) -> Any:
    """The round clock for the public and projector pages (``{}`` when the round has none)."""
    return await srv.en_hilo(lambda s: reloj.estado(s, servicio.torneo_publico(s, torneo_id, firma)) or {})


# -- the tournament's members -----------------------------------------------------------------
@router.get("/api/torneos/{torneo_id}/llamadas")
async def lista_llamadas(srv: Servidor, permiso: Miembro, abiertas: bool = False) -> Any:
    return await srv.en_hilo(lambda s: llamadas.llamadas(s, _torneo(s, permiso), abiertas))


@router.post("/api/torneos/{torneo_id}/llamadas/{llamada_id}/atendida")
async def atender(llamada_id: int, srv: Servidor, permiso: Miembro) -> Any:
    return await srv.en_hilo(lambda s: llamadas.atender(s, _torneo(s, permiso), llamada_id, permiso.cuenta.usuario))


@router.get("/api/torneos/{torneo_id}/reloj")
async def ver_reloj(srv: Servidor, permiso: Miembro) -> Any:
    return await srv.en_hilo(lambda s: reloj.estado(s, _torneo(s, permiso)) or {})


@router.post("/api/torneos/{torneo_id}/reloj", openapi_extra=documentar(RelojIn))
async def cambiar_reloj(
    srv: Servidor, permiso: OrganizadorTorneo, body: Annotated[RelojIn, Depends(cuerpo(RelojIn))]
) -> Any:
    return await srv.en_hilo(lambda s: _reloj(s, _torneo(s, permiso), permiso.cuenta.usuario, body))


@router.post("/api/torneos/{torneo_id}/reloj/cierre", openapi_extra=documentar(CierreIn))
async def cierre(
    srv: Servidor, permiso: OrganizadorTorneo, body: Annotated[CierreIn, Depends(cuerpo(CierreIn))]
) -> Any:
    """Close the round on time (server.servicios.reloj.cerrar_por_tiempo): the matches it decided."""
    return await srv.en_hilo(lambda s: reloj.cerrar_por_tiempo(s, _torneo(s, permiso), permiso.cuenta, body.forzar))


# -- the organiser's page forms ---------------------------------------------------------------
class RelojForm(Formulario):
    accion: str
    minutos: int | None = None
    motivo: str = ""


@paginas.post("/torneos/{torneo_id}/llamadas/{llamada_id}/atendida")
async def atender_pagina(llamada_id: int, request: Request, srv: Servidor, permiso: Miembro) -> RedirectResponse:
    await srv.en_hilo(lambda s: llamadas.atender(s, _torneo(s, permiso), llamada_id, permiso.cuenta.usuario))
    return a_pagina(request, f"/torneos/{permiso.torneo_id}")


@paginas.post("/torneos/{torneo_id}/reloj")
async def reloj_pagina(
    request: Request,
    srv: Servidor,
    permiso: OrganizadorTorneo,
    form: Annotated[RelojForm, Depends(formulario(RelojForm))],
) -> RedirectResponse:
    if form.accion not in ("inicio", "pausa", "reanuda", "prorroga"):
        raise servicio.ServicioError("acción del reloj desconocida: {accion}", accion=form.accion[:20])
    body = RelojIn(accion=form.accion, minutos=form.minutos, motivo=form.motivo)
    await srv.en_hilo(lambda s: _reloj(s, _torneo(s, permiso), permiso.cuenta.usuario, body))
    return a_pagina(request, f"/torneos/{permiso.torneo_id}")


@paginas.post("/torneos/{torneo_id}/reloj/cierre")
async def cierre_pagina(request: Request, srv: Servidor, permiso: OrganizadorTorneo) -> RedirectResponse:
    await srv.en_hilo(lambda s: reloj.cerrar_por_tiempo(s, _torneo(s, permiso), permiso.cuenta))
    return a_pagina(request, f"/torneos/{permiso.torneo_id}")
