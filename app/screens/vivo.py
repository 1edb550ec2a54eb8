"""What the señas trainer and the referee screen share: a live seña recognizer on a source.

A screen using it has ``preview`` (app.camera.Preview), ``reconocedor``, ``perfil``, ``estado``,
``aviso_calibracion`` (what is wrong with the calibration, "" when nothing) and ``en_vivo``,
and defines ``_reiniciar()`` (clear its own per-source state) and ``_nuevos(eventos)``.
"""

from __future__ import annotations

from typing import Any

from kivy.app import App

from app.camera import Camara, FuenteError, FuenteVideo, Preview
from mesa.senas import texto_calibracion


def crear_reconocedor(perfil: str) -> Any:
    """The recognizer for a profile; a missing extra or model becomes a message."""
    try:  # gestures/ (MediaPipe) is an optional extra: imported when a source starts
        from gestures.recognizer import SenaRecognizer
    except ImportError as exc:
        raise FuenteError(f"las señas no están disponibles ({exc}); instala el extra 'gestures' de musmesa") from None
    try:
        return SenaRecognizer(perfil=perfil, mirrored=False, calibracion=1.0)
    except Exception as exc:  # a missing or broken model must not crash the app
        raise FuenteError(f"no se pudo cargar el reconocedor de señas: {exc}") from None


class ConVistaPrevia:
    """Mixin for screens with a live ``preview``: the camera toggled on and off (the screen's
    ``usar_fuente`` starts it), and leaving the screen stops the source."""

    # what the screen using the mixin holds (Kivy properties or attributes set in its __init__)
    preview: Preview | None
    estado: str
    en_vivo: bool

    def usar_fuente(self, fuente: FuenteVideo) -> object:
        """Start showing ``fuente`` (each screen says what it does with the frames)."""
        raise NotImplementedError

    def on_leave(self, *_: object) -> None:
        self.parar()

    def alternar_camara(self, silencioso: bool = False) -> None:
        """Start the camera (stop it if it runs); ``silencioso``: no message without one
        (a screen may open it by itself, and a tablet may have none)."""
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
        self.usar_fuente(cam)

    def parar(self) -> None:
        if self.preview is not None:
            self.preview.parar()
        self.en_vivo = False


class ReconocimientoEnVivo(ConVistaPrevia):
    """Mixin for Kivy screens that recognise señas from a camera, a video or frames."""

    reconocedor: Any  # gestures.recognizer.SenaRecognizer (an optional extra), None until a source starts
    perfil: str
    aviso_calibracion: str

    def _reiniciar(self) -> None:
        """Clear the screen's own per-source state."""
        raise NotImplementedError

    def _nuevos(self, eventos: Any) -> None:
        """Take the recognizer's new events."""
        raise NotImplementedError

    def usar_fuente(self, fuente: FuenteVideo) -> bool:
        """Start recognising from a camera, a video or frames (the demo feeds images)."""
        app = App.get_running_app()
        if self.preview is None:  # the screen makes it when first entered
            fuente.cerrar()
            return False
        if self.reconocedor is None:
            try:
                self.reconocedor = crear_reconocedor(self.perfil)
            except FuenteError as exc:
                fuente.cerrar()
                self.estado = str(exc)
                app.avisar(str(exc), error=True)
                return False
        self.reconocedor.reset()
        self._reiniciar()
        self.preview.empezar(fuente)
        self.en_vivo = True
        return True

    def recalibrar(self) -> None:
        """Measure the neutral face again on the next frames."""
        if self.reconocedor is not None:
            self.reconocedor.calibrate()
            self.aviso_calibracion = ""
            self.estado = App.get_running_app().t("Calibrando: cara neutra un momento…")

    def _calibracion(self, res: Any) -> None:
        """Say what is wrong with the calibration in use (None: still calibrating)."""
        app = App.get_running_app()
        self.aviso_calibracion = texto_calibracion(getattr(res, "calibracion", None), app.lang)

    def _fallo(self, msg: str) -> None:
        self.en_vivo = False
        if self.reconocedor is not None:
            self._nuevos(self.reconocedor.finish())  # what was still held; repeats skipped
        self.estado = f"{App.get_running_app().t('Fuente parada')}: {msg}"

    def _procesar(self, t: float, frame: Any) -> Any:
        """Landmarks and events (may run in the preview's worker thread: no Kivy here)."""
        try:
            return self.reconocedor.process(frame, t)
        except Exception as exc:  # keep the preview alive; say what failed
            return exc
