"""`mus torneo copia` and `restaurar`: a copy taken while the server writes holds every stored
hand, it is owner-only, and restoring it brings the tournament back (codes, members and their
accounts included)."""

from __future__ import annotations

import stat
from pathlib import Path

import pytest

pytest.importorskip("fastapi")
from server.servidor import Servidor
from server.simulacion import MesaSimulada
from tests.cliente_web import ClienteWeb as TestClient
from tests.servidor_torneo import hash_barato  # noqa: F401 (fixture used by name)
from tests.test_torneo_api import CLAVE, codigos, organizador, torneo


def test_a_backup_taken_while_serving_restores_the_tournament(tmp_path: Path, capsys: pytest.CaptureFixture[str]):
    from musmesa.cli import main

    datos = tmp_path / "club"
    srv = Servidor(f"sqlite:///{datos / 'torneo.sqlite3'}")
    c = TestClient(srv.app)
    h = organizador(srv, c)
    tid = torneo(c, h, parejas=2, mesas=1)
    juez = {"usuario": "juez", "rol": "arbitro", "clave": "arbitra-bien-7"}
    assert c.post(f"/api/torneos/{tid}/miembros", headers=h, json=juez).status_code == 201
    c.post(f"/api/torneos/{tid}/rondas", headers=h)
    (codigo,) = codigos(c, h, tid)
    m = MesaSimulada.unirse(c, codigo, semilla=3)
    for _ in range(3):
        m.jugar()
    assert m.enviar(c) == 3
    copia = tmp_path / "copias" / "torneo-copia.sqlite3"
    assert main(["torneo", "copia", str(copia), "--datos", str(datos)]) == 0  # the server is still open
    assert stat.S_IMODE(copia.stat().st_mode) == 0o600
    antes = c.get(f"/api/torneos/{tid}", headers=h).json()
    m.jugar()
    assert m.enviar(c) == 1  # a hand after the copy: restoring goes back to before it
    srv.engine.dispose()
    assert main(["torneo", "copia", str(copia), "--datos", str(datos)]) == 2
    assert "ya existe" in capsys.readouterr().err
    assert main(["torneo", "restaurar", str(copia), "--datos", str(datos)]) == 2
    assert "--forzar" in capsys.readouterr().err
    assert main(["torneo", "restaurar", str(copia), "--datos", str(datos), "--forzar"]) == 0
    back = Servidor(f"sqlite:///{datos / 'torneo.sqlite3'}")
    c = TestClient(back.app)
    h = {"Authorization": "Bearer " + c.post("/api/sesion", json={"usuario": "org", "clave": CLAVE}).json()["token"]}
    despues = c.get(f"/api/torneos/{tid}", headers=h).json()
    assert despues == antes and despues["partidas"][0]["manos"] == 3
    assert c.post("/api/mesas/unirse", json={"codigo": codigo}).status_code == 200
    # the referee added on the day is back, and logs in with the password she had
    r = c.post("/api/sesion", json={"usuario": "juez", "clave": "arbitra-bien-7"})
    assert r.status_code == 200
    assert c.get(f"/api/torneos/{tid}", headers={"Authorization": f"Bearer {r.json()['token']}"}).status_code == 200
    miembros = c.get(f"/api/torneos/{tid}/miembros", headers=h).json()
    assert ("juez", "arbitro") in {(m["usuario"], m["rol"]) for m in miembros}
    back.engine.dispose()
    nada = tmp_path / "nada.txt"
    nada.write_text("hola", encoding="utf-8")
    assert main(["torneo", "restaurar", str(nada), "--datos", str(datos), "--forzar"]) == 2
    assert main(["torneo", "copia", str(tmp_path / "x.sqlite3"), "--url", "postgresql://u@h/b"]) == 2
    assert "pg_dump" in capsys.readouterr().err
