"""Load test of the phone pages' partida API on the loopback: `mus servir` started as a person
starts it (SQLite in a fresh data folder, or a PostgreSQL URL), N tables each played by one
phone entering hands as the hand page does (a draft saved at every card, a preview, then the
confirmation) while three more phones per table follow the marcador (its refreshing part every
4 s). Each request's time is kept by kind; at the end it checks that every table's stored hands
are exactly the ones it confirmed and prints the percentiles.

    .venv/bin/python benchmarks/web_partidas.py --mesas 20 --manos 40
    .venv/bin/python benchmarks/web_partidas.py --trabajadores 2 --url postgresql://...
"""

from __future__ import annotations

import argparse
import os
import random
import signal
import socket
import subprocess
import sys
import tempfile
import threading
import time
from collections import defaultdict
from pathlib import Path

import httpx

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

from scoring.cards import CARD_IDS  # noqa: E402

JUGADORES = ["Ana", "Bea", "Carlos", "Dani"]


class Tiempos:
    def __init__(self) -> None:
        self.por_tipo: dict[str, list[float]] = defaultdict(list)
        self.lock = threading.Lock()

    def pedir(self, c: httpx.Client, tipo: str, metodo: str, url: str, **kw: object) -> httpx.Response:
        t0 = time.perf_counter()
        r = c.request(metodo, url, **kw)  # type: ignore[arg-type]
        with self.lock:
            self.por_tipo[tipo].append(time.perf_counter() - t0)
        return r


def repartir(rng: random.Random) -> list[str]:
    cartas = list(CARD_IDS)
    rng.shuffle(cartas)
    return [" ".join(cartas[i * 4 : i * 4 + 4]) for i in range(4)]


def cliente(base: str, k: int) -> httpx.Client:
    """Each phone from an address of its own (127.0.0.k), as phones on a LAN are: the server's
    limits are per address."""
    local = f"127.0.{k // 200}.{2 + k % 200}"
    return httpx.Client(base_url=base, timeout=60, transport=httpx.HTTPTransport(local_address=local))


def mesa(base: str, k: int, manos: int, tiempos: Tiempos, fallos: list[str], parar: threading.Event) -> None:
    rng = random.Random(k)
    with cliente(base, 4 * k) as c:
        clave = c.post("/api/partidas", json={"jugadores": JUGADORES, "reglas": "segovia", "vacas": 20}).json()["clave"]
        seguidores = [
            threading.Thread(target=seguir, args=(base, 4 * k + 1 + i, clave, tiempos, parar)) for i in range(3)
        ]
        for s in seguidores:
            s.start()
        try:
            jugar(c, clave, k, manos, rng, tiempos, fallos)
        finally:
            parar.set()
            for s in seguidores:
                s.join()


def jugar(
    c: httpx.Client, clave: str, k: int, manos: int, rng: random.Random, tiempos: Tiempos, fallos: list[str]
) -> None:
    if True:
        confirmadas = []
        for n in range(1, manos + 1):
            b = tiempos.pedir(c, "borrador GET", "GET", f"/api/partidas/{clave}/borrador").json()
            datos, version = b["datos"], b["version"]
            cartas = repartir(rng)
            for asiento in range(4):  # a save per card, as the page does
                for j in range(1, 5):
                    datos["cartas"][asiento] = " ".join(cartas[asiento].split()[:j])
                    r = tiempos.pedir(
                        c,
                        "borrador PUT",
                        "PUT",
                        f"/api/partidas/{clave}/borrador",
                        json={"datos": datos, "version": version},
                    )
                    if r.status_code != 200:
                        fallos.append(f"mesa {k} mano {n}: borrador {r.status_code} {r.text[:200]}")
                        break
                    version = r.json()["version"]
            lances = {"grande": {"quiero": rng.choice([2, 3, 5])}} if rng.random() < 0.5 else {}
            tiempos.pedir(
                c,
                "previsualizar",
                "POST",
                f"/api/partidas/{clave}/previsualizar",
                json={"cartas": cartas, "lances": lances},
            )
            body = {"id_mano": datos["id_mano"], "n": n, "cartas": cartas, "lances": lances}
            r = tiempos.pedir(c, "confirmar", "POST", f"/api/partidas/{clave}/manos", json=body)
            if r.status_code != 201:
                fallos.append(f"mesa {k} mano {n}: {r.status_code} {r.text[:200]}")
                break
            confirmadas.append(datos["id_mano"])
        exportadas = c.get(f"/api/partidas/{clave}/exportar.json").json()
        if len(exportadas) != len(confirmadas):
            fallos.append(f"mesa {k}: {len(exportadas)} manos guardadas, {len(confirmadas)} confirmadas")


def seguir(base: str, k: int, clave: str, tiempos: Tiempos, parar: threading.Event) -> None:
    """A phone on the marcador: its refreshing part every 4 s, with the ETag it last drew in
    If-None-Match as the page sends it (kept apart: "marcador 304" while nothing changed)."""
    version = ""
    with cliente(base, k) as c:
        while not parar.wait(4.0):
            t0 = time.perf_counter()
            r = c.get(f"/p/{clave}/parte", headers={"If-None-Match": version} if version else {})
            tipo = "marcador 304" if r.status_code == 304 else "marcador parte"
            with tiempos.lock:
                tiempos.por_tipo[tipo].append(time.perf_counter() - t0)
            version = r.headers.get("etag", version)


def percentil(xs: list[float], p: float) -> float:
    xs = sorted(xs)
    return xs[min(len(xs) - 1, int(p * len(xs)))]


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--mesas", type=int, default=20)
    ap.add_argument("--manos", type=int, default=40)
    ap.add_argument("--trabajadores", type=int, default=1)
    ap.add_argument("--url", help="PostgreSQL URL (default: SQLite in a fresh folder)")
    args = ap.parse_args()
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        puerto = s.getsockname()[1]
    datos = tempfile.mkdtemp(prefix="musmesa-web-carga-")
    cmd = [
        sys.executable,
        "-m",
        "musmesa",
        "servir",
        "--host",
        "127.0.0.1",
        "--puerto",
        str(puerto),
        "--trabajadores",
        str(args.trabajadores),
        *(["--url", args.url] if args.url else ["--datos", datos]),
    ]
    log = open(Path(datos) / "servir.log", "wb")  # noqa: SIM115 (open while the server runs)
    proc = subprocess.Popen(cmd, cwd=REPO, stdout=log, stderr=subprocess.STDOUT, start_new_session=True)
    base = f"http://127.0.0.1:{puerto}"
    try:
        for _ in range(600):
            try:
                httpx.get(f"{base}/", timeout=1)
                break
            except httpx.HTTPError:
                time.sleep(0.1)
        tiempos, fallos = Tiempos(), list[str]()
        t0 = time.perf_counter()
        hilos = [
            threading.Thread(target=mesa, args=(base, k, args.manos, tiempos, fallos, threading.Event()))
            for k in range(args.mesas)
        ]
        for h in hilos:
            h.start()
        for h in hilos:
            h.join()
        total = time.perf_counter() - t0
    finally:
        os.killpg(proc.pid, signal.SIGTERM)
        proc.wait(30)
    print(
        f"{args.mesas} mesas x {args.manos} manos, {args.trabajadores} trabajador(es), "
        f"{'PostgreSQL' if args.url else 'SQLite'}: {total:.1f} s"
    )
    for tipo, xs in sorted(tiempos.por_tipo.items()):
        print(
            f"  {tipo:<15} n={len(xs):>6}  mediana {1000 * percentil(xs, 0.5):6.1f} ms  "
            f"p95 {1000 * percentil(xs, 0.95):6.1f} ms  máx {1000 * max(xs):7.1f} ms"
        )
    print("fallos:", fallos or "ninguno")
    return 1 if fallos else 0


if __name__ == "__main__":
    raise SystemExit(main())
