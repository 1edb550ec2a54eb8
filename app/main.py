"""The Kivy app: one ScreenManager, one screen per .kv file, logic in mesa.

vision/ and gestures/ are imported lazily by the screens that need them, so the marcador
works without those extras.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from kivy.app import App
from kivy.clock import Clock
from kivy.core.window import Window
from kivy.lang import Builder
from kivy.properties import BooleanProperty, ListProperty, ObjectProperty, StringProperty
from kivy.uix.floatlayout import FloatLayout
from kivy.uix.screenmanager import NoTransition, ScreenManager

from app import screens
from mesa import i18n
from mesa.partida import ControlPartida
from mesa.storage import Almacen, StorageError, abrir_o_memoria

KV_DIR = Path(__file__).resolve().parent / "kv"
SCREENS = ("nueva", "marcador", "mano", "cartas", "tanteo", "senas", "arbitro", "ajustes", "torneo", "baraja")


class Raiz(FloatLayout):
    """The data-folder bar above the screens (while nothing is saved), the screens, and the
    message banner on top of them."""


class MusApp(App):
    lang = StringProperty("es")
    aviso = StringProperty("")
    aviso_error = BooleanProperty(False)
    # Why nothing is being saved (the data folder cannot be written); "" while it saves.
    # Shown above every screen until another folder works, never fading.
    problema_datos = StringProperty("")
    perfil = StringProperty("general")
    camara = StringProperty("0")
    carpeta = StringProperty("")
    baraja = StringProperty("")  # registered deck (.npz) to read against; "" = the generic model
    # Cards read by the camera for the hand being entered: 4 strings or [].
    cartas_leidas = ListProperty([])
    ctl = ObjectProperty(None, allownone=True)

    def __init__(self, datos: str | None = None, demo: Any = None, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.title = "musmesa"
        self._datos = datos
        self.demo = demo
        self.almacen: Almacen | None = None
        self.entrada = None  # EntradaMano being entered
        self.resultado = None  # (ResultadoTanteo, avisos) preview
        self.origen_mano = "manual"  # or "camara" (one photo), "asientos" (seat by seat): stored with the hand
        self._aviso_ev = None

    # -- i18n -----------------------------------------------------------------------------
    def t(self, texto: str, _lang: str | None = None) -> str:
        """Translate; kv passes app.lang so the text updates when the language changes."""
        return i18n.t(texto, self.lang)

    def tn(self, uno: str, varios: str, n: int, _lang: str | None = None) -> str:
        """The form of a text for the count n (gettext's ngettext), as t() in the app's language."""
        return i18n.tn(uno, varios, n, self.lang)

    def on_lang(self, _app: object, lang: str) -> None:
        if self.ctl is not None:
            self.ctl.idioma = lang  # the texts it makes (pareja names, last hands) follow
        if self.almacen is not None:
            self.almacen.idioma = lang  # and the storage errors
            self._mostrar_problema()

    # -- build ----------------------------------------------------------------------------
    def build(self) -> Raiz:
        Window.clearcolor = (0.07, 0.24, 0.15, 1)
        Builder.load_file(str(KV_DIR / "common.kv"))
        self._abrir_datos(self._datos)  # before the first screen's on_pre_enter
        sm = ScreenManager(transition=NoTransition())
        for name in SCREENS:
            Builder.load_file(str(KV_DIR / f"{name}.kv"))
            sm.add_widget(screens.CLASSES[name](name=name))
        root = Raiz()
        root.ids.cuerpo.add_widget(sm)
        self.sm = sm
        return root

    def on_start(self) -> None:
        self._reanudar()
        if self.demo is not None:
            Clock.schedule_once(lambda dt: self.demo.start(self), 0.5)

    def _reanudar(self) -> None:
        if self.ctl.reanudar():
            self.ir("marcador")
            self.avisar(self.t("Partida reanudada"))
        else:
            self.ir("nueva")
        if self.ctl.problema:
            self.avisar(self.ctl.problema, error=True)
        almacen = self.almacen
        if almacen is not None and almacen.aviso is not None:  # a damaged file was recovered: tell it once
            self.avisar(almacen.aviso.texto(self.lang), error=True, fijo=True)
            almacen.aviso = None

    def _abrir_datos(self, carpeta: str | None) -> None:
        if self.almacen is not None:
            self.almacen.cerrar()
        self.almacen = abrir_o_memoria(carpeta)
        self.carpeta = str(self.almacen.carpeta)
        self.lang = self.almacen.ajuste("idioma", self.lang)
        self.almacen.idioma = self.lang
        self.ctl = ControlPartida(self.almacen, idioma=self.lang)
        self.perfil = self.almacen.ajuste("perfil", self.perfil)
        self.camara = self.almacen.ajuste("camara", self.camara)
        self.baraja = self.almacen.ajuste("baraja", "")
        self._mostrar_problema()

    def _mostrar_problema(self) -> None:
        problema = self.almacen.problema if self.almacen is not None else None
        self.problema_datos = problema.texto(self.lang) if problema is not None else ""

    def elegir_carpeta(self) -> None:
        """The data bar's button: Ajustes, where the data folder is chosen."""
        self.ir("ajustes")

    def cambiar_datos(self, carpeta: str) -> None:
        """Switch data folder (Ajustes) and resume whatever is open there."""
        self._abrir_datos(carpeta)
        self._reanudar()

    def guardar_ajuste(self, clave: str, valor: str) -> None:
        try:
            if self.almacen is not None:
                self.almacen.guardar_ajuste(clave, valor)
        except StorageError as exc:
            self.avisar(str(exc), error=True)

    def exportar(self) -> None:
        """Export the open partida to JSON and CSV in the data folder, and say where."""
        if self.almacen is None:  # opened by build(): nothing to export before
            return
        try:
            pj, pc = self.almacen.escribir_export(self.ctl.partida_id)
        except StorageError as exc:
            self.avisar(str(exc), error=True)
            return
        self.avisar(f"{self.t('Exportado')}: {pj} · {pc.name}")

    # -- navigation and messages ----------------------------------------------------------
    def ir(self, name: str) -> None:
        self.sm.current = name

    def avisar(self, texto: str, error: bool = False, segundos: float = 6, fijo: bool = False) -> None:
        """Show a message over the screen; errors stay longer, ``fijo`` until OK is tapped."""
        self.aviso, self.aviso_error = texto, error
        if self._aviso_ev is not None:
            self._aviso_ev.cancel()
            self._aviso_ev = None
        if fijo:
            return
        self._aviso_ev = Clock.schedule_once(lambda dt: self.cerrar_aviso(), segundos * (3 if error else 1))

    def cerrar_aviso(self) -> None:
        self.aviso = ""

    def on_stop(self) -> None:
        for screen in self.sm.screens:
            for nombre in ("parar", "al_parar_app"):  # the camera, then any timed work of the screen
                stop = getattr(screen, nombre, None)
                if stop:
                    stop()
        if self.almacen is not None:
            self.almacen.cerrar()
