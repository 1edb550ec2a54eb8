"""Leer cartas: camera or photo -> vision/ -> the four hands, with one-tap corrections."""

from __future__ import annotations

from pathlib import Path

from kivy.app import App
from kivy.metrics import dp
from kivy.properties import BooleanProperty, StringProperty
from kivy.uix.boxlayout import BoxLayout
from kivy.uix.filechooser import FileChooserListView
from kivy.uix.label import Label
from kivy.uix.modalview import ModalView
from kivy.uix.screenmanager import Screen
from kivy.uix.stacklayout import StackLayout

from app.camera import Camara, FuenteError, Preview, cargar_imagen
from app.i18n import N_
from app.logic.lectura import Lectura, LecturaError, leer_foto
from app.screens.vivo import ConVistaPrevia
from app.screens.widgets import Boton, CartaChip, SelectorCartas
from app.storage import StorageError

IMAGE_EXT = (".jpg", ".jpeg", ".png", ".bmp", ".webp")
# Fanned hands are read far worse than hands in a row (models/README.md), so the hint says so.
AYUDA_FOTO = N_("Cartas boca arriba delante de cada jugador, en fila y no en abanico: captura o abre una foto")


class CartasScreen(ConVistaPrevia, Screen):
    estado = StringProperty("")
    resumen = StringProperty("")
    en_vivo = BooleanProperty(False)
    listas = BooleanProperty(False)

    def __init__(self, **kwargs: object) -> None:
        super().__init__(**kwargs)
        self.preview: Preview | None = None
        self.lectura: Lectura | None = None
        self.foto = None
        self.chips: list[CartaChip] = []  # one per detected card, index = lectura index
        self.selector: SelectorCartas | None = None

    def on_pre_enter(self, *_: object) -> None:
        app = App.get_running_app()
        if self.preview is None:
            self.preview = Preview(self.ids.vista, al_error=self._fallo_camara)
        if self.lectura is None:
            self.estado = app.t(AYUDA_FOTO)
        self.dibujar()

    def on_enter(self, *_: object) -> None:
        # One tap saved per hand: the preview starts by itself (quietly if there is no camera).
        if self.lectura is None and not self.en_vivo:
            self.alternar_camara(silencioso=True)

    # -- sources --------------------------------------------------------------------------
    def alternar_camara(self, silencioso: bool = False) -> None:
        if self.en_vivo:
            self.parar()
            return
        app = App.get_running_app()
        try:
            cam = Camara(int(app.camara or 0))
        except (FuenteError, ValueError) as exc:
            self.estado = f"{app.t('Sin cámara')}: {exc}"
            if not silencioso:
                app.avisar(self.estado, error=True)
            return
        self.preview.empezar(cam)
        self.en_vivo = True
        self.estado = app.t("Encuadra la mesa y pulsa Capturar")

    def _fallo_camara(self, msg: str) -> None:
        app = App.get_running_app()
        self.en_vivo = False
        self.estado = f"{app.t('Cámara parada')}: {msg}"
        app.avisar(self.estado, error=True)

    def capturar(self) -> None:
        frame = self.preview.ultimo if self.preview else None
        self.parar()
        if frame is not None:
            self.leer(frame)

    def elegir_foto(self) -> None:
        app = App.get_running_app()
        start = Path.cwd() / "examples"
        chooser = FileChooserListView(path=str(start if start.is_dir() else Path.home()),
                                      filters=[f"*{e}" for e in IMAGE_EXT], font_size="20sp")
        view = ModalView(size_hint=(0.9, 0.9), auto_dismiss=False)
        box = BoxLayout(orientation="vertical", spacing=dp(8), padding=dp(8))
        box.add_widget(chooser)
        row = BoxLayout(size_hint_y=None, height=dp(80), spacing=dp(8))
        cancel = Boton(text=app.t("Cancelar"))
        ok = Boton(text=app.t("Abrir"))
        cancel.bind(on_release=lambda *_: view.dismiss())

        def abrir(*_: object) -> None:
            if chooser.selection:
                view.dismiss()
                self.cargar_foto(chooser.selection[0])

        ok.bind(on_release=abrir)
        row.add_widget(cancel)
        row.add_widget(ok)
        box.add_widget(row)
        view.add_widget(box)
        view.open()

    def cargar_foto(self, path: str | Path) -> bool:
        app = App.get_running_app()
        self.parar()
        try:
            img = cargar_imagen(path)
        except FuenteError as exc:
            self.estado = str(exc)
            app.avisar(str(exc), error=True)
            return False
        return self.leer(img)

    # -- reading --------------------------------------------------------------------------
    def leer(self, img: object) -> bool:
        app = App.get_running_app()
        self.foto = img
        self.preview.mostrar(img)
        self.estado = app.t("Leyendo…")
        try:
            self.lectura = leer_foto(img, app.baraja or None)
        except LecturaError as exc:
            self.lectura = None
            self.estado = str(exc)
            app.avisar(str(exc), error=True)
            self.dibujar()
            return False
        self.dibujar()
        return True

    def dibujar(self) -> None:
        app = App.get_running_app()
        box = self.ids.asientos
        box.clear_widgets()
        self.chips = []
        lec = self.lectura
        self.listas = bool(lec and lec.asientos is not None)
        if lec is None:
            self.resumen = app.t("Aún no hay lectura: las cartas leídas aparecerán aquí por asiento")
            return
        if self.foto is not None:
            self.preview.mostrar(lec.dibujar(self.foto))
        dudosas = sum(c.dudosa for c in lec.cartas)
        self.resumen = f"{len(lec.cartas)} {app.t('cartas')}"
        if dudosas == 1:
            self.resumen += f" · {app.t('1 dudosa (naranja): tócala para corregirla')}"
        elif dudosas:
            self.resumen += f" · {dudosas} {app.t('dudosas (naranja): tócalas para corregir')}"
        self.estado = " · ".join(lec.avisos) or app.t("Toca una carta para corregirla")
        self.chips = [CartaChip(carta=c.carta, dudosa=c.dudosa) for c in lec.cartas]
        for i, chip in enumerate(self.chips):
            chip.bind(on_release=lambda w, i=i: self.corregir(i))
        if lec.asientos is None:
            flow = StackLayout(spacing=dp(4))
            for chip in self.chips:
                flow.add_widget(chip)
            box.add_widget(flow)
            return
        jug = app.ctl.info.get("jugadores") if app.ctl.activa else None
        for s, idxs in enumerate(lec.asientos):
            row = BoxLayout(size_hint_y=None, height=dp(98), spacing=dp(2))
            name = jug[s] if jug else f"{app.t('Asiento')} {s + 1}"
            row.add_widget(Label(text=name, bold=True, size_hint_x=None, width=dp(120),
                                 text_size=(dp(116), None)))
            for i in idxs:
                row.add_widget(self.chips[i])
            box.add_widget(row)

    def _asiento_de(self, indice: int) -> int | None:
        for s, idxs in enumerate(self.lectura.asientos or []):
            if indice in idxs:
                return s
        return None

    def corregir(self, indice: int) -> None:
        app = App.get_running_app()
        actual = self.lectura.cartas[indice].carta
        alt = self.lectura.cartas[indice].alternativa
        # Nothing is blocked: picking a card read elsewhere swaps the two (a confusion).
        self.selector = SelectorCartas(
            f"{app.t('Corregir')} {actual}: {app.t('elige la carta buena')}",
            lambda c: self._poner(indice, c), set(), marcadas={actual, alt} - {None})
        self.selector.open()

    def _poner(self, indice: int, carta: str) -> None:
        app = App.get_running_app()
        confianzas = [c.confianza for c in self.lectura.cartas]
        cambios = self.lectura.corregir(indice, carta)
        if self.selector:
            self.selector.dismiss()
            self.selector = None
        try:
            for i, antes, despues in cambios:
                app.almacen.guardar_correccion(app.ctl.partida_id, self._asiento_de(i), antes,
                                               despues, confianzas[i])
        except StorageError as exc:
            app.avisar(str(exc), error=True)
        if len(cambios) > 1:
            app.avisar(app.t("Cambiadas entre sí: revisa la otra carta (naranja)"))
        self.dibujar()

    def usar(self) -> None:
        app = App.get_running_app()
        manos = self.lectura.manos() if self.lectura else None
        if not manos:
            return
        app.cartas_leidas = manos
        app.origen_mano = "camara"
        self.lectura, self.foto = None, None
        self.ids.vista.texture = None
        app.ir("mano")

    def volver(self) -> None:
        App.get_running_app().ir("mano" if App.get_running_app().entrada else "marcador")
