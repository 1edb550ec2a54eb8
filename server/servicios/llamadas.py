"""A table calls the referee: the table's token makes a call with its table, match
and time; the tournament's organisers and referees see the open calls and mark one attended
(who, when). A table has one open call at a time: a second one while the first is open is
refused (409), which is the call's rate limit. No HTTP here (server.rutas.dia)."""

from __future__ import annotations

from typing import Any

from sqlalchemy import select
from sqlalchemy.orm import Session

from server.db import ahora
from server.modelos.torneo import Enfrentamiento, Llamada, Mesa, TokenMesa, Torneo
from server.servicios import torneos as servicio
from server.servicios.torneos import ServicioError


def _iso(t: Any) -> str | None:
    return None if t is None else t.isoformat(timespec="seconds") + "Z"


def a_json(s: Session, ll: Llamada) -> dict[str, Any]:
    mesa = servicio.fila(s, Mesa, ll.mesa_id)
    return {
        "id": ll.id,
        "mesa": mesa.numero,
        "partida": ll.enfrentamiento_id,
        "motivo": ll.motivo,
        "cuando": _iso(ll.cuando),
        "atendida": _iso(ll.atendida),
        "atendida_por": ll.atendida_por,
    }


def mesa_de_huella(s: Session, huella: str) -> tuple[Torneo, Enfrentamiento]:
    """The tournament and match of a table token known by its hash (a phone table of this
    server keeps only the hash: server.servicios.mesa_torneo)."""
    row = s.scalar(select(TokenMesa).where(TokenMesa.huella == huella))
    if row is None:
        raise ServicioError("token de mesa no válido", 401)
    return servicio.fila(s, Torneo, row.torneo_id), servicio.fila(s, Enfrentamiento, row.enfrentamiento_id)


def llamar(s: Session, token: str, motivo: str | None = None) -> dict[str, Any]:
    """The call of the table whose token this is; 409 while the table has one open."""
    return llamar_huella(s, servicio.huella(token), motivo)


def llamar_huella(s: Session, huella: str, motivo: str | None = None) -> dict[str, Any]:
    """``llamar`` for the token whose hash is ``huella``."""
    t, e = mesa_de_huella(s, huella)
    if e.mesa_id is None:  # a token names a played match: kept for the type
        raise ServicioError("no existe esa partida", 404)
    mesa = s.get(Mesa, e.mesa_id, with_for_update=True)  # one call at a time per table
    assert mesa is not None
    abierta = s.scalar(select(Llamada).where(Llamada.mesa_id == mesa.id, Llamada.atendida.is_(None)).limit(1))
    if abierta is not None:
        raise ServicioError("esta mesa ya ha llamado al árbitro: espera a que venga", 409, datos=a_json(s, abierta))
    motivo = " ".join(motivo.split())[:200] if motivo else None
    ll = Llamada(torneo_id=t.id, mesa_id=mesa.id, enfrentamiento_id=e.id, motivo=motivo or None, cuando=ahora())
    s.add(ll)
    s.flush()
    return a_json(s, ll)


def llamadas(s: Session, t: Torneo, abiertas: bool = False) -> list[dict[str, Any]]:
    """The tournament's calls, oldest first (only the open ones with ``abiertas``)."""
    q = select(Llamada).where(Llamada.torneo_id == t.id)
    if abiertas:
        q = q.where(Llamada.atendida.is_(None))
    return [a_json(s, ll) for ll in s.scalars(q.order_by(Llamada.id))]


def atender(s: Session, t: Torneo, llamada_id: int, usuario: str) -> dict[str, Any]:
    """Mark the call attended by ``usuario`` now (the first who does it stays)."""
    ll = s.get(Llamada, llamada_id, with_for_update=True) if servicio.id_valido(llamada_id) else None
    if ll is None or ll.torneo_id != t.id:
        raise ServicioError("no existe esa llamada", 404)
    if ll.atendida is None:
        ll.atendida, ll.atendida_por = ahora(), usuario
        s.flush()
    return a_json(s, ll)
