"""Big photos: a JPEG is decoded reduced (vision.images.reading_reduction: a phone's 12 MP at
half its size, anything over 12 MP always) and reads the same cards as the photo at its own
size, with its boxes (`caja`) in the sent photo's pixels, upright as its EXIF tag says: the page
draws them over the photo it holds, at that photo's own size (server/static/mano_foto.js). The
photos are examples/mesa.jpg made bigger."""

from __future__ import annotations

import io
from pathlib import Path
from typing import Any

import numpy as np
import pytest

ROOT = Path(__file__).resolve().parents[1]
MESA = ROOT / "examples" / "mesa.jpg"

pytest.importorskip("fastapi")
cv2 = pytest.importorskip("cv2")
pytestmark = pytest.mark.skipif(
    not (ROOT / "models" / "carta_obb.onnx").is_file(), reason="the trained models are not in models/"
)

from mesa.asientos import fotos_por_asiento  # noqa: E402
from server.servicios import lectura  # noqa: E402  (after the skips: the server's extras)
from vision.images import MAX_DECODED_PIXELS  # noqa: E402


def _jpeg(img: np.ndarray, orientation: int = 1) -> bytes:
    """``img`` as a phone's JPEG; with ``orientation`` (6, 8 or 3) stored turned, with the EXIF
    tag saying how to turn it back upright."""
    from PIL import Image

    turned = {6: cv2.ROTATE_90_COUNTERCLOCKWISE, 8: cv2.ROTATE_90_CLOCKWISE, 3: cv2.ROTATE_180}
    stored = cv2.rotate(img, turned[orientation]) if orientation != 1 else img
    exif = Image.Exif()
    exif[0x0112] = orientation
    buf = io.BytesIO()
    Image.fromarray(stored[..., ::-1]).save(buf, "JPEG", quality=90, exif=exif.tobytes())
    return buf.getvalue()


def _bigger(img: np.ndarray, ancho: int, alto: int) -> np.ndarray:
    return np.asarray(cv2.resize(img, (ancho, alto), interpolation=cv2.INTER_CUBIC), np.uint8)


@pytest.fixture(scope="module")
def original() -> dict[str, Any]:
    lec = lectura.leer(MESA.read_bytes(), "mesa.jpg")
    assert "error" not in lec and lec["asientos"]
    return lec


def _same_reading(got: dict[str, Any], want: dict[str, Any], escala: float, ancho: int) -> None:
    """The same cards in the same seats, each box ``want``'s made ``escala`` times bigger, within
    1% of the photo's width."""
    assert "error" not in got, got
    assert got["asientos"] == want["asientos"]
    por_carta = {c["carta"]: c for c in got["cartas"]}
    assert sorted(por_carta) == sorted(c["carta"] for c in want["cartas"])
    for c in want["cartas"]:
        caja = np.array(por_carta[c["carta"]]["caja"])
        assert np.abs(caja - np.array(c["caja"]) * escala).max() < 0.01 * ancho, (c["carta"], caja)


@pytest.mark.parametrize(("ancho", "alto", "reducida"), [(4672, 3504, 2), (7744, 5808, 4)])  # 16.4 MP and 45 MP
def test_a_big_jpeg_is_decoded_reduced_and_reads_the_same_cards(
    original: dict[str, Any], ancho: int, alto: int, reducida: int
) -> None:
    data = _jpeg(_bigger(cv2.imread(str(MESA)), ancho, alto))
    img, factor = lectura.decodificar_foto(data)
    assert factor == reducida and img.shape == (alto // reducida, ancho // reducida, 3)
    assert img.shape[0] * img.shape[1] <= MAX_DECODED_PIXELS
    del img
    _same_reading(lectura.leer(data, "mesa.jpg"), original, ancho / 1280, ancho)


def test_a_12_mp_photo_taken_sideways_reads_upright_at_half_its_size(original: dict[str, Any]) -> None:
    data = _jpeg(_bigger(cv2.imread(str(MESA)), 4032, 3024), orientation=6)
    img, factor = lectura.decodificar_foto(data)
    assert factor == 2 and img.shape == (1512, 2016, 3)  # a phone's 12 MP: halved, upright
    del img
    _same_reading(lectura.leer(data, "mesa.jpg"), original, 4032 / 1280, 4032)


@pytest.mark.parametrize("orientation", [6, 8, 3])
def test_a_45_mp_photo_taken_sideways_has_its_boxes_in_the_upright_photo(
    original: dict[str, Any], orientation: int
) -> None:
    data = _jpeg(_bigger(cv2.imread(str(MESA)), 7744, 5808), orientation)
    img, factor = lectura.decodificar_foto(data)
    assert factor == 4 and img.shape == (1452, 1936, 3)  # upright, a quarter each way
    del img
    _same_reading(lectura.leer(data, "mesa.jpg"), original, 7744 / 1280, 7744)


def test_the_api_answers_boxes_in_the_sent_photos_pixels(original: dict[str, Any], tmp_path: Path) -> None:
    from server.main import crear_app
    from tests.cliente_web import ClienteWeb

    data = _jpeg(_bigger(cv2.imread(str(MESA)), 4672, 3504))
    with ClienteWeb(crear_app(f"sqlite:///{tmp_path / 'mus.db'}", tmp_path)) as c:
        res = c.post("/api/leer", files={"foto": ("mesa.jpg", data, "image/jpeg")})
    assert res.status_code == 200, res.text
    _same_reading(res.json(), original, 4672 / 1280, 4672)


def test_a_big_seat_photo_reads_its_four_cards_in_its_own_pixels() -> None:
    from vision.detections import CardDetections

    foto = cv2.imread(str(MESA))
    lec = CardDetections.from_json(lectura.leer(MESA.read_bytes(), "mesa.jpg"))
    asiento = fotos_por_asiento(foto, lec)[0]
    pequena = lectura.leer_asiento(_jpeg(asiento), "a.jpg", None, 0, [None] * 4, None)
    alto, ancho = asiento.shape[:2]
    escala = int(np.ceil(np.sqrt(16e6 / (alto * ancho))))  # about 16 MP
    data = _jpeg(_bigger(asiento, ancho * escala, alto * escala))
    assert lectura.decodificar_foto(data)[1] > 1
    grande = lectura.leer_asiento(data, "a.jpg", None, 0, [None] * 4, None)
    want = {c["carta"]: c["caja"] for c in pequena["lectura"]["cartas"]}
    got = {c["carta"]: c["caja"] for c in grande["lectura"]["cartas"]}
    assert len(want) == 4 and sorted(got) == sorted(want)
    for carta, caja in want.items():
        assert np.abs(np.array(got[carta]) - np.array(caja) * escala).max() < 0.01 * ancho * escala
