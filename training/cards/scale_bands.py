"""Measure the card reader per scale band: how large the cards are in the photo.

A card's scale here is its long side as a fraction of the photo's longer side (what the
detector sees once the photo is letterboxed to its input; on a 4:3 landscape photo a card's
height as a fraction of the photo's height is 4/3 of it). Generated tables lie at 0.09-0.16,
generated close-ups of one hand at 0.09-0.42 (the detector's training photos).

Close-ups nearer than the generator's are made by :func:`closeup_at_scale`: a close-up rendered
at twice the size, cropped so that the hand fills most of the frame, and shrunk to the photo's
size (no photo is enlarged, so the cards keep their detail). Each photo is then counted in the
band of its cards' median scale. ``--antes`` also reads every photo without the reader's
zoom-out (:data:`vision.scale`), for the figures before and after in one run:

    python -m training.cards.scale_bands --baraja fournier1878-pd --escenas 40 --antes
    python -m training.cards.scale_bands --baraja fournier1878-pd --escenas 40 --antes --registrar

Scenes come from the eval split with the held-out backgrounds, as in :mod:`training.cards.evaluate`.
"""

from __future__ import annotations

import argparse
import json
from dataclasses import replace

import numpy as np

from training.cards.dataset import scene_rng
from training.cards.evaluate import photo_figures, register_from_generated_photos
from training.cards.synth import HAND_STYLES, HOLDOUT_BACKGROUNDS, Scene, closeup_at_scale, render_scene
from vision.reader import CardReader

# band edges of the cards' scale (long side / the photo's longer side)
BANDS = (0.0, 0.2, 0.3, 0.4, 0.5, 1.0)


def card_scale(scene: Scene) -> float:
    """The median long side of the scene's cards over the photo's longer side."""
    q = scene.corners
    sides = np.linalg.norm(q - np.roll(q, 1, axis=1), axis=2).max(1)
    return float(np.median(sides)) / max(scene.image.shape[:2])


def band_of(scale: float) -> str:
    """The band's name, e.g. "0.2-0.3"."""
    i = int(np.searchsorted(BANDS, scale, side="right")) - 1
    i = min(max(i, 0), len(BANDS) - 2)
    return f"{BANDS[i]:g}-{BANDS[i + 1]:g}"


def scenes(deck: str, n: int, seed: int = 0, split: str = "eval"):
    """``n`` photos of each kind: tables, the generator's close-ups and the near close-ups, of
    each hand style; yields (kind, scene)."""
    for style in HAND_STYLES:
        for i in range(n):
            yield (
                "mesa",
                render_scene(
                    scene_rng(seed, split, 10_000 + i),
                    decks=(deck,),
                    backgrounds=HOLDOUT_BACKGROUNDS,
                    kind="mesa",
                    hand_style=style,
                ),
            )
            yield (
                "mano",
                render_scene(
                    scene_rng(seed, split, 10_000 + i),
                    decks=(deck,),
                    backgrounds=HOLDOUT_BACKGROUNDS,
                    kind="mano",
                    hand_style=style,
                ),
            )
            yield "mano", closeup_at_scale(scene_rng(seed, split, 20_000 + i), deck, style)


def measure(readers: dict[str, CardReader], deck: str, n: int, seed: int = 0, split: str = "eval") -> dict:
    """Per band and per reader: photos, photos read exactly, cards right, phantom and lost cards
    a photo, wrong cards without a flag, flags a photo."""
    out: dict = {}
    for kind, scene in scenes(deck, n, seed, split):
        band = out.setdefault(f"{kind} {band_of(card_scale(scene))}", {})
        for name, reader in readers.items():
            figures = photo_figures(reader.read(scene.image), scene)
            acc = band.setdefault(name, dict.fromkeys(figures, 0) | {"fotos": 0})
            acc["fotos"] += 1
            for key, value in figures.items():
                acc[key] += value
    return {band: {name: summary(acc) for name, acc in per.items()} for band, per in sorted(out.items())}


def summary(acc: dict) -> dict:
    n = acc["fotos"]
    return {
        "fotos": n,
        "exactas": acc["exacta"],
        "cartas_bien": round(acc["bien"] / max(acc["cartas"], 1), 3),
        "de_mas_por_foto": round(acc["de_mas"] / n, 2),
        "perdidas_por_foto": round(acc["perdidas"] / n, 2),
        "mal_sin_aviso": acc["mal_sin_aviso"],
        "dudosas_por_foto": round(acc["dudosas"] / n, 2),
    }


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(
        prog="python -m training.cards.scale_bands",
        description=__doc__,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    p.add_argument("--baraja", default="fournier1878-pd")
    p.add_argument("--escenas", type=int, default=20, help="photos of each kind and hand style")
    p.add_argument("--semilla", type=int, default=0)
    p.add_argument(
        "--particion",
        choices=("eval", "val"),
        default="eval",
        help="val: the validation photos, on which the zoom-out was chosen",
    )
    p.add_argument("--antes", action="store_true", help="also read without the zoom-out")
    p.add_argument(
        "--registrar", action="store_true", help="read against the deck registered from four generated suit photos"
    )
    args = p.parse_args(argv)
    reader = CardReader()
    if args.registrar:
        deck, _, _ = register_from_generated_photos(reader, args.baraja, args.semilla)
        reader = CardReader(deck=deck)
    readers = {"despues": reader.load()}
    if args.antes:
        readers["antes"] = CardReader(reader.folder, replace(reader.settings, zoom_out=False), deck=reader.deck).load()
    res = {
        "baraja": args.baraja,
        "registrada": args.registrar,
        "escenas": args.escenas,
        "bandas": measure(readers, args.baraja, args.escenas, args.semilla, args.particion),
    }
    print(json.dumps(res, indent=1, ensure_ascii=False))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
