"""Load test of the phones' card reading against a real `mus servir` on the loopback: N tables
(default 40), each uploading a photo of its table (the generated examples in examples/ and a few
more made by their generator, in turn)
to POST /api/leer every 30 s for some minutes, while a phone follows a marcador.

Every upload must come back with its cards (a "busy" answer is retried after its Retry-After, as
the pages do; its wait counts in the time): nothing lost, and each photo reads the same cards
every time. It prints the photo-to-cards time (from the first byte sent to the cards received)
and the marcador's answer time meanwhile, with their percentiles. Bounded: it stops by itself
after ``--minutos`` plus the last answers (each upload times out after 60 s).

    .venv/bin/python benchmarks/web_carga.py                 # 40 tables, 3 minutes (~3.5 min)
    .venv/bin/python benchmarks/web_carga.py --mesas 8 --minutos 1
"""

from __future__ import annotations

import argparse
import json
import os
import random
import socket
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import httpx

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))
FOTOS = ("mesa.jpg", "mano.jpg")  # the generated example photos shipped in examples/


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


class Servir:
    """`mus servir` as a person starts it, on the loopback over a throwaway data folder."""

    def __init__(self, datos: Path) -> None:
        self.port = free_port()
        self.base = f"http://127.0.0.1:{self.port}"
        self.log = (datos / "servir.log").open("wb")
        cmd = [
            sys.executable,
            "-m",
            "musmesa",
            "servir",
            "--datos",
            str(datos),
            "--host",
            "127.0.0.1",
            "--puerto",
            str(self.port),
            "--limite-entradas",
            "100000",
        ]
        self.proc = subprocess.Popen(
            cmd, cwd=REPO, stdout=self.log, stderr=subprocess.STDOUT, env={**os.environ, "MUSMESA_DATA": str(datos)}
        )
        deadline = time.monotonic() + 120
        while time.monotonic() < deadline:
            if self.proc.poll() is not None:
                raise RuntimeError(f"mus servir no arrancó: {(datos / 'servir.log').read_text()[-800:]}")
            try:
                with socket.create_connection(("127.0.0.1", self.port), timeout=0.2):
                    return
            except OSError:
                time.sleep(0.1)
        raise RuntimeError("mus servir no arrancó en 120 s")

    def parar(self) -> None:
        self.proc.terminate()
        try:
            self.proc.wait(20)
        except subprocess.TimeoutExpired:
            self.proc.kill()
        self.log.close()


def generadas(n: int, semilla: int) -> list[tuple[str, bytes]]:
    """``n`` table photos of 16 random cards made by the generator of examples/ (training.cards:
    the public-domain Fournier deck on felt, hands in a row)."""
    if n <= 0:
        return []
    import cv2  # the generator's own dependencies: only when photos are generated

    from scoring.cards import CARD_IDS
    from training.cards.dataset import scene_rng
    from training.cards.decks import PUBLIC_DOMAIN_DECK
    from training.cards.synth import render_scene

    rng, out = random.Random(semilla), []
    for k in range(n):
        ids = rng.sample(list(CARD_IDS), 16)
        scene = render_scene(
            scene_rng(0, "ejemplo", 100 + k),
            decks=(PUBLIC_DOMAIN_DECK,),
            backgrounds=("felt",),
            size=(1280, 960),
            kind="mesa",
            card_ids=ids,
            hand_style="row",
        )
        _, jpg = cv2.imencode(".jpg", scene.image, [cv2.IMWRITE_JPEG_QUALITY, 88])
        out.append((f"generada{k}.jpg", jpg.tobytes()))
    return out


def subir(client: httpx.Client, foto: tuple[str, bytes], clave: str) -> tuple[float, dict[str, Any] | None, int]:
    """One photo to its cards: (seconds, the reading or None, busy answers on the way)."""
    t0, ocupado = time.perf_counter(), 0
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        try:
            r = client.post("/api/leer", files={"foto": (foto[0], foto[1], "image/jpeg")}, data={"partida": clave})
        except httpx.HTTPError:
            return time.perf_counter() - t0, None, ocupado
        if r.status_code == 503:  # the readers are full: again after Retry-After, as the pages do
            ocupado += 1
            time.sleep(float(r.headers.get("retry-after", "2")))
            continue
        return time.perf_counter() - t0, (r.json() if r.status_code == 200 else None), ocupado
    return time.perf_counter() - t0, None, ocupado


def mesa(
    base: str,
    clave: str,
    fotos: list[tuple[str, bytes]],
    inicio: float,
    fin: float,
    cada: float,
    rng: random.Random,
    resultados: list[dict[str, Any]],
    lock: threading.Lock,
) -> None:
    """One table: a first photo at a random moment of its first interval, then one every ``cada`` s."""
    with httpx.Client(base_url=base, timeout=70) as client:
        proxima, k = inicio + rng.uniform(0, cada), rng.randrange(len(fotos))
        while proxima < fin:
            time.sleep(max(0.0, proxima - time.monotonic()))
            foto = fotos[k % len(fotos)]
            segundos, lectura, ocupado = subir(client, foto, clave)
            with lock:
                resultados.append({"foto": foto[0], "s": segundos, "lectura": lectura, "ocupado": ocupado})
            proxima, k = proxima + cada, k + 1


def seguir_marcador(base: str, clave: str, fin: float, tiempos: list[float]) -> None:
    """A phone following the marcador (its page's refresh), once a second."""
    with httpx.Client(base_url=base, timeout=30) as client:
        while time.monotonic() < fin:
            t0 = time.perf_counter()
            r = client.get(f"/p/{clave}/parte")
            if r.status_code == 200:
                tiempos.append(time.perf_counter() - t0)
            time.sleep(max(0.0, 1 - (time.perf_counter() - t0)))


def percentil(valores: Sequence[float], p: float) -> float:
    orden = sorted(valores)
    return orden[min(len(orden) - 1, round(p / 100 * (len(orden) - 1)))] if orden else float("nan")


def main(argv: Sequence[str] | None = None) -> dict[str, Any]:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--mesas", type=int, default=40)
    p.add_argument("--minutos", type=float, default=3.0)
    p.add_argument("--cada", type=float, default=30.0, help="segundos entre fotos de una mesa (30)")
    p.add_argument("--semilla", type=int, default=1)
    p.add_argument(
        "--generadas",
        type=int,
        default=4,
        help="fotos de mesa más, generadas como las de examples/ (4; 0: solo las de examples/)",
    )
    args = p.parse_args(argv)
    fotos = [(n, (REPO / "examples" / n).read_bytes()) for n in FOTOS if (REPO / "examples" / n).is_file()]
    fotos += generadas(args.generadas, args.semilla)
    if not fotos:
        raise SystemExit("web_carga: no hay fotos de ejemplo en examples/")
    with tempfile.TemporaryDirectory(prefix="musmesa-web-carga-") as d:
        srv = Servir(Path(d))
        try:
            return _medir(srv.base, fotos, args)
        finally:
            srv.parar()


def _medir(base: str, fotos: list[tuple[str, bytes]], args: argparse.Namespace) -> dict[str, Any]:
    with httpx.Client(base_url=base, timeout=30) as client:
        claves = [
            client.post("/api/partidas", json={"jugadores": [f"A{i}", f"B{i}", f"C{i}", f"D{i}"]}).json()["clave"]
            for i in range(args.mesas)
        ]
        # the first reading loads the models: done before the clock starts, as a running server has
        subir(client, fotos[0], claves[0])
    rng = random.Random(args.semilla)
    resultados: list[dict[str, Any]] = []
    marcador: list[float] = []
    lock = threading.Lock()
    inicio = time.monotonic()
    fin = inicio + 60 * args.minutos
    hilos = [
        threading.Thread(
            target=mesa,
            args=(base, c, fotos, inicio, fin, args.cada, random.Random(rng.random()), resultados, lock),
            daemon=True,
        )
        for c in claves
    ]
    hilos.append(threading.Thread(target=seguir_marcador, args=(base, claves[0], fin, marcador), daemon=True))
    for h in hilos:
        h.start()
    for h in hilos:
        h.join(60 * args.minutos + 120)
    return _informe(resultados, marcador, args)


def _informe(resultados: list[dict[str, Any]], marcador: list[float], args: argparse.Namespace) -> dict[str, Any]:
    esperadas: dict[str, list[str]] = {}
    perdidas = distintas = 0
    for r in resultados:
        if r["lectura"] is None:
            perdidas += 1
            continue
        cartas = sorted(c["carta"] for c in r["lectura"]["cartas"])
        if esperadas.setdefault(r["foto"], cartas) != cartas:
            distintas += 1
    tiempos = [r["s"] for r in resultados if r["lectura"] is not None]
    informe = {
        "mesas": args.mesas,
        "minutos": args.minutos,
        "cada_s": args.cada,
        "fotos": len(resultados),
        "perdidas": perdidas,
        "lecturas_distintas": distintas,
        "ocupado_reintentos": sum(r["ocupado"] for r in resultados),
        "foto_a_cartas_s": {
            "p50": round(percentil(tiempos, 50), 3),
            "p95": round(percentil(tiempos, 95), 3),
            "max": round(max(tiempos, default=float("nan")), 3),
        },
        "marcador_s": {
            "peticiones": len(marcador),
            "p50": round(percentil(marcador, 50), 3),
            "p95": round(percentil(marcador, 95), 3),
        },
        "cpus": os.cpu_count(),
    }
    print(json.dumps(informe, ensure_ascii=False, indent=2))
    if perdidas or distintas:
        print("web_carga: hay fotos sin cartas o leídas de otra manera", file=sys.stderr)
    return informe


if __name__ == "__main__":
    res = main()
    raise SystemExit(1 if res["perdidas"] or res["lecturas_distintas"] else 0)
