"""Names and input: players may share a name (a player is a seat), names are trimmed and refused
with a clear line for control and bidirectional characters, CSV cells cannot run as formulas,
ids out of range answer 404, and the HTML routes answer errors as pages in the reader's language."""

from __future__ import annotations

import csv
import io
import uuid

import pytest

pytest.importorskip("fastapi")
from scoring.partida import Partida
from server.servicios import auth
from server.servidor import Servidor, a_csv, celda
from tests import test_torneo_api as base
from tests.cliente_web import ClienteWeb as TestClient
from tests.servidor_torneo import hash_barato  # noqa: F401 (fixture used by name)
from tests.test_torneo_api import CLAVE, codigos, organizador

srv1, client1 = base.srv1, base.client1


def crear(client: TestClient, h: dict[str, str], parejas: list[tuple[str, list[str]]], **extra: object) -> object:
    body = {
        "nombre": "Club",
        "formato": {"juegos": 1},
        "mesas": 2,
        "parejas": [{"nombre": n, "jugadores": j} for n, j in parejas],
    } | extra
    return client.post("/api/torneos", headers=h, json=body)


def test_players_may_share_a_name_the_seat_is_who_they_are(srv1: Servidor, client1: TestClient):
    h = organizador(srv1, client1)
    r = crear(client1, h, [("Padre e hijo", ["Juan", "Juan"]), ("Primos", ["Juan", "Ana"])])
    tid = r.json()["id"]
    assert client1.post(f"/api/torneos/{tid}/rondas", headers=h).status_code == 201
    join = client1.post("/api/mesas/unirse", json={"codigo": codigos(client1, h, tid)[0]})
    assert join.status_code == 200, join.text
    jugadores = join.json()["partida"]["jugadores"]
    assert len(set(jugadores)) == 4 and all(j.startswith("Juan") for j in jugadores[:3])
    partida = Partida(join.json()["partida"]["reglas"], jugadores)
    manos = ["12o 12c 11e 1b", "3o 3c 3e 7b", "4o 5c 6e 7o", "1o 2c 1e 4b"]
    tanteo = list(partida.registrar(manos).marcador)
    body = {"id": uuid.uuid4().hex, "numero": 1, "registro": {"manos": manos}, "tanteo": tanteo}
    assert (
        client1.post(
            "/api/mesa/manos", json=body, headers={"Authorization": f"Bearer {join.json()['token']}"}
        ).status_code
        == 201
    )
    for path in (
        "/api/torneos/{t}",
        "/api/torneos/{t}/clasificacion",
        "/api/torneos/{t}/exportar.json",
        "/api/torneos/{t}/exportar.csv",
        "/torneos/{t}",
        "/torneos/{t}/clasificacion",
    ):
        assert client1.get(path.format(t=tid), headers=h).status_code == 200, path


@pytest.mark.parametrize(
    "nombre",
    ["Los \u202eseyeR", "Los\u2066Reyes\u2069", "Los\u200bReyes", "Los\x00Reyes", "Los\nReyes", "Los\tReyes", "   "],
)
def test_a_name_with_control_or_direction_characters_is_refused_with_a_clear_line(
    srv1: Servidor, client1: TestClient, nombre: str
):
    h = organizador(srv1, client1)
    r = crear(client1, h, [(nombre, ["Ana", "Luis"]), ("Otros", ["Eva", "Jon"])])
    assert r.status_code == 422
    error = r.json()["error"]
    assert "\n" not in error and ("pareja 1" in error or "campo" in error or "cuerpo" in error), error
    r = crear(client1, h, [("Otros", ["Eva", "Jon"]), ("Buenos", ["Ana", nombre])])
    assert r.status_code == 422


def test_names_are_trimmed_and_the_direction_refusal_is_translated(srv1: Servidor, client1: TestClient):
    h = organizador(srv1, client1)
    r = crear(client1, h, [("  Los   Reyes ", [" Ana ", "Luis"]), ("Otros", ["Eva", "Jon"])], nombre=" Open  ")
    t = client1.get(f"/api/torneos/{r.json()['id']}", headers=h).json()
    assert (t["nombre"], t["parejas"][0]["nombre"], t["parejas"][0]["jugadores"]) == (
        "Open",
        "Los Reyes",
        ["Ana", "Luis"],
    )
    assert crear(client1, h, [("Los Reyes", ["A", "B"]), ("los reyes", ["C", "D"])]).status_code == 422
    r = client1.post(
        "/api/torneos?lang=en",
        headers=h,
        json={
            "nombre": "Club",
            "mesas": 1,
            "parejas": [{"nombre": "A\u202eB", "jugadores": ["a", "b"]}, {"nombre": "C", "jugadores": ["c", "d"]}],
        },
    )
    assert r.json()["error"] == "pareja 1: the name has control or text-direction characters; write it without them"
    # the organiser's form says it on a page
    client1.post("/entrar", data={"usuario": "org", "clave": CLAVE})
    page = client1.post("/torneos", data={"nombre": "X", "parejas": "Uno\u202e: Ana, Luis\nDos: Eva, Jon"})
    assert page.status_code == 422 and "text/html" in page.headers["content-type"]
    assert "pareja 1: el nombre tiene caracteres de control" in page.text


def test_csv_cells_that_a_spreadsheet_would_run_are_neutralised(srv1: Servidor, client1: TestClient):
    for texto in ('=HYPERLINK("http://x","y")', "+1", "-1+2", "@SUM(A1)", "\tx", "\rx"):
        assert celda(texto) == "'" + texto
    assert (celda("Los Reyes"), celda(-3), celda(12)) == ("Los Reyes", -3, 12)
    h = organizador(srv1, client1)
    tid = crear(
        client1, h, [('=HYPERLINK("http://malo","clic")', ["@Ana", "-Luis"]), ("+Otros", ["Eva", "Jon"])]
    ).json()["id"]
    client1.post(f"/api/torneos/{tid}/rondas", headers=h)
    texto = client1.get(f"/api/torneos/{tid}/exportar.csv", headers=h).text
    (fila,) = list(csv.DictReader(io.StringIO(texto)))
    assert fila["pareja_0"] == '\'=HYPERLINK("http://malo","clic")' and fila["pareja_1"] == "'+Otros"
    data = client1.get(f"/api/torneos/{tid}/exportar.json", headers=h).json()
    assert all(
        not str(c).startswith(("=", "+", "-", "@"))
        for row in csv.reader(io.StringIO(a_csv(data)))
        for c in row
        if not str(c).lstrip("-").isdigit()
    )


def test_ids_out_of_range_answer_404(srv1: Servidor, client1: TestClient):
    h = organizador(srv1, client1)
    grande = 10**20
    for path in (
        f"/api/torneos/{grande}",
        f"/api/torneos/{2**63}/clasificacion",
        "/api/torneos/0",
        "/api/torneos/-1",
        "/api/torneos/abc",
    ):
        r = client1.get(path, headers=h)
        assert r.status_code == 404 and "error" in r.json(), (path, r.text)
    tid = crear(client1, h, [("A", ["a", "b"]), ("B", ["c", "d"])]).json()["id"]
    r = client1.post(
        f"/api/torneos/{tid}/partidas/{grande}/correccion",
        headers=h,
        json={"ganador": 0, "juegos": [1, 0], "motivo": "prueba"},
    )
    assert r.status_code == 404
    for path in (
        f"/torneos/{grande}",
        f"/torneos/{grande}/clasificacion",
        "/torneos/abc",
        f"/torneos/{tid}/mesas/{grande}/qr.png",
        f"/torneos/{tid}/partidas/{grande}/corregir",
    ):
        assert client1.get(path, headers=h).status_code == 404, path


def test_html_routes_answer_errors_as_pages_in_the_readers_language(srv1: Servidor, client1: TestClient):
    with srv1.sesion() as s:
        auth.crear_cuenta(s, "org", CLAVE, "organizador")
    client1.post("/entrar", data={"usuario": "org", "clave": CLAVE})
    for path, lang, texto in (
        ("/no-existe", "en", "no such page"),
        ("/torneos/999", "eu", "txapelketa hori ez dago"),
        ("/torneos/abc", "es", "no existe esa página"),
    ):
        r = client1.get(f"{path}?lang={lang}")
        assert r.status_code == 404 and r.headers["content-type"].startswith("text/html"), (path, r.text)
        assert texto in r.text and f'<html lang="{lang}">' in r.text and "{" not in r.text.split("<body")[1]
    r = client1.get("/torneos/999", headers={"Accept-Language": "en-GB,en"})
    assert "no such tournament" in r.text
    r = client1.delete("/torneos")
    assert r.status_code == 405 and "text/html" in r.headers["content-type"]
    assert client1.get("/api/no-existe").json() == {"error": "no existe esa página"}


def test_page_forms_are_read_by_their_models_and_refused_as_pages(srv1: Servidor, client1: TestClient):
    """Each page's form is a pydantic model: a wrong field is one line naming it, on a page in
    the reader's language, and nothing is stored; an empty box takes the field's default."""
    h = organizador(srv1, client1)
    client1.post("/entrar", data={"usuario": "org", "clave": CLAVE})
    parejas = "Uno: Ana, Luis\nDos: Eva, Jon"
    for data, lang, texto in (
        ({"nombre": "X", "parejas": parejas, "grupos": "dos"}, "en", "field grupos: must be a whole number"),
        ({"nombre": "X", "parejas": parejas, "mesas": "0"}, "es", "campo mesas: debe ser 1 o más"),
        ({"nombre": "X", "parejas": parejas, "juegos": "99"}, "eu", "juegos eremua: 20 edo gutxiago izan behar da"),
        ({"nombre": "X" * 121, "parejas": parejas}, "en", "field nombre: must have at most 120 characters"),
    ):
        page = client1.post(f"/torneos?lang={lang}", data=data)
        assert page.status_code == 422 and page.headers["content-type"].startswith("text/html"), page.text
        assert texto in page.text and f'<html lang="{lang}">' in page.text
    assert client1.get("/api/torneos/1", headers=h).status_code == 404  # nothing was created
    r = client1.post("/torneos", data={"nombre": "Club", "parejas": parejas, "juegos": "", "semilla": " "})
    assert r.status_code == 200 and "Club" in r.text  # empty boxes: the defaults (a league, one table)
    datos = client1.get("/api/torneos/1", headers=h).json()
    assert (datos["formato"]["tipo"], len(datos["mesas"])) == ("liga", 1)
    client1.post("/api/torneos/1/rondas", headers=h)
    pid = client1.get("/api/torneos/1", headers=h).json()["partidas"][0]["id"]
    page = client1.post(f"/torneos/1/partidas/{pid}/corregir?lang=en", data={"juegos0": "-1", "motivo": "acta"})
    assert page.status_code == 422 and "field juegos0: must be 0 or more" in page.text
    assert client1.get("/api/torneos/1/correcciones", headers=h).json() == []
    page = client1.post("/cuenta?lang=en", data={"actual": CLAVE, "nueva": "n" * 300, "repetida": "n" * 300})
    assert page.status_code == 422 and "field nueva: must have at most 256 characters" in page.text
    page = client1.post("/entrar?lang=en", data={"usuario": "org"})
    assert page.status_code == 422 and "field clave: missing" in page.text
