"""What the load test and the tests play against a server, never used by the server itself.

A simulated table plays random hands with its own scoring.partida.Partida (as the tablet does),
queues each confirmed hand and sends the queue in order, resending after a network error.
Nothing is dropped from the queue until the server has answered it. ``postgres_temporal``
starts a throwaway PostgreSQL on the loopback from Debian's binaries; ``nginx_temporal`` puts
Debian's nginx in front of several servers, as a proxy in front of several hosts.
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
import time
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


class NginxMissing(RuntimeError):
    """No nginx here (apt-get install nginx), or, as root, no runuser to drop to nobody."""


NGINX_CONF = """# the proxy in front of several `mus servir` (server.simulacion.nginx_temporal; docs/torneo.md)
worker_processes 1;
daemon off;
pid {tmp}/nginx.pid;
error_log {tmp}/error.log warn;
events {{ worker_connections 4096; }}
http {{
    access_log off;
    client_body_temp_path {tmp}/body;
    proxy_temp_path {tmp}/proxy;
    fastcgi_temp_path {tmp}/fastcgi;
    uwsgi_temp_path {tmp}/uwsgi;
    scgi_temp_path {tmp}/scgi;
    upstream musmesa {{
{servidores}
    }}
    server {{
        listen 127.0.0.1:{puerto};
        client_max_body_size 70m;
        location / {{
            # a connection per request: no kept-alive connection that uvicorn closes (after 5 s
            # idle) just as nginx sends on it, which with the other host down would be a 502
            proxy_pass http://musmesa;
            proxy_set_header Host $host;
            proxy_set_header X-Forwarded-For $proxy_add_x_forwarded_for;
            proxy_set_header X-Forwarded-Proto $scheme;
            # a host that is down or dies mid-request: the request goes to the next one. A hand is
            # safe to send twice (the server stores it once, by its id), so POSTs go on too
            proxy_next_upstream error timeout non_idempotent;
            proxy_connect_timeout 2s;
        }}
    }}
}}
"""


@contextlib.contextmanager
def nginx_temporal(puertos: list[int]) -> Iterator[str]:
    """Debian's nginx on a free port of 127.0.0.1, in front of the servers on ``puertos`` (round
    robin; a server down or dying is skipped), from a throwaway folder with its own
    configuration, run as ``nobody`` when we are root; its base URL."""
    binario = shutil.which("nginx") or ("/usr/sbin/nginx" if os.path.exists("/usr/sbin/nginx") else None)
    if binario is None:
        raise NginxMissing("nginx no está instalado (apt-get install nginx)")
    as_user: list[str] = []
    tmp = tempfile.mkdtemp(prefix="musmesa-nginx-")
    if os.geteuid() == 0:
        if shutil.which("runuser") is None:
            raise NginxMissing("como root hace falta runuser para arrancar nginx como nobody")
        as_user = ["runuser", "-u", "nobody", "--"]
        shutil.chown(tmp, "nobody")
    port = free_port()
    servidores = "\n".join(f"        server 127.0.0.1:{p} max_fails=1 fail_timeout=30s;" for p in puertos)
    conf = Path(tmp) / "nginx.conf"
    conf.write_text(NGINX_CONF.format(tmp=tmp, servidores=servidores, puerto=port))
    proc = subprocess.Popen(
        [*as_user, binario, "-p", tmp, "-e", f"{tmp}/error.log", "-c", str(conf)],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    try:
        deadline = time.monotonic() + 20
        while True:
            if proc.poll() is not None:
                log = Path(tmp, "error.log")
                raise RuntimeError(f"nginx no arrancó: {log.read_text()[-500:] if log.exists() else ''}")
            try:
                with socket.create_connection(("127.0.0.1", port), timeout=0.2):
                    break
            except OSError:
                if time.monotonic() > deadline:
                    raise RuntimeError("nginx no arrancó en 20 s") from None
                time.sleep(0.05)
        yield f"http://127.0.0.1:{port}"
    finally:
        with contextlib.suppress(OSError, ValueError):  # nginx itself (under runuser when root)
            os.kill(int(Path(tmp, "nginx.pid").read_text()), 15)
        proc.terminate()
        try:
            proc.wait(10)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()
        shutil.rmtree(tmp, ignore_errors=True)
