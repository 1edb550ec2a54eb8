"""Photos from the phones: server/servicios/lectura.py (checks, EXIF, the bounded pool) and POST /api/leer
against the real models in models/, the answer compared with `mus leer --json` itself."""

from __future__ import annotations

import io
import json
import os
import re
import subprocess
import sys
import tempfile
import threading
from pathlib import Path
from typing import Any

import numpy as np
import pytest

ROOT = Path(__file__).resolve().parents[1]
EXAMPLES = ROOT / "examples"
needs_models = pytest.mark.skipif(
    not (ROOT / "models" / "carta_obb.onnx").is_file(), reason="the trained models are not in models/"
)

pytest.importorskip("fastapi")
pytest.importorskip("python_multipart")
cv2 = pytest.importorskip("cv2")

from server.servicios import lectura  # noqa: E402  (after the skips: the server's extras)
from server.servicios.partidas import WebError  # noqa: E402
from tests.servidor_torneo import postgres  # noqa: E402, F401 (the PostgreSQL fixture, used by name)


def _mus_leer_json(image: Path) -> dict[str, Any]:
    """`mus leer --json --sin-baraja` run as a person runs it, on ``image`` by its file name."""
    res = subprocess.run(
        [sys.executable, "-m", "musmesa", "leer", "--json", "--sin-baraja", image.name],
        cwd=image.parent,
        capture_output=True,
        text=True,
        timeout=300,
        env={**os.environ, "PYTHONPATH": str(ROOT)},
    )
    return json.loads(res.stdout)


def _jpeg_with_orientation(img: np.ndarray, orientation: int) -> bytes:
    """``img`` stored as a phone stores a photo taken sideways: the pixels turned, and an EXIF
    Orientation tag saying how to turn them back."""
    from PIL import Image

    turned = {6: cv2.ROTATE_90_COUNTERCLOCKWISE, 8: cv2.ROTATE_90_CLOCKWISE, 3: cv2.ROTATE_180}
    stored = cv2.rotate(img, turned[orientation])
    exif = Image.Exif()
    exif[0x0112] = orientation
    buf = io.BytesIO()
    Image.fromarray(stored[..., ::-1]).save(buf, "JPEG", quality=95, exif=exif.tobytes())
    return buf.getvalue()


# -- server/servicios/lectura.py, no HTTP ------------------------------------------------------------------


def test_a_photo_over_16_mib_is_refused_with_one_message() -> None:
    with pytest.raises(WebError) as exc:
        lectura.comprobar_foto(b"\xff\xd8" + b"\0" * (16 * 1024 * 1024 - 1))
    assert exc.value.estado == 413
    assert exc.value.texto() == "la foto es demasiado grande: como mucho 16 MB"
    assert exc.value.texto("en") != exc.value.texto() and "16" in exc.value.texto("eu")


def _heic() -> bytes:
    # an iPhone photo's first box: size, "ftyp", major brand, version, compatible brands
    return (24).to_bytes(4, "big") + b"ftypheic" + b"\0\0\0\0" + b"mif1heic" + b"\0" * 200


def test_heic_is_named_and_garbage_is_unreadable() -> None:
    with pytest.raises(WebError, match="HEIC") as exc:
        lectura.comprobar_foto(_heic())
    assert exc.value.estado == 415
    with pytest.raises(WebError, match="no es una foto que se pueda leer"):
        lectura.comprobar_foto(b"GIF89a" + b"\0" * 100)
    with pytest.raises(WebError, match="ninguna foto"):
        lectura.comprobar_foto(b"")


def test_png_webp_and_a_tiny_image() -> None:
    for ext in (".png", ".webp"):
        _, data = cv2.imencode(ext, np.full((64, 96, 3), 200, np.uint8))
        assert lectura.comprobar_foto(data.tobytes()).shape == (64, 96, 3)
    _, tiny = cv2.imencode(".png", np.zeros((8, 8, 3), np.uint8))
    with pytest.raises(WebError, match="demasiado pequeña"):
        lectura.comprobar_foto(tiny.tobytes())


def test_the_exif_orientation_turns_the_photo_upright() -> None:
    img = np.zeros((120, 200, 3), np.uint8)
    img[:, :40] = 255  # a white band on the left of the upright photo
    for orientation in (6, 8, 3):
        got = lectura.comprobar_foto(_jpeg_with_orientation(img, orientation))
        assert got.shape == img.shape
        assert got[:, :30].mean() > 200 and got[:, 60:].mean() < 30


def test_the_pool_refuses_when_full_instead_of_waiting() -> None:
    pool = lectura.PoolLecturas(hilos=1, cola=1)
    release = threading.Event()
    try:
        running = pool.enviar(release.wait, 30)
        waiting = pool.enviar(lambda: "queued")
        with pytest.raises(lectura.Ocupado) as exc:
            pool.enviar(lambda: "one too many")
        assert exc.value.estado == 503 and "vuelve a intentarlo" in exc.value.texto()
        release.set()
        assert running.result(10) is True and waiting.result(10) == "queued"
        assert pool.enviar(lambda: "room again").result(10) == "room again"
    finally:
        release.set()
        pool.cerrar()


# -- POST /api/leer ---------------------------------------------------------------------------


@pytest.fixture
def client(tmp_path: Path) -> Any:
    from server.main import crear_app
    from tests.cliente_web import ClienteWeb as TestClient

    app = crear_app(f"sqlite:///{tmp_path / 'mus.db'}", tmp_path)
    with TestClient(app) as c:
        yield c


def _post(client: Any, data: bytes, name: str = "mesa.jpg", **fields: str) -> Any:
    return client.post("/api/leer", files={"foto": (name, data, "image/jpeg")}, data=fields)


@needs_models
def test_the_api_answers_what_mus_leer_json_answers() -> None:
    from server.main import crear_app
    from tests.cliente_web import ClienteWeb as TestClient

    expected = _mus_leer_json(EXAMPLES / "mesa.jpg")
    assert "error" not in expected and expected["asientos"]
    with tempfile.TemporaryDirectory() as d, TestClient(crear_app(f"sqlite:///{d}/mus.db", Path(d))) as c:
        res = _post(c, (EXAMPLES / "mesa.jpg").read_bytes())
        assert res.status_code == 200, res.text
        assert res.json() == expected
        # the same photo stored sideways with an EXIF tag reads the same cards
        turned = _jpeg_with_orientation(cv2.imread(str(EXAMPLES / "mesa.jpg")), 6)
        again = _post(c, turned).json()
        assert again["asientos"] == expected["asientos"]
        assert sorted(x["carta"] for x in again["cartas"]) == sorted(x["carta"] for x in expected["cartas"])


@needs_models
def test_a_photo_without_cards_reads_as_none(client: Any) -> None:
    rng = np.random.default_rng(0)
    cloth = np.clip(rng.normal((40, 110, 40), 12, (480, 640, 3)), 0, 255).astype(np.uint8)
    _, jpg = cv2.imencode(".jpg", cloth)
    res = _post(client, jpg.tobytes(), "tapete.jpg")
    assert res.status_code == 422
    assert res.json() == {
        "imagen": "tapete.jpg",
        "error": "tapete.jpg: no se ve ninguna carta (¿es una foto de la mesa?)",
    }


def test_bad_photos_get_one_line_in_the_players_language(client: Any) -> None:
    big = _post(client, b"\xff\xd8" + b"\0" * (16 * 1024 * 1024))
    assert big.status_code == 413 and big.json() == {"error": "la foto es demasiado grande: como mucho 16 MB"}
    heic = client.post("/api/leer?lang=en", files={"foto": ("IMG_0001.HEIC", _heic(), "image/heic")})
    assert heic.status_code == 415 and "HEIC" in heic.json()["error"]
    assert heic.json()["error"] != lectura.FOTO_HEIC  # in English
    none = client.post("/api/leer", data={"partida": "x"})
    assert none.status_code == 422 and none.json() == {"error": "no ha llegado ninguna foto"}
    unknown = _post(client, b"\xff\xd8\xff", partida="no-existe")
    assert unknown.status_code == 404


def test_photos_are_limited_per_address(client: Any) -> None:
    from server.limites import Limite

    client.app.state.limite_leer = Limite("leer", 2, 60.0)
    codes = [_post(client, b"not a photo").status_code for _ in range(3)]
    assert codes == [415, 415, 429]
    assert client.get("/").status_code == 200  # the pages are not limited by the photos


def test_a_full_pool_answers_busy_at_once(client: Any) -> None:
    release = threading.Event()
    pool = lectura.PoolLecturas(hilos=1, cola=0)
    client.app.state.lecturas = pool
    try:
        pool.enviar(release.wait, 30)
        res = _post(client, b"\xff\xd8\xff")
        assert res.status_code == 503 and res.headers["retry-after"] == "2"
        assert "ocupado" in res.json()["error"]
    finally:
        release.set()
        pool.cerrar()


# -- the players' deck, registered from the phone --------------------------------------------


def _partida(client: Any) -> str:
    res = client.post("/api/partidas", json={"jugadores": ["Ana", "Bea", "Carlos", "Dani"]})
    assert res.status_code in (200, 201), res.text
    return res.json()["clave"]


def _fotos_baraja(**cambios: str) -> dict[str, tuple[str, bytes, str]]:
    fotos = {p: cambios.get(p, p) for p in ("oros", "copas", "espadas", "bastos")}
    return {p: (f"{f}.jpg", (EXAMPLES / "baraja" / f"{f}.jpg").read_bytes(), "image/jpeg") for p, f in fotos.items()}


@needs_models
def test_each_suit_photo_is_checked_as_the_app_checks_it(client: Any) -> None:
    ok = client.post(
        "/api/baraja/comprobar",
        data={"palo": "copas"},
        files={"foto": ("copas.jpg", (EXAMPLES / "baraja" / "copas.jpg").read_bytes())},
    )
    assert ok.status_code == 200 and ok.json() == {"palo": "copas", "bien": True}
    wrong = client.post(
        "/api/baraja/comprobar",
        data={"palo": "2"},
        files={"foto": ("copas.jpg", (EXAMPLES / "baraja" / "copas.jpg").read_bytes())},
    )
    # the copas photo sent for espadas: told it is the wrong suit, in the player's language
    assert wrong.status_code == 422
    assert wrong.json()["error"] == "esta foto es de copas, no de espadas: haz la foto de las cartas de espadas"
    en = client.post(
        "/api/baraja/comprobar?lang=en",
        data={"palo": "espadas"},
        files={"foto": ("copas.jpg", (EXAMPLES / "baraja" / "copas.jpg").read_bytes())},
    ).json()["error"]
    assert "copas" not in en and "espadas" not in en, en
    bad = client.post("/api/baraja/comprobar", data={"palo": "copa"}, files={"foto": ("x.jpg", b"x")})
    assert bad.status_code == 422 and "palo desconocido" in bad.json()["error"]


@needs_models
def test_registration_from_four_photos_then_reading_uses_it(
    client: Any, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    clave = _partida(client)
    assert client.get(f"/api/partidas/{clave}/baraja").json()["registrada"] is False
    refused = client.post(f"/api/partidas/{clave}/baraja", files=_fotos_baraja(espadas="copas"))
    assert refused.status_code == 422 and "no de espadas" in refused.json()["error"]
    assert client.get(f"/api/partidas/{clave}/baraja").json()["registrada"] is False

    res = client.post(f"/api/partidas/{clave}/baraja", files=_fotos_baraja())
    assert res.status_code == 200, res.text
    assert res.json()["registrada"] is True and res.json()["cartas"] == 40
    assert client.get(f"/api/partidas/{clave}/baraja").json()["registrada"] is True
    assert client.get(f"/p/{clave}/baraja").status_code == 200

    # the reading of that partida is `mus leer --json --baraja` with the deck kept in the database
    from server.modelos.partidas import PartidaWeb

    with client.app.state.web_sesiones() as s:
        npz = s.query(PartidaWeb).filter_by(clave=clave).one().baraja
    (tmp_path / "baraja.npz").write_bytes(npz)
    expected = json.loads(
        subprocess.run(
            [sys.executable, "-m", "musmesa", "leer", "--json", "--baraja", str(tmp_path / "baraja.npz"), "mesa.jpg"],
            cwd=EXAMPLES,
            capture_output=True,
            text=True,
            timeout=300,
            env={**os.environ, "PYTHONPATH": str(ROOT)},
        ).stdout
    )
    general = _mus_leer_json(EXAMPLES / "mesa.jpg")
    from vision.registered_deck import RegisteredDeck

    cargas: list[bytes] = []
    desde_bytes = RegisteredDeck.from_bytes.__func__  # type: ignore[attr-defined]

    def contada(cls: type, d: bytes, *a: Any) -> Any:
        cargas.append(d)
        return desde_bytes(cls, d, *a)

    monkeypatch.setattr(RegisteredDeck, "from_bytes", classmethod(contada))
    got = _post(client, (EXAMPLES / "mesa.jpg").read_bytes(), partida=clave).json()
    assert got == expected
    assert _post(client, (EXAMPLES / "mesa.jpg").read_bytes(), partida=clave).json() == expected
    assert len(cargas) <= 1  # the deck loaded once (kept by its hash), not with every photo
    assert got != general  # against the deck the reader reads (and flags) otherwise
    assert client.delete(f"/api/partidas/{clave}/baraja").json()["registrada"] is False
    assert _post(client, (EXAMPLES / "mesa.jpg").read_bytes(), partida=clave).json() == general


# -- seat by seat and corrections (the hand page's photo part) ---------------------------------


@needs_models
def test_seat_by_seat_refuses_naming_the_card_then_makes_the_four_hands(client: Any) -> None:
    from mesa.asientos import fotos_por_asiento
    from mesa.lectura import leer_foto

    clave = _partida(client)
    mesa = cv2.imread(str(EXAMPLES / "mesa.jpg"))
    truth = json.loads((EXAMPLES / "mesa.json").read_text(encoding="utf-8"))["manos"]
    fotos = [cv2.imencode(".jpg", f)[1].tobytes() for f in fotos_por_asiento(mesa, leer_foto(mesa))]

    def seat(s: int, foto: bytes, previas: list, lang: str = "es") -> Any:
        return client.post(
            f"/api/leer/asiento?lang={lang}",
            files={"foto": (f"{s}.jpg", foto)},
            data={"partida": clave, "asiento": str(s), "fotos_asiento": json.dumps(previas)},
        )

    previas: list = [None] * 4
    for s in range(4):
        if s == 2:  # Bea's photo again as Carlos's: a card seen twice, named, nothing changes
            twice = seat(2, fotos[1], previas)
            assert twice.status_code == 422
            assert re.match(
                r"Carlos \(asiento 3\): la carta [a-z]+ de [a-z]+ ya está en la mano de Bea \(asiento 2\)",
                twice.json()["error"],
            ), twice.json()  # the card by its name, not its notation
            en = seat(2, fotos[1], previas, "en").json()["error"]
            assert re.match(r"Carlos \(seat 3\): the card [a-z]+ of [a-z]+ is already in Bea's hand", en), en
            assert len(twice.json()["lectura"]["cartas"]) == 4  # what was seen, to show it
        res = seat(s, fotos[s], previas)
        assert res.status_code == 200, res.text
        previas = res.json()["fotos_asiento"]
        assert res.json()["mesa"] is None or s == 3
    done = res.json()
    assert [sorted(h.split()) for h in done["cartas"]] == [sorted(h.split()) for h in truth]
    assert [len(h) for h in done["mesa"]["asientos"]] == [4, 4, 4, 4]

    # a correction on the four hands: a card of another seat swaps, and goes back to its seat
    lec = done["mesa"]
    other = next(c["carta"] for c in lec["cartas"] if c["asiento"] == 1)
    fixed = client.post(
        "/api/leer/corregir", json={"lectura": lec, "indice": 0, "carta": other, "fotos_asiento": previas}
    )
    assert fixed.status_code == 200, fixed.text
    body = fixed.json()
    first = lec["cartas"][0]["carta"]
    assert body["cambios"] == [
        [0, first, other],
        [next(i for i, c in enumerate(lec["cartas"]) if c["carta"] == other), other, first],
    ]
    assert other in body["cartas"][lec["cartas"][0]["asiento"]].split()
    assert other in [c["carta"] for c in body["fotos_asiento"][lec["cartas"][0]["asiento"]]["cartas"]]
    assert first in body["cartas"][1].split()


def test_a_correction_names_a_card_that_is_no_card(client: Any) -> None:
    lec = {
        "cartas": [{"carta": "12o", "confianza": 0.5, "caja": [0, 0, 10, 10], "dudosa": True, "alternativa": "11o"}],
        "asientos": None,
        "avisos": [],
    }
    res = client.post("/api/leer/corregir", json={"lectura": lec, "indice": 0, "carta": "13o"})
    assert res.status_code == 422 and res.json() == {"error": "carta desconocida: 13o"}
    ok = client.post("/api/leer/corregir", json={"lectura": lec, "indice": 0, "carta": "11o"}).json()
    assert ok["cambios"] == [[0, "12o", "11o"]] and ok["lectura"]["cartas"][0]["dudosa"] is False


def test_the_hand_page_has_the_photo_part(client: Any) -> None:
    clave = _partida(client)
    html = client.get(f"/p/{clave}/mano").text
    for part in (
        'id="foto_input" accept="image/*" capture="environment"',
        'id="modo_asientos"',
        'id="corregir-12o"',
        "/static/mano_foto.js",
    ):
        assert part in html
    assert "Take the photo" in client.get(f"/p/{clave}/mano?lang=en").text


@needs_models
def test_the_deck_kept_on_postgresql_reads_as_on_sqlite(request: pytest.FixtureRequest, tmp_path: Path) -> None:
    """The .npz bytes go through PostgreSQL's bytea unchanged: a reading of the partida there is
    the reading with the same deck on SQLite."""
    from server.main import crear_app
    from tests.cliente_web import ClienteWeb as TestClient
    from tests.test_web_partidas import _url

    npz, info, _ = lectura.registrar(
        [(EXAMPLES / "baraja" / f"{p}.jpg").read_bytes() for p in ("oros", "copas", "espadas", "bastos")]
    )
    assert info["cartas"] == 40
    got = {}
    for kind in ("sqlite", "postgresql"):
        app = crear_app(_url(request, tmp_path, kind))
        try:
            with TestClient(app) as c:
                clave = _partida(c)
                with app.state.web_sesiones() as s, s.begin():
                    lectura.guardar_baraja(s, clave, npz)
                got[kind] = _post(c, (EXAMPLES / "mesa.jpg").read_bytes(), partida=clave).json()
        finally:
            app.state.servidor.engine.dispose()
    assert got["postgresql"] == got["sqlite"] and got["sqlite"]["asientos"]


# -- photos from any seat: `abajo` --------------------------------------------------------------

# (cv2 rotation of the photo taken from seat 0, the partida's seat then at its bottom edge):
# turned a quarter clockwise, the right-hand player's cards come to the bottom
GIROS = ((None, 0), ("ROTATE_90_CLOCKWISE", 1), ("ROTATE_180", 2), ("ROTATE_90_COUNTERCLOCKWISE", 3))


def _girada(img: np.ndarray, giro: str | None) -> bytes:
    turned = img if giro is None else cv2.rotate(img, getattr(cv2, giro))
    return cv2.imencode(".jpg", turned, [cv2.IMWRITE_JPEG_QUALITY, 92])[1].tobytes()


@needs_models
def test_a_table_photo_from_any_seat_gives_each_hand_to_its_player(client: Any) -> None:
    """examples/mesa.jpg (generated) turned 0/90/180/270 degrees, as if taken from each seat:
    with the matching ``abajo`` every card lands in its player's seat; without it (today's
    answer) the hands go to the wrong players."""
    clave = _partida(client)
    truth = json.loads((EXAMPLES / "mesa.json").read_text(encoding="utf-8"))["manos"]
    seat_of = {c: s for s, h in enumerate(truth) for c in h.split()}
    img = cv2.imread(str(EXAMPLES / "mesa.jpg"))
    for giro, abajo in GIROS:
        foto = _girada(img, giro)
        res = _post(client, foto, partida=clave, abajo=str(abajo))
        assert res.status_code == 200, res.text
        got = res.json()
        assert [sorted(h) for h in got["asientos"]] == [sorted(h.split()) for h in truth], (giro, got["asientos"])
        assert all(c["asiento"] == seat_of[c["carta"]] for c in got["cartas"]), giro
        if abajo:  # the same photo read as taken from seat 0: every hand in another seat
            plain = _post(client, foto, partida=clave).json()
            assert all(sorted(a) != sorted(b.split()) for a, b in zip(plain["asientos"], truth, strict=True))


def test_abajo_is_a_seat_from_0_to_3_said_in_the_players_language(client: Any) -> None:
    _, jpg = cv2.imencode(".jpg", np.full((64, 96, 3), 200, np.uint8))
    for mal in ("4", "-1", "x", "", "1.0"):
        res = _post(client, jpg.tobytes(), abajo=mal)
        assert res.status_code == 422 and res.json() == {"error": "abajo: el asiento de quien hace la foto, de 0 a 3"}
        seat = client.post("/api/leer/asiento", files={"foto": ("0.jpg", jpg.tobytes())}, data={"abajo": mal})
        assert seat.status_code == 422 and "abajo" in seat.json()["error"]
    en = client.post("/api/leer?lang=en", files={"foto": ("m.jpg", jpg.tobytes())}, data={"abajo": "7"})
    assert en.status_code == 422 and en.json()["error"] != "abajo: el asiento de quien hace la foto, de 0 a 3"


@needs_models
def test_seat_by_seat_without_asiento_is_the_photographers_own_seat(client: Any) -> None:
    from mesa.asientos import fotos_por_asiento
    from mesa.lectura import leer_foto

    clave = _partida(client)
    mesa = cv2.imread(str(EXAMPLES / "mesa.jpg"))
    fotos = [cv2.imencode(".jpg", f)[1].tobytes() for f in fotos_por_asiento(mesa, leer_foto(mesa))]
    res = client.post(
        "/api/leer/asiento",
        files={"foto": ("2.jpg", fotos[2])},
        data={"partida": clave, "abajo": "2", "fotos_asiento": "[]"},
    )
    assert res.status_code == 200, res.text
    seats = res.json()["fotos_asiento"]
    assert seats[0] is None and seats[2] is not None and len(seats[2]["cartas"]) == 4


def _mano_con_taza() -> bytes:
    """examples/mano.jpg (one hand, generated) with a fifth card lying beside it, as a cup or a
    coin is read as a card: a seat's photo that shows five."""
    from mesa.lectura import leer_foto

    mano, mesa = cv2.imread(str(EXAMPLES / "mano.jpg")), cv2.imread(str(EXAMPLES / "mesa.jpg"))
    lec = leer_foto(mesa)
    x1, y1, x2, y2 = lec.xyxy[lec.ids.index("7o")].astype(int)
    extra = cv2.resize(mesa[y1:y2, x1:x2], None, fx=1.8, fy=1.8)
    h, w = extra.shape[:2]
    mano[620 : 620 + h, 1020 : 1020 + w] = extra
    return cv2.imencode(".jpg", mano)[1].tobytes()


@needs_models
def test_seat_by_seat_what_is_no_card_is_taken_out(client: Any) -> None:
    clave = _partida(client)
    foto = _mano_con_taza()

    def seat(**campos: str) -> Any:
        datos = {"partida": clave, "asiento": "1", "fotos_asiento": "[]", **campos}
        return client.post("/api/leer/asiento", files={"foto": ("1.jpg", foto)}, data=datos)

    refused = seat()
    assert refused.status_code == 422 and "5 cartas" in refused.json()["error"]
    cartas = [c["carta"] for c in refused.json()["lectura"]["cartas"]]
    res = seat(quitar=json.dumps([cartas.index("7o")]))
    assert res.status_code == 200, res.text
    assert sorted(c["carta"] for c in res.json()["fotos_asiento"][1]["cartas"]) == sorted(["12o", "12c", "11e", "1b"])
    for mal in ("[9]", "[-1]", '["0"]', "{}", "x"):
        assert seat(quitar=mal).status_code == 422, mal


@needs_models
def test_one_reading_groups_the_seats_once(client: Any, monkeypatch: pytest.MonkeyPatch) -> None:
    """Per request, the cards are put in seats by their places once (vision.seats; a table's
    reading asked for them at each step, and twice against a learned deck) and the four hands
    are made once (CardDetections.hands: the answer's ``asientos`` and ``cartas`` come from it)."""
    import vision.seats
    from mesa.asientos import fotos_por_asiento
    from mesa.lectura import leer_foto
    from vision.detections import CardDetections

    mesa = cv2.imread(str(EXAMPLES / "mesa.jpg"))
    fotos = [cv2.imencode(".jpg", f)[1].tobytes() for f in fotos_por_asiento(mesa, leer_foto(mesa))]
    cuentas = {"sitios": 0, "manos": 0}
    por_orientacion = vision.seats._groups_by_orientation
    manos = CardDetections.hands.fget  # type: ignore[attr-defined]

    def sitios(*a: Any) -> Any:
        cuentas["sitios"] += 1
        return por_orientacion(*a)

    def hands(self: CardDetections) -> Any:
        if len(self) and (self.seat >= 0).all():  # a reading with seats: grouped into hands
            cuentas["manos"] += 1
        return manos(self)

    monkeypatch.setattr(vision.seats, "_groups_by_orientation", sitios)
    monkeypatch.setattr(CardDetections, "hands", property(hands))

    def contadas(respuesta: Any) -> dict[str, int]:
        assert respuesta.status_code == 200, respuesta.text
        hechas = dict(cuentas)
        cuentas.update(sitios=0, manos=0)
        return hechas

    clave = _partida(client)
    mesa_jpg = cv2.imencode(".jpg", cv2.resize(mesa, None, fx=0.9, fy=0.9))[1].tobytes()  # boxes never seen
    leida = contadas(_post(client, mesa_jpg, partida=clave))
    assert leida == {"sitios": 1, "manos": 1}
    previas: list = [None] * 4
    for s in range(4):
        r = client.post(
            "/api/leer/asiento",
            files={"foto": (f"{s}.jpg", fotos[s])},
            data={"partida": clave, "asiento": str(s), "fotos_asiento": json.dumps(previas)},
        )
        previas = r.json()["fotos_asiento"]
        assert contadas(r) == {"sitios": 0, "manos": 1 if s == 3 else 0}
    lec = r.json()["mesa"]
    otra = next(c["carta"] for c in lec["cartas"] if c["asiento"] == 1)
    r = client.post("/api/leer/corregir", json={"lectura": lec, "indice": 0, "carta": otra, "fotos_asiento": previas})
    assert contadas(r) == {"sitios": 0, "manos": 1}


@needs_models
def test_seat_photos_and_corrections_read_the_rest_from_the_stored_draft(client: Any) -> None:
    """The phone sends a seat's photo and its seat, a correction only its card, with the draft
    version it holds: the server reads the seats so far and the reading from the stored draft,
    and answers what sending them back answers; a version that is not the stored one gets 409
    with the stored draft (the phone then sends its own)."""
    from mesa.asientos import fotos_por_asiento
    from mesa.lectura import leer_foto

    clave = _partida(client)
    mesa = cv2.imread(str(EXAMPLES / "mesa.jpg"))
    fotos = [cv2.imencode(".jpg", f)[1].tobytes() for f in fotos_por_asiento(mesa, leer_foto(mesa))]
    borrador = f"/api/partidas/{clave}/borrador"
    datos, version = client.get(borrador).json()["datos"], 0

    def seat(s: int, **campos: str) -> Any:
        return client.post(
            "/api/leer/asiento",
            files={"foto": (f"{s}.jpg", fotos[s])},
            data={"partida": clave, "asiento": str(s), **campos},
        )

    for s in range(4):
        r = seat(s, version=str(version))
        assert r.status_code == 200, r.text
        if s == 3:  # what sending the seats back answers
            assert r.json() == seat(s, fotos_asiento=json.dumps(datos["fotos_asiento"])).json()
        datos |= {"fotos_asiento": r.json()["fotos_asiento"], "lectura": r.json()["mesa"]}
        guardado = client.put(borrador, json={"datos": datos, "version": version})
        assert guardado.status_code == 200, guardado.text
        version = guardado.json()["version"]
    assert [len(h.split()) for h in r.json()["cartas"]] == [4, 4, 4, 4]

    viejo = seat(0, version=str(version - 1))  # another phone's step came in between
    assert viejo.status_code == 409 and viejo.json()["version"] == version
    assert viejo.json()["borrador"]["fotos_asiento"] == datos["fotos_asiento"]

    lec = datos["lectura"]
    otra = next(c["carta"] for c in lec["cartas"] if c["asiento"] == 1)
    solo = client.post("/api/leer/corregir", json={"partida": clave, "version": version, "indice": 0, "carta": otra})
    assert solo.status_code == 200, solo.text
    entera = {"lectura": lec, "fotos_asiento": datos["fotos_asiento"], "indice": 0, "carta": otra}
    assert solo.json() == client.post("/api/leer/corregir", json=entera).json()
    tarde = client.post(
        "/api/leer/corregir", json={"partida": clave, "version": version + 1, "indice": 0, "carta": otra}
    )
    assert tarde.status_code == 409 and tarde.json()["borrador"]["lectura"] == lec
    assert client.post("/api/leer/corregir", json={"indice": 0, "carta": otra}).status_code == 422
