"""`mus servir` learns the partida's deck from each confirmed hand read from a photo
(server.servicios.lectura.aprender_tras_confirmar, vision.aprender: the code of `mus baraja aprender`), in its
own thread after the confirm is answered."""

from __future__ import annotations

import dataclasses
import json
import threading
from concurrent.futures import Future, ThreadPoolExecutor
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import numpy as np
import pytest

pytest.importorskip("fastapi")
pytest.importorskip("python_multipart")
cv2 = pytest.importorskip("cv2")

from scoring.cards import CARD_IDS  # noqa: E402
from server.servicios import lectura  # noqa: E402  (after the skips: the server's extras)

ROOT = Path(__file__).resolve().parents[1]
EXAMPLES = ROOT / "examples"
MANOS = json.loads((EXAMPLES / "mesa.json").read_text(encoding="utf-8"))["manos"]
needs_models = pytest.mark.skipif(
    not (ROOT / "models" / "carta_obb.onnx").is_file(), reason="the trained models are not in models/"
)


@pytest.fixture
def client(tmp_path: Path) -> Any:
    from server.main import crear_app
    from tests.cliente_web import ClienteWeb as TestClient

    app = crear_app(f"sqlite:///{tmp_path / 'mus.db'}", tmp_path)
    with TestClient(app) as c:
        c.app_ = app
        yield c


def _partida(client: Any) -> str:
    res = client.post("/api/partidas", json={"jugadores": ["Ana", "Bea", "Carlos", "Dani"]})
    assert res.status_code in (200, 201), res.text
    return str(res.json()["clave"])


def _confirmar(client: Any, clave: str, origen: str = "camara") -> Any:
    body = {"id_mano": "mano-1-foto", "n": 1, "cartas": MANOS, "lances": {"pares": {"quiero": 5}}, "origen": origen}
    return client.post(f"/api/partidas/{clave}/manos", json=body)


def _deck(client: Any, clave: str) -> Any:
    from vision.registered_deck import RegisteredDeck

    with client.app_.state.web_sesiones() as s:
        data = lectura.baraja_de_partida(s, clave)
    return None if data is None else RegisteredDeck.from_bytes(data)


def test_the_kept_photos_are_bounded_and_dropped_when_taken() -> None:
    fotos = lectura.FotosParaAprender(partidas=2, max_bytes=10)
    fotos.guardar("a", b"1234", 0)
    fotos.guardar("b", b"1234", 0)
    fotos.guardar("c", b"1234", 0)  # three partidas: the oldest goes
    assert len(fotos) == 2 and fotos.sacar("a") is None
    fotos.guardar("d", b"123456", 1)  # over 10 bytes together: the oldest go
    assert fotos.sacar("b") is None and fotos.sacar("d") == lectura.FotoMesa(b"123456", 1)
    fotos.guardar("e", b"x" * 11, 0)  # one photo over the bound is never kept
    assert fotos.sacar("e") is None and fotos.sacar("d") is None


@needs_models
def test_a_confirmed_photographed_hand_teaches_the_deck_without_delaying_the_confirm(
    client: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    clave = _partida(client)
    # the photo taken from seat 2 (turned half a turn): its bottom hand is the partida's seat 2
    foto = cv2.imencode(".jpg", cv2.rotate(cv2.imread(str(EXAMPLES / "mesa.jpg")), cv2.ROTATE_180))[1].tobytes()
    res = client.post(
        "/api/leer", files={"foto": ("mesa.jpg", foto, "image/jpeg")}, data={"partida": clave, "abajo": "2"}
    )
    assert res.status_code == 200, res.text
    assert _deck(client, clave) is None
    # learning waits for a gate the test opens only once the confirm has been answered
    gate, futures = threading.Event(), []
    real_learn, real_after = lectura.aprender_de_foto, lectura.aprender_tras_confirmar

    def gated(*args: Any) -> int:
        assert gate.wait(120)
        return real_learn(*args)

    def spy(*args: Any) -> Future[int] | None:
        fut = real_after(*args)
        futures.append(fut)
        return fut

    monkeypatch.setattr(lectura, "aprender_de_foto", gated)
    monkeypatch.setattr(lectura, "aprender_tras_confirmar", spy)
    res = _confirmar(client, clave)
    assert res.status_code == 201, res.text
    assert futures and futures[0] is not None and not futures[0].done()  # answered before learning
    assert _deck(client, clave) is None
    gate.set()
    assert futures[0].result(timeout=300) == 16
    deck = _deck(client, clave)
    assert deck is not None and deck.series == 0
    assert {CARD_IDS[i] for i in np.flatnonzero(deck.known)} == {c for m in MANOS for c in m.split()}
    assert lectura.FOTOS.sacar(clave) is None  # the photo is gone from memory (other tests' may stay)
    # the partida reads against what it learned: the same cards, no unfamiliar deck
    again = client.post(
        "/api/leer", files={"foto": ("mesa.jpg", foto, "image/jpeg")}, data={"partida": clave, "abajo": "2"}
    ).json()
    assert [sorted(h) for h in again["asientos"]] == [sorted(h.split()) for h in MANOS]
    assert not again.get("baraja_desconocida")


@needs_models
def test_a_hand_typed_in_learns_nothing_and_drops_the_photo(client: Any) -> None:
    clave = _partida(client)
    res = client.post(
        "/api/leer",
        files={"foto": ("mesa.jpg", (EXAMPLES / "mesa.jpg").read_bytes(), "image/jpeg")},
        data={"partida": clave},
    )
    assert res.status_code == 200
    assert _confirmar(client, clave, origen="manual").status_code == 201
    assert lectura.FOTOS.sacar(clave) is None and _deck(client, clave) is None


def _learned_deck(cards: int) -> bytes:
    """A deck learned from confirmed hands only (no suit photos): examples of ``cards`` cards."""
    from vision.registered_deck import EXTRA_VIEWS, RegisteredDeck
    from vision.templates import TEMPLATE_H, TEMPLATE_W

    e, dim = cards + 3, 8  # some cards seen more than once
    deck = RegisteredDeck.learned("m1", dim)
    return dataclasses.replace(
        deck,
        extra_features=np.zeros((e, 2 * EXTRA_VIEWS, dim), np.float32),
        extra_templates=np.zeros((e, EXTRA_VIEWS, TEMPLATE_H, TEMPLATE_W, 3), np.uint8),
        extra_labels=np.array([i % cards for i in range(e)], np.int64),
        extra_corrected=np.zeros(e, bool),
    ).to_bytes()


def test_a_learned_deck_is_told_apart_from_a_registered_one(client: Any) -> None:
    from vision.registered_deck import RegisteredDeck

    clave = _partida(client)
    assert client.get(f"/api/partidas/{clave}/baraja").json() == {
        "registrada": False,
        "aprendida": False,
        "conocidas": None,
        "cartas": None,
        "series": None,
        "avisos": [],
    }
    with client.app_.state.web_sesiones.begin() as s:
        lectura.guardar_baraja(s, clave, _learned_deck(13))
    r = client.get(f"/api/partidas/{clave}/baraja").json()
    assert r["registrada"] and r["aprendida"] and r["conocidas"] == 13
    # the page says it is learned, not registered, and keeps the registration
    for lang, texto in (
        ("es", "Baraja aprendida de vuestras manos: conoce 13 de las 40 cartas."),
        ("en", "Deck learned from your hands: it knows 13 of the 40 cards."),
    ):
        page = client.get(f"/p/{clave}/baraja?lang={lang}").text
        assert texto in page
        assert 'id="ya_registrada" hidden' in page and 'id="foto_label"' in page
    page = client.get(f"/p/{clave}/baraja?lang=eu").text
    assert "ikasitako baraja: 40 kartetatik 13 ezagutzen ditu" in page
    # a deck registered from its photos knows all 40: registered, not learned
    whole = RegisteredDeck(np.zeros((40, 8), np.float32), np.arange(40, dtype=np.int64), series=1)
    with client.app_.state.web_sesiones.begin() as s:
        lectura.guardar_baraja(s, clave, whole.to_bytes())
    r = client.get(f"/api/partidas/{clave}/baraja").json()
    assert r["registrada"] and not r["aprendida"] and r["conocidas"] is None
    page = client.get(f"/p/{clave}/baraja").text
    assert 'id="aprendida" hidden' in page and 'id="ya_registrada" hidden' not in page


def test_a_learned_deck_reads_every_photo_not_only_those_the_generic_reader_finds_unfamiliar(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # once the partida has learned its deck, every photo is read against it (one read, never
    # the generic reader first): a familiar-looking photo of an unseen design is where the
    # generic reader flags most right cards
    @dataclasses.dataclass(frozen=True)
    class Leida:
        por: str
        unfamiliar: bool

    lecturas: list[str] = []

    def leer(r: str, unfamiliar: bool) -> Leida:
        lecturas.append(r)
        return Leida(r, unfamiliar)

    monkeypatch.setattr(lectura, "_lector_general", lambda: "generica")
    aprendida = SimpleNamespace(lector="aprendida", aprendidas=13)
    registrada = SimpleNamespace(lector="registrada", aprendidas=None)
    assert lectura._leida(aprendida, lambda r: leer(r, False)).por == "aprendida"  # type: ignore[arg-type]
    assert lectura._leida(aprendida, lambda r: leer(r, r == "generica")).por == "aprendida"  # type: ignore[arg-type]
    assert lectura._leida(registrada, lambda r: leer(r, False)).por == "registrada"  # type: ignore[arg-type]
    assert lectura._leida(None, lambda r: leer(r, True)).por == "generica"
    assert lecturas == ["aprendida", "aprendida", "registrada", "generica"]  # one read a photo


def test_a_deck_is_loaded_once_per_change_kept_by_its_hash_bounded_and_shared_by_threads(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    cargas: list[bytes] = []

    def cargar(npz: bytes) -> Any:
        cargas.append(npz)
        return SimpleNamespace(lector=npz, aprendidas=None)

    monkeypatch.setattr(lectura, "_cargar", cargar)
    barajas = lectura.BarajasCargadas(tope=2)
    assert [barajas.cargar(b"uno").lector for _ in range(3)] == [b"uno"] * 3
    assert cargas == [b"uno"]  # the same bytes again (another photo, another request): not loaded again
    barajas.cargar(b"dos")  # a new registration: other bytes, loaded once
    barajas.cargar(b"dos")
    assert cargas == [b"uno", b"dos"] and len(barajas) == 2
    barajas.cargar(b"uno")  # used last: "dos" goes first when a third comes
    barajas.cargar(b"tres")
    assert len(barajas) == 2 and cargas == [b"uno", b"dos", b"tres"]
    barajas.cargar(b"uno")
    barajas.cargar(b"dos")
    assert cargas[-1] == b"dos" and cargas.count(b"uno") == 1
    with ThreadPoolExecutor(8) as pool:
        leidas = list(pool.map(lambda i: barajas.cargar(b"cuatro"), range(64)))
    assert {x.lector for x in leidas} == {b"cuatro"} and cargas.count(b"cuatro") <= 8


def test_the_seats_photos_of_a_hand_are_kept_together_and_replace_a_table_photo() -> None:
    fotos = lectura.FotosParaAprender(partidas=2, max_bytes=10)
    fotos.guardar("a", b"mesa", 0)
    fotos.guardar_asiento("a", 1, b"11")  # the hand now read seat by seat: the table photo goes
    fotos.guardar_asiento("a", 3, b"33")
    fotos.guardar_asiento("a", 1, b"1b")  # a seat photographed again: its last photo
    fotos.guardar_asiento("a", 4, b"44")  # no such seat
    assert fotos.sacar("a") == lectura.FotosAsientos((None, b"1b", None, b"33"))
    fotos.guardar_asiento("b", 0, b"000000")
    fotos.guardar_asiento("b", 2, b"22222")  # 11 bytes together: the partida's photos go
    assert fotos.sacar("b") is None
    fotos.guardar_asiento("c", 0, b"00")
    fotos.guardar("c", b"mesa", 2)  # and back to a whole-table photo
    assert fotos.sacar("c") == lectura.FotoMesa(b"mesa", 2)


@needs_models
def test_a_hand_confirmed_seat_by_seat_teaches_the_deck_from_each_seats_photo(client: Any) -> None:
    from mesa.asientos import fotos_por_asiento
    from mesa.lectura import leer_foto

    clave = _partida(client)
    mesa = cv2.imread(str(EXAMPLES / "mesa.jpg"))
    fotos = [cv2.imencode(".jpg", f)[1].tobytes() for f in fotos_por_asiento(mesa, leer_foto(mesa))]
    previas: list = [None] * 4
    for s in (0, 1, 3):  # seat 2's photo is never sent: the three others still teach
        res = client.post(
            "/api/leer/asiento",
            files={"foto": (f"{s}.jpg", fotos[s], "image/jpeg")},
            data={"partida": clave, "asiento": str(s), "fotos_asiento": json.dumps(previas)},
        )
        assert res.status_code == 200, res.text
        previas = res.json()["fotos_asiento"]
    kept = lectura.FOTOS.sacar(clave)
    assert isinstance(kept, lectura.FotosAsientos) and [f is not None for f in kept.fotos] == [True, True, False, True]
    lectura.FOTOS.guardar_asiento(clave, 0, kept.fotos[0] or b"")
    # a hand photographed seat by seat but confirmed as typed in teaches nothing
    assert lectura.aprender_tras_confirmar(client.app_.state.web_sesiones.begin, clave, list(MANOS), "manual") is None
    for s in (0, 1, 3):
        lectura.FOTOS.guardar_asiento(clave, s, kept.fotos[s] or b"")
    fut = lectura.aprender_tras_confirmar(client.app_.state.web_sesiones.begin, clave, list(MANOS), "asientos")
    assert fut is not None and fut.result(timeout=300) == 12
    deck = _deck(client, clave)
    assert deck is not None and deck.series == 0
    # the cards of the three seats sent, those seen whole (vision.refuerzo.clear_view): the
    # rey de copas and the caballo de espadas of seat 0 stand close enough to count as covered
    known = {CARD_IDS[i] for i in np.flatnonzero(deck.known)}
    assert known == {c for s in (0, 1, 3) for c in MANOS[s].split()} - {"12c", "11e"}
    assert lectura.FOTOS.sacar(clave) is None


@needs_models
def test_a_seats_photo_of_another_hand_teaches_nothing_and_the_others_still_do(client: Any) -> None:
    from mesa.asientos import fotos_por_asiento
    from mesa.lectura import leer_foto

    clave = _partida(client)
    mesa = cv2.imread(str(EXAMPLES / "mesa.jpg"))
    fotos = [cv2.imencode(".jpg", f)[1].tobytes() for f in fotos_por_asiento(mesa, leer_foto(mesa))]
    # seat 0 sent seat 1's cards: they do not match seat 0's confirmed hand
    asientos = lectura.FotosAsientos((fotos[1], fotos[1], None, None))
    assert lectura.aprender_de_asientos(client.app_.state.web_sesiones.begin, clave, asientos, list(MANOS)) == 4
    deck = _deck(client, clave)
    assert deck is not None and {CARD_IDS[i] for i in np.flatnonzero(deck.known)} == set(MANOS[1].split())
