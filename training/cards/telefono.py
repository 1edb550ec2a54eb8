"""A phone's photos (4032x3024 JPEG, 12 MP) of a table, or with ``--disposicion mano`` of one
hand (seat by seat), read as ``mus servir`` and ``mus leer`` read them: decoded by libjpeg at
1/1, 1/2 and 1/4 of their size (vision.images.decode_image) and read, each photo's three ways in
turn (the machine's other work weighs on all alike). For each way: median milliseconds to
decode and read, photos read exactly (a table with its seats), cards right, right cards flagged
and wrong cards without a flag (never acceptable), the boxes taken back to the photo's pixels.
The reading reduction that ships (vision.images.reading_reduction) is 1/2 for these photos.
Generated photos of the evaluation split, unseen backgrounds: a proxy.

    MUSMESA_DECKS=... python -m training.cards.telefono --baraja fournier1878-pd --escenas 30
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import time

import cv2

from training.cards.dataset import scene_rng
from training.cards.partida import reading_counts
from training.cards.synth import HOLDOUT_BACKGROUNDS, Scene, render_scene
from vision.images import decode_image, reading_reduction
from vision.reader import CardReader

PHONE = (4032, 3024)
FACTORS = (1, 2, 4)
SCENES = 10_000  # evaluate's test tables


def scored(reader: CardReader, scene: Scene, data: bytes, factor: int) -> dict[str, float]:
    """One photo decoded at 1/``factor`` and read: its time and its counts against the truth
    (training.cards.partida.reading_counts)."""
    start = time.perf_counter()
    img = decode_image(data, "foto", factor)
    assert img is not None
    dets = reader.read(img).scaled(factor)
    ms = 1000 * (time.perf_counter() - start)
    return {"ms": ms, **reading_counts(dets, scene)}


def measure(deck: str, scenes: int, seed: int = 0, kind: str = "mesa") -> dict:
    """The module's figures for ``scenes`` phone photos of ``deck``: tables, or close-ups of one
    hand (``kind`` "mano", seat by seat)."""
    reader = CardReader().load()
    runs: dict[int, list[dict[str, float]]] = {f: [] for f in FACTORS}
    for k in range(scenes):
        scene = render_scene(
            scene_rng(seed, "eval", SCENES + k), decks=(deck,), backgrounds=HOLDOUT_BACKGROUNDS, size=PHONE, kind=kind
        )
        ok, jpg = cv2.imencode(".jpg", scene.image, [cv2.IMWRITE_JPEG_QUALITY, 90])
        assert ok
        for f in FACTORS if k % 2 else FACTORS[::-1]:
            runs[f].append(scored(reader, scene, jpg.tobytes(), f))
    out: dict = {"baraja": deck, "foto": f"{PHONE[0]}x{PHONE[1]}", "disposicion": kind, "fotos": scenes}
    out["reduccion_que_se_usa"] = reading_reduction(*PHONE)
    for f, rows in runs.items():
        out[f"1/{f}"] = {
            "mediana_ms": round(statistics.median(r["ms"] for r in rows), 1),
            **{key: int(sum(r[key] for r in rows)) for key in ("exactas", "bien", "bien_dudosas", "mal_sin_aviso")},
            "cartas": sum(int(r["cartas"]) for r in rows),
        }
    out["carga_media_cpu"] = round(os.getloadavg()[0], 2)
    return out


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(
        prog="python -m training.cards.telefono",
        description=__doc__,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    p.add_argument("--baraja", default="fournier1878-pd")
    p.add_argument("--escenas", type=int, default=30)
    p.add_argument("--semilla", type=int, default=0)
    p.add_argument("--disposicion", choices=("mesa", "mano"), default="mesa", help="mano: close-ups of one hand")
    args = p.parse_args(argv)
    print(json.dumps(measure(args.baraja, args.escenas, args.semilla, args.disposicion), indent=1, ensure_ascii=False))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
