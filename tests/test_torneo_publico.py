"""The day's pages: the public read-only page of a tournament (no login, its link not guessable
from the id, no join codes, refreshing itself) in a phone layout and a projector layout, the
organiser's print view, the organiser pages at 390 px, and the JSON export that holds every hand.
Driven in Debian's headless Chromium at 390x844 and 1920x1080, screenshots saved."""

from __future__ import annotations

import random
import re
from pathlib import Path

import pytest

pytest.importorskip("fastapi")
from scoring.partida import Partida
from server.rutas.vistas import FRESCURA, publicas
from server.servidor import Servidor
from server.simulacion import MesaSimulada
from tests import test_torneo_api as base
from tests.cliente_web import ClienteWeb as TestClient
from tests.navegador import reemplazada
from tests.servidor_torneo import PAREJAS_DE_CLUB, hash_barato, postgres, torneo_en_marcha  # noqa: F401 (fixtures used by name)
from tests.test_torneo_api import organizador, torneo
from tests.test_torneo_integridad import jugar_ronda

srv, client, srv1, client1 = base.srv, base.client, base.srv1, base.client1


def test_the_public_page_shows_the_day_without_a_login_and_without_the_codes(srv1: Servidor, client1: TestClient):
    h = organizador(srv1, client1)
    tid = torneo(client1, h, parejas=4, mesas=2, juegos=1)
    otro = torneo(client1, h, parejas=2, mesas=1)
    client1.post(f"/api/torneos/{tid}/rondas", headers=h)
    jugar_ronda(client1, h, tid, random.Random(1))
    client1.post(f"/api/torneos/{tid}/rondas", headers=h)
    data = client1.get(f"/api/torneos/{tid}", headers=h).json()
    anon = TestClient(srv1.app)
    page = anon.get(f"/publico/{tid}/{data['firma']}")
    assert page.status_code == 200 and 'http-equiv="refresh"' in page.text
    assert all(p["nombre"] in page.text for p in data["parejas"]) and "Ronda 2" in page.text
    assert all(m["codigo"] not in page.text for m in data["mesas"])
    assert anon.get(f"/publico/{tid}/{'0' * 20}").status_code == 404
    assert anon.get(f"/publico/{otro}/{data['firma']}").status_code == 404  # one page's link opens no other
    assert anon.get(f"/publico/{tid}/{data['firma']}/qr.png").headers["content-type"] == "image/png"
    assert "proyector" in anon.get(f"/publico/{tid}/{data['firma']}?vista=proyector").text
    # the print view: the organiser's, with the table cards (their codes) and A4 pages
    assert anon.get(f"/torneos/{tid}/imprimir", follow_redirects=False).status_code == 303
    imprimir = client1.get(f"/torneos/{tid}/imprimir", headers=h)
    assert imprimir.status_code == 200 and "size: A4" in imprimir.text
    assert all(m["codigo"] in imprimir.text for m in data["mesas"])


def _publica(client: TestClient, url: str, etag: str | None = None) -> tuple[int, str, str]:
    r = client.get(url, headers={"If-None-Match": etag} if etag else {})
    return r.status_code, r.headers.get("etag", ""), r.text


def test_the_public_page_answers_304_to_its_etag_until_a_hand_changes_it(srv: Servidor, client: TestClient):
    """Spectators apart from the tables: the page is rendered once per change of the tournament
    (at most once every FRESCURA seconds, in a thread apart) and a browser that has it gets 304;
    a hand or a correction stored by another server process on the same database (a second
    Servidor: its own cache) gives a new page and a new ETag."""
    h = organizador(srv, client)
    tid = torneo(client, h, parejas=4, mesas=2, juegos=2)
    client.post(f"/api/torneos/{tid}/rondas", headers=h)
    url = f"/publico/{tid}/{client.get(f'/api/torneos/{tid}', headers=h).json()['firma']}"
    anon = TestClient(srv.app)
    reloj = [1000.0]
    publicas(srv).reloj = lambda: reloj[0]
    estado, etag, html = _publica(anon, url)
    assert estado == 200 and etag.startswith('"') and "P0" in html
    assert _publica(anon, url, etag)[:2] == (304, etag)
    assert _publica(anon, url, f'W/{etag}, "otra"')[0] == 304  # as browsers send it
    assert _publica(anon, url + "?vista=proyector", etag)[0] == 200  # another layout, another page
    assert _publica(anon, url + "?lang=en", etag)[0] == 200  # another language too

    otro = Servidor(str(srv.engine.url.render_as_string(hide_password=False)))  # another process's view
    try:
        escritor = TestClient(otro.app)
        codigo = next(m["codigo"] for m in escritor.get(f"/api/torneos/{tid}", headers=h).json()["mesas"])
        mesa = MesaSimulada.unirse(escritor, codigo, 7)
        mesa.jugar()
        assert mesa.enviar(escritor) == 1
        assert _publica(anon, url, etag)[0] == 304  # served as it is for a few seconds
        reloj[0] += FRESCURA
        assert _publica(anon, url, etag)[0] == 304  # then rendered again apart, the old page meanwhile
        publicas(srv).esperar()
        estado, nuevo, html = _publica(anon, url, etag)
        assert estado == 200 and nuevo != etag  # the hand is on the page
        assert f"{mesa.partida.tantos[0]}-{mesa.partida.tantos[1]}" in html
        assert _publica(anon, url, nuevo)[0] == 304
        etag = nuevo
        partida = next(p for p in escritor.get(f"/api/torneos/{tid}", headers=h).json()["partidas"])
        body = {"ganador": 1, "juegos": [0, 2], "motivo": "acta de la mesa"}
        r = escritor.post(f"/api/torneos/{tid}/partidas/{partida['id']}/correccion", headers=h, json=body)
        assert r.status_code == 201, r.text
        reloj[0] += FRESCURA
        _publica(anon, url, etag)
        publicas(srv).esperar()
        estado, nuevo, html = _publica(anon, url, etag)
        assert estado == 200 and nuevo != etag and "0-2" in html
    finally:
        otro.engine.dispose()


def test_the_json_export_holds_every_hand_and_rebuilds_the_standings(srv1: Servidor, client1: TestClient):
    h = organizador(srv1, client1)
    tid = torneo(client1, h, parejas=4, mesas=2, juegos=1)
    client1.post(f"/api/torneos/{tid}/rondas", headers=h)
    mesas = jugar_ronda(client1, h, tid, random.Random(2))
    export = client1.get(f"/api/torneos/{tid}/exportar.json", headers=h).json()
    assert sorted(m["id"] for m in export["manos"]) == sorted(i for m in mesas for i in m.enviadas)
    # rebuilt from the export alone: each match replayed with scoring/ gives the standings' tantos
    tantos: dict[str, int] = {}
    for p in export["partidas"]:
        partida = Partida(export["reglas"], p["jugadores"])
        for m in sorted(
            (m for m in export["manos"] if m["partida"] == p["id"] and not m["anulada"]), key=lambda m: m["numero"]
        ):
            r = m["registro"]
            partida.registrar(r["manos"], r.get("lances"), r.get("mano"), r.get("declaraciones"))
        for lado in (0, 1):
            tantos[p["parejas"][lado]] = sum(h.marcador[lado] - h.registro.marcador[lado] for h in partida.historial)
    filas = export["clasificacion"][0]["filas"]
    assert {f["nombre"]: f["tantos_favor"] for f in filas} == tantos


def _ancho_y_alto(d: object) -> tuple[int, int]:
    return d.execute_script(  # type: ignore[attr-defined]
        "const e = document.documentElement; return [e.scrollWidth - e.clientWidth, e.scrollHeight - e.clientHeight]"
    )


def test_public_page_and_organiser_pages_in_chromium_at_phone_and_projector_size(tmp_path: Path):
    pytest.importorskip("selenium")
    from selenium.webdriver.support.ui import WebDriverWait

    from tests.navegador import capturas, navegador

    fotos = capturas()
    # long names, as a club writes them: they wrap at 390 px instead of widening the page
    with torneo_en_marcha(
        tmp_path, pareja="Los Reyes de la Calle Mayor de Abajo {i}", jugadores=("Ana María {i}", "Luis Fernando {i}")
    ) as (server, codes):
        import httpx

        with httpx.Client(base_url=server.base) as client:
            for i, c in enumerate(codes):
                m = MesaSimulada.unirse(client, c, semilla=i)
                for _ in range(4):
                    m.jugar()
                m.enviar(client)
            token = client.post("/api/sesion", json={"usuario": "ana", "clave": "una-clave-larga"}).json()["token"]
            data = client.get("/api/torneos/1", headers={"Authorization": f"Bearer {token}"}).json()
        assert len(data["parejas"]) == 4
        publico = f"{server.base}/publico/1/{data['firma']}"
        with navegador(telefono=True) as d:
            d.get(publico)
            assert _ancho_y_alto(d)[0] <= 0
            filas = d.find_elements("css selector", "table.clasificacion tr")
            assert len(filas) == 5
            d.save_screenshot(str(fotos / "publico_390.png"))
            # the organiser's pages at 390 px: nothing scrolls sideways
            d.get(f"{server.base}/entrar")
            d.find_element("id", "usuario").send_keys("ana")
            d.find_element("id", "clave").send_keys("una-clave-larga")
            boton = d.find_element("id", "entrar")
            boton.click()
            WebDriverWait(d, 20).until(reemplazada(boton))
            for path, foto in (
                ("/torneos/1", "organizador_390.png"),
                ("/torneos/1/clasificacion", None),
                ("/torneos/1/incidencias", None),
                ("/torneos", None),
            ):
                d.get(server.base + path)
                assert "/entrar" not in d.current_url and d.find_elements("css selector", "nav, ul, p"), path
                assert _ancho_y_alto(d)[0] <= 0, path
                if foto:
                    d.save_screenshot(str(fotos / foto))
                    # the matches' juegos and marcador are on screen, not behind a sideways scroll
                    for celda in d.find_elements("css selector", "table.partidas td.marcador, td.juegos"):
                        assert celda.rect["x"] + celda.rect["width"] <= 390, celda.rect
        with navegador(telefono=False) as d:
            d.execute_cdp_cmd(
                "Emulation.setDeviceMetricsOverride",
                {"width": 1920, "height": 1080, "deviceScaleFactor": 1, "mobile": False},
            )
            d.get(publico + "?vista=proyector")
            assert _ancho_y_alto(d) == [0, 0] or max(_ancho_y_alto(d)) <= 0  # fits 1920x1080 without scrolling
            size = d.execute_script("return parseFloat(getComputedStyle(document.querySelector('td')).fontSize)")
            assert size >= 20  # large type, read from the back of the room
            assert re.search(r"\d+-\d+", d.find_element("id", "ronda").text)
            d.save_screenshot(str(fotos / "publico_1920.png"))


def test_a_finished_groups_tournament_fits_the_projector_with_its_bracket_and_champion(tmp_path: Path):
    pytest.importorskip("selenium")
    from server.servicios import auth
    from tests.navegador import capturas, navegador
    from tests.servidor_torneo import Server

    url = f"sqlite:///{tmp_path / 't.sqlite3'}"
    srv = Servidor(url, limite_unirse=1000)
    with srv.sesion() as s:
        auth.crear_cuenta(s, "org", "secreto-largo-1", "organizador")
    c = TestClient(srv.app)
    h = {
        "Authorization": "Bearer "
        + c.post("/api/sesion", json={"usuario": "org", "clave": "secreto-largo-1"}).json()["token"]
    }
    nombres = PAREJAS_DE_CLUB
    body = {
        "nombre": "Txapelketa de Otoño 2026",
        "mesas": 4,
        "formato": {"tipo": "grupos", "grupos": 2, "clasifican": 2, "juegos": 1},
        "parejas": [{"nombre": n, "jugadores": [f"Ana {i}", f"Luis {i}"]} for i, n in enumerate(nombres)],
    }
    tid = c.post("/api/torneos", headers=h, json=body).json()["id"]
    rng = random.Random(3)
    while c.post(f"/api/torneos/{tid}/rondas", headers=h).status_code == 201:
        jugar_ronda(c, h, tid, rng)
    data = c.get(f"/api/torneos/{tid}", headers=h).json()
    srv.engine.dispose()
    server = Server(url)
    server.start()
    try:
        with navegador(telefono=False) as d:
            d.execute_cdp_cmd(
                "Emulation.setDeviceMetricsOverride",
                {"width": 1920, "height": 1080, "deviceScaleFactor": 1, "mobile": False},
            )
            d.get(f"{server.base}/publico/{tid}/{data['firma']}?vista=proyector")
            assert _ancho_y_alto(d) == [0, 0]
            assert d.find_element("id", "campeon").text.endswith(data["campeon"])
            assert len(d.find_elements("css selector", "#cuadro .fase")) == 2
            d.save_screenshot(str(capturas() / "publico_grupos_1920.png"))
        with navegador(telefono=True) as d:
            d.get(f"{server.base}/publico/{tid}/{data['firma']}")
            assert _ancho_y_alto(d)[0] <= 0
            d.save_screenshot(str(capturas() / "publico_grupos_390.png"))
    finally:
        server.stop()
