"""The tournament screen's logic (mesa.torneo_mesa) against a real `mus torneo` server on
the loopback, without a window: the app's partida is the match, confirmed hands are queued
with the marcador after them and sent in a background thread, a refused hand keeps its reason."""

from __future__ import annotations

import threading
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

pytest.importorskip("fastapi")
pytest.importorskip("uvicorn")

from mesa.partida import ControlPartida
from mesa.storage import Almacen
from mesa.torneo import ClienteTorneo, TorneoError, http
from mesa.torneo_mesa import MesaTorneo, validar_servidor
from tests.servidor_torneo import Server, torneo_en_marcha
from tests.test_app_torneo import MANOS_REYES, ServidorDistinto

MANOS = [
    ["12o 12c 11e 1b", "3o 3c 3e 7b", "4o 5c 6e 7o", "1o 2c 1e 4b"],
    ["1o 4c 5e 6b", "7o 7c 2e 4b", "1c 5c 6e 10b", "2o 4e 5b 6o"],
    ["12e 11o 10c 7c", "1c 1e 4o 5o", "6c 6e 6o 2b", "3b 12b 11b 10b"],
]


@pytest.fixture
def torneo(tmp_path: Path) -> Iterator[tuple[Server, list[str]]]:
    with torneo_en_marcha(tmp_path, "Liga", "general", juegos=None) as running:
        yield running


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
    joined, misma = mesa.unirse_en_hilo(server.base, codes[0])
    assert not misma
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
    mesa.empezar_partida(ctl, *mesa.unirse_en_hilo(server.base, codes[1]))
    # a second tablet at the same table sends a hand first: ours no longer follows the server
    otra = tmp_path / "otra"
    otra.mkdir()
    other = ClienteTorneo(otra)
    other_ctl = ControlPartida(Almacen.abrir(otra))
    other_mesa = MesaTorneo(otra)
    other_mesa.empezar_partida(other_ctl, other.unirse(server.base, codes[1]))
    other.encolar(other_ctl.partida.registro(MANOS[1]), tuple(other_ctl.partida.registrar(MANOS[1]).marcador))
    assert other.enviar() == 1
    res = confirm(ctl, MANOS[0])
    mesa.tras_confirmar(ctl, res)
    assert send_and_wait(mesa) == 0
    [refused] = mesa.vista().rechazadas
    assert refused.numero == 1 and refused.motivo == "se esperaba la mano 2, no la 1"
    assert refused.estado == 409 and refused.detras == 0
    assert mesa.vista().pendientes == 0
    late = tmp_path / "tarde"  # a third tablet cannot start this match from 0-0
    late.mkdir()
    late_mesa = MesaTorneo(late)
    late_ctl = ControlPartida(Almacen.abrir(late))
    with pytest.raises(TorneoError, match=r"ya tiene manos en el servidor \(1\)"):
        late_mesa.empezar_partida(late_ctl, *late_mesa.unirse_en_hilo(server.base, codes[1]))
    assert late_mesa.vista() is None and not late_ctl.activa
    late_mesa.close()
    other.close()
    other_mesa.close()
    mesa.close()
    almacen.cerrar()


def test_a_bye_or_bad_names_leave_nothing_half_joined(tmp_path: Path):
    from mesa.torneo import MesaUnida

    almacen = Almacen.abrir(tmp_path)
    ctl = ControlPartida(almacen)
    mesa = MesaTorneo(tmp_path)
    with pytest.raises(TorneoError, match="descansa"):
        mesa.empezar_partida(ctl, MesaUnida("http://x", "t", "Liga", {"descansa": True}))
    assert mesa.vista() is None and not ctl.activa
    with pytest.raises(ValueError):
        mesa.empezar_partida(
            ctl, MesaUnida("http://x", "t", "Liga", {"reglas": "general", "jugadores": ["A", "A", "B", "C"]})
        )
    assert mesa.vista() is None and not ctl.activa
    mesa.close()
    almacen.cerrar()


def test_the_marcador_follows_the_servers_corrections(tmp_path: Path):
    """The tablet counts with 8 reyes, the server with 4: the app's marcador takes the
    server's after each corrected hand, so the next hands count from it, as on the server."""
    server = ServidorDistinto("ludoteka-4")
    almacen = Almacen.abrir(tmp_path)
    ctl = ControlPartida(almacen)
    mesa = MesaTorneo(tmp_path, idioma="en", transport=server.transport)
    mesa.empezar_partida(ctl, mesa.cliente.unirse("http://mesa", "AB2C3D4E5F"))
    for cartas in MANOS_REYES[:2]:
        assert mesa.tras_confirmar(ctl, confirm(ctl, cartas))
    assert mesa.cliente.enviar() == 2 and ctl.partida.tantos == (5, 6)
    # hand 1 corrected to 2-5; hand 2 from there is 4-7 with 8 reyes, but the server stored
    # the 5-6 the tablet claimed (5-6 with 4 reyes too): the marcador is the server's 5-6
    assert not mesa.seguir_servidor(ctl) and ctl.partida.tantos == (5, 6)
    res = confirm(ctl, MANOS_REYES[2])  # 8 reyes from 5-6: 7-10; the server says 10-7
    assert tuple(res.marcador) == (7, 10) and mesa.tras_confirmar(ctl, res)
    assert mesa.cliente.enviar() == 1
    assert mesa.seguir_servidor(ctl) and ctl.partida.tantos == (10, 7) == server.partida.tantos
    assert not mesa.seguir_servidor(ctl)  # once
    fourth = ["1o 1c 4e 5b", "6o 7c 10e 11b", "12o 2c 3e 4o", "5c 6e 7b 10o"]
    assert mesa.tras_confirmar(ctl, confirm(ctl, fourth))  # counted from 10-7, as the server
    assert mesa.cliente.enviar() == 1 and not mesa.vista().rechazadas  # its marcador agreed
    assert [c.numero for c in mesa.vista().correcciones] == [1, 3, 4]  # 14-9 for 13-9
    assert mesa.seguir_servidor(ctl) and ctl.partida.tantos == server.partida.tantos
    assert len(server.manos) == 4 == len(almacen.manos(ctl.partida_id))  # each once, all kept
    ctl.reanudar(ctl.partida_id)  # the app opened again: the stored hands are the table's count
    assert ctl.partida.tantos != server.partida.tantos
    assert mesa.seguir_servidor(ctl) and ctl.partida.tantos == server.partida.tantos
    mesa.close()
    almacen.cerrar()


def reloj_del_organizador(server: Server, **body: object) -> None:
    """The organiser starts (or changes) the round's clock through the server's API."""
    status, doc = http(server.base)("POST", "/api/sesion", {"usuario": "ana", "clave": "una-clave-larga"}, None)
    assert status in (200, 201), doc
    status, doc = http(server.base)("POST", "/api/torneos/1/reloj", dict(body), doc["token"])
    assert status == 200, doc


def test_call_the_referee_and_count_the_clock_down(tmp_path: Path, torneo):
    from mesa.torneo_mesa import reloj_local, texto_llamada, texto_reloj

    server, codes = torneo
    mesa = MesaTorneo(tmp_path)
    mesa.cliente.unirse(server.base, codes[0])
    assert mesa.reloj_en_hilo() == {} and reloj_local({}, 0.0) is None  # no clock yet
    assert texto_reloj(str, None, 0.0) == ""
    assert mesa.llamar_en_hilo() is True and mesa.llamar_en_hilo() is False  # the second: still open
    assert texto_llamada(str, True) == "Árbitro llamado: viene a la mesa"
    assert texto_llamada(str, False) == "Ya habéis llamado al árbitro: viene a la mesa"

    reloj_del_organizador(server, accion="inicio", minutos=20)
    doc = mesa.reloj_en_hilo()
    # the tablet's own clock is an hour ahead of the server's: the count is the same
    recibido = time.time() + 3600
    reloj = reloj_local(doc, recibido)
    assert reloj is not None and reloj.fin is not None and abs(reloj.restante(recibido) - doc["restante"]) <= 1
    assert 19 * 60 < reloj.restante(recibido) <= 20 * 60
    assert texto_reloj(str, reloj, reloj.fin - 65.5) == "Tiempo: 1:06"
    assert texto_reloj(str, reloj, reloj.fin + 1) == "Tiempo agotado"

    reloj_del_organizador(server, accion="pausa", motivo="una discusión")
    pausado = reloj_local(mesa.reloj_en_hilo(), time.time())
    assert pausado is not None and pausado.fin is None
    assert texto_reloj(str, pausado, time.time() + 3600).endswith("En pausa")  # it does not count
    mesa.close()


def test_the_referee_call_offline_says_so(tmp_path: Path, torneo):
    from mesa.torneo import SinRed

    server, codes = torneo
    mesa = MesaTorneo(tmp_path)
    mesa.cliente.unirse(server.base, codes[0])
    server.stop()
    try:
        with pytest.raises(SinRed):
            mesa.llamar_en_hilo()
    finally:
        server.start()
        mesa.close()
