"""A result a club can trust: a finished match is closed to its table, a round's tokens stop
writing when the round ends, only the organiser (or a referee allowed to) corrects a result, with
an audit trail shown and exported, and finished matches show what they ended with."""

from __future__ import annotations

import csv
import io
import random
import uuid
from typing import Any

import pytest

pytest.importorskip("fastapi")
from scoring.partida import Partida
from server.limites import Limite
from server.servidor import Servidor
from server.simulacion import MesaSimulada
from tests import test_torneo_api as base
from tests.cliente_web import ClienteWeb as TestClient
from tests.servidor_torneo import hash_barato, postgres  # noqa: F401 (fixtures used by name)
from tests.test_torneo_api import CLAVE, codigos, organizador, torneo

# the API tests' servers: SQLite and PostgreSQL (srv, client), SQLite only (srv1, client1)
srv, client, srv1, client1 = base.srv, base.client, base.srv1, base.client1


def jugar_ronda(client: TestClient, h: dict[str, str], tid: int, rng: random.Random) -> list[MesaSimulada]:
    """Every table of the round now played plays its match to the end."""
    mesas = []
    for codigo in codigos(client, h, tid):
        r = client.post("/api/mesas/unirse", json={"codigo": codigo})
        if r.status_code == 409:  # no match at this table this round
            continue
        p = r.json()["partida"]
        if p["terminada"]:
            continue
        m = MesaSimulada(
            r.json()["token"], Partida(p["reglas"], p["jugadores"]), p["siguiente"], random.Random(rng.randrange(10**6))
        )
        while not m.partida.terminada:
            m.jugar()
        assert m.enviar(client) == len(m.enviadas) > 0
        mesas.append(m)
    return mesas


def un_partido_jugado(
    srv: Servidor, client: TestClient, semilla: int
) -> tuple[dict[str, str], int, MesaSimulada, dict[str, Any]]:
    """An organiser's tournament of two parejas whose one match was played to the end: her
    header, the tournament's id, the table and the match as the API shows it."""
    h = organizador(srv, client)
    tid = torneo(client, h, parejas=2, mesas=1, juegos=1)
    client.post(f"/api/torneos/{tid}/rondas", headers=h)
    (m,) = jugar_ronda(client, h, tid, random.Random(semilla))
    return h, tid, m, client.get(f"/api/torneos/{tid}", headers=h).json()["partidas"][0]


def corregir(client: TestClient, h: dict[str, str], tid: int, pid: int, **body: Any) -> Any:
    return client.post(
        f"/api/torneos/{tid}/partidas/{pid}/correccion",
        headers=h,
        json={"ganador": 0, "juegos": [1, 0], "motivo": "acta firmada por las dos parejas"} | body,
    )


def test_a_finished_match_is_closed_to_its_table_and_an_attempt_to_change_it_is_an_incident(
    srv: Servidor, client: TestClient
):
    h = organizador(srv, client)
    tid = torneo(client, h, parejas=2, mesas=1, juegos=1)
    client.post(f"/api/torneos/{tid}/rondas", headers=h)
    (m,) = jugar_ronda(client, h, tid, random.Random(1))
    antes = client.get(f"/api/torneos/{tid}", headers=h).json()
    assert antes["partidas"][0]["ganador"] == m.partida.ganador
    # the table joins again with its code and voids the final hand with a hand for the loser
    again = client.post("/api/mesas/unirse", json={"codigo": codigos(client, h, tid)[0]}).json()
    th = {"Authorization": f"Bearer {again['token']}"}
    ultimo = m.cola or m.enviadas
    body = {
        "id": uuid.uuid4().hex,
        "numero": again["partida"]["siguiente"],
        "anula": ultimo[-1],
        "registro": {"manos": ["12o 12c 11e 1b", "3o 3c 3e 7b", "4o 5c 6e 7o", "1o 2c 1e 4b"]},
        "tanteo": [0, 0],
    }
    r = client.post("/api/mesa/manos", json=body, headers=th)
    assert r.status_code == 409
    assert r.json()["error"].startswith("la partida ya tiene ganador: la mesa no puede cambiarla")
    plain = client.post("/api/mesa/manos", json={**body, "id": uuid.uuid4().hex, "anula": None}, headers=th)
    assert plain.status_code == 409
    despues = client.get(f"/api/torneos/{tid}", headers=h).json()
    assert despues["partidas"] == antes["partidas"] and despues["campeon"] == antes["campeon"] is not None
    inc = client.get(f"/api/torneos/{tid}/incidencias", headers=h).json()
    assert [(i["origen"], i["mesa"], i["tipo"]) for i in inc] == [("mesa", 1, "cambio_partida_cerrada")]
    assert ultimo[-1] in inc[0]["razon"]
    # the tablet resending its last hand (the answer was lost) still gets the first answer
    page = client.get(f"/torneos/{tid}/incidencias", headers=h)
    assert "Cambio en una partida cerrada" in page.text


def test_a_rounds_token_stops_writing_when_the_round_ends(srv1: Servidor, client1: TestClient):
    h = organizador(srv1, client1)
    tid = torneo(client1, h, parejas=4, mesas=2, juegos=1)
    client1.post(f"/api/torneos/{tid}/rondas", headers=h)
    viejas = jugar_ronda(client1, h, tid, random.Random(2))
    assert client1.post(f"/api/torneos/{tid}/rondas", headers=h).status_code == 201
    for m in viejas:
        body = {
            "id": uuid.uuid4().hex,
            "numero": m.siguiente,
            "anula": m.enviadas[-1],
            "registro": {"manos": ["12o 12c 11e 1b", "3o 3c 3e 7b", "4o 5c 6e 7o", "1o 2c 1e 4b"]},
            "tanteo": [0, 0],
        }
        r = client1.post("/api/mesa/manos", json=body, headers={"Authorization": f"Bearer {m.token}"})
        assert r.status_code == 409, r.text
    ronda1 = [p for p in client1.get(f"/api/torneos/{tid}", headers=h).json()["partidas"] if p["ronda"] == 1]
    assert [p["ganador"] for p in ronda1] == [m.partida.ganador for m in viejas]
    assert len(client1.get(f"/api/torneos/{tid}/incidencias", headers=h).json()) == 2
    # the round being played takes its hands as before
    assert len(jugar_ronda(client1, h, tid, random.Random(3))) == 2


def test_the_organiser_corrects_a_result_with_an_audit_trail_shown_and_exported(srv: Servidor, client: TestClient):
    h, tid, m, partida = un_partido_jugado(srv, client, semilla=4)
    perdedor = 1 - m.partida.ganador
    filas = client.get(f"/api/torneos/{tid}/clasificacion", headers=h).json()["grupos"][0]["filas"]
    assert filas[0]["nombre"] == partida["parejas"][m.partida.ganador]
    r = corregir(
        client,
        h,
        tid,
        partida["id"],
        ganador=perdedor,
        juegos=[1, 0] if perdedor == 0 else [0, 1],
        motivo="  la pareja ganadora   jugó con una baraja marcada ",
    )
    assert r.status_code == 201, r.text
    assert r.json()["ganador"] == perdedor and r.json()["resultado"]["corregida"] is True
    filas = client.get(f"/api/torneos/{tid}/clasificacion", headers=h).json()["grupos"][0]["filas"]
    assert filas[0]["nombre"] == partida["parejas"][perdedor] and filas[0]["ganadas"] == 1
    assert filas[0]["juegos_favor"] == 1 and filas[1]["juegos_favor"] == 0
    resumen = client.get(f"/api/torneos/{tid}", headers=h).json()
    assert resumen["campeon"] == partida["parejas"][perdedor]
    (audit,) = client.get(f"/api/torneos/{tid}/correcciones", headers=h).json()
    assert audit["usuario"] == "org" and audit["motivo"] == "la pareja ganadora jugó con una baraja marcada"
    assert audit["antes"]["ganador"] == m.partida.ganador and audit["despues"]["ganador"] == perdedor
    assert sorted(audit["antes"]["juegos"]) == [0, 1] and audit["cuando"].endswith("Z")
    assert client.get(f"/api/torneos/{tid}/exportar.json", headers=h).json()["correcciones"] == [audit]
    rows = list(csv.DictReader(io.StringIO(client.get(f"/api/torneos/{tid}/exportar.csv", headers=h).text)))
    assert rows[0]["correccion"] == audit["motivo"] and rows[0]["ganador"] == partida["parejas"][perdedor]
    page = client.get(f"/torneos/{tid}", headers=h)
    assert "la pareja ganadora jugó con una baraja marcada" in page.text and "Correcciones" in page.text


def test_only_the_organiser_or_an_allowed_referee_corrects(srv1: Servidor, client1: TestClient):
    h = organizador(srv1, client1)
    tid = torneo(client1, h, parejas=2, mesas=1, juegos=1)
    client1.post(f"/api/torneos/{tid}/rondas", headers=h)
    pid = client1.get(f"/api/torneos/{tid}", headers=h).json()["partidas"][0]["id"]
    client1.post(f"/api/torneos/{tid}/arbitros", headers=h, json={"usuario": "arbitro1", "clave": CLAVE})
    ref = client1.post("/api/sesion", json={"usuario": "arbitro1", "clave": CLAVE}).json()["token"]
    rh = {"Authorization": f"Bearer {ref}"}
    r = corregir(client1, rh, tid, pid)
    assert r.status_code == 403 and "solo el organizador corrige" in r.json()["error"]
    assert corregir(client1, h, tid, pid, motivo="x").status_code == 422
    assert corregir(client1, h, tid, 99999).status_code == 404
    # a forfeit: a match not played is given to pareja 0, and then its table cannot write
    assert corregir(client1, h, tid, pid, motivo="incomparecencia de la pareja P1").status_code == 201
    other = organizador(srv1, client1, "org2")
    tid2 = torneo(
        client1,
        other,
        parejas=2,
        mesas=1,
        juegos=1,
    )
    assert corregir(client1, other, tid, pid).status_code == 404
    assert corregir(client1, h, tid2, pid).status_code == 404


def test_a_referee_corrects_when_the_organiser_allows_it(srv1: Servidor, client1: TestClient):
    h = organizador(srv1, client1)
    body = {
        "nombre": "Club",
        "formato": {"juegos": 1},
        "mesas": 1,
        "arbitros_corrigen": True,
        "parejas": [{"nombre": f"P{i}", "jugadores": [f"A{i}", f"B{i}"]} for i in range(2)],
    }
    tid = client1.post("/api/torneos", headers=h, json=body).json()["id"]
    client1.post(f"/api/torneos/{tid}/rondas", headers=h)
    pid = client1.get(f"/api/torneos/{tid}", headers=h).json()["partidas"][0]["id"]
    client1.post(f"/api/torneos/{tid}/arbitros", headers=h, json={"usuario": "arbitro1", "clave": CLAVE})
    ref = client1.post("/api/sesion", json={"usuario": "arbitro1", "clave": CLAVE}).json()["token"]
    r = corregir(client1, {"Authorization": f"Bearer {ref}"}, tid, pid, ganador=1, juegos=[0, 1])
    assert r.status_code == 201, r.text
    (audit,) = client1.get(f"/api/torneos/{tid}/correcciones", headers=h).json()
    assert audit["usuario"] == "arbitro1" and audit["antes"] == {"ganador": None, "juegos": [0, 0], "tantos": [0, 0]}


def test_finished_matches_show_their_result_the_champion_and_no_next_round(srv1: Servidor, client1: TestClient):
    h = organizador(srv1, client1)
    tid = torneo(client1, h, parejas=8, mesas=4, tipo="grupos", grupos=2, clasifican=2, juegos=2)
    srv1.limite_unirse = Limite("unirse", 1000, 60.0)  # the tables join 22 times within the minute
    rng = random.Random(5)
    while client1.post(f"/api/torneos/{tid}/rondas", headers=h).status_code == 201:
        jugar_ronda(client1, h, tid, rng)
    data = client1.get(f"/api/torneos/{tid}", headers=h).json()
    for p in data["partidas"]:
        if p["parejas"][1] is None:
            continue
        assert max(p["juegos"]) == 2 and p["juegos"][p["ganador"]] == 2, p
        assert max(p["tantos"]) >= 30, p  # the marcador of the hand that won the last juego
    # the knockout crosses the groups: each semifinal is one group's first against the other's second
    grupo = {p["nombre"]: p["grupo"] for p in data["parejas"]}
    semis = [p["parejas"] for p in data["partidas"] if p["ronda"] == 4]
    assert len(semis) == 2 and all(grupo[a] != grupo[b] for a, b in semis)
    final = data["partidas"][-1]
    assert data["terminado"] is True and data["campeon"] == final["parejas"][final["ganador"]]
    rows = list(csv.DictReader(io.StringIO(client1.get(f"/api/torneos/{tid}/exportar.csv", headers=h).text)))
    assert all(max(int(r["juegos_0"]), int(r["juegos_1"])) == 2 for r in rows if r["pareja_1"])
    page = client1.get(f"/torneos/{tid}", headers=h).text
    assert 'id="ronda"' not in page and f"<strong>{data['campeon']}</strong>" in page
    assert "0 - 0" not in page.split("Terminadas")[1]
    # the knockout winner cannot change once the next round was paired from it
    semi = next(p for p in data["partidas"] if p["ronda"] == 4)
    r = corregir(client1, h, tid, semi["id"], ganador=1 - semi["ganador"], juegos=[2, 0])
    assert r.status_code == 409 and "ya se emparejó" in r.json()["error"]
    assert (
        corregir(
            client1,
            h,
            tid,
            semi["id"],
            ganador=semi["ganador"],
            juegos=semi["juegos"],
            motivo="juegos revisados con el acta",
        ).status_code
        == 201
    )


def test_a_result_corrected_on_the_page_is_stored_with_its_audit_trail_shown(srv1: Servidor, client1: TestClient):
    """The correction page as an organiser uses it: the form stores the new result and its
    reason, the tournament page shows who, before, after and why; a referee not allowed to
    correct gets a page that says so, and nothing is stored."""
    h, tid, m, partida = un_partido_jugado(srv1, client1, semilla=6)
    perdedor = 1 - m.partida.ganador
    client1.post(f"/api/torneos/{tid}/arbitros", headers=h, json={"usuario": "juez_p", "clave": CLAVE})
    for usuario in ("juez_p", "org"):
        pagina = TestClient(srv1.app)  # a browser of its own, logged in on the login page
        r = pagina.post("/entrar", data={"usuario": usuario, "clave": CLAVE}, follow_redirects=False)
        assert r.status_code == 303
        ruta = f"/torneos/{tid}/partidas/{partida['id']}/corregir"
        form = {"ganador": str(perdedor), "juegos0": str(1 - perdedor), "juegos1": str(perdedor)}
        r = pagina.post(ruta, data=form | {"motivo": "acta firmada: se equivocaron de pareja"}, follow_redirects=False)
        if usuario == "juez_p":
            assert r.status_code == 403 and "text/html" in r.headers["content-type"]
            assert "solo el organizador corrige" in r.text
            assert client1.get(f"/api/torneos/{tid}/correcciones", headers=h).json() == []
    assert pagina.get(ruta).status_code == 200
    assert r.status_code == 303 and r.headers["location"].startswith(f"/torneos/{tid}")
    datos = client1.get(f"/api/torneos/{tid}", headers=h).json()
    assert datos["partidas"][0]["ganador"] == perdedor and datos["campeon"] == partida["parejas"][perdedor]
    (audit,) = datos["correcciones"]
    assert (audit["usuario"], audit["antes"]["ganador"], audit["despues"]["ganador"]) == (
        "org",
        m.partida.ganador,
        perdedor,
    )
    page = pagina.get(f"/torneos/{tid}").text
    tabla = page[page.index('class="correcciones') :]
    assert "acta firmada: se equivocaron de pareja" in tabla and "org" in tabla and audit["cuando"] in tabla
    assert partida["parejas"][m.partida.ganador] in tabla and partida["parejas"][perdedor] in tabla
