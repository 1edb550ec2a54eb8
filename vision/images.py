"""Photos in: read an image file, or check an array, as a 3-channel BGR image."""

from __future__ import annotations

import contextlib
import os
from pathlib import Path

import cv2
import numpy as np


class ImageError(ValueError):
    """The input is not a readable image; the message says why, in Spanish."""


def _quiet_opencv() -> None:
    """OpenCV logs its own decoding errors on stderr; we print one clear line instead."""
    with contextlib.suppress(AttributeError):  # builds without the logging utilities
        cv2.utils.logging.setLogLevel(cv2.utils.logging.LOG_LEVEL_SILENT)


def load_image(path: str | os.PathLike[str]) -> np.ndarray:
    """Read an image file as BGR, or raise ImageError with a clear Spanish message."""
    p = Path(path)
    if not p.exists():
        raise ImageError(f"{p}: no existe el fichero")
    if p.is_dir():
        raise ImageError(f"{p}: es una carpeta, no una imagen")
    data = np.fromfile(str(p), np.uint8)
    _quiet_opencv()
    img = cv2.imdecode(data, cv2.IMREAD_COLOR) if data.size else None
    if img is None:
        raise ImageError(f"{p}: no es una imagen legible (¿fichero dañado o de otro tipo?)")
    return img


def as_bgr(image: np.ndarray | str | os.PathLike[str]) -> np.ndarray:
    """A BGR uint8 image from a file path or an array (grey and BGRA arrays converted)."""
    img = load_image(image) if not isinstance(image, np.ndarray) else image
    if img.ndim == 2:
        return cv2.cvtColor(img, cv2.COLOR_GRAY2BGR)
    if img.shape[2] == 4:
        return cv2.cvtColor(img, cv2.COLOR_BGRA2BGR)
    return img
