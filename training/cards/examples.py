"""Make the bundled example photos in ``examples/`` with the synthetic generator.

    python -m training.cards.examples

Only the public-domain Fournier 1878 deck is used. ``examples/mesa.jpg`` is a full table (the
four hands of ``examples/mesa.json``, seat 0 nearest the camera); ``examples/mano.jpg`` a
close-up of one hand; ``examples/baraja/{oros,copas,espadas,bastos}.jpg`` the four photos
that register the deck (``mus baraja registrar``). They are generated pictures, not
photographs.
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path

import cv2

from scoring.cards import CARD_IDS
from training.cards.dataset import scene_rng
from training.cards.decks import PUBLIC_DOMAIN_DECK
from training.cards.synth import render_scene

REPO = Path(__file__).resolve().parents[2]
MANOS = ["12o 12c 11e 1b", "3o 3c 7e 7b", "4o 5c 6e 7o", "1o 2c 1e 4b"]
LANCES = {"grande": "paso", "chica": {"no_quiero": 1, "gana": 0}, "pares": {"quiero": 2}, "juego": {"quiero": 2}}
MESA_SEED = 0  # scene index in the "ejemplo" split
MANO_SEED = 1
BARAJA_SEED = 2344  # scenes 2344-2347 of the "ejemplo" split: the four suit photos, cards
# about 250 px long
SUITS = ("oros", "copas", "espadas", "bastos")


def make(out: Path, mesa_seed: int = MESA_SEED, mano_seed: int = MANO_SEED) -> None:
    out.mkdir(parents=True, exist_ok=True)
    ids = [c for hand in MANOS for c in hand.split()]
    scene = render_scene(
        scene_rng(0, "ejemplo", mesa_seed),
        decks=(PUBLIC_DOMAIN_DECK,),
        backgrounds=("felt",),
        size=(1280, 960),
        kind="mesa",
        card_ids=ids,
        hand_style="row",
    )
    cv2.imwrite(str(out / "mesa.jpg"), scene.image, [cv2.IMWRITE_JPEG_QUALITY, 88])
    truth = {
        "fuente": "generada por training.cards.examples (baraja Fournier 1878, dominio público); no es una fotografía",
        "semilla": mesa_seed,
        "manos": MANOS,
        "asientos": ["abajo", "derecha", "arriba", "izquierda"],
    }
    (out / "mesa.json").write_text(json.dumps(truth, ensure_ascii=False, indent=1) + "\n")
    (out / "lances.json").write_text(json.dumps(LANCES, indent=1) + "\n")
    close = render_scene(
        scene_rng(0, "ejemplo", 1000 + mano_seed),
        decks=(PUBLIC_DOMAIN_DECK,),
        backgrounds=("wood",),
        size=(1280, 960),
        kind="mano",
        card_ids=MANOS[0].split(),
    )
    cv2.imwrite(str(out / "mano.jpg"), close.image, [cv2.IMWRITE_JPEG_QUALITY, 88])
    make_registration(out / "baraja")


def make_registration(out: Path, seed: int = BARAJA_SEED) -> list[Path]:
    """Four photos, one suit each, laid out to register the deck."""
    out.mkdir(parents=True, exist_ok=True)
    paths = []
    for p, suit in enumerate(SUITS):
        scene = render_scene(
            scene_rng(0, "ejemplo", seed + p),
            decks=(PUBLIC_DOMAIN_DECK,),
            backgrounds=("felt",),
            size=(1280, 960),
            kind="palo",
            card_ids=list(CARD_IDS[10 * p : 10 * p + 10]),
        )
        paths.append(out / f"{suit}.jpg")
        cv2.imwrite(str(paths[-1]), scene.image, [cv2.IMWRITE_JPEG_QUALITY, 88])
    return paths


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(prog="python -m training.cards.examples", description=__doc__)
    p.add_argument("--salida", type=Path, default=REPO / "examples")
    p.add_argument("--semilla", type=int, default=MESA_SEED)
    args = p.parse_args(argv)
    make(args.salida, args.semilla)
    print(f"ejemplos escritos en {args.salida}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
