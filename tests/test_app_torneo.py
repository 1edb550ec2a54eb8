"""The tablet's tournament client (app.logic.torneo) against a real `mus torneo` server on the
loopback: join by code or QR, a queue that survives the network and the app being killed,
resends counted once, a refused tanteo said and kept."""

from __future__ import annotations

import json
import random
import threading
import time
from collections.abc import Iterator
from pathlib import Path

import cv2
import pytest

pytest.importorskip("fastapi")
uvicorn = pytest.importorskip("uvicorn")
from sqlalchemy.orm import sessionmaker  # noqa: E402

from app.logic.torneo import ClienteTorneo, SinRed, TorneoError, codigo_de, http, leer_qr  # noqa: E402
from scoring.partida import Partida  # noqa: E402
from torneo import auth, db, servicio  # noqa: E402
from torneo import formato as fm  # noqa: E402
from torneo.api import Servidor  # noqa: E402
from torneo.simulacion import free_port, mano_aleatoria  # noqa: E402


class Server:
    """`mus torneo`'s app in uvicorn on a thread; stopped and started again on the same port."""

    def __init__(self, url: str) -> None:
        self.url, self.port = url, free_port()
        self.base = f"http://127.0.0.1:{self.port}"
        self._server: uvicorn.Server | None = None

    def start(self) -> None:
        config = uvicorn.Config(Servidor(self.url).app, host="127.0.0.1", port=self.port,
                                log_level="warning")
        self._server = uvicorn.Server(config)
        thread = threading.Thread(target=self._server.run, daemon=True)
        thread.start()
        self._thread = thread
        for _ in range(200):
            if self._server.started:
                return
            time.sleep(0.05)
        raise RuntimeError("the server did not start")

    def stop(self) -> None:
        assert self._server is not None
        self._server.should_exit = True
        self._thread.join(10)


@pytest.fixture
def torneo(tmp_path: Path) -> Iterator[tuple[Server, list[str]]]:
    url = f"sqlite:///{tmp_path / 'servidor.sqlite3'}"
    engine = db.motor(url)
    with sessionmaker(engine)() as s, s.begin():
        org = auth.crear_cuenta(s, "ana", "una-clave-larga", "organizador")
        parejas = [servicio.NuevaPareja(f"P{i}", (f"A{i}", f"B{i}")) for i in range(4)]
        t = servicio.crear_torneo(s, org, "Open", "segovia", fm.Formato(juegos=20), parejas, 2)
        servicio.iniciar_ronda(s, t)
        codes = [m.codigo for m in servicio.mesas_de(s, t)]
    engine.dispose()
    server = Server(url)
    server.start()
    yield server, codes
    server.stop()


def play(client: ClienteTorneo, partida: Partida, rng: random.Random,
         tanteo: tuple[int, int] | None = None) -> str:
    """One hand at the table, scored by the tablet's own Partida, queued."""
    manos, lances = mano_aleatoria(rng)
    registro = partida.registro(manos, lances)
    result = partida.registrar(manos, lances)
    # what the server checks: the marcador after the hand, as the tablet shows it
    return client.encolar(registro, tanteo or tuple(result.marcador), foto=b"jpeg bytes")


def hands_on_server(server: Server, token: str) -> int:
    status, doc = http(server.base)("GET", "/api/mesa/partida", None, token)
    assert status == 200
    return doc["manos"]


def test_codes_typed_or_read_from_the_qr_code(tmp_path: Path):
    segno = pytest.importorskip("segno")
    assert codigo_de("musmesa-mesa:WEY2AW7ED4") == "WEY2AW7ED4"
    assert codigo_de("wey2-aw7e-d4") == "WEY2AW7ED4"
    assert codigo_de("WEY2AW7ED0") is None  # no 0, O, 1 or I in a code
    png = tmp_path / "qr.png"
    segno.make("musmesa-mesa:WEY2AW7ED4", error="m").save(str(png), scale=8, border=4)
    frame = cv2.imread(str(png))
    frame = cv2.copyMakeBorder(frame, 120, 120, 200, 200, cv2.BORDER_CONSTANT, value=(60, 90, 60))
    assert leer_qr(frame) == "WEY2AW7ED4"
    assert leer_qr(frame[:60, :60]) is None


def test_join_play_lose_the_network_and_send_later(tmp_path: Path, torneo):
    server, codes = torneo
    datos = tmp_path / "tableta"
    datos.mkdir()
    client = ClienteTorneo(datos)
    mesa = client.unirse(server.base, "musmesa-mesa:" + codes[0])
    assert mesa.torneo == "Open" and len(mesa.parejas) == 2
    partida = Partida(mesa.partida["reglas"], mesa.partida["jugadores"])
    rng = random.Random(3)
    play(client, partida, rng)
    assert client.enviar() == 1 and client.pendientes() == 0
    server.stop()  # the network goes: the table keeps playing
    for _ in range(3):
        play(client, partida, rng)
    assert client.enviar() == 0 and client.pendientes() == 3
    client.close()  # and the app is killed and opened again
    server.start()
    client = ClienteTorneo(datos)
    assert client.pendientes() == 3
    assert client.enviar() == 3 and client.pendientes() == 0
    assert hands_on_server(server, mesa.token) == 4


def test_a_resend_after_a_lost_answer_counts_once(tmp_path: Path, torneo):
    server, codes = torneo
    client = ClienteTorneo(tmp_path)
    mesa = client.unirse(server.base, codes[1])
    partida = Partida(mesa.partida["reglas"], mesa.partida["jugadores"])
    play(client, partida, random.Random(5))
    assert client.enviar() == 1
    # the answer was lost on the way back: the tablet thinks it still has to send it
    client._db.execute("UPDATE cola SET estado = 'pendiente'")
    assert client.enviar() == 1
    assert hands_on_server(server, mesa.token) == 1


def test_a_refused_tanteo_is_kept_with_the_servers_reason(tmp_path: Path, torneo):
    server, codes = torneo
    client = ClienteTorneo(tmp_path)
    mesa = client.unirse(server.base, codes[0])
    partida = Partida(mesa.partida["reglas"], mesa.partida["jugadores"])
    rng = random.Random(7)
    play(client, partida, rng, tanteo=(39, 39))
    play(client, partida, rng)
    assert client.enviar() == 0
    [(numero, why)] = client.rechazadas()
    assert numero == 1 and "tanteo no coincide" in why
    assert client.pendientes() == 1  # the next hand waits behind it: no hand count skips
    assert hands_on_server(server, mesa.token) == 0


def test_bad_codes_and_no_server_say_so(tmp_path: Path, torneo):
    server, _ = torneo
    client = ClienteTorneo(tmp_path)
    with pytest.raises(TorneoError, match="10 letras"):
        client.unirse(server.base, "abc")
    with pytest.raises(TorneoError, match="desconocido"):
        client.unirse(server.base, "ZZZZZZZZZZ")
    with pytest.raises(SinRed):
        client.unirse(f"http://127.0.0.1:{free_port()}", "ZZZZZZZZZZ")
    with pytest.raises(TorneoError, match="no está unida"):
        client.encolar({"mano": 0}, (0, 0))
    assert json.loads(json.dumps(client.rechazadas())) == []
