"""What the load test and the tests play against a server, never used by the server itself.

A simulated table plays random hands with its own scoring.partida.Partida (as the tablet does),
queues each confirmed hand and sends the queue in order, resending after a network error.
Nothing is dropped from the queue until the server has answered it. ``postgres_temporal``
starts a throwaway PostgreSQL on the loopback from Debian's binaries.
"""

from __future__ import annotations

import contextlib
import glob
import os
import random
import shutil
import socket
import subprocess
import tempfile
import uuid
from collections import deque
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import httpx

from scoring.partida import Partida

PALOS = "oceb"  # oros, copas, espadas, bastos
BARAJA = [f"{r}{p}" for p in PALOS for r in (1, 2, 3, 4, 5, 6, 7, 10, 11, 12)]


def mano_aleatoria(rng: random.Random) -> tuple[list[str], dict[str, Any]]:
    """Four random hands from one baraja and the outcome of grande (the only lance always bet)."""
    cartas = rng.sample(BARAJA, 16)
    manos = [" ".join(cartas[i * 4 : (i + 1) * 4]) for i in range(4)]
    lances: dict[str, Any] = {}
    tiro = rng.random()
    if tiro < 0.3:
        lances["grande"] = {"quiero": rng.choice((2, 5))}
    elif tiro < 0.5:
        lances["grande"] = {"no_quiero": 1, "gana": rng.randrange(2)}
    return manos, lances


@dataclass
class MesaSimulada:
    """One table's tablet: its match (from the join answer), its Partida and its send queue."""

    token: str
    partida: Partida
    siguiente: int
    rng: random.Random
    cola: deque[dict[str, Any]] = field(default_factory=deque)
    ganados: list[int] = field(default_factory=lambda: [0, 0])
    juegos: list[int] = field(default_factory=lambda: [0, 0])
    enviadas: list[str] = field(default_factory=list)

    @classmethod
    def unirse(cls, client: httpx.Client, codigo: str, semilla: int) -> MesaSimulada:
        r = client.post("/api/mesas/unirse", json={"codigo": codigo})
        r.raise_for_status()
        data = r.json()
        p = data["partida"]
        return cls(data["token"], Partida(p["reglas"], p["jugadores"]), p["siguiente"], random.Random(semilla))

    def jugar(self) -> None:
        """Play one hand at the table and queue it (the tablet confirms it before sending)."""
        if self.partida.terminada:
            return
        manos, lances = mano_aleatoria(self.rng)
        registro = self.partida.registro(manos, lances)
        result = self.partida.registrar(manos, lances)
        for i in range(2):
            self.ganados[i] += result.marcador[i] - result.registro.marcador[i]
        if result.fin:
            self.juegos[result.fin.ganador] += 1
        body = {
            "id": uuid.uuid4().hex,
            "numero": self.siguiente,
            "registro": registro,
            "tanteo": list(result.marcador),
            "foto": uuid.uuid4().hex * 2,
        }
        self.siguiente += 1
        self.cola.append(body)

    def enviar(self, client: httpx.Client, latencias: list[float] | None = None) -> int:
        """Send the queue in order until it is empty or the network fails; hands sent."""
        sent = 0
        while self.cola:
            body = self.cola[0]
            try:
                r = client.post("/api/mesa/manos", json=body, headers={"Authorization": f"Bearer {self.token}"})
            except httpx.HTTPError:
                return sent
            if r.status_code >= 500 or r.status_code == 429:
                return sent
            if r.status_code not in (200, 201):
                raise AssertionError(f"el servidor rechazó la mano {body['numero']}: {r.status_code} {r.text}")
            if latencias is not None:
                latencias.append(r.elapsed.total_seconds())
            self.cola.popleft()
            self.enviadas.append(body["id"])
            sent += 1
        return sent


def free_port() -> int:
    """A TCP port free on the loopback right now."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class PostgresMissing(RuntimeError):
    """No PostgreSQL server binaries here (or, as root, no runuser to drop to postgres)."""


@contextlib.contextmanager
def postgres_temporal(fsync: bool = True) -> Iterator[str]:
    """A throwaway PostgreSQL cluster on 127.0.0.1 (run as the postgres user when we are
    root, as initdb refuses root); its URL. ``fsync=False`` for tests that need no durability.
    """
    found = sorted(glob.glob("/usr/lib/postgresql/*/bin/initdb"))
    if not found:
        raise PostgresMissing("PostgreSQL no está instalado (apt-get install postgresql)")
    bindir = Path(found[-1]).parent
    as_user: list[str] = []
    if os.geteuid() == 0:
        if shutil.which("runuser") is None:
            raise PostgresMissing("como root hace falta runuser para arrancar PostgreSQL")
        as_user = ["runuser", "-u", "postgres", "--"]
    tmp = tempfile.mkdtemp(prefix="musmesa-pg-")
    if as_user:
        shutil.chown(tmp, "postgres")
    data, port = f"{tmp}/data", free_port()
    options = f"-k {tmp} -p {port} -c listen_addresses=127.0.0.1" + ("" if fsync else " -c fsync=off")
    subprocess.run(
        [*as_user, str(bindir / "initdb"), "-D", data, "-U", "postgres", "--auth=trust", "-E", "UTF8"],
        check=True,
        capture_output=True,
    )
    subprocess.run(
        [*as_user, str(bindir / "pg_ctl"), "-D", data, "-w", "-l", f"{tmp}/log", "-o", options, "start"],
        check=True,
        capture_output=True,
    )
    try:
        yield f"postgresql://postgres@127.0.0.1:{port}/postgres"
    finally:
        subprocess.run(
            [*as_user, str(bindir / "pg_ctl"), "-D", data, "-m", "immediate", "-W", "stop"], capture_output=True
        )
        shutil.rmtree(tmp, ignore_errors=True)
