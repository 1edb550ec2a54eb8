"""The tournament screen's logic, no Kivy: join and start the app's partida with the match,
queue every confirmed hand of that partida, send the queue in a background thread.

The queue is app.logic.torneo's ClienteTorneo (its own SQLite file in the data folder). Its
connection belongs to the thread that opened it, so the sender thread opens its own client
on the same file; the queue's transactions keep the two consistent.
"""

from __future__ import annotations

import contextlib
import sqlite3
import threading
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from app.i18n import N_
from app.logic.partida import ControlPartida
from app.logic.torneo import ClienteTorneo, Mesa, SinRed, TorneoError

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


@dataclass
class VistaTorneo:
    """What the screen shows about the joined match, as plain values."""

    torneo: str
    parejas: list[str]
    jugadores: list[str]  # by seat: abajo, derecha, arriba, izquierda
    pendientes: int
    rechazadas: list[tuple[int, str]] = field(default_factory=list)


class MesaTorneo:
    """The tablet's tournament state for one data folder, used from the Kivy thread."""

    def __init__(self, datos: Path) -> None:
        self.datos = Path(datos)
        self.cliente = ClienteTorneo(self.datos)
        self._enviando = False
        self._otra_vez = False
        self._lock = threading.Lock()

    def close(self) -> None:
        self.cliente.close()

    def mesa(self) -> Mesa | None:
        return self.cliente.mesa()

    def vista(self) -> VistaTorneo | None:
        mesa = self.mesa()
        if mesa is None:
            return None
        parejas = [p or "—" for p in mesa.parejas]
        return VistaTorneo(mesa.torneo, parejas, list(mesa.partida.get("jugadores", [])),
                           self.cliente.pendientes(), self.cliente.rechazadas())

    # -- joining ---------------------------------------------------------------------------
    @staticmethod
    def unirse_en_hilo(datos: Path, servidor: str, codigo: str) -> Mesa:
        """Join with a client of this thread (the caller runs it off the Kivy thread)."""
        cliente = ClienteTorneo(datos)
        try:
            return cliente.unirse(servidor, codigo)
        finally:
            cliente.close()

    def empezar_partida(self, ctl: ControlPartida, mesa: Mesa) -> None:
        """Start the app's partida with the match's players, rule profile and mano."""
        p = mesa.partida
        if p.get("descansa") or len(p.get("jugadores", [])) != 4:
            self.cliente.salir()
            raise TorneoError("esta mesa descansa en esta ronda: no hay partida que jugar")
        if p.get("manos"):  # a new partida here would not follow the server's marcador
            self.cliente.salir()
            raise TorneoError(f"esta partida ya tiene manos en el servidor ({p['manos']}): "
                              "sigue en la tableta que la empezó")
        try:
            ctl.nueva(p["reglas"], list(p["jugadores"]), int(p.get("mano", 0)))
        except ValueError:
            self.cliente.salir()  # nothing half-joined stays behind
            raise
        ctl.almacen.guardar_ajuste(AJUSTE_PARTIDA, str(ctl.partida_id))

    def salir(self, ctl: ControlPartida) -> None:
        self.cliente.salir()
        ctl.almacen.guardar_ajuste(AJUSTE_PARTIDA, "")

    # -- hands -----------------------------------------------------------------------------
    def juega(self, ctl: ControlPartida) -> bool:
        """Whether the partida in play is the joined match's."""
        return (self.mesa() is not None and ctl.partida_id is not None
                and ctl.almacen.ajuste(AJUSTE_PARTIDA) == str(ctl.partida_id))

    def tras_confirmar(self, ctl: ControlPartida, res: Any, foto: bytes | None = None) -> bool:
        """Queue the hand just confirmed (its stored record, the marcador after it); False
        when the partida is not the tournament's."""
        if not self.juega(ctl) or ctl.ultimo_registro is None:
            return False
        self.cliente.encolar(ctl.ultimo_registro, tuple(res.marcador), foto)
        return True

    def enviar(self, al_terminar: Callable[[int], None]) -> bool:
        """Send the queue in a thread; ``al_terminar(hands stored)`` runs in that thread (the
        screen moves it to the Kivy clock). A request while one is under way sends again
        after it; False then."""
        with self._lock:
            if self._enviando:
                self._otra_vez = True
                return False
            self._enviando = True
        threading.Thread(target=self._enviar, args=(al_terminar,), daemon=True,
                         name="musmesa-torneo").start()
        return True

    def _enviar(self, al_terminar: Callable[[int], None]) -> None:
        total = 0
        try:
            cliente = ClienteTorneo(self.datos)
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
