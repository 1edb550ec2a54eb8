"""Corrections of a match's result by the organiser (or a referee the organiser allows), with
an audit trail: who, when, why, the result before and after. No HTTP here.

A correction is a new ``Correccion`` row; the match's newest one is its result (the hands stay
as the table sent them). The winner cannot change once a later round was paired from it.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from sqlalchemy import select
from sqlalchemy.orm import Session

from server.modelos.torneo import Correccion, Cuenta, Enfrentamiento, Ronda, Torneo
from server.servicios import torneos as servicio
from server.servicios.torneos import ServicioError


def puede_corregir(s: Session, cuenta: Cuenta, torneo: Torneo) -> bool:
    """An organiser of the tournament may; one of its referees if the tournament allows it."""
    try:
        rol = servicio.rol_en(s, torneo.id, cuenta)
    except ServicioError:
        return False
    return rol == "organizador" or (rol == "arbitro" and torneo.arbitros_corrigen)


def enfrentamiento_de(s: Session, torneo: Torneo, enfrentamiento_id: int) -> Enfrentamiento:
    e = s.get(Enfrentamiento, enfrentamiento_id) if servicio.id_valido(enfrentamiento_id) else None
    if e is None or e.torneo_id != torneo.id:
        raise ServicioError("no existe esa partida", 404)
    return e


def corregir(
    s: Session,
    torneo: Torneo,
    cuenta: Cuenta,
    e: Enfrentamiento,
    ganador: int,
    juegos: Sequence[int],
    motivo: str,
    tantos: Sequence[int] | None = None,
) -> Correccion:
    """Set the result of match ``e``: its winner (pareja 0 or 1) and juegos, optionally its tantos."""
    if not puede_corregir(s, cuenta, torneo):
        raise ServicioError("solo el organizador corrige resultados (o un árbitro, si el organizador lo permite)", 403)
    if e.pareja1_id is None:
        raise ServicioError("una pareja que descansa no tiene resultado que corregir", 409)
    motivo = " ".join(motivo.split())
    if not 3 <= len(motivo) <= 500:
        raise ServicioError("el motivo de la corrección debe tener de 3 a 500 caracteres")
    if ganador not in (0, 1):
        raise ServicioError("el ganador debe ser la pareja 0 o la 1")
    antes = servicio.resultado(s, torneo, e)
    if ganador != e.ganador and _ya_emparejada(s, torneo, e):
        raise ServicioError("ya se emparejó una ronda con este resultado: el ganador no puede cambiar", 409)
    despues: dict[str, Any] = {"ganador": ganador, "juegos": [int(juegos[0]), int(juegos[1])]}
    if tantos is not None:
        despues["tantos"] = [int(tantos[0]), int(tantos[1])]
    fila = Correccion(
        torneo_id=torneo.id,
        enfrentamiento_id=e.id,
        cuenta_id=cuenta.id,
        usuario=cuenta.usuario,
        motivo=motivo,
        despues=despues,
        antes={k: antes[k] for k in ("ganador", "juegos", "tantos")},
    )
    s.add(fila)
    e.ganador = ganador
    s.flush()
    return fila


def _ya_emparejada(s: Session, torneo: Torneo, e: Enfrentamiento) -> bool:
    """Whether a later round's pairings were made from this match's winner: a knockout match
    with a later round, or a group match once the knockout began."""
    ronda = servicio.fila(s, Ronda, e.ronda_id)
    rondas = servicio.rondas_de(s, torneo)
    if ronda.fase == "eliminatoria":
        return any(r.numero > ronda.numero for r in rondas)
    return ronda.fase == "grupos" and any(r.fase == "eliminatoria" for r in rondas)


def correcciones(s: Session, torneo: Torneo) -> list[dict[str, Any]]:
    """The audit trail, oldest first."""
    rondas = {r.id: r.numero for r in servicio.rondas_de(s, torneo)}
    nombres = {p.id: p.nombre for p in servicio.parejas_de(s, torneo)}
    mesas = {m.id: m.numero for m in servicio.mesas_de(s, torneo)}
    out = []
    for c in s.scalars(select(Correccion).where(Correccion.torneo_id == torneo.id).order_by(Correccion.id)):
        e = servicio.fila(s, Enfrentamiento, c.enfrentamiento_id)
        out.append(
            {
                "partida": e.id,
                "ronda": rondas[e.ronda_id],
                "mesa": mesas.get(e.mesa_id or 0),
                "parejas": [nombres[e.pareja0_id], nombres.get(e.pareja1_id or 0)],
                "usuario": c.usuario,
                "cuando": c.cuando.isoformat(timespec="seconds") + "Z",
                "motivo": c.motivo,
                "antes": c.antes,
                "despues": c.despues,
            }
        )
    return out
