"""The rate limits and the logins' per-account waits are counted in the database
(server.limites): two servers over one database (two hosts behind a proxy, or two workers)
give a client one limit, not one each; on SQLite and PostgreSQL."""

from __future__ import annotations

import threading
import uuid
from pathlib import Path

import psycopg
import pytest
from fastapi.testclient import TestClient
from sqlalchemy import func, select

from server.db import motor
from server.limites import Contadores, Limite
from server.modelos.torneo import Contador
from server.servicios import auth
from server.servidor import Servidor
from tests.servidor_torneo import hash_barato, postgres  # noqa: F401 (fixtures used by name)


@pytest.fixture(params=["sqlite", "postgresql"])
def url(request: pytest.FixtureRequest, tmp_path: Path) -> str:
    """An empty database of each kind."""
    if request.param == "sqlite":
        return f"sqlite:///{tmp_path / 'torneo.sqlite3'}"
    base = request.getfixturevalue("postgres")
    name = f"l_{uuid.uuid4().hex[:12]}"
    with psycopg.connect(base, autocommit=True) as conn:
        conn.execute(f"CREATE DATABASE {name}")
    return base.rsplit("/", 1)[0] + f"/{name}"


@pytest.fixture
def dos(url: str):
    """Two servers over one database, as two hosts behind a proxy are."""
    a, b = Servidor(url, limite_entrar=3), Servidor(url, limite_entrar=3)
    yield TestClient(a.app), TestClient(b.app), a
    a.engine.dispose()
    b.engine.dispose()


def test_two_servers_over_one_database_share_the_login_limit(dos):
    a, b, _ = dos
    sesion = {"usuario": "nadie", "clave": "adivinando"}
    answers = [(a if i % 2 else b).post("/api/sesion", json=sesion).status_code for i in range(6)]
    assert answers == [401] * 3 + [429] * 3  # one limit of 3, not 3 on each


def test_two_servers_share_the_general_limit_and_the_pages_too(dos):
    a, b, _ = dos
    for c in (a, b):
        c.app.state.servidor.limite_general = Limite("general", 4, 60.0)
    answers = [(a if i % 2 else b).get("/api/mesa/partida").status_code for i in range(6)]
    assert answers == [401] * 4 + [429] * 2
    page = b.get("/torneos")
    assert page.status_code == 429 and "text/html" in page.headers["content-type"]


def test_two_servers_share_the_join_code_limit(dos):
    a, b, _ = dos
    for c in (a, b):
        c.app.state.servidor.limite_unirse = Limite("unirse", 2, 60.0)
    answers = [
        (a if i % 2 else b).post("/api/mesas/unirse", json={"codigo": f"NOPE{i:04d}"}).status_code for i in range(4)
    ]
    assert answers == [404, 404, 429, 429]


def test_an_account_that_must_wait_waits_on_every_server(dos):
    a, b, srv = dos
    with srv.sesion() as s:
        auth.crear_cuenta(s, "org", "una-clave-larga", "organizador")
    reloj = [1000.0]
    for c in (a, b):
        c.app.state.servidor.limite_entrar = Limite("entrar", 100, 60.0)  # not what stops them here
        c.app.state.servidor.intentos.reloj = lambda: reloj[0]
    answers = [
        (a if i % 2 else b).post("/api/sesion", json={"usuario": "org", "clave": f"mala-{i}"}).status_code
        for i in range(6)
    ]
    assert answers == [401] * 5 + [429]
    r = a.post("/api/sesion", json={"usuario": "ORG", "clave": "una-clave-larga"})
    assert r.status_code == 429 and r.headers["retry-after"] == "2"
    reloj[0] += 2  # the wait is over on both: a right password works, and clears the count
    assert b.post("/api/sesion", json={"usuario": "org", "clave": "una-clave-larga"}).status_code == 200
    assert a.post("/api/sesion", json={"usuario": "org", "clave": "mala"}).status_code == 401


def test_concurrent_requests_from_two_engines_are_counted_exactly_once(url: str):
    """Many threads over two engines at once: exactly ``n`` allowed (the check is one atomic
    statement, not a read then a write)."""
    motores = [motor(url), motor(url)]
    contadores = [Contadores(m) for m in motores]
    limite = Limite("prueba", 25, 60.0)
    permitidas: list[bool] = []
    lock = threading.Lock()

    def pedir(k: int) -> None:
        for _ in range(10):
            ok = contadores[k % 2].permitir(limite, "10.0.0.1")
            with lock:
                permitidas.append(ok)

    hilos = [threading.Thread(target=pedir, args=(k,)) for k in range(6)]
    for h in hilos:
        h.start()
    for h in hilos:
        h.join()
    assert len(permitidas) == 60 and sum(permitidas) == 25
    for m in motores:
        m.dispose()


def test_the_limit_refills_one_request_at_a_time_and_old_rows_are_pruned(tmp_path: Path):
    engine = motor(f"sqlite:///{tmp_path / 'l.sqlite3'}")
    reloj = [1000.0]
    c = Contadores(engine, reloj=lambda: reloj[0])
    limite = Limite("prueba", 3, 60.0)
    assert [c.espera(limite, "a") for _ in range(3)] == [0.0] * 3
    assert c.espera(limite, "a") == pytest.approx(20.0)  # one more every 60 / 3 s
    assert c.espera(limite, "b") == 0.0  # another key counts apart
    reloj[0] += 20
    assert c.espera(limite, "a") == 0.0
    assert c.espera(limite, "a") > 0
    reloj[0] += 3600  # every row has expired: the next check prunes them
    assert c.espera(limite, "c") == 0.0
    with engine.connect() as conn:
        assert conn.scalar(select(func.count()).select_from(Contador)) == 1
    engine.dispose()


def test_two_phone_servers_share_the_photo_limit(tmp_path: Path):
    """`mus servir`'s photo limit (server.rutas.leer) is counted with the others: two apps over one
    database refuse the third photo of a limit of two, whichever answers it."""
    from server.main import crear_app

    url = f"sqlite:///{tmp_path / 'mus.db'}"
    a, b = TestClient(crear_app(url, tmp_path)), TestClient(crear_app(url, tmp_path))
    for c in (a, b):
        c.app.state.limite_leer = Limite("leer", 2, 60.0)
    foto = {"foto": ("mesa.jpg", b"not a photo", "image/jpeg")}
    assert [c.post("/api/leer", files=foto).status_code for c in (a, b, a, b)] == [415, 415, 429, 429]
    for c in (a, b):
        c.app.state.servidor.engine.dispose()


def test_a_big_limit_is_taken_in_lots_and_still_holds_across_processes(tmp_path: Path):
    """The general limit (thousands a minute) is taken from the database 1/100 at a time and
    spent in the process: two processes together still get at most ``n``, at most a lot short."""
    engine = motor(f"sqlite:///{tmp_path / 'l.sqlite3'}")
    reloj = [1000.0]
    a, b = Contadores(engine, reloj=lambda: reloj[0]), Contadores(engine, reloj=lambda: reloj[0])
    limite = Limite("general", 1000, 60.0)  # lots of 10
    permitidas = [(a if i % 2 else b).permitir(limite, "10.0.0.1") for i in range(1100)]
    assert 1000 - 2 * 9 <= sum(permitidas) <= 1000 and not any(permitidas[1020:])
    with engine.connect() as conn:
        assert conn.scalar(select(Contador.marca)) == pytest.approx(1060.0)  # 100 lots of 10 counted
    reloj[0] += 0.6  # ten requests' worth of time: one lot again, and what a process held has lapsed
    assert a.permitir(limite, "10.0.0.1") and b.permitir(limite, "10.0.0.1") is False
    engine.dispose()
