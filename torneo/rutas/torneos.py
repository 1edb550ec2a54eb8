"""Tournaments: create, read, start rounds, standings, incidents, corrections with their audit
trail, referees' accounts, new table codes and the exports."""

from __future__ import annotations

from typing import Annotated, Any

from fastapi import APIRouter, Depends
from fastapi.responses import Response

from torneo import auth, correcciones, inscripcion, resumen, servicio
from torneo import formato as fm
from torneo.dependencias import CuentaActual, Organizador, Servidor, cuerpo, documentar
from torneo.modelos import (
    ArbitroIn,
    ClasificacionOut,
    CorreccionIn,
    CorreccionOut,
    CreadoOut,
    ExportOut,
    IncidenciaOut,
    MesaOut,
    ParejaIn,
    ParejaOut,
    PartidaOut,
    RondaOut,
    TorneoIn,
    TorneoOut,
    UsuarioOut,
)
from torneo.rutas import ERRORES

router = APIRouter(prefix="/api/torneos", tags=["torneos"], responses=ERRORES)
perfiles = APIRouter(prefix="/api/perfiles", tags=["torneos"])
ANSWER = {"response_model_exclude_unset": True}


@perfiles.get("", response_model=list[str])
async def lista_perfiles() -> list[str]:
    """The rule profiles a tournament may be created with (the organiser's form offers the same)."""
    return list(fm.PERFILES)


@router.post("", response_model=CreadoOut, status_code=201, openapi_extra=documentar(TorneoIn))
async def crear(srv: Servidor, cuenta: Organizador, body: Annotated[TorneoIn, Depends(cuerpo(TorneoIn))]) -> Any:
    formato = fm.Formato.from_dict(body.formato.model_dump())

    def run(s: Any) -> Any:
        t = servicio.crear_torneo(
            s,
            cuenta,
            body.nombre,
            body.reglas,
            formato,
            [servicio.NuevaPareja(p.nombre, (p.jugadores[0], p.jugadores[1])) for p in body.parejas],
            body.mesas,
        )
        t.arbitros_corrigen = body.arbitros_corrigen
        return CreadoOut(id=t.id, nombre=t.nombre)

    return await srv.en_hilo(run)


@router.get("/{torneo_id}", response_model=TorneoOut, **ANSWER)
async def ver(torneo_id: int, srv: Servidor, cuenta: CuentaActual) -> Any:
    return await srv.en_hilo(lambda s: resumen.resumen(s, servicio.torneo_de(s, torneo_id, cuenta)))


@router.post("/{torneo_id}/rondas", response_model=RondaOut, status_code=201)
async def ronda(torneo_id: int, srv: Servidor, cuenta: Organizador) -> Any:
    def run(s: Any) -> Any:
        r = servicio.iniciar_ronda(s, servicio.torneo_de(s, torneo_id, cuenta))
        return RondaOut(ronda=r.numero, fase=r.fase)

    return await srv.en_hilo(run)


@router.get("/{torneo_id}/clasificacion", response_model=ClasificacionOut)
async def clasificacion(torneo_id: int, srv: Servidor, cuenta: CuentaActual) -> Any:
    return await srv.en_hilo(lambda s: servicio.clasificacion(s, servicio.torneo_de(s, torneo_id, cuenta)))


@router.get("/{torneo_id}/incidencias", response_model=list[IncidenciaOut], **ANSWER)
async def incidencias(torneo_id: int, srv: Servidor, cuenta: CuentaActual) -> Any:
    return await srv.en_hilo(lambda s: servicio.incidencias(s, servicio.torneo_de(s, torneo_id, cuenta)))


@router.get("/{torneo_id}/correcciones", response_model=list[CorreccionOut])
async def auditoria(torneo_id: int, srv: Servidor, cuenta: CuentaActual) -> Any:
    """The audit trail of corrections: who, when, why, the result before and after."""
    return await srv.en_hilo(lambda s: correcciones.correcciones(s, servicio.torneo_de(s, torneo_id, cuenta)))


@router.post(
    "/{torneo_id}/partidas/{partida_id}/correccion",
    response_model=PartidaOut,
    status_code=201,
    openapi_extra=documentar(CorreccionIn),
    **ANSWER,
)
async def corregir(
    torneo_id: int,
    partida_id: int,
    srv: Servidor,
    cuenta: CuentaActual,
    body: Annotated[CorreccionIn, Depends(cuerpo(CorreccionIn))],
) -> Any:
    def run(s: Any) -> Any:
        t = servicio.torneo_de(s, torneo_id, cuenta)
        e = correcciones.enfrentamiento_de(s, t, partida_id)
        correcciones.corregir(s, t, cuenta, e, body.ganador, body.juegos, body.motivo, body.tantos)
        return servicio.estado_partida(s, t, e)

    return await srv.en_hilo(run)


@router.post("/{torneo_id}/arbitros", response_model=UsuarioOut, status_code=201, openapi_extra=documentar(ArbitroIn))
async def arbitro(
    torneo_id: int, srv: Servidor, cuenta: Organizador, body: Annotated[ArbitroIn, Depends(cuerpo(ArbitroIn))]
) -> Any:
    def run(s: Any) -> Any:
        t = servicio.torneo_de(s, torneo_id, cuenta)
        return UsuarioOut(usuario=auth.crear_cuenta(s, body.usuario, body.clave, "arbitro", t).usuario)

    return await srv.en_hilo(run)


def _pareja(p: Any) -> ParejaOut:
    return ParejaOut(id=p.id, nombre=p.nombre, jugadores=p.jugadores, grupo=p.grupo, retirada=p.retirada)


@router.post("/{torneo_id}/parejas", response_model=ParejaOut, status_code=201, openapi_extra=documentar(ParejaIn))
async def anadir_pareja(
    torneo_id: int, srv: Servidor, cuenta: Organizador, body: Annotated[ParejaIn, Depends(cuerpo(ParejaIn))]
) -> Any:
    """A pareja more, before the first round (in groups, the groups are drawn again)."""

    def run(s: Any) -> Any:
        t = servicio.torneo_de(s, torneo_id, cuenta)
        nueva = servicio.NuevaPareja(body.nombre, (body.jugadores[0], body.jugadores[1]))
        return _pareja(inscripcion.anadir_pareja(s, t, nueva))

    return await srv.en_hilo(run)


@router.post("/{torneo_id}/parejas/{pareja_id}/retirada", response_model=ParejaOut)
async def retirar_pareja(torneo_id: int, pareja_id: int, srv: Servidor, cuenta: Organizador) -> Any:
    """Withdraw a pareja between its matches: its opponents in the rounds to come get byes."""

    def run(s: Any) -> Any:
        return _pareja(inscripcion.retirar_pareja(s, servicio.torneo_de(s, torneo_id, cuenta), pareja_id))

    return await srv.en_hilo(run)


@router.post("/{torneo_id}/mesas/{numero}/codigo", response_model=MesaOut, status_code=201)
async def nuevo_codigo(torneo_id: int, numero: int, srv: Servidor, cuenta: Organizador) -> Any:
    """A new join code for a table: the old one stops joining, its tablets' tokens stop writing."""

    def run(s: Any) -> Any:
        mesa = servicio.nuevo_codigo(s, servicio.torneo_de(s, torneo_id, cuenta), numero)
        return MesaOut(numero=mesa.numero, codigo=servicio.codigo_mesa(s, mesa))

    return await srv.en_hilo(run)


@router.get("/{torneo_id}/exportar.json", response_model=ExportOut, **ANSWER)
async def exportar_json(torneo_id: int, srv: Servidor, cuenta: CuentaActual) -> Any:
    return await srv.en_hilo(lambda s: resumen.exportar(s, servicio.torneo_de(s, torneo_id, cuenta)))


@router.get(
    "/{torneo_id}/exportar.csv",
    response_class=Response,
    responses={200: {"content": {"text/csv": {}}, "description": "one row per match"}},
)
async def exportar_csv(torneo_id: int, srv: Servidor, cuenta: CuentaActual) -> Response:
    data = await srv.en_hilo(lambda s: resumen.exportar(s, servicio.torneo_de(s, torneo_id, cuenta)))
    return Response(
        resumen.a_csv(data),
        media_type="text/csv; charset=utf-8",
        headers={"Content-Disposition": f'attachment; filename="torneo-{torneo_id}.csv"'},
    )
