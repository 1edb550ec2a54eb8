"""A card has one name on every screen, in the player's language (mesa.cartas: the pages' filter
and table, the hand page's grid, the tablet's chips); a count is said with the word in the right
number (ngettext: "1 piedra", "1 vaca", "Solo Ana y Carlos tienen"); the downloads name their
files and say how a hand was entered; the partida's QR code fills its box."""

from __future__ import annotations

import json
import re
import uuid
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from mesa import cartas
from mesa.partida import resumen_reglas
from scoring.cards import DECK, Card
from scoring.rules import perfil

pytest.importorskip("fastapi")
from fastapi.testclient import TestClient

from server.main import crear_app
from server.rutas.paginas import qr_svg

JUGADORES = ["Ana", "Bea", "Carlos", "Dani"]
CARTAS = ["12o 12c 11e 1b", "3o 3c 3e 7b", "4o 5c 6e 7o", "1o 2c 1e 4b"]


@pytest.fixture
def client(tmp_path: Path) -> Iterator[TestClient]:
    app = crear_app(f"sqlite:///{tmp_path / 'nombres.sqlite3'}")
    yield TestClient(app)
    app.state.servidor.engine.dispose()


def nueva(client: TestClient) -> str:
    r = client.post("/api/partidas", json={"jugadores": JUGADORES, "reglas": "segovia"})
    assert r.status_code == 201, r.text
    return str(r.json()["clave"])


# -- card names -----------------------------------------------------------------------------------


def test_spanish_card_names_are_the_rules_engines() -> None:
    assert [cartas.nombre_carta(c) for c in DECK] == [c.name for c in DECK]
    assert cartas.nombre_carta("10b") == cartas.nombre_carta(Card(10, "b")) == "sota de bastos"


@pytest.mark.parametrize("idioma", ["eu", "en"])
def test_every_card_has_its_own_name_in_each_language(idioma: str) -> None:
    nombres = [cartas.nombre_carta(c, idioma) for c in DECK]
    assert len(set(nombres)) == 40  # no two cards alike
    assert not set(nombres) & {c.name for c in DECK}  # none left in Spanish
    assert len({cartas.corta(c, idioma) for c in DECK if c.rank >= 10}) == 3  # sota, caballo, rey apart
    assert {cartas.nombre_palo(s, idioma) for s in "ocbe"}.isdisjoint({"oros", "copas", "espadas", "bastos"})


def test_the_english_deck_names_one_suit_one_way() -> None:
    # the deck page said "coins" and the hand page "Oros": both read mesa.cartas now
    assert cartas.nombre_palo("o", "en") == "coins" and cartas.nombre_carta("1o", "en") == "ace of coins"
    assert cartas.tabla("en")["12b"] == {"nombre": "king of clubs", "corta": "K", "palo": "clubs"}


@pytest.mark.parametrize("idioma", ["es", "eu", "en"])
def test_every_page_loads_the_card_names_of_its_language(client: TestClient, idioma: str) -> None:
    clave = nueva(client)
    for ruta in ("/", f"/p/{clave}", f"/p/{clave}/mano", "/p/no-existe-esta-partida-x"):
        html = client.get(f"{ruta}?lang={idioma}").text
        assert f'<script src="/cartas.js?lang={idioma}"></script>' in html, ruta
    js = client.get(f"/cartas.js?lang={idioma}")
    assert js.status_code == 200 and js.headers["content-type"].startswith("text/javascript")
    tabla = re.search(r"\}\)\((\{.*\})\);\s*$", js.text, re.S)
    assert tabla and json.loads(tabla.group(1)) == cartas.tabla(idioma)


def test_the_hand_pages_grid_names_cards_as_the_other_screens(client: TestClient) -> None:
    clave = nueva(client)
    html = client.get(f"/p/{clave}/mano?lang=en").text
    boton = re.search(r'<button[^>]*id="carta-11e"[^>]*>([^<]*)</button>', html)
    assert boton and boton.group(1) == cartas.corta("11e", "en") == "Kn"
    titulos = re.findall(r'<div class="palo palo-\w"><h3>([^<]*)</h3>', html)
    assert titulos == ["Coins", "Cups", "Swords", "Clubs"]


def test_the_pages_filters_name_a_card() -> None:
    from server.rutas.paginas import PLANTILLAS

    plantilla = PLANTILLAS.from_string("{{ '11e'|carta }} · {{ '12o'|carta_corta }} · {{ 'b'|palo }}")
    assert plantilla.render(lang="eu") == "zaldi (ezpatak) · E · bastoak"
    assert plantilla.render(lang="es") == "caballo de espadas · R · bastos"


def test_the_tablets_card_chip_names_the_card_in_the_apps_language() -> None:
    pytest.importorskip("kivy")
    from app.screens.widgets import card_label

    assert card_label("11e", "en") == "Kn\n[size=15sp]swords[/size]"
    assert card_label("12o", "es") == "R\n[size=15sp]oros[/size]"
    assert cartas.nombre_carta("7c", "eu") == "zazpiko (kopak)"


# -- counts ---------------------------------------------------------------------------------------


def test_a_profile_with_one_vaca_says_vaca() -> None:
    assert resumen_reglas(perfil("segovia")) == "8 reyes · 40 tantos · 4 juegos · 1 vaca"
    assert resumen_reglas(perfil("segovia"), "en") == "8 kings · 40 points · 4 games · 1 vaca"


def test_the_new_partida_page_says_1_vaca(client: TestClient) -> None:
    html = client.get("/nueva").text
    assert "1 vaca" in html and "1 vacas" not in html


def test_the_marcador_says_1_piedra_and_1_amarraco(client: TestClient) -> None:
    clave = nueva(client)
    # 3 and 6 tantos: 3 piedras, and 1 amarraco and 1 piedra
    body = {"id_mano": "mano-uno-1", "n": 1, "cartas": CARTAS, "lances": {}}
    r = client.post(f"/api/partidas/{clave}/manos", json=body)
    assert r.status_code == 201, r.text
    parejas = r.json()["marcador"]["parejas"]
    k = next(i for i, p in enumerate(parejas) if p["amarracos"] == 1 and p["piedras"] == 1)
    for idioma, amarraco, piedra in (("es", "amarraco", "piedra"), ("en", "amarraco", "stone")):
        html = client.get(f"/p/{clave}/parte?lang={idioma}").text
        linea = re.search(rf'<span id="amarracos-{k}">1</span> (\w+) · <span id="piedras-{k}">1</span> (\w+)', html)
        assert linea and linea.groups() == (amarraco, piedra), idioma


def test_a_tournament_tables_page_counts_one_hand_as_one() -> None:
    from mesa.i18n import t, tn
    from server.rutas.paginas import PLANTILLAS

    pareja = {"nombre": "Ana y Carlos", "tantos": 6, "amarracos": 1, "piedras": 1, "juegos": 0, "vacas": 0}
    m = {"manos": 1, "terminada": False, "parejas": [pareja, pareja], "juegos_por_vaca": 3, "vacas_por_partida": 1}
    m |= {"numero_mano": 2, "mano_nombre": "Bea", "reglas": "segovia", "tantos_juego": 40, "ultimas": []}
    casos = ((1, "es", "1 mano sin enviar", "mano guardada"), (2, "en", "2 hands not sent", "hand stored"))
    for pendientes, idioma, envio, manos in casos:
        e = {"parejas": ["A", "B"], "marcador_servidor": {"tantos": [6, 6], "juegos": [0, 0], "manos": 1}}
        e |= {"conexion": True, "pendientes": pendientes, "rechazadas": [], "correcciones": []}
        html = PLANTILLAS.get_template("mesa_estado.html").render(
            t=lambda x, i=idioma: t(x, i), tn=lambda a, b, n, i=idioma: tn(a, b, n, i), lang=idioma, e=e, m=m, clave="x"
        )
        assert f'data-pendientes="{pendientes}">{envio}</p>' in html
        assert f'<span id="servidor_manos">1</span> {manos}</p>' in html


def test_a_pareja_agrees_with_its_verb() -> None:
    from mesa.mano import _motivo

    assert _motivo("juego", (True, False), ("Iñaki y Josu", "Ana y Bea")) == ("Solo {0} tienen juego", "Iñaki y Josu")
    assert _motivo("pares", (False, True), ("Iñaki y Josu", "Ana y Bea")) == ("Solo {0} tienen pares", "Ana y Bea")


# -- the downloads and the QR code --------------------------------------------------------------------


def test_the_json_download_has_a_file_name(client: TestClient) -> None:
    clave = nueva(client)
    r = client.get(f"/api/partidas/{clave}/exportar.json")
    assert r.status_code == 200 and r.json() == []
    assert r.headers["content-disposition"] == f'attachment; filename="partida-{clave[:8]}.json"'
    assert client.get(f"/api/partidas/{clave}/exportar.csv").headers["content-disposition"].endswith('.csv"')


def test_a_hand_read_seat_by_seat_is_exported_as_such(client: TestClient) -> None:
    clave = nueva(client)
    foto = {"cartas": [{"carta": c} for c in CARTAS[0].split()]}
    casos = (([foto, foto, foto, foto], "camara"), ([], "camara"), ([], "manual"))  # seats, one photo, by hand
    for n, (fotos, origen) in enumerate(casos, 1):
        id_mano = f"mano-{n}-{uuid.uuid4().hex[:6]}"
        datos = {"id_mano": id_mano, "n": n, "cartas": CARTAS, "fotos_asiento": fotos}
        assert client.put(f"/api/partidas/{clave}/borrador", json={"datos": datos}).status_code == 200
        body = {"id_mano": id_mano, "n": n, "cartas": CARTAS, "lances": {}, "origen": origen}
        assert client.post(f"/api/partidas/{clave}/manos", json=body).status_code == 201
    filas = client.get(f"/api/partidas/{clave}/exportar.csv").text.strip().splitlines()
    assert [f.rsplit(",", 1)[1] for f in filas] == ["origen", "asientos", "camara", "manual"]


def test_the_qr_code_scales_to_its_box() -> None:
    svg = qr_svg("http://192.168.1.5:8000/p/abcdefghijklmnop")
    etiqueta = svg.split(">", 1)[0]
    # a viewBox and no fixed size: drawn 148 px wide in a 260 px box, the code sat in its corner
    assert re.search(r'viewBox="0 0 \d+ \d+"', etiqueta) and "width=" not in etiqueta


# -- the messages and the reading name cards and count in the player's language --------------------

NOTACION = re.compile(r"\b(?:1[0-2]|[1-7])[oceb]\b")  # "11e": the API's notation, never a player's text


def _foto_asiento(ids: list[str]) -> Any:
    pytest.importorskip("numpy")
    from vision.detections import CardDetections

    return CardDetections.from_json({"cartas": [{"carta": c, "confianza": 0.9, "caja": [0, 0, 1, 1]} for c in ids]})


def test_a_seats_photo_of_one_card_says_one_card_by_its_name() -> None:
    from mesa.asientos import AsientoError, AsientoPorAsiento

    with pytest.raises(AsientoError) as e:
        AsientoPorAsiento(JUGADORES).poner(_foto_asiento(["11e"]))
    aviso = e.value.aviso
    assert aviso.texto("es").startswith("Ana (asiento 1): se ve 1 carta (caballo de espadas); una mano son 4.")
    assert aviso.texto("en").startswith("Ana (seat 1): 1 card is seen (knight of swords); a hand is 4.")
    assert "zaldi (ezpatak)" in aviso.texto("eu")
    with pytest.raises(AsientoError) as e:
        AsientoPorAsiento(JUGADORES).poner(_foto_asiento(["11e", "1o", "12c"]))
    assert "3 cards are seen (knight of swords, ace of coins, king of cups)" in e.value.aviso.texto("en")
    assert all(not NOTACION.search(e.value.aviso.texto(i)) for i in ("es", "eu", "en"))


def test_a_card_already_in_another_hand_is_named_in_the_players_language() -> None:
    from mesa.asientos import AsientoError, AsientoPorAsiento

    sesion = AsientoPorAsiento(JUGADORES)
    sesion.poner(_foto_asiento(["11e", "1o", "12c", "7b"]))
    with pytest.raises(AsientoError) as e:
        sesion.poner(_foto_asiento(["11e", "2o", "3c", "4b"]))
    aviso = e.value.aviso
    assert "the card knight of swords is already in Ana's hand" in aviso.texto("en")
    assert "la carta caballo de espadas ya está en la mano de Ana" in aviso.texto("es")
    assert all(not NOTACION.search(aviso.texto(i)) for i in ("es", "eu", "en"))


def test_the_phone_gets_a_seats_refusal_worded_in_its_language() -> None:
    # server/servicios/lectura.py passed the Spanish template and its values to WebError: no plural, and the
    # card as notation; the page's error is now the Aviso worded in the request's language
    from mesa.asientos import AsientoError, AsientoPorAsiento
    from server.servicios.lectura import ErrorAviso

    with pytest.raises(AsientoError) as e:
        AsientoPorAsiento(JUGADORES).poner(_foto_asiento(["12o"]))
    err = ErrorAviso(e.value.aviso, 422, datos={"lectura": {}})
    assert err.estado == 422 and err.datos == {"lectura": {}}
    assert err.texto("en").startswith("Ana (seat 1): 1 card is seen (king of coins);")
    assert str(err).startswith("Ana (asiento 1): se ve 1 carta (rey de oros);")


def test_a_recovered_files_message_counts_hands_and_partidas_apart() -> None:
    from mesa.storage import MANOS_N, PARTIDAS_N, RECUPERADO, Aviso

    def aviso(manos: int, partidas: int) -> Aviso:
        return Aviso(
            RECUPERADO,
            datos={
                "fichero": "x.sqlite3",
                "manos": Aviso(MANOS_N[0], datos={"n": manos}, plural=MANOS_N[1], cuenta=manos),
                "partidas": Aviso(PARTIDAS_N[0], datos={"n": partidas}, plural=PARTIDAS_N[1], cuenta=partidas),
            },
        )

    assert aviso(1, 1).texto().endswith("se han recuperado 1 mano de 1 partida.")
    assert aviso(5, 1).texto("en").endswith("5 hands of 1 partida have been recovered.")
    assert aviso(1, 2).texto("en").endswith("1 hand of 2 partidas have been recovered.")


def _textos_foto(client: TestClient, idioma: str) -> dict[str, object]:
    html = client.get(f"/p/{nueva(client)}/mano?lang={idioma}").text
    bloque = re.search(r'<script type="application/json" id="foto_textos">(.*?)</script>', html, re.S)
    assert bloque
    return dict(json.loads(bloque.group(1)))


def test_the_readings_counts_have_both_forms_from_the_catalogue(client: TestClient) -> None:
    en = _textos_foto(client, "en")
    assert en["cartas"] == ["{n} card", "{n} cards"]
    assert [str(f).split(" (")[0] for f in en["dudosas"]] == ["{n} doubtful", "{n} doubtful"]  # type: ignore[attr-defined]
    assert en["quedan"] == [
        "{n} doubtful card left unchecked. Confirm the hand like this?",
        "{n} doubtful cards left unchecked. Confirm the hand like this?",
    ]
    es = _textos_foto(client, "es")
    assert [str(f).split(" (")[0] for f in es["dudosas"]] == ["{n} dudosa", "{n} dudosas"]  # type: ignore[attr-defined]
    assert es["quedan"][0].startswith("Queda {n} carta dudosa")  # type: ignore[index]
    js = (Path(__file__).resolve().parents[1] / "server" / "static" / "mano_foto.js").read_text(encoding="utf-8")
    assert '" " + T.cartas' not in js and "T.queda " not in js  # "1 cartas" built by hand


@pytest.mark.parametrize("script", ["mano_foto.js", "mano.js", "marcador.js"])
def test_the_phone_scripts_name_cards_through_the_pages_table(script: str) -> None:
    js = (Path(__file__).resolve().parents[1] / "server" / "static" / script).read_text(encoding="utf-8")
    assert "window.musCartas.nombre(" in js
    assert "function nombreCarta(id) { return id; }" not in js


def test_the_marcadors_download_links_name_the_files_as_the_server(client: TestClient) -> None:
    clave = nueva(client)
    html = client.get(f"/p/{clave}").text
    for ext in ("json", "csv"):
        enlace = re.search(rf'<a id="exportar_{ext}" href="([^"]+)" download="([^"]+)"', html)
        assert enlace, ext
        cabecera = client.get(enlace.group(1)).headers["content-disposition"]
        assert cabecera == f'attachment; filename="{enlace.group(2)}"', ext


def test_the_readings_correction_grid_names_cards_as_the_hand_grid(client: TestClient) -> None:
    html = client.get(f"/p/{nueva(client)}/mano?lang=en").text
    boton = re.search(r'<button[^>]*id="corregir-11e"[^>]*aria-label="([^"]*)"[^>]*>([^<]*)</button>', html)
    assert boton and boton.groups() == ("knight of swords", "Kn")
    assert re.findall(r'<h4 class="palo-corregir">([^<]*)</h4>', html) == ["Coins", "Cups", "Swords", "Clubs"]
