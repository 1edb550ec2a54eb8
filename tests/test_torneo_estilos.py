"""The organiser's pages look like the table's pages (server/static/torneo/torneo.css, linked by every
page): in headless Chromium at 390x844 and at 1280x800 every button, field and link of the bar
and the sections is at least 44 px tall and wide (a checkbox's whole row is its target), and
nothing scrolls sideways. Screenshots go to $MUSMESA_CAPTURAS (or a temp folder)."""

from __future__ import annotations

import os
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("fastapi")
pytest.importorskip("selenium")
from fastapi.testclient import TestClient

from server.servidor import Servidor
from tests.navegador import REPO, Servir, capturas, navegador, reemplazada, sin_scroll_lateral

CLAVE = "una-clave-bien-larga-1"
# every control that is too small for a finger, as "tag#id WxH" (a hidden one is no control; a
# checkbox counts by its label's row)
PEQUENOS = """
const out = [];
const sel = 'button, input, select, textarea, header a, nav a, td > a, li > a, body > p > a';
for (const el of document.querySelectorAll(sel)) {
  if (el.type === 'hidden') continue;
  const caja = el.type === 'checkbox' && el.closest('label') ? el.closest('label') : el;
  const r = caja.getBoundingClientRect();
  if (r.width === 0 && r.height === 0) continue;
  if (r.height < 44 || r.width < 44)
    out.push(el.tagName + '#' + (el.id || el.name || el.textContent.trim().slice(0, 20)) + ' '
             + Math.round(r.width) + 'x' + Math.round(r.height));
}
return out;
"""


def test_every_page_links_the_stylesheet_and_it_is_served(tmp_path: Path) -> None:
    srv = Servidor(f"sqlite:///{tmp_path / 't.sqlite3'}")
    c = TestClient(srv.app)
    assert '<link rel="stylesheet" href="/estilos/torneo.css">' in c.get("/entrar").text
    css = c.get("/estilos/torneo.css")
    assert css.status_code == 200 and css.headers["content-type"].startswith("text/css")
    assert "min-height: 48px" in css.text and "#0d5c3a" in css.text  # the phone pages' targets and colour
    srv.engine.dispose()


@pytest.fixture(scope="module")
def servidor(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[Servir, int]]:
    """`mus servir` with an organiser logged in by the browser later, and a league started."""
    import httpx

    datos = tmp_path_factory.mktemp("estilos")
    subprocess.run(
        [sys.executable, "-m", "musmesa", "torneo", "organizador", "ana", "--clave-entorno", "C", "--datos", datos],
        cwd=REPO,
        env={**os.environ, "C": CLAVE},
        check=True,
        capture_output=True,
    )
    srv = Servir(datos)
    srv.start()
    try:
        with httpx.Client(base_url=srv.base) as c:
            token = c.post("/api/sesion", json={"usuario": "ana", "clave": CLAVE}).json()["token"]
            h = {"Authorization": f"Bearer {token}"}
            nombres = ["Los Reyes", "Las Sotas", "Duples de la Peña Recreativa Cultural de Villanueva", "Órdago"]
            body = {
                "nombre": "Txapelketa de Otoño",
                "mesas": 2,
                "formato": {"tipo": "liga", "juegos": 1},
                "parejas": [{"nombre": n, "jugadores": [f"Ana María {i}", f"Luis {i}"]} for i, n in enumerate(nombres)],
            }
            tid = c.post("/api/torneos", headers=h, json=body).json()["id"]
            assert c.post(f"/api/torneos/{tid}/rondas", headers=h).status_code == 201
        yield srv, tid
    finally:
        srv.stop()


def _entrar(d: Any, base: str) -> None:
    from selenium.webdriver.support.ui import WebDriverWait

    d.get(f"{base}/entrar")
    d.find_element("id", "usuario").send_keys("ana")
    d.find_element("id", "clave").send_keys(CLAVE)
    boton = d.find_element("id", "entrar")
    boton.click()
    WebDriverWait(d, 20).until(reemplazada(boton))


@pytest.mark.parametrize("telefono", [True, False], ids=["390x844", "1280x800"])
def test_the_organisers_pages_have_targets_for_a_finger_and_no_sideways_scrolling(
    servidor: tuple[Servir, int], telefono: bool
) -> None:
    srv, tid = servidor
    fotos = capturas()
    nombre = "390" if telefono else "1280"
    with navegador(telefono=telefono) as d:
        if not telefono:
            d.set_window_size(1280, 800)
        d.get(f"{srv.base}/entrar")
        assert d.execute_script(PEQUENOS) == [] and sin_scroll_lateral(d) == 0
        # the look of the phone pages: their green bar and their buttons
        barra = d.execute_script("return getComputedStyle(document.querySelector('header')).backgroundColor")
        assert barra == "rgb(13, 92, 58)"
        d.save_screenshot(str(fotos / f"organizador_entrar_{nombre}.png"))
        _entrar(d, srv.base)
        t = f"/torneos/{tid}"
        paginas = ("/torneos", t, f"{t}/clasificacion", f"{t}/miembros", "/cuenta")
        for path in paginas:
            d.get(srv.base + path)
            assert "/entrar" not in d.current_url, path
            assert d.execute_script(PEQUENOS) == [], path
            assert sin_scroll_lateral(d) == 0, path
            pagina = path.strip("/").replace("/", "_") or "inicio"
            d.save_screenshot(str(fotos / f"organizador_{pagina.replace(str(tid), 't')}_{nombre}.png"))
