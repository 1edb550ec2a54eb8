"""Torneo: join a tournament's table (server address and the table's code, typed or read from
the organiser's QR code by the camera), then see the match, the hands waiting to be sent, those
the server corrected (the marcador follows it) and any it refused, with what to do; the queue
is sent in the background (mesa.torneo_mesa)."""

from __future__ import annotations

import sqlite3
import threading
import time
from pathlib import Path
from typing import Any

from kivy.app import App
from kivy.clock import Clock
from kivy.properties import BooleanProperty, NumericProperty, StringProperty
from kivy.uix.screenmanager import Screen

from app.camera import FuenteVideo, Preview
from app.screens.vivo import ConVistaPrevia
from mesa.torneo import DB_FILE, MensajeTorneo, MesaUnida, SinRed, texto_qr
from mesa.torneo_mesa import (
    SIN_RED_LLAMADA,
    MesaTorneo,
    RelojMesa,
    reloj_local,
    texto_correccion,
    texto_llamada,
    texto_rechazada,
    texto_reloj,
    validar_servidor,
)
from scoring.protocolo import codigo_de, servidor_de

REINTENTO = 20.0  # seconds between background sends while hands wait
AJUSTE_SERVIDOR = "torneo_servidor"  # the last server joined, offered again
AJUSTE_CODIGO = "torneo_codigo"  # the joined table's code: joining again mends a stale token
RELOJ_SERVIDOR = 30.0  # seconds between readings of the round's clock from the server


def texto_error(app: Any, exc: BaseException) -> str:
    """An error for the player in the app's language (the server's own words come in it)."""
    return exc.texto(app.lang) if isinstance(exc, MensajeTorneo) else app.t(str(exc))


class TorneoScreen(ConVistaPrevia, Screen):
    unida = BooleanProperty(False)
    uniendo = BooleanProperty(False)
    en_vivo = BooleanProperty(False)
    torneo = StringProperty("")
    parejas = StringProperty("")
    asientos = StringProperty("")
    marcador = StringProperty("")
    pendientes = NumericProperty(0)
    estado_envio = StringProperty("")
    rechazadas = StringProperty("")
    correcciones = StringProperty("")
    estado = StringProperty("")
    confirmar_salir = BooleanProperty(False)
    llamando = BooleanProperty(False)
    llamada = StringProperty("")  # the answer to the last call of the referee
    reloj = StringProperty("")  # the round's clock; "" without one

    def __init__(self, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.preview: Preview | None = None
        self._mesa: MesaTorneo | None = None
        self._carpeta = ""
        self._avisado = 0  # the count of unsent hands last said over the marcador
        self._rechazo_dicho = ""  # and the refusal
        self._reloj: RelojMesa | None = None
        self._leyendo_reloj = False
        # the screens exist from the app's start: the queue is retried from then on, and a
        # resumed partida follows the server's corrections from the first frame
        self._relojes = [
            Clock.schedule_interval(lambda dt: self._latido(), REINTENTO),
            Clock.schedule_once(lambda dt: self.seguir_servidor()),
            Clock.schedule_once(lambda dt: self.leer_reloj()),
            Clock.schedule_interval(lambda dt: self.leer_reloj(), RELOJ_SERVIDOR),
            Clock.schedule_interval(lambda dt: self.contar(), 1.0),
        ]

    def al_parar_app(self) -> None:
        """The app stops: its timed work stops with it (Kivy's clock outlives an app stopped in
        the same process, and every one of these reads the running app)."""
        for evento in self._relojes:
            evento.cancel()

    # -- the data folder's tournament state ------------------------------------------------
    def mesa_torneo(self, crear: bool = True) -> MesaTorneo | None:
        """The tournament state of the app's data folder (None if it cannot be opened, or
        has none and ``crear`` is False: a folder never in a tournament gets no queue file)."""
        app = App.get_running_app()
        if not crear and not (Path(app.carpeta) / DB_FILE).exists():
            return None
        if self._mesa is None or self._carpeta != app.carpeta:
            if self._mesa is not None:
                self._mesa.close()
            self._mesa, self._carpeta = None, app.carpeta
            try:
                self._mesa = MesaTorneo(Path(app.carpeta), idioma=app.lang)
            except sqlite3.Error as exc:
                self.estado = f"{app.t('No se puede abrir la cola del torneo')}: {exc}"
        if self._mesa is not None:
            self._mesa.idioma = app.lang  # the server's messages come in the app's language
        return self._mesa

    def on_pre_enter(self, *_: object) -> None:
        self.confirmar_salir = False
        self.leer_reloj()
        if not self.ids.servidor.text:  # a club's server stays the same from match to match
            self.ids.servidor.text = App.get_running_app().almacen.ajuste(AJUSTE_SERVIDOR)
        self.refrescar()

    def _olvidar_codigo(self) -> None:
        self.ids.codigo.text = ""
        self.ids.vista.texture = None

    def refrescar(self) -> None:
        app = App.get_running_app()
        m = self.mesa_torneo()
        v = m.vista() if m is not None else None
        self.unida = v is not None
        if v is None:
            self.pendientes, self.estado_envio, self.rechazadas, self.correcciones = 0, "", "", ""
            return
        t = app.t
        self.torneo = v.torneo
        self.parejas = f"{v.parejas[0]}  —  {v.parejas[1]}"
        seats = (t("Abajo"), t("Derecha"), t("Arriba"), t("Izquierda"))
        self.asientos = "\n".join(f"{s}: {n}" for s, n in zip(seats, v.jugadores, strict=False))
        self.pendientes = v.pendientes
        # nothing to lose now
        self.confirmar_salir = self.confirmar_salir and bool(v.pendientes or v.rechazadas)
        p = app.ctl.partida if m is not None and m.juega(app.ctl) else None
        self.marcador = (
            (f"{t('Marcador')}: {p.tantos[0]} — {p.tantos[1]}  ·  {t('Manos')}: {len(p.historial)}")
            if p is not None
            else ""
        )
        self.estado_envio = (
            ""
            if not v.pendientes and v.rechazadas  # the refusal speaks
            else t("Todas las manos enviadas")
            if not v.pendientes
            else app.tn("{n} mano sin enviar", "{n} manos sin enviar", v.pendientes).format(n=v.pendientes)
        )
        self.rechazadas = "\n".join(texto_rechazada(t, r) for r in v.rechazadas)
        self.correcciones = "\n".join(texto_correccion(t, c) for c in v.correcciones[-3:])

    # -- joining ---------------------------------------------------------------------------
    def unirse(self) -> None:
        app = App.get_running_app()
        m = self.mesa_torneo()
        if m is None or self.uniendo:
            return
        try:
            servidor = validar_servidor(self.ids.servidor.text)
        except ValueError as exc:
            app.avisar(app.t(str(exc)), error=True)
            return
        self._unirse_a(m, servidor, self.ids.codigo.text)

    def _unirse_a(self, m: MesaTorneo, servidor: str, codigo: str) -> None:
        self.uniendo = True
        self.estado = App.get_running_app().t("Uniéndose al torneo…")
        threading.Thread(
            target=self._unirse_en_hilo, args=(m, servidor, codigo, m.idioma), daemon=True, name="musmesa-torneo-unirse"
        ).start()

    def _unirse_en_hilo(self, m: MesaTorneo, servidor: str, codigo: str, idioma: str) -> None:
        try:
            got: tuple[MesaUnida, bool, str] | Exception = (*m.unirse_en_hilo(servidor, codigo, idioma), codigo)
        except (MensajeTorneo, sqlite3.Error, KeyError, TypeError, ValueError) as exc:
            got = exc  # an odd answer too: the screen must not stay "joining"
        Clock.schedule_once(lambda dt: self._unida(got))

    def _unida(self, got: tuple[MesaUnida, bool, str] | Exception) -> None:
        app = App.get_running_app()
        self.uniendo, self.estado = False, ""
        m = self.mesa_torneo()
        if isinstance(got, Exception):
            app.avisar(texto_error(app, got), error=True)
            self.refrescar()
            return
        if m is None:  # the queue file cannot be opened now: mesa_torneo() put why in estado
            self.refrescar()
            return
        mesa, misma, codigo = got
        try:
            m.empezar_partida(app.ctl, mesa, misma)
        except (ValueError, MensajeTorneo) as exc:
            app.avisar(texto_error(app, exc), error=True)
            self.refrescar()
            return
        app.guardar_ajuste(AJUSTE_SERVIDOR, mesa.servidor)
        app.guardar_ajuste(AJUSTE_CODIGO, codigo)
        self._olvidar_codigo()
        self.refrescar()
        app.avisar(app.t("Unida al torneo {0}").format(mesa.torneo))
        self.enviar()  # joined again: what waited goes now
        self.leer_reloj()

    # -- the QR code -----------------------------------------------------------------------
    def usar_fuente(self, fuente: FuenteVideo) -> None:
        """Look for the table's QR code in a camera (or, in tests and the demo, images)."""
        if self.preview is None:
            self.preview = Preview(self.ids.vista, procesar=self._leer, aplicar=self._leido, al_error=self._fallo)
        self.preview.empezar(fuente)
        self.en_vivo = True
        self.estado = App.get_running_app().t("Enseña el código QR de la mesa a la cámara")

    def _leer(self, _t: float, frame: Any) -> str | None:
        try:  # may run in the preview's worker thread: no Kivy here
            return texto_qr(frame)
        except Exception:  # an odd frame is only a frame without a code
            return None

    def _leido(self, _t: float, _frame: Any, texto: str | None) -> None:
        codigo = codigo_de(texto) if texto else None
        if codigo:
            self.ids.codigo.text = codigo
            if servidor := servidor_de(texto or ""):  # the table's link names its server
                self.ids.servidor.text = servidor
            self.parar()
            self.estado = App.get_running_app().t("Código leído: {0}").format(codigo)

    def _fallo(self, msg: str) -> None:
        self.en_vivo = False
        self.estado = f"{App.get_running_app().t('Fuente parada')}: {msg}"

    # -- the queue -------------------------------------------------------------------------
    def juega(self) -> bool:
        """Whether the partida in play is the tournament's match (its hands go to the server)."""
        m = self.mesa_torneo(crear=False)
        return m is not None and m.juega(App.get_running_app().ctl)

    def tras_confirmar(self, res: Any, foto: bytes | None = None) -> None:
        """A hand was confirmed (TanteoScreen): queue it if the partida is the tournament's,
        and send it in the background."""
        app = App.get_running_app()
        m = self.mesa_torneo(crear=False)
        try:
            if m is None or not m.tras_confirmar(app.ctl, res, foto):
                return
        except (MensajeTorneo, sqlite3.Error) as exc:
            app.avisar(f"{app.t('La mano no entró en la cola del torneo')}: {texto_error(app, exc)}", error=True)
            return
        self.refrescar()
        self.enviar()

    def enviar(self) -> None:
        m = self.mesa_torneo(crear=False)
        if m is None or m.mesa() is None or not m.cliente.pendientes():
            return
        m.enviar(lambda sent: Clock.schedule_once(lambda dt: self._enviado(sent)))

    def enviar_ahora(self) -> None:
        if self.mesa_torneo() is not None:
            self.enviar()
        self.refrescar()

    def reintentar(self) -> None:
        """Send the refused hands again: after a stale token, join again with the table's
        code (the queue is kept); otherwise once the referee has seen them."""
        app = App.get_running_app()
        m = self.mesa_torneo(crear=False)
        mesa = m.mesa() if m is not None else None
        if m is None or mesa is None or self.uniendo:
            return
        rechazadas = m.cliente.rechazadas()
        codigo = app.almacen.ajuste(AJUSTE_CODIGO)
        if rechazadas and rechazadas[0].unirse_otra_vez and codigo:
            self._unirse_a(m, mesa.servidor, codigo)
            return
        m.cliente.reintentar()
        self.enviar()
        self.refrescar()

    def _latido(self) -> None:
        self.seguir_servidor()
        self.enviar()

    def seguir_servidor(self) -> bool:
        """The marcador follows the server's corrections; each is told once, in words, on
        whatever screen is up (the marcador changed under the player). True if told.

        The sender thread may store a corrected hand at any moment of this check (the 20 s
        heartbeat runs it while a send is under way). So the corrections to tell are read
        first and the marcador follows after, from what is stored then: a correction told is
        always one the marcador already follows, and one stored after the reading is told at
        the next check. And the marcador on screen is redrawn whenever the partida moved, told
        or not: a move without a redraw would leave the old count on screen."""
        app = App.get_running_app()
        m = self.mesa_torneo(crear=False)
        if m is None or m.mesa() is None:
            return False
        try:
            nuevas = m.cliente.correcciones_nuevas()
            movido = m.seguir_servidor(app.ctl)
        except (sqlite3.Error, ValueError) as exc:
            app.avisar(f"{app.t('No se puede abrir la cola del torneo')}: {exc}", error=True)
            return False
        if movido and self.manager is not None and self.manager.current == "marcador":
            self.manager.current_screen.refrescar()  # redraw with the server's count
        if not nuevas:
            return False
        app.avisar("\n".join(texto_correccion(app.t, c) for c in nuevas), error=True, segundos=12)
        return True

    def _enviado(self, _sent: int) -> None:
        dicho = self.seguir_servidor()
        self.refrescar()
        # said once per change while playing: the marcador has no room for it
        jugando = self.manager is not None and self.manager.current == "marcador"
        if jugando and not dicho and self.rechazadas and self.rechazadas != self._rechazo_dicho:
            App.get_running_app().avisar(self.rechazadas, error=True, segundos=15)
        elif jugando and not dicho and self.pendientes and self.pendientes != self._avisado:
            App.get_running_app().avisar(self.estado_envio, error=True)
        self._avisado, self._rechazo_dicho = self.pendientes, self.rechazadas

    # -- the referee and the round's clock -------------------------------------------------
    def llamar_arbitro(self) -> None:
        m = self.mesa_torneo(crear=False)
        if m is None or m.mesa() is None or self.llamando:
            return
        self.llamando = True
        threading.Thread(
            target=self._llamar_en_hilo, args=(m, m.idioma), daemon=True, name="musmesa-torneo-llamar"
        ).start()

    def _llamar_en_hilo(self, m: MesaTorneo, idioma: str) -> None:
        try:
            got: bool | Exception = m.llamar_en_hilo(idioma)
        except (MensajeTorneo, sqlite3.Error, KeyError, TypeError, ValueError) as exc:
            got = exc
        Clock.schedule_once(lambda dt: self._llamado(got))

    def _llamado(self, got: bool | Exception) -> None:
        app = App.get_running_app()
        self.llamando = False
        if isinstance(got, SinRed):  # no network details: the players need only what to do
            self.llamada = app.t(SIN_RED_LLAMADA)
        elif isinstance(got, Exception):
            self.llamada = texto_error(app, got)
        else:
            self.llamada = texto_llamada(app.t, got)
        app.avisar(self.llamada, error=isinstance(got, Exception))

    def leer_reloj(self) -> None:
        """Read the round's clock from the server in the background; the label counts down
        on its own between readings."""
        m = self.mesa_torneo(crear=False)
        if m is None or m.mesa() is None:
            self._reloj, self.reloj = None, ""
            return
        if self._leyendo_reloj:
            return
        self._leyendo_reloj = True
        threading.Thread(
            target=self._reloj_en_hilo, args=(m, m.idioma), daemon=True, name="musmesa-torneo-reloj"
        ).start()

    def _reloj_en_hilo(self, m: MesaTorneo, idioma: str) -> None:
        try:
            doc = m.reloj_en_hilo(idioma)
            got: RelojMesa | Exception | None = reloj_local(doc, time.time())
        except (MensajeTorneo, sqlite3.Error, KeyError, TypeError, ValueError) as exc:
            got = exc
        Clock.schedule_once(lambda dt: self._reloj_leido(got))

    def _reloj_leido(self, got: RelojMesa | Exception | None) -> None:
        self._leyendo_reloj = False
        if isinstance(got, SinRed):
            pass  # offline: the clock goes on counting from the last reading
        elif isinstance(got, Exception):
            self._reloj = None
        else:
            self._reloj = got
        self.contar()

    def contar(self) -> None:
        self.reloj = texto_reloj(App.get_running_app().t, self._reloj, time.time())

    # -- leaving ---------------------------------------------------------------------------
    def salir(self) -> None:
        app = App.get_running_app()
        m = self.mesa_torneo()
        if m is None:
            return
        if (m.cliente.pendientes() or m.cliente.rechazadas()) and not self.confirmar_salir:
            self.confirmar_salir = True  # the hands not sent would be lost: ask first
            return
        self.confirmar_salir = False
        m.salir(app.ctl)
        self._reloj, self.reloj, self.llamada = None, "", ""
        app.guardar_ajuste(AJUSTE_CODIGO, "")
        self._olvidar_codigo()
        self.refrescar()
        app.avisar(app.t("Has salido del torneo"))

    def jugar(self) -> None:
        app = App.get_running_app()
        app.ir("marcador" if app.ctl.activa else "nueva")

    def volver(self) -> None:
        App.get_running_app().ir("marcador" if self.unida and App.get_running_app().ctl.activa else "nueva")
