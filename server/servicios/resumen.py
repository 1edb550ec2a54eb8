"""A tournament as the API and the pages show it, and its exports (JSON with every hand, CSV
safe for a spreadsheet). No HTTP here."""

from __future__ import annotations

import csv
import io
from typing import Any

from sqlalchemy import select
from sqlalchemy.orm import Session

from server.modelos.torneo import Mano, Torneo
from server.servicios import correcciones, llamadas, miembros, reloj
from server.servicios import torneos as servicio


def resumen(s: Session, t: Torneo) -> dict[str, Any]:
    parejas = servicio.parejas_de(s, t)
    rondas = {r.id: r for r in servicio.rondas_de(s, t)}
    return {
        "id": t.id,
        "nombre": t.nombre,
        "reglas": t.reglas,
        "formato": t.formato,
        "arbitros_corrigen": t.arbitros_corrigen,
        **servicio.estado_torneo(s, t),
        "parejas": [
            {
                "id": p.id,
                "nombre": p.nombre,
                "jugadores": p.jugadores,
                "grupo": p.grupo,
                "retirada": p.retirada,
                "entra_en": p.entra_en,
            }
            for p in parejas
        ],
        "mesas": [{"numero": m.numero, "codigo": servicio.codigo_mesa(s, m)} for m in servicio.mesas_de(s, t)],
        "rondas": [{"numero": r.numero, "fase": r.fase} for r in rondas.values()],
        "partidas": [
            servicio.estado_partida(s, t, e) | {"ronda": rondas[e.ronda_id].numero}
            for e in servicio.enfrentamientos_de(s, t)
        ],
        "correcciones": correcciones.correcciones(s, t),
        "firma": servicio.firma_publica(s, t),
    }  # of the public page: /publico/{id}/{firma}


def exportar(s: Session, t: Torneo) -> dict[str, Any]:
    """Everything but the join codes (credentials), with every hand as it was stored, and who
    acts in the tournament (``miembros``: user name and role; no password hash, no code) with
    the log of its changes (``cambios_miembros``)."""
    r = resumen(s, t)
    r.pop("mesas")
    manos = s.scalars(select(Mano).where(Mano.torneo_id == t.id).order_by(Mano.enfrentamiento_id, Mano.id))
    return r | {
        "clasificacion": servicio.clasificacion(s, t)["grupos"],
        "incidencias": servicio.incidencias(s, t),
        "miembros": miembros.miembros(s, t),
        "cambios_miembros": miembros.cambios(s, t),
        "llamadas": llamadas.llamadas(s, t),  # calls to the referee
        "reloj": reloj.registro(s, t),  # the round clocks' log
        "manos": [
            {
                "partida": m.enfrentamiento_id,
                "numero": m.numero,
                "id": m.cliente_id,
                "registro": m.registro,
                "marcador": m.marcador,
                "ganados": m.ganados,
                "juego": m.juego,
                "foto": m.foto,
                "discrepancia": m.discrepancia,
                "anulada": m.anulada,
                "recibida": m.recibida.isoformat(timespec="seconds") + "Z",
            }
            for m in manos
        ],
    }


def a_csv(data: dict[str, Any]) -> str:
    """The matches, one row each (ronda, mesa, parejas, juegos, marcador, ganador, the reason of
    a correction); every text cell made safe for a spreadsheet."""
    out = io.StringIO()
    w = csv.writer(out)
    w.writerow(
        [
            "ronda",
            "mesa",
            "pareja_0",
            "pareja_1",
            "juegos_0",
            "juegos_1",
            "tantos_0",
            "tantos_1",
            "manos",
            "ganador",
            "correccion",
        ]
    )
    motivos = {c["partida"]: c["motivo"] for c in data.get("correcciones", [])}
    for p in data["partidas"]:
        juegos = p.get("juegos", ["", ""])
        tantos = p.get("tantos", ["", ""])
        ganador = p["parejas"][p["ganador"]] if p["ganador"] is not None else ""
        w.writerow(
            [
                celda(v)
                for v in (
                    p["ronda"],
                    p["mesa"] or "",
                    p["parejas"][0],
                    p["parejas"][1] or "",
                    juegos[0],
                    juegos[1],
                    tantos[0],
                    tantos[1],
                    p.get("manos", 0),
                    ganador,
                    motivos.get(p["id"], ""),
                )
            ]
        )
    return out.getvalue()


def celda(valor: Any) -> Any:
    """A CSV cell a spreadsheet will not run: text starting with = + - @ or a tab or carriage
    return gets a leading apostrophe (OWASP's CSV injection advice); numbers stay numbers."""
    if isinstance(valor, str) and valor[:1] in ("=", "+", "-", "@", "\t", "\r"):
        return "'" + valor
    return valor
