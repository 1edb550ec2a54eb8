"""What the tournament tests share: a real `mus torneo` server for the tablet's tests (uvicorn
on a thread of the test process, on the loopback, over a SQLite file, with a tournament of four
parejas at two tables and its first round started), and the server tests' fixtures (a
throwaway PostgreSQL, cheap password hashing). A test module takes the fixtures by importing
them."""

from __future__ import annotations

import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pytest

# eight parejas named as a club names them (long ones, accents): the day's pages must fit them
PAREJAS_DE_CLUB = [
    "Los Reyes de la Calle Mayor",
    "Las Sotas de Oros",
    "Duples y Medias",
    "Órdago a la Grande",
    "Txapeldunak",
    "Amarracos de Oñati",
    "La Vaca de Tolosa",
    "Piedra y Punto",
]


class Server:
    """`mus torneo`'s app in uvicorn on a thread; stopped and started again on the same port.
    ``fabrica``: another app over the same database (`mus servir`'s, the one server)."""

    def __init__(self, url: str, fabrica: Callable[[str], Any] | None = None) -> None:
        from server.simulacion import free_port

        self.url, self.port, self.fabrica = url, free_port(), fabrica
        self.base = f"http://127.0.0.1:{self.port}"
        self._server: Any = None

    def start(self) -> None:
        import uvicorn

        from server.servidor import Servidor

        app = self.fabrica(self.url) if self.fabrica else Servidor(self.url).app
        config = uvicorn.Config(app, host="127.0.0.1", port=self.port, log_level="warning")
        self._server = uvicorn.Server(config)
        self._thread = threading.Thread(target=self._server.run, daemon=True)
        self._thread.start()
        for _ in range(200):
            if self._server.started:
                return
            time.sleep(0.05)
        raise RuntimeError("the server did not start")

    def stop(self) -> None:
        assert self._server is not None
        self._server.should_exit = True
        self._thread.join(10)


@contextmanager
def torneo_en_marcha(
    carpeta: Path,
    nombre: str = "Open",
    reglas: str = "segovia",
    juegos: int | None = 20,
    pareja: str = "P{i}",
    jugadores: tuple[str, str] = ("A{i}", "B{i}"),
    fabrica: Callable[[str], Any] | None = None,
) -> Iterator[tuple[Server, list[str]]]:
    """A server on ``carpeta``/servidor.sqlite3 with a tournament of four parejas at two tables,
    round one started; yields the server (running) and the two tables' join codes. ``fabrica``:
    the app to serve (the tournament server's when None)."""
    from sqlalchemy.orm import sessionmaker

    from server.db import motor
    from server.servicios import auth
    from server.servicios import torneos as servicio
    from torneo import formato as fm

    url = f"sqlite:///{carpeta / 'servidor.sqlite3'}"
    engine = motor(url)
    with sessionmaker(engine)() as s, s.begin():
        org = auth.crear_cuenta(s, "ana", "una-clave-larga", "organizador")
        parejas = [servicio.NuevaPareja(pareja.format(i=i), tuple(j.format(i=i) for j in jugadores)) for i in range(4)]
        t = servicio.crear_torneo(s, org, nombre, reglas, fm.Formato(juegos=juegos), parejas, 2)
        servicio.iniciar_ronda(s, t)
        codes = [servicio.codigo_mesa(s, m) for m in servicio.mesas_de(s, t)]
    engine.dispose()
    server = Server(url, fabrica)
    server.start()
    try:
        yield server, codes
    finally:
        server.stop()


@pytest.fixture(scope="module")
def postgres() -> Iterator[str]:
    """A throwaway PostgreSQL cluster on 127.0.0.1 (server.simulacion.postgres_temporal)."""
    from server.simulacion import PostgresMissing, postgres_temporal

    try:
        with postgres_temporal(fsync=False) as url:
            yield url
    except PostgresMissing as exc:
        pytest.skip(str(exc))


@pytest.fixture(autouse=True)
def hash_barato(monkeypatch: pytest.MonkeyPatch) -> None:
    """argon2 at its cheapest in tests: the slow default would make each login ~0.2 s here."""
    from argon2 import PasswordHasher

    from server.servicios import auth

    monkeypatch.setattr(auth, "_HASHER", PasswordHasher(time_cost=1, memory_cost=1024, parallelism=1))
