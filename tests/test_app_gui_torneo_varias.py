"""Several tablets at once: a real `mus torneo` server on the loopback, a tournament of four
parejas at two tables created and started through its API as the organiser would, and two
real app processes, each with its own data folder and its own window on one Xvfb display,
joined with their table's code and playing hands by simulated touches (tests/torneo_tableta.py).
Afterwards the standings equal what the tables' marcadores add up to and every hand is stored
exactly once.

The test starts its own Xvfb (2560x800: the two 1280x800 windows side by side), so it needs
the Xvfb binary, not a display. Screenshots of each window go to the test's tmp folder.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from mesa.i18n import t

pytest.importorskip("kivy")
pytest.importorskip("fastapi")
pytest.importorskip("uvicorn")
pytestmark = [
    pytest.mark.gui,
    pytest.mark.skipif(shutil.which("Xvfb") is None, reason="needs Xvfb (apt-get install xvfb)"),
]

ROOT = Path(__file__).resolve().parents[1]
DRIVER = ROOT / "tests" / "torneo_tableta.py"
CLAVE = "una-clave-larga"
MANOS = 3  # hands each table plays
IDIOMAS = ("es", "eu")  # each tablet's language


@pytest.fixture
def display(tmp_path: Path) -> Iterator[str]:
    """A display of its own, wide enough for two tablets side by side."""
    read, write = os.pipe()
    proc = subprocess.Popen(
        ["Xvfb", "-displayfd", str(write), "-screen", "0", "2560x800x24", "-nolisten", "tcp"],
        pass_fds=(write,),
        stderr=subprocess.DEVNULL,
    )
    os.close(write)
    with os.fdopen(read) as f:
        number = f.readline().strip()
    try:
        assert number.isdigit(), "Xvfb did not start"
        yield f":{number}"
    finally:
        proc.terminate()
        proc.wait(10)


@pytest.fixture
def servidor(tmp_path: Path) -> Iterator[tuple[Any, str]]:
    from sqlalchemy.orm import sessionmaker

    from server.db import motor
    from server.servicios import auth
    from tests.test_app_torneo import Server

    url = f"sqlite:///{tmp_path / 'servidor.sqlite3'}"
    engine = motor(url)
    with sessionmaker(engine)() as s, s.begin():  # what `mus torneo organizador ana` does
        auth.crear_cuenta(s, "ana", CLAVE, "organizador")
    engine.dispose()
    server = Server(url)
    server.start()
    yield server, url
    server.stop()


def api(base: str, method: str, path: str, body: dict | None = None, token: str | None = None) -> dict[str, Any]:
    from mesa.torneo import http

    status, doc = http(base)(method, path, body, token)
    assert status in (200, 201), (path, status, doc)
    return doc


def crear_torneo(base: str) -> tuple[str, int, list[str]]:
    """As the organiser: log in, create a league of 4 parejas at 2 tables, start round 1."""
    token = api(base, "POST", "/api/sesion", {"usuario": "ana", "clave": CLAVE})["token"]
    parejas = [{"nombre": f"Pareja {i}", "jugadores": [f"Ana{i}", f"Bea{i}"]} for i in range(4)]
    tid = api(
        base,
        "POST",
        "/api/torneos",
        {
            "nombre": "Open de Segovia",
            "reglas": "segovia",
            "mesas": 2,
            "formato": {"tipo": "liga", "juegos": 5},
            "parejas": parejas,
        },
        token,
    )["id"]
    api(base, "POST", f"/api/torneos/{tid}/rondas", {}, token)
    mesas = api(base, "GET", f"/api/torneos/{tid}", None, token)["mesas"]
    return token, tid, [m["codigo"] for m in sorted(mesas, key=lambda m: m["numero"])]


def tableta(tmp_path: Path, display: str, base: str, codigo: str, k: int) -> tuple[Any, Path]:
    datos, salida = tmp_path / f"tableta{k}", tmp_path / f"capturas{k}"
    datos.mkdir()
    env = os.environ | {
        "DISPLAY": display,
        "MUSMESA_DATA": str(datos),
        "KIVY_HOME": str(tmp_path / f"kivy{k}"),
        "KIVY_NO_ARGS": "1",
    }
    env.pop("WAYLAND_DISPLAY", None)
    proc = subprocess.Popen(
        [
            sys.executable,
            str(DRIVER),
            "--servidor",
            base,
            "--codigo",
            codigo,
            "--semilla",
            str(k),
            "--manos",
            str(MANOS),
            "--salida",
            str(salida),
            "--izquierda",
            str(1280 * k),
            "--idioma",
            IDIOMAS[k],
        ],
        env=env,
        cwd=ROOT,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
    )
    return proc, salida


def stored(url: str) -> dict[int, list[str]]:
    """The client ids of the hands the server holds, by match."""
    from sqlalchemy import select
    from sqlalchemy.orm import sessionmaker

    from server.db import motor
    from server.modelos import torneo as db

    engine = motor(url)
    with sessionmaker(engine)() as s:
        rows = list(
            s.execute(
                select(db.Mano.enfrentamiento_id, db.Mano.cliente_id).order_by(
                    db.Mano.enfrentamiento_id, db.Mano.numero
                )
            )
        )
    engine.dispose()
    out: dict[int, list[str]] = {}
    for eid, cid in rows:
        out.setdefault(eid, []).append(cid)
    return out


def test_two_tablets_play_their_tables_at_once(tmp_path: Path, display: str, servidor) -> None:
    server, url = servidor
    token, tid, codes = crear_torneo(server.base)
    assert len(codes) == 2
    procs = [tableta(tmp_path, display, server.base, code, k) for k, code in enumerate(codes)]
    results = []
    for proc, salida in procs:  # both run at once; each gets 4 minutes at most
        out, _ = proc.communicate(timeout=240)
        doc = json.loads((salida / "resultado.json").read_text())
        assert proc.returncode == 0 and "error" not in doc, doc.get("error") or out[-3000:]
        results.append(doc)

    resumen = api(server.base, "GET", f"/api/torneos/{tid}", None, token)
    partidas = {tuple(p["parejas"]): p for p in resumen["partidas"]}
    filas = api(server.base, "GET", f"/api/torneos/{tid}/clasificacion", None, token)
    standings = {f["nombre"]: f for g in filas["grupos"] for f in g["filas"]}
    held = stored(url)
    assert sum(len(ids) for ids in held.values()) == MANOS * len(results)
    assert {p for r in results for p in r["parejas"]} == set(standings)  # every pareja played
    for r, idioma in zip(results, IDIOMAS, strict=True):
        assert r["manos"] == MANOS and r["pendientes"] == 0 and r["rechazadas"] == ""
        assert r["estado_envio"] == t("Todas las manos enviadas", idioma)  # in its language
        match = partidas[tuple(r["parejas"])]
        assert held[match["id"]] == r["ids"]  # each hand once, in order, none from elsewhere
        assert len(set(r["ids"])) == MANOS
        assert match["tantos"] == r["tantos"] and match["juegos"] == r["juegos"]
        for k, nombre in enumerate(r["parejas"]):  # the standings add up the hands
            assert standings[nombre]["tantos_favor"] == r["ganados"][k]
            assert standings[nombre]["juegos_favor"] == r["juegos"][k]
    for k in range(len(results)):
        for name in ("unida", "marcador", "torneo"):
            assert (tmp_path / f"capturas{k}" / f"{name}.png").stat().st_size > 10_000
