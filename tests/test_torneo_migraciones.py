"""The schema's Alembic migrations against SQLite and a real PostgreSQL started here on the
loopback (skipped only when PostgreSQL is not installed): an empty database upgraded to the
newest revision has exactly the models' schema, a database at revision 0001 or one made before
Alembic (``esquema`` at version 1) is upgraded with its rows, a newer database is refused."""

from __future__ import annotations

import datetime as dt
import os
import uuid
from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("alembic")
import psycopg
from alembic.autogenerate import compare_metadata
from alembic.runtime.migration import MigrationContext
from sqlalchemy import MetaData, create_engine, inspect, text
from sqlalchemy.engine import Engine

import server.modelos.partidas  # noqa: F401 (the partida pages' tables join Base.metadata, compared below)
from scoring.partida import Partida
from server import migraciones
from server.db import Base, motor
from server.migraciones import EsquemaError
from server.servicios import auth
from server.servicios.torneos import ManoEnviada, jugadores_de
from server.servidor import Servidor
from tests.cliente_web import ClienteWeb as TestClient
from tests.servidor_torneo import hash_barato, postgres  # noqa: F401 (fixtures used by name)
from torneo import formato as fm

CLAVE = "secreto-largo-1"
MANOS = ["12o 12c 11e 1b", "3o 3c 3e 7b", "4o 5c 6e 7o", "1o 2c 1e 4b"]
ULTIMA = "0012"  # the newest revision: a database at any older one is upgraded to it

# The SQLite schema exactly as the server made it before Alembic (create_all, esquema at 1),
# dumped from sqlite_master: what revision 0001 must reproduce and stamp.
LEGADO_SQLITE = """
CREATE TABLE esquema (
    id INTEGER NOT NULL,
    version INTEGER NOT NULL,
    PRIMARY KEY (id)
);
CREATE TABLE cuenta (
    id INTEGER NOT NULL,
    usuario VARCHAR(64) NOT NULL,
    clave_hash VARCHAR(255) NOT NULL,
    rol VARCHAR(16) NOT NULL,
    torneo_id INTEGER,
    PRIMARY KEY (id),
    UNIQUE (usuario),
    CONSTRAINT fk_cuenta_torneo FOREIGN KEY(torneo_id) REFERENCES torneo (id)
);
CREATE TABLE sesion (
    id INTEGER NOT NULL,
    huella VARCHAR(64) NOT NULL,
    cuenta_id INTEGER NOT NULL,
    caduca DATETIME NOT NULL,
    PRIMARY KEY (id),
    UNIQUE (huella),
    FOREIGN KEY(cuenta_id) REFERENCES cuenta (id)
);
CREATE TABLE torneo (
    id INTEGER NOT NULL,
    nombre VARCHAR(120) NOT NULL,
    organizador_id INTEGER NOT NULL,
    reglas JSON NOT NULL,
    formato JSON NOT NULL,
    creado DATETIME NOT NULL,
    PRIMARY KEY (id),
    FOREIGN KEY(organizador_id) REFERENCES cuenta (id)
);
CREATE TABLE pareja (
    id INTEGER NOT NULL,
    torneo_id INTEGER NOT NULL,
    nombre VARCHAR(120) NOT NULL,
    jugadores JSON NOT NULL,
    semilla INTEGER NOT NULL,
    grupo INTEGER,
    PRIMARY KEY (id),
    UNIQUE (torneo_id, nombre),
    FOREIGN KEY(torneo_id) REFERENCES torneo (id)
);
CREATE INDEX ix_pareja_torneo_id ON pareja (torneo_id);
CREATE TABLE mesa (
    id INTEGER NOT NULL,
    torneo_id INTEGER NOT NULL,
    numero INTEGER NOT NULL,
    codigo VARCHAR(16) NOT NULL,
    PRIMARY KEY (id),
    UNIQUE (torneo_id, numero),
    FOREIGN KEY(torneo_id) REFERENCES torneo (id),
    UNIQUE (codigo)
);
CREATE INDEX ix_mesa_torneo_id ON mesa (torneo_id);
CREATE TABLE ronda (
    id INTEGER NOT NULL,
    torneo_id INTEGER NOT NULL,
    numero INTEGER NOT NULL,
    fase VARCHAR(16) NOT NULL,
    semilla INTEGER,
    PRIMARY KEY (id),
    UNIQUE (torneo_id, numero),
    FOREIGN KEY(torneo_id) REFERENCES torneo (id)
);
CREATE INDEX ix_ronda_torneo_id ON ronda (torneo_id);
CREATE TABLE enfrentamiento (
    id INTEGER NOT NULL,
    torneo_id INTEGER NOT NULL,
    ronda_id INTEGER NOT NULL,
    mesa_id INTEGER,
    pareja0_id INTEGER NOT NULL,
    pareja1_id INTEGER,
    ganador INTEGER,
    PRIMARY KEY (id),
    FOREIGN KEY(torneo_id) REFERENCES torneo (id),
    FOREIGN KEY(ronda_id) REFERENCES ronda (id),
    FOREIGN KEY(mesa_id) REFERENCES mesa (id),
    FOREIGN KEY(pareja0_id) REFERENCES pareja (id),
    FOREIGN KEY(pareja1_id) REFERENCES pareja (id)
);
CREATE INDEX ix_enfrentamiento_torneo_id ON enfrentamiento (torneo_id);
CREATE INDEX ix_enfrentamiento_ronda_id ON enfrentamiento (ronda_id);
CREATE TABLE token_mesa (
    id INTEGER NOT NULL,
    huella VARCHAR(64) NOT NULL,
    torneo_id INTEGER NOT NULL,
    enfrentamiento_id INTEGER NOT NULL,
    PRIMARY KEY (id),
    UNIQUE (huella),
    FOREIGN KEY(torneo_id) REFERENCES torneo (id),
    FOREIGN KEY(enfrentamiento_id) REFERENCES enfrentamiento (id)
);
CREATE TABLE mano (
    id INTEGER NOT NULL,
    torneo_id INTEGER NOT NULL,
    enfrentamiento_id INTEGER NOT NULL,
    cliente_id VARCHAR(64) NOT NULL,
    numero INTEGER NOT NULL,
    huella_cuerpo VARCHAR(64) NOT NULL,
    registro JSON NOT NULL,
    marcador JSON NOT NULL,
    ganados JSON NOT NULL,
    juego INTEGER,
    respuesta JSON NOT NULL,
    foto VARCHAR(64),
    anulada BOOLEAN NOT NULL,
    recibida DATETIME NOT NULL,
    PRIMARY KEY (id),
    UNIQUE (enfrentamiento_id, cliente_id),
    UNIQUE (enfrentamiento_id, numero),
    FOREIGN KEY(torneo_id) REFERENCES torneo (id),
    FOREIGN KEY(enfrentamiento_id) REFERENCES enfrentamiento (id)
);
CREATE INDEX ix_mano_enfrentamiento_id ON mano (enfrentamiento_id);
CREATE INDEX ix_mano_torneo_id ON mano (torneo_id);
CREATE TABLE informe (
    id INTEGER NOT NULL,
    torneo_id INTEGER NOT NULL,
    mesa_id INTEGER NOT NULL,
    enfrentamiento_id INTEGER,
    arbitro_id INTEGER NOT NULL,
    sello VARCHAR(64) NOT NULL,
    registro JSON NOT NULL,
    recibido DATETIME NOT NULL,
    PRIMARY KEY (id),
    FOREIGN KEY(torneo_id) REFERENCES torneo (id),
    FOREIGN KEY(mesa_id) REFERENCES mesa (id),
    FOREIGN KEY(enfrentamiento_id) REFERENCES enfrentamiento (id),
    FOREIGN KEY(arbitro_id) REFERENCES cuenta (id)
);
CREATE INDEX ix_informe_torneo_id ON informe (torneo_id);
CREATE TABLE incidencia (
    id INTEGER NOT NULL,
    torneo_id INTEGER NOT NULL,
    informe_id INTEGER NOT NULL,
    mesa_id INTEGER NOT NULL,
    pareja_id INTEGER,
    asiento INTEGER,
    tipo VARCHAR(32) NOT NULL,
    gravedad VARCHAR(32) NOT NULL,
    articulo TEXT NOT NULL,
    razon TEXT NOT NULL,
    PRIMARY KEY (id),
    FOREIGN KEY(torneo_id) REFERENCES torneo (id),
    FOREIGN KEY(informe_id) REFERENCES informe (id),
    FOREIGN KEY(mesa_id) REFERENCES mesa (id),
    FOREIGN KEY(pareja_id) REFERENCES pareja (id)
);
CREATE INDEX ix_incidencia_torneo_id ON incidencia (torneo_id);
"""


@pytest.fixture(params=["sqlite", "postgresql"])
def url(request: pytest.FixtureRequest, tmp_path: Path) -> str:
    """An empty database of each kind."""
    if request.param == "sqlite":
        return f"sqlite:///{tmp_path / 'torneo.sqlite3'}"
    base = request.getfixturevalue("postgres")
    name = f"m_{uuid.uuid4().hex[:12]}"
    with psycopg.connect(base, autocommit=True) as conn:
        conn.execute(f"CREATE DATABASE {name}")
    return base.rsplit("/", 1)[0] + f"/{name}"


def _engine(url: str) -> Engine:
    return create_engine(url.replace("postgresql://", "postgresql+psycopg://", 1))


def _revision(url: str) -> str | None:
    e = _engine(url)
    try:
        with e.connect() as conn:
            return migraciones.revision_de(conn)
    finally:
        e.dispose()


def _diferencias(engine: Engine) -> list[Any]:
    with engine.connect() as conn:
        return compare_metadata(MigrationContext.configure(conn), Base.metadata)


def _forma(engine: Engine) -> dict[str, Any]:
    """Tables, columns, keys, unique constraints and indexes, as comparable values."""
    insp = inspect(engine)
    out = {}
    for t in sorted(set(insp.get_table_names()) - {"alembic_version"}):
        out[t] = {
            "columnas": [(c["name"], str(c["type"]), c["nullable"]) for c in insp.get_columns(t)],
            "pk": insp.get_pk_constraint(t)["constrained_columns"],
            "fks": sorted(
                (tuple(f["constrained_columns"]), f["referred_table"], tuple(f["referred_columns"]))
                for f in insp.get_foreign_keys(t)
            ),
            "unicas": sorted(tuple(u["column_names"]) for u in insp.get_unique_constraints(t)),
            "indices": sorted((i["name"], tuple(i["column_names"]), bool(i["unique"])) for i in insp.get_indexes(t)),
        }
    return out


def _filas(engine: Engine) -> dict[str, Any]:
    """A tournament at revision 0001: an organiser, two parejas at one table, one real hand
    (scored by scoring.partida as the server does) and a referee's incident."""
    ahora = dt.datetime(2026, 12, 2, 10, 0)
    formato = fm.Formato(juegos=2)
    reglas = fm.reglas_de_partida("segovia", formato)
    parejas = [
        {
            "id": i + 1,
            "torneo_id": 1,
            "nombre": f"P{i}",
            "jugadores": [f"Ana{i}", f"Luis{i}"],
            "semilla": i + 1,
            "grupo": None,
        }
        for i in range(2)
    ]

    class P:  # what jugadores_de reads of a Pareja row
        def __init__(self, d: dict[str, Any]) -> None:
            self.nombre, self.jugadores = d["nombre"], d["jugadores"]

    partida = Partida(reglas, jugadores_de(P(parejas[0]), P(parejas[1])))
    registro = partida.registro(MANOS, None)
    result = partida.registrar(MANOS, None)
    respuesta = {
        "id": "mano-antigua-1",
        "numero": 1,
        "marcador": list(result.marcador),
        "tantos": list(partida.tantos),
        "juegos": list(partida.juegos),
        "vacas": list(partida.vacas),
        "terminada": partida.terminada,
        "ganador": partida.ganador,
    }
    enviada = ManoEnviada("mano-antigua-1", 1, registro, (result.marcador[0], result.marcador[1]))
    filas = {
        "cuenta": [
            {"id": 1, "usuario": "org", "clave_hash": auth._HASHER.hash(CLAVE), "rol": "organizador", "torneo_id": None}
        ],
        "torneo": [
            {
                "id": 1,
                "nombre": "Club",
                "organizador_id": 1,
                "reglas": reglas,
                "formato": formato.to_dict(),
                "creado": ahora,
            }
        ],
        "pareja": parejas,
        "mesa": [{"id": 1, "torneo_id": 1, "numero": 1, "codigo": "ABCDEFGHJK"}],
        "ronda": [{"id": 1, "torneo_id": 1, "numero": 1, "fase": "liga", "semilla": None}],
        "enfrentamiento": [
            {"id": 1, "torneo_id": 1, "ronda_id": 1, "mesa_id": 1, "pareja0_id": 1, "pareja1_id": 2, "ganador": None}
        ],
        "mano": [
            {
                "id": 1,
                "torneo_id": 1,
                "enfrentamiento_id": 1,
                "cliente_id": enviada.id,
                "numero": 1,
                "huella_cuerpo": enviada.huella(),
                "registro": result.registro.to_dict(),
                "marcador": list(result.marcador),
                "ganados": list(result.marcador),
                "juego": None,
                "respuesta": respuesta,
                "foto": None,
                "anulada": False,
                "recibida": ahora,
            }
        ],
        "informe": [
            {
                "id": 1,
                "torneo_id": 1,
                "mesa_id": 1,
                "enfrentamiento_id": 1,
                "arbitro_id": 1,
                "sello": "a" * 12,
                "registro": {"entradas": []},
                "recibido": ahora,
            }
        ],
        "incidencia": [
            {
                "id": 1,
                "torneo_id": 1,
                "informe_id": 1,
                "mesa_id": 1,
                "pareja_id": 2,
                "asiento": 1,
                "tipo": "falsa",
                "gravedad": "infraccion",
                "articulo": "Título VII, art. 3",
                "razon": "seña falsa",
            }
        ],
    }
    meta = MetaData()
    meta.reflect(engine)
    with engine.begin() as conn:
        for tabla, rows in filas.items():
            conn.execute(meta.tables[tabla].insert(), rows)
        if engine.dialect.name == "postgresql":  # ids given by hand: move the sequences past them
            for tabla in filas:
                conn.execute(text(f"SELECT setval(pg_get_serial_sequence('{tabla}', 'id'), 10)"))
    return {"registro": registro, "marcador": list(result.marcador), "respuesta": respuesta}


def _rev1_con_filas(url: str, antiguo: bool = False) -> dict[str, Any]:
    """A database at revision 0001 with rows; ``antiguo``: as the server made it before Alembic
    (no alembic_version, esquema at 1)."""
    e = _engine(url)
    try:
        if antiguo and e.dialect.name == "sqlite":
            with e.begin() as conn:
                for ddl in LEGADO_SQLITE.split(";"):
                    if ddl.strip():
                        conn.exec_driver_sql(ddl)
        else:
            migraciones.actualizar(e, migraciones.REVISION_ANTIGUA)
            if antiguo:
                with e.begin() as conn:
                    conn.execute(text("DROP TABLE alembic_version"))
        if antiguo:
            with e.begin() as conn:
                conn.execute(text("INSERT INTO esquema (id, version) VALUES (1, 1)"))
        return _filas(e)
    finally:
        e.dispose()


def _login(client: TestClient) -> dict[str, str]:
    r = client.post("/api/sesion", json={"usuario": "org", "clave": CLAVE})
    assert r.status_code == 200, r.text
    return {"Authorization": f"Bearer {r.json()['token']}"}


def _sigue_sirviendo(url: str, antes: dict[str, Any]) -> None:
    """The upgraded database serves its old rows and takes the match's next hand."""
    srv = Servidor(url)
    try:
        client = TestClient(srv.app)
        h = _login(client)
        partida = client.get("/api/torneos/1", headers=h).json()["partidas"][0]
        assert (partida["manos"], partida["tantos"]) == (1, antes["marcador"])
        inc = client.get("/api/torneos/1/incidencias", headers=h).json()
        assert [(i["origen"], i["mesa"], i["pareja"], i["tipo"], i["articulo"]) for i in inc] == [
            ("arbitro", 1, "P1", "falsa", "Título VII, art. 3")
        ]
        token = client.post("/api/mesas/unirse", json={"codigo": "ABCDEFGHJK"}).json()["token"]
        th = {"Authorization": f"Bearer {token}"}
        old = {"id": "mano-antigua-1", "numero": 1, "registro": antes["registro"], "tanteo": antes["marcador"]}
        again = client.post("/api/mesa/manos", json=old, headers=th)  # a resend of a hand stored before
        assert (again.status_code, again.json()) == (200, antes["respuesta"])
        estado = client.get("/api/mesa/partida", headers=th).json()
        registro = Partida(estado["reglas"], estado["jugadores"])
        registro.registrar(MANOS, None)
        nueva = registro.registro(["1o 1c 12e 12b", "4o 5c 6e 7b", "3o 3c 3e 7o", "2o 2c 2e 10b"], None)
        tanteo = list(registro.registrar(nueva["manos"], None).marcador)
        r = client.post(
            "/api/mesa/manos",
            headers=th,
            json={"id": "mano-nueva-02", "numero": 2, "registro": nueva, "tanteo": tanteo},
        )
        assert r.status_code == 201, r.text
    finally:
        srv.engine.dispose()


def test_an_empty_database_upgraded_has_exactly_the_models_schema(url: str):
    engine = motor(url)
    try:
        assert _diferencias(engine) == []
        assert _revision(url) == migraciones.ultima() == ULTIMA
        assert "esquema" not in inspect(engine).get_table_names()
    finally:
        engine.dispose()
    motor(url).dispose()  # a second start finds it at head and changes nothing
    assert _revision(url) == ULTIMA


def test_revision_1_is_the_schema_the_server_made_before_alembic(tmp_path: Path):
    viejo = create_engine(f"sqlite:///{tmp_path / 'viejo.sqlite3'}")
    nuevo = create_engine(f"sqlite:///{tmp_path / 'nuevo.sqlite3'}")
    with viejo.begin() as conn:
        for ddl in LEGADO_SQLITE.split(";"):
            if ddl.strip():
                conn.exec_driver_sql(ddl)
    migraciones.actualizar(nuevo, "0001")
    assert _forma(nuevo) == _forma(viejo)
    assert len(_forma(viejo)) == 12


def test_a_database_at_revision_1_is_upgraded_with_its_rows(url: str):
    antes = _rev1_con_filas(url)
    assert _revision(url) == "0001"
    engine = motor(url)
    try:
        assert _revision(url) == ULTIMA and _diferencias(engine) == []
        with engine.connect() as conn:
            counts = {
                t: conn.execute(text(f"SELECT count(*) FROM {t}")).scalar()
                for t in (
                    "cuenta",
                    "torneo",
                    "pareja",
                    "mesa",
                    "ronda",
                    "enfrentamiento",
                    "mano",
                    "informe",
                    "incidencia",
                    "miembro",
                )
            }
            inc = conn.execute(text("SELECT origen, informe_id, mano_id FROM incidencia")).one()
            # the tournament's creator became its organiser member; the parejas joined at the start
            miembro = conn.execute(text("SELECT torneo_id, cuenta_id, rol FROM miembro")).one()
            entradas = conn.execute(text("SELECT DISTINCT entra_en FROM pareja")).scalars().all()
            disc = conn.execute(text("SELECT discrepancia FROM mano")).scalar()
    finally:
        engine.dispose()
    assert counts == {
        "cuenta": 1,
        "torneo": 1,
        "pareja": 2,
        "mesa": 1,
        "ronda": 1,
        "enfrentamiento": 1,
        "mano": 1,
        "informe": 1,
        "incidencia": 1,
        "miembro": 1,
    }
    assert tuple(inc) == ("arbitro", 1, None) and disc is None
    assert tuple(miembro) == (1, 1, "organizador") and entradas == [0]
    _sigue_sirviendo(url, antes)


def test_a_referee_account_of_revision_5_becomes_a_member_of_its_tournament(url: str):
    _rev1_con_filas(url)
    e = _engine(url)
    try:
        migraciones.actualizar(e, "0005")
        with e.begin() as conn:
            conn.execute(
                text(
                    "INSERT INTO cuenta (id, usuario, clave_hash, rol, torneo_id) VALUES (2, 'juez', :h, 'arbitro', 1)"
                ),
                {"h": auth._HASHER.hash(CLAVE)},
            )
    finally:
        e.dispose()
    srv = Servidor(url)
    try:
        with srv.engine.connect() as conn:
            filas = conn.execute(text("SELECT cuenta_id, rol FROM miembro ORDER BY cuenta_id")).all()
        assert [tuple(f) for f in filas] == [(1, "organizador"), (2, "arbitro")]
        client = TestClient(srv.app)
        token = client.post("/api/sesion", json={"usuario": "juez", "clave": CLAVE}).json()["token"]
        h = {"Authorization": f"Bearer {token}"}
        assert client.get("/api/torneos/1", headers=h).status_code == 200
        assert client.post("/api/torneos/1/rondas", headers=h).status_code == 403  # a referee organises nothing
    finally:
        srv.engine.dispose()


def test_a_database_made_before_alembic_is_stamped_and_upgraded(url: str):
    antes = _rev1_con_filas(url, antiguo=True)
    e = _engine(url)
    try:
        assert "alembic_version" not in inspect(e).get_table_names()
    finally:
        e.dispose()
    engine = motor(url)
    try:
        assert _revision(url) == ULTIMA and _diferencias(engine) == []
        assert "esquema" not in inspect(engine).get_table_names()
    finally:
        engine.dispose()
    _sigue_sirviendo(url, antes)


def test_a_database_of_a_newer_server_is_refused_with_a_clear_line(url: str):
    motor(url).dispose()
    e = _engine(url)
    with e.begin() as conn:
        conn.execute(text("UPDATE alembic_version SET version_num = '0099'"))
        conn.execute(text("CREATE TABLE de_otro_servidor (id INTEGER PRIMARY KEY)"))
    e.dispose()
    with pytest.raises(EsquemaError) as err:
        motor(url)
    assert str(err.value) == (
        "la base de datos es de un servidor más nuevo (revisión 0099 del esquema; "
        f"este llega a la {ULTIMA}): actualiza musmesa"
    )
    assert _revision(url) == "0099"  # nothing was touched


def test_an_old_esquema_of_another_version_and_unversioned_tables_are_refused(tmp_path: Path):
    url = f"sqlite:///{tmp_path / 'a.sqlite3'}"
    e = create_engine(url)
    with e.begin() as conn:
        conn.execute(text("CREATE TABLE esquema (id INTEGER PRIMARY KEY, version INTEGER NOT NULL)"))
        conn.execute(text("INSERT INTO esquema VALUES (1, 2)"))
    with pytest.raises(EsquemaError, match="tiene el esquema 2, que este servidor no conoce"):
        motor(url)
    with e.begin() as conn:
        conn.execute(text("DROP TABLE esquema"))
        conn.execute(text("CREATE TABLE torneo (id INTEGER PRIMARY KEY)"))
    with pytest.raises(EsquemaError, match="ninguna versión del esquema"):
        motor(url)
    e.dispose()


def test_mus_torneo_servir_refuses_a_newer_database_in_one_line(tmp_path: Path, capsys: pytest.CaptureFixture[str]):
    from musmesa.cli import main

    datos = tmp_path / "datos"
    datos.mkdir()
    url = f"sqlite:///{datos / 'torneo.sqlite3'}"
    motor(url).dispose()
    e = create_engine(url)
    with e.begin() as conn:
        conn.execute(text("UPDATE alembic_version SET version_num = 'abc123'"))
    e.dispose()
    assert main(["torneo", "servir", "--datos", str(datos), "--puerto", "1"]) == 2
    err = capsys.readouterr().err
    assert err.startswith("mus torneo: la base de datos es de un servidor más nuevo") and err.count("\n") == 1


def test_migrations_run_from_the_package_without_alembic_ini(tmp_path: Path, monkeypatch: pytest.MonkeyPatch):
    from setuptools import find_packages

    repo = Path(__file__).resolve().parents[1]
    assert "server.migraciones.versions" in find_packages(str(repo), include=["server*"])
    assert not list(migraciones.CARPETA.rglob("alembic.ini"))
    monkeypatch.chdir(tmp_path)  # nothing is read from the working folder
    monkeypatch.delenv("ALEMBIC_CONFIG", raising=False)
    engine = motor(f"sqlite:///{tmp_path / 'x.sqlite3'}")
    assert _diferencias(engine) == []
    engine.dispose()
    assert os.listdir(tmp_path) == ["x.sqlite3"] or set(os.listdir(tmp_path)) <= {
        "x.sqlite3",
        "x.sqlite3-wal",
        "x.sqlite3-shm",
    }


def test_two_servers_starting_at_once_migrate_once(url: str):
    from concurrent.futures import ThreadPoolExecutor

    with ThreadPoolExecutor(3) as pool:
        engines = list(pool.map(lambda _: motor(url), range(3)))
    try:
        assert _revision(url) == ULTIMA and _diferencias(engines[0]) == []
    finally:
        for e in engines:
            e.dispose()
