"""The hand page's photo part on a phone (headless Chromium at 390x844 with touch, a real `mus
servir`, the real card-reading models, the generated example photos): photos from any seat
(whose phone it is, abajo, "girar asientos"), doubtful cards in one tap ("está bien", the
alternative, "todas bien"), the reminder when a hand is confirmed with doubtful cards left,
the unknown-deck notice, and the deck page's messages where they are seen.

Screenshots go to $MUSMESA_CAPTURAS or a temp folder; they were looked at when these tests
were written. The doubtful readings are the reader's own reading of examples/mesa.jpg with
some cards flagged, put in the hand's draft through the API as the page itself puts a reading:
the example photo reads with no doubtful card.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.navegador import Servir, capturas, navegador, sin_scroll_lateral
from tests.test_web_telefono import _cargada, _cartas_asiento, _foto, _tap, _texto, esperar
from vision.models import models_dir

httpx = pytest.importorskip("httpx")

REPO = Path(__file__).resolve().parents[1]
EXAMPLES = REPO / "examples"
TRUTH = [sorted(h.split()) for h in json.loads((EXAMPLES / "mesa.json").read_text(encoding="utf-8"))["manos"]]
NAMES = ["Ane", "Bea", "Carlos", "Dani"]
MIN_TARGET = 44  # CSS px: the smallest target a thumb hits (the figure)

pytestmark = [pytest.mark.skipif(not (models_dir() / "carta_obb.onnx").is_file(), reason="faltan los modelos")]


@pytest.fixture(scope="module")
def servidor(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Servir]:
    pytest.importorskip("uvicorn")
    s = Servir(tmp_path_factory.mktemp("servir"))
    s.start()
    try:
        yield s
    finally:
        s.stop()


def _partida(servidor: Servir) -> str:
    r = httpx.post(f"{servidor.base}/api/partidas", json={"jugadores": NAMES}, timeout=60)
    assert r.status_code in (200, 201), r.text
    return str(r.json()["clave"])


def _abrir(d: Any, servidor: Servir, clave: str) -> None:
    from selenium.webdriver.common.by import By

    d.get(f"{servidor.base}/p/{clave}/mano")
    _cargada(d)
    esperar(lambda: d.find_element(By.ID, "mano_controles").is_enabled(), 60, "el borrador leído")


def _visible(d: Any, element_id: str) -> bool:
    from selenium.webdriver.common.by import By

    found = d.find_elements(By.ID, element_id)
    return bool(found) and found[0].is_displayed()


def _alto(d: Any, element_id: str) -> float:
    return float(d.execute_script(f"return document.getElementById('{element_id}').getBoundingClientRect().height"))


def _lectura_con_dudosas(servidor: Servir, clave: str, dudosas: list[int], desconocida: bool = False) -> None:
    """The reader's reading of examples/mesa.jpg with the cards ``dudosas`` flagged (each with
    a runner-up not on the table) put in the hand's draft, as the page puts a reading."""
    r = httpx.post(
        f"{servidor.base}/api/leer",
        files={"foto": ("mesa.jpg", (EXAMPLES / "mesa.jpg").read_bytes(), "image/jpeg")},
        data={"partida": clave},
        timeout=120,
    )
    assert r.status_code == 200, r.text
    lec = r.json()
    fuera = iter(["7c", "6o", "5b", "2e", "6c", "5o", "2b", "3e", "4c", "5e", "6b", "2o", "10c", "10o", "10e", "10b"])
    for i in dudosas:
        lec["cartas"][i].update(dudosa=True, alternativa=next(fuera), confianza=0.4)
    lec["avisos"] = ["confirma las cartas dudosas: ..."]
    if desconocida:
        lec["avisos"].append("las cartas no se parecen ... (mus baraja registrar)")
    lec["baraja_desconocida"] = desconocida
    b = httpx.get(f"{servidor.base}/api/partidas/{clave}/borrador", timeout=30).json()
    datos = {**b["datos"], "lectura": lec, "cartas": [" ".join(h) for h in lec["asientos"]]}
    put = httpx.put(
        f"{servidor.base}/api/partidas/{clave}/borrador", json={"datos": datos, "version": b["version"]}, timeout=30
    )
    assert put.status_code == 200, put.text


def _etiquetas(d: Any) -> list[dict[str, float]]:
    """The screen boxes of the card labels drawn over the photo."""
    return list(
        d.execute_script(
            "return Array.from(document.querySelectorAll('#lectura_cajas text')).map(function (t) {"
            " var r = t.getBoundingClientRect(); return {x: r.left, y: r.top, w: r.width, h: r.height}; });"
        )
    )


def test_a_photo_from_seat_3_gives_each_hand_to_its_player_and_girar_turns_them(
    servidor: Servir, tmp_path: Path
) -> None:
    import cv2
    from selenium.webdriver.common.by import By

    shots = capturas()
    clave = _partida(servidor)
    # the example table as Carlos (seat 3, the partida's seat 2) sees it: turned half round
    girada = tmp_path / "desde_carlos.jpg"
    mesa = cv2.imread(str(EXAMPLES / "mesa.jpg"))
    assert mesa is not None
    cv2.imwrite(str(girada), cv2.rotate(mesa, cv2.ROTATE_180))
    with navegador() as d:
        _abrir(d, servidor, clave)
        esperar(lambda: _visible(d, "telefono_de"), 10, "¿de quién es este teléfono?")
        assert not _visible(d, "telefono_es")
        d.save_screenshot(str(shots / "foto_de_quien.png"))
        _tap(d, "soy-2")
        esperar(lambda: _visible(d, "telefono_es"), 10, "este teléfono es de Carlos")
        assert "Carlos" in _texto(d, "telefono_es_texto") and not _visible(d, "telefono_de")
        donde = _texto(d, "donde_ponerse")
        assert "Carlos" in donde and "Ane" in donde, donde  # where to stand, and who sits opposite
        _foto(d, girada)
        esperar(lambda: len(d.find_elements(By.CSS_SELECTOR, "#leidas button[id^=leida-]")) == 16, 120, "las cartas")
        esperar(lambda: [_cartas_asiento(d, s) for s in range(4)] == TRUTH, 30, "cada mano en su asiento")
        assert _visible(d, "girar_asientos") and sin_scroll_lateral(d) == 0
        # the labels over the photo: letters a thumb's reader can read, none over another
        d.execute_script("document.getElementById('lectura_vista').scrollIntoView()")
        etiquetas = esperar(lambda: _etiquetas(d) if len(_etiquetas(d)) == 16 else None, 20, "las etiquetas")
        assert min(e["h"] for e in etiquetas) >= 12, etiquetas
        for i, a in enumerate(etiquetas):
            for b in etiquetas[i + 1 :]:
                apart = a["x"] + a["w"] <= b["x"] or b["x"] + b["w"] <= a["x"]
                assert apart or a["y"] + a["h"] <= b["y"] or b["y"] + b["h"] <= a["y"], (a, b)
        d.save_screenshot(str(shots / "foto_desde_carlos.png"))

        # the phone passed round: one tap turns every hand one seat on, four bring them back
        _tap(d, "girar_asientos")
        esperar(lambda: [_cartas_asiento(d, s) for s in range(4)] == TRUTH[3:] + TRUTH[:3], 20, "girados")
        d.save_screenshot(str(shots / "foto_girada.png"))
        for _ in range(3):
            _tap(d, "girar_asientos")
        esperar(lambda: [_cartas_asiento(d, s) for s in range(4)] == TRUTH, 20, "de vuelta")

        # remembered on this phone for this partida, and the seats kept in the draft
        d.refresh()
        _abrir(d, servidor, clave)
        assert _visible(d, "telefono_es") and "Carlos" in _texto(d, "telefono_es_texto")
        assert not _visible(d, "telefono_de")
        esperar(lambda: [_cartas_asiento(d, s) for s in range(4)] == TRUTH, 20, "tras recargar")


def test_doubtful_cards_one_tap_each_and_a_reminder_on_confirm(servidor: Servir) -> None:
    from selenium.webdriver.common.by import By

    shots = capturas()
    clave = _partida(servidor)
    _lectura_con_dudosas(servidor, clave, [0, 1, 2, 3])
    with navegador() as d, navegador() as otro:
        _abrir(d, servidor, clave)
        _abrir(otro, servidor, clave)  # a second phone on the same hand
        esperar(lambda: _visible(otro, "bien-1"), 30, "las dudosas en el otro teléfono")
        esperar(lambda: _visible(d, "bien-0"), 30, "está bien")
        assert all(_visible(d, f"alt-{i}") and _visible(d, f"bien-{i}") for i in range(4))
        assert not _visible(d, "bien-4") and _visible(d, "todas_bien")
        assert "4" in _texto(d, "lectura_resumen") and "tócalas" not in _texto(d, "lectura_resumen")
        assert not _visible(d, "foto_avisos")  # the reader's "confirma las cartas dudosas" is the count
        for element_id in ("alt-0", "bien-0", "todas_bien", "ir_baraja"):
            assert _alto(d, element_id) >= MIN_TARGET, element_id
        assert sin_scroll_lateral(d) == 0
        d.execute_script("document.getElementById('leidas').scrollIntoView()")
        d.save_screenshot(str(shots / "dudosas.png"))

        alt = d.find_element(By.ID, "alt-0").get_attribute("data-carta")
        _tap(d, "alt-0")  # the reader's other guess, one tap
        esperar(lambda: d.find_element(By.ID, "leida-0").get_attribute("data-carta") == alt, 30, "la alternativa")
        assert not _visible(d, "bien-0")
        _tap(d, "bien-1")  # this one is right, one tap
        esperar(lambda: not _visible(d, "bien-1"), 10, "está bien")
        assert "dudosa" not in (d.find_element(By.ID, "leida-1").get_attribute("class") or "")
        assert _visible(d, "bien-2") and _visible(d, "bien-3")
        # the other phone follows: the same cards confirmed, the alternative taken
        esperar(lambda: not _visible(otro, "bien-1") and not _visible(otro, "bien-0"), 30, "el otro teléfono")
        assert otro.find_element(By.ID, "leida-0").get_attribute("data-carta") == alt
        assert _visible(otro, "bien-2")

        # confirming with two left asks once
        _tap(d, "a_lances")
        _tap(d, "a_tanteo")
        esperar(lambda: _visible(d, "tabla_tanteo"), 60, "el tanteo")
        _tap(d, "confirmar")
        esperar(lambda: _visible(d, "recordar_dudosas"), 10, "el recordatorio")
        assert "2" in _texto(d, "recordar_texto") and "/mano" in d.current_url
        d.save_screenshot(str(shots / "dudosas_recordar.png"))
        _tap(d, "revisar_dudosas")
        assert not _visible(d, "recordar_dudosas") and "/mano" in d.current_url
        _tap(d, "todas_bien")
        esperar(lambda: not _visible(d, "todas_bien"), 10, "todas bien")

        # after a reload: no doubtful card, no yellow box, and the hand confirms at once
        d.refresh()
        _abrir(d, servidor, clave)
        esperar(lambda: len(d.find_elements(By.CSS_SELECTOR, "#leidas button[id^=leida-]")) == 16, 30, "las cartas")
        assert not d.find_elements(By.CSS_SELECTOR, "#leidas .dudosa") and not _visible(d, "foto_avisos")
        assert d.find_element(By.ID, "leida-0").get_attribute("data-carta") == alt
        _tap(d, "paso-tanteo")
        _tap(d, "confirmar")
        esperar(lambda: "/mano" not in d.current_url, 60, "el marcador")


def test_an_unknown_deck_gets_one_notice_and_the_deck_page_says_a_wrong_suit_where_it_is_seen(
    servidor: Servir,
) -> None:
    from selenium.webdriver.common.by import By

    shots = capturas()
    clave = _partida(servidor)
    _lectura_con_dudosas(servidor, clave, list(range(16)), desconocida=True)
    with navegador() as d:
        _abrir(d, servidor, clave)
        esperar(lambda: _visible(d, "ofrecer_baraja"), 30, "el aviso de baraja desconocida")
        assert not _visible(d, "foto_avisos") and not _visible(d, "ir_baraja")  # one box, one offer
        assert "mus baraja" not in d.find_element(By.TAG_NAME, "body").text
        assert _alto(d, "registrar_baraja") >= MIN_TARGET
        d.execute_script("document.getElementById('ofrecer_baraja').scrollIntoView()")
        d.save_screenshot(str(shots / "baraja_desconocida.png"))

        # confirming with every card doubtful: asked once, then confirmed as it is
        _tap(d, "paso-tanteo")
        esperar(lambda: _visible(d, "tabla_tanteo"), 60, "el tanteo")
        _tap(d, "confirmar")
        esperar(lambda: _visible(d, "recordar_dudosas"), 10, "el recordatorio")
        assert "16" in _texto(d, "recordar_texto")
        _tap(d, "confirmar_igual")
        esperar(lambda: "/mano" not in d.current_url, 60, "el marcador")

        # the deck's registration from the notice's button: a wrong suit is told so, on screen
        _lectura_con_dudosas(servidor, clave, list(range(16)), desconocida=True)
        _abrir(d, servidor, clave)
        _tap(d, "registrar_baraja")
        esperar(lambda: "/baraja" in d.current_url, 30, "la página de la baraja")
        _cargada(d)
        for element_id in ("volver_marcador", "ir_mano"):
            assert _alto(d, element_id) >= MIN_TARGET, element_id
        d.find_element(By.ID, "foto").send_keys(str(EXAMPLES / "baraja" / "copas.jpg"))  # asked for oros
        esperar(lambda: _visible(d, "error"), 120, "el error")
        assert "esta foto es de copas, no de oros" in _texto(d, "error")
        dentro = d.execute_script(
            "var r = document.getElementById('error').getBoundingClientRect();"
            " return r.top >= 0 && r.bottom <= window.innerHeight;"
        )
        assert dentro, "the message is below the fold"
        assert sin_scroll_lateral(d) == 0
        d.save_screenshot(str(shots / "baraja_palo_equivocado.png"))


def test_a_one_hand_photo_of_the_table_goes_to_a_seat_and_a_refused_one_says_so(
    servidor: Servir, tmp_path: Path
) -> None:
    from selenium.webdriver.common.by import By

    from tests.test_web_leer import _mano_con_taza

    shots = capturas()
    clave = _partida(servidor)
    with navegador() as d:
        _abrir(d, servidor, clave)
        _foto(d, EXAMPLES / "mano.jpg")  # one player's four cards, sent as the whole table
        esperar(lambda: _visible(d, "de_quien"), 120, "¿de quién es esta mano?")
        d.execute_script("document.getElementById('de_quien').scrollIntoView()")
        d.save_screenshot(str(shots / "una_mano.png"))
        assert _alto(d, "mano_de-1") >= MIN_TARGET
        _tap(d, "mano_de-1")  # Bea's: read again seat by seat, into her seat
        esperar(lambda: _cartas_asiento(d, 1) == sorted(["12o", "12c", "11e", "1b"]), 120, "la mano de Bea")
        assert _visible(d, "asientos_foto") and not _visible(d, "de_quien")
        assert all(_cartas_asiento(d, s) == [] for s in (0, 2, 3))

        # the whole table sent as Ane's hand: refused, its cards greyed, and no "tap to correct"
        _foto(d, EXAMPLES / "mesa.jpg")
        esperar(lambda: _visible(d, "foto_error"), 120, "el rechazo")
        resumen = _texto(d, "lectura_resumen")
        assert "no se ha usado" in resumen and "toca" not in resumen.lower(), resumen
        assert all(not b.is_enabled() for b in d.find_elements(By.CSS_SELECTOR, "#leidas button[id^=leida-]"))
        assert not d.find_elements(By.CSS_SELECTOR, "#leidas [id^=bien-]")
        d.save_screenshot(str(shots / "asiento_rechazado.png"))

        # Bea's photo again, with a cup read as a fifth card: the cup taken out with one tap
        _tap(d, "repetir-1")
        taza = tmp_path / "taza.jpg"
        taza.write_bytes(_mano_con_taza())
        _foto(d, taza)
        esperar(lambda: "5 cartas" in _texto(d, "foto_error"), 120, "cinco cartas")
        assert "quitarla" in _texto(d, "lectura_resumen")
        d.execute_script("document.getElementById('leidas').scrollIntoView()")
        d.save_screenshot(str(shots / "asiento_taza.png"))
        _tap(d, next(b.get_attribute("id") for b in d.find_elements(By.CSS_SELECTOR, "#leidas [data-carta='7o']")))

        def estados() -> list[str]:
            return [str(d.find_element(By.ID, f"asiento_foto-{s}").get_attribute("data-estado")) for s in range(4)]

        esperar(lambda: estados() == ["ahora", "hecha", "pendiente", "pendiente"], 120, "la foto de Bea sin la taza")
        assert not _visible(d, "foto_error")
        assert _cartas_asiento(d, 1) == sorted(["12o", "12c", "11e", "1b"])


def test_the_reading_and_the_seat_hands_name_cards_in_english(servidor: Servir) -> None:
    """The reading must not say "11e" nor the hand page's seats "11e 12o ...": in
    English at 390x844 every card the reading shows (its chips, the labels over the photo, the
    one-tap alternative, the correction's title) and the four seat hands read as names."""
    import re

    from selenium.webdriver.common.by import By

    from mesa import cartas

    notacion = re.compile(r"\b(?:1[0-2]|[1-7])[oceb]\b")
    tabla = cartas.tabla("en")
    shots = capturas()
    clave = _partida(servidor)
    _lectura_con_dudosas(servidor, clave, [0])
    manos = httpx.get(f"{servidor.base}/api/partidas/{clave}/borrador", timeout=30).json()["datos"]["cartas"]
    with navegador(idioma="en-US,en") as d:
        _abrir(d, servidor, clave)
        assert d.execute_script("return window.innerWidth") == 390
        esperar(lambda: len(d.find_elements(By.CSS_SELECTOR, "#leidas button[id^=leida-]")) == 16, 30, "las cartas")
        for b in d.find_elements(By.CSS_SELECTOR, "#leidas button[id^=leida-]"):
            assert b.text.replace("\n", " ") == tabla[b.get_attribute("data-carta")]["nombre"]
        alt = d.find_element(By.ID, "alt-0")
        assert tabla[alt.get_attribute("data-carta")]["nombre"] in alt.text
        resumen = _texto(d, "lectura_resumen")
        assert resumen.startswith("16 cards · 1 doubtful"), resumen
        esperar(lambda: len(d.find_elements(By.CSS_SELECTOR, "#lectura_cajas text")) == 16, 30, "los rótulos")
        rotulos = d.execute_script(
            "return Array.from(document.querySelectorAll('#lectura_cajas g')).map(function (g) {"
            " return [g.dataset.carta, g.querySelector('text').textContent]; });"
        )
        for carta, rotulo in rotulos:  # its short name and suit, or where that does not fit its short name
            assert rotulo.rstrip("?") in (f"{tabla[carta]['corta']} {tabla[carta]['palo']}", tabla[carta]["corta"])
        asientos = d.execute_script(
            "return [0, 1, 2, 3].map(function (i) { return document.getElementById('cartas-' + i).textContent; });"
        )
        assert asientos == [", ".join(tabla[c]["nombre"] for c in m.split()) for m in manos]
        textos = " ".join(asientos) + " " + _texto(d, "leidas") + " " + resumen
        assert not notacion.search(textos), textos
        assert sin_scroll_lateral(d) == 0
        d.execute_script("document.getElementById('leidas').scrollIntoView()")
        d.save_screenshot(str(shots / "nombres_en.png"))
        _tap(d, "leida-1")
        esperar(lambda: _visible(d, "corregir"), 10, "la corrección")
        titulo = _texto(d, "corregir_titulo")
        assert tabla[d.find_element(By.ID, "leida-1").get_attribute("data-carta")]["nombre"] in titulo, titulo
        assert not notacion.search(titulo) and _texto(d, "corregir-11e") == "Kn"
        d.save_screenshot(str(shots / "nombres_en_corregir.png"))
