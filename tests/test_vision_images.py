"""vision.images: a JPEG's size from its header (how far a photo is reduced before any pixel is
decoded) and the reduction a photo's cards are read at."""

from __future__ import annotations

import io
import struct

import numpy as np
import pytest

cv2 = pytest.importorskip("cv2")

from vision.images import READ_LONG_SIDE, jpeg_size, reading_reduction, reduction  # noqa: E402


def _pil_jpeg(w: int, h: int, **opts: object) -> bytes:
    from PIL import Image

    buf = io.BytesIO()
    Image.fromarray(np.zeros((h, w, 3), np.uint8)).save(buf, "JPEG", **opts)
    return buf.getvalue()


def test_the_size_is_the_main_images_not_the_exif_thumbnails() -> None:
    """A phone's EXIF segment comes first and holds a small JPEG of its own (the thumbnail):
    the segment is skipped whole, the frame read is the photo's."""
    thumbnail = _pil_jpeg(160, 120)
    app1 = b"Exif\x00\x00" + thumbnail
    photo = _pil_jpeg(640, 480)
    data = photo[:2] + b"\xff\xe1" + struct.pack(">H", len(app1) + 2) + app1 + photo[2:]
    assert jpeg_size(thumbnail) == (160, 120)
    assert jpeg_size(data) == (640, 480)
    assert cv2.imdecode(np.frombuffer(data, np.uint8), cv2.IMREAD_COLOR).shape == (480, 640, 3)


@pytest.mark.parametrize("opts", [{}, {"progressive": True}, {"quality": 40, "subsampling": 0}])
def test_the_size_of_baseline_and_progressive_jpegs(opts: dict[str, object]) -> None:
    assert jpeg_size(_pil_jpeg(300, 200, **opts)) == (300, 200)


def test_no_size_from_what_is_not_a_whole_jpeg_header() -> None:
    data = _pil_jpeg(300, 200)
    frame = data.index(b"\xff\xc0")
    for bad in (b"", b"\xff", b"GIF89a", b"\x89PNG\r\n\x1a\n", data[: frame + 6], b"\xff\xd8\x00\x00"):
        assert jpeg_size(bad) is None
    rng = np.random.default_rng(0)
    for _ in range(200):  # random bodies after the start marker: an answer or None, never an error
        size = jpeg_size(b"\xff\xd8" + rng.integers(0, 256, int(rng.integers(0, 64)), np.uint8).tobytes())
        assert size is None or (len(size) == 2 and min(size) >= 0)


def test_a_photo_is_read_at_the_smallest_size_that_keeps_its_long_side() -> None:
    for w, h in [(1280, 960), (2592, 1944), (3264, 2448), (4032, 3024), (4624, 3472), (8160, 6120)]:
        f = reading_reduction(w, h)
        assert max(w, h) // f >= READ_LONG_SIDE or f == reduction(w, h)  # never under, but for memory
        assert f == 1 or max(w, h) // (2 * f) < READ_LONG_SIDE or f == 8  # and no bigger than needed
        assert f >= reduction(w, h)
