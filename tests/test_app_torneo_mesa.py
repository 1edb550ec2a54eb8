"""The tournament screen's logic (app.logic.torneo_mesa) against a real `mus torneo` server on
the loopback, without a window: the app's partida is the match, confirmed hands are queued
with the marcador after them and sent in a background thread, a refused hand keeps its reason."""

from __future__ import annotations

import threading
from collections.abc import Iterator
from pathlib import Path

import pytest

pytest.importorskip("fastapi")
pytest.importorskip("uvicorn")

from app.logic.partida import ControlPartida
from app.logic.torneo import ClienteTorneo, TorneoError, http
from app.logic.torneo_mesa import MesaTorneo, validar_servidor
from app.storage import Almacen
from tests.test_app_torneo import Server

MANOS = [
    ["12o 12c 11e 1b", "3o 3c 3e 7b", "4o 5c 6e 7o", "1o 2c 1e 4b"],
    ["1o 4c 5e 6b", "7o 7c 2e 4b", "1c 5c 6e 10b", "2o 4e 5b 6o"],
    ["12e 11o 10c 7c", "1c 1e 4o 5o", "6c 6e 6o 2b", "3b 12b 11b 10b"],
]


@pytest.fixture
def torneo(tmp_path: Path) -> Iterator[tuple[Server, list[str]]]:
    from sqlalchemy.orm import sessionmaker

    from torneo import auth, db, servicio
    from torneo import formato as fm

    url = f"sqlite:///{tmp_path / 'servidor.sqlite3'}"
    engine = db.motor(url)
    with sessionmaker(engine)() as s, s.begin():
        org = auth.crear_cuenta(s, "ana", "una-clave-larga", "organizador")
        parejas = [servicio.NuevaPareja(f"P{i}", (f"A{i}", f"B{i}")) for i in range(4)]
        t = servicio.crear_torneo(s, org, "Liga", "general", fm.Formato(), parejas, 2)
        servicio.iniciar_ronda(s, t)
        codes = [m.codigo for m in servicio.mesas_de(s, t)]
    engine.dispose()
    server = Server(url)
    server.start()
    yield server, codes
    server.stop()


def confirm(ctl: ControlPartida, cartas: list[str]):
    entrada = ctl.entrada()
    entrada.poner_cartas(cartas)
    res, _ = ctl.confirmar(entrada)
    return res


def send_and_wait(mesa: MesaTorneo) -> int:
    done = threading.Event()
    got: list[int] = []
    assert mesa.enviar(lambda n: (got.append(n), done.set()))
    assert done.wait(30)
    return got[0]


def test_server_address_as_typed():
    assert validar_servidor(" 192.168.1.10:8000/ ") == "http://192.168.1.10:8000"
    assert validar_servidor("https://mus.example.org") == "https://mus.example.org"
    for bad in ("", "   ", "ftp://x", "http://a b"):
        with pytest.raises(ValueError):
            validar_servidor(bad)


def test_join_play_queue_and_send_in_the_background(tmp_path: Path, torneo):
    server, codes = torneo
    almacen = Almacen.abrir(tmp_path)
    ctl = ControlPartida(almacen)
    mesa = MesaTorneo(tmp_path)
    joined = MesaTorneo.unirse_en_hilo(tmp_path, server.base, codes[0])
    mesa.empezar_partida(ctl, joined)
    assert ctl.info["jugadores"] == joined.partida["jugadores"] and mesa.juega(ctl)
    for cartas in MANOS:
        res = confirm(ctl, cartas)
        assert mesa.tras_confirmar(ctl, res)
    assert mesa.vista().pendientes == 3
    assert send_and_wait(mesa) == 3 and mesa.vista().pendientes == 0
    status, doc = http(server.base)("GET", "/api/mesa/partida", None, joined.token)
    assert status == 200 and doc["manos"] == 3 and doc["tantos"] == list(ctl.partida.tantos)

    ctl.nueva("general", ["W", "X", "Y", "Z"], 0)  # a friendly game beside the tournament
    assert not mesa.juega(ctl) and not mesa.tras_confirmar(ctl, confirm(ctl, MANOS[0]))
    assert mesa.vista().pendientes == 0
    mesa.salir(ctl)
    assert mesa.vista() is None
    mesa.close()
    almacen.cerrar()


def test_a_refused_hand_is_shown_with_the_servers_reason(tmp_path: Path, torneo):
    server, codes = torneo
    almacen = Almacen.abrir(tmp_path)
    ctl = ControlPartida(almacen)
    mesa = MesaTorneo(tmp_path)
    mesa.empezar_partida(ctl, MesaTorneo.unirse_en_hilo(tmp_path, server.base, codes[1]))
    # a second tablet at the same table sends a hand first: ours no longer follows the server
    otra = tmp_path / "otra"
    otra.mkdir()
    other = ClienteTorneo(otra)
    other_ctl = ControlPartida(Almacen.abrir(otra))
    other_mesa = MesaTorneo(otra)
    other_mesa.empezar_partida(other_ctl, other.unirse(server.base, codes[1]))
    other.encolar(other_ctl.partida.registro(MANOS[1]),
                  tuple(other_ctl.partida.registrar(MANOS[1]).marcador))
    assert other.enviar() == 1
    res = confirm(ctl, MANOS[0])
    mesa.tras_confirmar(ctl, res)
    assert send_and_wait(mesa) == 0
    [(numero, why)] = mesa.vista().rechazadas
    assert numero == 1 and why  # the server's own words, shown as they come
    assert mesa.vista().pendientes == 0
    late = tmp_path / "tarde"  # a third tablet cannot start this match from 0-0
    late.mkdir()
    late_mesa = MesaTorneo(late)
    late_ctl = ControlPartida(Almacen.abrir(late))
    with pytest.raises(TorneoError, match=r"ya tiene manos en el servidor \(1\)"):
        late_mesa.empezar_partida(late_ctl, MesaTorneo.unirse_en_hilo(late, server.base, codes[1]))
    assert late_mesa.vista() is None and not late_ctl.activa
    late_mesa.close()
    other.close()
    other_mesa.close()
    mesa.close()
    almacen.cerrar()


def test_a_bye_or_bad_names_leave_nothing_half_joined(tmp_path: Path):
    from app.logic.torneo import Mesa

    almacen = Almacen.abrir(tmp_path)
    ctl = ControlPartida(almacen)
    mesa = MesaTorneo(tmp_path)
    with pytest.raises(TorneoError, match="descansa"):
        mesa.empezar_partida(ctl, Mesa("http://x", "t", "Liga", {"descansa": True}))
    assert mesa.vista() is None and not ctl.activa
    with pytest.raises(ValueError):
        mesa.empezar_partida(ctl, Mesa("http://x", "t", "Liga",
                                       {"reglas": "general", "jugadores": ["A", "A", "B", "C"]}))
    assert mesa.vista() is None and not ctl.activa
    mesa.close()
    almacen.cerrar()
