"""Load test of the tournament server on the loopback: N simulated tables (default 64), each
playing a hand every few seconds for some minutes, with random network drops (the request
lost, or the answer lost after the server stored the hand) retried from each table's queue,
and a `kill -9` of the server midway followed by a restart. The tables may be spread over
several tournaments (``--torneos``; at most 128 tables each), and spectators may poll the
tournaments' public pages every 5 s as a browser does, sending back the ETag they got
(``--espectadores``). With ``--hosts 2`` (or more) the servers run side by side over one
database behind Debian's nginx (server.simulacion.nginx_temporal), as several hosts behind a
proxy: the `kill -9` takes one host down for good and the tables and the spectators (the
phones following the tournament) carry on through the others; before the load, logins through
the proxy check that the hosts share one rate limit (server.limites).

Afterwards it checks that every hand is stored exactly once (the same ids as the tables
confirmed, no more, no fewer) and that the standings equal the sum of the tables' own
marcadores; it prints the throughput and the latency percentiles of the answered requests,
the hands' and the spectators' apart.

    .venv/bin/python benchmarks/torneo_carga.py --mesas 64 --minutos 3
    .venv/bin/python benchmarks/torneo_carga.py --mesas 1000 --torneos 8 --intervalo 60 --espectadores 200
    .venv/bin/python benchmarks/torneo_carga.py --postgres   # a throwaway PostgreSQL on the loopback
    .venv/bin/python benchmarks/torneo_carga.py --url postgresql://...
    .venv/bin/python benchmarks/torneo_carga.py --hosts 2 --postgres --espectadores 64
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import random
import signal
import socket
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any, NamedTuple

import httpx
from sqlalchemy import select
from sqlalchemy.orm import sessionmaker

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

from server.db import motor, url_por_defecto  # noqa: E402
from server.modelos import torneo as db  # noqa: E402
from server.servicios import auth  # noqa: E402
from server.servicios import torneos as servicio  # noqa: E402
from server.simulacion import (  # noqa: E402
    MesaSimulada,
    NginxMissing,
    PostgresMissing,
    free_port,
    nginx_temporal,
    postgres_temporal,
)
from torneo import formato as fm  # noqa: E402

CLAVE = "carga-secreta-1"
ENTRADAS_VARIOS = 4  # the login limit of the hosts behind the proxy: the check of a shared limit


class TorneoCarga(NamedTuple):
    """One tournament of the test: its id, its tables' join codes and its public page."""

    tid: int
    codigos: list[str]
    publica: str


def preparar(url: str, mesas: int, torneos: int = 1) -> list[TorneoCarga]:
    """An organiser and ``torneos`` leagues sharing ``mesas`` tables, each of 2 x its tables
    parejas, whose matches do not end within the test (20 juegos)."""
    if not 1 <= torneos <= mesas:
        raise SystemExit("torneo_carga: --torneos va de 1 al número de mesas")
    reparto = [mesas // torneos + (i < mesas % torneos) for i in range(torneos)]
    if reparto[0] > fm.MAX_MESAS:
        raise SystemExit(f"torneo_carga: como mucho {fm.MAX_MESAS} mesas por torneo: usa más --torneos")
    engine = motor(url)
    out = []
    with sessionmaker(engine)() as s, s.begin():
        org = auth.crear_cuenta(s, f"org{random.randrange(10**9)}", CLAVE, "organizador")
        for k, n in enumerate(reparto):
            parejas = [servicio.NuevaPareja(f"P{i:03d}", (f"A{i}", f"B{i}")) for i in range(2 * n)]
            t = servicio.crear_torneo(s, org, f"Carga {k + 1}", "segovia", fm.Formato(juegos=20), parejas, n)
            servicio.iniciar_ronda(s, t)
            codigos = [c for m in servicio.mesas_de(s, t) if (c := servicio.codigo_mesa(s, m)) is not None]
            out.append(TorneoCarga(t.id, codigos, f"/publico/{t.id}/{servicio.firma_publica(s, t)}"))
    engine.dispose()
    return out


class Servidor:
    """`mus torneo servir` as a child process, to be killed with SIGKILL."""

    def __init__(self, args: list[str], port: int, entradas: int = 100000) -> None:
        self.args, self.port, self.entradas = args, port, entradas
        self.proc: subprocess.Popen[bytes] | None = None

    def arrancar(self) -> None:
        self.lanzar()
        self.esperar()

    def lanzar(self) -> None:
        """Start the process (``esperar`` waits until it listens)."""
        cmd = [
            sys.executable,
            "-m",
            "musmesa",
            "torneo",
            "servir",
            *self.args,
            "--host",
            "127.0.0.1",
            "--puerto",
            str(self.port),
            "--limite-entradas",
            str(self.entradas),
        ]
        # 64 tables from one address send more than the per-address request limit allows a client,
        # and a round's start joins more tables at once than one address may
        env = {
            **os.environ,
            "MUSMESA_TORNEO_LIMITE_PETICIONES": "1000000",
            "MUSMESA_TORNEO_LIMITE_UNIONES": "1000000",
        }
        # its log to a file: a pipe nobody reads fills up and stops the server
        self.log = tempfile.NamedTemporaryFile(prefix="musmesa-carga-log-", suffix=".txt", delete=False)  # noqa: SIM115
        self.proc = subprocess.Popen(cmd, cwd=REPO, stdout=subprocess.DEVNULL, stderr=self.log, env=env)

    def esperar(self) -> None:
        assert self.proc is not None
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline:
            if self.proc.poll() is not None:
                salida = Path(self.log.name).read_text(errors="replace")
                raise RuntimeError(f"el servidor no arrancó: {salida[-500:]}")
            try:
                with socket.create_connection(("127.0.0.1", self.port), timeout=0.2):
                    return
            except OSError:
                time.sleep(0.1)
        raise RuntimeError("el servidor no arrancó en 60 s")

    def cpu(self) -> float | None:
        """The server process's CPU seconds so far (user and system; None where /proc is missing)."""
        try:
            campos = Path(f"/proc/{self.proc.pid if self.proc else 0}/stat").read_text().rsplit(")", 1)[1].split()
        except OSError:
            return None
        return round((int(campos[11]) + int(campos[12])) / os.sysconf("SC_CLK_TCK"), 1)

    def matar(self) -> None:
        assert self.proc is not None
        os.kill(self.proc.pid, signal.SIGKILL)
        self.proc.wait()

    def parar(self) -> None:
        if self.proc and self.proc.poll() is None:
            self.proc.terminate()
            try:
                self.proc.wait(10)
            except subprocess.TimeoutExpired:
                self.proc.kill()


class Red:
    """A flaky network in front of the client: drops requests and answers at random."""

    def __init__(self, client: httpx.Client, rng: random.Random, caidas: float) -> None:
        self.client, self.rng, self.caidas = client, rng, caidas

    def post(self, url: str, **kw: Any) -> httpx.Response:
        if self.rng.random() < self.caidas / 2:
            raise httpx.ConnectError("caída simulada (petición perdida)")
        r = self.client.post(url, **kw)
        if self.rng.random() < self.caidas / 2:
            raise httpx.ReadError("caída simulada (respuesta perdida)")  # stored, but the table never knew
        return r


def mesa(
    codigo: str,
    base: str,
    fin: float,
    intervalo: float,
    caidas: float,
    semilla: int,
    latencias: list[float],
    salida: dict[str, Any],
    unida: threading.Semaphore | None = None,
) -> None:
    rng = random.Random(semilla)
    with httpx.Client(base_url=base, timeout=10) as client:
        while True:
            try:
                m = MesaSimulada.unirse(client, codigo, semilla)
                break
            except httpx.HTTPError:
                time.sleep(0.5)
        if unida is not None:
            unida.release()
        red = Red(client, rng, caidas)
        jugadas = 0
        while jugadas == 0 or time.monotonic() < fin:  # one hand at least, however late it joined
            jugadas += 1
            time.sleep(intervalo * rng.uniform(0.5, 1.5))
            m.jugar()
            m.enviar(red, latencias)  # type: ignore[arg-type]
        deadline = time.monotonic() + 60
        while m.cola and time.monotonic() < deadline:  # the queue is sent once the network is back
            if not m.enviar(client, latencias):
                time.sleep(0.3)
    salida[codigo] = m


class Espectadores:
    """What the spectators saw: each answer's latency, and how many were pages (200), unchanged
    (304) or failed (an error, or no answer while the server was down)."""

    def __init__(self) -> None:
        self.latencias: list[float] = []  # every view after a spectator's first
        self.primeras: list[float] = []  # each spectator's first view
        self.paginas = self.sin_cambios = self.fallos = 0
        self.tipos: dict[str, int] = {}  # failures by HTTP status or exception
        self.lock = threading.Lock()


CADENCIA_ESPECTADOR = 5.0  # seconds between a spectator's polls


def espectador(base: str, ruta: str, fin: float, semilla: int, vistos: Espectadores, unidas: threading.Event) -> None:
    """A browser on the public page: asks for it every 5 s, sending back the ETag it holds. It
    comes once the tables have joined (as on the day: the round starts, then people watch it)."""
    unidas.wait(timeout=120)
    rng = random.Random(semilla)
    time.sleep(rng.uniform(0, CADENCIA_ESPECTADOR))  # spectators do not arrive in step
    etag: str | None = None
    with httpx.Client(base_url=base, timeout=30) as client:
        while time.monotonic() < fin:
            t0 = time.monotonic()
            cabeceras = {"If-None-Match": etag} if etag else {}
            try:
                try:
                    r = client.get(ruta, headers=cabeceras)
                except (httpx.RemoteProtocolError, httpx.ReadError):  # the server closed the kept-alive
                    r = client.get(ruta, headers=cabeceras)  # connection as it was reused: a browser asks again
            except httpx.HTTPError as exc:
                with vistos.lock:
                    vistos.fallos += 1
                    vistos.tipos[type(exc).__name__] = vistos.tipos.get(type(exc).__name__, 0) + 1
            else:
                with vistos.lock:
                    if r.status_code in (200, 304):
                        # a browser's first view after the server's start may wait for the page's
                        # first rendering; the views after it are the polling the limit is about
                        (vistos.latencias if etag else vistos.primeras).append(r.elapsed.total_seconds())
                        vistos.paginas += r.status_code == 200
                        vistos.sin_cambios += r.status_code == 304
                    else:
                        vistos.fallos += 1
                        vistos.tipos[str(r.status_code)] = vistos.tipos.get(str(r.status_code), 0) + 1
                if r.status_code == 200:
                    etag = r.headers.get("etag")
            time.sleep(max(0.0, CADENCIA_ESPECTADOR - (time.monotonic() - t0)))


def _avisar(unida: threading.Semaphore, mesas: int, unidas: threading.Event) -> None:
    """Set ``unidas`` once every table has joined."""
    for _ in range(mesas):
        unida.acquire()
    unidas.set()


def main(argv: Sequence[str] | None = None) -> dict[str, Any]:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--mesas", type=int, default=64)
    p.add_argument("--torneos", type=int, default=1, help="torneos entre los que se reparten las mesas (1)")
    p.add_argument("--espectadores", type=int, default=0, help="navegadores que leen la página pública cada 5 s (0)")
    p.add_argument("--minutos", type=float, default=3.0)
    p.add_argument("--intervalo", type=float, default=3.0, help="segundos entre manos de una mesa (3)")
    p.add_argument("--caidas", type=float, default=0.1, help="probabilidad de caída de red por envío (0.1)")
    p.add_argument("--matar", type=int, default=1, help="veces que se mata el servidor con kill -9 (1)")
    p.add_argument(
        "--hosts",
        type=int,
        default=1,
        help="servidores sobre la misma base detrás de un nginx (1: uno, sin proxy); "
        "con varios, el kill -9 deja caído uno de ellos",
    )
    g = p.add_mutually_exclusive_group()
    g.add_argument("--url", help="PostgreSQL; por defecto SQLite en una carpeta temporal")
    g.add_argument("--postgres", action="store_true", help="arranca un PostgreSQL temporal en el loopback")
    p.add_argument("--json", action="store_true")
    args = p.parse_args(argv)
    if args.hosts > 1 and args.matar >= args.hosts:
        raise SystemExit("torneo_carga: con varios --hosts, --matar debe ser menor que --hosts")
    if args.postgres:
        try:
            with postgres_temporal() as url:
                return _carga(args, url)
        except (PostgresMissing, NginxMissing) as exc:
            raise SystemExit(f"torneo_carga: {exc}") from None
    try:
        return _carga(args, args.url)
    except NginxMissing as exc:
        raise SystemExit(f"torneo_carga: {exc}") from None


def _carga(args: argparse.Namespace, pg_url: str | None) -> dict[str, Any]:
    tmp = tempfile.mkdtemp(prefix="musmesa-carga-")
    url = pg_url or url_por_defecto(tmp)
    torneos = preparar(url, args.mesas, args.torneos)
    base_datos = ["--url", url] if pg_url else ["--datos", tmp]
    if args.hosts == 1:
        srvs = [Servidor(base_datos, free_port())]
    else:  # behind the proxy: the client's address from its X-Forwarded-For, and a small login limit
        srvs = [
            Servidor([*base_datos, "--proxy", "127.0.0.1"], free_port(), ENTRADAS_VARIOS) for _ in range(args.hosts)
        ]
    with contextlib.ExitStack() as pila:
        pila.callback(parar, srvs)
        for srv in srvs:  # the hosts start together
            srv.lanzar()
        for srv in srvs:
            srv.esperar()
        if args.hosts == 1:
            base = f"http://127.0.0.1:{srvs[0].port}"
            compartido = None
        else:
            base = pila.enter_context(nginx_temporal([srv.port for srv in srvs]))
            compartido = limite_compartido(base)
        return _cargar(args, url, pg_url, torneos, srvs, base, compartido)


def parar(srvs: list[Servidor]) -> None:
    """Stop the servers together (each may take a few seconds to close its connections)."""
    for srv in srvs:
        if srv.proc and srv.proc.poll() is None:
            srv.proc.terminate()
    for srv in srvs:
        srv.parar()


def limite_compartido(base: str) -> bool:
    """Whether the hosts behind the proxy give one client one login limit (``ENTRADAS_VARIOS``
    tries, then 429), not one each: the proxy sends the tries to the hosts in turn."""
    with httpx.Client(base_url=base, timeout=30) as client:
        estados = [
            client.post("/api/sesion", json={"usuario": f"nadie{i}", "clave": "adivinando"}).status_code
            for i in range(ENTRADAS_VARIOS + 2)
        ]
    return estados == [401] * ENTRADAS_VARIOS + [429] * 2


def _cargar(
    args: argparse.Namespace,
    url: str,
    pg_url: str | None,
    torneos: list[TorneoCarga],
    srvs: list[Servidor],
    base: str,
    compartido: bool | None,
) -> dict[str, Any]:
    duracion = args.minutos * 60
    inicio = time.monotonic()
    fin = inicio + duracion
    latencias: list[float] = []
    tablas: dict[str, MesaSimulada] = {}
    codigos = [c for t in torneos for c in t.codigos]
    unida = threading.Semaphore(0)
    hilos = [
        threading.Thread(target=mesa, args=(c, base, fin, args.intervalo, args.caidas, i, latencias, tablas, unida))
        for i, c in enumerate(codigos)
    ]
    vistos, unidas = Espectadores(), threading.Event()
    hilos += [
        threading.Thread(target=espectador, args=(base, torneos[i % len(torneos)].publica, fin, i, vistos, unidas))
        for i in range(args.espectadores)
    ]
    for h in hilos:
        h.start()
    threading.Thread(target=_avisar, args=(unida, len(codigos), unidas), daemon=True).start()
    antes = (0, 0)  # hands answered and spectators' views before the first kill
    # the kills spread over the play, once every table has joined (the tables join at the start)
    unidas.wait(timeout=max(0.0, fin - time.monotonic()))
    desde = time.monotonic()
    for k in range(args.matar):
        time.sleep(max(0.0, desde + (fin - desde) * (k + 1) / (args.matar + 1) - time.monotonic()))
        srvs[k % len(srvs)].matar()
        if k == 0:
            antes = (len(latencias), vistos.paginas + vistos.sin_cambios)
        if len(srvs) == 1:  # one server: it comes back; several: the killed host stays down
            time.sleep(1.0)
            srvs[0].arrancar()
    for h in hilos:
        h.join()
    enviado = time.monotonic() - inicio
    resultado: dict[str, Any] = {"manos": 0, "confirmadas": 0, "guardadas": 0}
    for t in torneos:
        parte = comprobar(url, t.tid, base, {c: tablas[c] for c in t.codigos if c in tablas}, t.codigos)
        resultado = {k: resultado[k] + parte[k] for k in resultado}
    resultado["cpu_servidor_s"] = srvs[-1].cpu()  # since its last start (the last host: never killed)
    if len(srvs) > 1 and args.matar:  # a phone opening the page now, with a host still down
        with httpx.Client(base_url=base, timeout=30) as client:
            resultado["publica_tras_matar"] = [client.get(torneos[0].publica).status_code for _ in range(2 * len(srvs))]
    latencias.sort()
    vistos.latencias.sort()
    vistos.primeras.sort()
    n = len(latencias)
    resultado |= {
        "mesas": args.mesas,
        "torneos": args.torneos,
        "segundos": round(enviado, 1),
        "base": "postgresql" if pg_url else "sqlite",
        "peticiones_respondidas": n,
        "manos_por_segundo": round(resultado["manos"] / enviado, 1),
        "latencia_p50_ms": _percentil(latencias, 0.50),
        "latencia_p95_ms": _percentil(latencias, 0.95),
        "latencia_p99_ms": _percentil(latencias, 0.99),
        "muertes": args.matar,
        "respondidas_tras_matar": n - antes[0] if args.matar else None,
        "espectadores_tras_matar": vistos.paginas + vistos.sin_cambios - antes[1] if args.matar else None,
        "hosts": args.hosts,
        "limite_compartido": compartido,
        "espectadores": args.espectadores,
        "espectadores_paginas": vistos.paginas,
        "espectadores_304": vistos.sin_cambios,
        "espectadores_fallos": vistos.fallos,
        "espectadores_fallos_tipos": vistos.tipos,
        "log_servidor": srvs[-1].log.name,
        "espectadores_p50_ms": _percentil(vistos.latencias, 0.50),
        "espectadores_p99_ms": _percentil(vistos.latencias, 0.99),
        "espectadores_primera_p50_ms": _percentil(vistos.primeras, 0.50),
        "espectadores_primera_max_ms": _percentil(vistos.primeras, 1.0),
    }
    if args.json:
        print(json.dumps(resultado))
    else:
        print(
            f"{resultado['manos']} manos de {args.mesas} mesas en {args.torneos} torneos en {enviado:.0f} s "
            f"({resultado['base']}, {args.hosts} servidor(es), {args.matar} kill -9): "
            f"{resultado['confirmadas']} confirmadas, "
            f"{resultado['guardadas']} guardadas; {resultado['manos_por_segundo']} manos/s, "
            f"latencia p50 {resultado['latencia_p50_ms']} ms, p95 {resultado['latencia_p95_ms']} ms, "
            f"p99 {resultado['latencia_p99_ms']} ms; todas guardadas una vez, clasificación = suma de los marcadores"
        )
        if args.espectadores:
            print(
                f"{args.espectadores} espectadores: {vistos.paginas} páginas, {vistos.sin_cambios} sin cambios (304), "
                f"{vistos.fallos} fallos; latencia p50 {resultado['espectadores_p50_ms']} ms, "
                f"p99 {resultado['espectadores_p99_ms']} ms (la primera vista: p50 "
                f"{resultado['espectadores_primera_p50_ms']} ms, máx. {resultado['espectadores_primera_max_ms']} ms)"
            )
    return resultado


def _percentil(ordenadas: list[float], q: float) -> float | None:
    """The ``q`` quantile of sorted latencies in seconds, in milliseconds (None when empty)."""
    if not ordenadas:
        return None
    return round(ordenadas[min(len(ordenadas) - 1, int(len(ordenadas) * q))] * 1000, 1)


def comprobar(url: str, tid: int, base: str, tablas: dict[str, MesaSimulada], codigos: list[str]) -> dict[str, Any]:
    """Every confirmed hand stored once, nothing else stored; standings = the tables' sums."""
    assert set(tablas) == set(codigos), "alguna mesa no terminó"
    assert all(not m.cola for m in tablas.values()), "quedaron manos sin enviar"
    engine = motor(url)
    with sessionmaker(engine)() as s:
        filas = list(s.execute(select(db.Mano.enfrentamiento_id, db.Mano.cliente_id).where(db.Mano.torneo_id == tid)))
        por_partida: dict[int, list[str]] = {}
        for eid, cid in filas:
            por_partida.setdefault(eid, []).append(cid)
        t = servicio.fila(s, db.Torneo, tid)
        nombres = {p.id: p.nombre for p in servicio.parejas_de(s, t)}
        mesa_de = {m.id: servicio.codigo_mesa(s, m) for m in servicio.mesas_de(s, t)}
        partidas = {mesa_de[e.mesa_id]: e for e in servicio.enfrentamientos_de(s, t) if e.mesa_id is not None}
        clasif = {f["nombre"]: f for f in servicio.clasificacion(s, t)["grupos"][0]["filas"]}
    engine.dispose()
    total = 0
    for codigo, m in tablas.items():
        e = partidas[codigo]
        guardadas = por_partida.get(e.id, [])
        assert sorted(guardadas) == sorted(m.enviadas), f"mesa {codigo}: guardadas != confirmadas"
        assert len(set(guardadas)) == len(guardadas)
        total += len(guardadas)
        assert e.pareja1_id is not None, codigo  # a league of 2 x mesas parejas: no byes
        p0, p1 = nombres[e.pareja0_id], nombres[e.pareja1_id]
        assert (clasif[p0]["tantos_favor"], clasif[p1]["tantos_favor"]) == tuple(m.ganados), codigo
        assert (clasif[p0]["juegos_favor"], clasif[p1]["juegos_favor"]) == tuple(m.juegos), codigo
    assert total == len(filas)
    # hands the tables got an acknowledgement for, and rows stored: equal (asserted above)
    return {"manos": total, "confirmadas": sum(len(m.enviadas) for m in tablas.values()), "guardadas": len(filas)}


if __name__ == "__main__":
    main()
