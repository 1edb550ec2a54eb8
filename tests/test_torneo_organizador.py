"""The organiser's actions on the day: add a pareja before the first round, withdraw one
between its matches (its opponents get byes, counted as wins), referees' accounts from the
tournament page, and a password change page."""

from __future__ import annotations

import random

import pytest

pytest.importorskip("fastapi")
from server.servidor import Servidor
from tests import test_torneo_api as base
from tests.cliente_web import ClienteWeb as TestClient
from tests.servidor_torneo import hash_barato  # noqa: F401 (fixture used by name)
from tests.test_torneo_api import CLAVE, organizador, torneo
from tests.test_torneo_integridad import jugar_ronda

srv1, client1 = base.srv1, base.client1


def test_a_pareja_is_added_before_the_first_round_only(srv1: Servidor, client1: TestClient):
    h = organizador(srv1, client1)
    tid = torneo(client1, h, parejas=4, mesas=2, tipo="grupos", grupos=2, juegos=1)
    r = client1.post(f"/api/torneos/{tid}/parejas", headers=h, json={"nombre": " Nuevos ", "jugadores": ["A", "B"]})
    assert r.status_code == 201 and r.json()["nombre"] == "Nuevos"
    grupos = [p["grupo"] for p in client1.get(f"/api/torneos/{tid}", headers=h).json()["parejas"]]
    assert sorted(grupos) == [1, 1, 1, 2, 2]  # the groups drawn again with it
    assert (
        client1.post(
            f"/api/torneos/{tid}/parejas", headers=h, json={"nombre": "nuevos", "jugadores": ["C", "D"]}
        ).status_code
        == 422
    )
    client1.post(f"/api/torneos/{tid}/rondas", headers=h)
    r = client1.post(f"/api/torneos/{tid}/parejas", headers=h, json={"nombre": "Tarde", "jugadores": ["C", "D"]})
    assert r.status_code == 409 and "antes de la primera ronda" in r.json()["error"]


def test_a_withdrawn_pareja_gives_its_opponents_byes(srv1: Servidor, client1: TestClient):
    h = organizador(srv1, client1)
    tid = torneo(client1, h, parejas=4, mesas=2, juegos=1)
    client1.post(f"/api/torneos/{tid}/rondas", headers=h)
    datos = client1.get(f"/api/torneos/{tid}", headers=h).json()
    p0 = datos["parejas"][0]
    r = client1.post(f"/api/torneos/{tid}/parejas/{p0['id']}/retirada", headers=h)
    assert r.status_code == 409 and "sin terminar" in r.json()["error"]
    jugar_ronda(client1, h, tid, random.Random(7))
    assert client1.post(f"/api/torneos/{tid}/parejas/{p0['id']}/retirada", headers=h).json()["retirada"] is True
    client1.post(f"/api/torneos/{tid}/rondas", headers=h)
    ronda2 = [p for p in client1.get(f"/api/torneos/{tid}", headers=h).json()["partidas"] if p["ronda"] == 2]
    assert p0["nombre"] not in [n for p in ronda2 for n in p["parejas"]]
    bye = next(p for p in ronda2 if p["parejas"][1] is None)
    assert bye["ganador"] == 0 and bye["mesa"] is None
    filas = {
        f["nombre"]: f for f in client1.get(f"/api/torneos/{tid}/clasificacion", headers=h).json()["grupos"][0]["filas"]
    }
    assert filas[p0["nombre"]]["retirada"] is True and filas[bye["parejas"][0]]["descansos"] == 1
    page = client1.get(f"/torneos/{tid}/clasificacion", headers=h).text
    assert f"{p0['nombre']} (Retirada)" in page


def test_referees_and_the_password_from_the_pages(srv1: Servidor, client1: TestClient):
    h = organizador(srv1, client1)
    tid = torneo(client1, h, parejas=2, mesas=1)
    client1.post("/entrar", data={"usuario": "org", "clave": CLAVE})
    r = client1.post(
        f"/torneos/{tid}/arbitros", data={"usuario": "juez1", "clave": "arbitra-bien-7"}, follow_redirects=False
    )
    assert r.status_code == 303
    assert client1.post("/api/sesion", json={"usuario": "juez1", "clave": "arbitra-bien-7"}).status_code == 200
    weak = client1.post(f"/torneos/{tid}/arbitros", data={"usuario": "otro", "clave": "aaaaaaaa"})
    assert weak.status_code == 422 and "demasiado fácil" in weak.text and "text/html" in weak.headers["content-type"]
    page = client1.post("/cuenta", data={"actual": CLAVE, "nueva": "otra-clave-9", "repetida": "otra-clave-8"})
    assert page.status_code == 422 and "no coinciden" in page.text
    page = client1.post("/cuenta", data={"actual": CLAVE, "nueva": "otra-clave-9", "repetida": "otra-clave-9"})
    assert page.status_code == 200 and 'id="hecho"' in page.text
    assert client1.post("/api/sesion", json={"usuario": "org", "clave": "otra-clave-9"}).status_code == 200
    assert client1.get(f"/api/torneos/{tid}", headers=h).status_code == 401  # the other login ended


def test_the_form_lets_referees_correct_when_ticked(srv1: Servidor, client1: TestClient):
    organizador(srv1, client1)
    client1.post("/entrar", data={"usuario": "org", "clave": CLAVE})
    r = client1.post(
        "/torneos",
        data={"nombre": "Club", "parejas": "A: a, b\nB: c, d", "mesas": "1", "arbitros_corrigen": "1"},
        follow_redirects=False,
    )
    tid = int(r.headers["location"].split("/")[2].split("?")[0])
    assert client1.get(f"/api/torneos/{tid}").json()["arbitros_corrigen"] is True
