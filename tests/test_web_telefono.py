"""A whole partida played on phones, as players play it: headless Chromium at 390x844 with
touch against a real `mus servir` started as a subprocess, the real card-reading models and the
generated example photos (not real photographs). Screenshots go to $MUSMESA_CAPTURAS or a temp
folder; they were looked at when these tests were written.

What it covers: a new partida, a hand from a photo of the whole table with one card corrected
(and put back), the lances with the big buttons, the tanteo with its reasons, a second phone
following the marcador, a hand by hand on the 40-card grid with a reload in the middle, a hand
seat by seat (four photos), undo, the deck registered from four suit photos, and no page
scrolling sideways.
"""

from __future__ import annotations

import json
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from scoring.partida import Partida
from scoring.rules import perfil
from tests.fotos_asiento import fotos_por_asiento
from tests.navegador import Servir, capturas, navegador, sin_scroll_lateral
from vision.models import models_dir

REPO = Path(__file__).resolve().parents[1]
EXAMPLES = REPO / "examples"
TRUTH = json.loads((EXAMPLES / "mesa.json").read_text(encoding="utf-8"))["manos"]
LANCES = json.loads((EXAMPLES / "lances.json").read_text(encoding="utf-8"))
NAMES = ["Ane", "Bea", "Carlos", "Dani"]

pytestmark = [
    pytest.mark.skipif(not (models_dir() / "carta_obb.onnx").is_file(), reason="faltan los modelos"),
]


def esperar(cond: Callable[[], Any], segundos: float = 60, que: str = "") -> Any:
    """Poll ``cond`` until it gives a true value (the machine is shared and slow: be patient)."""
    fin = time.monotonic() + segundos
    ultimo: Any = None
    while time.monotonic() < fin:
        try:
            ultimo = cond()
            if ultimo:
                return ultimo
        except Exception as exc:  # the element is being replaced by the page: look again
            ultimo = exc
        time.sleep(0.2)
    raise AssertionError(f"no llegó: {que} (último: {ultimo!r})")


@pytest.fixture(scope="module")
def servidor(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Servir]:
    pytest.importorskip("uvicorn")
    s = Servir(tmp_path_factory.mktemp("servir"))
    s.start()
    try:
        yield s
    finally:
        s.stop()


@pytest.fixture(scope="module")
def fotos_asiento(tmp_path_factory: pytest.TempPathFactory) -> list[Path]:
    """The example table as four photos, one hand each: what a phone sends seat by seat."""
    return fotos_por_asiento(tmp_path_factory.mktemp("asientos"))


def _texto(d: Any, element_id: str) -> str:
    from selenium.webdriver.common.by import By

    return str(d.find_element(By.ID, element_id).text).strip()


def _tap(d: Any, element_id: str) -> None:
    """A thumb's tap: scrolled into view first, as a person scrolls to a button."""
    from selenium.webdriver.common.by import By

    # 60 s: on a loaded 2-core machine a page redrawn after a lost server took over 30 s
    el = esperar(lambda: d.find_element(By.ID, element_id), 60, element_id)
    d.execute_script("arguments[0].scrollIntoView({block: 'center'})", el)
    esperar(lambda: el.is_displayed() and el.is_enabled(), 60, f"{element_id} visible")
    el.click()


def _cartas_asiento(d: Any, seat: int) -> list[str]:
    """A seat's cards on the hand page, in notation (the page shows their names)."""
    from selenium.webdriver.common.by import By

    return sorted((d.find_element(By.ID, f"cartas-{seat}").get_attribute("data-cartas") or "").split())


def _tanteo_esperado(manos: list[list[str]], lances: dict[str, Any]) -> list[list[int]]:
    """The marcador after each hand, counted by scoring/ directly."""
    p = Partida(perfil("general"), jugadores=NAMES, mano=0)
    out = []
    for cartas, lan in zip(manos, lances, strict=True):
        p.registrar([" ".join(h) for h in cartas], lan, mano=p.mano)
        out.append(list(p.tantos))
    return out


def _lances_con_botones(d: Any, lances: dict[str, Any]) -> None:
    """Enter the lance outcomes of a hand record with the page's big buttons."""
    for lance, res in lances.items():
        if res == "paso":
            _tap(d, f"lance-{lance}-paso")
        elif "quiero" in res:
            _tap(d, f"lance-{lance}-quiero")
            _tap(d, f"lance-{lance}-tantos-{res['quiero']}")
        elif "no_quiero" in res:
            _tap(d, f"lance-{lance}-no_quiero")
            _tap(d, f"lance-{lance}-gana-{res['gana']}")
            _tap(d, f"lance-{lance}-nq-{res['no_quiero']}")


def _confirmar(d: Any, shots: Path, nombre: str) -> None:
    from selenium.webdriver.common.by import By

    _tap(d, "a_tanteo")
    esperar(lambda: d.find_element(By.ID, "tabla_tanteo").is_displayed(), 60, "el tanteo")
    esperar(lambda: d.find_elements(By.CSS_SELECTOR, "#razones li"), 30, "las razones")
    assert sin_scroll_lateral(d) == 0
    d.execute_script("document.getElementById('tabla_tanteo').scrollIntoView()")
    d.save_screenshot(str(shots / f"{nombre}_tanteo.png"))
    _tap(d, "confirmar")
    esperar(lambda: "/mano" not in d.current_url and d.find_element(By.ID, "tantos-0"), 60, "el marcador")


def _cargada(d: Any) -> None:
    """Wait for the page and its deferred scripts, as a person waits to see the page."""
    esperar(lambda: d.execute_script("return document.readyState") == "complete", 30, "la página cargada")


def _foto(d: Any, path: Path, input_id: str = "foto_input") -> None:
    from selenium.webdriver.common.by import By

    _cargada(d)
    d.find_element(By.ID, input_id).send_keys(str(path))


def test_a_whole_partida_on_two_phones(servidor: Servir, fotos_asiento: list[Path]) -> None:
    from selenium.webdriver.common.by import By

    shots = capturas()
    with navegador() as d, navegador() as otro:
        # -- a new partida ---------------------------------------------------------------------
        d.get(servidor.base + "/")
        assert sin_scroll_lateral(d) == 0
        d.save_screenshot(str(shots / "telefono_inicio.png"))
        _tap(d, "nueva_partida")
        for i, name in enumerate(NAMES):
            d.find_element(By.ID, f"jugador{i}").send_keys(name)
        d.save_screenshot(str(shots / "telefono_nueva.png"))
        _tap(d, "crear")
        esperar(lambda: "/p/" in d.current_url, 30, "la partida")
        enlace = d.current_url.split("?")[0]
        assert _texto(d, "tantos-0") == "0" and _texto(d, "mano_nombre") == "Ane"
        assert sin_scroll_lateral(d) == 0
        # the second phone follows the same link
        otro.get(enlace)
        assert _texto(otro, "numero_mano") == "1"

        manos: list[list[list[str]]] = []
        lances: list[dict[str, Any]] = []

        # -- hand 1: one photo of the table, one card corrected and put back ------------------
        _tap(d, "nueva_mano")
        esperar(lambda: "/mano" in d.current_url, 30, "la página de la mano")
        _foto(d, EXAMPLES / "mesa.jpg")
        leidas = esperar(
            lambda: d.find_elements(By.CSS_SELECTOR, "#leidas button[id^=leida-]"),
            90,
            "las cartas leídas: " + _texto(d, "foto_estado") + " " + _texto(d, "foto_error"),
        )
        assert len(leidas) == 16
        esperar(lambda: all(len(_cartas_asiento(d, s)) == 4 for s in range(4)), 30, "los asientos")
        assert [_cartas_asiento(d, s) for s in range(4)] == [sorted(h.split()) for h in TRUTH]
        d.save_screenshot(str(shots / "telefono_foto_leida.png"))
        assert sin_scroll_lateral(d) == 0
        # correct the first card read to one not on the table, then back to what it was
        was = d.find_element(By.ID, "leida-0").get_attribute("data-carta")
        _tap(d, "leida-0")
        esperar(lambda: d.find_element(By.ID, "corregir").is_displayed(), 20, "el panel de corregir")
        d.save_screenshot(str(shots / "telefono_corregir.png"))
        _tap(d, "corregir-7c")
        esperar(lambda: any("7c" in _cartas_asiento(d, s) for s in range(4)), 20, "la carta corregida")
        _tap(d, "leida-0")
        _tap(d, f"corregir-{was}")
        esperar(
            lambda: [_cartas_asiento(d, s) for s in range(4)] == [sorted(h.split()) for h in TRUTH],
            20,
            "la carta devuelta",
        )
        _tap(d, "a_lances")
        _lances_con_botones(d, LANCES)
        d.save_screenshot(str(shots / "telefono_lances.png"))
        _confirmar(d, shots, "telefono_mano1")
        manos.append([h.split() for h in TRUTH])
        lances.append(LANCES)
        esperado = _tanteo_esperado(manos, lances)
        assert [int(_texto(d, f"tantos-{k}")) for k in (0, 1)] == esperado[-1]
        d.save_screenshot(str(shots / "telefono_marcador1.png"))
        # the other phone's marcador moves by itself
        esperar(lambda: [int(_texto(otro, f"tantos-{k}")) for k in (0, 1)] == esperado[-1], 30, "el otro teléfono")
        otro.save_screenshot(str(shots / "telefono_otro.png"))

        # -- hand 2: by hand on the grid, a reload in the middle ------------------------------
        mano2 = [
            ["1o", "1c", "12e", "12b"],
            ["5o", "5c", "5e", "4c"],
            ["7o", "7c", "6o", "6c"],
            ["10o", "11o", "10c", "11c"],
        ]
        _tap(d, "nueva_mano")
        esperar(lambda: "/mano" in d.current_url, 30, "la página de la mano")
        for seat in (0, 1):
            _tap(d, f"asiento-{seat}")
            for c in mano2[seat]:
                _tap(d, f"carta-{c}")
        esperar(lambda: _texto(d, "guardado") != "", 20, "el borrador guardado")
        time.sleep(1.0)  # the draft is saved as the cards are tapped
        d.refresh()
        esperar(lambda: _cartas_asiento(d, 1) == sorted(mano2[1]), 30, "el borrador tras recargar")
        assert _cartas_asiento(d, 0) == sorted(mano2[0])
        for seat in (2, 3):
            _tap(d, f"asiento-{seat}")
            for c in mano2[seat]:
                _tap(d, f"carta-{c}")
        d.save_screenshot(str(shots / "telefono_rejilla.png"))
        _tap(d, "a_lances")
        _confirmar(d, shots, "telefono_mano2")
        manos.append(mano2)
        lances.append({})
        assert [int(_texto(d, f"tantos-{k}")) for k in (0, 1)] == _tanteo_esperado(manos, lances)[-1]

        # -- hand 3: seat by seat, four photos ----------------------------------------------
        _tap(d, "nueva_mano")
        esperar(lambda: "/mano" in d.current_url, 30, "la página de la mano")
        _tap(d, "modo_asientos")
        for seat, path in enumerate(fotos_asiento):
            esperar(
                lambda s=seat: d.find_element(By.ID, f"asiento_foto-{s}").get_attribute("data-estado") == "ahora",
                60,
                f"el asiento {seat} pedido",
            )
            assert NAMES[seat] in _texto(d, "pide_asiento")
            _foto(d, path)
            esperar(
                lambda s=seat: d.find_element(By.ID, f"asiento_foto-{s}").get_attribute("data-estado") == "hecha",
                90,
                f"el asiento {seat} leído",
            )
        esperar(
            lambda: [_cartas_asiento(d, s) for s in range(4)] == [sorted(h.split()) for h in TRUTH],
            30,
            "las cuatro manos",
        )
        d.save_screenshot(str(shots / "telefono_asientos.png"))
        _tap(d, "a_lances")
        _confirmar(d, shots, "telefono_mano3")
        manos.append([h.split() for h in TRUTH])
        lances.append({})
        assert [int(_texto(d, f"tantos-{k}")) for k in (0, 1)] == _tanteo_esperado(manos, lances)[-1]
        assert _texto(d, "numero_mano") == "4"
        import httpx

        # the export says how each hand was entered: a photo of the table, by touch, a photo a seat
        csv = httpx.get(f"{enlace.replace('/p/', '/api/partidas/')}/exportar.csv", timeout=30).text
        assert [fila.rsplit(",", 1)[1] for fila in csv.strip().splitlines()[1:]] == ["camara", "manual", "asientos"]

        # -- undo the last hand ---------------------------------------------------------------
        _tap(d, "deshacer")
        _tap(d, "deshacer_si")
        esperar(lambda: _texto(d, "numero_mano") == "3", 30, "la mano deshecha")
        assert [int(_texto(d, f"tantos-{k}")) for k in (0, 1)] == _tanteo_esperado(manos[:2], lances[:2])[-1]
        esperar(lambda: _texto(otro, "numero_mano") == "3", 30, "el otro teléfono tras deshacer")
        d.save_screenshot(str(shots / "telefono_deshecha.png"))

        # -- the export reads back as the hands played -----------------------------------------
        exported = httpx.get(
            servidor.base + d.find_element(By.ID, "exportar_json").get_attribute("href").removeprefix(servidor.base)
        ).json()
        records = exported if isinstance(exported, list) else exported["manos"]
        assert [sorted(" ".join(r["manos"]).split()) for r in records] == [
            sorted(c for hand in m for c in hand) for m in manos[:2]
        ]


def test_the_deck_registered_from_a_phone(servidor: Servir) -> None:
    from selenium.webdriver.common.by import By

    shots = capturas()
    with navegador() as d:
        d.get(servidor.base + "/nueva")
        for i, name in enumerate(NAMES):
            d.find_element(By.ID, f"jugador{i}").send_keys(name)
        _tap(d, "crear")
        esperar(lambda: "/p/" in d.current_url, 30, "la partida")
        clave = d.current_url.split("/p/")[1].split("?")[0].split("/")[0]
        d.get(f"{servidor.base}/p/{clave}/baraja")
        assert sin_scroll_lateral(d) == 0
        d.save_screenshot(str(shots / "telefono_baraja_guia.png"))
        for palo in ("oros", "copas", "espadas", "bastos"):
            esperar(
                lambda p=palo: d.find_element(By.ID, f"palo-{p}").get_attribute("data-estado") == "ahora",
                60,
                f"{palo} pedido",
            )
            _foto(d, EXAMPLES / "baraja" / f"{palo}.jpg", "foto")
            esperar(
                lambda p=palo: d.find_element(By.ID, f"palo-{p}").get_attribute("data-estado") == "hecha",
                120,
                f"{palo} comprobado",
            )
        esperar(lambda: d.find_element(By.ID, "ya_registrada").is_displayed(), 120, "la baraja registrada")
        d.save_screenshot(str(shots / "telefono_baraja.png"))
        # every reading of this partida now uses it
        import httpx

        with (EXAMPLES / "mesa.jpg").open("rb") as f:
            r = httpx.post(
                f"{servidor.base}/api/leer",
                data={"partida": clave},
                files={"foto": ("mesa.jpg", f, "image/jpeg")},
                timeout=120,
            )
        assert r.status_code == 200
        assert sorted(c["carta"] for c in r.json()["cartas"]) == sorted(" ".join(TRUTH).split())
