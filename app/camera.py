"""Frames for the preview: our own cv2.VideoCapture (Kivy's Camera widget breaks with
OpenCV 4.1x), video files and still images, and the BGR -> Kivy texture conversion.

Every failure (no OpenCV, no camera, a camera unplugged mid-preview, a file that is not an
image) becomes a FuenteError or a ``None`` frame with ``error`` set: the app shows the message.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

import numpy as np


class FuenteError(RuntimeError):
    """A frame source that cannot be used; the message is for the user (Spanish)."""


def _cv2() -> Any:
    try:  # OpenCV is an optional extra: imported when a source is opened
        import cv2
    except ImportError as exc:
        raise FuenteError(f"falta OpenCV ({exc}); instala el extra 'vision' de musmesa") from None
    return cv2


def cargar_imagen(path: str | Path) -> np.ndarray:
    """Read a photo as BGR; a clear error for a missing or unreadable file."""
    p = Path(path)
    if not p.is_file():
        raise FuenteError(f"no existe la foto {p}")
    data = np.fromfile(str(p), dtype=np.uint8)  # works with non-ASCII paths too
    img = _cv2().imdecode(data, 1) if data.size else None
    if img is None:
        raise FuenteError(f"{p.name} no es una imagen que se pueda leer")
    return img


def cargar_foto_de_cartas(path: str | Path) -> np.ndarray:
    """A photo of cards from a file, decoded as ``mus leer`` and ``mus servir`` decode it: a big
    JPEG reduced while its long side stays at 1600 px or more (vision.images.load_for_reading:
    a phone's 12 MP at half its size, read as well and faster); a clear error otherwise."""
    p = Path(path)
    if not p.is_file():
        raise FuenteError(f"no existe la foto {p}")
    try:  # the card reader is an optional extra: imported when a photo of cards is opened
        from vision.images import ImageError, load_for_reading
    except ImportError as exc:
        raise FuenteError(f"falta la lectura de cartas ({exc}); instala el extra 'vision' de musmesa") from None
    try:
        return load_for_reading(p)[0]
    except ImageError as exc:  # unreadable, too small, too many pixels: its own words
        raise FuenteError(str(exc)) from None


class FuenteVideo:
    """A source of BGR frames with timestamps in seconds."""

    error: str = ""

    def leer(self) -> tuple[float, np.ndarray] | None:
        raise NotImplementedError

    def cerrar(self) -> None:
        """Release the device or file."""


class Camara(FuenteVideo):
    """A webcam through cv2.VideoCapture."""

    def __init__(self, indice: int = 0, ancho: int = 640, alto: int = 480) -> None:
        cv2 = _cv2()
        self.indice = indice
        self.cap = cv2.VideoCapture(indice)
        if not self.cap.isOpened():
            self.cap.release()
            raise FuenteError(f"no se encuentra la cámara {indice}; elige otra en Ajustes o abre una foto")
        self.cap.set(cv2.CAP_PROP_FRAME_WIDTH, ancho)
        self.cap.set(cv2.CAP_PROP_FRAME_HEIGHT, alto)
        self.t0 = time.monotonic()
        self.error = ""

    def leer(self) -> tuple[float, np.ndarray] | None:
        ok, frame = self.cap.read()
        if not ok or frame is None:
            self.error = f"la cámara {self.indice} dejó de responder (¿desconectada?)"
            return None
        return time.monotonic() - self.t0, frame

    def cerrar(self) -> None:
        self.cap.release()


class Video(FuenteVideo):
    """A video file, frame by frame at its own timestamps."""

    def __init__(self, path: str | Path) -> None:
        cv2 = _cv2()
        if not Path(path).is_file():
            raise FuenteError(f"no existe el vídeo {path}")
        self.cap = cv2.VideoCapture(str(path))
        ok, first = self.cap.read() if self.cap.isOpened() else (False, None)
        if not ok or first is None:
            self.cap.release()
            raise FuenteError(f"{Path(path).name} no es un vídeo que se pueda leer")
        self._first: np.ndarray | None = first
        self.fps = self.cap.get(cv2.CAP_PROP_FPS) or 25.0
        self.n = 0
        self.error = ""

    def leer(self) -> tuple[float, np.ndarray] | None:
        if self._first is not None:
            ok, frame, self._first = True, self._first, None
        else:
            ok, frame = self.cap.read()
        if not ok or frame is None:
            self.error = "fin del vídeo"
            return None
        self.n += 1
        return (self.n - 1) / self.fps, frame

    def cerrar(self) -> None:
        self.cap.release()


class Fotogramas(FuenteVideo):
    """A list of BGR frames (or image files) shown ``intervalo`` seconds apart."""

    def __init__(self, frames: Sequence[np.ndarray | str | Path], intervalo: float = 0.1) -> None:
        self.frames = [f if isinstance(f, np.ndarray) else cargar_imagen(f) for f in frames]
        if not self.frames:
            raise FuenteError("no hay imágenes")
        self.intervalo, self.i, self.error = intervalo, 0, ""

    def leer(self) -> tuple[float, np.ndarray] | None:
        if self.i >= len(self.frames):
            self.error = "fin de las imágenes"
            return None
        self.i += 1
        return (self.i - 1) * self.intervalo, self.frames[self.i - 1]


def a_textura(frame_bgr: np.ndarray, texture: Any = None) -> Any:
    """Blit a BGR frame into a Kivy texture (re-used when the size matches)."""
    # Kivy only once a frame is shown: the sources work without it, and importing Kivy
    # before launcher.configure_kivy would fix its settings too early
    from kivy.graphics.texture import Texture

    h, w = frame_bgr.shape[:2]
    if texture is None or texture.size != (w, h):
        texture = Texture.create(size=(w, h), colorfmt="bgr")
        texture.flip_vertical()  # OpenCV rows go top-down, GL bottom-up
    texture.blit_buffer(np.ascontiguousarray(frame_bgr).tobytes(), colorfmt="bgr", bufferfmt="ubyte")
    return texture


class Preview:
    """Polls a FuenteVideo on the Kivy clock, shows frames in an Image, hands them to a consumer.

    ``procesar(t, frame) -> result`` is the heavy part (landmarks); with a live camera it runs
    in one worker thread, frames arriving while it is busy are only shown, so the preview
    stays fluid. Files (video, images) are processed frame by frame, every frame, in order.
    ``aplicar(t, frame, result)`` runs on the Kivy thread and may return a frame to display
    (e.g. with landmarks drawn). ``al_error(msg)`` is called once when the source stops
    (camera unplugged, end of video).
    """

    def __init__(
        self,
        image_widget: Any,
        procesar: Callable | None = None,
        aplicar: Callable | None = None,
        al_error: Callable[[str], None] | None = None,
        fps: float = 12,
    ) -> None:
        self.widget, self.procesar, self.aplicar = image_widget, procesar, aplicar
        self.al_error, self.fps = al_error, fps
        self.fuente: FuenteVideo | None = None
        self.ultimo: np.ndarray | None = None
        self._ev = None
        self._tex = None
        self._pool: Any = None
        self._ocupado = False
        self._sesion = 0  # results of a stopped source are dropped

    def empezar(self, fuente: FuenteVideo) -> None:
        from kivy.clock import Clock  # Kivy only when previewing (see a_textura)

        self.parar()
        self.fuente = fuente
        self._sesion += 1
        self._ev = Clock.schedule_interval(self._tick, 1.0 / self.fps)

    def _tick(self, _dt: float) -> None:
        if self.fuente is None:
            return
        if self._ocupado and not isinstance(self.fuente, Camara):
            return  # a file waits for its previous frame: no frame is skipped
        got = self.fuente.leer()
        if got is None:
            msg = self.fuente.error
            self.parar()
            if self.al_error:
                self.al_error(msg)
            return
        t, frame = got
        self.ultimo = frame
        if self.procesar is None:
            self.mostrar(frame)
        elif isinstance(self.fuente, Camara):
            self._en_hilo(t, frame)
        else:
            self._terminar(self._sesion, t, frame, self.procesar(t, frame))

    def _en_hilo(self, t: float, frame: np.ndarray) -> None:
        from kivy.clock import Clock  # Kivy only when previewing (see a_textura)

        if self._ocupado:
            self.mostrar(frame)
            return
        if self._pool is None:
            self._pool = ThreadPoolExecutor(max_workers=1, thread_name_prefix="musmesa-preview")
        self._ocupado = True
        sesion = self._sesion
        future = self._pool.submit(self.procesar, t, frame)
        future.add_done_callback(
            lambda f: Clock.schedule_once(
                lambda dt: self._terminar(sesion, t, frame, f.result() if not f.exception() else f.exception())
            )
        )

    def _terminar(self, sesion: int, t: float, frame: np.ndarray, res: Any) -> None:
        self._ocupado = False
        if sesion != self._sesion:
            return
        shown = self.aplicar(t, frame, res) if self.aplicar else None
        self.mostrar(frame if shown is None else shown)

    def mostrar(self, frame: np.ndarray) -> None:
        self._tex = a_textura(frame, self._tex)
        self.widget.texture = self._tex
        self.widget.canvas.ask_update()

    @property
    def activa(self) -> bool:
        return self._ev is not None

    def parar(self) -> None:
        if self._ev is not None:
            self._ev.cancel()
            self._ev = None
        if self.fuente is not None:
            self.fuente.cerrar()
            self.fuente = None
        self._sesion += 1
        self._ocupado = False
