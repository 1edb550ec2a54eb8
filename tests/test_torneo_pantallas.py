"""The organiser's pages on a phone and on paper, for a finished tournament (groups, then the
knockout, a champion, a corrected result): at 390x844 in headless Chromium nothing scrolls
sideways, not even inside a table's box, and each match's juegos, marcador and winner are on
screen; the print view printed to PDF by Chromium is A4, one sheet per part, none blank, and
the table cards are never cut across two pages. Screenshots and a page rendered from the PDF
go to $MUSMESA_CAPTURAS (or a temp folder) to be looked at."""

from __future__ import annotations

import base64
import random
import re
import shutil
import subprocess
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("fastapi")
pytest.importorskip("selenium")
from server.servicios import auth
from server.servidor import Servidor
from tests.cliente_web import ClienteWeb as TestClient
from tests.navegador import capturas, navegador, reemplazada
from tests.servidor_torneo import (
    PAREJAS_DE_CLUB,
    Server,
    hash_barato,  # noqa: F401 (fixture used by name)
)
from tests.test_torneo_integridad import jugar_ronda

CLAVE = "secreto-largo-1"
NOMBRES = [PAREJAS_DE_CLUB[0] + " de Abajo", *PAREJAS_DE_CLUB[1:]]  # one longer still
A4_PUNTOS = (595, 842)  # 210 x 297 mm in PostScript points, as pdfinfo rounds them


def _servidor(url: str) -> tuple[Servidor, TestClient, dict[str, str]]:
    """The app over ``url`` with the organiser "org" logged in (its client and header)."""
    srv = Servidor(url, limite_unirse=100_000)
    with srv.sesion() as s:
        auth.crear_cuenta(s, "org", CLAVE, "organizador")
    c = TestClient(srv.app)
    h = {"Authorization": "Bearer " + c.post("/api/sesion", json={"usuario": "org", "clave": CLAVE}).json()["token"]}
    return srv, c, h


@pytest.fixture(scope="module")
def terminado(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[str, int, int, list[str]]]:
    """A server with a groups tournament played to its champion (8 parejas, 4 tables), one
    result corrected, and a tournament of 14 tables not yet started; yields its address, the
    two tournaments' ids and the second one's join codes."""
    url = f"sqlite:///{tmp_path_factory.mktemp('pantallas') / 't.sqlite3'}"
    srv, c, h = _servidor(url)
    body = {
        "nombre": "Txapelketa de Otoño 2026",
        "mesas": 4,
        "formato": {"tipo": "grupos", "grupos": 2, "clasifican": 2, "juegos": 1},
        "parejas": [
            {"nombre": n, "jugadores": [f"Ana María {i}", f"Luis Fernando {i}"]} for i, n in enumerate(NOMBRES)
        ],
    }
    tid = c.post("/api/torneos", headers=h, json=body).json()["id"]
    rng = random.Random(5)
    while c.post(f"/api/torneos/{tid}/rondas", headers=h).status_code == 201:
        jugar_ronda(c, h, tid, rng)
    datos = c.get(f"/api/torneos/{tid}", headers=h).json()
    assert datos["terminado"]
    primera = next(p for p in datos["partidas"] if p["ronda"] == 1 and p["parejas"][1])
    corregida = {"ganador": primera["ganador"], "juegos": [1, 0] if primera["ganador"] == 0 else [0, 1]}
    r = c.post(
        f"/api/torneos/{tid}/partidas/{primera['id']}/correccion",
        headers=h,
        json=corregida | {"motivo": "acta firmada por las dos parejas al terminar"},
    )
    assert r.status_code == 201, r.text
    grande = c.post("/api/torneos", headers=h, json=body | {"nombre": "Open de 14 mesas", "mesas": 14}).json()["id"]
    codigos = [m["codigo"] for m in c.get(f"/api/torneos/{grande}", headers=h).json()["mesas"]]
    srv.engine.dispose()
    server = Server(url)
    server.start()
    try:
        yield server.base, tid, grande, codigos
    finally:
        server.stop()


def _pulsar(d: Any, boton_id: str) -> None:
    """Press a form's button and wait for the next page to replace this one."""
    from selenium.webdriver.support.ui import WebDriverWait

    boton = d.find_element("id", boton_id)
    boton.click()
    WebDriverWait(d, 20).until(reemplazada(boton))


def _entrar(d: Any, base: str) -> None:
    d.get(f"{base}/entrar")
    d.find_element("id", "usuario").send_keys("org")
    d.find_element("id", "clave").send_keys(CLAVE)
    _pulsar(d, "entrar")


# every element that is wider than its box and would scroll sideways (a table in an
# overflow-x box included), and the page's own overflow
DESBORDES = """
const out = [];
const ancho = document.documentElement.clientWidth;
if (document.documentElement.scrollWidth > ancho) out.push('page ' + document.documentElement.scrollWidth);
for (const el of document.querySelectorAll('body *')) {
  const r = el.getBoundingClientRect();
  if (r.width === 0 && r.height === 0) continue;
  if (el.scrollWidth > el.clientWidth + 1 && getComputedStyle(el).overflowX !== 'visible')
    out.push(el.tagName + '.' + el.className + ' scrolls ' + el.scrollWidth + '>' + el.clientWidth);
  if (r.right > ancho + 1) out.push(el.tagName + '.' + el.className + ' ends at ' + Math.round(r.right));
}
return out;
"""


def test_every_organiser_page_is_usable_at_390_px_with_the_winner_on_screen(terminado: tuple[Any, ...]):
    base, tid, _grande, _codigos = terminado
    fotos = capturas()
    with navegador(telefono=True) as d:
        _entrar(d, base)
        ancho = d.execute_script("return document.documentElement.clientWidth")
        assert ancho == 390
        for path, foto in (
            (f"/torneos/{tid}", "organizador_terminado_390.png"),
            (f"/torneos/{tid}/clasificacion", "clasificacion_terminado_390.png"),
            (f"/torneos/{tid}/incidencias", None),
            (f"/torneos/{tid}/miembros", None),
            (f"/torneos/{tid}/imprimir", None),
            ("/torneos", None),
            ("/cuenta", None),
        ):
            d.get(base + path)
            assert "/entrar" not in d.current_url and d.find_elements("css selector", "header h1"), path
            assert d.execute_script(DESBORDES) == [], path
            if foto:
                d.save_screenshot(str(fotos / foto))
        # the correction page, as reached from a match's link
        d.get(f"{base}/torneos/{tid}")
        d.get(d.find_element("css selector", "table.partidas a[href*='/corregir']").get_attribute("href"))
        assert d.find_elements("id", "corregir_boton") and d.execute_script(DESBORDES) == []
        d.get(f"{base}/torneos/{tid}")
        ganadores = d.find_elements("css selector", "table.partidas td.ganador")
        assert len(ganadores) >= 12  # 12 group matches and the knockout's, all finished
        for celda in ganadores + d.find_elements(
            "css selector", "table.partidas td.juegos, table.partidas td.marcador"
        ):
            d.execute_script("arguments[0].scrollIntoView({block: 'center'})", celda)
            r = celda.rect
            assert celda.is_displayed() and r["x"] >= 0 and r["x"] + r["width"] <= 390, r
            assert re.search(r"\S", celda.text), "an empty cell of a finished match"
        # a card names its values: "Ganador: <pareja>" as the phone shows it
        etiqueta = d.execute_script("return getComputedStyle(arguments[0], '::before').content", ganadores[0])
        assert "Ganador" in etiqueta
        d.execute_script("arguments[0].scrollIntoView({block: 'center'})", ganadores[0])
        d.save_screenshot(str(fotos / "partidas_tarjetas_390.png"))
        campeon = d.find_element("id", "campeon")
        assert campeon.is_displayed() and campeon.rect["x"] + campeon.rect["width"] <= 390
        # a referee added and removed on the members page, by touch, as an organiser does it on the day
        d.get(f"{base}/torneos/{tid}/miembros")
        d.find_element("id", "miembro_usuario").send_keys("juez_sala")
        d.find_element("id", "miembro_clave").send_keys("arbitra-bien-7")
        _pulsar(d, "miembro_boton")
        assert "juez_sala" in d.find_element("css selector", "table.miembros").text
        assert d.execute_script(DESBORDES) == []
        d.save_screenshot(str(fotos / "miembros_390.png"))
        _pulsar(d, "baja-juez_sala")
        assert "juez_sala" not in d.find_element("css selector", "table.miembros").text


def _pdfinfo(pdf: Path) -> dict[str, str]:
    out = subprocess.run(["pdfinfo", str(pdf)], check=True, capture_output=True, text=True).stdout
    return {k.strip(): v.strip() for k, _, v in (line.partition(":") for line in out.splitlines())}


def _imprimir(d: Any, base: str, tid: int, fichero: Path) -> dict[str, str]:
    """The print view printed by Chromium as its --print-to-pdf does (in this logged-in
    browser): the page's own @page size and margins, no header or footer; pdfinfo's fields."""
    d.get(f"{base}/torneos/{tid}/imprimir")
    d.execute_script("return Promise.all([...document.images].map(i => i.decode()))")  # the QR codes drawn
    opciones = {"preferCSSPageSize": True, "displayHeaderFooter": False}
    fichero.write_bytes(base64.b64decode(d.execute_cdp_cmd("Page.printToPDF", opciones)["data"]))
    out = subprocess.run(["pdfinfo", str(fichero)], check=True, capture_output=True, text=True).stdout
    info = {k.strip(): v.strip() for k, _, v in (line.partition(":") for line in out.splitlines())}
    assert tuple(round(float(x)) for x in re.findall(r"[\d.]+", info["Page size"])[:2]) == A4_PUNTOS, info
    return info


def _texto(fichero: Path, pagina: int) -> str:
    args = ["pdftotext", "-f", str(pagina), "-l", str(pagina), "-layout", str(fichero), "-"]
    return subprocess.run(args, check=True, capture_output=True, text=True).stdout


def test_the_print_view_prints_on_a4_one_part_a_sheet_and_no_card_cut(terminado: tuple[Any, ...]):
    if not (shutil.which("pdfinfo") and shutil.which("pdftotext") and shutil.which("pdftoppm")):
        pytest.skip("falta poppler-utils (apt-get install poppler-utils)")
    base, tid, grande, codigos = terminado
    fotos = capturas()
    with navegador(telefono=False) as d:
        _entrar(d, base)
        terminado_pdf, grande_pdf = fotos / "imprimir.pdf", fotos / "imprimir_14_mesas.pdf"
        info = _imprimir(d, base, tid, terminado_pdf)
        info_grande = _imprimir(d, base, grande, grande_pdf)
    # the finished tournament: the final's table, the four cards, the bracket, the standings
    assert int(info["Pages"]) == 4, info["Pages"]
    for pagina, esperado in ((1, "Parejas por mesa"), (2, "Tarjetas de mesa"), (3, "Cuadro"), (4, "Campeón")):
        assert esperado in _texto(terminado_pdf, pagina), pagina
    assert "Mi cuenta" not in _texto(terminado_pdf, 1) and "Salir" not in _texto(terminado_pdf, 1)  # no screen links
    # 14 cards, six to a sheet: three sheets of cards between the round's and the standings'
    paginas = int(info_grande["Pages"])
    assert paginas == 5, paginas
    textos = [_texto(grande_pdf, n) for n in range(1, paginas + 1)]
    assert all(t.strip() for t in textos)  # no blank sheet
    # each card whole: its number and its code (printed letter-spaced) together on one sheet
    etiquetas = [{int(n) for n in re.findall(r"Mesa (\d+)", t)} for t in textos]
    seguidos = [re.sub(r"\s+", "", t) for t in textos]
    for numero, codigo in enumerate(codigos, start=1):
        (hoja,) = [i for i in range(1, 4) if numero in etiquetas[i]]
        assert codigo in seguidos[hoja], (numero, hoja)
    for pdf, pagina, nombre in ((terminado_pdf, 2, "imprimir_tarjetas"), (grande_pdf, 3, "imprimir_14_mesas")):
        subprocess.run(
            ["pdftoppm", "-png", "-r", "50", "-f", str(pagina), "-l", str(pagina), str(pdf), str(fotos / nombre)],
            check=True,
        )


@pytest.fixture(scope="module")
def grandes(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[str, list[dict[str, Any]]]]:
    """A server with four larger tournaments: leagues of 16 and 32 parejas two rounds in, and
    groups then a knockout of 16 (4 groups) and 32 parejas (8 groups) played to the champion;
    yields its address and each tournament's summary."""
    url = f"sqlite:///{tmp_path_factory.mktemp('grandes') / 't.sqlite3'}"
    srv, c, h = _servidor(url)
    datos = []
    for n, formato, rondas in (
        (16, {"tipo": "liga", "juegos": 1}, 2),
        (32, {"tipo": "liga", "juegos": 1}, 2),
        (16, {"tipo": "grupos", "grupos": 4, "clasifican": 2, "juegos": 1}, 99),
        (32, {"tipo": "grupos", "grupos": 8, "clasifican": 2, "juegos": 1}, 99),
    ):
        body = {
            "nombre": f"Txapelketa de Otoño 2026 ({n} parejas)",
            "mesas": n // 2,
            "formato": formato,
            "parejas": [
                {"nombre": f"{PAREJAS_DE_CLUB[i % 8]} {i + 1}", "jugadores": [f"Ana {i}", f"Luis {i}"]}
                for i in range(n)
            ],
        }
        tid = c.post("/api/torneos", headers=h, json=body).json()["id"]
        rng = random.Random(n)
        for _ in range(rondas):
            if c.post(f"/api/torneos/{tid}/rondas", headers=h).status_code != 201:
                break
            jugar_ronda(c, h, tid, rng)
        datos.append(c.get(f"/api/torneos/{tid}", headers=h).json())
    assert [d["terminado"] for d in datos] == [False, False, True, True]
    srv.engine.dispose()
    server = Server(url)
    server.start()
    try:
        yield server.base, datos
    finally:
        server.stop()


# what the projector shows now that is off its 1920x1080 screen or under its QR (every element
# but the QR; the overlap counted for the elements holding text), and the page's own overflow
FUERA_DEL_PROYECTOR = """
const W = document.documentElement.clientWidth, H = document.documentElement.clientHeight;
const e = document.documentElement, q = document.getElementById('qr').getBoundingClientRect();
const out = [];
if (e.scrollWidth > W || e.scrollHeight > H) out.push('page ' + e.scrollWidth + 'x' + e.scrollHeight);
for (const el of document.querySelectorAll('body *')) {
  if (el.id === 'qr' || el.tagName === 'SCRIPT') continue;
  const r = el.getBoundingClientRect();
  if (r.width === 0 || r.height === 0) continue;
  const nombre = el.tagName + ' ' + el.textContent.trim().slice(0, 40);
  if (r.left < -1 || r.top < -1 || r.right > W + 1 || r.bottom > H + 1)
    out.push(nombre + ' off screen at ' + Math.round(r.right) + ',' + Math.round(r.bottom));
  else if (el.children.length === 0 && r.right > q.left && r.left < q.right && r.bottom > q.top && r.top < q.bottom)
    out.push(nombre + ' under the QR');
}
return out;
"""


def _visibles(d: Any, selector: str) -> list[str]:
    return [el.text for el in d.find_elements("css selector", selector) if el.is_displayed()]


def test_the_projector_fits_16_and_32_parejas_a_screenful_at_a_time_and_shows_them_all(grandes: tuple[Any, ...]):
    from selenium.webdriver.support.ui import WebDriverWait

    from server.rutas.vistas import ROTACION

    base, datos = grandes
    fotos = capturas()
    with navegador(telefono=False) as d:
        pantalla = {"width": 1920, "height": 1080, "deviceScaleFactor": 1, "mobile": False}
        d.execute_cdp_cmd("Emulation.setDeviceMetricsOverride", pantalla)
        for t in datos:
            n, tipo = len(t["parejas"]), t["formato"]["tipo"]
            d.get(f"{base}/publico/{t['id']}/{t['firma']}?vista=proyector")
            pantallas = int(d.execute_script("return document.body.dataset.pantallas"))
            assert 1 <= pantallas <= 4, (n, tipo, pantallas)
            nombres: list[str] = []
            mesas: list[str] = []
            cuadro: list[str] = []
            for i in range(pantallas):
                d.execute_script("mostrarPantalla(arguments[0])", i)
                assert d.execute_script(FUERA_DEL_PROYECTOR) == [], (n, tipo, i)
                size = d.execute_script("return parseFloat(getComputedStyle(document.querySelector('td')).fontSize)")
                assert size >= 20  # large type, read from the back of the room
                nombres += _visibles(d, "table.clasificacion td:nth-child(2)")
                mesas += _visibles(d, "table.ronda td:first-child")
                cuadro += _visibles(d, ".fase p")
                d.save_screenshot(str(fotos / f"proyector_{n}_{tipo}_{i + 1}.png"))
            # every pareja's standing, every table of the round and every knockout match, once
            assert sorted(nombres) == sorted(p["nombre"] for p in t["parejas"]), (n, tipo)
            ultima = t["rondas"][-1]["numero"]
            ronda = [p for p in t["partidas"] if p["ronda"] == ultima]
            assert sorted(mesas) == sorted(str(p["mesa"] or "") for p in ronda), (n, tipo)
            fases = {r["numero"] for r in t["rondas"] if r["fase"] == "eliminatoria"}
            assert len(cuadro) == sum(p["ronda"] in fases for p in t["partidas"]), (n, tipo)
        # the page turns by itself
        assert pantallas > 1
        d.execute_script("mostrarPantalla(0)")
        otra = "return document.body.dataset.pantalla !== '0'"
        WebDriverWait(d, ROTACION + 10).until(lambda d: d.execute_script(otra))
        # and after the last screenful it loads itself again, with the results of the moment
        d.execute_script("window.sinRecargar = true")
        recargada = "return window.sinRecargar === undefined && document.body.dataset.pantalla === '0'"
        WebDriverWait(d, ROTACION + 10).until(lambda d: d.execute_script(recargada))
    with navegador(telefono=True) as d:
        for t in datos:
            n, tipo = len(t["parejas"]), t["formato"]["tipo"]
            d.get(f"{base}/publico/{t['id']}/{t['firma']}")
            assert d.execute_script(DESBORDES) == [], (n, tipo)
            nombres = _visibles(d, "table.clasificacion td:nth-child(2)")
            assert sorted(nombres) == sorted(p["nombre"] for p in t["parejas"]), (n, tipo)
            d.save_screenshot(str(fotos / f"publico_{n}_{tipo}_390.png"))


def test_the_round_clock_and_a_call_to_the_referee_fit_a_phone_and_the_projector(terminado: tuple[Any, ...]):
    """A Swiss tournament in its first round with the clock running and a table calling the
    referee: the organiser's page at 390 px shows the badge, the call and the countdown with
    nothing sideways; the projector shows the countdown, large, inside the screen."""
    import httpx

    base, _tid, _grande, _codigos = terminado
    fotos = capturas()
    with httpx.Client(base_url=base) as c:
        h = {
            "Authorization": "Bearer " + c.post("/api/sesion", json={"usuario": "org", "clave": CLAVE}).json()["token"]
        }
        body = {
            "nombre": "Suizo con reloj",
            "mesas": 4,
            "formato": {"tipo": "suizo", "rondas": 3, "juegos": 1},
            "parejas": [{"nombre": n, "jugadores": [f"Ana {i}", f"Luis {i}"]} for i, n in enumerate(NOMBRES)],
        }
        tid = c.post("/api/torneos", headers=h, json=body).json()["id"]
        assert c.post(f"/api/torneos/{tid}/rondas", headers=h).status_code == 201
        r = c.post(f"/api/torneos/{tid}/reloj", headers=h, json={"accion": "inicio", "minutos": 50})
        assert r.status_code in (200, 201), r.text
        codigo = c.get(f"/api/torneos/{tid}", headers=h).json()["mesas"][0]["codigo"]
        mesa = {"Authorization": "Bearer " + c.post("/api/mesas/unirse", json={"codigo": codigo}).json()["token"]}
        assert c.post("/api/mesa/llamar", headers=mesa, json={}).status_code == 201
        firma = c.get(f"/api/torneos/{tid}", headers=h).json().get("firma")
    with navegador(telefono=True) as d:
        _entrar(d, base)
        d.get(f"{base}/torneos/{tid}")
        assert d.execute_script(DESBORDES) == []
        insignia = d.find_element("id", "llamadas_n")
        assert insignia.is_displayed() and insignia.text == "1"
        assert "1" in d.find_element("css selector", "ul.llamadas").text
        cuenta = d.find_element("css selector", "#reloj .cuenta")
        assert re.fullmatch(r"\d+:\d\d", cuenta.text) and int(cuenta.text.split(":")[0]) in (48, 49, 50)
        d.execute_script("arguments[0].scrollIntoView({block: 'center'})", cuenta)
        assert cuenta.rect["x"] + cuenta.rect["width"] <= 390
        d.save_screenshot(str(fotos / "reloj_y_llamada_390.png"))
        publico = firma and f"{base}/publico/{tid}/{firma}"
        if not publico:
            publico = d.find_element("css selector", "a[href*='/publico/']").get_attribute("href").split("?")[0]
    with navegador(telefono=False) as d:
        pantalla = {"width": 1920, "height": 1080, "deviceScaleFactor": 1, "mobile": False}
        d.execute_cdp_cmd("Emulation.setDeviceMetricsOverride", pantalla)
        d.get(f"{publico}?vista=proyector")
        from selenium.webdriver.support.ui import WebDriverWait

        reloj = d.find_element("id", "reloj_publico")
        WebDriverWait(d, 20).until(lambda _d: reloj.is_displayed() and ":" in reloj.text)
        assert d.execute_script(FUERA_DEL_PROYECTOR) == []
        r = reloj.rect
        assert r["x"] >= 0 and r["x"] + r["width"] <= 1920 and r["y"] >= 0 and r["y"] + r["height"] <= 1080
        size = d.execute_script("return parseFloat(getComputedStyle(arguments[0]).fontSize)", reloj)
        assert size >= 20
        d.save_screenshot(str(fotos / "reloj_proyector.png"))
