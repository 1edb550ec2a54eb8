"""What the screens that take a photo share (Leer cartas, Registrar la baraja): the live
camera in ``preview``, Capturar, and an image file chosen instead.

A screen using :class:`ConFotos` has ``preview`` (app.camera.Preview), ``estado`` and
``en_vivo``, and defines ``usar_foto(img) -> bool`` (what the photo is for) and may define
``_al_abrir_camara()`` (what to say once the camera runs).
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import numpy as np
from kivy.app import App
from kivy.metrics import dp
from kivy.uix.boxlayout import BoxLayout
from kivy.uix.filechooser import FileChooserListView
from kivy.uix.modalview import ModalView

from app.camera import FuenteError, FuenteVideo, cargar_foto_de_cartas
from app.screens.vivo import ConVistaPrevia
from app.screens.widgets import Boton

IMAGE_EXT = (".jpg", ".jpeg", ".png", ".bmp", ".webp")


def elegir_imagen(al_elegir: Callable[[str], object]) -> None:
    """A file chooser of images (from examples/ when there is one); ``al_elegir(path)``."""
    app = App.get_running_app()
    start = Path.cwd() / "examples"
    chooser = FileChooserListView(
        path=str(start if start.is_dir() else Path.home()), filters=[f"*{e}" for e in IMAGE_EXT], font_size="20sp"
    )
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
            al_elegir(chooser.selection[0])

    ok.bind(on_release=abrir)
    row.add_widget(cancel)
    row.add_widget(ok)
    box.add_widget(row)
    view.add_widget(box)
    view.open()


class ConFotos(ConVistaPrevia):
    """Mixin: the camera toggled on and off, a frame captured, or a file opened instead."""

    def usar_fuente(self, fuente: FuenteVideo) -> None:
        if self.preview is None:  # the screen makes it when first entered
            fuente.cerrar()
            return
        self.preview.empezar(fuente)
        self.en_vivo = True
        self._al_abrir_camara()

    def _al_abrir_camara(self) -> None:
        pass

    def _fallo_camara(self, msg: str) -> None:
        app = App.get_running_app()
        self.en_vivo = False
        self.estado = f"{app.t('Cámara parada')}: {msg}"
        app.avisar(self.estado, error=True)

    def capturar(self) -> None:
        frame = self.preview.ultimo if self.preview else None
        self.parar()
        if frame is not None:
            self.usar_foto(frame, de_camara=True)

    def elegir_foto(self) -> None:
        elegir_imagen(self.cargar_foto)

    def cargar_foto(self, path: str | Path) -> bool:
        """An image file instead of the camera, decoded as the phones' and ``mus leer``'s photos
        are (a phone's 12 MP at half its size); a file that is no image is a message."""
        app = App.get_running_app()
        self.parar()
        try:
            img = cargar_foto_de_cartas(path)
        except FuenteError as exc:
            self.estado = str(exc)
            app.avisar(str(exc), error=True)
            return False
        return self.usar_foto(img)

    def usar_foto(self, img: np.ndarray, de_camara: bool = False) -> bool:
        raise NotImplementedError
