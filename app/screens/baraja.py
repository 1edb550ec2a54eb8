"""Registrar la baraja: the players' own deck, one photo per suit, each checked as it is taken.

A framing guide (two rows of five) is drawn over the preview; a photo that does not show the
ten cards of its suit in rows says what is wrong and is asked for again, the suits already
taken are kept. With the four, the deck is registered into the data folder (where `mus leer`
and `mus mano` find it too) and the reader uses it from then on; Ajustes shows it."""

from __future__ import annotations

import numpy as np
from kivy.app import App
from kivy.properties import BooleanProperty, NumericProperty, StringProperty
from kivy.uix.screenmanager import Screen

from app.camera import Preview
from app.screens.fotos import ConFotos
from mesa.lectura import NOMBRES_PALOS as PALOS
from mesa.lectura import PALOS_FOTOS, PIDE_PALO, REGISTRADA, LecturaError, comprobar_palo, registrar_fotos


class BarajaScreen(ConFotos, Screen):
    estado = StringProperty("")
    hechas = StringProperty("")
    en_vivo = BooleanProperty(False)
    palo = NumericProperty(0)  # the suit asked for now (4: all taken)

    def __init__(self, **kwargs: object) -> None:
        super().__init__(**kwargs)
        self.preview: Preview | None = None
        self.fotos: list[np.ndarray | None] = [None] * len(PALOS_FOTOS)
        self.volver_a = "cartas"

    def on_pre_enter(self, *_: object) -> None:
        if self.preview is None:
            self.preview = Preview(self.ids.vista, al_error=self._fallo_camara)
        self.fotos = [None] * len(PALOS_FOTOS)
        self.palo = 0
        self._pedir()

    def on_enter(self, *_: object) -> None:
        self.alternar_camara(silencioso=True)

    def _pedir(self) -> None:
        app = App.get_running_app()
        hechas = [app.t(PALOS[p]) for p, f in enumerate(self.fotos) if f is not None]
        self.hechas = f"{app.t('Hechas')}: {', '.join(hechas)}" if hechas else ""
        if self.palo < len(PALOS):
            self.estado = app.t(PIDE_PALO).format(palo=app.t(PALOS[self.palo]))

    def alternar_camara(self, silencioso: bool = False) -> None:
        super().alternar_camara(silencioso)
        if silencioso and not self.en_vivo and self.palo < len(PALOS):
            self._pedir()  # without a camera the suit asked for stays said

    def usar_foto(self, img: np.ndarray, de_camara: bool = False) -> bool:
        tomada = self.tomar(img)
        if tomada and de_camara and self.palo < len(PALOS):
            self.alternar_camara(silencioso=True)  # on to the next suit
        return tomada

    def tomar(self, img: np.ndarray) -> bool:
        """This suit's photo: checked now; with the fourth, the deck is registered."""
        app = App.get_running_app()
        if self.preview is not None:  # made when the screen is entered
            self.preview.mostrar(img)
        try:
            comprobar_palo(img, self.palo)
        except LecturaError as exc:
            self.estado = str(exc)
            app.avisar(str(exc), error=True)
            return False
        self.fotos[self.palo] = img
        self.palo += 1
        self._pedir()
        if self.palo < len(PALOS):
            return True
        return self._registrar()

    def _registrar(self) -> bool:
        app = App.get_running_app()
        fotos = [f for f in self.fotos if f is not None]
        if len(fotos) < len(self.fotos):  # tomar() registers only once all are taken
            return False
        try:
            ruta, avisos = registrar_fotos(fotos, app.carpeta)
        except LecturaError as exc:  # e.g. a row of another suit: the four are taken again
            self.fotos, self.palo = [None] * len(PALOS_FOTOS), 0
            self._pedir()
            app.avisar(str(exc), error=True)
            return False
        app.baraja = ruta
        app.guardar_ajuste("baraja", ruta)
        self.estado = app.t(REGISTRADA)
        app.avisar("; ".join([self.estado, *avisos]), error=bool(avisos), fijo=bool(avisos))
        self.volver()
        return True

    def volver(self) -> None:
        self.parar()
        App.get_running_app().ir(self.volver_a)
