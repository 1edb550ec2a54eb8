"""Leer cartas: camera or photo -> vision/ -> the four hands, with one-tap corrections.

Two ways: one photo of the whole table, or seat by seat (mesa.asientos): one photo of each
player's four cards in turn, the screen saying whose; a seat can be photographed again."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import cv2
import numpy as np
from kivy.app import App
from kivy.metrics import dp
from kivy.properties import BooleanProperty, StringProperty
from kivy.uix.boxlayout import BoxLayout
from kivy.uix.label import Label
from kivy.uix.screenmanager import Screen
from kivy.uix.stacklayout import StackLayout

from app.camera import Camara, FuenteError, Preview
from app.screens.fotos import ConFotos
from app.screens.widgets import Boton, CartaChip, SelectorCartas
from mesa.asientos import AsientoError, AsientoPorAsiento
from mesa.i18n import N_
from mesa.lectura import (
    LecturaError,
    baraja_de,
    baraja_para_aprender,
    leer_foto,
    leer_mano,
    manos,
    reforzar_en_segundo_plano,
)
from mesa.storage import StorageError

if TYPE_CHECKING:  # vision/ is an optional extra (see mesa.lectura)
    from vision.detections import CardDetections

# Fanned hands are read far worse than hands in a row (models/README.md), so the hint says so.
AYUDA_FOTO = N_("Cartas boca arriba delante de cada jugador, en fila y no en abanico: captura o abre una foto")


TODAS_LEIDAS = N_("Ya están las cuatro manos: pulsa Repetir en un asiento para fotografiarlo de nuevo")


def annotate(img: np.ndarray, lectura: CardDetections) -> np.ndarray:
    """The photo with the read cards drawn (vision.draw: a reading exists only with vision/,
    an optional extra, so it is imported here)."""
    from vision.draw import annotate as dibujar  # optional extra, lazily (see the docstring)

    return dibujar(img, lectura)


class CartasScreen(ConFotos, Screen):
    estado = StringProperty("")
    resumen = StringProperty("")
    en_vivo = BooleanProperty(False)
    listas = BooleanProperty(False)
    por_asientos = BooleanProperty(False)  # seat by seat instead of one photo of the table
    ofrecer_baraja = BooleanProperty(False)  # offer to register the players' own deck

    def __init__(self, **kwargs: object) -> None:
        super().__init__(**kwargs)
        self.preview: Preview | None = None
        self.lectura: CardDetections | None = None  # the photo's cards (or the four seats')
        self.foto: np.ndarray | None = None
        self.chips: list[CartaChip] = []  # one per detected card, index = lectura index
        self.selector: SelectorCartas | None = None
        self.sesion: AsientoPorAsiento | None = None  # the seats read so far, seat by seat
        self.repetir_botones: dict[int, Boton] = {}  # seat -> its "Repetir" button
        self._de_camara = False  # the last photo came from the camera: reopen it for the next seat

    def on_pre_enter(self, *_: object) -> None:
        app = App.get_running_app()
        if self.preview is None:
            self.preview = Preview(self.ids.vista, al_error=self._fallo_camara)
        if self.lectura is None and self.sesion is None:
            self.estado = app.t(AYUDA_FOTO)
        elif self.sesion is not None:  # the players may have changed since
            self.sesion.jugadores = self._jugadores()
        self.dibujar()

    def on_enter(self, *_: object) -> None:
        # One tap saved per hand: the preview starts by itself (quietly if there is no camera).
        if self.lectura is None and not self.en_vivo:
            self.alternar_camara(silencioso=True)

    # -- sources --------------------------------------------------------------------------
    def _al_abrir_camara(self) -> None:
        app = App.get_running_app()
        pide = self.sesion.pedir() if self.sesion else None
        self.estado = pide.texto(app.lang) if pide else app.t("Encuadra la mesa y pulsa Capturar")

    def usar_foto(self, img: np.ndarray, de_camara: bool = False) -> bool:
        self._de_camara = de_camara
        try:
            return self.leer(img)
        finally:
            self._de_camara = False

    # -- seat by seat ---------------------------------------------------------------------
    def _jugadores(self) -> list[str] | None:
        app = App.get_running_app()
        return list(app.ctl.info.get("jugadores") or []) or None if app.ctl.activa else None

    def alternar_modo(self) -> None:
        """Whole table <-> seat by seat; what was read in the other way is put aside."""
        app = App.get_running_app()
        self.por_asientos = not self.por_asientos
        self.sesion = AsientoPorAsiento(self._jugadores()) if self.por_asientos else None
        self.lectura, self.foto = None, None
        self.ids.vista.texture = None
        pide = self.sesion.pedir() if self.sesion else None
        self.estado = pide.texto(app.lang) if pide else app.t(AYUDA_FOTO)
        self.dibujar()

    def repetir(self, asiento: int) -> None:
        """Photograph ``asiento`` again; its cards stay until the new photo is good."""
        app = App.get_running_app()
        ses = self.sesion
        if ses is None:  # the buttons exist only seat by seat
            return
        ses.repetir(asiento)
        self.lectura = None
        foto = ses.fotos[asiento]
        if foto is not None and isinstance(foto.foto, np.ndarray):
            self._mostrar(annotate(foto.foto, foto.lectura))
        pide = ses.pedir()
        self.estado = pide.texto(app.lang) if pide else app.t(TODAS_LEIDAS)
        self.dibujar()

    def _mostrar(self, img: np.ndarray) -> None:
        """Show ``img`` in the preview (there is none before the screen is first entered)."""
        if self.preview is not None:
            self.preview.mostrar(img)

    def _leer_asiento(self, ses: AsientoPorAsiento, img: np.ndarray) -> bool:
        app = App.get_running_app()
        seat = ses.turno
        try:
            lec = leer_mano(img, baraja_de(app.baraja, app.carpeta))
            self._mostrar(annotate(img, lec))  # what was seen, also when refused
            ses.poner(lec, img)
        except AsientoError as exc:
            self._rechazo(exc.aviso.texto(app.lang))
            return False
        except LecturaError as exc:
            self._rechazo(str(exc))
            return False
        self._ofrecer(lec.unfamiliar)
        if ses.completas and ses.turno is None:
            try:
                self.lectura = ses.lectura()
            except LecturaError as exc:  # corrections made two seats hold one card
                if seat is not None:
                    ses.repetir(seat)
                self._rechazo(str(exc))
                return False
        self.dibujar()
        if self.lectura is None and self._de_camara:
            self._reabrir_camara()
        return True

    def _reabrir_camara(self) -> None:
        """Straight on to the next player's cards; without a camera the prompt stays."""
        app = App.get_running_app()
        try:
            cam = Camara(int(app.camara or 0))
        except (FuenteError, ValueError):
            return
        if self.preview is None:
            cam.cerrar()
            return
        self.preview.empezar(cam)
        self.en_vivo = True

    def _rechazo(self, texto: str) -> None:
        """A seat's photo refused: say why, keep everything read, ask for that seat again."""
        app = App.get_running_app()
        self.dibujar()
        self.estado = texto
        app.avisar(texto, error=True)

    # -- reading --------------------------------------------------------------------------
    def leer(self, img: np.ndarray) -> bool:
        app = App.get_running_app()
        if self.sesion is not None and self.sesion.turno is not None:
            return self._leer_asiento(self.sesion, img)
        if self.sesion is not None:  # all four read: a new photo replaces no seat by itself
            self.estado = app.t(TODAS_LEIDAS)
            app.avisar(self.estado, error=True)
            return False
        self.foto = img
        self._mostrar(img)
        self.estado = app.t("Leyendo…")
        try:
            lec = leer_foto(img, baraja_de(app.baraja, app.carpeta))
        except LecturaError as exc:
            self.lectura = None
            self.estado = str(exc)
            app.avisar(str(exc), error=True)
            self.dibujar()
            return False
        self.lectura = lec
        self._ofrecer(lec.unfamiliar)
        self.dibujar()
        return True

    def _ofrecer(self, desconocida: bool) -> None:
        """Offer the deck's registration the first time cards are read without one, and
        whenever the reader finds the deck unfamiliar."""
        app = App.get_running_app()
        primera = baraja_de(app.baraja, app.carpeta) is None and app.almacen.ajuste("baraja_ofrecida", "") != "1"
        if primera:
            app.guardar_ajuste("baraja_ofrecida", "1")
        self.ofrecer_baraja = primera or desconocida

    def registrar_baraja(self) -> None:
        self.ofrecer_baraja = False
        App.get_running_app().ir("baraja")

    def dibujar(self) -> None:
        app = App.get_running_app()
        box = self.ids.asientos
        box.clear_widgets()
        self.chips = []
        self.repetir_botones = {}
        lec = self.lectura
        self.listas = manos(lec) is not None
        if lec is None and self.sesion is not None:
            self._dibujar_asientos()
            return
        if lec is None:
            self.resumen = app.t("Aún no hay lectura: las cartas leídas aparecerán aquí por asiento")
            return
        if self.foto is not None:
            self._mostrar(annotate(self.foto, lec))
        dudosas = int(lec.low_confidence.sum())
        self.resumen = app.tn("{n} carta", "{n} cartas", len(lec)).format(n=len(lec))
        if dudosas:
            self.resumen += " · " + app.tn(
                "{n} dudosa (naranja): tócala para corregirla", "{n} dudosas (naranja): tócalas para corregir", dudosas
            ).format(n=dudosas)
        self.estado = " · ".join(lec.warnings) or app.t("Toca una carta para corregirla")
        self.chips = [CartaChip(carta=c.card_id, dudosa=c.low_confidence) for c in lec]
        for i, chip in enumerate(self.chips):
            chip.bind(on_release=lambda w, i=i: self.corregir(i))
        if not self.listas:
            flow = StackLayout(spacing=dp(4))
            for chip in self.chips:
                flow.add_widget(chip)
            box.add_widget(flow)
            return
        jug = app.ctl.info.get("jugadores") if app.ctl.activa else None
        for s in range(4):
            name = jug[s] if jug else f"{app.t('Asiento')} {s + 1}"
            row = self._fila(name)
            for i in self._filas_de(lec, s):
                row.add_widget(self.chips[i])
            if self.sesion is not None:
                row.add_widget(self._boton_repetir(s))
            box.add_widget(row)

    def _fila(self, nombre: str) -> BoxLayout:
        row = BoxLayout(size_hint_y=None, height=dp(98), spacing=dp(2))
        row.add_widget(Label(text=nombre, bold=True, size_hint_x=None, width=dp(120), text_size=(dp(116), None)))
        return row

    def _boton_repetir(self, asiento: int) -> Boton:
        app = App.get_running_app()
        boton = Boton(text=app.t("Repetir"), size_hint_x=None, width=dp(104), font_size="18sp")
        boton.bind(on_release=lambda *_: self.repetir(asiento))
        self.repetir_botones[asiento] = boton
        return boton

    def _dibujar_asientos(self) -> None:
        """Seat by seat, before the four are there: each seat's cards (flags in orange) or
        what is still missing, the seat asked for marked."""
        app = App.get_running_app()
        ses = self.sesion
        if ses is None:
            return
        self.resumen = f"{ses.leidas()} {app.t('de 4 asientos leídos')}"
        pide = ses.pedir()
        if pide is not None:
            self.estado = pide.texto(app.lang)
        for s, foto in enumerate(ses.fotos):
            row = self._fila(ses.nombre(s, app.t))
            if foto is not None:
                for c in foto.lectura:
                    row.add_widget(CartaChip(carta=c.card_id, dudosa=c.low_confidence))
            if s == ses.turno:
                row.add_widget(Label(text=app.t("ahora"), font_size="20sp", bold=True, color=(1, 0.8, 0.3, 1)))
            elif foto is None:
                row.add_widget(Label(text=app.t("pendiente"), font_size="20sp"))
            if foto is not None and s != ses.turno:
                row.add_widget(self._boton_repetir(s))
            self.ids.asientos.add_widget(row)

    @staticmethod
    def _filas_de(lec: CardDetections, asiento: int) -> list[int]:
        """The rows of ``lec`` in ``asiento``, left to right (as its hand is written)."""
        rows = np.flatnonzero(lec.seat == asiento)
        filas: list[int] = rows[np.argsort((lec.xyxy[rows, 0] + lec.xyxy[rows, 2]) / 2, kind="stable")].tolist()
        return filas

    def _asiento_de(self, lec: CardDetections, indice: int) -> int | None:
        seat = int(lec.seat[indice])
        return seat if self.listas else None

    def corregir(self, indice: int) -> None:
        app = App.get_running_app()
        lec = self.lectura
        if lec is None:  # the chips exist only with a reading
            return
        actual = str(lec.card_ids[indice])
        marcadas = {actual}
        if lec.low_confidence[indice]:
            marcadas.add(str(lec.alternatives[indice]))
        # Nothing is blocked: picking a card read elsewhere swaps the two (a confusion).
        self.selector = SelectorCartas(
            f"{app.t('Corregir')} {actual}: {app.t('elige la carta buena')}",
            lambda c: self._poner(indice, c),
            set(),
            marcadas=marcadas,
        )
        self.selector.open()

    def _poner(self, indice: int, carta: str) -> None:
        app = App.get_running_app()
        lec = self.lectura
        if lec is None:
            return
        confianzas = lec.confidence.tolist()
        cambios = lec.correct(indice, carta)
        if self.sesion is not None:  # each seat's photo keeps its corrected cards
            self.sesion.tomar(lec)
        if self.selector:
            self.selector.dismiss()
            self.selector = None
        try:
            for i, antes, despues in cambios:
                app.almacen.guardar_correccion(
                    app.ctl.partida_id, self._asiento_de(lec, i), antes, despues, confianzas[i]
                )
        except StorageError as exc:
            app.avisar(str(exc), error=True)
        if len(cambios) > 1:
            app.avisar(app.t("Cambiadas entre sí: revisa la otra carta (naranja)"))
        self.dibujar()

    def usar(self) -> None:
        app = App.get_running_app()
        leidas = manos(self.lectura)
        if not leidas:
            return
        app.cartas_leidas = leidas
        app.origen_mano = "asientos" if self.sesion is not None else "camara"  # as the export says it
        app.foto_mano = self._bytes_de_fotos()  # its hash goes to a tournament with the hand
        # the cards as the player confirmed them teach the deck: the registered one, else the
        # one learned from the confirmed hands (vision.refuerzo, vision.aprender)
        reforzar_en_segundo_plano(self._confirmadas(), baraja_para_aprender(app.baraja, app.carpeta))
        self.lectura, self.foto = None, None
        if self.sesion is not None:  # the next hand starts with the first seat again
            self.sesion = AsientoPorAsiento(self._jugadores())
        self.ids.vista.texture = None
        app.ir("mano")

    def _confirmadas(self) -> list[tuple[CardDetections, Any]]:
        """Each photo with its cards as the player confirmed them, corrections included (seat
        by seat, the confirmed reading holds the seats' cards one seat after another)."""
        lec = self.lectura
        if lec is None:
            return []
        if self.sesion is None:
            return [(lec, self.foto)]
        return [(lec.in_seat(s), f.foto if f else None) for s, f in enumerate(self.sesion.fotos)]

    def _bytes_de_fotos(self) -> bytes | None:
        """The photo the cards came from (the four seats' one after another), as JPEG bytes."""
        fotos = [f.foto for f in self.sesion.fotos if f is not None] if self.sesion is not None else [self.foto]
        out = b""
        for foto in fotos:
            if isinstance(foto, np.ndarray):
                ok, jpg = cv2.imencode(".jpg", foto)
                out += jpg.tobytes() if ok else b""
        return out or None

    def volver(self) -> None:
        App.get_running_app().ir("mano" if App.get_running_app().entrada else "marcador")
