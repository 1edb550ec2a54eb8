"""The opponents confirm each hand: in a tournament created with
``"formato": {..., "confirmacion_rival": true}`` a hand the table sends waits
(``ManoPendiente``) until a player of the other pareja confirms it on the same phone or tablet,
passed across: then it is stored and scored as any hand (server.servicios.torneos.registrar_mano). Refused,
it goes to the referee as an incident (``origen`` "rival") with both versions, the table's and
the opponents', and the table enters the hand again. A match has one hand waiting at a time. No
HTTP here (server.rutas.mesa and server.rutas.dia)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from sqlalchemy import select
from sqlalchemy.orm import Session

from server.modelos.torneo import Enfrentamiento, Incidencia, Mano, ManoPendiente, Torneo
from server.servicios import torneos as servicio
from server.servicios.torneos import ServicioError


def exigida(t: Torneo) -> bool:
    return bool((t.formato or {}).get("confirmacion_rival"))


def pendiente(s: Session, e: Enfrentamiento) -> ManoPendiente | None:
    return s.scalar(select(ManoPendiente).where(ManoPendiente.enfrentamiento_id == e.id).limit(1))


def ya_guardada(s: Session, e: Enfrentamiento, cliente_id: str) -> bool:
    """Whether the hand was confirmed and stored already (a resend gets its first answer)."""
    q = select(Mano.id).where(Mano.enfrentamiento_id == e.id, Mano.cliente_id == cliente_id)
    return s.scalar(q.limit(1)) is not None


def a_json(p: ManoPendiente) -> dict[str, Any]:
    return {"pendiente": True, "id": p.cliente_id, "numero": p.numero, "tanteo": p.cuerpo.get("tanteo")}


def guardar(s: Session, t: Torneo, e: Enfrentamiento, cuerpo: dict[str, Any]) -> tuple[int, dict[str, Any]]:
    """Keep the hand until the opponents confirm it: (202, what waits). The same hand sent again
    gets the same answer; another hand while one waits is refused (409)."""
    error = servicio.partida_cerrada(s, e)
    if error is not None:
        raise error
    previa = pendiente(s, e)
    if previa is not None:
        if previa.cliente_id == cuerpo["id"]:
            return 202, a_json(previa)
        raise ServicioError("la mano {numero} espera la confirmación de la otra pareja", 409, numero=previa.numero)
    fila = ManoPendiente(
        torneo_id=t.id, enfrentamiento_id=e.id, cliente_id=cuerpo["id"], numero=cuerpo["numero"], cuerpo=cuerpo
    )
    s.add(fila)
    s.flush()
    return 202, a_json(fila)


def responder(
    s: Session,
    t: Torneo,
    e: Enfrentamiento,
    cliente_id: str,
    acepta: bool,
    registrar: Callable[[dict[str, Any]], tuple[int, Any]],
    tanteo: list[int] | None = None,
    motivo: str = "",
) -> tuple[int, Any]:
    """The other pareja's answer about the waiting hand ``cliente_id``: accepted, it is stored
    by ``registrar`` (the table's route's own, from the body as sent) and its answer returned;
    refused, an incident with both versions: (200, {"rechazada": true})."""
    p = pendiente(s, e)
    if p is None or p.cliente_id != cliente_id:
        raise ServicioError("no hay ninguna mano que confirmar con ese id", 404)
    cuerpo = dict(p.cuerpo)
    s.delete(p)
    s.flush()
    if acepta:
        return registrar(cuerpo)
    rival = f"{list(tanteo)}" if tanteo else "—"
    s.add(
        Incidencia(
            torneo_id=t.id,
            origen="rival",
            mano_id=None,
            mesa_id=e.mesa_id,
            pareja_id=None,
            asiento=None,
            tipo="mano_rechazada",
            gravedad="",
            articulo="",
            razon=(
                f"mano {cuerpo['numero']}: la mesa envió el tanteo {list(cuerpo['tanteo'])}, la otra pareja dice "
                f"{rival}" + (f": {' '.join(motivo.split())[:300]}" if motivo.strip() else "")
            ),
        )
    )
    s.flush()
    return 200, {"rechazada": True, "id": cliente_id, "numero": cuerpo["numero"]}
