"""The phone pages without a browser (FastAPI's TestClient): each page renders with the ids
the browser tests use, in the player's language (switch and cookie), a new partida from the
form, and every error a page in that language, never raw JSON or a traceback."""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path

import pytest

pytest.importorskip("fastapi")
from scoring.cards import CARD_IDS
from server.limites import Limite
from server.main import crear_app
from tests.cliente_web import ClienteWeb as TestClient

JUGADORES = {"jugador0": "Ana", "jugador1": "Bea", "jugador2": "Carlos", "jugador3": "Dani"}


@pytest.fixture
def client(tmp_path: Path) -> Iterator[TestClient]:
    app = crear_app(f"sqlite:///{tmp_path / 'paginas.sqlite3'}")
    yield TestClient(app)
    app.state.servidor.engine.dispose()


def nueva(client: TestClient, **form: str) -> str:
    r = client.post("/nueva", data=JUGADORES | {"reglas": "segovia", "mano": "1"} | form, follow_redirects=False)
    assert r.status_code == 303, r.text
    return r.headers["location"].removeprefix("/p/")


def ids(html: str) -> set[str]:
    return set(re.findall(r'\bid="([^"]+)"', html))


def test_home_and_new_partida_form(client: TestClient):
    inicio = client.get("/")
    assert inicio.status_code == 200 and {"nueva_partida", "mesa_torneo", "abrir_enlace", "abrir"} <= ids(inicio.text)
    form = client.get("/nueva").text
    assert {
        "jugador0",
        "jugador3",
        "reglas_segovia",
        "reglas_propio",
        "toml",
        "mano",
        "juegos",
        "vacas",
        "crear",
    } <= ids(form)
    clave = nueva(client, juegos="2")
    assert (
        client.get(f"/abrir?enlace=http://192.168.1.5:8000/p/{clave}", follow_redirects=False).headers["location"]
        == f"/p/{clave}"
    )
    marcador = client.get(f"/p/{clave}").text
    assert {
        "tantos-0",
        "tantos-1",
        "amarracos-0",
        "piedras-1",
        "juegos-0",
        "numero_mano",
        "mano_nombre",
        "nueva_mano",
        "deshacer",
        "deshacer_si",
        "enlace",
        "qr",
        "exportar_json",
        "exportar_csv",
    } <= ids(marcador)
    assert 'id="mano_nombre">Bea<' in marcador and "/2" in marcador  # mano seat 1, two juegos a vaca
    assert "<svg" in marcador and f"/p/{clave}</a>" in marcador


def test_the_hand_page_has_every_card_and_lance_button(client: TestClient):
    clave = nueva(client)
    html = client.get(f"/p/{clave}/mano").text
    cartas = set(re.findall(r'data-carta="([^"]+)"', html))
    assert cartas == set(CARD_IDS) and len(cartas) == 40
    for lance in ("grande", "chica", "pares", "juego"):
        assert {
            f"lance-{lance}-paso",
            f"lance-{lance}-quiero",
            f"lance-{lance}-no_quiero",
            f"lance-{lance}-ordago",
            f"lance-{lance}-tantos-2",
            f"lance-{lance}-gana-1",
            f"lance-{lance}-nq-1",
        } <= ids(html)
    assert {"asiento-0", "asiento-3", "confirmar", "tabla_tanteo", "razones", "paso-tanteo"} <= ids(html)
    assert "</script><script>" not in html


def test_a_bad_form_comes_back_filled_with_the_reason_in_the_players_language(client: TestClient):
    r = client.post("/nueva?lang=en", data=JUGADORES | {"jugador3": "Ana", "reglas": "general", "mano": "0"})
    assert r.status_code == 422 and "text/html" in r.headers["content-type"]
    assert "the four names must differ" in r.text and 'value="Carlos"' in r.text
    client.cookies.clear()  # the language now from the browser alone
    r = client.post(
        "/nueva", data=JUGADORES | {"reglas": "propio", "toml": "reyes = 5"}, headers={"accept-language": "eu"}
    )
    assert r.status_code == 422 and "reyes debe ser 4 u 8" in r.text and 'lang="eu"' in r.text
    r = client.post("/nueva", data=JUGADORES | {"juegos": "99"})
    assert r.status_code == 422 and "escribe un número de 1 a 20" in r.text


def test_errors_are_pages_in_the_players_language(client: TestClient):
    for path, lang, texto in [
        ("/p/no-existe-esta-partida-x", "es", "no existe esa partida: revisa el enlace"),
        ("/p/no-existe-esta-partida-x/mano", "en", "there is no such partida: check the link"),
        ("/esto/no/existe", "eu", "orri hori ez dago"),
        ("/abrir?enlace=hola", "en", "that is not a partida&#39;s link"),
    ]:
        r = client.get(f"{path}{'&' if '?' in path else '?'}lang={lang}")
        assert r.status_code == 404 and "text/html" in r.headers["content-type"], path
        assert texto in r.text and "Traceback" not in r.text and '{"' not in r.text, path


def test_the_language_switch_is_kept_in_a_cookie(client: TestClient):
    r = client.get("/?lang=eu")
    assert 'lang="eu"' in r.text and r.cookies.get("lang") == "eu"
    assert 'lang="eu"' in client.get("/nueva").text  # the cookie, with no ?lang=
    assert 'lang="en"' in client.get("/nueva?lang=en").text
    assert "Mahaia zure telefonoan" in client.get("/?lang=eu").text


def test_a_refusal_before_the_pages_is_a_page_too(client: TestClient):
    """The tournament server's rate limit answers JSON; on a page the player sees a page."""
    client.app.state.servidor.limite_general = Limite("general", 1, 60.0)
    assert client.get("/?lang=en").status_code == 200
    r = client.get("/nueva?lang=en")
    assert r.status_code == 429 and "text/html" in r.headers["content-type"]
    assert "too many requests: wait a moment" in r.text and '{"' not in r.text
    api = client.get("/api/partidas/x")  # the API in the language the pages chose (their cookie)
    assert api.status_code == 429 and api.json() == {"error": "too many requests: wait a moment"}
