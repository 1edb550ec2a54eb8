"""`mus servir` as a person starts it: a subprocess on a free port of the loopback that prints
the addresses a phone can open and a QR code, serves the phone pages and the tournament, works
with two uvicorn workers, and keeps a partida through a ``kill -9`` and a restart."""

from __future__ import annotations

import os
import signal
import socket
import subprocess
import sys
import time
import uuid
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest

httpx = pytest.importorskip("httpx")
pytest.importorskip("uvicorn")

import psycopg  # noqa: E402 (after the skips)

from server.cli import direcciones, direcciones_lan  # noqa: E402
from server.simulacion import free_port  # noqa: E402
from tests.servidor_torneo import postgres  # noqa: E402, F401 (a fixture used by name)

REPO = Path(__file__).resolve().parents[1]
MANO = {"cartas": ["12o 12c 11e 1b", "3o 3c 3e 7b", "4o 5c 6e 7o", "1o 2c 1e 4b"], "lances": {"pares": {"quiero": 5}}}


@contextmanager
def servir(
    datos: Path, *extra: str, puerto: int | None = None, url: str | None = None
) -> Iterator[tuple[str, subprocess.Popen[str]]]:
    """`mus servir --datos DATOS` (or ``--url``) on 127.0.0.1; yields its base URL once it answers,
    and the process."""
    puerto = puerto or free_port()
    base_datos = ["--url", url] if url else ["--datos", str(datos)]
    proc = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "musmesa",
            "servir",
            *base_datos,
            "--host",
            "127.0.0.1",
            "--puerto",
            str(puerto),
            *extra,
        ],
        cwd=REPO,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
        start_new_session=True,
    )
    base = f"http://127.0.0.1:{puerto}"
    try:
        limite = time.monotonic() + 120
        while True:
            if proc.poll() is not None:
                raise AssertionError(proc.stdout.read() if proc.stdout else "mus servir ended")
            try:  # an answer, not just a connection: a killed server's workers may still hold the port
                if httpx.get(f"{base}/static/mesa.css", timeout=2).status_code == 200:
                    break
            except httpx.HTTPError:
                if time.monotonic() > limite:
                    raise AssertionError("mus servir did not answer in 120 s") from None
                time.sleep(0.1)
        yield base, proc
    finally:
        if proc.poll() is None:
            os.killpg(proc.pid, signal.SIGTERM)
        proc.wait(30)


def test_mus_servir_prints_where_to_go_and_serves_the_phones_and_the_tournament(tmp_path: Path):
    with servir(tmp_path) as (base, proc):
        assert httpx.get(f"{base}/").status_code == 200
        assert 'id="nueva_partida"' in httpx.get(f"{base}/").text
        r = httpx.get(f"{base}/torneos", follow_redirects=False)  # the organiser's pages, unchanged
        assert r.status_code == 303 and r.headers["location"].startswith("/entrar")
        assert httpx.get(f"{base}/entrar").status_code == 200
        mesa = httpx.get(f"{base}/api/mesa/partida")  # the tables' API of the tournament
        assert mesa.status_code == 401 and mesa.json() == {"error": "falta el token de la mesa"}
        assert httpx.get(f"{base}/static/mesa.css").status_code == 200
    salida = proc.stdout.read() if proc.stdout else ""
    assert f"http://127.0.0.1:{base.rsplit(':', 1)[1]}/" in salida
    assert "▀" in salida or "█" in salida  # the QR code, drawn with block characters
    assert (tmp_path / "torneo.sqlite3").is_file()


def test_the_addresses_for_phones_are_this_machines_lan_ones():
    lan = direcciones_lan()
    assert all(not ip.startswith("127.") and ip.count(".") == 3 for ip in lan)
    todas = direcciones("0.0.0.0", 8000)
    assert todas == [f"http://{ip}:8000/" for ip in lan] or (not lan and todas == ["http://127.0.0.1:8000/"])
    assert direcciones("192.168.1.20", 8080) == ["http://192.168.1.20:8080/"]


@pytest.mark.parametrize("kind", ["sqlite", "postgresql"])
def test_two_workers_share_the_partida_and_a_kill_9_keeps_it(tmp_path: Path, request: pytest.FixtureRequest, kind: str):
    url = None
    if kind == "postgresql":
        base_pg = request.getfixturevalue("postgres")
        name = f"s_{uuid.uuid4().hex[:12]}"
        with psycopg.connect(base_pg, autocommit=True) as conn:
            conn.execute(f"CREATE DATABASE {name}")
        url = base_pg.rsplit("/", 1)[0] + f"/{name}"
    puerto = free_port()
    with servir(tmp_path, "--trabajadores", "2", puerto=puerto, url=url) as (base, proc):
        with httpx.Client(base_url=base, timeout=30) as c:
            r = c.post("/api/partidas", json={"jugadores": ["Ana", "Bea", "Carlos", "Dani"], "reglas": "segovia"})
            assert r.status_code == 201, r.text
            clave = r.json()["clave"]
            mano = c.post(f"/api/partidas/{clave}/manos", json={"id_mano": "primera-mano", "n": 1, **MANO})
            assert mano.status_code == 201, mano.text
            borrador = c.get(f"/api/partidas/{clave}/borrador").json()
            datos = borrador["datos"] | {"cartas": ["1o 1c", None, None, None], "asiento": 0}
            assert c.put(f"/api/partidas/{clave}/borrador", json={"datos": datos, "version": 0}).status_code == 200
            # new connections land on either worker: every one sees the same partida and draft
            for _ in range(10):
                with httpx.Client(base_url=base, timeout=30) as otro:
                    assert otro.get(f"/api/partidas/{clave}").json()["manos"] == 1
                    assert otro.get(f"/api/partidas/{clave}/borrador").json()["datos"]["cartas"][0] == "1o 1c"
        os.killpg(proc.pid, signal.SIGKILL)  # no shutdown at all
        proc.wait(30)
        for _ in range(300):  # until the workers, killed too, have let the port go
            try:
                with socket.create_connection(("127.0.0.1", puerto), timeout=0.2):
                    time.sleep(0.1)
            except OSError:
                break
    with servir(tmp_path, puerto=puerto, url=url) as (base, proc), httpx.Client(base_url=base, timeout=30) as c:
        m = c.get(f"/api/partidas/{clave}").json()
        assert m["manos"] == 1 and [p["tantos"] for p in m["parejas"]] == [3, 11]
        assert c.get(f"/api/partidas/{clave}/borrador").json()["datos"] == datos
        again = c.post(f"/api/partidas/{clave}/manos", json={"id_mano": "primera-mano", "n": 1, **MANO})
        assert again.status_code == 201 and again.json()["repetida"] is True
        assert c.get(f"/p/{clave}").status_code == 200


def test_a_folder_that_cannot_be_used_is_one_line_and_status_2(tmp_path: Path):
    fichero = tmp_path / "no-es-carpeta"
    fichero.write_text("x", encoding="utf-8")
    r = subprocess.run(
        [sys.executable, "-m", "musmesa", "servir", "--datos", str(fichero / "datos"), "--puerto", "1"],
        cwd=REPO,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert r.returncode == 2 and r.stderr.startswith("mus servir: no se puede usar la carpeta de datos")
    assert r.stderr.count("\n") == 1 and "Traceback" not in r.stderr
