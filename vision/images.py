"""Photos in: read an image file, or check an array, as a 3-channel BGR image.

A photo too small or too thin to hold a readable card is refused here, with the reason, before
any stage resizes it (a 3x5000 strip would shrink to zero rows).
"""

from __future__ import annotations

import contextlib
import os
from pathlib import Path
from typing import Final

import cv2
import numpy as np

from scoring.inputs import InputError, read_bytes
from vision.arrays import Image

MAX_IMAGE_BYTES: Final = 64 * 1024 * 1024  # a phone photo is under 20 MB
MIN_SIDE: Final = 32  # pixels: a card narrower than this cannot be read
MAX_ASPECT: Final = 10  # long side / short side: a table photo is nowhere near this thin
# Pixels a decoded photo may have: a usual phone photo, 12 MP (4032x3024 = 12.19 MP), fits whole;
# a bigger JPEG is always decoded reduced (libjpeg scales while it decodes, :func:`reduction`), so
# that a 48-50 MP photo (8160x6120 / 4 = 12.48 MP) or a small file claiming as much costs no more
# memory than a 12 MP photo. Its cards are read at a fraction of this (READ_LONG_SIDE).
MAX_DECODED_PIXELS: Final = 12_600_000
# libjpeg's scales (1/2, 1/4, 1/8) as OpenCV's flags: the full-size image is never allocated
_REDUCED: Final = {2: cv2.IMREAD_REDUCED_COLOR_2, 4: cv2.IMREAD_REDUCED_COLOR_4, 8: cv2.IMREAD_REDUCED_COLOR_8}
# The long side a JPEG is read at, at least (:func:`reading_reduction`): the reader is measured on
# 1280x960 photos, and a phone's 12 MP table photo read at half its size (2016x1512) read as many
# cards or more in 60 generated ones, in two thirds of the time of decoding and reading it whole
# (training.cards.telefono, docs/measurements.md): cut out of the whole photo, a card is shrunk
# five times by a warp that does not average.
READ_LONG_SIDE: Final = 1600


class ImageError(ValueError):
    """The input is not a readable image; the message says why, in Spanish."""


def _quiet_opencv() -> None:
    """OpenCV logs its own decoding errors on stderr; we print one clear line instead."""
    with contextlib.suppress(AttributeError):  # builds without the logging utilities
        cv2.utils.logging.setLogLevel(cv2.utils.logging.LOG_LEVEL_SILENT)


def _read_bytes(p: Path) -> bytes:
    """The file's bytes; ImageError saying why it cannot be read (missing, loop, permission)."""
    try:
        return read_bytes(p, MAX_IMAGE_BYTES, kind="una imagen")
    except InputError as exc:
        raise ImageError(str(exc)) from None


def check_size(img: Image, name: str = "la imagen") -> Image:
    """``img`` itself, or ImageError when it is too small or too thin to hold a card."""
    h, w = img.shape[:2]
    if min(h, w) < MIN_SIDE:
        raise ImageError(
            f"{name}: imagen demasiado pequeña ({w}x{h} píxeles; hacen falta "
            f"al menos {MIN_SIDE} de lado para ver una carta)"
        )
    if max(h, w) > MAX_ASPECT * min(h, w):
        raise ImageError(
            f"{name}: imagen demasiado estrecha ({w}x{h} píxeles; una foto de "
            f"la mesa no es más de {MAX_ASPECT} veces más larga que ancha)"
        )
    return img


def reduction(width: int, height: int, max_pixels: int = MAX_DECODED_PIXELS) -> int:
    """The smallest of libjpeg's reductions (1, 2, 4, 8) that decodes a ``width`` x ``height``
    JPEG within ``max_pixels``; 0 when even 1/8 is too big.

        >>> reduction(4032, 3024), reduction(4672, 3504), reduction(8160, 6120), reduction(30000, 30000)
        (1, 2, 2, 0)
    """
    for factor in (1, *_REDUCED):
        if -(-width // factor) * -(-height // factor) <= max_pixels:  # libjpeg rounds up
            return factor
    return 0


def reading_reduction(width: int, height: int) -> int:
    """The libjpeg reduction (1, 2, 4, 8) to read a ``width`` x ``height`` JPEG's cards at: the
    largest that keeps its long side at READ_LONG_SIDE or more, and never less than
    :func:`reduction` (0 when even 1/8 holds too many pixels).

        >>> [reading_reduction(w, h) for w, h in [(1280, 960), (3264, 2448), (4032, 3024), (7744, 5808)]]
        [1, 2, 2, 4]
        >>> reading_reduction(3024, 4032), reading_reduction(3000, 3000), reading_reduction(30000, 30000)
        (2, 1, 0)
    """
    memory = reduction(width, height)
    if memory == 0:
        return 0
    side = max(width, height)
    fits = [f for f in (1, *_REDUCED) if -(-side // f) >= READ_LONG_SIDE]
    return max(memory, max(fits, default=1))


def jpeg_size(data: bytes) -> tuple[int, int] | None:
    """A JPEG's stored width and height from its frame header, no pixel decoded (None: not a
    JPEG, or no frame header where one should be). The stored size: a photo whose EXIF tag
    says to turn it a quarter decodes with the two swapped.

        >>> ok, buf = cv2.imencode(".jpg", np.zeros((30, 50, 3), np.uint8))
        >>> jpeg_size(buf.tobytes()), jpeg_size(b"GIF89a"), jpeg_size(b"\\xff\\xd8\\xff\\xc0\\x00")
        ((50, 30), None, None)
    """
    if data[:2] != b"\xff\xd8":
        return None
    i = 2
    while i + 4 <= len(data):
        if data[i] != 0xFF:
            return None
        marker = data[i + 1]
        if marker == 0xFF:  # fill bytes before a marker
            i += 1
            continue
        if marker in _STANDALONE:
            i += 2
            continue
        length = int.from_bytes(data[i + 2 : i + 4], "big")
        if marker in _FRAMES:  # start of frame: precision, height, width
            if i + 9 > len(data) or length < 7:
                return None
            return int.from_bytes(data[i + 7 : i + 9], "big"), int.from_bytes(data[i + 5 : i + 7], "big")
        if marker == 0xDA or length < 2:  # scan data before any frame: not a photo we read
            return None
        i += 2 + length  # another segment (EXIF with its thumbnail, tables): skipped whole
    return None


# JPEG markers: the frames (SOF0-15 but the tables DHT, JPG and DAC), and those without a length
_FRAMES: Final = frozenset(range(0xC0, 0xD0)) - {0xC4, 0xC8, 0xCC}
_STANDALONE: Final = frozenset({0x01, *range(0xD0, 0xD8)})


def decode_image(data: bytes, name: str = "la imagen", reduce: int = 1) -> Image | None:
    """The BGR image in ``data`` (an image file's bytes) turned as its EXIF orientation tag
    says (OpenCV's decoder applies it: phones store most photos sideways with the tag), or
    None when OpenCV cannot read it; ImageError when it is too small or too thin. ``reduce``
    (2, 4 or 8, from :func:`reduction`) decodes it at that fraction of its width and height:
    a JPEG is scaled by libjpeg as it is decoded, never whole; any other format is decoded
    whole first (OpenCV shrinks it after), so a caller bounding memory refuses those instead."""
    buf = np.frombuffer(data, np.uint8)
    _quiet_opencv()
    img = cv2.imdecode(buf, _REDUCED[reduce] if reduce != 1 else cv2.IMREAD_COLOR) if buf.size else None
    return None if img is None else check_size(np.asarray(img, np.uint8), name)


def load_image(path: str | os.PathLike[str]) -> Image:
    """Read an image file as BGR, or raise ImageError with a clear Spanish message."""
    return load_for_reading(path, whole=True)[0]


def load_for_reading(path: str | os.PathLike[str], whole: bool = False) -> tuple[Image, int]:
    """An image file as BGR to read its cards from, and the factor it was reduced by: a JPEG
    decoded at :func:`reading_reduction` (a pixel of the image is that many of the photo's each
    way; ``whole``: decoded whole, factor 1), anything else whole. ImageError
    with a clear Spanish message when it cannot be read."""
    p = Path(path)
    data = _read_bytes(p)
    size = jpeg_size(data)
    factor = 1
    if size is not None and not whole:
        factor = reading_reduction(*size)
        if factor == 0:
            raise ImageError(f"{p}: demasiados píxeles ({size[0]}x{size[1]})")
    img = decode_image(data, str(p), factor)
    if img is None:
        raise ImageError(f"{p}: no es una imagen legible (¿fichero dañado o de otro tipo?)")
    return img, factor


def as_bgr(image: Image | str | os.PathLike[str]) -> Image:
    """A BGR uint8 image from a file path or an array (grey and BGRA arrays converted)."""
    img = load_image(image) if not isinstance(image, np.ndarray) else check_size(image)
    if img.ndim == 2:
        return np.asarray(cv2.cvtColor(img, cv2.COLOR_GRAY2BGR), np.uint8)
    if img.shape[2] == 4:
        return np.asarray(cv2.cvtColor(img, cv2.COLOR_BGRA2BGR), np.uint8)
    return img
