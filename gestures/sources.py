"""Frame sources with timestamps in seconds: a video file, a camera, a list of images.

Each source is an iterator of ``(t, frame_bgr)``. A camera that vanishes mid-stream ends the
iteration and sets ``error``; nothing raises, so the frames already processed keep their events.
"""

from __future__ import annotations

import time
from collections.abc import Iterator, Sequence
from pathlib import Path

import cv2
import numpy as np


class SourceError(RuntimeError):
    """A source that cannot be opened at all (not a video, no camera)."""


class VideoSource:
    """Frames of a video file; t from the container's timestamps (or frame index / fps)."""

    def __init__(self, path: str | Path) -> None:
        self.path = str(path)
        self.error: str | None = None
        if not Path(self.path).is_file():
            raise SourceError(f"no existe el fichero {self.path}")
        self._cap = cv2.VideoCapture(self.path)
        ok, first = self._cap.read() if self._cap.isOpened() else (False, None)
        if not ok or first is None:
            self._cap.release()
            raise SourceError(f"{self.path} no es un vídeo que OpenCV sepa leer")
        self._first: np.ndarray | None = first
        fps = self._cap.get(cv2.CAP_PROP_FPS)
        self.fps = fps if fps and fps > 0 else 25.0

    def __iter__(self) -> Iterator[tuple[float, np.ndarray]]:
        i = 0
        try:
            if self._first is not None:
                yield 0.0, self._first
                self._first = None
                i = 1
            while True:
                ok, frame = self._cap.read()
                if not ok or frame is None:
                    break
                msec = self._cap.get(cv2.CAP_PROP_POS_MSEC)
                t = msec / 1000.0 if msec and msec > 0 else i / self.fps
                yield t, frame
                i += 1
        finally:
            self._cap.release()


class CameraSource:
    """Live frames of ``cv2.VideoCapture(index)``; t = seconds since the first frame."""

    def __init__(self, index: int, width: int = 640, height: int = 480, max_failures: int = 30) -> None:
        self.index = index
        self.error: str | None = None
        self.max_failures = max_failures
        self._cap = _quiet_open(index)
        if not self._cap.isOpened():
            self._cap.release()
            raise SourceError(f"no se pudo abrir la cámara {index}")
        self._cap.set(cv2.CAP_PROP_FRAME_WIDTH, width)
        self._cap.set(cv2.CAP_PROP_FRAME_HEIGHT, height)
        self._cap.set(cv2.CAP_PROP_BUFFERSIZE, 1)  # the newest frame, not a queued old one

    def __iter__(self) -> Iterator[tuple[float, np.ndarray]]:
        start = time.monotonic()
        failures = 0
        try:
            while True:
                ok, frame = self._cap.read()
                if not ok or frame is None:
                    failures += 1
                    if failures >= self.max_failures:
                        self.error = f"la cámara {self.index} dejó de enviar imágenes"
                        break
                    time.sleep(0.01)
                    continue
                failures = 0
                yield time.monotonic() - start, frame
        finally:
            self._cap.release()


def _quiet_open(index: int) -> cv2.VideoCapture:
    """Open a camera without OpenCV's backend-by-backend warnings on stderr."""
    log = getattr(cv2, "utils", None)
    logging = getattr(log, "logging", None)
    if logging is None:
        return cv2.VideoCapture(index)
    previous = logging.getLogLevel()
    logging.setLogLevel(logging.LOG_LEVEL_SILENT)
    try:
        return cv2.VideoCapture(index)
    finally:
        logging.setLogLevel(previous)


class ImageListSource:
    """Still images in order, one every ``interval`` seconds; unreadable files are skipped and
    listed in ``errors``."""

    def __init__(self, paths: Sequence[str | Path], interval: float = 1.0) -> None:
        self.paths = [str(p) for p in paths]
        self.interval = interval
        self.errors: list[str] = []

    def __iter__(self) -> Iterator[tuple[float, np.ndarray]]:
        for i, p in enumerate(self.paths):
            frame = cv2.imread(p, cv2.IMREAD_COLOR)
            if frame is None:
                self.errors.append(f"{p}: no es una imagen legible")
                continue
            yield i * self.interval, frame


class FrameListSource:
    """In-memory frames (tests, the app): ``(t, frame)`` pairs or frames at ``fps``."""

    def __init__(self, frames: Sequence[np.ndarray] | Sequence[tuple[float, np.ndarray]], fps: float = 25.0) -> None:
        self.frames = frames
        self.fps = fps

    def __iter__(self) -> Iterator[tuple[float, np.ndarray]]:
        for i, item in enumerate(self.frames):
            if isinstance(item, tuple):
                t, frame = item
                yield float(t), np.asarray(frame)
            else:
                yield i / self.fps, np.asarray(item)
