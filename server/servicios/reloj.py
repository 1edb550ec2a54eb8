"""A round's clock: the organiser starts it with the round's minutes, pauses,
resumes or extends it (each change logged with who and why), and once time is up closes the
round on time: every match of the round still unfinished goes to the pareja ahead by the
clock's rule, recorded as a correction with ``"por_tiempo": true`` (so the audit trail, the
standings and the next round's pairings see it as any result). No HTTP here (server.rutas.dia).

The pages get the end as an instant of the server's clock (``fin``, with the server's ``ahora``)
and count down by themselves.

Rules (``regla``): ``juegos_tantos`` (juegos won, then the tantos of the juego in play, then all
the tantos scored) and ``tantos`` (all the tantos scored, then juegos); a tie on everything goes
to pareja 0 (the better seed of the pairing)."""

from __future__ import annotations

import datetime as dt
from typing import Any, Final

from sqlalchemy import select
from sqlalchemy.orm import Session

from server.db import ahora
from server.modelos.torneo import CambioReloj, Cuenta, Enfrentamiento, RelojRonda, Ronda, Torneo
from server.servicios import correcciones
from server.servicios import torneos as servicio
from server.servicios.torneos import ServicioError

REGLAS: Final = ("juegos_tantos", "tantos")
MAX_MINUTOS: Final = 600
MOTIVO_CIERRE: Final = "cerrada por tiempo"


def _iso(t: dt.datetime | None) -> str | None:
    return None if t is None else t.isoformat(timespec="seconds") + "Z"


def _ronda(s: Session, t: Torneo) -> Ronda:
    rondas = servicio.rondas_de(s, t)
    if not rondas:
        raise ServicioError("aún no hay rondas", 409)
    return rondas[-1]


def _reloj(s: Session, t: Torneo, ronda: Ronda, bloquear: bool = False) -> RelojRonda:
    r = s.get(RelojRonda, ronda.id, with_for_update=bloquear)
    if r is None:
        raise ServicioError("esta ronda no tiene reloj", 409)
    return r


def _minutos(minutos: int) -> int:
    if not 1 <= minutos <= MAX_MINUTOS:
        raise ServicioError("los minutos deben ser de 1 a {n}", n=MAX_MINUTOS)
    return minutos


def _motivo(motivo: str) -> str:
    motivo = " ".join(motivo.split())
    if not 3 <= len(motivo) <= 500:
        raise ServicioError("el motivo debe tener de 3 a 500 caracteres")
    return motivo


def _anotar(
    s: Session, t: Torneo, ronda: Ronda, accion: str, usuario: str, motivo: str, minutos: int | None = None
) -> None:
    s.add(
        CambioReloj(torneo_id=t.id, ronda_id=ronda.id, accion=accion, minutos=minutos, usuario=usuario, motivo=motivo)
    )


def restante(r: RelojRonda, now: dt.datetime) -> int:
    """Seconds left (0 once time is up)."""
    if r.fin is None:
        return max(0, r.restante or 0)
    return max(0, int((r.fin - now).total_seconds() + 0.999))


def iniciar(s: Session, t: Torneo, usuario: str, minutos: int, regla: str = "juegos_tantos") -> dict[str, Any]:
    """Start the clock of the round now played: it ends ``minutos`` from now."""
    if regla not in REGLAS:
        raise ServicioError("regla de fin de tiempo desconocida: {regla}", regla=regla)
    ronda = _ronda(s, t)
    if s.get(RelojRonda, ronda.id) is not None:
        raise ServicioError("el reloj de esta ronda ya está en marcha", 409)
    now = ahora()
    s.add(
        RelojRonda(
            ronda_id=ronda.id,
            torneo_id=t.id,
            minutos=_minutos(minutos),
            regla=regla,
            fin=now + dt.timedelta(minutes=minutos),
            cerrada=False,
        )
    )
    _anotar(s, t, ronda, "inicio", usuario, "", minutos)
    s.flush()
    hecho = estado(s, t, now)
    assert hecho is not None  # the clock was just written
    return hecho


def cambiar(
    s: Session, t: Torneo, usuario: str, accion: str, motivo: str, minutos: int | None = None
) -> dict[str, Any]:
    """``pausa``, ``reanuda`` or ``prorroga`` (``minutos`` more) the round's clock, with why."""
    ronda = _ronda(s, t)
    r = _reloj(s, t, ronda, bloquear=True)
    if r.cerrada:
        raise ServicioError("la ronda ya se cerró por tiempo", 409)
    motivo, now = _motivo(motivo), ahora()
    if accion == "pausa":
        if r.fin is None:
            raise ServicioError("el reloj ya está en pausa", 409)
        r.restante, r.fin = restante(r, now), None
    elif accion == "reanuda":
        if r.fin is not None:
            raise ServicioError("el reloj no está en pausa", 409)
        r.fin, r.restante = now + dt.timedelta(seconds=r.restante or 0), None
    elif accion == "prorroga":
        extra = dt.timedelta(minutes=_minutos(minutos or 0))
        if r.fin is None:
            r.restante = (r.restante or 0) + int(extra.total_seconds())
        else:
            r.fin = max(r.fin, now) + extra
    else:
        raise ServicioError("acción del reloj desconocida: {accion}", accion=accion)
    _anotar(s, t, ronda, accion, usuario, motivo, minutos if accion == "prorroga" else None)
    s.flush()
    hecho = estado(s, t, now)
    assert hecho is not None  # the clock was just written
    return hecho


def estado(s: Session, t: Torneo, now: dt.datetime | None = None) -> dict[str, Any] | None:
    """The clock of the round now played, or None when it has none: ``fin`` (the server's
    instant, None while paused), ``ahora`` (the server's now, for a page's clock offset),
    ``restante`` in seconds, ``pausado``, ``agotado`` and ``cerrada``."""
    rondas = servicio.rondas_de(s, t)
    r = s.get(RelojRonda, rondas[-1].id) if rondas else None
    if r is None:
        return None
    now = now or ahora()
    falta = restante(r, now)
    return {
        "ronda": rondas[-1].numero,
        "minutos": r.minutos,
        "regla": r.regla,
        "fin": _iso(r.fin),
        "ahora": _iso(now),
        "restante": falta,
        "pausado": r.fin is None,
        "agotado": falta == 0,
        "cerrada": r.cerrada,
    }


def decidir(regla: str, partida: dict[str, Any], total: tuple[int, int]) -> int:
    """The pareja (0 or 1) ahead at the end by ``regla``: ``partida`` is the match's state
    (server.servicios.torneos.estado_partida: ``juegos`` won, ``tantos`` of the juego in play) and
    ``total`` the tantos each scored in all its hands.

    >>> decidir("juegos_tantos", {"juegos": [1, 0], "tantos": [10, 30]}, (40, 50))
    0
    >>> decidir("juegos_tantos", {"juegos": [1, 1], "tantos": [10, 30]}, (70, 50))
    1
    >>> decidir("tantos", {"juegos": [1, 0], "tantos": [10, 30]}, (40, 50))
    1
    """
    juegos, tantos = partida.get("juegos") or [0, 0], partida.get("tantos") or [0, 0]
    claves = [juegos, tantos, list(total)] if regla == "juegos_tantos" else [list(total), juegos]
    for a, b in claves:
        if a != b:
            return 0 if a > b else 1
    return 0


def _cerrar(s: Session, t: Torneo, cuenta: Cuenta, e: Enfrentamiento, regla: str) -> dict[str, Any] | None:
    """Give match ``e`` to the pareja ahead by ``regla``, as a correction ``por_tiempo`` by
    ``cuenta``; None when it needs none (a bye, or finished)."""
    if e.pareja1_id is None or e.ganador is not None:
        return None
    partida = servicio.estado_partida(s, t, e)
    if partida.get("terminada"):
        return None
    _juegos, total = servicio._sumas(s, t, e).get(e.id, ((0, 0), (0, 0)))
    ganador = decidir(regla, partida, total)
    fila = correcciones.corregir(s, t, cuenta, e, ganador, partida["juegos"], MOTIVO_CIERRE, [total[0], total[1]])
    fila.despues = {**fila.despues, "por_tiempo": True}
    return {"partida": e.id, "ganador": ganador, "juegos": partida["juegos"], "tantos": list(total)}


def registrar_mano(
    s: Session, t: Torneo, e: Enfrentamiento, mano: servicio.ManoEnviada
) -> tuple[int, dict[str, Any] | ServicioError]:
    """A table's hand stored by the tournament's service (servicio.registrar_mano), then the
    round clock's say: the hand that finished after time was up closes its match."""
    estado, respuesta = servicio.registrar_mano(s, t, e, mano)
    if estado == 201 and e.ganador is None:
        al_llegar_mano(s, t, e)
    return estado, respuesta


def al_llegar_mano(s: Session, t: Torneo, e: Enfrentamiento) -> bool:
    """After a hand of match ``e`` is stored: if its round's clock ran out (not paused, not
    closed), that hand was the one being played at the end, and the match goes to the pareja
    ahead now, as the organiser's correction ``por_tiempo`` (the tournament's creator's account).
    Whether it closed the match."""
    r = s.get(RelojRonda, e.ronda_id)
    if r is None or r.cerrada or r.fin is None or restante(r, ahora()) > 0:
        return False
    cuenta = servicio.fila(s, Cuenta, t.organizador_id)
    return _cerrar(s, t, cuenta, e, r.regla) is not None


def cerrar_por_tiempo(s: Session, t: Torneo, cuenta: Cuenta, forzar: bool = False) -> list[dict[str, Any]]:
    """Close the round on time: each unfinished match goes to the pareja ahead (``decidir``),
    recorded as a correction by ``cuenta`` with ``por_tiempo``. Refused before time is up
    unless ``forzar``; the hands received until now count (the hand being played is finished
    and sent before it, or it is not counted: a later hand of a closed match is refused)."""
    ronda = _ronda(s, t)
    r = _reloj(s, t, ronda, bloquear=True)
    if r.cerrada:
        raise ServicioError("la ronda ya se cerró por tiempo", 409)
    if restante(r, ahora()) > 0 and not forzar:
        raise ServicioError("aún queda tiempo en esta ronda", 409)
    cerradas = [c for e in servicio.enfrentamientos_de(s, t, ronda) if (c := _cerrar(s, t, cuenta, e, r.regla))]
    r.cerrada, r.fin, r.restante = True, None, 0
    _anotar(s, t, ronda, "cierre", cuenta.usuario, MOTIVO_CIERRE)
    s.flush()
    return cerradas


def por_tiempo(s: Session, t: Torneo) -> set[int]:
    """The ids of the matches closed on time."""
    vigentes = servicio.correcciones_vigentes(s, t)
    return {eid for eid, c in vigentes.items() if c.despues.get("por_tiempo")}


def registro(s: Session, t: Torneo) -> list[dict[str, Any]]:
    """Every change of the tournament's clocks, oldest first (for the export)."""
    rondas = {r.id: r.numero for r in servicio.rondas_de(s, t)}
    q = select(CambioReloj).where(CambioReloj.torneo_id == t.id).order_by(CambioReloj.id)
    return [
        {
            "ronda": rondas[c.ronda_id],
            "accion": c.accion,
            "minutos": c.minutos,
            "usuario": c.usuario,
            "motivo": c.motivo,
            "cuando": _iso(c.cuando),
        }
        for c in s.scalars(q)
    ]
