"""A tournament table played from the phones: join the match with the table's code, play it as
a partida of this server (the same hand pages; names, rules and mano from the match; the match
in the partida's ``torneo`` field), and write each confirmed hand to the tournament.

Two kinds of table, and no third:

- **This server's own tournament** (the usual case: `mus servir` is the tournament server). The
  join and every hand go in-process through the tournament's service (server.servicios.torneos: the
  table's code, a table token kept only as its hash, ``registrar_mano`` under the match's lock),
  in this server's database: no HTTP to itself, no queue. A hand is scored once, by its
  partida, and handed to the tournament as scored (``ManoEnviada.puntuada``) in the confirm's
  own transaction (:func:`al_confirmar`); one the tournament does not take then (a token no
  longer good, a match closed) waits and is written by a later send. Nothing of the match is
  copied into the partida: what the pages show (the match as the tournament counts it, its
  answer to each hand, why a hand waits) is read from the tournament's tables when asked.
- **A remote tournament server the operator configured** (``mus servir --torneo-remoto URL``,
  repeatable; a laptop at the table serving the phones). Only such a server is ever connected
  to, never an address from a request: a request naming any other server is refused before
  anything is opened or created. The protocol (an idempotent id per hand, the server scoring it
  again, a tanteo that differs sent again as ``<id>:s`` and recorded there as a discrepancy, any
  other refusal set aside with what to do, the hands behind it held) is the tablet's
  (mesa.torneo.ClienteTorneo), with the table's queue in this server's database
  (server.servicios.cola_remota: written only once a join succeeded, sent by one host at a time, any of
  them). Its requests run in a small pool of threads of their own with a short timeout, never
  in the event loop nor in the threads that answer the other requests, and their errors say
  nothing of the network (no address, port or system message). What the remote server
  answered is kept in the partida's ``torneo`` field, for every host to show.

A confirmed hand is stored here at once (server.servicios.partidas, under the id the hand page gave it), and
what goes to the tournament is made from the stored hands, so a reload, a locked phone or a lost
network loses nothing.
"""

from __future__ import annotations

import contextlib
import datetime as dt
import hashlib
import threading
from collections.abc import Callable, Iterable, Mapping
from concurrent.futures import Future, ThreadPoolExecutor
from contextlib import AbstractContextManager
from dataclasses import asdict
from typing import Any, Final, TypeVar
from urllib.parse import urlsplit

from sqlalchemy import select
from sqlalchemy.exc import IntegrityError, SQLAlchemyError
from sqlalchemy.orm import Session

from mesa.i18n import N_, SOURCE, t
from mesa.torneo import CorreccionServidor, MensajeTorneo, MesaUnida, Rechazada, SinRed, TorneoError, Transport, http
from mesa.torneo_mesa import comprobar_partida, texto_correccion, texto_rechazada, validar_servidor
from scoring.protocolo import SUFIJO_CORREGIDA, codigo_de
from scoring.tanteo import ResultadoTanteo
from server.modelos.partidas import ManoPartida, PartidaWeb
from server.modelos.torneo import Enfrentamiento, Mano, TokenMesa, Torneo
from server.servicios import cola_remota, confirmacion, reloj
from server.servicios import partidas as servicio
from server.servicios import torneos as torneo_servicio
from server.servicios.partidas import WebError

RESPIRO_S: Final = 20  # how often a table with nothing new asks the server for its count of the match
LOCAL: Final = ""  # the ``servidor`` of a table of this server's own tournament (in-process)
# a remote server's request: a hand that waits is sent at the next try, a phone must not wait
# long for its page (the tablet's own client allows 5 s: mesa.torneo.TIMEOUT)
TIMEOUT_REMOTO: Final = 3.0
ESPERA_CERROJO_S: Final = 2.0  # a confirm waits this long for the match's writer (milliseconds each)
HILOS_REMOTOS: Final = 4  # threads for the remote servers' requests, apart from those answering the phones
NO_CONFIGURADO: Final = N_(
    "este servidor solo envía las manos a los servidores de torneo que tiene configurados: "
    "abre la mesa en el servidor del torneo"
)
OTRA_PARTIDA: Final = N_("esta mesa se unió a otra partida: únete otra vez con el código")
CONFIRMA_TABLETA: Final = N_("la otra pareja confirma las manos de esta mesa en la tableta del torneo")
Sesiones = Callable[[], AbstractContextManager[Session]]
T = TypeVar("T")

_pool = ThreadPoolExecutor(max_workers=HILOS_REMOTOS, thread_name_prefix="musmesa-torneo-remoto")
_esperando: set[str] = set()  # tables whose send waits in the pool: a second one is not queued
_esperando_lock = threading.Lock()


def _huella(*partes: object) -> str:
    return hashlib.sha256("|".join(map(str, partes)).encode()).hexdigest()[:24]


# -- which server -------------------------------------------------------------------------------


def normalizar(url: str) -> str | None:
    """A server's address in one spelling (``http://host[:port][/path]``: scheme and host in
    lower case, the scheme's default port and a final slash left out), or None when it is none.

    >>> normalizar("Mesa.Club:80/"), normalizar("https://t.example.org:443/liga"), normalizar("ftp://x")
    ('http://mesa.club', 'https://t.example.org/liga', None)
    """
    try:
        parts = urlsplit(validar_servidor(url))
        port = parts.port
    except ValueError:
        return None
    host = parts.hostname
    if not host or parts.username or parts.password or parts.query or parts.fragment:
        return None
    if ":" in host:
        host = f"[{host}]"
    defecto = 80 if parts.scheme == "http" else 443
    return f"{parts.scheme}://{host}{'' if port in (None, defecto) else f':{port}'}{parts.path.rstrip('/')}"


def destino(pedido: str | None, este: Iterable[str], remotos: Iterable[str]) -> str:
    """Where a join asked for ``pedido`` goes: :data:`LOCAL` (no server named, or this server
    under any address it is reached by), or one of the operator's ``remotos`` as configured;
    any other server is refused here, before anything is opened (WebError 422).

    >>> destino("", [], []) == LOCAL, destino("http://a:8000/", ["http://A:8000"], []) == LOCAL
    (True, True)
    >>> destino("t.club", ["http://a:8000"], ["http://t.club/"])
    'http://t.club'
    >>> try:
    ...     destino("http://127.0.0.1:22", ["http://a:8000"], ["http://t.club"])
    ... except WebError as exc:
    ...     print(exc.estado)
    422
    """
    if not pedido or not pedido.strip():
        return LOCAL
    url = normalizar(pedido)
    if url is not None and url in {normalizar(u) for u in este}:
        return LOCAL
    for remoto in remotos:
        if url is not None and normalizar(remoto) == url:
            return url
    raise WebError(NO_CONFIGURADO, 422)


def remotos_de(state: Any) -> tuple[str, ...]:
    """The remote servers the operator configured (an app's ``state.torneos_remotos``, set by
    `mus servir --torneo-remoto`; none when unset)."""
    return tuple(getattr(state, "torneos_remotos", ()))


def _configurado(servidor: str, remotos: Iterable[str]) -> bool:
    return normalizar(servidor) in {normalizar(r) for r in remotos}


def en_hilo_remoto(fn: Callable[..., T], *args: Any) -> Future[T]:
    """Run ``fn`` in the remote servers' own threads (the routes await the future)."""
    return _pool.submit(fn, *args)


def _transporte(base: str, idioma: str) -> Transport:
    return http(base, idioma, timeout=TIMEOUT_REMOTO)


# -- errors ---------------------------------------------------------------------------------------


def _error(exc: MensajeTorneo, idioma: str, estado: int = 409) -> WebError:
    """The client's message as the pages' error, without any detail of the network: no
    address, port, system message or bare HTTP status of the other server (its own words,
    when it gave some, are said as they came)."""
    if isinstance(exc, SinRed):
        return WebError(N_("no se llega al servidor del torneo: inténtalo más tarde"), 503)
    if not exc.servidor and "estado" in exc.datos:
        return WebError(N_("el servidor del torneo no ha aceptado la petición"), 502)
    return WebError(exc.texto(idioma), estado)


def _de_servicio(exc: torneo_servicio.ServicioError) -> WebError:
    """The tournament service's refusal, said in the player's language (server.servicios.partidas.WebError
    falls back on the tournament's own catalogue)."""
    return WebError(exc.msgid, exc.estado, **exc.params)


# -- joining ------------------------------------------------------------------------------------


def _codigo_o_error(codigo: str) -> str:
    code = codigo_de(codigo)
    if code is None:
        raise WebError(N_("el código de mesa tiene 10 letras y cifras (sin 0, O, 1 ni I)"))
    return code


def _partida_de_la_mesa(s: Session, mesa: MesaUnida, clave_match: str, idioma: str) -> PartidaWeb:
    """This server's partida that plays the match (made at the first join, found at the next)."""
    p = _de_match(s, clave_match)
    if p is not None:
        return p
    comprobar_partida(mesa)  # TorneoError: nothing is made
    partida = mesa.partida
    clave = servicio.crear_partida(
        s, list(partida["jugadores"]), partida["reglas"], int(partida.get("mano", 0)), idioma
    )
    p = s.scalar(select(PartidaWeb).where(PartidaWeb.clave == clave))
    assert p is not None
    return p


def _datos_mesa(mesa: MesaUnida, clave_match: str) -> dict[str, Any]:
    partida = mesa.partida
    return {
        "clave": clave_match,
        "servidor": mesa.servidor,
        "torneo": mesa.torneo,
        "partida": partida.get("id"),
        "mesa": partida.get("mesa"),
        "parejas": mesa.parejas,
    }


def unirse_local(sesiones: Sesiones, codigo: str, idioma: str = SOURCE) -> str:
    """Join the match now played at the table of ``codigo`` in this server's own tournament,
    in-process; the clave of the partida that plays it (see :func:`unirse_remoto`)."""
    code = _codigo_o_error(codigo)
    with sesiones() as s:
        try:
            token, torneo, e = torneo_servicio.unirse(s, code)
            doc = torneo_servicio.estado_partida(s, torneo, e)
        except torneo_servicio.ServicioError as exc:
            raise _de_servicio(exc) from None
        mesa = MesaUnida(LOCAL, "", torneo.nombre, doc)
        clave_match = _huella(LOCAL, doc.get("id"))
        try:
            p = _partida_de_la_mesa(s, mesa, clave_match, idioma)
        except TorneoError as exc:  # the transaction rolls back: not even the token stays
            raise _error(exc, idioma) from None
        # what the table's pages need to find the match (never a result: read from the tournament)
        p.torneo = _datos_mesa(mesa, clave_match) | {
            "token": torneo_servicio.huella(token),  # the hash only, as the tournament keeps it
            "primera": int((p.torneo or {}).get("primera", mesa.primera)),
        }
        return p.clave


def unirse_remoto(sesiones: Sesiones, servidor: str, codigo: str, idioma: str = SOURCE) -> str:
    """Join the match now played at the table of ``codigo`` on the configured tournament
    server at ``servidor``; the clave of this server's partida that plays it (made at the
    first join, found again at the next: another phone, a lost page, a token that expired).
    The table's queue (server.servicios.cola_remota, in the database) is written only once a join succeeded."""
    code = _codigo_o_error(codigo)
    try:
        mesa = cola_remota.unirse(_transporte(servidor, idioma), servidor, code)
    except MensajeTorneo as exc:
        raise _error(exc, idioma) from None
    clave_mesa = _huella(servidor, code)
    try:
        return _guardar_union(sesiones, clave_mesa, code, mesa, idioma)
    except IntegrityError:  # two phones joining a new table at once: the second finds the first's
        return _guardar_union(sesiones, clave_mesa, code, mesa, idioma)


def _guardar_union(sesiones: Sesiones, clave_mesa: str, code: str, mesa: MesaUnida, idioma: str) -> str:
    with sesiones() as s:
        try:
            mesa = cola_remota.guardar_union(s, clave_mesa, code, mesa)
            clave_match = _huella(mesa.servidor, mesa.partida.get("id"))
            p = _partida_de_la_mesa(s, mesa, clave_match, idioma)
        except TorneoError as exc:  # the transaction rolls back: nothing half-joined stays behind
            raise _error(exc, idioma) from None
        p.torneo = (
            (p.torneo or {})
            | _datos_mesa(mesa, clave_match)
            | {
                "cola": clave_mesa,
                "primera": mesa.primera,
                "estado": _estado_servidor(mesa.partida),
                "vistas": None,  # joined again: the next request sends (a refused hand back in the queue)
            }
        )
        return p.clave


def unirse(sesiones: Sesiones, servidor: str, codigo: str, idioma: str = SOURCE) -> str:
    """:func:`unirse_local` for :data:`LOCAL`, else :func:`unirse_remoto` (``servidor`` must
    come from :func:`destino`: this function connects to it)."""
    if servidor == LOCAL:
        return unirse_local(sesiones, codigo, idioma)
    return unirse_remoto(sesiones, servidor, codigo, idioma)


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


def es_local(sesiones: Sesiones, clave: str) -> bool:
    """Whether the partida plays a match of this server's own tournament (WebError when it
    plays none)."""
    with sesiones() as s:
        _, info = _torneo(s, clave)
    return info.get("servidor", LOCAL) == LOCAL


def enviar(
    sesiones: Sesiones,
    clave: str,
    idioma: str = SOURCE,
    reintentar: bool = False,
    esperar: bool = True,
    remotos: Iterable[str] = (),
) -> dict[str, Any]:
    """Write the partida's stored hands that the tournament does not have yet (after the
    sender at work, or, without ``esperar``, leaving it to that one); the state the pages show,
    as stored afterwards. A remote table's requests are made in the calling thread: callers
    run this in :func:`en_hilo_remoto`.
    ``reintentar``: the refused hands go back to the queue first (the referee has seen them;
    a remote table's token no longer good is mended by joining again with the table's code).
    ``remotos``: the configured remote servers; a remote table's server no longer among them
    (a table joined before the operator left it out) is not connected to."""
    with sesiones() as s:
        p, info = _torneo(s, clave)
        manos = _manos(s, p)
    if info.get("servidor", LOCAL) == LOCAL:
        _enviar_local(sesiones, info, manos)
        return estado(sesiones, clave, idioma)
    if not reintentar and _al_dia(info, len(manos)):
        return estado(sesiones, clave, idioma)
    with sesiones() as s:
        sin_cola = cola_remota.mesa_de(s, str(info.get("cola"))) is None  # joined by a server of before
    if not _configurado(str(info.get("servidor")), remotos):
        cambios = {"conexion": False, "aviso": NO_CONFIGURADO}
    elif sin_cola:
        cambios = {"conexion": False, "aviso": OTRA_PARTIDA}
    else:
        with cola_remota.turno(sesiones, str(info["cola"]), esperar) as mio:
            if not mio:
                return estado(sesiones, clave, idioma)
            cambios = _enviar(sesiones, info, manos, reintentar, idioma)
    with sesiones() as s:
        p, info = _torneo(s, clave)
        p.torneo = info | cambios | {"vistas": len(manos)}
    return estado(sesiones, clave, idioma)


def enviar_si_torneo(sesiones: Sesiones, clave: str, idioma: str = SOURCE, remotos: Iterable[str] = ()) -> None:
    """:func:`enviar` for any partida (run after a page or a confirm has answered): a partida
    that plays no match sends nothing, a remote table's send goes to the remote threads (at
    most one not started yet per table), and what goes wrong is said by the table's page."""
    with contextlib.suppress(WebError):
        if es_local(sesiones, clave):
            enviar_local(sesiones, clave)
            return
        remotos = tuple(remotos)
        with _esperando_lock:
            if clave in _esperando:
                return
            _esperando.add(clave)
        en_hilo_remoto(_enviar_remoto_luego, sesiones, clave, idioma, remotos)


def _enviar_remoto_luego(sesiones: Sesiones, clave: str, idioma: str, remotos: tuple[str, ...]) -> None:
    with _esperando_lock:
        _esperando.discard(clave)
    with contextlib.suppress(WebError):
        # after the send at work, if any: the hands confirmed meanwhile go too (one such
        # waiting send per table at most, see enviar_si_torneo)
        enviar(sesiones, clave, idioma, esperar=True, remotos=remotos)


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


def _ahora() -> str:
    return dt.datetime.now(dt.UTC).isoformat(timespec="seconds")


def _enviar(
    sesiones: Sesiones, info: dict[str, Any], manos: list[tuple[str, dict, list[int]]], reintentar: bool, idioma: str
) -> dict[str, Any]:
    """A remote table's send, through its queue in the database (the caller holds its turn)."""
    clave_mesa, servidor = str(info["cola"]), str(info["servidor"])
    send = _transporte(servidor, idioma)
    with sesiones() as s:
        mesa = cola_remota.mesa_de(s, clave_mesa)
        if mesa is None or mesa.servidor != servidor or mesa.partida.get("id") != info["partida"]:
            # the table's queue went with another match (joined from another page): this one's hands wait
            return {"conexion": False, "aviso": OTRA_PARTIDA}
        codigo, rechazadas = mesa.codigo, cola_remota.leido(s, mesa)["rechazadas"]
    if reintentar and rechazadas and rechazadas[0].unirse_otra_vez:
        with contextlib.suppress(MensajeTorneo):
            nueva = cola_remota.unirse(send, servidor, codigo)  # a new token, the queue kept
            with sesiones() as s:
                cola_remota.guardar_union(s, clave_mesa, codigo, nueva)
    with sesiones() as s:
        mesa = cola_remota.mesa_de(s, clave_mesa)
        assert mesa is not None  # a table's row is never deleted
        if reintentar:
            cola_remota.reintentar(s, mesa)
        cola_remota.encolar(s, mesa, manos)
    envio = cola_remota.enviar(sesiones, clave_mesa, send, idioma)
    out: dict[str, Any] = {"conexion": envio.conexion, "aviso": ""}
    if envio.estado is not None:
        out["estado"] = _estado_servidor(envio.estado)
    with sesiones() as s:
        mesa = cola_remota.mesa_de(s, clave_mesa)
        assert mesa is not None
        cola = cola_remota.leido(s, mesa)
    return out | {
        "pendientes": cola["pendientes"],
        "rechazadas": [asdict(r) | {"unirse_otra_vez": r.unirse_otra_vez} for r in cola["rechazadas"]],
        "correcciones": [asdict(c) for c in cola["correcciones"]],
        "respuestas": cola["respuestas"],
        "actualizado": _ahora(),
    }


# -- this server's own tournament, in-process ---------------------------------------------------


def al_confirmar(
    s: Session, partida_id: int, n: int, id_mano: str, registro: dict[str, Any], res: ResultadoTanteo
) -> None:
    """A phone's hand ``n`` of a table of this server's own tournament, just confirmed in the
    session ``s`` (server.servicios.partidas.confirmar_mano calls this in its transaction): written to the
    tournament as its partida scored it (``puntuada``: not scored again, nothing to compare), in
    the same transaction, so a confirmed hand is the tournament's as soon as the phone hears of it.
    A hand the tournament does not take now (a token no longer good, a match closed) stays the
    partida's, waiting: its page says why (:func:`estado`), a later send writes it."""
    p = s.get(PartidaWeb, partida_id)
    info = p.torneo if p is not None else None
    if not info or info.get("servidor", LOCAL) != LOCAL:
        return
    eid = int(info["partida"])
    mano = torneo_servicio.ManoEnviada(
        id_mano, int(info["primera"]) + n - 1, registro, (res.marcador[0], res.marcador[1]), puntuada=res
    )
    cerrojo = torneo_servicio.cerrojo(eid)
    # a sender holding the lock may be waiting for this transaction's write (SQLite): the hand
    # then waits for the send that follows the confirm, instead of both waiting on each other
    if not cerrojo.acquire(timeout=ESPERA_CERROJO_S):
        return
    try:
        with contextlib.suppress(torneo_servicio.ServicioError), s.begin_nested():
            _registrar(s, str(info.get("token", "")), eid, mano)
    finally:
        cerrojo.release()


def _guardada(s: Session, eid: int, id_mano: str) -> Mano | None:
    """The tournament's row of a hand of the match, stored under its id (or, by a server of
    before, corrected)."""
    return s.scalar(
        select(Mano).where(Mano.enfrentamiento_id == eid, Mano.cliente_id.in_([id_mano, id_mano + SUFIJO_CORREGIDA]))
    )


def _token_de(s: Session, token: str, eid: int) -> TokenMesa:
    fila = s.scalar(select(TokenMesa).where(TokenMesa.huella == token))
    if fila is None or fila.enfrentamiento_id != eid:
        raise torneo_servicio.ServicioError("token de mesa no válido", 401)
    return fila


def _registrar(s: Session, token: str, eid: int, mano: torneo_servicio.ManoEnviada) -> None:
    """Store one hand of the table's match through the tournament's service, as its
    ``POST /api/mesa/manos`` does (one writer per match: the caller holds the process's lock,
    this the row's), unless it is stored already (looked up under the same locks: two phones, two
    workers, a send after a crash store it once); the service's ServicioError when refused."""
    fila = _token_de(s, token, eid)
    bloqueada = s.get(Enfrentamiento, eid, with_for_update=True)
    if _guardada(s, eid, mano.id) is not None:
        return
    torneo = s.get(Torneo, fila.torneo_id)
    if bloqueada is None or torneo is None:  # the token names them (foreign keys): kept for the types
        raise torneo_servicio.ServicioError("no existe esa partida", 404)
    if confirmacion.exigida(torneo):  # the other pareja confirms it first, on the table's page
        fuera = torneo_servicio.por_que_no(s, torneo, bloqueada, mano.numero, mano.registro)
        if fuera is not None:  # in order: a hand refused by the opponents waits before the next
            raise fuera
        cuerpo = {"id": mano.id, "numero": mano.numero, "registro": dict(mano.registro), "tanteo": list(mano.tanteo)}
        confirmacion.guardar(s, torneo, bloqueada, cuerpo)  # the same hand again: its same answer
        return
    _estado, respuesta = reloj.registrar_mano(s, torneo, bloqueada, mano)  # the round clock has its say
    if isinstance(respuesta, torneo_servicio.ServicioError):
        raise respuesta


def responder(sesiones: Sesiones, clave: str, id_mano: str, acepta: bool, motivo: str = "") -> None:
    """The other pareja's answer, on the table's phone passed across, about the hand of the
    table that waits for it (a tournament with ``confirmacion_rival``): confirmed, it is stored
    and scored by the tournament; refused, an incident for the referee with the table's version
    and the opponents' reason (server.servicios.confirmacion.responder). The hand stays the
    partida's: the next send puts it before the other pareja again, once the referee has seen it
    (a confirmed one: the send follows at once, for the next hand to wait on the same page)."""
    with sesiones() as s:
        _, info = _torneo(s, clave)
    if info.get("servidor", LOCAL) != LOCAL:
        raise WebError(CONFIRMA_TABLETA, 409)
    eid = int(info["partida"])
    try:
        with torneo_servicio.cerrojo(eid), sesiones() as s:  # one writer per match, as a hand
            fila = _token_de(s, str(info.get("token", "")), eid)
            e = s.get(Enfrentamiento, eid, with_for_update=True)
            torneo = s.get(Torneo, fila.torneo_id)
            if e is None or torneo is None:  # the token names them (foreign keys): kept for the types
                raise torneo_servicio.ServicioError("no existe esa partida", 404)

            def registrar(c: dict[str, Any]) -> tuple[int, Any]:
                enviada = torneo_servicio.ManoEnviada(
                    c["id"], c["numero"], c["registro"], (c["tanteo"][0], c["tanteo"][1])
                )
                return reloj.registrar_mano(s, torneo, e, enviada)  # the round clock has its say

            _estado, respuesta = confirmacion.responder(s, torneo, e, id_mano, acepta, registrar, None, motivo)
    except torneo_servicio.ServicioError as exc:
        raise _de_servicio(exc) from None
    if isinstance(respuesta, torneo_servicio.ServicioError):  # refused by the service, its incident committed
        raise _de_servicio(respuesta)
    if acepta:  # the table's next hand, confirmed meanwhile, waits for them now: the page shows it
        enviar_local(sesiones, clave)


def enviar_local(sesiones: Sesiones, clave: str) -> None:
    """:func:`_enviar_local` for the partida ``clave`` (a table of this server's tournament)."""
    with sesiones() as s:
        p, info = _torneo(s, clave)
        manos = _manos(s, p)
    _enviar_local(sesiones, info, manos)


def _manos(s: Session, p: PartidaWeb) -> list[tuple[str, dict, list[int]]]:
    """The partida's stored hands: id, record, the tanteo it was confirmed with."""
    filas = s.scalars(select(ManoPartida).where(ManoPartida.partida_id == p.id).order_by(ManoPartida.n))
    return [(m.id_mano, m.registro, m.tanteo["marcador"]) for m in filas]


def _enviar_local(sesiones: Sesiones, info: dict[str, Any], manos: list[tuple[str, dict, list[int]]]) -> None:
    """The hands of a table of this server's tournament that the tournament did not take at
    their confirm, written in order through its service once it takes them (a new join, the
    referee reopening the match), each in its own transaction; the first refused stops it
    (the page says why, read when shown). Nothing is kept of it: what the pages show is read
    from the tournament's tables."""
    eid, primera, token = int(info["partida"]), int(info["primera"]), str(info.get("token", ""))
    try:
        with sesiones() as s:
            guardadas = {m.removesuffix(SUFIJO_CORREGIDA) for m in _ids_guardados(s, eid)}
        for k, (id_mano, registro, marcador) in enumerate(manos):
            if id_mano in guardadas:
                continue
            mano = torneo_servicio.ManoEnviada(id_mano, primera + k, dict(registro), (marcador[0], marcador[1]))
            with torneo_servicio.cerrojo(eid), sesiones() as s:
                e = s.get(Enfrentamiento, eid)
                torneo = s.get(Torneo, e.torneo_id) if e is not None else None
                if e is None or torneo is None or _motivo(s, token, torneo, e, mano.numero, mano.registro):
                    return  # refused still (each refresh of the page would ask again): it waits
                _registrar(s, token, eid, mano)
    except torneo_servicio.ServicioError:
        return  # the first refused stops it: the page says why
    except SQLAlchemyError:
        return  # the database busy or lost: the next send writes them


def _ids_guardados(s: Session, eid: int) -> list[str]:
    return [c for c in s.scalars(select(Mano.cliente_id).where(Mano.enfrentamiento_id == eid)) if c]


def _rechazada(numero: int, exc: torneo_servicio.ServicioError, detras: int, idioma: str) -> dict[str, Any]:
    r = Rechazada(numero, _de_servicio(exc).texto(idioma), exc.estado, detras)
    return asdict(r) | {"unirse_otra_vez": r.unirse_otra_vez}


def _leido_local(s: Session, p: PartidaWeb, info: dict[str, Any], idioma: str) -> dict[str, Any]:
    """What the table's page shows, read from the tournament's tables now: its answer to each
    hand stored, the match as it counts it, and why the first hand waiting is not taken (the
    token, the match closed, the order: the service's own checks)."""
    eid, primera = int(info["partida"]), int(info["primera"])
    manos = list(
        s.execute(
            select(ManoPartida.id_mano, ManoPartida.registro)
            .where(ManoPartida.partida_id == p.id)
            .order_by(ManoPartida.n)
        )
    )
    filas = {m.cliente_id: m for m in s.scalars(select(Mano).where(Mano.enfrentamiento_id == eid))}
    respuestas: dict[str, Any] = {}
    correcciones: list[dict[str, Any]] = []
    rechazadas: list[dict[str, Any]] = []
    e = s.get(Enfrentamiento, eid)
    torneo = s.get(Torneo, e.torneo_id) if e is not None else None
    for k, (id_mano, registro) in enumerate(manos):
        fila = filas.get(id_mano) or filas.get(id_mano + SUFIJO_CORREGIDA)
        if fila is not None:
            respuestas[str(primera + k)] = fila.respuesta
            if fila.discrepancia is not None and fila.cliente_id.endswith(SUFIJO_CORREGIDA):  # by a server of before
                c = CorreccionServidor(primera + k, _par(fila.discrepancia), _par(fila.marcador), dict(fila.respuesta))
                correcciones.append(asdict(c))
        elif not rechazadas and e is not None and torneo is not None:
            motivo = _motivo(s, str(info.get("token", "")), torneo, e, primera + k, registro)
            if motivo is not None:
                rechazadas = [_rechazada(primera + k, motivo, len(manos) - k - 1, idioma)]
    cuenta = torneo_servicio.estado_partida(s, torneo, e) if e is not None and torneo is not None else {}
    espera = confirmacion.pendiente(s, e) if e is not None else None
    return {
        "confirmar": confirmacion.a_json(espera) if espera is not None else None,
        "estado": _estado_servidor(cuenta),
        "respuestas": respuestas,
        "correcciones": correcciones,
        "rechazadas": rechazadas,
        "conexion": True,
        "aviso": "",
        "actualizado": _ahora(),
    }


def _motivo(
    s: Session, token: str, torneo: Torneo, e: Enfrentamiento, numero: int, registro: Mapping[str, Any]
) -> torneo_servicio.ServicioError | None:
    """Why the tournament does not take the table's hand ``numero`` now, or None (it will at the next send)."""
    try:
        _token_de(s, token, e.id)
    except torneo_servicio.ServicioError as exc:
        return exc
    return torneo_servicio.por_que_no(s, torneo, e, numero, registro)


def _par(v: Any) -> tuple[int, int]:
    return int(v[0]), int(v[1])


# -- what the pages show ------------------------------------------------------------------------


def estado(sesiones: Sesiones, clave: str, idioma: str = SOURCE) -> dict[str, Any]:
    """The table's match as the pages show it: the tournament, the parejas, the server's
    marcador, this partida's marcador, the hands waiting, refused (with what to do) or corrected
    (a table of this server's tournament: read from the tournament's tables now)."""
    with sesiones() as s:
        p, info = _torneo(s, clave)
        local = servicio.ver(s, clave, idioma)
        propia = info.get("servidor", LOCAL) == LOCAL  # no code kept: a new join mends a token no longer good
        leido = _leido_local(s, p, info, idioma) if propia else info

    def tr(texto: str) -> str:
        return t(texto, idioma)

    rechazadas = [Rechazada(r["numero"], r["motivo"], r["estado"], r["detras"]) for r in leido.get("rechazadas", [])]
    correcciones = [
        CorreccionServidor(c["numero"], tuple(c["mesa"]), tuple(c["servidor"]), c.get("respuesta", {}))
        for c in leido.get("correcciones", [])
    ]
    # confirmed here and not stored by the server yet: waiting, held or refused
    pendientes = max(0, local["manos"] - len(leido.get("respuestas", {})))
    return {
        "clave": clave,
        "torneo": info.get("torneo", ""),
        "mesa": info.get("mesa"),
        "parejas": [p or "—" for p in info.get("parejas", [])],
        "servidor": info.get("servidor", ""),
        "marcador_servidor": leido.get("estado", {}),
        "marcador": local,
        "pendientes": pendientes,
        "conexion": bool(leido.get("conexion", True)),
        "aviso": tr(leido["aviso"]) if leido.get("aviso") else "",
        "rechazadas": [texto_rechazada(tr, r, telefono=True, con_codigo=not propia) for r in rechazadas],
        "correcciones": [texto_correccion(tr, c) for c in correcciones],
        "actualizado": leido.get("actualizado"),
        "confirmar": leido.get("confirmar"),  # the hand waiting for the other pareja (this server's tournament)
    }
