"""The organiser's pages as people use them: headless Chromium (Debian's chromium and
chromium-driver, driven by Selenium; nothing is downloaded) against a real `mus torneo servir`
started here. Screenshots go to $MUSMESA_CAPTURAS or a temp folder."""

from __future__ import annotations

import os
import re
import shutil
import socket
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from mesa.i18n import IDIOMAS, t
from server.deps import elegir_idioma as idioma
from server.simulacion import free_port
from tests.navegador import navegador as abrir_navegador
from tests.navegador import reemplazada

REPO = Path(__file__).resolve().parents[1]
PLANTILLAS = REPO / "server" / "plantillas" / "torneo"
CLAVE = "organiza-bien-1"


@pytest.mark.parametrize("lang", ["eu", "en"])
def test_every_word_of_the_pages_is_in_the_catalogues(lang: str):
    pytest.importorskip("babel")
    from mesa.i18n import extraer

    words = {m for p in PLANTILLAS.glob("*.html") for m in re.findall(r'_\("([^"]+)"\)', p.read_text("utf-8"))}
    assert words, "no words found: the pattern no longer matches the templates"
    assert words <= set(extraer.msgids()), "the extraction no longer sees the tournament's pages"
    traducidas = {m.id: m.string for m in extraer.read(lang) if m.id and m.string and not m.fuzzy}
    assert sorted(words - traducidas.keys()) == []
    assert len(IDIOMAS) == 3


def test_language_from_the_query_then_the_browser():
    assert idioma("eu", "en-GB,en;q=0.8") == "eu"
    assert idioma(None, "en-GB,en;q=0.8") == "en"
    assert idioma("fr", "fr-FR") == "es"
    assert t("Clasificación", "eu") == "Sailkapena"


@pytest.fixture(scope="module")
def servidor() -> Iterator[tuple[str, str]]:
    pytest.importorskip("uvicorn")
    datos = tempfile.mkdtemp(prefix="musmesa-paginas-")
    env = {**os.environ, "MUS_CLAVE": CLAVE}
    cli = [sys.executable, "-m", "musmesa", "torneo"]
    subprocess.run(
        [*cli, "organizador", "ana", "--datos", datos, "--clave-entorno", "MUS_CLAVE"],
        check=True,
        cwd=REPO,
        env=env,
        capture_output=True,
    )
    port = free_port()
    proc = subprocess.Popen(
        [*cli, "servir", "--datos", datos, "--host", "127.0.0.1", "--puerto", str(port)],
        cwd=REPO,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
    )
    for _ in range(300):
        try:
            with socket.create_connection(("127.0.0.1", port), timeout=0.2):
                break
        except OSError:
            assert proc.poll() is None, proc.stderr.read().decode() if proc.stderr else ""
            time.sleep(0.1)
    try:
        yield f"http://127.0.0.1:{port}", datos
    finally:
        proc.terminate()
        proc.wait(10)
        shutil.rmtree(datos, ignore_errors=True)


@pytest.fixture(scope="module")
def navegador() -> Iterator[object]:
    """A desktop Chromium (the organiser's laptop), Spanish by its Accept-Language."""
    with abrir_navegador(telefono=False) as driver:
        yield driver


@pytest.fixture(scope="module")
def capturas() -> Path:
    folder = Path(os.environ.get("MUSMESA_CAPTURAS") or tempfile.mkdtemp(prefix="musmesa-capturas-"))
    folder.mkdir(parents=True, exist_ok=True)
    return folder


def test_organiser_logs_in_creates_a_tournament_starts_a_round_and_sees_standings(servidor, navegador, capturas):
    import httpx
    from selenium.webdriver.common.by import By
    from selenium.webdriver.support.ui import WebDriverWait

    from server.simulacion import MesaSimulada

    base, _datos = servidor
    d = navegador

    def enviar(button_id: str) -> None:
        """Click a form's button and wait for the next page to replace this one."""
        button = d.find_element(By.ID, button_id)
        button.click()
        WebDriverWait(d, 20).until(reemplazada(button))

    d.get(f"{base}/torneos")  # "/" is the phone pages' home
    assert "/entrar" in d.current_url  # not logged in: sent to the login page
    d.find_element(By.ID, "usuario").send_keys("ana")
    d.find_element(By.ID, "clave").send_keys("mal")
    enviar("entrar")
    assert "usuario o contraseña incorrectos" in d.find_element(By.CLASS_NAME, "error").text
    d.find_element(By.ID, "usuario").send_keys("ana")
    d.find_element(By.ID, "clave").send_keys(CLAVE)
    enviar("entrar")
    d.find_element(By.ID, "nombre").send_keys("Txapelketa de Otoño")
    d.find_element(By.ID, "parejas").send_keys(
        "Los Reyes: Ana, Luis\nLas Sotas: Eva, Iker\nDuples: Maite, Jon\nÓrdago: Nerea, Unai"
    )
    enviar("crear_boton")
    assert "Txapelketa de Otoño" in d.find_element(By.TAG_NAME, "h1").text
    assert d.find_element(By.ID, "ronda").text == "Empezar la siguiente ronda"  # Spanish from Accept-Language
    enviar("ronda")
    codigos = [e.text for e in d.find_elements(By.CLASS_NAME, "codigo")]
    assert len(codigos) == 2 and all(len(c) == 10 for c in codigos)
    qr = d.execute_script("return document.querySelector('.mesa img').naturalWidth")
    assert qr > 50  # the QR code image was served and decoded by the browser
    d.save_screenshot(str(capturas / "torneo.png"))

    sums = {}
    with httpx.Client(base_url=base) as client:
        for i, codigo in enumerate(codigos):
            m = MesaSimulada.unirse(client, codigo, semilla=i)
            for _ in range(6):
                m.jugar()
            assert m.enviar(client) == 6
            partida = client.get("/api/mesa/partida", headers={"Authorization": f"Bearer {m.token}"}).json()
            sums[partida["parejas"][0]] = m.ganados[0]
            sums[partida["parejas"][1]] = m.ganados[1]
    d.get(d.current_url.split("?")[0] + "/clasificacion")
    rows = d.find_elements(By.CSS_SELECTOR, "table.clasificacion tr")[1:]
    shown = {r.find_elements(By.TAG_NAME, "td")[1].text: r.find_elements(By.TAG_NAME, "td")[5].text for r in rows}
    assert {k: int(v.split(" - ")[0]) for k, v in shown.items()} == sums
    assert d.find_element(By.CSS_SELECTOR, "meta[http-equiv=refresh]").get_attribute("content") == "10"
    d.save_screenshot(str(capturas / "clasificacion.png"))
    d.get(d.current_url.split("?")[0] + "?lang=eu")
    assert d.find_element(By.TAG_NAME, "h2").text == "Sailkapena"
    d.save_screenshot(str(capturas / "clasificacion_eu.png"))


def test_the_page_creates_a_swiss_tournament_and_an_elimination_by_ceros(tmp_path: Path):
    from server.servicios import auth
    from server.servidor import Servidor
    from tests.cliente_web import ClienteWeb as TestClient

    srv = Servidor(f"sqlite:///{tmp_path / 't.sqlite3'}")
    with srv.sesion() as s:
        auth.crear_cuenta(s, "ana", CLAVE, "organizador")
    c = TestClient(srv.app)
    assert c.post("/entrar", data={"usuario": "ana", "clave": CLAVE}, follow_redirects=False).status_code == 303
    form = c.get("/torneos?lang=eu").text
    assert 'value="suizo"' in form and 'value="ceros"' in form and "Zeroetara" in form
    parejas = "\n".join(f"P{i}: A{i}, B{i}" for i in range(6))
    creados = {}
    for datos in ({"tipo": "suizo", "rondas": "3", "clasifican": "0"}, {"tipo": "ceros", "ceros": "1"}):
        base = {"nombre": datos["tipo"], "parejas": parejas, "mesas": "3", "juegos": "1"}
        r = c.post("/torneos", data=base | datos, follow_redirects=False)
        assert r.status_code == 303, r.text
        creados[datos["tipo"]] = int(r.headers["location"].split("/")[2].split("?")[0])
    with srv.sesion() as s:
        from server.modelos.torneo import Torneo

        suizo, ceros = s.get(Torneo, creados["suizo"]), s.get(Torneo, creados["ceros"])
        assert (suizo.formato["tipo"], suizo.formato["rondas"], suizo.formato["clasifican"]) == ("suizo", 3, 0)
        assert (ceros.formato["tipo"], ceros.formato["ceros"]) == ("ceros", 1)
    # their standings name what decides them: the Buchholz of a Swiss, the ceros of an elimination
    assert "Buchholz" in c.get(f"/torneos/{creados['suizo']}/clasificacion").text
    assert "<th>Ceros</th>" in c.get(f"/torneos/{creados['ceros']}/clasificacion").text
    sin_rondas = c.post("/torneos", data={"nombre": "S", "parejas": parejas, "mesas": "3", "tipo": "suizo"})
    assert sin_rondas.status_code == 422 and "rondas" in sin_rondas.text


def test_pages_without_a_browser_refuse_bad_forms_and_show_incidents(tmp_path: Path):
    pytest.importorskip("fastapi")
    from scoring.arbitro import comprobar_senas
    from scoring.registro import RegistroArbitro
    from server.servicios import auth
    from server.servidor import Servidor
    from tests.cliente_web import ClienteWeb as TestClient

    srv = Servidor(f"sqlite:///{tmp_path / 't.sqlite3'}")
    with srv.sesion() as s:
        auth.crear_cuenta(s, "ana", CLAVE, "organizador")
    c = TestClient(srv.app)
    assert c.post("/entrar", data={"usuario": "ana", "clave": CLAVE}, follow_redirects=False).status_code == 303
    bad = c.post("/torneos", data={"nombre": "X", "parejas": "Uno: Ana\nDos: Eva, Jon", "mesas": "1"})
    assert bad.status_code == 422 and "línea 1 de parejas" in bad.text
    r = c.post(
        "/torneos",
        data={"nombre": "X", "parejas": "Uno: Ana, Luis\nDos: Eva, Jon", "mesas": "1", "juegos": "1"},
        follow_redirects=False,
    )
    tid = int(r.headers["location"].split("/")[2].split("?")[0])
    c.post(f"/torneos/{tid}/rondas")
    log = RegistroArbitro.nuevo({"reglas": "segovia"})
    inf = comprobar_senas([{"gesto": "morro", "inicio": 1.0, "fin": 1.4, "confianza": 0.9}], "4o 5c 6e 7b", "segovia")
    log.anotar("informe", {"jugador": 2, "informe": inf.to_json()})
    assert c.post(f"/api/torneos/{tid}/informes", json={"mesa": 1, "registro": log.to_json()}).status_code == 201
    page = c.get(f"/torneos/{tid}/incidencias?lang=en")
    assert "Incidents" in page.text and "Título VII, art. 3" in page.text and "Uno" in page.text
    c.post("/salir")
    assert c.get(f"/torneos/{tid}/incidencias", follow_redirects=False).status_code == 303
