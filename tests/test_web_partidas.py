"""A partida played from the phones, through the service and the JSON API (FastAPI's
TestClient), on SQLite and on a real PostgreSQL started here on the loopback (skipped only when
PostgreSQL is not installed): three hands, undo, export re-read by `mus tanteo`, an idempotent
resend, two phones confirming the same hand at once, a draft that outlives the server, and bad
input answered with one clear line in the player's language."""

from __future__ import annotations

import json
import random
import threading
import uuid
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("fastapi")
import psycopg
from fastapi import FastAPI
from sqlalchemy import func, inspect, select

from mesa.i18n import t
from musmesa.cli import main
from scoring.partida import Partida
from server import migraciones
from server.main import crear_app
from server.modelos.partidas import Borrador, ManoPartida, PartidaWeb
from server.servicios import partidas as servicio
from tests.cliente_web import ClienteWeb as TestClient
from tests.servidor_torneo import hash_barato, postgres  # noqa: F401 (fixtures used by name)

JUGADORES = ["Ana", "Bea", "Carlos", "Dani"]
# three hands that do not end a juego under segovia (40 tantos), with bets in two of them
MANOS = [
    (["12o 12c 11e 1b", "3o 3c 3e 7b", "4o 5c 6e 7o", "1o 2c 1e 4b"], {"pares": {"quiero": 5}}),
    (["1o 1c 4e 5b", "6o 6c 7e 7c", "10o 11c 12e 2b", "4o 5o 6e 7o"], {"grande": {"no_quiero": 1, "gana": 1}}),
    (["10c 10e 11o 11b", "2o 3b 4c 5e", "6b 7b 1e 12b", "3o 4b 5c 6c"], {}),
]


def _url(request: pytest.FixtureRequest, tmp_path: Path, kind: str) -> str:
    if kind == "sqlite":
        return f"sqlite:///{tmp_path / 'servidor.sqlite3'}"
    base = request.getfixturevalue("postgres")  # one cluster for the module, a database per test
    name = f"w_{uuid.uuid4().hex[:12]}"
    with psycopg.connect(base, autocommit=True) as conn:
        conn.execute(f"CREATE DATABASE {name}")
    return base.rsplit("/", 1)[0] + f"/{name}"


@pytest.fixture(params=["sqlite", "postgresql"])
def url(request: pytest.FixtureRequest, tmp_path: Path) -> str:
    return _url(request, tmp_path, request.param)


@pytest.fixture
def app(url: str) -> Iterator[FastAPI]:
    a = crear_app(url)
    yield a
    a.state.servidor.engine.dispose()


@pytest.fixture
def client(app: FastAPI) -> TestClient:
    return TestClient(app)


@pytest.fixture
def client1(tmp_path: Path) -> Iterator[TestClient]:
    """SQLite only: input checks that do not depend on the database."""
    a = crear_app(f"sqlite:///{tmp_path / 'uno.sqlite3'}")
    yield TestClient(a)
    a.state.servidor.engine.dispose()


def nueva(client: TestClient, **extra: Any) -> str:
    r = client.post("/api/partidas", json={"jugadores": JUGADORES, "reglas": "segovia", **extra})
    assert r.status_code == 201, r.text
    assert r.json()["url"] == f"/p/{r.json()['clave']}"
    return str(r.json()["clave"])


def confirmar(client: TestClient, clave: str, n: int, id_mano: str | None = None, **extra: Any) -> Any:
    cartas, lances = MANOS[n - 1]
    body = {"id_mano": id_mano or f"mano-{n}-{uuid.uuid4().hex[:8]}", "n": n, "cartas": cartas, "lances": lances}
    return client.post(f"/api/partidas/{clave}/manos", json=body | extra)


def esperado(n: int) -> Partida:
    """The same hands scored by scoring/ alone: what the server must agree with."""
    p = Partida("segovia", JUGADORES, mano=0)
    for cartas, lances in MANOS[:n]:
        p.registrar(cartas, lances)
    return p


def test_a_partida_of_three_hands_then_undo_then_export_read_by_mus_tanteo(
    client: TestClient, tmp_path: Path, capsys: pytest.CaptureFixture[str]
):
    clave = nueva(client)
    for n in (1, 2, 3):
        r = confirmar(client, clave, n)
        assert r.status_code == 201, r.text
        doc = r.json()
        assert doc["repetida"] is False and doc["n"] == n
        assert doc["tanteo"]["resultado"]["marcador"] == list(esperado(n).tantos)
        assert doc["marcador"]["manos"] == n and doc["marcador"]["numero_mano"] == n + 1
    m = client.get(f"/api/partidas/{clave}").json()
    p = esperado(3)
    assert [x["tantos"] for x in m["parejas"]] == list(p.tantos)
    assert m["mano"] == p.mano == 3 and m["mano_nombre"] == "Dani"
    assert [x["amarracos"] * 5 + x["piedras"] for x in m["parejas"]] == list(p.tantos)
    assert len(m["ultimas"]) == 3 and m["ultimas"][0].startswith("3. ")

    r = client.post(f"/api/partidas/{clave}/deshacer", json={"n": 3})
    assert r.status_code == 200 and [x["tantos"] for x in r.json()["parejas"]] == list(esperado(2).tantos)
    again = client.post(f"/api/partidas/{clave}/deshacer", json={"n": 3})  # a second phone's same undo
    assert again.status_code == 409 and again.json()["error"] == "la mano 3 ya no es la última: mira el marcador"
    assert again.json()["marcador"]["manos"] == 2
    assert confirmar(client, clave, 3).status_code == 201  # hand 3 entered again after the undo

    registros = client.get(f"/api/partidas/{clave}/exportar.json").json()
    assert len(registros) == 3 and all(r["jugadores"] == JUGADORES for r in registros)
    fichero = tmp_path / "partida.json"
    fichero.write_text(json.dumps(registros), encoding="utf-8")
    assert main(["tanteo", "--json", str(fichero)]) == 0
    leidos = json.loads(capsys.readouterr().out)
    assert [x["marcador"] for x in leidos] == [list(esperado(n).tantos) for n in (1, 2, 3)]
    csv = client.get(f"/api/partidas/{clave}/exportar.csv")
    assert csv.headers["content-type"].startswith("text/csv")
    filas = csv.text.strip().splitlines()
    assert len(filas) == 4 and filas[0].startswith("mano,mano_asiento,manos")
    assert filas[3].split(",")[:2] == ["3", "2"]


def test_the_same_id_mano_again_answers_the_stored_hand_and_scores_once(client: TestClient, app: FastAPI):
    clave = nueva(client)
    first = confirmar(client, clave, 1, id_mano="telefono-a-1")
    again = confirmar(client, clave, 1, id_mano="telefono-a-1")
    assert (first.status_code, again.status_code) == (201, 201)
    assert again.json()["repetida"] is True
    assert again.json()["tanteo"]["resultado"] == first.json()["tanteo"]["resultado"]
    assert again.json()["marcador"]["manos"] == 1
    late = confirmar(client, clave, 1, id_mano="telefono-a-1")  # after hand 2 too: still the stored one
    assert confirmar(client, clave, 2).status_code == 201 and late.json()["n"] == 1
    other = confirmar(client, clave, 2, id_mano="telefono-b-2")  # another phone's hand 2
    assert other.status_code == 409
    assert other.json()["error"] == "esta mano ya la confirmó otro teléfono"
    assert other.json()["marcador"]["manos"] == 2
    with app.state.web_sesiones() as s:
        assert s.scalar(select(func.count()).select_from(ManoPartida)) == 2


def test_two_phones_confirming_the_same_hand_at_once_score_it_once(client: TestClient, app: FastAPI):
    clave = nueva(client)
    assert confirmar(client, clave, 1).status_code == 201
    for n in (2, 3):
        salida: list[Any] = [None] * 4
        puerta = threading.Barrier(4)

        def telefono(i: int, n: int = n, salida: list[Any] = salida, puerta: threading.Barrier = puerta) -> None:
            c = TestClient(app)
            puerta.wait()
            # three phones with their own ids, the last two sending the same one
            salida[i] = confirmar(c, clave, n, id_mano=f"telefono-{n}-{min(i, 2)}")

        hilos = [threading.Thread(target=telefono, args=(i,)) for i in range(4)]
        for h in hilos:
            h.start()
        for h in hilos:
            h.join(60)
        codigos = sorted(r.status_code for r in salida)
        ganadores = [r for r in salida if r.status_code == 201 and not r.json()["repetida"]]
        assert len(ganadores) == 1, [r.text for r in salida]
        perdedores = [r for r in salida if r.status_code == 409]
        assert all(r.json()["error"] == "esta mano ya la confirmó otro teléfono" for r in perdedores)
        assert set(codigos) <= {201, 409}
        with app.state.web_sesiones() as s:
            assert s.scalar(select(func.count()).select_from(ManoPartida)) == n
    m = client.get(f"/api/partidas/{clave}").json()
    assert [x["tantos"] for x in m["parejas"]] == list(esperado(3).tantos)


def test_the_draft_outlives_the_app_and_a_stale_phone_is_told(url: str):
    a = crear_app(url)
    c = TestClient(a)
    clave = nueva(c)
    b = c.get(f"/api/partidas/{clave}/borrador").json()
    assert b["version"] == 0 and b["datos"]["n"] == 1 and b["datos"]["cartas"] == [None] * 4
    datos = b["datos"] | {
        "cartas": ["12o 12c", None, None, None],
        "asiento": 0,
        "paso": "cartas",
        "lances": {"pares": {"quiero": 5}},
    }
    r = c.put(f"/api/partidas/{clave}/borrador", json={"datos": datos, "version": 0})
    assert r.status_code == 200 and r.json() == {"version": 1}
    stale = c.put(f"/api/partidas/{clave}/borrador", json={"datos": b["datos"], "version": 0})
    assert stale.status_code == 409 and stale.json()["borrador"]["cartas"][0] == "12o 12c"
    a.state.servidor.engine.dispose()  # the server goes; a new one (another worker) over the same database

    a2 = crear_app(url)
    c2 = TestClient(a2)
    back = c2.get(f"/api/partidas/{clave}/borrador").json()
    assert back["version"] == 1 and back["datos"] == datos
    assert confirmar(c2, clave, 1, id_mano=datos["id_mano"]).status_code == 201
    fresh = c2.get(f"/api/partidas/{clave}/borrador").json()  # the hand is in: the next one starts clean
    assert fresh["datos"]["n"] == 2 and fresh["datos"]["cartas"] == [None] * 4
    assert fresh["datos"]["id_mano"] != datos["id_mano"]
    a2.state.servidor.engine.dispose()


def _a_la_vez(app: FastAPI, clave: str, version: int, veces: int = 15) -> list[Any]:
    """``veces`` phones (threads, each its own session and transaction, as server workers would
    be) saving the draft at once from the same ``version``, each with its own lances: the
    version each got, or the 409 error."""
    base, _ = servicio.leer_borrador(app.state.web_sesiones(), clave)
    puerta = threading.Barrier(veces)
    salida: list[Any] = [None] * veces

    def telefono(i: int) -> None:
        datos = base.model_copy(update={"lances": {"grande": {"quiero": 2 + i}}})
        with app.state.web_sesiones() as s:
            puerta.wait()
            try:
                with s.begin():
                    salida[i] = servicio.guardar_borrador(s, clave, datos, version)
            except servicio.WebError as exc:
                salida[i] = exc

    hilos = [threading.Thread(target=telefono, args=(i,)) for i in range(veces)]
    for h in hilos:
        h.start()
    for h in hilos:
        h.join(120)
    return salida


def test_fifteen_saves_of_one_version_at_once_one_wins_and_fourteen_get_409_with_it(client: TestClient, app: FastAPI):
    clave = nueva(client)
    for version in (0, 1):  # the first save of the hand (an INSERT), then one over a stored draft
        salida = _a_la_vez(app, clave, version)
        ganadores = [i for i, r in enumerate(salida) if isinstance(r, int)]
        assert len(ganadores) == 1, salida
        assert salida[ganadores[0]] == version + 1
        perdedores = [r for r in salida if isinstance(r, servicio.WebError)]
        assert len(perdedores) == 14 and {r.estado for r in perdedores} == {409}
        guardado = client.get(f"/api/partidas/{clave}/borrador").json()
        assert guardado["version"] == version + 1
        assert guardado["datos"]["lances"] == {"grande": {"quiero": 2 + ganadores[0]}}
        # every loser is told what the winner stored, to show it
        assert all(r.datos == {"borrador": guardado["datos"], "version": version + 1} for r in perdedores)


def test_a_save_over_another_phones_answers_409_with_the_stored_draft(client: TestClient):
    clave = nueva(client)
    datos = client.get(f"/api/partidas/{clave}/borrador").json()["datos"]
    mio = datos | {"lances": {"grande": {"quiero": 7}}}
    assert client.put(f"/api/partidas/{clave}/borrador", json={"datos": mio, "version": 0}).json() == {"version": 1}
    suyo = datos | {"lances": {"grande": {"no_quiero": 8, "gana": 1}}}
    otro = client.put(f"/api/partidas/{clave}/borrador", json={"datos": suyo, "version": 0})
    assert otro.status_code == 409 and otro.json()["borrador"]["lances"] == mio["lances"]
    assert otro.json()["version"] == 1
    assert otro.json()["error"] == "otro teléfono ha cambiado esta mano: se muestra lo suyo"
    # no version: the save overwrites whatever is there (a client that does not check)
    assert client.put(f"/api/partidas/{clave}/borrador", json={"datos": suyo}).json() == {"version": 2}


def test_a_draft_saved_in_another_shape_gives_a_fresh_hand(client1: TestClient):
    clave = nueva(client1)
    abrir = client1.app.state.web_sesiones
    with abrir() as s, s.begin():
        p = s.scalar(select(PartidaWeb).where(PartidaWeb.clave == clave))
        s.add(Borrador(partida_id=p.id, datos={"n": 1, "campo_de_otra_version": True}, version=4))
    b = client1.get(f"/api/partidas/{clave}/borrador")
    assert b.status_code == 200 and b.json()["version"] == 4 and b.json()["datos"]["cartas"] == [None] * 4
    datos = b.json()["datos"]
    assert client1.put(f"/api/partidas/{clave}/borrador", json={"datos": datos, "version": 4}).json() == {"version": 5}


def test_preview_says_which_lances_are_bet_and_the_tanteo_with_reasons(client: TestClient):
    clave = nueva(client)
    body = {"cartas": ["12o 12c", None, None, None], "lances": {"grande": {"quiero": 3}}}
    r = client.post(f"/api/partidas/{clave}/previsualizar", json=body)
    assert r.status_code == 200 and r.json()["tanteo"] is None
    assert [x["fila"] for x in r.json()["lances"]] == ["grande", "chica", "pares", "juego"]
    # nobody has juego: the fourth lance is punto; Ana and Carlos alone have pares
    cartas = ["12o 12c 5e 4b", "1o 4e 5o 6c", "7o 6o 5c 4o", "4c 5b 6b 7c"]
    body = {"cartas": cartas, "lances": {"pares": {"quiero": 4}, "juego": {"quiero": 2}}}
    doc = client.post(f"/api/partidas/{clave}/previsualizar", json=body).json()
    filas = {x["fila"]: x for x in doc["lances"]}
    assert filas["juego"]["lance"] == "punto" and filas["juego"]["apostable"] is True
    assert filas["pares"]["apostable"] is False and filas["pares"]["motivo"] == "Solo Ana y Carlos tienen pares"
    tan = doc["tanteo"]
    assert tan["parejas"] == ["Ana y Carlos", "Bea y Dani"]
    assert [f["lance"] for f in tan["filas"]] == tan["resultado"]["lances_jugados"]
    assert sum(r["tantos"] for r in tan["razones"]) == sum(tan["total"])
    assert all(r["razon"] for r in tan["razones"])
    en = client.post(f"/api/partidas/{clave}/previsualizar?lang=en", json=body).json()
    assert {x["nombre"] for x in en["lances"]} >= {"Grande", "Chica"}
    assert en["tanteo"]["parejas"] == [t("{0} y {1}", "en").format("Ana", "Carlos"), "Bea and Dani"]


def test_custom_toml_rules_and_the_match_length(client1: TestClient):
    toml = 'base = "segovia"\ntantos = 30\n'
    r = client1.post(
        "/api/partidas",
        json={"jugadores": JUGADORES, "reglas": "propio", "toml": toml, "juegos": 2, "vacas": 3, "mano": 2},
    )
    assert r.status_code == 201, r.text
    m = r.json()["marcador"]
    assert (m["tantos_juego"], m["juegos_por_vaca"], m["vacas_por_partida"], m["mano"]) == (30, 2, 3, 2)
    assert m["reglas"] == "propio"
    bad = client1.post("/api/partidas", json={"jugadores": JUGADORES, "reglas": "propio", "toml": "tantos = 3"})
    assert bad.status_code == 422 and bad.json()["error"] == "tantos debe ser un entero entre 10 y 100, no 3"
    broken = client1.post("/api/partidas", json={"jugadores": JUGADORES, "reglas": "propio", "toml": "tantos = ["})
    assert broken.status_code == 422 and broken.json()["error"].startswith("perfil subido: TOML inválido")
    assert client1.post("/api/partidas", json={"jugadores": JUGADORES, "reglas": "murcia"}).json() == {
        "error": "perfil de reglas desconocido: murcia"
    }


@pytest.mark.parametrize(
    ("body", "lang", "error"),
    [
        ({"jugadores": ["Ana", "Bea"]}, "es", "campo jugadores: debe tener al menos 4 elementos"),
        ({"jugadores": ["Ana", "Bea"]}, "en", "field jugadores: must have at least 4 items"),
        ({"jugadores": ["Ana", "Ana", "Eva", "Jon"]}, "es", "los cuatro nombres deben ser distintos"),
        ({"jugadores": ["Ana", "Ana", "Eva", "Jon"]}, "eu", "lau izenek desberdinak izan behar dute"),
        ({"jugadores": JUGADORES, "mano": 4}, "es", "campo mano: debe ser 3 o menos"),
    ],
)
def test_a_bad_partida_is_refused_with_one_line_in_the_players_language(
    client1: TestClient, body: dict, lang: str, error: str
):
    r = client1.post(f"/api/partidas?lang={lang}", json=body)
    assert r.status_code == 422 and r.json() == {"error": error}


def test_bad_hands_and_unknown_partidas_answer_clear_lines(client1: TestClient):
    clave = nueva(client1)
    cartas = MANOS[0][0]
    missing = client1.post(
        f"/api/partidas/{clave}/manos",
        json={"id_mano": "abcdefgh", "n": 1, "cartas": [cartas[0], None, cartas[2], "1o"]},
    )
    assert missing.status_code == 422 and missing.json()["error"] == "faltan las cartas de Bea, Dani"
    twice = client1.post(
        f"/api/partidas/{clave}/manos",
        json={"id_mano": "abcdefgh", "n": 1, "cartas": [cartas[0], cartas[0], cartas[2], cartas[3]]},
    )
    assert twice.status_code == 422 and "12o" in twice.json()["error"]
    en = client1.post(
        f"/api/partidas/{clave}/manos?lang=en",
        json={"id_mano": "abcdefgh", "n": 1, "cartas": [cartas[0], None, cartas[2], "1o"]},
    )
    assert en.json()["error"] == "the cards of Bea, Dani are missing"
    nope = client1.post(f"/api/partidas/{clave}/manos", json={"id_mano": "x", "n": 1, "cartas": cartas})
    assert nope.status_code == 422 and nope.json()["error"] == "campo id_mano: formato no válido"
    bet = client1.post(
        f"/api/partidas/{clave}/manos",
        json={"id_mano": "abcdefgh", "n": 1, "cartas": cartas, "lances": {"grande": {"quiero": "5"}}},
    )
    assert bet.status_code == 422 and bet.json()["error"] == "lance grande: los tantos son números enteros"
    assert client1.get("/api/partidas/no-existe-esta-partida").json() == {
        "error": "no existe esa partida: revisa el enlace"
    }
    assert client1.get("/api/partidas/no-existe-esta-partida?lang=eu").json() == {
        "error": "partida hori ez dago: begiratu esteka"
    }
    draft = client1.put(
        f"/api/partidas/{clave}/borrador",
        json={"datos": {"id_mano": "abcdefgh", "n": 1, "cartas": ["12o 12o", None, None, None]}},
    )
    assert draft.status_code == 422 and draft.json()["error"] == "la carta 12o está dos veces"
    huge = client1.put(
        f"/api/partidas/{clave}/borrador",
        content=b"{" + b" " * 70_000 + b"}",
        headers={"content-type": "application/json"},
    )
    assert huge.status_code == 413 and huge.json()["error"].startswith("cuerpo demasiado grande")
    assert client1.post(f"/api/partidas/{clave}/deshacer", json={"n": 1}).json()["error"] == (
        "no hay ninguna mano que deshacer"
    )


def test_the_tables_are_migrated_in_the_one_chain_and_version_table(url: str):
    a = crear_app(url)
    engine = a.state.servidor.engine
    try:
        tablas = set(inspect(engine).get_table_names())
        assert {"partidas", "manos_partida", "borradores", "alembic_version"} <= tablas
        assert {t for t in tablas if t.startswith("alembic")} == {"alembic_version"}
        with engine.connect() as conn:
            assert migraciones.revision_de(conn) == migraciones.ultima()
        migraciones.actualizar(engine)  # a second start finds it at head and changes nothing
    finally:
        engine.dispose()


def test_the_service_works_without_http(tmp_path: Path):
    a = crear_app(f"sqlite:///{tmp_path / 's.sqlite3'}")
    abrir = a.state.web_sesiones
    with abrir() as s, s.begin():
        clave = servicio.crear_partida(s, JUGADORES, servicio.reglas_de("ludoteka-4", juegos=3), 1, "en")
    with abrir() as s, s.begin():
        m = servicio.ver(s, clave, "en")
    assert m["mano_nombre"] == "Bea" and m["juegos_por_vaca"] == 3 and m["parejas"][0]["nombre"] == "Ana and Carlos"
    a.state.servidor.engine.dispose()


def test_a_bet_of_any_size_a_refused_raise_of_any_size_and_nothing_after_an_ordago(client: TestClient):
    clave = nueva(client)
    cartas = MANOS[0][0]
    base = {"id_mano": "apuestas-1", "n": 1, "cartas": cartas}
    # an envite of 7 and a refused re-raise of 8 (beyond the page's quick chips)
    previa = client.post(
        f"/api/partidas/{clave}/previsualizar",
        json={"cartas": cartas, "lances": {"grande": {"quiero": 7}, "chica": {"no_quiero": 8, "gana": 1}}},
    )
    assert previa.status_code == 200, previa.text
    filas = {f["lance"]: f["tantos"] for f in previa.json()["tanteo"]["filas"]}
    assert filas["chica"] == [0, 8] and sum(filas["grande"]) == 7
    # an accepted órdago at grande: no lance after it takes a bet, in whatever order the keys come
    for lances in (
        {"grande": {"ordago": "quiero"}, "pares": {"quiero": 2}},
        {"juego": {"no_quiero": 1, "gana": 0}, "grande": {"ordago": "quiero"}},
    ):
        for lang, error in (("es", "no se apuesta después de un órdago querido"), ("en", None)):
            r = client.post(f"/api/partidas/{clave}/manos?lang={lang}", json=base | {"lances": lances})
            assert r.status_code == 422
            assert r.json()["error"] == (error or t("no se apuesta después de un órdago querido", "en"))
    assert t("no se apuesta después de un órdago querido", "en") != "no se apuesta después de un órdago querido"
    ok = client.post(f"/api/partidas/{clave}/manos", json=base | {"lances": {"chica": {"ordago": "quiero"}}})
    assert ok.status_code == 201 and ok.json()["tanteo"]["avisos"][0].startswith("¡Órdago!")


def _hasta_el_final(client: TestClient, clave: str) -> list[Any]:
    """Accepted órdagos at grande until the partida ends (two juegos, one vaca)."""
    hechas = []
    for n in range(1, 6):
        ordago = {"grande": {"ordago": "quiero"}}
        body = {"id_mano": f"final-{n}-abcdef", "n": n, "cartas": MANOS[0][0], "lances": ordago}
        r = client.post(f"/api/partidas/{clave}/manos", json=body)
        assert r.status_code == 201, r.text
        hechas.append(r.json())
        if r.json()["marcador"]["terminada"]:
            return hechas
    raise AssertionError("the partida never ended")


def test_the_end_stays_visible_on_every_phone_and_another_partida_has_the_same_table(client: TestClient):
    clave = nueva(client, juegos=2, vacas=1, mano=1)
    hechas = _hasta_el_final(client, clave)
    m = client.get(f"/api/partidas/{clave}").json()  # what a second phone reads
    ganador = m["ganador"]
    assert m["terminada"] and m["parejas"][ganador]["juegos"] == 2  # not reset to 0/2
    assert m["parejas"][ganador]["vacas"] == 1
    assert m["avisos"] == hechas[-1]["tanteo"]["avisos"]  # every phone, not only the one that confirmed
    assert m["avisos"][0].startswith("¡Órdago!") and m["avisos"][-1].startswith("¡Partida para")
    assert m["siguiente"] is None
    # the hand page after the end goes to the marcador (no error page)
    mano = client.get(f"/p/{clave}/mano", follow_redirects=False)
    assert mano.status_code == 303 and mano.headers["location"] == f"/p/{clave}"
    pagina = client.get(f"/p/{clave}")
    assert pagina.status_code == 200 and pagina.text.count("¡Partida para") == 1
    assert 'id="otra_partida"' in pagina.text
    # two phones asking for another partida get the same one, with the same players and seats
    otra = client.post(f"/api/partidas/{clave}/otra")
    otra2 = client.post(f"/api/partidas/{clave}/otra")
    assert otra.status_code == otra2.status_code == 200 and otra.json() == otra2.json()
    nueva_m = client.get(otra.json()["url"].replace("/p/", "/api/partidas/")).json()
    assert nueva_m["jugadores"] == JUGADORES and nueva_m["mano"] == 1 and nueva_m["juegos_por_vaca"] == 2
    assert nueva_m["manos"] == 0 and not nueva_m["terminada"]
    assert client.get(f"/api/partidas/{clave}").json()["siguiente"] == otra.json()["clave"]
    assert 'id="ir_otra"' in client.get(f"/p/{clave}/parte").text
    # a partida still being played has no "otra partida"
    sigue = client.post(f"/api/partidas/{otra.json()['clave']}/otra")
    assert sigue.status_code == 409 and sigue.json()["error"] == "la partida aún no ha terminado"


def test_an_ended_partidas_last_hand_is_undone_only_until_another_partida_exists(client: TestClient):
    clave = nueva(client, juegos=2, vacas=1, mano=1)
    n = len(_hasta_el_final(client, clave))
    # a mistaken final hand: undone while no next partida exists, and the partida goes on
    assert 'id="deshacer_p" hidden' not in client.get(f"/p/{clave}").text
    r = client.post(f"/api/partidas/{clave}/deshacer", json={"n": n})
    assert r.status_code == 200 and not r.json()["terminada"] and r.json()["manos"] == n - 1
    body = {"id_mano": "final-otra-vez", "n": n, "cartas": MANOS[0][0], "lances": {"grande": {"ordago": "quiero"}}}
    r = client.post(f"/api/partidas/{clave}/manos", json=body)
    assert r.status_code == 201 and r.json()["marcador"]["terminada"], r.text
    otra = client.post(f"/api/partidas/{clave}/otra")
    assert otra.status_code == 200
    # once "otra partida" exists, the ended partida's undo is gone from the page and refused
    assert 'id="deshacer_p" hidden' in client.get(f"/p/{clave}").text
    assert 'data-siguiente="' + otra.json()["clave"] in client.get(f"/p/{clave}/parte").text
    n = client.get(f"/api/partidas/{clave}").json()["manos"]
    for lang, texto in (
        ("es", "Esta partida terminó y ya se empezó otra: sus manos no se deshacen"),
        ("en", "This partida has ended and another has started: its hands cannot be undone"),
    ):
        r = client.post(f"/api/partidas/{clave}/deshacer?lang={lang}", json={"n": n})
        assert r.status_code == 409 and r.json()["error"] == texto
    r = client.post(f"/api/partidas/{clave}/deshacer?lang=eu", json={"n": n})
    assert r.status_code == 409 and r.json()["error"] and "deshacen" not in r.json()["error"]
    m = client.get(f"/api/partidas/{clave}").json()
    assert m["terminada"] and m["manos"] == n


def test_a_hand_lost_to_another_phones_comes_back_with_the_stored_one(client: TestClient):
    clave = nueva(client)
    assert confirmar(client, clave, 1, id_mano="telefono-b-1", lances={"grande": {"quiero": 3}}).status_code == 201
    perdida = confirmar(client, clave, 1, id_mano="telefono-a-1", lances={"grande": {"quiero": 7}})
    assert perdida.status_code == 409 and perdida.json()["error"] == "esta mano ya la confirmó otro teléfono"
    guardada = perdida.json()["guardada"]
    assert guardada["id_mano"] == "telefono-b-1" and guardada["lances"] == {"grande": {"quiero": 3}}
    assert guardada["cartas"] == MANOS[0][0] and guardada["ultima"] is True and sum(guardada["total"]) > 0
    # the table keeps phone A's: undo the stored one, then A's goes in
    assert client.post(f"/api/partidas/{clave}/deshacer", json={"n": 1}).status_code == 200
    again = confirmar(client, clave, 1, id_mano="telefono-a-1", lances={"grande": {"quiero": 7}})
    assert again.status_code == 201 and again.json()["repetida"] is False


def test_the_same_draft_id_confirmed_with_other_lances_is_another_phones_hand(client: TestClient):
    """Two phones on one hand share the draft's id_mano: the phone that confirmed offline, with
    other lances, is told its hand lost (409 with the stored one), not answered as if stored."""
    clave = nueva(client)
    assert confirmar(client, clave, 1, id_mano="borrador-1", lances={"grande": {"quiero": 3}}).status_code == 201
    perdida = confirmar(client, clave, 1, id_mano="borrador-1", lances={"grande": {"quiero": 2}})
    assert perdida.status_code == 409 and perdida.json()["error"] == "esta mano ya la confirmó otro teléfono"
    assert perdida.json()["guardada"]["lances"] == {"grande": {"quiero": 3}}
    # the same hand again (an answer that was lost) is still the stored one
    again = confirmar(client, clave, 1, id_mano="borrador-1", lances={"grande": {"quiero": 3}})
    assert again.status_code in (200, 201) and again.json()["repetida"] is True
    # read as the record was: a paso left out, the juego row of a hand without juego is punto
    sin_juego = ["1o 2o 3o 4o", "1c 2c 3c 4c", "1e 2e 3e 4e", "1b 2b 3b 5b"]
    for lances in ({"juego": {"quiero": 2}, "grande": "paso"}, {"punto": {"quiero": 2}}):
        body = {"id_mano": "borrador-2", "n": 2, "cartas": sin_juego, "lances": lances}
        assert client.post(f"/api/partidas/{clave}/manos", json=body).status_code == 201
        repetida = client.post(f"/api/partidas/{clave}/manos", json=body)
        assert repetida.status_code in (200, 201) and repetida.json()["repetida"] is True, repetida.text
        assert client.post(f"/api/partidas/{clave}/deshacer", json={"n": 2}).status_code == 200


def _a_la_vez_http(base_url: str, clave: str, datos: dict[str, Any], version: int) -> list[Any]:
    """15 phones PUT the draft at once from ``version``, each with its own lances."""
    import httpx

    puerta = threading.Barrier(15)
    salida: list[Any] = [None] * 15

    def telefono(i: int) -> None:
        body = {"datos": datos | {"lances": {"grande": {"quiero": 2 + i}}}, "version": version}
        with httpx.Client(timeout=120) as c:
            puerta.wait()
            salida[i] = c.put(f"{base_url}/api/partidas/{clave}/borrador", json=body)

    hilos = [threading.Thread(target=telefono, args=(i,)) for i in range(15)]
    for h in hilos:
        h.start()
    for h in hilos:
        h.join(180)
    return salida


@pytest.mark.parametrize("kind", ["sqlite", "postgresql"])
def test_fifteen_saves_at_once_through_mus_servir_with_two_workers(
    request: pytest.FixtureRequest, tmp_path: Path, kind: str
) -> None:
    """The same race as phones make it: 15 PUTs at once over HTTP to `mus servir` with two
    worker processes sharing the database; one accepted, 14 told 409 with the winner's draft."""
    pytest.importorskip("uvicorn")
    import httpx

    from tests.navegador import Servir

    url = None if kind == "sqlite" else _url(request, tmp_path, kind)
    servidor = Servir(tmp_path, url=url, trabajadores=2)
    servidor.start()
    try:
        r = httpx.post(f"{servidor.base}/api/partidas", json={"jugadores": JUGADORES}, timeout=60)
        clave = r.json()["clave"]
        base = httpx.get(f"{servidor.base}/api/partidas/{clave}/borrador", timeout=60).json()["datos"]
        for version in (0, 1):  # the hand's first save, then one over the stored draft
            salida = _a_la_vez_http(servidor.base, clave, base, version)
            assert sorted(r.status_code for r in salida) == [200] + [409] * 14, [r.text for r in salida]
            ganador = next(i for i, r in enumerate(salida) if r.status_code == 200)
            assert salida[ganador].json() == {"version": version + 1}
            guardado = httpx.get(f"{servidor.base}/api/partidas/{clave}/borrador", timeout=60).json()
            assert guardado["datos"]["lances"] == {"grande": {"quiero": 2 + ganador}}
            assert all(r.json()["borrador"] == guardado["datos"] for r in salida if r.status_code == 409)
    finally:
        servidor.stop()


def _mano_al_azar(rng: random.Random, n: int) -> dict[str, Any]:
    from scoring.cards import CARD_IDS

    c = rng.sample(CARD_IDS, 16)
    lances = {"grande": {"ordago": "quiero"}} if n % 7 == 0 else {"grande": {"quiero": rng.choice([2, 5, 10])}}
    return {
        "id_mano": f"azar-{n}-{rng.randrange(10**8):08d}",
        "n": n,
        "cartas": [" ".join(c[i : i + 4]) for i in range(0, 16, 4)],
        "lances": lances,
    }


def test_the_marcador_from_the_stored_tanteos_is_the_replayed_one_over_a_whole_partida(
    client: TestClient, app: FastAPI, monkeypatch: pytest.MonkeyPatch
):
    """Every step of a long partida (undos, the end of juegos and vacas, the partida's end,
    another partida started) in two languages: the marcador answered from the stored tanteos
    is exactly the one the replay of every hand gives, and no hand is scored for it."""
    clave = nueva(client, juegos=2, vacas=2, mano=2)
    rng = random.Random(54)
    abrir = app.state.web_sesiones.begin
    registrar = Partida.registrar
    pasos = 0

    def comparar() -> None:
        with abrir() as s:
            for idioma in ("es", "eu"):
                replay = servicio.marcador(servicio.control(s, clave, idioma))
                with monkeypatch.context() as m:  # the marcador scores no hand
                    m.setattr(Partida, "registrar", lambda *a, **k: pytest.fail("a hand scored again"))
                    assert servicio.ver(s, clave, idioma) == replay
                assert Partida.registrar is registrar

    n, deshechas = 1, set()
    while True:
        r = client.post(f"/api/partidas/{clave}/manos", json=_mano_al_azar(rng, n))
        assert r.status_code == 201, r.text
        comparar()
        pasos += 1
        if r.json()["marcador"]["terminada"]:
            break
        if n % 5 == 0 and n not in deshechas:  # undone, and another hand entered in its place
            assert client.post(f"/api/partidas/{clave}/deshacer", json={"n": n}).status_code == 200
            deshechas.add(n)
            comparar()
            continue
        n += 1
    assert n > 10 and pasos > n
    fin = client.get(f"/api/partidas/{clave}").json()
    assert fin["terminada"] and fin["avisos"][-1].startswith("¡Partida para")
    assert client.post(f"/api/partidas/{clave}/otra").status_code == 200
    comparar()


def test_an_unchanged_marcador_answers_304_and_every_change_gives_a_new_etag(client: TestClient):
    clave = nueva(client, juegos=2, vacas=1)
    vistas: list[str] = []

    def etag(ruta: str = f"/api/partidas/{clave}", **cabeceras: str) -> str:
        r = client.get(ruta, headers=cabeceras)
        assert r.status_code == 200 and r.headers["cache-control"] == "no-cache"
        assert client.get(ruta, headers={"If-None-Match": r.headers["etag"], **cabeceras}).status_code == 304
        return str(r.headers["etag"])

    def nueva_version() -> str:
        e = etag()
        assert e not in vistas
        vistas.append(e)
        r = client.get(f"/api/partidas/{clave}", headers={"If-None-Match": e})
        assert r.status_code == 304 and r.content == b"" and r.headers["etag"] == e
        return e

    nueva_version()
    assert etag(f"/p/{clave}/parte") == vistas[0]  # the page's poll shares it
    assert etag(**{"Accept-Language": "eu"}) not in vistas  # another language, another answer
    assert confirmar(client, clave, 1).status_code == 201
    nueva_version()
    assert client.get(f"/api/partidas/{clave}", headers={"If-None-Match": vistas[0]}).status_code == 200
    assert client.post(f"/api/partidas/{clave}/deshacer", json={"n": 1}).status_code == 200
    assert etag() == vistas[0]  # back to the marcador before hand 1, which it is again
    assert client.get(f"/api/partidas/{clave}", headers={"If-None-Match": vistas[1]}).status_code == 200
    assert confirmar(client, clave, 1).status_code == 201  # the same n again: a new hand
    nueva_version()
    guardar = client.put(f"/api/partidas/{clave}/borrador", json={"datos": {"id_mano": "borrador-1", "n": 2}})
    assert guardar.status_code == 200  # a draft step changes no marcador
    assert client.get(f"/api/partidas/{clave}", headers={"If-None-Match": vistas[-1]}).status_code == 304
    for n in range(2, 6):
        body = {
            "id_mano": f"final-{n}-abcdef",
            "n": n,
            "cartas": MANOS[0][0],
            "lances": {"grande": {"ordago": "quiero"}},
        }
        hecha = client.post(f"/api/partidas/{clave}/manos", json=body)
        assert hecha.status_code == 201
        nueva_version()
        if hecha.json()["marcador"]["terminada"]:
            break
    assert client.post(f"/api/partidas/{clave}/otra").status_code == 200
    assert nueva_version() and client.get(f"/api/partidas/{clave}").json()["siguiente"]
