"""A hand entered on a phone whose connection comes and goes: headless Chromium at 390x844 with
touch against a real `mus servir` (a subprocess, stopped, killed with SIGKILL and started again
on the same port). The network is cut with Chromium's own offline mode, and while the page is
reloaded from the server its API calls are blocked, as a phone that gets the page back before
the wifi settles. Screenshots go to $MUSMESA_CAPTURAS or a temp folder; they were looked at when
these tests were written.

What it covers: seats tapped without network kept on the phone through a reload and sent when
the network is back; a page closed offline and opened again sends what it kept; another phone
having moved the hand on meanwhile wins, and the page says so; a hand confirmed while the server
is down is stored once when it is back, and the marcador moves; the marcador shows a hand that
waits in this phone's outbox until the server stores it; a `kill -9` of the server mid-hand keeps
every step it acknowledged; the hand's buttons wait until the page has the draft, and a change
hides the tanteo until the server has counted it.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest

from scoring.partida import Partida
from scoring.rules import perfil
from tests.navegador import Servir, capturas, navegador, sin_scroll_lateral
from tests.test_web_telefono import (
    NAMES,
    _cargada,
    _cartas_asiento,
    _lances_con_botones,
    _tanteo_esperado,
    _tap,
    _texto,
    esperar,
)

MANO = [["1o", "1c", "12e", "12b"], ["5o", "5c", "5e", "4c"], ["7o", "7c", "6o", "6c"], ["10o", "11o", "10c", "11c"]]
TODAS = [sorted(h) for h in MANO]  # the four seats as the page and the server show them
OTRA = [["12o", "12c", "3e", "3b"], ["1e", "1b", "7e", "7b"], ["4o", "5b", "6e", "2o"], ["11e", "11b", "10e", "10b"]]
LANCES = {"grande": {"quiero": 2}, "chica": {"no_quiero": 1, "gana": 1}}
SIN_RED_MANO = "sin conexión: la mano se enviará al volver la red"


@pytest.fixture
def servidor(tmp_path: Path) -> Iterator[Servir]:
    """A server of its own: these tests stop and kill it."""
    pytest.importorskip("uvicorn")
    s = Servir(tmp_path)
    s.start()
    try:
        yield s
    finally:
        s.stop()


def _nueva_partida(d: Any, base: str) -> str:
    from selenium.webdriver.common.by import By

    d.get(base + "/nueva")
    for i, name in enumerate(NAMES):
        d.find_element(By.ID, f"jugador{i}").send_keys(name)
    _tap(d, "crear")
    esperar(lambda: "/p/" in d.current_url, 30, "la partida")
    return str(d.current_url.split("/p/")[1].split("?")[0].split("/")[0])


def _abrir_mano(d: Any, base: str, clave: str) -> None:
    d.get(f"{base}/p/{clave}/mano")
    _cargada(d)
    esperar(lambda: d.execute_script("return !!window.musMano.estado()"), 30, "el borrador leído")


def _asientos(d: Any, mano: list[list[str]], seats: tuple[int, ...]) -> None:
    for seat in seats:
        _tap(d, f"asiento-{seat}")
        for c in mano[seat]:
            _tap(d, f"carta-{c}")


def _en_pagina(d: Any) -> list[list[str]]:
    return [_cartas_asiento(d, s) for s in range(4)]


def _borrador(servidor: Servir, clave: str) -> dict[str, Any]:
    r = httpx.get(f"{servidor.base}/api/partidas/{clave}/borrador", timeout=30)
    assert r.status_code == 200, r.text
    return dict(r.json())


def _en_servidor(servidor: Servir, clave: str) -> list[list[str]]:
    return [sorted((c or "").split()) for c in _borrador(servidor, clave)["datos"]["cartas"]]


def _guardado(d: Any) -> str:
    from selenium.webdriver.common.by import By

    return str(d.find_element(By.ID, "guardado").get_attribute("data-estado") or "")


def _bloquear(d: Any, urls: list[str]) -> None:
    """Chromium refuses these requests as if there were no network (an empty list lets all through)."""
    d.execute_cdp_cmd("Network.enable", {})
    d.execute_cdp_cmd("Network.setBlockedURLs", {"urls": urls})


def _sin_red(d: Any) -> None:
    d.set_network_conditions(offline=True, latency=0, download_throughput=0, upload_throughput=0)


def _manos_guardadas(servidor: Servir, clave: str) -> list[dict[str, Any]]:
    r = httpx.get(f"{servidor.base}/api/partidas/{clave}/exportar.json", timeout=30)
    assert r.status_code == 200, r.text
    doc = r.json()
    return list(doc if isinstance(doc, list) else doc["manos"])


def _hasta_el_tanteo(d: Any, mano: list[list[str]]) -> None:
    from selenium.webdriver.common.by import By

    _asientos(d, mano, (0, 1, 2, 3))
    _tap(d, "a_lances")
    _lances_con_botones(d, LANCES)
    _tap(d, "a_tanteo")
    esperar(lambda: d.find_element(By.ID, "confirmar").is_displayed(), 60, "el tanteo")


def _tantos(d: Any) -> list[int]:
    return [int(_texto(d, f"tantos-{k}")) for k in (0, 1)]


def _mano_con_asientos(d: Any, servidor: Servir, seats: tuple[int, ...]) -> str:
    """A new partida whose first hand has these seats' cards, saved on the server: its clave."""
    clave = _nueva_partida(d, servidor.base)
    _abrir_mano(d, servidor.base, clave)
    _asientos(d, MANO, seats)
    esperar(lambda: all(_en_servidor(servidor, clave)[s] == TODAS[s] for s in seats), 30, "los asientos guardados")
    esperar(lambda: _guardado(d) == "guardado", 30, "guardado")
    return clave


def test_the_hands_buttons_wait_until_the_draft_is_read(servidor: Servir) -> None:
    """Before the page has the hand's draft its buttons are disabled, not silently dead: a tap
    on a slow connection is not lost (one lost card tap in the wrong seat changed a tanteo)."""
    from selenium.webdriver.common.by import By

    with navegador() as d:
        clave = _nueva_partida(d, servidor.base)
        _bloquear(d, ["*/borrador*"])  # the page arrives, its draft does not yet
        d.get(f"{servidor.base}/p/{clave}/mano")
        _cargada(d)
        carta = d.find_element(By.ID, "carta-1o")
        assert carta.is_displayed() and not carta.is_enabled()
        assert not d.find_element(By.ID, "asiento-0").is_enabled()
        assert d.find_element(By.ID, "mano_controles").get_attribute("aria-busy") == "true"
        d.save_screenshot(str(capturas() / "sin_red_esperando_borrador.png"))
        _bloquear(d, [])  # the page tries again by itself
        esperar(lambda: carta.is_enabled(), 30, "los botones")
        assert d.find_element(By.ID, "mano_controles").get_attribute("aria-busy") is None
        _asientos(d, MANO, (0,))
        esperar(lambda: _en_servidor(servidor, clave)[0] == TODAS[0], 30, "el asiento guardado")


def test_a_change_hides_the_tanteo_until_the_server_has_counted_it(servidor: Servir) -> None:
    """A lance changed on the tanteo step: the tanteo of the hand before the change is not left
    beside the confirm button while the new one is counted (a tap then confirmed the right hand
    but the outbox showed the stale total)."""
    from selenium.webdriver.common.by import By

    with navegador() as d:
        clave = _nueva_partida(d, servidor.base)
        _abrir_mano(d, servidor.base, clave)
        _hasta_el_tanteo(d, MANO)
        antes = d.execute_script(
            "var m = window.musMano; delete m.estado().lances.chica; m.cambiar();"
            "return [document.getElementById('confirmar').offsetParent === null,"
            " document.getElementById('tanteo_falta').textContent];"
        )
        assert antes == [True, "Contando el tanteo…"]
        esperar(lambda: d.find_element(By.ID, "confirmar").is_displayed(), 30, "el tanteo contado")
        _tap(d, "confirmar")
        esperar(lambda: "/mano" not in d.current_url and d.find_element(By.ID, "tantos-0"), 60, "el marcador")
        sin_chica = {k: v for k, v in LANCES.items() if k != "chica"}
        assert _tantos(d) == _tanteo_esperado([MANO], [sin_chica])[0]
        assert len(_manos_guardadas(servidor, clave)) == 1


def test_seats_tapped_without_network_survive_a_reload(servidor: Servir) -> None:
    shots = capturas()
    with navegador() as d:
        clave = _mano_con_asientos(d, servidor, (0, 1))

        _sin_red(d)
        _asientos(d, MANO, (2, 3))
        esperar(lambda: _guardado(d) == "local", 30, "guardado en el teléfono")
        assert "Sin conexión" in _texto(d, "guardado")
        assert _en_pagina(d) == TODAS
        assert _en_servidor(servidor, clave) == [*TODAS[:2], [], []]
        d.save_screenshot(str(shots / "sin_red_asientos.png"))

        # the page comes back from the server while its calls still cannot get through
        _bloquear(d, ["*/api/*"])
        d.delete_network_conditions()
        d.refresh()
        _cargada(d)
        esperar(lambda: _en_pagina(d) == TODAS, 30, "los cuatro asientos de este teléfono")
        esperar(lambda: _guardado(d) == "local", 30, "sin conexión tras recargar")
        assert _en_servidor(servidor, clave) == [*TODAS[:2], [], []]
        assert sin_scroll_lateral(d) == 0
        d.save_screenshot(str(shots / "sin_red_recargada.png"))

        # the network back: the page sends what the server never got, by itself
        _bloquear(d, [])
        esperar(lambda: _en_servidor(servidor, clave) == TODAS, 30, "los cuatro asientos en el servidor")
        esperar(lambda: _guardado(d) == "guardado", 30, "guardado tras volver la red")
        assert _texto(d, "guardado") == "Recuperado de este teléfono y guardado en el servidor"
        d.save_screenshot(str(shots / "sin_red_vuelta.png"))

    with navegador() as otro:  # another phone sees the four seats
        _abrir_mano(otro, servidor.base, clave)
        esperar(lambda: _en_pagina(otro) == TODAS, 30, "los cuatro asientos en otro teléfono")


def test_a_page_closed_offline_sends_its_steps_when_opened_again_and_another_phone_wins(servidor: Servir) -> None:
    shots = capturas()
    with navegador() as d:
        clave = _mano_con_asientos(d, servidor, (0,))
        servidor.stop()
        _asientos(d, MANO, (1,))
        esperar(lambda: _guardado(d) == "local", 30, "guardado en el teléfono")
        # the page is left before the server is back (a tab closed, the phone locked)
        d.get("about:blank")
        servidor.start()
        assert _en_servidor(servidor, clave)[1] == []
        _abrir_mano(d, servidor.base, clave)
        esperar(lambda: _en_servidor(servidor, clave)[:2] == TODAS[:2], 30, "el asiento guardado al volver")
        esperar(lambda: _guardado(d) == "guardado", 30, "guardado")
        assert _texto(d, "guardado") == "Recuperado de este teléfono y guardado en el servidor"
        assert _en_pagina(d)[:2] == TODAS[:2]
        d.save_screenshot(str(shots / "sin_red_recuperada.png"))

        # offline again; meanwhile another phone moves the hand on: theirs wins, and the page says so
        _sin_red(d)
        _asientos(d, MANO, (2,))
        esperar(lambda: _guardado(d) == "local", 30, "guardado en el teléfono")
        suyo = _borrador(servidor, clave)
        suyo["datos"]["cartas"][3] = " ".join(MANO[3])
        r = httpx.put(f"{servidor.base}/api/partidas/{clave}/borrador", json=suyo, timeout=30)
        assert r.status_code == 200, r.text
        d.delete_network_conditions()
        esperar(
            lambda: _texto(d, "error") == "otro teléfono ha cambiado esta mano: se muestra lo suyo",
            30,
            "el conflicto dicho",
        )
        esperar(lambda: _en_pagina(d) == [*TODAS[:2], [], TODAS[3]], 30, "la mano del otro teléfono")
        assert _en_servidor(servidor, clave) == [*TODAS[:2], [], TODAS[3]]
        d.execute_script("window.scrollTo(0, 0)")
        d.save_screenshot(str(shots / "sin_red_conflicto.png"))
        # the phone's copy follows the server's, so a reload shows the same
        d.refresh()
        _cargada(d)
        esperar(lambda: _en_pagina(d) == [*TODAS[:2], [], TODAS[3]], 30, "la mano del otro tras recargar")


def test_a_hand_confirmed_while_the_server_is_down_is_stored_once(servidor: Servir) -> None:
    from selenium.webdriver.common.by import By

    shots = capturas()
    with navegador() as d:
        clave = _nueva_partida(d, servidor.base)
        _abrir_mano(d, servidor.base, clave)
        _hasta_el_tanteo(d, MANO)
        servidor.stop()
        _tap(d, "confirmar")
        esperar(lambda: _texto(d, "salida") == SIN_RED_MANO, 30, "la mano por enviar")
        assert "/mano" in d.current_url
        salida = d.execute_script(f"return JSON.parse(localStorage.getItem('mus-salida-{clave}'))")
        assert [e["n"] for e in salida] == [1]
        d.execute_script("document.getElementById('salida').scrollIntoView()")
        d.save_screenshot(str(shots / "sin_red_confirmada.png"))

        servidor.start()  # the page tries again by itself and goes to the marcador once the hand is in
        esperar(lambda: "/mano" not in d.current_url and d.find_element(By.ID, "tantos-0"), 60, "el marcador")
        esperado = _tanteo_esperado([MANO, OTRA], [LANCES, LANCES])
        assert _tantos(d) == esperado[0]
        assert _texto(d, "numero_mano") == "2"
        assert len(_manos_guardadas(servidor, clave)) == 1
        assert d.execute_script(f"return localStorage.getItem('mus-salida-{clave}')") is None
        # the same confirmation again (an answer that was lost) is the stored hand, not a second one
        r = httpx.post(f"{servidor.base}/api/partidas/{clave}/manos", json=salida[0]["cuerpo"], timeout=30)
        assert r.status_code in (200, 201) and r.json()["repetida"] is True
        assert len(_manos_guardadas(servidor, clave)) == 1
        d.save_screenshot(str(shots / "sin_red_marcador1.png"))

        # hand 2: its confirmation cannot get through; the marcador shows it waiting, then stored
        _tap(d, "nueva_mano")
        esperar(lambda: "/mano" in d.current_url, 30, "la página de la mano")
        _cargada(d)
        _hasta_el_tanteo(d, OTRA)
        _bloquear(d, ["*/manos*"])
        _tap(d, "confirmar")
        esperar(lambda: _texto(d, "salida") == SIN_RED_MANO, 30, "la mano 2 por enviar")
        _tap(d, "volver_marcador")
        esperar(lambda: d.find_element(By.ID, "por_enviar-2").is_displayed(), 30, "la mano 2 en el marcador")
        linea = _texto(d, "por_enviar-2")
        total = esperado[1][0] - esperado[0][0], esperado[1][1] - esperado[0][1]
        assert linea == f"Mano 2 sin enviar: +{total[0]} / +{total[1]} · {SIN_RED_MANO}"
        assert _tantos(d) == esperado[0] and _texto(d, "numero_mano") == "2"
        assert sin_scroll_lateral(d) == 0
        d.save_screenshot(str(shots / "sin_red_marcador_pendiente.png"))
        _bloquear(d, [])
        esperar(lambda: _texto(d, "numero_mano") == "3", 30, "la mano 2 guardada")
        assert not d.find_elements(By.ID, "por_enviar")
        assert _tantos(d) == esperado[1]
        assert len(_manos_guardadas(servidor, clave)) == 2
        d.save_screenshot(str(shots / "sin_red_marcador2.png"))


def test_kill_9_mid_hand_keeps_every_acknowledged_step(servidor: Servir) -> None:
    from selenium.webdriver.common.by import By

    shots = capturas()
    with navegador() as d:
        clave = _mano_con_asientos(d, servidor, (0, 1, 2))
        servidor.stop(kill=True)
        _asientos(d, MANO, (3,))
        esperar(lambda: _guardado(d) == "local", 30, "guardado en el teléfono")
        d.save_screenshot(str(shots / "sin_red_kill9.png"))
        servidor.start()
        assert _en_servidor(servidor, clave)[:3] == TODAS[:3]  # what it acknowledged survived the kill
        esperar(lambda: _en_servidor(servidor, clave) == TODAS, 30, "el cuarto asiento enviado al volver")
        d.refresh()
        _cargada(d)
        esperar(lambda: _en_pagina(d) == TODAS, 30, "los cuatro asientos tras recargar")
        _tap(d, "a_lances")
        _lances_con_botones(d, LANCES)
        _tap(d, "a_tanteo")
        esperar(lambda: d.find_element(By.ID, "confirmar").is_displayed(), 60, "el tanteo")
        _tap(d, "confirmar")
        esperar(lambda: "/mano" not in d.current_url and d.find_element(By.ID, "tantos-0"), 60, "el marcador")
        assert _tantos(d) == _tanteo_esperado([MANO], [LANCES])[0]
        assert len(_manos_guardadas(servidor, clave)) == 1
        d.save_screenshot(str(shots / "sin_red_kill9_marcador.png"))


@pytest.mark.parametrize(
    ("idioma", "esperado"),
    [
        ("es", SIN_RED_MANO),
        ("eu", "konexiorik gabe: eskua sarea itzultzean bidaliko da"),
        ("en", "no connection: the hand will be sent when the network is back"),
    ],
)
def test_the_offline_texts_come_in_the_players_language(idioma: str, esperado: str, tmp_path: Path) -> None:
    import json
    import re

    pytest.importorskip("fastapi")
    from server.main import crear_app
    from tests.cliente_web import ClienteWeb as TestClient

    app = crear_app(f"sqlite:///{tmp_path / 'sin_red.sqlite3'}")
    try:
        client = TestClient(app)
        r = client.post("/api/partidas", json={"jugadores": NAMES, "reglas": "general", "mano": 0})
        assert r.status_code == 201, r.text
        html = client.get(f"/p/{r.json()['clave']}/mano?lang={idioma}").text
    finally:
        app.state.servidor.engine.dispose()
    bloque = re.search(r'<script type="application/json" id="sin_red_textos">(.*?)</script>', html, re.S)
    assert bloque is not None
    textos = json.loads(bloque.group(1))
    assert textos["sin_red_mano"] == esperado
    assert set(textos) == {
        "guardado_local",
        "recuperado",
        "recuperado_guardado",
        "sin_red_mano",
        "por_enviar",
        "tanteo_sin_red",
    }
    assert all(f"{{{k}}}" in textos["por_enviar"] for k in "nab")  # what the page fills in


LARGOS = [f"{n} (Peña Recreativa Cultural de Villa)"[:40] for n in ("Juan", "Miren", "Koldo", "Edurne")]


def _partida_api(servidor: Servir, jugadores: list[str], **extra: Any) -> str:
    r = httpx.post(f"{servidor.base}/api/partidas", json={"jugadores": jugadores, **extra}, timeout=30)
    assert r.status_code == 201, r.text
    return str(r.json()["clave"])


def _arriba(d: Any, element_id: str) -> float:
    """Where the element's top is in the viewport, in CSS pixels (0: the top of the screen)."""
    return float(d.execute_script(f"return document.getElementById('{element_id}').getBoundingClientRect().top"))


def _otro_importe(d: Any, lance: str, clase: str, n: int) -> None:
    from selenium.webdriver.common.by import By

    campo = d.find_element(By.ID, f"lance-{lance}-otro-{clase}")
    d.execute_script("arguments[0].scrollIntoView({block: 'center'})", campo)
    campo.clear()
    campo.send_keys(str(n))
    _tap(d, f"lance-{lance}-otro-{clase}-ok")


def test_bets_of_any_size_an_ordago_closes_the_later_lances_and_each_step_scrolls_to_itself(servidor: Servir) -> None:
    """An envite of 7 and a refused re-raise of 8 typed on the number pad; an accepted órdago
    greys the lances after it; "Siguiente" and the step tabs bring their step into view; long
    real names never make the page scroll sideways; "Volver al marcador" is a thumb's target."""
    from selenium.webdriver.common.by import By

    shots = capturas()
    clave = _partida_api(servidor, LARGOS)
    with navegador() as d:
        _abrir_mano(d, servidor.base, clave)
        assert sin_scroll_lateral(d) == 0  # the mano <select> with 40-character names
        volver = d.find_element(By.ID, "volver_marcador")
        assert volver.size["height"] >= 44
        d.save_screenshot(str(shots / "apuestas_nombres_largos.png"))
        _asientos(d, MANO, (0, 1, 2, 3))
        _tap(d, "a_lances")
        esperar(lambda: 0 <= _arriba(d, "lances") < 844 / 2, 10, "los lances a la vista")
        # an accepted órdago at grande: the lances after it cannot be set; back to paso, they can again
        _tap(d, "lance-grande-ordago")
        for lance in ("chica", "pares"):
            esperar(lambda lance=lance: not d.find_element(By.ID, f"lance-{lance}-quiero").is_enabled(), 10, lance)
            assert "tras-ordago" in (d.find_element(By.ID, f"lance-{lance}").get_attribute("class") or "")
            assert _texto(d, f"lance-{lance}-motivo") == "Después del órdago querido no se juega"
        d.execute_script("document.getElementById('lance-grande').scrollIntoView()")
        d.save_screenshot(str(shots / "apuestas_ordago.png"))
        _tap(d, "lance-grande-paso")
        esperar(lambda: d.find_element(By.ID, "lance-pares-quiero").is_enabled(), 30, "los lances abiertos otra vez")
        assert _texto(d, "lance-pares-motivo") == ""

        _tap(d, "lance-grande-quiero")
        _otro_importe(d, "grande", "quiero", 7)
        _tap(d, "lance-chica-no_quiero")
        _tap(d, "lance-chica-gana-1")
        _otro_importe(d, "chica", "no_quiero", 8)
        apuestas = {"grande": {"quiero": 7}, "chica": {"no_quiero": 8, "gana": 1}}
        esperar(lambda: _borrador(servidor, clave)["datos"]["lances"] == apuestas, 30, "las apuestas guardadas")
        assert d.find_element(By.ID, "lance-grande-otro-quiero").get_attribute("value") == "7"
        d.execute_script("document.getElementById('lance-grande').scrollIntoView()")
        d.save_screenshot(str(shots / "apuestas_7_y_8.png"))

        # the step tabs too: the tab for the cards brings the cards into view, not the page's top
        _tap(d, "paso-cartas")
        esperar(lambda: 0 <= _arriba(d, "cartas") < 844 / 2, 10, "las cartas a la vista")
        _tap(d, "paso-lances")
        esperar(lambda: 0 <= _arriba(d, "lances") < 844 / 2, 10, "los lances a la vista")
        _tap(d, "a_tanteo")
        esperar(lambda: d.find_element(By.ID, "confirmar").is_displayed(), 60, "el tanteo")
        assert 0 <= _arriba(d, "tanteo") < 844 / 2
        assert sin_scroll_lateral(d) == 0
        _tap(d, "confirmar")
        esperar(lambda: "/mano" not in d.current_url and d.find_element(By.ID, "tantos-0"), 60, "el marcador")
        guardada = _manos_guardadas(servidor, clave)
        assert len(guardada) == 1 and guardada[0]["lances"] == apuestas
        p = Partida(perfil("general"), jugadores=LARGOS, mano=0)
        p.registrar([" ".join(h) for h in MANO], apuestas)
        assert _tantos(d) == list(p.tantos)


def test_an_offline_confirmation_that_lost_says_so_shows_both_and_keeps_one_in_one_tap(servidor: Servir) -> None:
    """Phone A confirms hand 1 without network; phone B confirms hand 1 with other cards and
    lances. When A is back it says its hand was not kept, shows both, and one tap keeps A's."""
    from selenium.webdriver.common.by import By

    shots = capturas()
    with navegador() as d:
        clave = _nueva_partida(d, servidor.base)
        _abrir_mano(d, servidor.base, clave)
        _hasta_el_tanteo(d, MANO)
        _sin_red(d)
        _tap(d, "confirmar")
        esperar(lambda: _texto(d, "salida") == SIN_RED_MANO, 30, "la mano por enviar")
        otra = {"grande": {"quiero": 3}}
        body = {"id_mano": "telefono-b-1", "n": 1, "cartas": [" ".join(h) for h in OTRA], "lances": otra}
        assert httpx.post(f"{servidor.base}/api/partidas/{clave}/manos", json=body, timeout=30).status_code == 201

        d.delete_network_conditions()
        esperar(lambda: d.find_element(By.ID, "perdida-1").is_displayed(), 60, "la mano perdida dicha")
        texto = _texto(d, "perdida-1-texto")
        assert texto.startswith("Tu mano 1 no se guardó: otro teléfono confirmó antes la mano 1")
        tuya, suya = _texto(d, "perdida-1-tuya"), _texto(d, "perdida-1-guardada")
        from mesa.cartas import nombre_carta

        def nombres(mano: list[str]) -> str:  # the cards by their names, as the page shows them
            return ", ".join(nombre_carta(c) for c in mano)

        assert nombres(MANO[0]) in tuya and "Grande: envite de 2" in tuya
        assert nombres(OTRA[0]) in suya and "Grande: envite de 3" in suya
        assert "12o" not in suya
        assert sin_scroll_lateral(d) == 0
        d.execute_script("document.getElementById('perdida-1').scrollIntoView()")
        d.save_screenshot(str(shots / "perdida_las_dos.png"))

        _tap(d, "perdida-1-mia")  # one tap: the stored one undone, this phone's in
        esperar(lambda: not d.find_elements(By.ID, "perdida-1"), 60, "la elegida")
        guardadas = _manos_guardadas(servidor, clave)
        assert len(guardadas) == 1 and guardadas[0]["manos"] == [" ".join(h) for h in MANO]
        esperar(lambda: _tantos(d) == _tanteo_esperado([MANO], [LANCES])[0], 30, "el marcador con la mía")
        d.save_screenshot(str(shots / "perdida_elegida.png"))
        d.refresh()  # chosen for good: it does not come back
        _cargada(d)
        assert not d.find_elements(By.ID, "perdida-1")

        # hand 2 lost the same way; this time the table keeps the stored one, in one tap too
        _abrir_mano(d, servidor.base, clave)
        _hasta_el_tanteo(d, OTRA)
        _sin_red(d)
        _tap(d, "confirmar")
        esperar(lambda: _texto(d, "salida") == SIN_RED_MANO, 30, "la mano 2 por enviar")
        body = {"id_mano": "telefono-b-2", "n": 2, "cartas": [" ".join(h) for h in MANO], "lances": otra}
        assert httpx.post(f"{servidor.base}/api/partidas/{clave}/manos", json=body, timeout=30).status_code == 201
        d.delete_network_conditions()
        esperar(lambda: d.find_element(By.ID, "perdida-2").is_displayed(), 60, "la mano 2 perdida dicha")
        _tap(d, "perdida-2-suya")
        esperar(lambda: not d.find_elements(By.ID, "perdida-2"), 30, "la guardada elegida")
        guardadas = _manos_guardadas(servidor, clave)
        assert len(guardadas) == 2 and guardadas[1]["lances"] == otra
        d.refresh()
        _cargada(d)
        assert not d.find_elements(By.ID, "perdida-2") and _texto(d, "numero_mano") == "3"


def test_the_end_of_a_partida_stays_on_every_phone_and_another_partida_follows(servidor: Servir) -> None:
    """Two juegos by accepted órdagos end a partida of one vaca: the second phone shows the
    "¡Órdago!" notice of the first, then both the result with its juegos and vacas once; the
    hand page after the end is the marcador; "otra partida" takes the table to a new partida
    with the same seats, and the other phone is offered it."""
    from selenium.webdriver.common.by import By

    shots = capturas()
    clave = _partida_api(servidor, NAMES, juegos=2, vacas=1)
    ordago = {"grande": {"ordago": "quiero"}}
    with navegador() as d, navegador() as otro:
        otro.get(f"{servidor.base}/p/{clave}")
        _cargada(otro)
        _abrir_mano(d, servidor.base, clave)
        _asientos(d, MANO, (0, 1, 2, 3))
        _tap(d, "a_lances")
        _tap(d, "lance-grande-ordago")
        _tap(d, "a_tanteo")
        esperar(lambda: d.find_element(By.ID, "confirmar").is_displayed(), 60, "el tanteo")
        lineas = [e.text for e in d.find_elements(By.CSS_SELECTOR, "#avisos .linea")]
        assert lineas == ["¡Órdago! Juego para Ane y Carlos"]
        _tap(d, "confirmar")
        esperar(lambda: "/mano" not in d.current_url and d.find_element(By.ID, "tantos-0"), 60, "el marcador")
        # the second phone, which confirmed nothing, announces the órdago
        esperar(lambda: _texto(otro, "avisos_ultima").startswith("¡Órdago! Juego para Ane y Carlos"), 30, "el órdago")
        otro.save_screenshot(str(shots / "fin_ordago_segundo_telefono.png"))

        body = {"id_mano": "fin-2-abcdefgh", "n": 2, "cartas": [" ".join(h) for h in MANO], "lances": ordago}
        assert httpx.post(f"{servidor.base}/api/partidas/{clave}/manos", json=body, timeout=30).status_code == 201
        for phone in (d, otro):
            esperar(lambda phone=phone: phone.find_element(By.ID, "terminada").is_displayed(), 30, "el final")
            assert _texto(phone, "terminada_quien") == "¡Partida para Ane y Carlos!"
            assert phone.find_element(By.ID, "marcador").text.count("¡Partida para") == 1
            como = _texto(phone, "terminada_como")
            assert "Vacas: Ane y Carlos 1 – 0 Bea y Dani" in como and "Juegos: Ane y Carlos 2 – 0 Bea y Dani" in como
            assert _texto(phone, "juegos-0") == "2"
            assert not phone.find_element(By.ID, "nueva_mano").is_displayed()
            assert sin_scroll_lateral(phone) == 0
        d.save_screenshot(str(shots / "fin_resultado.png"))
        otro.get(f"{servidor.base}/p/{clave}/mano")  # a hand page after the end: the marcador, no error
        _cargada(otro)
        esperar(lambda: otro.find_element(By.ID, "terminada").is_displayed(), 30, "el marcador")
        assert "/mano" not in otro.current_url and "Algo ha fallado" not in otro.page_source

        _tap(d, "otra_partida")
        esperar(lambda: clave not in d.current_url and "/p/" in d.current_url, 30, "la otra partida")
        nueva = d.current_url.split("/p/")[1].split("?")[0]
        assert _texto(d, "numero_mano") == "1" and _tantos(d) == [0, 0]
        m = httpx.get(f"{servidor.base}/api/partidas/{nueva}", timeout=30).json()
        assert m["jugadores"] == NAMES and m["juegos_por_vaca"] == 2
        esperar(lambda: otro.find_element(By.ID, "ir_otra").is_displayed(), 30, "la otra partida ofrecida")
        otro.save_screenshot(str(shots / "fin_otra_ofrecida.png"))
        _tap(otro, "ir_otra")
        esperar(lambda: nueva in otro.current_url, 30, "el otro teléfono en la nueva")
