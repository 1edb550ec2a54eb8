"""The one migration chain takes the databases today's servers left, in place, on SQLite and on
a real PostgreSQL started here on the loopback (skipped only when PostgreSQL is not installed).

The old databases are SQL dumps in tests/data/bases_antiguas, made by the server before its two
chains became one (``hacer.py`` there says how): `mus servir`'s (the tournament's chain at 0008
in ``alembic_version``, the partida pages' at 0001 in ``alembic_version_web``) and `mus
torneo`'s (the tournament's chain only). Upgraded, each keeps its rows, has one version table and
exactly the models' schema, and the app works on it. The data folder's one rule is here too."""

from __future__ import annotations

import sqlite3
import uuid
from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("fastapi")
import psycopg
from alembic.autogenerate import compare_metadata
from alembic.runtime.migration import MigrationContext
from sqlalchemy import create_engine, inspect, text
from sqlalchemy.engine import Engine

import server.modelos.partidas
import server.modelos.torneo
from common.files import default_data_dir
from server import migraciones
from server.db import Base, motor, url_por_defecto
from server.main import crear_app
from server.migraciones import EsquemaError
from tests.cliente_web import ClienteWeb as TestClient
from tests.servidor_torneo import hash_barato, postgres  # noqa: F401 (fixtures used by name)

ANTIGUAS = Path(__file__).resolve().parent / "data" / "bases_antiguas"
ULTIMA = "0012"
PARTIDA = {"partidas", "manos_partida", "borradores"}  # the partida pages' tables (server.modelos.partidas)
JUGADORES = ["Ana", "Bea", "Carlos", "Dani"]
TERCERA = (["10c 10e 11o 11b", "2o 3b 4c 5e", "6b 7b 1e 12b", "3o 4b 5c 6c"], {})  # after the dump's two
assert {
    server.modelos.partidas.PartidaWeb.__tablename__,
    server.modelos.partidas.ManoPartida.__tablename__,
    server.modelos.partidas.Borrador.__tablename__,
} == PARTIDA


@pytest.fixture(params=["sqlite", "postgresql"])
def kind(request: pytest.FixtureRequest) -> str:
    return str(request.param)


def _antigua(nombre: str, kind: str, request: pytest.FixtureRequest, tmp_path: Path) -> str:
    """A copy of the old database ``nombre`` ("servir" or "torneo") of this kind: its URL."""
    if kind == "sqlite":
        tmp_path.mkdir(parents=True, exist_ok=True)
        fichero = tmp_path / "torneo.sqlite3"
        with sqlite3.connect(fichero) as conn:
            conn.executescript((ANTIGUAS / f"{nombre}.sqlite.sql").read_text(encoding="utf-8"))
        conn.close()
        return f"sqlite:///{fichero}"
    base = request.getfixturevalue("postgres")
    name = f"v_{uuid.uuid4().hex[:12]}"
    with psycopg.connect(base, autocommit=True) as conn:
        conn.execute(f"CREATE DATABASE {name}")
    url = base.rsplit("/", 1)[0] + f"/{name}"
    with psycopg.connect(url) as conn:  # pg_dump's own session settings die with this connection
        conn.execute((ANTIGUAS / f"{nombre}.postgresql.sql").read_text(encoding="utf-8"))  # type: ignore[arg-type]
    return url


def _engine(url: str) -> Engine:
    return create_engine(url.replace("postgresql://", "postgresql+psycopg://", 1))


def _estado(url: str) -> dict[str, Any]:
    """Version tables and their revisions, and the rows of the tables that hold some."""
    e = _engine(url)
    try:
        with e.connect() as conn:
            tablas = set(inspect(conn).get_table_names())
            versiones = {t: migraciones.revision_de(conn, t) for t in sorted(tablas) if t.startswith("alembic_version")}
            filas = {
                t: conn.execute(text(f"SELECT count(*) FROM {t}")).scalar()
                for t in ("cuenta", "torneo", "pareja", "mesa", "ronda", "enfrentamiento", *sorted(PARTIDA))
                if t in tablas
            }
            diferencias = compare_metadata(MigrationContext.configure(conn), Base.metadata)
    finally:
        e.dispose()
    return {"versiones": versiones, "filas": filas, "diferencias": diferencias}


def _clave(url: str) -> str:
    e = _engine(url)
    try:
        with e.connect() as conn:
            return str(conn.execute(text("SELECT clave FROM partidas")).scalar_one())
    finally:
        e.dispose()


def _la_app_sirve(url: str, clave: str | None) -> None:
    """The app over the upgraded database: the tournament's organiser logs in and reads it; the
    old partida (if any) shows its two hands and its draft and takes the third; a new partida is
    made and read."""
    app = crear_app(url)
    try:
        c = TestClient(app)
        token = c.post("/api/sesion", json={"usuario": "org", "clave": "secreto-largo-1"}).json()["token"]
        t = c.get("/api/torneos/1", headers={"Authorization": f"Bearer {token}"})
        assert t.status_code == 200 and [p["nombre"] for p in t.json()["parejas"]] == ["P0", "P1", "P2", "P3"]
        if clave is not None:
            vieja = c.get(f"/api/partidas/{clave}").json()
            assert vieja["manos"] == 2 and vieja["jugadores"] == JUGADORES
            borrador = c.get(f"/api/partidas/{clave}/borrador").json()
            assert borrador["datos"]["cartas"][0] == "10c 10e 11o 11b" and borrador["version"] == 1
            cartas, lances = TERCERA
            body = {"id_mano": "mano-nueva-3", "n": 3, "cartas": cartas, "lances": lances}
            assert c.post(f"/api/partidas/{clave}/manos", json=body).status_code == 201
            assert c.get(f"/api/partidas/{clave}").json()["manos"] == 3
        r = c.post("/api/partidas", json={"jugadores": ["W", "X", "Y", "Z"], "reglas": "segovia"})
        assert r.status_code == 201, r.text
        nueva = c.get(f"/api/partidas/{r.json()['clave']}").json()
        assert nueva["jugadores"] == ["W", "X", "Y", "Z"] and nueva["manos"] == 0
    finally:
        app.state.servidor.engine.dispose()


TORNEO = {"cuenta": 1, "torneo": 1, "pareja": 4, "mesa": 2, "ronda": 1, "enfrentamiento": 2}


def test_the_dumps_are_what_todays_servers_left(kind: str, request: pytest.FixtureRequest, tmp_path: Path):
    """What the tests below start from: two chains in two version tables, or the tournament's."""
    servir = _estado(_antigua("servir", kind, request, tmp_path / "s"))
    assert servir["versiones"] == {"alembic_version": "0008", "alembic_version_web": "0001"}
    assert servir["filas"] == TORNEO | {"partidas": 1, "manos_partida": 2, "borradores": 1}
    solo = _estado(_antigua("torneo", kind, request, tmp_path / "t"))
    assert solo["versiones"] == {"alembic_version": "0008"} and solo["filas"] == TORNEO


def test_a_database_of_mus_servir_is_upgraded_in_place_with_one_version_table(
    kind: str, request: pytest.FixtureRequest, tmp_path: Path
):
    url = _antigua("servir", kind, request, tmp_path)
    motor(url).dispose()
    despues = _estado(url)
    assert despues["versiones"] == {"alembic_version": ULTIMA}  # alembic_version_web is gone
    assert despues["filas"] == TORNEO | {"partidas": 1, "manos_partida": 2, "borradores": 1}
    assert despues["diferencias"] == []
    _la_app_sirve(url, _clave(url))
    motor(url).dispose()  # a second start finds it at head and changes nothing
    assert _estado(url)["versiones"] == {"alembic_version": ULTIMA}


def test_a_database_of_mus_torneo_alone_gets_the_partida_tables(
    kind: str, request: pytest.FixtureRequest, tmp_path: Path
):
    url = _antigua("torneo", kind, request, tmp_path)
    _la_app_sirve(url, None)  # crear_app migrates it
    despues = _estado(url)
    assert despues["versiones"] == {"alembic_version": ULTIMA} and despues["diferencias"] == []
    assert despues["filas"] == TORNEO | {"partidas": 1, "manos_partida": 0, "borradores": 0}


def test_a_database_with_only_the_partida_tables_gets_the_tournament_ones(
    kind: str, request: pytest.FixtureRequest, tmp_path: Path
):
    """The partida pages' chain alone (web.migraciones.actualizar on an empty database, which no
    command of today's did by itself, but the code allowed): its rows stay, the tournament's
    tables are made."""
    url = _antigua("servir", kind, request, tmp_path)
    e = _engine(url)
    with e.begin() as conn:
        for t in set(inspect(conn).get_table_names()) - PARTIDA - {"alembic_version_web"}:
            conn.execute(text(f"DROP TABLE {t} CASCADE" if kind == "postgresql" else f"DROP TABLE {t}"))
    e.dispose()
    assert _estado(url)["versiones"] == {"alembic_version_web": "0001"}
    motor(url).dispose()
    despues = _estado(url)
    assert despues["versiones"] == {"alembic_version": ULTIMA} and despues["diferencias"] == []
    assert despues["filas"] == dict.fromkeys(TORNEO, 0) | {"partidas": 1, "manos_partida": 2, "borradores": 1}


def test_a_newer_partidas_chain_is_refused_with_a_clear_line(tmp_path: Path, request: pytest.FixtureRequest):
    url = _antigua("servir", "sqlite", request, tmp_path)
    e = _engine(url)
    with e.begin() as conn:
        conn.execute(text("UPDATE alembic_version_web SET version_num = '0002'"))
    e.dispose()
    with pytest.raises(EsquemaError) as err:
        motor(url)
    assert str(err.value) == (
        "la base de datos es de un servidor más nuevo (revisión 0002 de las partidas; "
        f"este llega a la {ULTIMA}): actualiza musmesa"
    )
    assert _estado(url)["versiones"] == {"alembic_version": "0008", "alembic_version_web": "0002"}  # untouched


def test_the_tables_of_both_halves_are_on_one_metadata():
    assert {server.modelos.torneo.Torneo.__table__, server.modelos.partidas.PartidaWeb.__table__} <= set(
        Base.metadata.tables.values()
    )
    assert server.modelos.torneo.Mano.metadata is server.modelos.partidas.ManoPartida.metadata is Base.metadata


# -- the data folder -------------------------------------------------------------------------


def test_the_data_folder_is_musmesa_data_else_the_platforms(tmp_path: Path, monkeypatch: pytest.MonkeyPatch):
    monkeypatch.setenv("MUSMESA_DATA", str(tmp_path / "mis-datos"))
    assert default_data_dir() == tmp_path / "mis-datos"
    monkeypatch.setenv("MUSMESA_DATA", "~/mus")
    assert default_data_dir() == Path.home() / "mus"
    monkeypatch.delenv("MUSMESA_DATA")
    monkeypatch.setattr("sys.platform", "linux")
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "xdg"))
    assert default_data_dir() == tmp_path / "xdg" / "musmesa"
    monkeypatch.delenv("XDG_DATA_HOME")
    assert default_data_dir() == Path.home() / ".local" / "share" / "musmesa"
    monkeypatch.setattr("sys.platform", "win32")
    monkeypatch.setenv("APPDATA", str(tmp_path / "roaming"))
    assert default_data_dir() == tmp_path / "roaming" / "musmesa"


def test_mus_torneo_mus_servir_and_the_tablet_share_the_data_folder(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
):
    """With no --datos, `mus torneo` writes where `$MUSMESA_DATA` says (it used to ignore it),
    the same file `mus servir` opens, beside the tablet's partidas."""
    from mesa.storage import Almacen
    from musmesa.cli import main

    datos = tmp_path / "compartida"
    monkeypatch.setenv("MUSMESA_DATA", str(datos))
    monkeypatch.setenv("CLAVE_ORG", "una-clave-larga-9")
    assert main(["torneo", "organizador", "ana", "--clave-entorno", "CLAVE_ORG"]) == 0
    assert "Organizador ana creado." in capsys.readouterr().out
    assert url_por_defecto() == f"sqlite:///{datos / 'torneo.sqlite3'}"  # what `mus servir` opens
    e = _engine(url_por_defecto())
    with e.connect() as conn:
        assert conn.execute(text("SELECT usuario FROM cuenta")).scalars().all() == ["ana"]
    e.dispose()
    almacen = Almacen.abrir()
    assert almacen.carpeta == datos
    almacen.cerrar()
