"""A tournament table from a phone (server/servicios/mesa_torneo.py, server/rutas/mesa_torneo.py) against a real
tournament server on the loopback: joined by the table's code or by the link in its QR code, three
hands played through the partida's API the hand pages use, each stored on the tournament server
once even when sent again, a tanteo that differs sent again with the server's and recorded as an
incident, and the hands of a lost network sent when it comes back.

Two setups, as in use: the one server (`mus servir`'s app, the tournament and the phone pages
together: the hands written in-process, with no request over the network, stored and scored
once), and a table's own server for the phones beside a tournament server elsewhere that its
operator configured (`--torneo-remoto`; the phone pages in a TestClient, the tournament server in
uvicorn); and a phone in Chromium (390x844, touch) against `mus servir` started as a person
starts it, opening the link in the table's QR code. A server no one configured is never connected
to (a loopback listener sees no connection) and leaves no queue. Screenshots go to
$MUSMESA_CAPTURAS or a temp folder."""

from __future__ import annotations

import argparse
import contextlib
import datetime as dt
import json
import re
import socket
import threading
import time
import urllib.request
import uuid
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("fastapi")
pytest.importorskip("uvicorn")
import cv2
import httpx
import numpy as np
import psycopg
from sqlalchemy import create_engine, delete, select, update
from sqlalchemy.orm import Session

from mesa.torneo import http, texto_qr_cualquiera
from server.main import crear_app
from server.modelos.partidas import ManoPartida, PartidaWeb
from server.modelos.torneo import Enfrentamiento, Incidencia, Mano, ManoRemota, MesaRemota, TokenMesa, Torneo, ahora
from server.servicios import mesa_torneo
from tests.cliente_web import ClienteWeb as TestClient
from tests.servidor_torneo import Server, hash_barato, postgres, torneo_en_marcha  # noqa: F401 (fixtures by name)
from tests.test_app_torneo_mesa import MANOS

LANCES = [{}, {"grande": {"no_quiero": 2, "gana": 0}}, {"chica": {"quiero": 2}}]


def app_web(url: str, datos: Path) -> Any:
    return crear_app(url, datos, limite_entradas=1000)


@pytest.fixture
def torneo(tmp_path: Path) -> Iterator[tuple[Server, list[str]]]:
    """The tournament server alone (uvicorn), four parejas at two tables, round one started."""
    with torneo_en_marcha(tmp_path, "Open", "segovia", juegos=None) as running:
        yield running


def remotos(app: Any, request: pytest.FixtureRequest) -> Any:
    """The test's tournament server (the ``torneo`` fixture, when the test uses it) as the one
    remote server the operator configured (`mus servir --torneo-remoto URL`)."""
    app.state.torneos_remotos = (request.getfixturevalue("torneo")[0].base,) if "torneo" in request.fixturenames else ()
    return app


@pytest.fixture
def telefono(tmp_path: Path, request: pytest.FixtureRequest) -> Iterator[TestClient]:
    """The table's own server for the phones (not the tournament server), over SQLite."""
    datos = tmp_path / "mesa"
    datos.mkdir()
    app = remotos(app_web(f"sqlite:///{datos / 'web.sqlite3'}", datos), request)
    with TestClient(app, follow_redirects=False) as client:
        yield client


@pytest.fixture
def telefono_pg(tmp_path: Path, request: pytest.FixtureRequest) -> Iterator[TestClient]:
    """The same over PostgreSQL (a new database in the module's throwaway cluster)."""
    base = request.getfixturevalue("postgres")
    name = f"w_{uuid.uuid4().hex[:12]}"
    with psycopg.connect(base, autocommit=True) as conn:
        conn.execute(f"CREATE DATABASE {name}")
    app = remotos(app_web(base.rsplit("/", 1)[0] + f"/{name}", tmp_path), request)
    with TestClient(app, follow_redirects=False) as client:
        yield client
    app.state.servidor.engine.dispose()


def unirse(client: Any, codigo: str, servidor: str | None = None) -> str:
    page = client.get("/mesa")  # the join form as a phone opens it: its token in a hidden field
    token = re.search(r'name="csrf" value="([^"]+)"', page.text)
    assert token, page.text
    form = {"codigo": codigo, "csrf": token[1]} | ({"servidor": servidor} if servidor else {})
    r = client.post("/mesa", data=form, headers={"Origin": str(client.base_url).rstrip("/")})
    assert r.status_code == 303, r.text
    clave = r.headers["location"].rsplit("/", 1)[1]
    assert r.headers["location"] == f"/mesa/{clave}"
    return clave


def jugar(client: Any, clave: str, k: int) -> dict[str, Any]:
    """Hand ``k`` confirmed as the hand page confirms it (its draft's id and number)."""
    draft = client.get(f"/api/partidas/{clave}/borrador").json()["datos"]
    body = {"id_mano": draft["id_mano"], "n": draft["n"], "cartas": MANOS[k], "lances": LANCES[k]}
    r = client.post(f"/api/partidas/{clave}/manos", json=body)
    assert r.status_code == 201, r.text
    return r.json() | {"cuerpo": body}


def enviar(client: Any, clave: str) -> dict[str, Any]:
    r = client.post(f"/api/partidas/{clave}/torneo/enviar")
    assert r.status_code == 200, r.text
    return r.json()


def en_el_servidor(server: Server) -> list[Mano]:
    engine = create_engine(server.url)
    with Session(engine) as s:
        rows = list(s.scalars(select(Mano).where(Mano.anulada.is_(False)).order_by(Mano.id)))
    engine.dispose()
    return rows


def llegan(server: Server, ids: list[str], segundos: float = 30) -> bool:
    """Whether the tournament server holds exactly the hands ``ids``, in order, within ``segundos``
    (sent by a background thread: the condition itself is waited for, checked every 50 ms)."""
    deadline = time.monotonic() + segundos
    while [row.cliente_id for row in en_el_servidor(server)] != ids and time.monotonic() < deadline:
        time.sleep(0.05)
    return [row.cliente_id for row in en_el_servidor(server)] == ids


def test_join_by_the_code_typed_plays_three_hands_stored_once(torneo, telefono: TestClient):
    tres_manos_una_vez(*torneo, telefono)


def test_the_same_with_the_phones_server_on_postgresql(torneo, telefono_pg: TestClient):
    tres_manos_una_vez(*torneo, telefono_pg)


def tres_manos_una_vez(server: Server, codes: list[str], telefono: TestClient) -> None:
    page = telefono.post("/mesa", data={"codigo": "hola", "servidor": server.base})
    assert page.status_code == 422 and "el código de mesa tiene 10 letras" in page.text
    assert 'value="hola"' in page.text  # the form as typed
    typed = "-".join([codes[0][:5].lower(), codes[0][5:]])
    clave = unirse(telefono, typed, server.base)
    page = telefono.get(f"/mesa/{clave}")
    assert page.status_code == 200 and "Open" in page.text and 'id="nueva_mano"' in page.text
    token = cola(telefono)[0].token  # the table's queue: in the phones' server's database
    match = http(server.base)("GET", "/api/mesa/partida", None, token)[1]
    m = telefono.get(f"/api/partidas/{clave}").json()
    assert m["jugadores"] == match["jugadores"] and m["mano"] == match["mano"]  # the partida is the match
    with Session(telefono.app.state.servidor.engine) as s:  # the join code stays out of the database
        assert codes[0] not in json.dumps(s.scalar(select(PartidaWeb.torneo)))
    hand_page = telefono.get(f"/p/{clave}/mano")  # the partida's own hand page, told whose match it is
    assert 'id="mano_torneo"' in hand_page.text and f'href="/mesa/{clave}"' in hand_page.text
    hands = [jugar(telefono, clave, k) for k in range(3)]
    # each confirm sends its hand once answered (in the remote servers' own threads)
    assert llegan(server, [h["id_mano"] for h in hands])
    state = enviar(telefono, clave)
    assert state["pendientes"] == 0 and state["conexion"] and not state["rechazadas"]
    stored = en_el_servidor(server)
    assert [row.cliente_id for row in stored] == [h["id_mano"] for h in hands]
    assert [row.marcador for row in stored] == [h["tanteo"]["resultado"]["marcador"] for h in hands]
    assert state["marcador_servidor"]["manos"] == 3
    tantos = [p["tantos"] for p in hands[-1]["marcador"]["parejas"]]
    assert state["marcador_servidor"]["tantos"] == tantos

    # sent again: the same hand confirmed twice, the queue's answers lost, another phone joining
    again = telefono.post(f"/api/partidas/{clave}/manos", json=hands[2]["cuerpo"])
    assert again.status_code == 201 and again.json()["repetida"]
    with Session(telefono.app.state.servidor.engine) as s, s.begin():
        s.execute(update(ManoRemota).values(estado="pendiente", respuesta=None))
    assert unirse(telefono, codes[0], server.base) == clave  # the same partida, its queue kept
    state = enviar(telefono, clave)
    assert state["pendientes"] == 0 and not state["rechazadas"]
    # sent again, and answered as the first time
    assert [(m.estado, m.respuesta is not None) for m in cola(telefono)[1]] == [("enviada", True)] * 3
    assert [row.cliente_id for row in en_el_servidor(server)] == [h["id_mano"] for h in hands]
    # a hand is not undone in a tournament: the server holds it
    undo = telefono.post(f"/api/partidas/{clave}/deshacer", json={"n": 3})
    assert undo.status_code == 409 and "avisa al árbitro" in undo.json()["error"]
    # the hand page goes back to the partida's page after a confirm: here it is the table's
    assert telefono.get(f"/p/{clave}").headers["location"] == f"/mesa/{clave}"


def test_a_tanteo_that_differs_is_taken_with_the_servers_and_becomes_an_incident(
    torneo, telefono: TestClient, monkeypatch: pytest.MonkeyPatch
):
    server, codes = torneo
    clave = unirse(telefono, codes[1], server.base)
    # the hands are sent below, once one of them carries another count than the rules'
    monkeypatch.setattr(mesa_torneo, "enviar_si_torneo", lambda *args: None)
    jugar(telefono, clave, 0)
    second = jugar(telefono, clave, 1)
    rules = second["tanteo"]["resultado"]["marcador"]
    counted = [rules[0] + 1, rules[1]]  # the table counted one tanto more than the rules give
    engine = telefono.app.state.servidor.engine
    with Session(engine) as s, s.begin():
        row = s.scalar(select(ManoPartida).where(ManoPartida.id_mano == second["id_mano"]))
        row.tanteo = row.tanteo | {"marcador": counted}
    jugar(telefono, clave, 2)
    state = enviar(telefono, clave)
    assert state["pendientes"] == 0 and not state["rechazadas"]
    assert state["correcciones"] == [
        f"Mano 2 corregida por el servidor: de {counted[0]}-{counted[1]} a {rules[0]}-{rules[1]}"
    ]
    stored = en_el_servidor(server)
    assert [row.cliente_id for row in stored] == [stored[0].cliente_id, second["id_mano"] + ":s", stored[2].cliente_id]
    assert stored[1].discrepancia == counted and stored[1].marcador == rules
    engine = create_engine(server.url)
    with Session(engine) as s:
        incidents = list(s.scalars(select(Incidencia).where(Incidencia.tipo == "discrepancia_tanteo")))
    engine.dispose()
    assert len(incidents) == 1 and f"la mesa contó {counted}" in incidents[0].razon
    page = telefono.get(f"/mesa/{clave}?lang=en")
    assert "Hand 2 corrected by the server" in page.text
    # this partida's marcador counts as the server's
    mine = [p["tantos"] for p in telefono.get(f"/api/partidas/{clave}").json()["parejas"]]
    assert mine == state["marcador_servidor"]["tantos"] == stored[2].marcador


def sin_envios_en_curso() -> None:
    """Wait until every send queued in the remote threads so far has ended: one task per thread
    that holds it until all of them hold theirs (the queue is first in, first out, so every
    earlier task has left its thread by then)."""
    n = mesa_torneo.HILOS_REMOTOS
    barrera = threading.Barrier(n + 1, timeout=60)
    for _ in range(n):
        mesa_torneo.en_hilo_remoto(barrera.wait)
    barrera.wait()


def test_a_remote_tables_queue_is_shared_by_two_hosts_over_one_database(torneo, tmp_path: Path):
    """Two hosts of the phones' server (two apps, each with its own data folder) over one
    database: the table joined through one is sent by the other, which finds the queue, the
    token and the code in the database; one sender at a time whichever host asks."""
    from server.servicios import cola_remota

    server, codes = torneo
    url = f"sqlite:///{tmp_path / 'compartida.sqlite3'}"
    hosts = []
    for nombre in ("a", "b"):
        (tmp_path / nombre).mkdir()
        app = app_web(url, tmp_path / nombre)
        app.state.torneos_remotos = (server.base,)
        hosts.append(TestClient(app, follow_redirects=False))
    a, b = hosts
    with a, b:
        clave = unirse(a, codes[0], server.base)
        hands = [jugar(b, clave, k) for k in range(2)]  # the phones now served by the other host
        state = enviar(b, clave)
        assert state["conexion"] and state["pendientes"] == 0 and not state["rechazadas"]
        assert [row.cliente_id for row in en_el_servidor(server)] == [h["id_mano"] for h in hands]
        assert enviar(a, clave)["pendientes"] == 0  # and the first host sees it sent
        sin_envios_en_curso()  # the sends the confirms queued in the background are over too
        mesa, filas = cola(a)
        assert [f.id_mano for f in filas] == [h["id_mano"] for h in hands] and mesa.envio_hasta is None

        with (
            cola_remota.turno(_sesiones(a), mesa.clave, esperar=False) as mio,
            cola_remota.turno(_sesiones(b), mesa.clave, esperar=False) as otro,
        ):
            assert mio and not otro  # one sender: the second host leaves it to the first
        with cola_remota.turno(_sesiones(b), mesa.clave, esperar=False) as otro:
            assert otro  # given back when the send ends
        with cola_remota.turno(_sesiones(a), mesa.clave, esperar=False) as mio:
            # the first host killed while it sends: its lease runs out, and another host sends
            with Session(a.app.state.servidor.engine) as s, s.begin():
                s.execute(update(MesaRemota).values(envio_hasta=ahora() - dt.timedelta(seconds=1)))
            with cola_remota.turno(_sesiones(b), mesa.clave, esperar=False) as otro:
                assert mio and otro


def _sesiones(client: TestClient) -> Any:
    """The app's transaction factory, as the routes get it (server.deps.sesiones)."""
    engine = client.app.state.servidor.engine

    @contextlib.contextmanager
    def abrir() -> Iterator[Session]:
        with Session(engine) as s, s.begin():
            yield s

    return abrir


def test_the_network_lost_mid_match_then_back_sends_the_queue(torneo, telefono: TestClient):
    server, codes = torneo
    clave = unirse(telefono, codes[0], server.base)
    first = jugar(telefono, clave, 0)
    assert enviar(telefono, clave)["pendientes"] == 0
    server.stop()  # the network goes: the table plays on
    later = [jugar(telefono, clave, k) for k in (1, 2)]
    state = enviar(telefono, clave)
    assert not state["conexion"] and state["pendientes"] == 2
    page = telefono.get(f"/mesa/{clave}")
    assert 'id="sin_servidor"' in page.text and "2 manos sin enviar" in page.text
    server.start()
    state = enviar(telefono, clave)
    assert state["conexion"] and state["pendientes"] == 0
    assert [row.cliente_id for row in en_el_servidor(server)] == [h["id_mano"] for h in [first, *later]]


def test_a_refused_hand_is_set_aside_with_what_to_do(torneo, telefono: TestClient):
    server, codes = torneo
    clave = unirse(telefono, codes[0], server.base)
    engine = create_engine(server.url)  # the referee closes the match on the server meanwhile
    with Session(engine) as s, s.begin():
        s.execute(update(Enfrentamiento).values(ganador=0))
    engine.dispose()
    jugar(telefono, clave, 0)
    state = enviar(telefono, clave)
    assert state["pendientes"] == 1 and len(state["rechazadas"]) == 1
    assert state["rechazadas"][0].startswith("Mano 1 rechazada: ")
    assert "Llamad al árbitro" in state["rechazadas"][0]
    page = telefono.get(f"/mesa/{clave}")
    assert 'id="reintentar"' in page.text


def test_a_token_no_longer_good_is_mended_by_retry_which_joins_again(torneo, telefono: TestClient):
    server, codes = torneo
    clave = unirse(telefono, codes[0], server.base)
    engine = create_engine(server.url)  # the server forgets the table's token
    with Session(engine) as s, s.begin():
        s.execute(delete(TokenMesa))
    engine.dispose()
    first = jugar(telefono, clave, 0)
    state = enviar(telefono, clave)
    assert state["pendientes"] == 1 and state["rechazadas"][0].splitlines()[1].startswith("Toca Reintentar")
    r = telefono.post(f"/mesa/{clave}/reintentar")
    assert r.status_code == 303 and r.headers["location"] == f"/mesa/{clave}"
    state = telefono.get(f"/api/partidas/{clave}/torneo").json()
    assert state["pendientes"] == 0 and not state["rechazadas"]
    assert [row.cliente_id for row in en_el_servidor(server)] == [first["id_mano"]]


def test_the_one_server_a_phone_opens_the_tables_qr_code(tmp_path: Path):
    """`mus servir`'s app is the tournament server too: the organiser's QR code of a table holds
    the link of the table's page on it, a phone's camera opens it, and the page joins itself."""
    datos = tmp_path / "datos"
    datos.mkdir()
    with torneo_en_marcha(tmp_path, fabrica=lambda url: app_web(url, datos)) as (server, codes):
        phone = httpx.Client(base_url=server.base, follow_redirects=False, timeout=20)
        token = phone.post("/api/sesion", json={"usuario": "ana", "clave": "una-clave-larga"}).json()["token"]
        png = phone.get("/torneos/1/mesas/2/qr.png", headers={"Authorization": f"Bearer {token}"})
        assert png.status_code == 200
        frame = cv2.imdecode(np.frombuffer(png.content, np.uint8), cv2.IMREAD_COLOR)
        link = texto_qr_cualquiera(frame)
        assert link == f"{server.base}/mesa?codigo={codes[1]}"
        page = phone.get(link.removeprefix(server.base))  # what the camera app opens
        assert page.status_code == 200
        form = dict(re.findall(r'<input id="(codigo|servidor)" name="\w+" value="([^"]*)"', page.text))
        assert form == {"codigo": codes[1], "servidor": server.base}
        clave = unirse(phone, form["codigo"], form["servidor"])
        assert "P1" in phone.get(f"/mesa/{clave}").text or "P2" in phone.get(f"/mesa/{clave}").text
        hands = [jugar(phone, clave, k) for k in range(3)]
        assert enviar(phone, clave)["pendientes"] == 0
        assert [row.cliente_id for row in en_el_servidor(server)] == [h["id_mano"] for h in hands]
        phone.close()


def test_an_unknown_table_page_is_a_page_in_the_players_language(telefono: TestClient):
    page = telefono.get(f"/mesa/{uuid.uuid4().hex[:22]}?lang=en")
    assert page.status_code == 404 and "<html" in page.text and "Traceback" not in page.text
    # a partida that plays no match has no table page and its hand page says nothing of one
    clave = telefono.post("/api/partidas", json={"jugadores": ["a", "b", "c", "d"]}).json()["clave"]
    page = telefono.get(f"/mesa/{clave}?lang=en")
    assert page.status_code == 404 and "this partida is not a tournament one" in page.text
    assert 'id="mano_torneo"' not in telefono.get(f"/p/{clave}/mano").text


# -- no outbound connection chosen by a client ---------------------------------------------------


@contextlib.contextmanager
def escucha() -> Iterator[tuple[socket.socket, str]]:
    """A listener on a free loopback port that never accepts nor answers: a connection made to
    it waits in its backlog, where the test sees it."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.bind(("127.0.0.1", 0))
        sock.listen(16)
        sock.setblocking(False)
        yield sock, f"http://127.0.0.1:{sock.getsockname()[1]}"


def conectado(sock: socket.socket) -> bool:
    """Whether anything connected to the listener (a connection waits to be accepted)."""
    try:
        conn, _ = sock.accept()
    except BlockingIOError:
        return False
    conn.close()
    return True


def colas(client: TestClient) -> list[str]:
    """The remote tables' queues in the phones' server's database (and nothing in its data folder)."""
    assert not (Path(client.app.state.datos) / "mesas-torneo").exists()
    with Session(client.app.state.servidor.engine) as s:
        return sorted(s.scalars(select(MesaRemota.clave)))


def cola(client: TestClient) -> tuple[MesaRemota, list[ManoRemota]]:
    """The one remote table's row and its queue, in order."""
    with Session(client.app.state.servidor.engine) as s:
        mesa = s.scalars(select(MesaRemota)).one()
        return mesa, list(s.scalars(select(ManoRemota).order_by(ManoRemota.numero)))


NO_CONFIGURADO = {
    "es": "este servidor solo envía las manos a los servidores de torneo que tiene configurados",
    "en": "this server only sends the hands to the tournament servers it was set up with",
    "eu": "zerbitzari honek konfiguratuta dituen txapelketa-zerbitzariei bakarrik bidaltzen dizkie eskuak",
}


def test_a_server_no_one_configured_is_never_connected_to(torneo, telefono: TestClient):
    """The SSRF probe: a join naming any server but this one and the configured one (an address
    and port of the request's choosing, in the JSON, the form or the QR code's link) is refused
    in the player's language before anything is opened: no connection reaches the listener, no
    queue is made, and the answer says nothing of the network."""
    server, codes = torneo
    with escucha() as (sock, otro):
        port = otro.rsplit(":", 1)[1]
        pedidos = [
            {"codigo": codes[0], "servidor": otro},
            {"codigo": f"{otro}/mesa?codigo={codes[0]}"},  # the QR code's link names the server
            {"codigo": codes[0], "servidor": otro.removeprefix("http://")},  # typed without http://
            {"codigo": codes[0], "servidor": server.base.rsplit(":", 1)[0] + ":" + port},  # another port
            {"codigo": codes[0], "servidor": server.base.replace("http://", "http://x@")},  # a user part
        ]
        for body in pedidos:
            for idioma, texto in NO_CONFIGURADO.items():
                r = telefono.post(f"/api/mesas-torneo?lang={idioma}", json=body)
                assert r.status_code == 422, (body, r.text)
                assert texto in r.json()["error"] and port not in r.text and "onnect" not in r.text
        page = telefono.post("/mesa?lang=en", data={"codigo": codes[0], "servidor": otro})
        assert page.status_code == 422 and NO_CONFIGURADO["en"] in page.text and 'id="error"' in page.text
        assert not conectado(sock)
    assert colas(telefono) == []
    # a configured server that refuses the code: said, and no queue left for the attempt
    page = telefono.post("/mesa?lang=es", data={"codigo": "AB2C3D4E5F", "servidor": server.base})
    assert page.status_code == 409 and "código de mesa desconocido" in page.text
    assert colas(telefono) == []
    clave = unirse(telefono, codes[0], server.base + "/")  # the configured one, in any spelling, still joins
    assert len(colas(telefono)) == 1
    # the operator leaves that server out (started again without it): the table joined before
    # sends nothing there and says why
    telefono.app.state.torneos_remotos = ()
    jugar(telefono, clave, 0)
    state = enviar(telefono, clave)
    assert not state["conexion"] and state["pendientes"] == 1 and NO_CONFIGURADO["es"] in state["aviso"]
    assert en_el_servidor(server) == []


def test_a_configured_server_that_never_answers_is_said_without_network_details(
    telefono: TestClient, monkeypatch: pytest.MonkeyPatch
):
    """A configured server that takes the connection and never answers: the join gives up after
    the short timeout with a line that names no address, and leaves no queue."""
    monkeypatch.setattr(mesa_torneo, "TIMEOUT_REMOTO", 0.2)
    with escucha() as (sock, otro):
        telefono.app.state.torneos_remotos = (otro,)
        r = telefono.post("/api/mesas-torneo?lang=en", json={"codigo": "AB2C3D4E5F", "servidor": otro})
        assert r.status_code == 503 and r.json()["error"].startswith("the tournament server cannot be reached")
        assert otro.rsplit(":", 1)[1] not in r.text and "timed out" not in r.text
        assert conectado(sock)  # configured: this one is connected to
    assert colas(telefono) == []


def test_mus_servir_takes_the_remote_tournament_servers_from_its_options(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
):
    from server import cli

    for name in (cli.ENV_URL, cli.ENV_DATOS, cli.ENV_LAN, cli.ENV_LIMITE, cli.ENV_REMOTOS):
        monkeypatch.setenv(name, "")  # run() writes them for its workers: put back after the test
    parser = argparse.ArgumentParser()
    cli.configure(parser)
    args = parser.parse_args(["--datos", str(tmp_path), "--torneo-remoto", "http://t.club", "--torneo-remoto", "x://y"])
    assert cli.run(args) == 2
    assert "--torneo-remoto es una dirección http:// o https://" in capsys.readouterr().err
    monkeypatch.setenv(cli.ENV_URL, f"sqlite:///{tmp_path / 'torneo.sqlite3'}")
    monkeypatch.setenv(cli.ENV_REMOTOS, "http://t.club\nhttps://liga.example.org")
    app = cli.crear()  # what each worker builds from the environment
    assert app.state.torneos_remotos == ("http://t.club", "https://liga.example.org")
    app.state.servidor.engine.dispose()


@pytest.fixture(params=["sqlite", "postgresql"])
def servidor_unico(tmp_path: Path, request: pytest.FixtureRequest) -> Iterator[tuple[TestClient, list[str]]]:
    """`mus servir`'s app over a database holding a tournament (four parejas at two tables,
    round one started), in a TestClient: nothing listens anywhere, so a request it made to
    itself over HTTP could not be answered. Over SQLite, and over PostgreSQL (a new database in
    the module's throwaway cluster)."""
    from server.db import motor
    from server.servicios import auth
    from server.servicios import torneos as servicio
    from torneo import formato as fm

    url = f"sqlite:///{tmp_path / 'servidor.sqlite3'}"
    if request.param == "postgresql":
        base = request.getfixturevalue("postgres")
        name = f"u_{uuid.uuid4().hex[:12]}"
        with psycopg.connect(base, autocommit=True) as conn:
            conn.execute(f"CREATE DATABASE {name}")
        url = base.rsplit("/", 1)[0] + f"/{name}"
    engine = motor(url)
    with Session(engine) as s, s.begin():
        org = auth.crear_cuenta(s, "ana", "una-clave-larga", "organizador")
        parejas = [servicio.NuevaPareja(f"P{i}", (f"A{i}", f"B{i}")) for i in range(4)]
        t = servicio.crear_torneo(s, org, "Open", "segovia", fm.Formato(juegos=None), parejas, 2)
        servicio.iniciar_ronda(s, t)
        codes = [servicio.codigo_mesa(s, m) for m in servicio.mesas_de(s, t)]
    engine.dispose()
    app = app_web(url, tmp_path)
    with TestClient(app, follow_redirects=False) as client:
        yield client, codes
    app.state.servidor.engine.dispose()


def en_la_base(client: TestClient) -> list[Mano]:
    with Session(client.app.state.servidor.engine) as s:
        return list(s.scalars(select(Mano).order_by(Mano.id)))


@pytest.fixture
def sin_red(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """Any HTTP request this process makes fails the test; the hands the tournament's service
    scores, by id, in order (the real service, watched)."""
    from server.servicios import torneos as servicio

    def ninguna(*args: Any, **kwargs: Any) -> Any:
        raise AssertionError("a request over the network")

    monkeypatch.setattr(urllib.request, "urlopen", ninguna)
    puntuadas: list[str] = []
    registrar = servicio.registrar_mano

    def vigilada(s: Session, t: Any, e: Any, mano: Any) -> Any:
        puntuadas.append(mano.id)
        return registrar(s, t, e, mano)

    monkeypatch.setattr(servicio, "registrar_mano", vigilada)
    return puntuadas


def test_this_servers_own_tournament_is_written_in_process_scored_and_stored_once(servidor_unico, sin_red):
    client, codes = servidor_unico
    clave = unirse(client, codes[0])  # no server named: this one
    assert unirse(client, codes[0], "http://testserver/") == clave  # this server as the phone reached it
    page = client.get(f"/mesa/{clave}")
    assert page.status_code == 200 and "Open" in page.text
    hands = [jugar(client, clave, k) for k in range(3)]  # each written once its confirm is answered
    ids = [h["id_mano"] for h in hands]
    assert [m.cliente_id for m in en_la_base(client)] == ids
    # sent again every way there is: the same hand confirmed again, the pages, a send, a retry
    again = client.post(f"/api/partidas/{clave}/manos", json=hands[2]["cuerpo"])
    assert again.status_code == 201 and again.json()["repetida"]
    client.get(f"/mesa/{clave}/parte")
    client.get(f"/api/partidas/{clave}/torneo")
    state = enviar(client, clave)
    assert client.post(f"/api/partidas/{clave}/torneo/enviar?reintentar=true").status_code == 200
    stored = en_la_base(client)
    assert [m.cliente_id for m in stored] == ids and sin_red == ids  # stored once, scored once
    assert [m.marcador for m in stored] == [h["tanteo"]["resultado"]["marcador"] for h in hands]
    assert state["pendientes"] == 0 and state["conexion"] and not state["rechazadas"] and state["servidor"] == ""
    assert state["marcador_servidor"]["manos"] == 3
    assert state["marcador_servidor"]["tantos"] == [p["tantos"] for p in hands[-1]["marcador"]["parejas"]]
    assert colas(client) == []  # no remote queue, no queue folder
    with Session(client.app.state.servidor.engine) as s:  # the table's token as the tournament keeps it: a hash
        info = s.scalar(select(PartidaWeb.torneo))
        assert s.scalar(select(TokenMesa).where(TokenMesa.huella == info["token"])) is not None
        assert codes[0] not in json.dumps(info)


@pytest.fixture
def tanteadas(monkeypatch: pytest.MonkeyPatch) -> list[list[int]]:
    """The claimed tanteos the tournament's service scores again to compare (the real check, watched)."""
    from server.servicios import torneos as servicio

    vistas: list[list[int]] = []
    tantear = servicio._tantear

    def vigilada(partida: Any, registro: Any, tanteo: Any) -> Any:
        vistas.append(list(tanteo))
        return tantear(partida, registro, tanteo)

    monkeypatch.setattr(servicio, "_tantear", vigilada)
    return vistas


def test_in_process_a_hand_is_stored_as_its_partida_scored_it_and_a_new_code_needs_a_new_join(
    servidor_unico, sin_red, tanteadas
):
    """A hand of this server's own tournament is scored once, by its partida, and handed to the
    tournament's service in the confirm's transaction: the tournament holds it as soon as the
    confirm answers, scores nothing again and records no discrepancy; the table's page reads
    the match from the tournament's tables (nothing of it copied into the partida)."""
    from server.servicios import torneos as servicio

    client, codes = servidor_unico
    clave = unirse(client, codes[1])
    hands = [jugar(client, clave, k) for k in range(3)]
    ids = [h["id_mano"] for h in hands]
    stored = en_la_base(client)
    assert [m.cliente_id for m in stored] == ids and sin_red == ids  # in the confirm, once each
    assert tanteadas == []  # taken as scored: not scored again to be compared
    assert [m.marcador for m in stored] == [h["tanteo"]["resultado"]["marcador"] for h in hands]
    with Session(client.app.state.servidor.engine) as s:
        assert list(s.scalars(select(Incidencia))) == []
        info = s.scalar(select(PartidaWeb.torneo))
    assert set(info) == {"clave", "servidor", "torneo", "partida", "mesa", "parejas", "token", "primera"}
    state = enviar(client, clave)
    assert state["pendientes"] == 0 and not state["rechazadas"] and not state["correcciones"]
    assert sin_red == ids  # nothing left to send
    mine = [p["tantos"] for p in client.get(f"/api/partidas/{clave}").json()["parejas"]]
    assert mine == state["marcador_servidor"]["tantos"] == stored[2].marcador

    # the organiser gives the table a new code: the old token writes no more, the players join again
    with Session(client.app.state.servidor.engine) as s, s.begin():
        torneo = s.scalar(select(Torneo))
        nuevo = servicio.codigo_mesa(s, servicio.nuevo_codigo(s, torneo, 2))
    fourth = jugar(client, clave, 0)
    state = enviar(client, clave)
    assert state["pendientes"] == 1 and state["rechazadas"][0].splitlines()[1].startswith("Uníos otra vez")
    assert client.post(f"/mesa/{clave}/reintentar").status_code == 303  # nothing to mend it with
    assert len(en_la_base(client)) == 3
    assert unirse(client, nuevo) == clave  # the same partida, the hand sent
    state = enviar(client, clave)
    assert state["pendientes"] == 0 and not state["rechazadas"]
    assert [m.cliente_id for m in en_la_base(client)][-1] == fourth["id_mano"]
    assert sin_red == [*ids, fourth["id_mano"]]  # not taken at its confirm (the token), written once joined


def test_in_process_a_hand_the_closed_match_refuses_waits_and_its_page_says_why(servidor_unico, sin_red, tanteadas):
    """The referee closes the match: a hand confirmed then stays the partida's, and the table's
    page says why, read from the tournament's tables (nothing of it kept in the partida); once the
    match is open again, the next send writes it."""
    client, codes = servidor_unico
    clave = unirse(client, codes[0])
    with Session(client.app.state.servidor.engine) as s, s.begin():
        s.execute(update(Enfrentamiento).values(ganador=0))
    first = jugar(client, clave, 0)
    state = enviar(client, clave)
    assert state["pendientes"] == 1 and len(state["rechazadas"]) == 1 and en_la_base(client) == []
    assert state["rechazadas"][0].startswith("Mano 1 rechazada: ") and "Llamad al árbitro" in state["rechazadas"][0]
    assert 'id="reintentar"' in client.get(f"/mesa/{clave}").text
    with Session(client.app.state.servidor.engine) as s, s.begin():
        assert "rechazadas" not in s.scalar(select(PartidaWeb.torneo))
        s.execute(update(Enfrentamiento).values(ganador=None))
    assert client.post(f"/mesa/{clave}/reintentar").status_code == 303
    state = client.get(f"/api/partidas/{clave}/torneo").json()
    assert state["pendientes"] == 0 and not state["rechazadas"]
    assert [m.cliente_id for m in en_la_base(client)] == [first["id_mano"]]
    # refused at its confirm (before any scoring), not asked again while the match was closed,
    # then written once
    assert sin_red == [first["id_mano"]] * 2 and len(tanteadas) == 1


def test_a_phone_in_chromium_opens_the_tables_qr_link_and_plays_the_match(tmp_path: Path):
    """As a player does it: `mus servir` started as a person starts it, the organiser's QR code of
    a table opened by a phone (Chromium at 390x844, touch), two hands entered on the 40-card grid
    with the lance buttons, each reaching the tournament server once."""
    from selenium.webdriver.common.by import By

    from server.db import motor, url_por_defecto
    from server.servicios import auth
    from server.servicios import torneos as servicio
    from tests.navegador import Servir, capturas, navegador, sin_scroll_lateral
    from tests.test_web_telefono import _cargada, _confirmar, _lances_con_botones, _tap, esperar
    from torneo import formato as fm

    srv = Servir(tmp_path)
    srv.start()
    engine = motor(url_por_defecto(tmp_path))  # the server's own database: the organiser's tournament
    with Session(engine) as s, s.begin():
        org = auth.crear_cuenta(s, "ana", "una-clave-larga-y-rara-77", "organizador")
        parejas = [servicio.NuevaPareja(f"Pareja {i}", (f"Ana{i}", f"Luis{i}")) for i in range(4)]
        t = servicio.crear_torneo(s, org, "Open de Segovia", "segovia", fm.Formato(juegos=2), parejas, 2)
        servicio.iniciar_ronda(s, t)
        tid = t.id
    shots = capturas()
    try:
        with httpx.Client(base_url=srv.base, timeout=30) as organiser:
            token = organiser.post("/api/sesion", json={"usuario": "ana", "clave": "una-clave-larga-y-rara-77"})
            png = organiser.get(
                f"/torneos/{tid}/mesas/1/qr.png", headers={"Authorization": f"Bearer {token.json()['token']}"}
            )
        link = texto_qr_cualquiera(cv2.imdecode(np.frombuffer(png.content, np.uint8), 1))
        assert link.startswith(f"{srv.base}/mesa?codigo=")
        lances = [{"grande": "paso", "chica": {"quiero": 2}}, {"grande": {"no_quiero": 1, "gana": 1}}]
        with navegador() as d:
            d.get(link)  # what the phone's camera app opens
            _cargada(d)
            d.save_screenshot(str(shots / "mesa_torneo_unirse.png"))
            _tap(d, "unirse")
            esperar(lambda: d.find_elements(By.ID, "marcador_servidor"), 60, "la mesa")
            assert "Open de Segovia" in d.find_element(By.ID, "torneo_nombre").text
            for k in range(2):
                _tap(d, "nueva_mano")
                esperar(lambda: d.find_elements(By.ID, "mano_torneo"), 60, "la mano del torneo")
                _cargada(d)
                for seat, hand in enumerate(MANOS[k]):
                    _tap(d, f"asiento-{seat}")
                    for card in hand.split():
                        _tap(d, f"carta-{card}")
                _tap(d, "a_lances")
                _lances_con_botones(d, lances[k])
                _confirmar(d, shots, f"mesa_torneo_{k}")
                esperar(
                    lambda k=k: d.find_element(By.ID, "servidor_manos").text == str(k + 1), 60, "la mano en el servidor"
                )
            assert "Todas las manos enviadas" in d.find_element(By.ID, "envio").text
            assert sin_scroll_lateral(d) == 0
            mine = [d.find_element(By.ID, f"tantos-{i}").text for i in (0, 1)]
            d.save_screenshot(str(shots / "mesa_torneo_partida.png"))
        with Session(engine) as s:
            stored = list(s.scalars(select(Mano).order_by(Mano.numero)))
        assert len(stored) == 2 and len({m.cliente_id for m in stored}) == 2
        assert [str(v) for v in stored[-1].marcador] == mine  # the page's marcador is the server's
    finally:
        engine.dispose()
        srv.stop()
