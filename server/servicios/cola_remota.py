"""A remote tournament server's table played from the phone pages (`mus servir --torneo-remoto
URL`): its queue of hands in the database (server.modelos.torneo's ``mesa_remota`` and ``mano_remota``), so
every host behind one proxy sends it and a host killed midway loses nothing.

The protocol is the tablet's (mesa.torneo.ClienteTorneo, whose queue stays a SQLite file on the
tablet): each hand is queued once under its id before it is sent, sent in order, stored by the
server once under that id (a resend is answered alike); a tanteo the server scores differently is
queued again as ``<id>:s`` with the server's tanteo and the table's as ``discrepancia``, the hands
behind it without their ``marcador``; any other refusal sets the hand aside with the server's
words and holds the hands behind it until Reintentar or a new join.

One sender per table at a time, whichever host it runs on: a lease on the table's row
(``envio_hasta``), taken by a compare-and-set and given back when the send ends (a host killed
while sending leaves it to expire after :data:`LEASE_S`). No transaction stays open while a request
is on the network.
"""

from __future__ import annotations

import datetime as dt
import time
from collections.abc import Callable, Iterator, Mapping
from contextlib import AbstractContextManager, contextmanager
from dataclasses import dataclass
from typing import Any, Final

from sqlalchemy import delete, func, or_, select, update
from sqlalchemy.orm import Session

from mesa.i18n import N_, SOURCE
from mesa.torneo import CorreccionServidor, MesaUnida, Rechazada, SinRed, TorneoError, Transport
from scoring.protocolo import SUFIJO_CORREGIDA, corregida, tanteo_del_servidor
from server.modelos.torneo import ManoRemota, MesaRemota, ahora

LEASE_S: Final = 30  # a sender's hold on a table: several requests of a few seconds each
ESPERA_S: Final = 0.05  # how often a caller that waits for the sender at work looks again
Sesiones = Callable[[], AbstractContextManager[Session]]

PENDIENTE: Final = "pendiente"
ENVIADA: Final = "enviada"
RECHAZADA: Final = "rechazada"


def rechazo(status: int, doc: Mapping[str, Any]) -> TorneoError:
    """The server's refusal: its own words when it gave some, else its status."""
    said = doc.get("error")
    if isinstance(said, str) and said:
        return TorneoError(said, servidor=True)
    return TorneoError(N_("el servidor respondió {estado}"), estado=status)


def unirse(send: Transport, servidor: str, codigo: str) -> MesaUnida:
    """The join on the server (nothing written here yet: see :func:`guardar_union`)."""
    status, doc = send("POST", "/api/mesas/unirse", {"codigo": codigo}, None)
    if status != 200:
        raise rechazo(status, doc)
    return MesaUnida(servidor, doc["token"], doc["torneo"]["nombre"], dict(doc["partida"]))


def guardar_union(s: Session, clave: str, codigo: str, mesa: MesaUnida) -> MesaUnida:
    """The join written as the table's (in ``s``'s transaction): the same match again keeps its
    queue (a new token; the refused hands back to be sent); another match needs an empty queue.
    ``mesa`` with the number of the table's first hand of the match (``primera``)."""
    row = s.scalar(select(MesaRemota).where(MesaRemota.clave == clave).with_for_update())
    misma = row is not None and row.servidor == mesa.servidor and row.partida.get("id") == mesa.partida.get("id")
    primera = int(row.partida["primera"]) if misma and row is not None else int(mesa.partida.get("siguiente", 1))
    if row is None:
        row = MesaRemota(clave=clave)
        s.add(row)
    elif misma:
        s.execute(
            update(ManoRemota)
            .where(ManoRemota.mesa_id == row.id, ManoRemota.estado == RECHAZADA)
            .values(estado=PENDIENTE, error=None, estado_http=None)
        )
    else:
        esperan = s.scalar(select(func.count()).where(ManoRemota.mesa_id == row.id, ManoRemota.estado != ENVIADA))
        if esperan:
            raise TorneoError(N_("quedan manos sin enviar de la partida anterior: envíalas antes"))
        s.execute(delete(ManoRemota).where(ManoRemota.mesa_id == row.id))
    partida = dict(mesa.partida) | {"primera": primera}
    row.servidor, row.codigo, row.token, row.torneo, row.partida = (
        mesa.servidor,
        codigo,
        mesa.token,
        mesa.torneo,
        partida,
    )
    s.flush()  # a second join of a new table at once: the unique clave decides (IntegrityError)
    return MesaUnida(mesa.servidor, mesa.token, mesa.torneo, partida)


def mesa_de(s: Session, clave: str) -> MesaRemota | None:
    return s.scalar(select(MesaRemota).where(MesaRemota.clave == clave))


# -- one sender per table -----------------------------------------------------------------------


def _tomar(sesiones: Sesiones, clave: str) -> bool:
    """Take the table's lease (compare-and-set); whether this caller is its sender now."""
    now = ahora()
    with sesiones() as s:
        hecho = s.execute(
            update(MesaRemota)
            .where(
                MesaRemota.clave == clave,
                or_(MesaRemota.envio_hasta.is_(None), MesaRemota.envio_hasta < now),
            )
            .values(envio_hasta=now + dt.timedelta(seconds=LEASE_S))
        )
        return bool(getattr(hecho, "rowcount", 0))


def _dejar(sesiones: Sesiones, clave: str) -> None:
    with sesiones() as s:
        s.execute(update(MesaRemota).where(MesaRemota.clave == clave).values(envio_hasta=None))


@contextmanager
def turno(sesiones: Sesiones, clave: str, esperar: bool) -> Iterator[bool]:
    """Whether this caller is the table's one sender now, on any host (``esperar``: wait for a
    sender at work to finish, at most a lease, else leave the sending to it)."""
    limite = time.monotonic() + LEASE_S
    mio = _tomar(sesiones, clave)
    while not mio and esperar and time.monotonic() < limite:
        time.sleep(ESPERA_S)  # another host's or thread's send: polled, there is nothing to wait on
        mio = _tomar(sesiones, clave)
    try:
        yield mio
    finally:
        if mio:
            _dejar(sesiones, clave)


# -- the queue ------------------------------------------------------------------------------------


def encolar(s: Session, mesa: MesaRemota, manos: list[tuple[str, dict, list[int]]]) -> None:
    """Queue the partida's hands not queued yet, in order (each once under its id: a hand queued
    before, sent or corrected, stays as it is)."""
    tenidas = {
        i.removesuffix(SUFIJO_CORREGIDA)
        for i in s.scalars(select(ManoRemota.id_mano).where(ManoRemota.mesa_id == mesa.id))
    }
    ultimo = s.scalar(select(func.max(ManoRemota.numero)).where(ManoRemota.mesa_id == mesa.id))
    numero = ultimo + 1 if ultimo else int(mesa.partida.get("siguiente", 1))
    for id_mano, registro, marcador in manos:
        if id_mano in tenidas:
            continue
        cuerpo = {"id": id_mano, "numero": numero, "registro": dict(registro), "tanteo": [marcador[0], marcador[1]]}
        s.add(ManoRemota(mesa_id=mesa.id, numero=numero, id_mano=id_mano, cuerpo=cuerpo, estado=PENDIENTE))
        numero += 1
    s.flush()


def reintentar(s: Session, mesa: MesaRemota) -> None:
    """The refused hands back in the queue (the referee has seen them)."""
    s.execute(
        update(ManoRemota)
        .where(ManoRemota.mesa_id == mesa.id, ManoRemota.estado == RECHAZADA)
        .values(estado=PENDIENTE, error=None, estado_http=None)
    )


@dataclass
class Envio:
    """What a send did: whether it reached the server and the match as the server counts it."""

    conexion: bool = True
    estado: dict[str, Any] | None = None


def enviar(sesiones: Sesiones, clave: str, send: Transport, idioma: str = SOURCE) -> Envio:
    """Send the table's pending hands in order until the queue is empty, the network fails or the
    server refuses one (the caller holds :func:`turno`); then ask the server for its count."""
    out = Envio()
    with sesiones() as s:
        mesa = mesa_de(s, clave)
        if mesa is None or _rechazadas(s, mesa.id):
            return out
        mesa_id, token = mesa.id, mesa.token
    while True:
        with sesiones() as s:
            row = s.scalar(
                select(ManoRemota)
                .where(ManoRemota.mesa_id == mesa_id, ManoRemota.estado == PENDIENTE)
                .order_by(ManoRemota.numero)
                .limit(1)
            )
            if row is None:
                break
            numero, cuerpo = row.numero, _tras_correccion(s, row)
        try:
            status, doc = send("POST", "/api/mesa/manos", cuerpo, token)
        except SinRed:
            out.conexion = False
            return out
        if status >= 500 or status == 429:
            return out  # the server is busy or restarting: later
        with sesiones() as s:
            row = s.scalar(select(ManoRemota).where(ManoRemota.mesa_id == mesa_id, ManoRemota.numero == numero))
            if row is None:  # the queue went with another match meanwhile (a join): nothing more to send
                return out
            if status in (200, 201):
                row.estado, row.respuesta = ENVIADA, doc
            elif (servidor := tanteo_del_servidor(status, doc)) and "discrepancia" not in cuerpo:
                nuevo = corregida(cuerpo, servidor)  # queued again with the server's tanteo, sent next
                row.id_mano, row.cuerpo, row.tanteo_mesa = nuevo["id"], nuevo, list(cuerpo["tanteo"])
            else:
                row.estado, row.estado_http = RECHAZADA, status
                row.error = rechazo(status, doc).texto(idioma)
                return out
    try:
        status, doc = send("GET", "/api/mesa/partida", None, token)
    except SinRed:
        out.conexion = False
        return out
    if status == 200:
        out.estado = doc
    return out


def _tras_correccion(s: Session, row: ManoRemota) -> dict[str, Any]:
    """A hand behind a corrected one goes without its marcador (it may be the table's count
    before the correction): the server fills its own. Written before it is sent."""
    cuerpo = dict(row.cuerpo)
    if "marcador" not in cuerpo["registro"]:
        return cuerpo
    antes = s.scalar(
        select(func.count()).where(
            ManoRemota.mesa_id == row.mesa_id, ManoRemota.numero < row.numero, ManoRemota.tanteo_mesa.is_not(None)
        )
    )
    if not antes:
        return cuerpo
    cuerpo["registro"] = {k: v for k, v in cuerpo["registro"].items() if k != "marcador"}
    row.cuerpo = cuerpo
    return cuerpo


def _rechazadas(s: Session, mesa_id: int) -> list[ManoRemota]:
    return list(
        s.scalars(
            select(ManoRemota)
            .where(ManoRemota.mesa_id == mesa_id, ManoRemota.estado == RECHAZADA)
            .order_by(ManoRemota.numero)
        )
    )


def leido(s: Session, mesa: MesaRemota) -> dict[str, Any]:
    """The queue as the table's page shows it: hands waiting, refused (with how many behind
    each), corrected, and the server's answer to each hand it stored."""
    filas = list(s.scalars(select(ManoRemota).where(ManoRemota.mesa_id == mesa.id).order_by(ManoRemota.numero)))
    pendientes = [r for r in filas if r.estado == PENDIENTE]
    rechazadas = [
        Rechazada(r.numero, r.error or "", r.estado_http or 0, sum(1 for p in pendientes if p.numero > r.numero))
        for r in filas
        if r.estado == RECHAZADA
    ]
    enviadas = [r for r in filas if r.estado == ENVIADA]
    correcciones = [
        CorreccionServidor(r.numero, _par(r.tanteo_mesa), _par(r.cuerpo["tanteo"]), dict(r.respuesta or {}))
        for r in enviadas
        if r.tanteo_mesa is not None
    ]
    return {
        "pendientes": len(pendientes),
        "rechazadas": rechazadas,
        "correcciones": correcciones,
        "respuestas": {str(r.numero): r.respuesta for r in enviadas if r.respuesta is not None},
    }


def _par(v: Any) -> tuple[int, int]:
    return int(v[0]), int(v[1])
