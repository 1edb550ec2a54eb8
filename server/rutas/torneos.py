"""Tournaments: create, read, start rounds, standings, incidents, corrections with their audit
trail, members (co-organisers and referees), parejas added and withdrawn, new table codes and
the exports. Each route under a tournament takes the account's role in it as a dependency
(``Miembro``: any member; ``OrganizadorTorneo``: its organisers)."""

from __future__ import annotations

from typing import Annotated, Any

from fastapi import APIRouter, Depends
from fastapi.responses import JSONResponse, Response
from sqlalchemy.orm import Session

from server.deps import Miembro, Organizador, OrganizadorTorneo, Permiso, Servidor, cuerpo, documentar
from server.esquemas import (
    ArbitroIn,
    ClasificacionOut,
    CorreccionIn,
    CorreccionOut,
    CreadoOut,
    ExportOut,
    IncidenciaOut,
    InvitacionOut,
    MesaOut,
    MiembroIn,
    MiembroOut,
    ParejaIn,
    ParejaOut,
    PartidaOut,
    RondaOut,
    TorneoIn,
    TorneoOut,
    UsuarioOut,
)
from server.modelos.torneo import Invitacion, Pareja, Torneo
from server.rutas import ERRORES
from server.servicios import auth, correcciones, inscripcion, miembros, resumen
from server.servicios import torneos as servicio
from torneo import formato as fm

router = APIRouter(prefix="/api/torneos", tags=["torneos"], responses=ERRORES)
perfiles = APIRouter(prefix="/api/perfiles", tags=["torneos"])


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


@router.get("/{torneo_id}", response_model=TorneoOut, response_model_exclude_unset=True)
async def ver(srv: Servidor, permiso: Miembro) -> Any:
    return await srv.en_hilo(lambda s: resumen.resumen(s, _torneo(s, permiso)))


def _torneo(s: Session, permiso: Permiso) -> Torneo:
    return servicio.torneo_de(s, permiso.torneo_id, permiso.cuenta)


@router.post("/{torneo_id}/rondas", response_model=RondaOut, status_code=201)
async def ronda(srv: Servidor, permiso: OrganizadorTorneo) -> RondaOut:
    def run(s: Session) -> RondaOut:
        r = servicio.iniciar_ronda(s, _torneo(s, permiso))
        return RondaOut(ronda=r.numero, fase=r.fase)

    out: RondaOut = await srv.en_hilo(run)
    return out


@router.get("/{torneo_id}/clasificacion", response_model=ClasificacionOut)
async def clasificacion(srv: Servidor, permiso: Miembro) -> Any:
    return await srv.en_hilo(lambda s: servicio.clasificacion(s, _torneo(s, permiso)))


@router.get("/{torneo_id}/incidencias", response_model=list[IncidenciaOut], response_model_exclude_unset=True)
async def incidencias(srv: Servidor, permiso: Miembro) -> Any:
    return await srv.en_hilo(lambda s: servicio.incidencias(s, _torneo(s, permiso)))


@router.get("/{torneo_id}/correcciones", response_model=list[CorreccionOut])
async def auditoria(srv: Servidor, permiso: Miembro) -> Any:
    """The audit trail of corrections: who, when, why, the result before and after."""
    return await srv.en_hilo(lambda s: correcciones.correcciones(s, _torneo(s, permiso)))


@router.post(
    "/{torneo_id}/partidas/{partida_id}/correccion",
    response_model=PartidaOut,
    status_code=201,
    openapi_extra=documentar(CorreccionIn),
    response_model_exclude_unset=True,
)
async def corregir(
    partida_id: int,
    srv: Servidor,
    permiso: Miembro,
    body: Annotated[CorreccionIn, Depends(cuerpo(CorreccionIn))],
) -> Any:
    def run(s: Session) -> Any:
        t = _torneo(s, permiso)
        e = correcciones.enfrentamiento_de(s, t, partida_id)
        correcciones.corregir(s, t, permiso.cuenta, e, body.ganador, body.juegos, body.motivo, body.tantos)
        return servicio.estado_partida(s, t, e)

    return await srv.en_hilo(run)


@router.post("/{torneo_id}/arbitros", response_model=UsuarioOut, status_code=201, openapi_extra=documentar(ArbitroIn))
async def arbitro(
    srv: Servidor, permiso: OrganizadorTorneo, body: Annotated[ArbitroIn, Depends(cuerpo(ArbitroIn))]
) -> UsuarioOut:
    """A new referee account for the tournament."""

    def run(s: Session) -> UsuarioOut:
        t = _torneo(s, permiso)
        cuenta = auth.crear_cuenta(s, body.usuario, body.clave, "arbitro", t)
        miembros.registrar(s, t, cuenta.usuario, "arbitro", "alta", permiso.cuenta)
        return UsuarioOut(usuario=cuenta.usuario)

    out: UsuarioOut = await srv.en_hilo(run)
    return out


@router.get("/{torneo_id}/miembros", response_model=list[MiembroOut])
async def lista_miembros(srv: Servidor, permiso: Miembro) -> Any:
    """The tournament's organisers (its creator and co-organisers) and referees."""
    return await srv.en_hilo(lambda s: miembros.miembros(s, _torneo(s, permiso)))


@router.post(
    "/{torneo_id}/miembros",
    response_model=list[MiembroOut],
    status_code=201,
    openapi_extra=documentar(MiembroIn),
    responses={202: {"model": list[MiembroOut], "description": "invited: a member once the account accepts"}},
)
async def anadir_miembro(
    srv: Servidor, permiso: OrganizadorTorneo, body: Annotated[MiembroIn, Depends(cuerpo(MiembroIn))]
) -> Any:
    """With ``clave``: a new account, a co-organiser or referee at once (201). Without: a member
    changes role (201), any other name is invited (202, the members as they were): an existing
    account becomes a member when it accepts, and the answer is the same whether an account has
    that name or not."""

    def run(s: Session) -> tuple[bool, Any]:
        t = _torneo(s, permiso)
        hecho = miembros.anadir_miembro(s, t, body.usuario, body.rol, body.clave, permiso.cuenta)
        return isinstance(hecho, Invitacion), miembros.miembros(s, t)

    invitado, lista = await srv.en_hilo(run)
    return JSONResponse(lista, status_code=202 if invitado else 201)


@router.get("/{torneo_id}/invitaciones", response_model=list[InvitacionOut])
async def invitaciones(srv: Servidor, permiso: OrganizadorTorneo) -> Any:
    """The invitations not yet accepted nor declined, by name."""
    return await srv.en_hilo(lambda s: miembros.invitaciones(s, _torneo(s, permiso)))


@router.delete("/{torneo_id}/miembros/{cuenta_id}", status_code=204)
async def quitar_miembro(cuenta_id: int, srv: Servidor, permiso: OrganizadorTorneo) -> Response:
    """A co-organiser or referee no longer sees the tournament (its creator cannot be removed)."""
    await srv.en_hilo(lambda s: miembros.quitar_miembro(s, _torneo(s, permiso), cuenta_id, permiso.cuenta))
    return Response(status_code=204)


def _pareja(p: Pareja) -> ParejaOut:
    return ParejaOut(
        id=p.id, nombre=p.nombre, jugadores=p.jugadores, grupo=p.grupo, retirada=p.retirada, entra_en=p.entra_en
    )


@router.post("/{torneo_id}/parejas", response_model=ParejaOut, status_code=201, openapi_extra=documentar(ParejaIn))
async def anadir_pareja(
    srv: Servidor, permiso: OrganizadorTorneo, body: Annotated[ParejaIn, Depends(cuerpo(ParejaIn))]
) -> ParejaOut:
    """A pareja more: before the first round in any format (groups are drawn again), later in a
    league (it plays every pareja in the rounds to come; docs/torneo.md)."""

    def run(s: Session) -> ParejaOut:
        nueva = servicio.NuevaPareja(body.nombre, (body.jugadores[0], body.jugadores[1]))
        return _pareja(inscripcion.anadir_pareja(s, _torneo(s, permiso), nueva))

    out: ParejaOut = await srv.en_hilo(run)
    return out


@router.post("/{torneo_id}/parejas/{pareja_id}/retirada", response_model=ParejaOut)
async def retirar_pareja(pareja_id: int, srv: Servidor, permiso: OrganizadorTorneo) -> ParejaOut:
    """Withdraw a pareja between its matches: its opponents in the rounds to come get byes."""
    out: ParejaOut = await srv.en_hilo(lambda s: _pareja(inscripcion.retirar_pareja(s, _torneo(s, permiso), pareja_id)))
    return out


@router.post("/{torneo_id}/mesas/{numero}/codigo", response_model=MesaOut, status_code=201)
async def nuevo_codigo(numero: int, srv: Servidor, permiso: OrganizadorTorneo) -> MesaOut:
    """A new join code for a table: the old one stops joining, its tablets' tokens stop writing."""

    def run(s: Session) -> MesaOut:
        mesa = servicio.nuevo_codigo(s, _torneo(s, permiso), numero)
        return MesaOut(numero=mesa.numero, codigo=servicio.codigo_mesa(s, mesa))

    out: MesaOut = await srv.en_hilo(run)
    return out


@router.get("/{torneo_id}/exportar.json", response_model=ExportOut, response_model_exclude_unset=True)
async def exportar_json(srv: Servidor, permiso: Miembro) -> Any:
    return await srv.en_hilo(lambda s: resumen.exportar(s, _torneo(s, permiso)))


@router.get(
    "/{torneo_id}/exportar.csv",
    response_class=Response,
    responses={200: {"content": {"text/csv": {}}, "description": "one row per match"}},
)
async def exportar_csv(torneo_id: int, srv: Servidor, permiso: Miembro) -> Response:
    data = await srv.en_hilo(lambda s: resumen.exportar(s, _torneo(s, permiso)))
    return Response(
        resumen.a_csv(data),
        media_type="text/csv; charset=utf-8",
        headers={"Content-Disposition": f'attachment; filename="torneo-{torneo_id}.csv"'},
    )
