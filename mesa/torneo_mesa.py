"""The tournament screen's logic, no Kivy: join and start the app's partida with the match,
queue every confirmed hand of that partida, send the queue in a background thread, and make the
app's marcador follow the server where the server scored a hand differently.

The queue is mesa.torneo's ClienteTorneo (its own SQLite file in the data folder). Its
connection belongs to the thread that opened it, so the sender thread opens its own client
on the same file; the queue's transactions keep the two consistent.
"""

from __future__ import annotations

import contextlib
import datetime as dt
import sqlite3
import threading
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Protocol, runtime_checkable

from mesa.i18n import N_, SOURCE
from mesa.partida import ControlPartida
from mesa.torneo import (
    ClienteTorneo,
    CorreccionServidor,
    MesaUnida,
    Rechazada,
    SinRed,
    TorneoError,
    Transport,
    http,
)
from scoring.partida import Partida
from scoring.rules import perfil

AJUSTE_PARTIDA = "torneo_partida"  # the app's partida id that plays the joined match


def validar_servidor(texto: str) -> str:
    """The server address as typed, with http:// added when missing; ValueError if empty."""
    s = texto.strip().rstrip("/")
    if not s:
        raise ValueError(N_("escribe la dirección del servidor del torneo"))
    if "://" not in s:
        s = "http://" + s
    if not s.startswith(("http://", "https://")) or " " in s:
        raise ValueError(N_("la dirección del servidor empieza por http:// o https://"))
    return s


@runtime_checkable
class AlmacenConAjustes(Protocol):
    """A store that keeps settings (the tablet's, mesa.storage.Almacen): a tournament table
    remembers there which partida is the joined match's."""

    def ajuste(self, clave: str, defecto: str = "") -> str: ...

    def guardar_ajuste(self, clave: str, valor: str) -> None: ...


def _ajustes(ctl: ControlPartida) -> AlmacenConAjustes:
    if not isinstance(ctl.almacen, AlmacenConAjustes):
        raise TypeError("una mesa de torneo necesita el almacén de la tableta (con ajustes)")
    return ctl.almacen


@dataclass
class VistaTorneo:
    """What the screen shows about the joined match, as plain values."""

    torneo: str
    parejas: list[str]
    jugadores: list[str]  # by seat: abajo, derecha, arriba, izquierda
    pendientes: int
    rechazadas: list[Rechazada] = field(default_factory=list)
    correcciones: list[CorreccionServidor] = field(default_factory=list)


class MesaTorneo:
    """The tablet's tournament state for one data folder, used from the Kivy thread."""

    def __init__(self, datos: Path, idioma: str = SOURCE, transport: Callable[[str, str], Transport] = http) -> None:
        self.datos = Path(datos)
        self._transport = transport
        self.cliente = ClienteTorneo(self.datos, transport, idioma)
        self._enviando = False
        self._otra_vez = False
        self._lock = threading.Lock()

    @property
    def idioma(self) -> str:
        return self.cliente.idioma

    @idioma.setter
    def idioma(self, idioma: str) -> None:
        self.cliente.idioma = idioma

    def close(self) -> None:
        self.cliente.close()

    def mesa(self) -> MesaUnida | None:
        return self.cliente.mesa()

    def vista(self) -> VistaTorneo | None:
        mesa = self.mesa()
        if mesa is None:
            return None
        parejas = [p or "—" for p in mesa.parejas]
        return VistaTorneo(
            mesa.torneo,
            parejas,
            list(mesa.partida.get("jugadores", [])),
            self.cliente.pendientes(),
            self.cliente.rechazadas(),
            self.cliente.correcciones(),
        )

    # -- joining ---------------------------------------------------------------------------
    def unirse_en_hilo(self, servidor: str, codigo: str, idioma: str = SOURCE) -> tuple[MesaUnida, bool]:
        """Join with a client of the calling thread (the screen runs it off the Kivy thread);
        the match, and whether it is the one this tablet already played (its queue kept)."""
        cliente = ClienteTorneo(self.datos, self._transport, idioma)
        try:
            antes = cliente.mesa()
            mesa = cliente.unirse(servidor, codigo)
            return mesa, antes is not None and cliente.misma_partida(antes)
        finally:
            cliente.close()

    def empezar_partida(self, ctl: ControlPartida, mesa: MesaUnida, misma: bool = False) -> None:
        """Start the app's partida with the match's players, rule profile and mano; when the
        tablet joined its own match again, go on with the partida it was playing."""
        if misma:  # the queue is this partida's: it stays whatever happens
            if not self._reanudar(ctl):
                raise TorneoError(
                    N_(
                        "la partida de esta mesa no está en esta carpeta de datos: "
                        "sus manos siguen en la cola del torneo"
                    )
                )
            return
        p = mesa.partida
        try:
            comprobar_partida(mesa)
            ctl.nueva(p["reglas"], list(p["jugadores"]), int(p.get("mano", 0)))
        except (TorneoError, ValueError):
            self.cliente.salir()  # nothing half-joined stays behind
            raise
        _ajustes(ctl).guardar_ajuste(AJUSTE_PARTIDA, str(ctl.partida_id))

    def _reanudar(self, ctl: ControlPartida) -> bool:
        pid = _ajustes(ctl).ajuste(AJUSTE_PARTIDA)
        if not pid.isdigit():
            return False
        if ctl.partida_id != int(pid) and not ctl.reanudar(int(pid)):
            return False
        self.seguir_servidor(ctl)
        return True

    def salir(self, ctl: ControlPartida) -> None:
        self.cliente.salir()
        _ajustes(ctl).guardar_ajuste(AJUSTE_PARTIDA, "")

    # -- hands -----------------------------------------------------------------------------
    def juega(self, ctl: ControlPartida) -> bool:
        """Whether the partida in play is the joined match's."""
        return (
            self.mesa() is not None
            and ctl.partida_id is not None
            and _ajustes(ctl).ajuste(AJUSTE_PARTIDA) == str(ctl.partida_id)
        )

    def tras_confirmar(self, ctl: ControlPartida, res: Any, foto: bytes | None = None) -> bool:
        """Queue the hand just confirmed (its stored record, the marcador after it); False
        when the partida is not the tournament's."""
        if not self.juega(ctl) or ctl.ultimo_registro is None:
            return False
        self.cliente.encolar(ctl.ultimo_registro, tuple(res.marcador), foto)
        return True

    def seguir_servidor(self, ctl: ControlPartida) -> bool:
        """Make the app's partida follow the server once it has corrected a hand: the stored
        hands are scored again and, after each one the server stored, the marcador is the
        server's answer (tantos, juegos, vacas), so every later hand counts from it as on the
        server. The app's stored hands keep what the table counted. True when the marcador
        changed."""
        mesa = self.mesa()
        if mesa is None or not self.juega(ctl) or ctl.partida is None or not self.cliente.correcciones():
            return False  # without a correction the server's count is the table's
        return seguir_respuestas(ctl, mesa.primera, self.cliente.respuestas())

    def enviar(self, al_terminar: Callable[[int], None]) -> bool:
        """Send the queue in a thread; ``al_terminar(hands stored)`` runs in that thread (the
        screen moves it to the Kivy clock). A request while one is under way sends again
        after it; False then."""
        with self._lock:
            if self._enviando:
                self._otra_vez = True
                return False
            self._enviando = True
        threading.Thread(
            target=self._enviar, args=(al_terminar, self.idioma), daemon=True, name="musmesa-torneo"
        ).start()
        return True

    def _enviar(self, al_terminar: Callable[[int], None], idioma: str) -> None:
        total = 0
        try:
            cliente = ClienteTorneo(self.datos, self._transport, idioma)
            try:
                while True:
                    # on a failure the hands wait in the queue: the next try sends them
                    with contextlib.suppress(SinRed, TorneoError, OSError):
                        total += cliente.enviar()
                    with self._lock:
                        if not self._otra_vez:
                            break
                        self._otra_vez = False
            finally:
                cliente.close()
        except sqlite3.Error:
            pass  # an unreadable queue file: the screen reads it and says why
        finally:
            with self._lock:
                self._enviando = False
        al_terminar(total)

    @property
    def enviando(self) -> bool:
        return self._enviando

    # -- the referee and the round's clock -------------------------------------------------
    def llamar_en_hilo(self, idioma: str = SOURCE) -> bool:
        """Call the referee with a client of the calling thread (the screen runs it off the
        Kivy thread); True for a new call, False when the table's call is still open."""
        cliente = ClienteTorneo(self.datos, self._transport, idioma)
        try:
            return cliente.llamada()[0]
        finally:
            cliente.close()

    def reloj_en_hilo(self, idioma: str = SOURCE) -> dict[str, Any]:
        """The round's clock as the server sends it ({} without one), read with a client of
        the calling thread."""
        cliente = ClienteTorneo(self.datos, self._transport, idioma)
        try:
            return cliente.reloj()
        finally:
            cliente.close()


LLAMADO = N_("Árbitro llamado: viene a la mesa")
YA_LLAMADO = N_("Ya habéis llamado al árbitro: viene a la mesa")
SIN_RED_LLAMADA = N_("No se llega al servidor del torneo: id a buscar al árbitro")


def texto_llamada(t: Callable[[str], str], nueva: bool) -> str:
    return t(LLAMADO if nueva else YA_LLAMADO)


@dataclass(frozen=True)
class RelojMesa:
    """The round's clock on this tablet's time: ``fin`` is the end as a local ``time.time()``
    instant (the server's end moved by the gap between the server's now and the tablet's),
    None while paused, when ``pausado`` seconds are left."""

    fin: float | None
    pausado: int = 0

    def restante(self, ahora: float) -> int:
        """Whole seconds left at the tablet's ``ahora`` (0 when time is up)."""
        if self.fin is None:
            return max(0, self.pausado)
        return max(0, int(-(-(self.fin - ahora) // 1)))  # 0.2 s left still shows 0:01


def _instante(iso: Any) -> float | None:
    if not isinstance(iso, str) or not iso:
        return None
    try:
        t = dt.datetime.fromisoformat(iso.replace("Z", "+00:00"))
    except ValueError:
        return None
    return (t if t.tzinfo else t.replace(tzinfo=dt.UTC)).timestamp()


def reloj_local(doc: Mapping[str, Any], recibido: float) -> RelojMesa | None:
    """The server's clock (GET /api/mesa/reloj) on the tablet's time, ``recibido`` being the
    tablet's ``time.time()`` when the answer came; None without a clock or once the round
    is closed."""
    if not doc or doc.get("cerrada"):
        return None
    fin, ahora = _instante(doc.get("fin")), _instante(doc.get("ahora"))
    if fin is None or doc.get("pausado"):
        try:
            return RelojMesa(None, int(doc.get("restante") or 0))
        except (TypeError, ValueError):
            return None
    return RelojMesa(fin + (recibido - ahora) if ahora is not None else fin)


def texto_reloj(t: Callable[[str], str], reloj: RelojMesa | None, ahora: float) -> str:
    """What the clock's label says: "" without a clock, "Tiempo agotado" at 0, else the
    minutes and seconds left (and "En pausa" while paused)."""
    if reloj is None:
        return ""
    falta = reloj.restante(ahora)
    if falta == 0:
        return t("Tiempo agotado")
    cuenta = f"{t('Tiempo')}: {falta // 60}:{falta % 60:02d}"
    return f"{cuenta}  ·  {t('En pausa')}" if reloj.fin is None else cuenta


def _marcador(par: tuple[int, int]) -> str:
    return f"{par[0]}-{par[1]}"


def texto_correccion(t: Callable[[str], str], c: CorreccionServidor) -> str:
    return t("Mano {n} corregida por el servidor: de {mesa} a {servidor}").format(
        n=c.numero, mesa=_marcador(c.mesa), servidor=_marcador(c.servidor)
    )


def texto_rechazada(t: Callable[[str], str], r: Rechazada, telefono: bool = False, con_codigo: bool = True) -> str:
    """The refusal and what to do about it; no hand is lost either way. The tablet keeps the
    queue itself; a phone's table keeps it on the server that serves its page. ``con_codigo``:
    whether the table's code is kept to join again (a phone's table of the server's own
    tournament keeps none: its players join again with the code)."""
    if r.unirse_otra_vez:
        what = (
            t("Uníos otra vez con el código de la mesa: las manos que esperan se envían entonces.")
            if telefono and not con_codigo
            else t("Toca Reintentar: la mesa se une otra vez con su código y envía las manos que esperan.")
            if telefono
            else t(
                "Toca Reintentar: la tableta se une otra vez con el código de la mesa y envía las manos que esperan."
            )
        )
    elif r.detras:
        what = (
            t(
                "Llamad al árbitro. Esta mano y las {k} de detrás esperan guardadas: no se pierde "
                "ninguna. Reintentar las envía otra vez."
            )
            if telefono
            else t(
                "Llamad al árbitro. Esta mano y las {k} de detrás esperan en la tableta: no "
                "se pierde ninguna. Reintentar las envía otra vez."
            )
        ).format(k=r.detras)
    else:
        what = (
            t("Llamad al árbitro. La mano espera guardada: no se pierde. Reintentar la envía otra vez.")
            if telefono
            else t("Llamad al árbitro. La mano espera en la tableta: no se pierde. Reintentar la envía otra vez.")
        )
    return t("Mano {n} rechazada: {motivo}").format(n=r.numero, motivo=r.motivo) + "\n" + what


def comprobar_partida(mesa: MesaUnida) -> None:
    """TorneoError unless the joined match can be started here: four players, and no hands
    on the server yet (a new partida would not follow the server's marcador)."""
    p = mesa.partida
    if p.get("descansa") or len(p.get("jugadores", [])) != 4:
        raise TorneoError(N_("esta mesa descansa en esta ronda: no hay partida que jugar"))
    if p.get("manos"):
        raise TorneoError(
            N_("esta partida ya tiene manos en el servidor ({n}): sigue en la tableta que la empezó"), n=p["manos"]
        )


def seguir_respuestas(ctl: ControlPartida, primera: int, respuestas: Mapping[int, dict[str, Any]]) -> bool:
    """Make ``ctl``'s partida follow the server: its stored hands are scored again and, after
    each one the server stored (``respuestas`` by the server's number, the first of this
    partida being ``primera``), the marcador is the server's answer (tantos, juegos, vacas),
    so every later hand counts from it as on the server. The stored hands keep what the table
    counted. True when the marcador changed."""
    if ctl.partida is None:
        return False
    info = ctl.info
    p = Partida(perfil(info["reglas"]), jugadores=info["jugadores"], mano=info["mano_inicial"])
    for k, m in enumerate(ctl.almacen.manos(ctl.partida_id or 0)):
        reg = m["registro"]
        p.registrar(reg["manos"], reg.get("lances", {}), mano=reg["mano"])
        if primera + k in respuestas:
            _seguir(p, respuestas[primera + k])
    old = ctl.partida
    if (p.tantos, p.juegos, p.vacas, p.ganador) == (old.tantos, old.juegos, old.vacas, old.ganador):
        return False
    ctl.partida = p
    return True


def _seguir(p: Partida, respuesta: dict[str, Any]) -> None:
    """Set the marcador after the partida's last hand to the server's answer."""
    try:
        p.corregir(
            _par(respuesta["tantos"]), _par(respuesta["juegos"]), _par(respuesta["vacas"]), respuesta.get("ganador")
        )
    except (KeyError, TypeError, ValueError):
        return  # an answer without the marcador: the table's own count stays


def _par(v: Any) -> tuple[int, int]:
    a, b = v
    return int(a), int(b)
