"""The contract between the tournament server and its table clients (scoring.protocolo): both
sides use the one definition of the join code, the QR code's content and the hand's body."""

from __future__ import annotations

from pathlib import Path

import cv2
import numpy as np
import pytest

import mesa.torneo
import scoring.protocolo as protocolo
from mesa.torneo import texto_qr_cualquiera
from scoring.protocolo import CODIGO, codigo_de, enlace_mesa, servidor_de
from scoring.tanteo import CLAVES_REGISTRO, RegistroMano

pytest.importorskip("fastapi")
from server.esquemas import ErrorOut, ManoIn
from server.servicios import auth
from server.servidor import Servidor
from tests.cliente_web import ClienteWeb as TestClient
from tests.servidor_torneo import hash_barato  # noqa: F401 (fixture used by name)


@pytest.mark.parametrize(
    "texto",
    [
        "WEY2AW7ED4",
        "wey2-aw7e-d4",
        " WEY2 AW7E D4 ",
        "musmesa-mesa:WEY2AW7ED4",
        "MUSMESA-MESA:wey2aw7ed4",
        "http://192.168.1.5:8000/mesa?codigo=WEY2AW7ED4",
        "https://club.example/mesa?codigo=wey2aw7ed4&lang=eu",
    ],
)
def test_a_code_typed_or_read(texto: str):
    assert codigo_de(texto) == "WEY2AW7ED4"


@pytest.mark.parametrize(
    "texto",
    [
        "WEY2AW7ED0",
        "WEY2AW7ED",
        "http://x/mesa",
        "http://x/mesa?codigo=O1",
        "",
        "musmesa-mesa:",
        "https://x/mesa?codigo=WEY2AW7ED4I",
    ],
)
def test_not_a_code(texto: str):
    assert codigo_de(texto) is None and servidor_de(texto) is None


def test_the_server_of_a_link():
    assert servidor_de(enlace_mesa("http://10.0.0.2:8000", "WEY2AW7ED4")) == "http://10.0.0.2:8000"
    assert servidor_de("WEY2AW7ED4") is None


def test_the_hand_body_and_record_keys_are_the_servers():
    assert set(ManoIn.model_fields) == set(protocolo.CAMPOS_MANO)
    assert protocolo.TANTEO_SERVIDOR in ErrorOut.model_fields  # the refusal the clients read it from
    assert set(RegistroMano(("1o 2o 3o 4o",) * 4).to_dict()) <= CLAVES_REGISTRO  # type: ignore[arg-type]


def test_the_organisers_qr_code_opens_the_phone_page_and_the_tablet_reads_it(tmp_path: Path):
    srv = Servidor(f"sqlite:///{tmp_path / 't.sqlite3'}")
    client = TestClient(srv.app, base_url="http://192.168.1.5:8000")
    with srv.sesion() as s:
        auth.crear_cuenta(s, "org", "secreto-largo-1", "organizador")
    token = client.post("/api/sesion", json={"usuario": "org", "clave": "secreto-largo-1"}).json()["token"]
    h = {"Authorization": f"Bearer {token}"}
    body = {
        "nombre": "Open",
        "reglas": "segovia",
        "mesas": 1,
        "parejas": [{"nombre": f"P{i}", "jugadores": [f"A{i}", f"B{i}"]} for i in range(2)],
    }
    tid = client.post("/api/torneos", headers=h, json=body).json()["id"]
    code = client.get(f"/api/torneos/{tid}", headers=h).json()["mesas"][0]["codigo"]
    assert CODIGO.fullmatch(code) and codigo_de(code.lower()) == code  # the server's codes, the clients' rule
    png = client.get(f"/torneos/{tid}/mesas/1/qr.png", headers=h)
    assert png.status_code == 200
    frame = cv2.imdecode(np.frombuffer(png.content, np.uint8), cv2.IMREAD_COLOR)
    text = texto_qr_cualquiera(frame)
    assert text == f"http://192.168.1.5:8000/mesa?codigo={code}"
    frame = cv2.copyMakeBorder(frame, 120, 120, 200, 200, cv2.BORDER_CONSTANT, value=(60, 90, 60))
    assert mesa.torneo.leer_qr(frame) == code
    # the organiser's browser on the server's own machine: the link is the LAN address `mus servir` found
    srv.app.state.direccion_lan = "http://192.168.1.7:8000"
    local = TestClient(srv.app, base_url="http://127.0.0.1:8000")
    png = local.get(f"/torneos/{tid}/mesas/1/qr.png", headers=h)
    text = texto_qr_cualquiera(cv2.imdecode(np.frombuffer(png.content, np.uint8), 1))
    assert text == f"http://192.168.1.7:8000/mesa?codigo={code}"
    srv.engine.dispose()
