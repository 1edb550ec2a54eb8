"""The tournament server's API through FastAPI's TestClient, against SQLite and against a real
PostgreSQL started here on the loopback (skipped only when PostgreSQL is not installed)."""

from __future__ import annotations

import random
import uuid
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("fastapi")
import psycopg
from sqlalchemy import select, text

from scoring.arbitro import comprobar_senas
from scoring.registro import RegistroArbitro
from scoring.tanteo import tantear
from server.limites import Limite
from server.modelos.torneo import Mano, Sesion
from server.servicios import auth
from server.servidor import Servidor
from server.simulacion import MesaSimulada
from tests.cliente_web import ClienteWeb as TestClient
from tests.servidor_torneo import hash_barato, postgres  # noqa: F401 (fixtures used by name)

CLAVE = "secreto-largo-1"


@pytest.fixture(params=["sqlite", "postgresql"])
def srv(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[Servidor]:
    yield from _servidor(request, tmp_path, request.param)


@pytest.fixture
def srv1(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[Servidor]:
    """SQLite only: checks of input and limits that do not depend on the database."""
    yield from _servidor(request, tmp_path, "sqlite")


@pytest.fixture
def client1(srv1: Servidor) -> TestClient:
    return TestClient(srv1.app)


def _servidor(request: pytest.FixtureRequest, tmp_path: Path, kind: str) -> Iterator[Servidor]:
    if kind == "sqlite":
        url = f"sqlite:///{tmp_path / 'torneo.sqlite3'}"
    else:  # one cluster for the module, a new database for each test
        base = request.getfixturevalue("postgres")
        name = f"t_{uuid.uuid4().hex[:12]}"
        with psycopg.connect(base, autocommit=True) as conn:
            conn.execute(f"CREATE DATABASE {name}")
        url = base.rsplit("/", 1)[0] + f"/{name}"
    server = Servidor(url)
    yield server
    server.engine.dispose()


@pytest.fixture
def client(srv: Servidor) -> TestClient:
    return TestClient(srv.app)


def organizador(srv: Servidor, client: TestClient, usuario: str = "org") -> dict[str, str]:
    with srv.sesion() as s:
        auth.crear_cuenta(s, usuario, CLAVE, "organizador")
    r = client.post("/api/sesion", json={"usuario": usuario, "clave": CLAVE})
    assert r.status_code == 200, r.text
    return {"Authorization": f"Bearer {r.json()['token']}"}


def torneo(client: TestClient, h: dict[str, str], parejas: int = 4, mesas: int = 2, **formato: Any) -> int:
    body = {
        "nombre": "Open de Segovia",
        "reglas": "segovia",
        "formato": {"juegos": 2, **formato},
        "parejas": [{"nombre": f"P{i}", "jugadores": [f"Ana{i}", f"Luis{i}"]} for i in range(parejas)],
        "mesas": mesas,
    }
    r = client.post("/api/torneos", headers=h, json=body)
    assert r.status_code == 201, r.text
    return r.json()["id"]


def codigos(client: TestClient, h: dict[str, str], tid: int) -> list[str]:
    return [m["codigo"] for m in client.get(f"/api/torneos/{tid}", headers=h).json()["mesas"]]


def test_a_round_played_at_two_tables_adds_up_in_the_standings(srv: Servidor, client: TestClient):
    h = organizador(srv, client)
    tid = torneo(client, h)
    assert client.post(f"/api/torneos/{tid}/rondas", headers=h).json() == {"ronda": 1, "fase": "liga"}
    mesas = [MesaSimulada.unirse(client, c, semilla=i) for i, c in enumerate(codigos(client, h, tid))]
    for _ in range(12):
        for m in mesas:
            m.jugar()
            assert m.enviar(client) == 1
    tabla = client.get(f"/api/torneos/{tid}/clasificacion", headers=h).json()["grupos"][0]["filas"]
    filas = {f["nombre"]: f for f in tabla}
    detalle = client.get(f"/api/torneos/{tid}", headers=h).json()["partidas"]
    for m, partida in zip(mesas, detalle, strict=True):
        p0, p1 = partida["parejas"]
        assert (filas[p0]["tantos_favor"], filas[p1]["tantos_favor"]) == tuple(m.ganados)
        assert (filas[p0]["juegos_favor"], filas[p1]["juegos_favor"]) == tuple(m.juegos)
        assert partida["manos"] == 12
    with srv.sesion() as s:
        assert s.scalar(select(text("count(*)")).select_from(Mano)) == 24


def test_the_same_hand_twice_is_stored_once_and_answered_alike(srv: Servidor, client: TestClient):
    h = organizador(srv, client)
    tid = torneo(client, h, parejas=2, mesas=1)
    client.post(f"/api/torneos/{tid}/rondas", headers=h)
    m = MesaSimulada.unirse(client, codigos(client, h, tid)[0], semilla=3)
    m.jugar()
    body = m.cola[0]
    auth_h = {"Authorization": f"Bearer {m.token}"}
    first = client.post("/api/mesa/manos", json=body, headers=auth_h)
    again = client.post("/api/mesa/manos", json=body, headers=auth_h)
    assert (first.status_code, again.status_code) == (201, 200)
    assert first.json() == again.json()
    other = {**body, "foto": "0" * 64}
    r = client.post("/api/mesa/manos", json=other, headers=auth_h)
    assert r.status_code == 409 and "otro contenido" in r.json()["error"]
    with srv.sesion() as s:
        assert len(list(s.scalars(select(Mano)))) == 1


def test_a_claimed_tanteo_that_the_rules_do_not_give_is_refused(srv: Servidor, client: TestClient):
    h = organizador(srv, client)
    tid = torneo(client, h, parejas=2, mesas=1)
    client.post(f"/api/torneos/{tid}/rondas", headers=h)
    m = MesaSimulada.unirse(client, codigos(client, h, tid)[0], semilla=4)
    m.jugar()
    body = dict(m.cola[0])
    good = list(body["tanteo"])
    body["tanteo"] = [good[0] + 1, good[1]]
    auth_h = {"Authorization": f"Bearer {m.token}"}
    r = client.post("/api/mesa/manos", json=body, headers=auth_h)
    assert r.status_code == 422
    assert r.json()["error"] == f"el tanteo no coincide: la mesa dice {body['tanteo']}, las reglas dan {good}"
    wrong_before = {**m.cola[0], "registro": {**m.cola[0]["registro"], "marcador": [5, 0]}}
    assert "marcador antes" in client.post("/api/mesa/manos", json=wrong_before, headers=auth_h).json()["error"]
    # the right body is still taken afterwards: nothing was half stored
    assert client.post("/api/mesa/manos", json=m.cola[0], headers=auth_h).status_code == 201


@pytest.mark.parametrize(
    ("cambio", "esperado"),
    [
        (
            {"registro": {"manos": ["1o 1c 1e 1b", "1o 2c 3e 4b", "5o 6c 7e 10b", "11o 12c 2o 3o"]}},
            "la carta 1o aparece en la mano 0 y en la mano 1",
        ),
        ({"registro": {"manos": ["1o 1c 1e"]}}, "manos"),
        ({"registro": {"manos": [], "trampa": 1}}, "campo desconocido"),
        ({"tanteo": [1, 2, 3]}, "campo tanteo"),
        ({"id": "corto"}, "campo id"),
        ({"numero": 7}, "se esperaba la mano 1"),
        ({"extra": True}, "campo extra"),
    ],
)
def test_bad_hands_get_one_clear_line(srv1: Servidor, client1: TestClient, cambio: dict[str, Any], esperado: str):
    h = organizador(srv1, client1)
    tid = torneo(client1, h, parejas=2, mesas=1)
    client1.post(f"/api/torneos/{tid}/rondas", headers=h)
    m = MesaSimulada.unirse(client1, codigos(client1, h, tid)[0], semilla=5)
    m.jugar()
    body = {**m.cola[0], **cambio}
    r = client1.post("/api/mesa/manos", json=body, headers={"Authorization": f"Bearer {m.token}"})
    assert r.status_code in (409, 422), r.text
    assert esperado in r.json()["error"]
    assert "\n" not in r.json()["error"] and "Traceback" not in r.text


def test_body_limits_and_json_limits(srv1: Servidor, client1: TestClient):
    h = organizador(srv1, client1)
    tid = torneo(client1, h, parejas=2, mesas=1)
    client1.post(f"/api/torneos/{tid}/rondas", headers=h)
    m = MesaSimulada.unirse(client1, codigos(client1, h, tid)[0], semilla=6)
    auth_h = {"Authorization": f"Bearer {m.token}", "Content-Type": "application/json"}
    big = client1.post("/api/mesa/manos", content=b"[" + b"0," * 40_000 + b"0]", headers=auth_h)
    assert big.status_code == 413
    deep = client1.post("/api/mesa/manos", content=b"[" * 100 + b"]" * 100, headers=auth_h)
    assert deep.status_code == 422 and "anidado" in deep.json()["error"]
    assert client1.post("/api/mesa/manos", content=b"\xff\xfe", headers=auth_h).status_code == 422
    chunked = client1.post("/api/mesa/manos", content=iter([b"[" + b"0," * 20_000] * 4), headers=auth_h)
    assert chunked.status_code == 413  # no Content-Length: cut off while streaming
    form = client1.post(
        "/entrar",
        content=iter([b"usuario=" + b"a" * 200_000] * 2),
        headers={"Content-Type": "application/x-www-form-urlencoded"},
    )
    assert form.status_code == 413


def test_a_correction_voids_the_last_hand_and_replaces_it(srv1: Servidor, client1: TestClient):
    h = organizador(srv1, client1)
    tid = torneo(client1, h, parejas=2, mesas=1)
    client1.post(f"/api/torneos/{tid}/rondas", headers=h)
    m = MesaSimulada.unirse(client1, codigos(client1, h, tid)[0], semilla=7)
    m.jugar()
    m.enviar(client1)
    first = m.enviadas[0]
    registro = m.partida.registro(["12o 12c 11e 1b", "3o 3c 3e 7b", "4o 5c 6e 7o", "1o 2c 1e 4b"])
    registro["marcador"] = [0, 0]
    registro["mano"] = 0
    body = {"id": uuid.uuid4().hex, "numero": 2, "registro": registro, "tanteo": [3, 6], "anula": first}
    r = client1.post("/api/mesa/manos", json=body, headers={"Authorization": f"Bearer {m.token}"})
    assert r.status_code == 201, r.text
    estado = client1.get("/api/mesa/partida", headers={"Authorization": f"Bearer {m.token}"}).json()
    assert (estado["tantos"], estado["manos"], estado["siguiente"]) == ([3, 6], 1, 3)
    stale = {**body, "id": uuid.uuid4().hex, "numero": 3, "registro": {**registro, "marcador": [3, 6], "mano": 1}}
    r = client1.post("/api/mesa/manos", json=stale, headers={"Authorization": f"Bearer {m.token}"})
    assert r.status_code == 409 and r.json()["error"] == "solo se puede corregir la última mano de la partida"


def test_referee_report_is_verified_and_its_findings_listed_by_table_and_pareja(srv: Servidor, client: TestClient):
    h = organizador(srv, client)
    tid = torneo(client, h, parejas=2, mesas=1)
    client.post(f"/api/torneos/{tid}/rondas", headers=h)
    assert (
        client.post(f"/api/torneos/{tid}/arbitros", headers=h, json={"usuario": "arbitro1", "clave": CLAVE}).status_code
        == 201
    )
    ref = client.post("/api/sesion", json={"usuario": "arbitro1", "clave": CLAVE}).json()["token"]
    rh = {"Authorization": f"Bearer {ref}"}
    log = RegistroArbitro.nuevo({"reglas": "segovia", "jugadores": ["Ana0", "Ana1", "Luis0", "Luis1"]})
    log.anotar("vigilar", {"asiento": 1, "jugador": "Ana1"})
    informe = comprobar_senas(
        [{"gesto": "morro", "inicio": 1.0, "fin": 1.4, "confianza": 0.9}], "4o 5c 6e 7b", "segovia"
    )
    log.anotar("informe", {"jugador": 1, "informe": informe.to_json()})
    log.cerrar()
    data = log.to_json()
    r = client.post(f"/api/torneos/{tid}/informes", headers=rh, json={"mesa": 1, "registro": data})
    assert r.status_code == 201, r.text
    assert r.json()["sello"] == log.sello
    inc = client.get(f"/api/torneos/{tid}/incidencias", headers=h).json()
    assert [(i["mesa"], i["pareja"], i["tipo"]) for i in inc] == [(1, "P1", "falsa")]
    assert inc[0]["articulo"].startswith("Título VII, art. 3")
    data["entradas"][1]["datos"]["asiento"] = 3  # someone edits the report
    r = client.post(f"/api/torneos/{tid}/informes", headers=rh, json={"mesa": 1, "registro": data})
    assert r.status_code == 422 and r.json()["error"].startswith("registro del árbitro ALTERADO en la entrada 1")


def test_no_account_sees_another_tournament(srv: Servidor, client: TestClient):
    ha = organizador(srv, client, "orga")
    hb = organizador(srv, client, "orgb")
    ta, tb = torneo(client, ha, parejas=2, mesas=1), torneo(client, hb, parejas=2, mesas=1)
    for path in ("", "/clasificacion", "/incidencias", "/exportar.json", "/exportar.csv"):
        assert client.get(f"/api/torneos/{tb}{path}", headers=ha).status_code == 404, path
        assert client.get(f"/api/torneos/{tb}{path}").status_code == 401, path
    assert client.post(f"/api/torneos/{tb}/rondas", headers=ha).status_code == 404
    page = client.get(f"/torneos/{tb}/clasificacion", headers=ha)
    assert page.status_code == 404 and "Open de Segovia" not in page.text
    assert client.get(f"/torneos/{tb}/mesas/1/qr.png", headers=ha).status_code == 404
    # a referee of A cannot report on B; a table token of A cannot read B nor act as an organiser
    client.post(f"/api/torneos/{ta}/arbitros", headers=ha, json={"usuario": "arbitroa", "clave": CLAVE})
    ref = client.post("/api/sesion", json={"usuario": "arbitroa", "clave": CLAVE}).json()["token"]
    log = RegistroArbitro.nuevo({"reglas": "segovia"}).to_json()
    r = client.post(
        f"/api/torneos/{tb}/informes", headers={"Authorization": f"Bearer {ref}"}, json={"mesa": 1, "registro": log}
    )
    assert r.status_code == 404
    assert client.post(f"/api/torneos/{ta}/rondas", headers={"Authorization": f"Bearer {ref}"}).status_code == 403
    client.post(f"/api/torneos/{ta}/rondas", headers=ha)
    mesa = MesaSimulada.unirse(client, codigos(client, ha, ta)[0], semilla=1)
    assert client.get(f"/api/torneos/{ta}", headers={"Authorization": f"Bearer {mesa.token}"}).status_code == 401
    assert "mesas" not in client.get(f"/api/torneos/{ta}/exportar.json", headers=ha).json()


def test_a_table_writes_only_its_own_match(srv: Servidor, client: TestClient):
    h = organizador(srv, client)
    tid = torneo(client, h)
    client.post(f"/api/torneos/{tid}/rondas", headers=h)
    a, b = (MesaSimulada.unirse(client, c, semilla=i) for i, c in enumerate(codigos(client, h, tid)))
    b.jugar()
    # b's hand sent with a's token can only land in a's match, whose players it does not name
    r = client.post("/api/mesa/manos", json=b.cola[0], headers={"Authorization": f"Bearer {a.token}"})
    assert r.status_code == 422 and r.json()["error"] == "los jugadores del registro no son los de esta partida"
    assert [p["manos"] for p in client.get(f"/api/torneos/{tid}", headers=h).json()["partidas"]] == [0, 0]
    assert client.get("/api/mesa/partida", headers={"Authorization": "Bearer inventado"}).status_code == 401


def test_passwords_and_tokens_are_stored_hashed_and_expire(srv1: Servidor, client1: TestClient):
    h = organizador(srv1, client1)
    token = h["Authorization"].split()[1]
    assert client1.post("/api/sesion", json={"usuario": "org", "clave": "mala-clave"}).status_code == 401
    assert client1.post("/api/sesion", json={"usuario": "nadie", "clave": "mala-clave"}).json() == {
        "error": "usuario o contraseña incorrectos"
    }
    with srv1.sesion() as s:
        sesion = s.scalars(select(Sesion)).one()
        assert token not in sesion.huella
        c = s.scalars(select(auth.Cuenta)).one()
        assert c.clave_hash.startswith("$argon2id$") and CLAVE not in c.clave_hash
        sesion.caduca = sesion.caduca.replace(year=2000)
    r = client1.get("/api/torneos/1", headers=h)
    assert r.status_code == 401 and "caducado" in r.json()["error"]


def test_join_codes_are_rate_limited(srv1: Servidor, client1: TestClient):
    srv1.limite_unirse = Limite("unirse", 5, 60.0)
    answers = [client1.post("/api/mesas/unirse", json={"codigo": f"NOPE{i:04d}"}).status_code for i in range(7)]
    assert answers == [404] * 5 + [429] * 2


def test_groups_then_knockout_to_a_champion(srv1: Servidor, client1: TestClient):
    h = organizador(srv1, client1)
    tid = torneo(client1, h, parejas=8, mesas=4, tipo="grupos", grupos=2, clasifican=2, juegos=1)
    rng = random.Random(0)
    fases = []
    while True:
        r = client1.post(f"/api/torneos/{tid}/rondas", headers=h)
        if r.status_code == 409:
            assert "ha terminado" in r.json()["error"]
            break
        fases.append(r.json()["fase"])
        for codigo in codigos(client1, h, tid):
            try:
                m = MesaSimulada.unirse(client1, codigo, semilla=rng.randrange(10**6))
            except Exception:
                continue
            if m.partida.terminada or m.siguiente > 1:
                continue
            while not m.partida.terminada:
                m.jugar()
            m.enviar(client1)
    assert fases == ["grupos"] * 3 + ["eliminatoria"] * 2
    final = client1.get(f"/api/torneos/{tid}", headers=h).json()["partidas"][-1]
    assert final["ganador"] in (0, 1) and final["ronda"] == 5


def test_cli_creates_an_organiser_and_a_tournament(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
):
    from musmesa.cli import main

    monkeypatch.setenv("MUS_TEST_CLAVE", CLAVE)
    datos = str(tmp_path / "datos")
    assert main(["torneo", "organizador", "ana", "--datos", datos, "--clave-entorno", "MUS_TEST_CLAVE"]) == 0
    spec = tmp_path / "t.json"
    spec.write_text(
        '{"nombre": "Club", "parejas": [{"nombre": "A", "jugadores": ["a", "b"]},'
        '{"nombre": "B", "jugadores": ["c", "d"]}], "mesas": 1}',
        encoding="utf-8",
    )
    assert main(["torneo", "crear", str(spec), "--organizador", "ana", "--datos", datos]) == 0
    assert "Torneo 1 creado: Club" in capsys.readouterr().out
    spec.write_text('{"nombre": "Club", "parejas": [], "mesas": 1}', encoding="utf-8")
    assert main(["torneo", "crear", str(spec), "--organizador", "ana", "--datos", datos]) == 2
    err = capsys.readouterr().err
    assert err.startswith("mus torneo: campo parejas") and err.count("\n") == 1
    assert main(["torneo", "organizador", "ana", "--datos", datos, "--clave-entorno", "MUS_TEST_CLAVE"]) == 2
    assert "ya existe el usuario ana" in capsys.readouterr().err


def test_declaraciones_are_scored_with_their_corrections_as_mus_tanteo_does(srv1: Servidor, client1: TestClient):
    h = organizador(srv1, client1)
    tid = torneo(client1, h, parejas=2, mesas=1)
    client1.post(f"/api/torneos/{tid}/rondas", headers=h)
    m = MesaSimulada.unirse(client1, codigos(client1, h, tid)[0], semilla=8)
    manos = ["12o 12c 5e 4b", "1o 1c 6e 7b", "4o 5c 6c 7e", "10o 11c 2e 6o"]
    decl = {"pares": [True, True, True, None]}  # seat 2 said "sí" with no pares
    record = m.partida.registro(manos, None, None, decl)
    with_penalty = list(tantear(record).marcador)
    without = list(tantear({k: v for k, v in record.items() if k != "declaraciones"}).marcador)
    assert with_penalty != without
    auth_h = {"Authorization": f"Bearer {m.token}"}
    body = {"id": uuid.uuid4().hex, "numero": 1, "registro": {"manos": manos, "declaraciones": decl}}
    r = client1.post("/api/mesa/manos", json={**body, "tanteo": without}, headers=auth_h)
    assert r.status_code == 422 and "el tanteo no coincide" in r.json()["error"]
    r = client1.post("/api/mesa/manos", json={**body, "tanteo": with_penalty}, headers=auth_h)
    assert r.status_code == 201 and r.json()["marcador"] == with_penalty


def test_a_refused_tanteo_comes_with_the_servers_and_the_hand_is_taken_with_it(srv: Servidor, client: TestClient):
    h = organizador(srv, client)
    tid = torneo(client, h, parejas=2, mesas=1)
    client.post(f"/api/torneos/{tid}/rondas", headers=h)
    m = MesaSimulada.unirse(client, codigos(client, h, tid)[0], semilla=4)
    auth_h = {"Authorization": f"Bearer {m.token}"}
    m.jugar()
    body = dict(m.cola[0])
    servidor = list(body["tanteo"])
    mesa = [servidor[0] + 2, servidor[1]]  # the table counted two tantos more for pareja 0
    r = client.post("/api/mesa/manos", json={**body, "tanteo": mesa}, headers=auth_h)
    assert r.status_code == 422
    assert r.json() == {
        "error": f"el tanteo no coincide: la mesa dice {mesa}, las reglas dan {servidor}",
        "tanteo_servidor": servidor,
    }
    # what the tablet does next: the same hand under a new id, the server's tanteo, its own aside
    corregida = {**body, "id": body["id"] + ":s", "tanteo": r.json()["tanteo_servidor"], "discrepancia": mesa}
    first = client.post("/api/mesa/manos", json=corregida, headers=auth_h)
    assert first.status_code == 201, first.text
    assert first.json()["marcador"] == servidor
    again = client.post("/api/mesa/manos", json=corregida, headers=auth_h)
    assert (again.status_code, again.json()) == (200, first.json())
    other = client.post("/api/mesa/manos", json={**corregida, "discrepancia": [0, 0]}, headers=auth_h)
    assert other.status_code == 409 and "otro contenido" in other.json()["error"]
    # the queue goes on behind it
    m.cola[0] = corregida
    m.jugar()
    assert m.enviar(client) == 2
    partida = client.get("/api/mesa/partida", headers=auth_h).json()
    assert (partida["manos"], partida["siguiente"], partida["tantos"]) == (2, 3, list(m.partida.tantos))
    inc = client.get(f"/api/torneos/{tid}/incidencias", headers=h).json()
    assert inc == [
        {
            "origen": "tanteo",
            "mesa": 1,
            "pareja": "P0",
            "asiento": None,
            "tipo": "discrepancia_tanteo",
            "gravedad": "",
            "articulo": "",
            "razon": f"mano 1: la mesa contó {mesa}, las reglas dan {servidor}",
            "mano": 1,
            "tanteo_mesa": mesa,
            "tanteo_servidor": servidor,
        }
    ]
    assert client.get(f"/api/torneos/{tid}/exportar.json", headers=h).json()["incidencias"] == inc
    page = client.get(f"/torneos/{tid}/incidencias", headers=h)
    assert page.status_code == 200 and "Discrepancia de tanteo" in page.text
    assert f"la mesa contó {mesa[0]}-{mesa[1]}" in page.text
    with srv.sesion() as s:
        stored = s.scalars(select(Mano).order_by(Mano.numero)).all()
        assert (stored[0].cliente_id, stored[0].marcador, stored[0].discrepancia) == (corregida["id"], servidor, mesa)
        assert stored[1].discrepancia is None


@pytest.mark.parametrize(
    ("discrepancia", "esperado"),
    [
        ([1, 2, 3], "campo discrepancia: debe tener como mucho 2 elementos"),
        ([-1, 2], "campo discrepancia.0: debe ser 0 o más"),
        (["1", 2], "campo discrepancia.0: debe ser un número entero"),
        ("3-6", "campo discrepancia: debe ser una lista"),
    ],
)
def test_a_bad_discrepancia_is_refused_like_a_bad_tanteo(
    srv1: Servidor, client1: TestClient, discrepancia: Any, esperado: str
):
    h = organizador(srv1, client1)
    tid = torneo(client1, h, parejas=2, mesas=1)
    client1.post(f"/api/torneos/{tid}/rondas", headers=h)
    m = MesaSimulada.unirse(client1, codigos(client1, h, tid)[0], semilla=9)
    m.jugar()
    r = client1.post(
        "/api/mesa/manos",
        json={**m.cola[0], "discrepancia": discrepancia},
        headers={"Authorization": f"Bearer {m.token}"},
    )
    assert (r.status_code, r.json()) == (422, {"error": esperado})


def test_a_discrepancia_equal_to_the_tanteo_records_no_incident(srv1: Servidor, client1: TestClient):
    h = organizador(srv1, client1)
    tid = torneo(client1, h, parejas=2, mesas=1)
    client1.post(f"/api/torneos/{tid}/rondas", headers=h)
    m = MesaSimulada.unirse(client1, codigos(client1, h, tid)[0], semilla=10)
    m.jugar()
    body = {**m.cola[0], "discrepancia": m.cola[0]["tanteo"]}
    assert client1.post("/api/mesa/manos", json=body, headers={"Authorization": f"Bearer {m.token}"}).status_code == 201
    assert client1.get(f"/api/torneos/{tid}/incidencias", headers=h).json() == []
