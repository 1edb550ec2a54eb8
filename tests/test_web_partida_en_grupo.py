"""A partida played to its end by a group on two phones, as friends play it: headless Chromium
at 390x844 with touch, two phones (one in Basque, one in English, by their Accept-Language)
against one real `mus servir` started as a subprocess, the real card-reading models and the
generated example photos (not real photographs). Screenshots go to $MUSMESA_CAPTURAS or a temp
folder; they were looked at when this test was written.

The story, three hands of a partida of one juego (so that an accepted órdago ends it):

1. Carlos's phone (seat 2, Basque) photographs the table from his seat (examples/mesa.jpg turned
   half round: his cards at the bottom, sent with ``abajo``) and every hand lands in its seat.
   Four cards are doubtful (flagged in the draft as the reader flags them: the example photo
   reads with none); one takes its alternative, one "está bien", then "todas bien". Meanwhile
   the English phone, offline, confirms a doubtful card too: it loses, shows Carlos's state and
   says so in one line. An envite of 7 at grande and a refused raise of 8 at chica; the reasons
   read in Basque on one phone and in English on the other, no Spanish sentence in either.
2. Carlos's phone confirms hand 2 offline; the English phone confirms the same hand with
   another grande first. Back online, Carlos's phone says its hand was not kept, shows both,
   and one tap keeps the stored one.
3. The English phone photographs the table from Ane's seat and an accepted órdago ends the
   partida: the result stays on both phones, with "otra partida" offered (and the marcador's QR
   code to share it drawn in the middle of its box).
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from mesa.cartas import nombre_carta
from mesa.i18n import t
from scoring.partida import Partida
from scoring.rules import perfil
from tests.navegador import Servir, capturas, navegador, sin_scroll_lateral
from tests.test_web_sin_red import MANO, TODAS, _asientos, _borrador, _guardado, _manos_guardadas, _sin_red
from tests.test_web_telefono import _cargada, _cartas_asiento, _foto, _lances_con_botones, _tap, _texto, esperar
from vision.models import models_dir

httpx = pytest.importorskip("httpx")

REPO = Path(__file__).resolve().parents[1]
EXAMPLES = REPO / "examples"
TRUTH = [h.split() for h in json.loads((EXAMPLES / "mesa.json").read_text(encoding="utf-8"))["manos"]]
NAMES = ["Ane", "Bea", "Carlos", "Dani"]
CARLOS = 2  # the Basque phone's owner: the partida's seat 2, opposite Ane
APUESTAS = {"grande": {"quiero": 7}, "chica": {"no_quiero": 8, "gana": 1}}
LANCES_A = {"grande": {"quiero": 2}, "chica": {"no_quiero": 1, "gana": 1}}  # Carlos's hand 2 (lost)
LANCES_B = {"grande": {"quiero": 3}, "chica": {"no_quiero": 1, "gana": 1}}  # the English phone's (kept)
ORDAGO = {"grande": {"ordago": "quiero"}}
CORTA = {"juegos_por_vaca": 1, "vacas_por_partida": 1}  # a short partida: the first juego ends it
# words of Spanish sentences that are no Mus words: none may be in a Basque or English reason
ESPANOL = {"y", "de", "del", "para", "por", "gana", "querido", "tiene", "con", "sietes", "unos"}

pytestmark = [pytest.mark.skipif(not (models_dir() / "carta_obb.onnx").is_file(), reason="faltan los modelos")]


@pytest.fixture
def servidor(tmp_path: Path) -> Iterator[Servir]:
    pytest.importorskip("uvicorn")
    s = Servir(tmp_path)
    s.start()
    try:
        yield s
    finally:
        s.stop()


def _visible(d: Any, element_id: str) -> bool:
    from selenium.webdriver.common.by import By

    found = d.find_elements(By.ID, element_id)
    return bool(found) and found[0].is_displayed()


def _abrir(d: Any, base: str, clave: str) -> None:
    from selenium.webdriver.common.by import By

    d.get(f"{base}/p/{clave}/mano")
    _cargada(d)
    esperar(lambda: d.find_element(By.ID, "mano_controles").is_enabled(), 60, "el borrador leído")
    esperar(lambda: d.execute_script("return !!window.musMano.estado()"), 30, "el borrador en la página")


def _en_pagina(d: Any, oculta: bool = False) -> list[list[str]]:
    """The four seats' cards as the page shows them (``oculta``: also while on another step)."""
    if not oculta:
        return [_cartas_asiento(d, s) for s in range(4)]
    textos = d.execute_script(
        "return [0, 1, 2, 3].map(function (s) {"
        " return document.getElementById('cartas-' + s).getAttribute('data-cartas') || ''; })"
    )
    return [sorted(x.split()) for x in textos]


def _tantos(d: Any) -> list[int]:
    return [int(_texto(d, f"tantos-{k}")) for k in (0, 1)]


def _en_marcador(d: Any) -> bool:
    from selenium.webdriver.common.by import By

    return "/mano" not in d.current_url and bool(d.find_elements(By.ID, "tantos-0"))


def _razones(d: Any) -> list[str]:
    from selenium.webdriver.common.by import By

    return [str(e.text).strip() for e in d.find_elements(By.CSS_SELECTOR, "#razones li")]


def _sin_espanol(razones: list[str], en_espanol: list[str]) -> None:
    """No reason is a Spanish one, and none holds a word of a Spanish sentence."""
    assert razones and not set(razones) & set(en_espanol), razones
    for razon in razones:
        palabras = set(re.findall(r"\w+", razon.lower()))
        assert not palabras & ESPANOL, razon


def _previa(servidor: Servir, clave: str, cartas: list[list[str]], lances: dict[str, Any], lang: str) -> list[str]:
    """The reasons the server gives for this hand in ``lang`` (the page's, or Spanish to compare)."""
    body = {"cartas": [" ".join(h) for h in cartas], "lances": lances, "mano": None}
    r = httpx.post(f"{servidor.base}/api/partidas/{clave}/previsualizar?lang={lang}", json=body, timeout=60)
    assert r.status_code == 200, r.text
    return [x["razon"] for x in r.json()["tanteo"]["razones"]]


def _marcar_dudosas(servidor: Servir, clave: str, dudosas: list[int]) -> None:
    """The reading in the draft with these cards flagged doubtful, each with a runner-up not on
    the table, as the reader flags a card it is unsure of (examples/mesa.jpg reads with none)."""
    b = _borrador(servidor, clave)
    lec = b["datos"]["lectura"]
    fuera = iter(["7c", "6o", "5b", "2e", "6c"])
    for i in dudosas:
        lec["cartas"][i].update(dudosa=True, alternativa=next(fuera), confianza=0.4)
    r = httpx.put(
        f"{servidor.base}/api/partidas/{clave}/borrador",
        json={"datos": b["datos"], "version": b["version"]},
        timeout=30,
    )
    assert r.status_code == 200, r.text


def _otro_importe(d: Any, lance: str, clase: str, n: int) -> None:
    """A bet typed on the number pad beside the common sizes."""
    from selenium.webdriver.common.by import By

    campo = d.find_element(By.ID, f"lance-{lance}-otro-{clase}")
    d.execute_script("arguments[0].scrollIntoView({block: 'center'})", campo)
    campo.clear()
    campo.send_keys(str(n))
    _tap(d, f"lance-{lance}-otro-{clase}-ok")


def _esperado(manos: list[list[list[str]]], lances: list[dict[str, Any]]) -> Partida:
    """The partida after these hands, counted by scoring/ directly."""
    p = Partida(perfil({"base": "general", "nombre": "general", **CORTA}), jugadores=NAMES, mano=0)
    for cartas, lan in zip(manos, lances, strict=True):
        p.registrar([" ".join(h) for h in cartas], lan, mano=p.mano)
    return p


def _mirar(d: Any, shots: Path, nombre: str, element_id: str | None = None) -> None:
    """A screenshot at a key step, the element in view; no page ever scrolls sideways."""
    if element_id:
        d.execute_script(f"document.getElementById('{element_id}').scrollIntoView()")
    assert sin_scroll_lateral(d) == 0, nombre
    d.save_screenshot(str(shots / f"grupo_{nombre}.png"))


def test_a_group_plays_a_partida_to_its_end_on_two_phones(servidor: Servir, tmp_path: Path) -> None:
    import cv2
    from selenium.webdriver.common.by import By

    shots = capturas()
    r = httpx.post(
        f"{servidor.base}/api/partidas",
        json={"jugadores": NAMES, "juegos": CORTA["juegos_por_vaca"], "vacas": CORTA["vacas_por_partida"]},
        timeout=60,
    )
    assert r.status_code == 201, r.text
    clave = str(r.json()["clave"])
    # the table as Carlos sees it from his seat: the example photo turned half round
    desde_carlos = tmp_path / "desde_carlos.jpg"
    mesa = cv2.imread(str(EXAMPLES / "mesa.jpg"))
    assert mesa is not None
    cv2.imwrite(str(desde_carlos), cv2.rotate(mesa, cv2.ROTATE_180))

    with navegador(idioma="eu,es") as a, navegador(idioma="en-GB,en") as b:
        # == hand 1: a photo from seat 2, doubtful cards, a concurrent edit, bets of 7 and 8 ==========
        _abrir(a, servidor.base, clave)
        _abrir(b, servidor.base, clave)
        assert a.execute_script("return document.documentElement.lang") == "eu"
        assert b.execute_script("return document.documentElement.lang") == "en"
        esperar(lambda: _visible(a, "telefono_de"), 10, "whose phone")
        _tap(a, f"soy-{CARLOS}")
        esperar(lambda: _visible(a, "telefono_es"), 10, "Carlos's phone")
        assert "Carlos" in _texto(a, "telefono_es_texto") and "Carlos" in _texto(a, "donde_ponerse")
        _foto(a, desde_carlos)
        esperar(lambda: len(a.find_elements(By.CSS_SELECTOR, "#leidas button[id^=leida-]")) == 16, 120, "16 cards")
        truth = [sorted(h) for h in TRUTH]
        esperar(lambda: _en_pagina(a) == truth, 30, "every hand in its seat")
        assert b.find_element(By.ID, "telefono_de").is_displayed()  # whose phone is each phone's own
        esperar(lambda: _en_pagina(b) == truth, 30, "the English phone follows")
        _mirar(a, shots, "1_foto_desde_carlos", "lectura_vista")

        _marcar_dudosas(servidor, clave, [0, 1, 2, 3])
        for phone in (a, b):
            esperar(lambda phone=phone: all(_visible(phone, f"bien-{i}") for i in range(4)), 30, "doubtful cards")
        assert _visible(a, "todas_bien") and not _visible(a, "bien-4")
        _mirar(a, shots, "2_dudosas", "leidas")
        alt = a.find_element(By.ID, "alt-0").get_attribute("data-carta")
        _tap(a, "alt-0")  # the reader's other guess, one tap
        esperar(lambda: a.find_element(By.ID, "leida-0").get_attribute("data-carta") == alt, 30, "the alternative")
        _tap(a, "bien-1")  # "está bien", one tap
        esperar(lambda: not _visible(a, "bien-1") and _guardado(a) == "guardado", 30, "está bien saved")
        esperar(lambda: not _visible(b, "bien-1") and not _visible(b, "bien-0"), 30, "the English phone follows")

        # the English phone, offline, says card 2 is right; Carlos's says "todas bien": both change
        # the draft from the same version, Carlos's reaches the server first
        _sin_red(b)
        _tap(b, "bien-2")
        esperar(lambda: _guardado(b) == "local", 30, "kept on the English phone")
        _tap(a, "todas_bien")
        esperar(lambda: not _visible(a, "todas_bien") and _guardado(a) == "guardado", 30, "todas bien saved")
        suyo = _borrador(servidor, clave)["datos"]
        assert not [c for c in suyo["lectura"]["cartas"] if c.get("dudosa")]
        b.delete_network_conditions()
        perdio = t("otro teléfono ha cambiado esta mano: se muestra lo suyo", "en")
        assert perdio != "otro teléfono ha cambiado esta mano: se muestra lo suyo"
        esperar(lambda: _texto(b, "error") == perdio, 60, "the English phone told it lost")
        assert "\n" not in _texto(b, "error")  # one line
        esperar(lambda: not any(_visible(b, f"bien-{i}") for i in range(4)), 30, "Carlos's state on the other")
        assert not _visible(b, "todas_bien") and b.find_element(By.ID, "leida-0").get_attribute("data-carta") == alt
        assert _borrador(servidor, clave)["datos"]["lectura"] == suyo["lectura"]  # the loser wrote nothing
        b.execute_script("window.scrollTo(0, 0)")
        _mirar(b, shots, "3_conflicto_en")

        # an envite of 7 and a refused raise of 8 on the number pad
        _tap(a, "a_lances")
        _tap(a, "lance-grande-quiero")
        _otro_importe(a, "grande", "quiero", 7)
        _tap(a, "lance-chica-no_quiero")
        _tap(a, "lance-chica-gana-1")
        _otro_importe(a, "chica", "no_quiero", 8)
        esperar(lambda: _borrador(servidor, clave)["datos"]["lances"] == APUESTAS, 30, "the bets saved")
        esperar(lambda: _guardado(a) == "guardado", 30, "saved")
        _mirar(a, shots, "4_apuestas_7_8", "lance-grande")
        cartas1 = [h.split() for h in _borrador(servidor, clave)["datos"]["cartas"]]
        leidas = [c for h in cartas1 for c in h]
        assert alt in leidas and len(set(leidas) & {c for h in TRUTH for c in h}) == 15  # one card corrected
        _tap(a, "a_tanteo")
        esperar(lambda: a.find_element(By.ID, "confirmar").is_displayed() and _razones(a), 60, "the tanteo in eu")
        # the English phone follows to the tanteo step, counted in its own language
        esperar(lambda: b.find_element(By.ID, "tabla_tanteo").is_displayed() and _razones(b), 60, "the tanteo in en")
        en_espanol = _previa(servidor, clave, cartas1, APUESTAS, "es")
        razones_eu, razones_en = _razones(a), _razones(b)
        for razones, lang in ((razones_eu, "eu"), (razones_en, "en")):  # each line: "+8 Bea and Dani: <reason>"
            api = _previa(servidor, clave, cartas1, APUESTAS, lang)
            assert len(razones) == len(api) and all(r.endswith(x) for r, x in zip(razones, api, strict=True))
        _sin_espanol(razones_eu, en_espanol)
        _sin_espanol(razones_en, en_espanol)
        assert any("7" in x for x in razones_en) and any("8" in x for x in razones_en)
        _mirar(a, shots, "5_razones_eu", "tanteo")
        _mirar(b, shots, "5_razones_en", "tanteo")
        _tap(a, "confirmar")
        esperado = _esperado([cartas1], [APUESTAS])
        for phone in (a, b):
            esperar(lambda phone=phone: _en_marcador(phone), 60, "the marcador")
            esperar(lambda phone=phone: _tantos(phone) == list(esperado.tantos), 30, "the tantos of hand 1")
        # the QR code to share the partida is drawn in the middle of its box, not at its left
        centros = b.execute_script(
            "var c = document.querySelector('#qr svg path').getBoundingClientRect();"
            " var q = document.getElementById('qr').getBoundingClientRect();"
            " return [c.left + c.width / 2, q.left + q.width / 2, c.width];"
        )
        assert abs(centros[0] - centros[1]) < 3 and centros[2] > 150, centros
        _mirar(b, shots, "6_marcador_en")

        # == hand 2: Carlos's phone confirms offline and loses to the English phone's =============
        _tap(a, "nueva_mano")
        esperar(lambda: "/mano" in a.current_url, 30, "hand 2")
        _abrir(a, servidor.base, clave)
        _asientos(a, MANO, (0, 1, 2, 3))
        _tap(a, "a_lances")
        _lances_con_botones(a, LANCES_A)
        _tap(a, "a_tanteo")
        esperar(lambda: a.find_element(By.ID, "confirmar").is_displayed(), 60, "the tanteo of hand 2")
        esperar(lambda: _guardado(a) == "guardado", 30, "hand 2 saved")
        _abrir(b, servidor.base, clave)
        esperar(lambda: _en_pagina(b, oculta=True) == TODAS, 30, "hand 2 on the English phone")
        _sin_red(a)
        _tap(a, "confirmar")
        esperar(lambda: _visible(a, "salida") and _texto(a, "salida"), 30, "hand 2 waiting on Carlos's phone")
        _tap(b, "paso-lances")
        _tap(b, "lance-grande-quiero")
        _tap(b, "lance-grande-tantos-3")
        esperar(lambda: _borrador(servidor, clave)["datos"]["lances"] == LANCES_B, 30, "the other grande saved")
        _tap(b, "a_tanteo")
        esperar(lambda: b.find_element(By.ID, "confirmar").is_displayed(), 60, "the tanteo on the English phone")
        _tap(b, "confirmar")
        esperar(lambda: _en_marcador(b), 60, "the English phone's marcador")

        a.delete_network_conditions()
        esperar(lambda: _visible(a, "perdida-2"), 60, "Carlos's phone told its hand 2 was not kept")
        assert "2" in _texto(a, "perdida-2-texto")
        tuya, guardada = _texto(a, "perdida-2-tuya"), _texto(a, "perdida-2-guardada")
        ane = ", ".join(nombre_carta(c, "eu") for c in MANO[0])  # the cards by name, in Basque
        assert ane in tuya and ane in guardada and tuya != guardada
        assert "Handia" in tuya and "2" in tuya and "3" in guardada  # the two grandes, in Basque
        _mirar(a, shots, "7_perdida_eu", "perdida-2")
        _tap(a, "perdida-2-suya")  # one tap keeps the stored one
        esperar(lambda: not a.find_elements(By.ID, "perdida-2"), 60, "the stored one kept")
        guardadas = _manos_guardadas(servidor, clave)
        assert len(guardadas) == 2 and guardadas[1]["lances"] == LANCES_B
        esperado = _esperado([cartas1, MANO], [APUESTAS, LANCES_B])
        a.get(f"{servidor.base}/p/{clave}")
        _cargada(a)
        for phone in (a, b):
            esperar(lambda phone=phone: _tantos(phone) == list(esperado.tantos), 30, "the tantos of hand 2")
            assert _texto(phone, "numero_mano") == "3"

        # == hand 3: the English phone's photo from Ane's seat, an accepted órdago ends it =========
        _tap(b, "nueva_mano")
        esperar(lambda: "/mano" in b.current_url, 30, "hand 3")
        _abrir(b, servidor.base, clave)
        _tap(b, "soy-0")
        _foto(b, EXAMPLES / "mesa.jpg")
        esperar(lambda: _en_pagina(b) == truth, 120, "every hand in its seat from Ane's side")
        _tap(b, "a_lances")
        _tap(b, "lance-grande-ordago")
        esperar(lambda: not b.find_element(By.ID, "lance-chica-quiero").is_enabled(), 30, "the later lances closed")
        _tap(b, "a_tanteo")
        esperar(lambda: b.find_element(By.ID, "confirmar").is_displayed(), 60, "the tanteo of hand 3")
        _mirar(b, shots, "8_ordago_en", "tanteo")
        _tap(b, "confirmar")
        esperado = _esperado([cartas1, MANO, TRUTH], [APUESTAS, LANCES_B, ORDAGO])
        assert esperado.terminada and esperado.ganador == 0
        ganador = {"eu": "Ane eta Carlos", "en": "Ane and Carlos"}
        for phone, lang in ((a, "eu"), (b, "en")):
            esperar(lambda phone=phone: _visible(phone, "terminada"), 60, "the result")
            assert _texto(phone, "terminada_quien") == t("¡Partida para {0}!", lang).format(ganador[lang])
            assert _texto(phone, "juegos-0") == "1" and _visible(phone, "otra_partida")
            assert not _visible(phone, "nueva_mano")
            _mirar(phone, shots, f"9_final_{lang}", "terminada")
        # a hand page opened after the end leads to the result, no error
        b.get(f"{servidor.base}/p/{clave}/mano")
        _cargada(b)
        esperar(lambda: _visible(b, "terminada"), 30, "the result again")
        assert "/mano" not in b.current_url

        _tap(a, "otra_partida")
        esperar(lambda: clave not in a.current_url and "/p/" in a.current_url, 30, "the next partida")
        nueva = a.current_url.split("/p/")[1].split("?")[0]
        m = httpx.get(f"{servidor.base}/api/partidas/{nueva}", timeout=30).json()
        assert m["jugadores"] == NAMES and m["numero_mano"] == 1
        esperar(lambda: _visible(b, "ir_otra"), 30, "the next partida offered on the English phone")
        _mirar(b, shots, "10_otra_en", "terminada")
