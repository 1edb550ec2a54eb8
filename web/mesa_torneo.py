"""A tournament table played from the phones, without HTTP: join the match with the table's
code, play it as a partida of this server (the same hand pages; names, rules and mano from the
match; the match in the partida's ``torneo`` field), and send each confirmed hand to the
tournament server.

Why the sending runs here, in this server, and not in the phone's browser: the protocol with the
tournament server (an idempotent id per hand, the server scoring it again, a tanteo that differs
taken with the server's and sent again as ``<id>:s`` so that it becomes an incident, any other
refusal set aside with what to do, the hands behind it held) is mesa.torneo's ClienteTorneo, the
tablet's own client. Running it here keeps ONE implementation of it, the one the tablet tests
prove, and works when this server is not the tournament server (a laptop at the table serving
the phones) as well as when it is. The phone's own part covers only the phone and this server:
a confirmed hand is stored here at once (web.servicio, under the id the hand page gave it), and
the queue to the tournament server is made from the stored hands, so a reload, a locked phone
or a lost network between here and the tournament server loses nothing.

The queue of each table is a ClienteTorneo file in the data folder (``mesas-torneo/<key>/``,
one per tournament server and table code: a virtual tablet, with the table's token); the hands
are queued under their partida ids, so queueing the stored hands again queues only the new
ones. What the pages show (the server's marcador, the hands waiting, refused or corrected) is
copied into the partida's ``torneo`` field after each send, so every server worker shows the
same. The senders of one table take a file lock: one sends, the others leave it to it.
"""

from __future__ import annotations

import contextlib
import datetime as dt
import hashlib
from collections.abc import Callable, Iterator
from contextlib import AbstractContextManager
from dataclasses import asdict
from pathlib import Path
from typing import Any, Final

from sqlalchemy import select
from sqlalchemy.orm import Session

from mesa.i18n import N_, SOURCE, t
from mesa.torneo import ClienteTorneo, Correccion, MensajeTorneo, Rechazada, SinRed, TorneoError
from mesa.torneo_mesa import comprobar_partida, texto_correccion, texto_rechazada, validar_servidor
from scoring.protocolo import codigo_de
from torneo.db import url_por_defecto
from web import servicio
from web.db import ManoPartida, PartidaWeb
from web.servicio import WebError

try:
    import fcntl  # one sender per table across server workers (POSIX)
except ImportError:  # pragma: no cover - Windows: the queue's own transactions still keep it whole
    fcntl = None  # type: ignore[assignment]

CARPETA: Final = "mesas-torneo"
FICHERO_CODIGO: Final = "codigo"
RESPIRO_S: Final = 20  # how often a table with nothing new asks the server for its count of the match
Sesiones = Callable[[], AbstractContextManager[Session]]


def _huella(*partes: object) -> str:
    return hashlib.sha256("|".join(map(str, partes)).encode()).hexdigest()[:24]


def carpeta(datos: Path, servidor: str, codigo: str) -> Path:
    """The queue folder of one table of one tournament server."""
    return Path(datos) / CARPETA / _huella(servidor, codigo)


def _guardar_codigo(folder: Path, codigo: str) -> None:
    """The table's code beside its queue, as the tablet keeps it in its settings, for joining
    again when the token is no longer good; never in the database (the tournament server
    keeps only a hash of it, so a copy of the database lets nobody join)."""
    path = folder / FICHERO_CODIGO
    path.touch(mode=0o600, exist_ok=True)
    path.write_text(codigo, encoding="ascii")


def _codigo(folder: Path) -> str | None:
    try:
        return codigo_de((folder / FICHERO_CODIGO).read_text(encoding="ascii"))
    except (OSError, UnicodeDecodeError):
        return None


@contextlib.contextmanager
def _cliente(folder: Path, idioma: str) -> Iterator[ClienteTorneo]:
    folder.mkdir(parents=True, exist_ok=True)
    cliente = ClienteTorneo(folder, idioma=idioma)
    try:
        yield cliente
    finally:
        cliente.close()


@contextlib.contextmanager
def _turno(folder: Path, esperar: bool) -> Iterator[bool]:
    """Whether this caller is the table's one sender now (a file lock; ``esperar``: wait for a
    sender at work to finish, else leave the sending to it)."""
    folder.mkdir(parents=True, exist_ok=True)
    with open(folder / "envio.lock", "a+b") as f:
        if fcntl is None:
            yield True
            return
        try:
            fcntl.flock(f.fileno(), fcntl.LOCK_EX | (0 if esperar else fcntl.LOCK_NB))
        except OSError:
            yield False
            return
        try:
            yield True
        finally:
            fcntl.flock(f.fileno(), fcntl.LOCK_UN)


def _error(exc: MensajeTorneo, idioma: str, estado: int = 409) -> WebError:
    """The client's message (already in the player's language) as the pages' error."""
    return WebError(exc.texto(idioma), 503 if isinstance(exc, SinRed) else estado)


# -- joining ------------------------------------------------------------------------------------


def unirse(sesiones: Sesiones, datos: Path, servidor: str, codigo: str, idioma: str = SOURCE) -> str:
    """Join the match now played at the table of ``codigo`` on the tournament server at
    ``servidor``; the clave of this server's partida that plays it (made at the first join,
    found again at the next: another phone, a lost page, a token that expired)."""
    code = codigo_de(codigo)
    if code is None:
        raise WebError(N_("el código de mesa tiene 10 letras y cifras (sin 0, O, 1 ni I)"))
    try:
        servidor = validar_servidor(servidor)
    except ValueError as exc:
        raise WebError(str(exc)) from None
    folder = carpeta(datos, servidor, code)
    with _turno(folder, esperar=True), _cliente(folder, idioma) as cliente:  # two phones joining: one partida
        try:
            mesa = cliente.unirse(servidor, code)
        except MensajeTorneo as exc:
            raise _error(exc, idioma) from None
        _guardar_codigo(folder, code)
        partida = mesa.partida
        clave_match = _huella(servidor, partida.get("id"))
        with sesiones() as s:
            p = _de_match(s, clave_match)
            if p is None:
                try:
                    comprobar_partida(mesa)
                except TorneoError as exc:
                    cliente.salir()  # nothing half-joined stays behind
                    raise _error(exc, idioma) from None
                clave = servicio.crear_partida(
                    s, list(partida["jugadores"]), partida["reglas"], int(partida.get("mano", 0)), idioma
                )
                p = s.scalar(select(PartidaWeb).where(PartidaWeb.clave == clave))
                assert p is not None
            p.torneo = (p.torneo or {}) | {
                "clave": clave_match,
                "servidor": servidor,
                "cola": folder.name,
                "torneo": mesa.torneo,
                "partida": partida.get("id"),
                "mesa": partida.get("mesa"),
                "parejas": mesa.parejas,
                "primera": mesa.primera,
                "estado": _estado_servidor(partida),
                "vistas": None,
            }  # joined again: the next request sends (a refused hand back in the queue)
            return p.clave


def _de_match(s: Session, clave_match: str) -> PartidaWeb | None:
    return s.scalar(select(PartidaWeb).where(PartidaWeb.torneo["clave"].as_string() == clave_match))


def _estado_servidor(doc: dict[str, Any]) -> dict[str, Any]:
    """What the page shows of the server's count of the match."""
    keys = ("tantos", "juegos", "vacas", "manos", "terminada", "ganador")
    return {k: doc[k] for k in keys if k in doc}


# -- sending ------------------------------------------------------------------------------------


def _torneo(s: Session, clave: str) -> tuple[PartidaWeb, dict[str, Any]]:
    p = servicio._partida(s, clave)  # the partida service's own lookup and message
    if not p.torneo:
        raise WebError(N_("esta partida no es de un torneo"), 404)
    return p, dict(p.torneo)


def enviar(
    sesiones: Sesiones, datos: Path, clave: str, idioma: str = SOURCE, reintentar: bool = False, esperar: bool = True
) -> dict[str, Any]:
    """Queue the partida's stored hands that are not queued yet and send the queue (after the
    sender at work, or, without ``esperar``, leaving it to that one); the state the pages show,
    as stored afterwards.
    ``reintentar``: the refused hands go back to the queue first (the referee has seen them;
    a token no longer good is mended by joining again with the table's code)."""
    with sesiones() as s:
        p, info = _torneo(s, clave)
        manos = [
            (m.id_mano, m.registro, m.tanteo["marcador"])
            for m in s.scalars(select(ManoPartida).where(ManoPartida.partida_id == p.id).order_by(ManoPartida.n))
        ]
    if not reintentar and _al_dia(info, len(manos)):
        return estado(sesiones, clave, idioma)
    folder = Path(datos) / CARPETA / info["cola"]
    with _turno(folder, esperar) as mio:
        if not mio:
            return estado(sesiones, clave, idioma)
        with _cliente(folder, idioma) as cliente:
            cambios = _enviar(cliente, info, manos, reintentar, _codigo(folder)) | {"vistas": len(manos)}
    with sesiones() as s:
        p, info = _torneo(s, clave)
        p.torneo = info | cambios
    return estado(sesiones, clave, idioma)


def enviar_si_torneo(sesiones: Sesiones, datos: Path, clave: str, idioma: str = SOURCE) -> None:
    """:func:`enviar` for any partida (run after a page or a confirm has answered): a partida
    that plays no match sends nothing, and what goes wrong is said by the table's page."""
    with contextlib.suppress(WebError):
        enviar(sesiones, datos, clave, idioma, esperar=False)


def _al_dia(info: dict[str, Any], manos: int) -> bool:
    """Nothing to send since the last send, which reached the server less than RESPIRO_S ago:
    every phone following the table asks every few seconds, and the server limits each table's
    requests."""
    try:
        antes = dt.datetime.fromisoformat(str(info.get("actualizado")))
    except ValueError:
        return False
    reciente = dt.datetime.now(dt.UTC) - antes < dt.timedelta(seconds=RESPIRO_S)
    parada = int(info.get("pendientes", 0)) == 0 or bool(info.get("rechazadas"))  # held until Reintentar
    return reciente and bool(info.get("conexion")) and info.get("vistas") == manos and parada


def _enviar(
    cliente: ClienteTorneo,
    info: dict[str, Any],
    manos: list[tuple[str, dict, list[int]]],
    reintentar: bool,
    codigo: str | None,
) -> dict[str, Any]:
    mesa = cliente.mesa()
    if mesa is None or mesa.servidor != info["servidor"] or mesa.partida.get("id") != info["partida"]:
        # the table's queue went with another match (joined from another page): this one's hands wait
        return {"conexion": False, "aviso": N_("esta mesa se unió a otra partida: únete otra vez con el código")}
    if reintentar:
        rechazadas = cliente.rechazadas()
        if rechazadas and rechazadas[0].unirse_otra_vez and codigo:
            with contextlib.suppress(MensajeTorneo):
                cliente.unirse(info["servidor"], codigo)  # a new token, the queue kept
        cliente.reintentar()
    for id_mano, registro, marcador in manos:
        cliente.encolar(registro, (marcador[0], marcador[1]), id_mano=id_mano)
    out: dict[str, Any] = {"conexion": True, "aviso": ""}
    try:
        cliente.enviar()
        out["estado"] = _estado_servidor(cliente.partida_servidor())
    except SinRed:
        out["conexion"] = False
    except TorneoError:
        pass  # the match as the server counts it is told at the next send
    out |= {
        "pendientes": cliente.pendientes(),
        "rechazadas": [asdict(r) | {"unirse_otra_vez": r.unirse_otra_vez} for r in cliente.rechazadas()],
        "correcciones": [asdict(c) for c in cliente.correcciones()],
        "respuestas": {str(n): r for n, r in cliente.respuestas().items()},
        "actualizado": dt.datetime.now(dt.UTC).isoformat(timespec="seconds"),
    }
    return out


# -- what the pages show ------------------------------------------------------------------------


def estado(sesiones: Sesiones, clave: str, idioma: str = SOURCE) -> dict[str, Any]:
    """The table's match as the pages show it: the tournament, the parejas, the server's
    marcador, this partida's marcador, the hands waiting, refused (with what to do) or corrected."""
    with sesiones() as s:
        _, info = _torneo(s, clave)
        local = servicio.ver(s, clave, idioma)

    def tr(texto: str) -> str:
        return t(texto, idioma)

    rechazadas = [Rechazada(r["numero"], r["motivo"], r["estado"], r["detras"]) for r in info.get("rechazadas", [])]
    correcciones = [
        Correccion(c["numero"], tuple(c["mesa"]), tuple(c["servidor"]), c.get("respuesta", {}))
        for c in info.get("correcciones", [])
    ]
    # confirmed here and not stored by the server yet: waiting, held or refused
    pendientes = max(0, local["manos"] - len(info.get("respuestas", {})))
    return {
        "clave": clave,
        "torneo": info.get("torneo", ""),
        "mesa": info.get("mesa"),
        "parejas": [p or "—" for p in info.get("parejas", [])],
        "servidor": info.get("servidor", ""),
        "marcador_servidor": info.get("estado", {}),
        "marcador": local,
        "pendientes": pendientes,
        "conexion": bool(info.get("conexion", True)),
        "aviso": tr(info["aviso"]) if info.get("aviso") else "",
        "rechazadas": [texto_rechazada(tr, r, telefono=True) for r in rechazadas],
        "correcciones": [texto_correccion(tr, c) for c in correcciones],
        "actualizado": info.get("actualizado"),
    }


def datos_de(datos: Path | None) -> Path:
    """The folder of the tables' queues: the server's data folder, else (a PostgreSQL server
    started without one) the user's data folder. The workers of one machine share it: the phones
    of one table are served from one machine."""
    if datos is not None:
        return Path(datos)
    return Path(url_por_defecto(None).removeprefix("sqlite:///")).parent
