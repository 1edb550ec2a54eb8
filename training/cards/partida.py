"""A partida measured: the deck learned from the first confirmed tables of
a partida, then the next tables and close-ups read three ways, beside each other on the same
photos: the generic reader, the deck registered from its four suit photos, and the learned deck
(``vision.aprender``, as ``mus baraja aprender`` and ``mus servir`` learn it).

For each reader and layout: photos read exactly, right cards flagged a photo (apart: on cards at
least IN_VIEW in view, and on cards others cover more), wrong cards without a flag (never
acceptable), wrong cards flagged, photos called an unfamiliar deck. Generated photos of the two
reference decks the models train on: a proxy, which says little of a deck the models never saw.

    MUSMESA_DECKS=... python -m training.cards.partida --baraja fournier1878-pd --aprender 10 --mesas 30 --manos 30
"""

from __future__ import annotations

import argparse
import json
import os
from pathlib import Path

import numpy as np

from training.cards.dataset import scene_rng
from training.cards.evaluate import learn_from_generated_tables, match_boxes, register_from_generated_photos
from training.cards.flag_model import IN_VIEW
from training.cards.synth import HOLDOUT_BACKGROUNDS, Scene, render_scene, visible_fraction
from vision.detections import CardDetections
from vision.geometry import quad_to_obb
from vision.reader import CardReader

# the partida's photos: scenes of the eval split from here on (the learning takes the first ones,
# learn_from_generated_tables: 70,000 on), away from evaluate's test tables (10,000 on)
PARTIDA_SCENES = 70_000
CLOSEUP_SCENES = 76_000


def photo_counts(reader: CardReader, scene: Scene) -> dict[str, int]:
    """One photo read and scored against its truth (see the module's docstring)."""
    return reading_counts(reader.read(scene.image), scene)


def reading_counts(dets: CardDetections, scene: Scene) -> dict[str, int]:
    """A reading of ``scene``'s photo (its boxes in the photo's pixels) scored against its truth."""
    gt = np.stack([quad_to_obb(q) for q in scene.corners])
    m = match_boxes(dets.obb, gt, 0.5) if len(dets) else np.zeros(0, int)
    truth = np.array([scene.card_ids[j] if j >= 0 else "" for j in m], object)
    ok = np.array([str(c) == t for c, t in zip(dets.card_ids, truth, strict=True)], bool)
    seen = visible_fraction(scene)
    in_view = np.array([j >= 0 and seen[j] >= IN_VIEW for j in m], bool)
    flag = np.asarray(dets.low_confidence, bool)
    if len(scene.seats) and len(set(scene.seats)) == 4:  # a table: exact means every card in its seat
        hands = [{c for c, s in zip(scene.card_ids, scene.seats, strict=True) if s == seat} for seat in range(4)]
        exact = len(dets) == len(gt) and all(
            int(s) >= 0 and str(c) in hands[int(s)] for c, s in zip(dets.card_ids, dets.seat, strict=True)
        )
    else:
        exact = sorted(dets.ids) == sorted(scene.card_ids)
    return {
        "fotos": 1,
        "exactas": int(exact),
        "cartas": len(gt),
        "bien": int(ok.sum()),
        "bien_dudosas": int((ok & flag).sum()),
        "bien_dudosas_a_la_vista": int((ok & flag & in_view).sum()),
        "bien_dudosas_tapadas": int((ok & flag & ~in_view).sum()),
        "mal_sin_aviso": int((~ok & ~flag).sum()),
        "mal_con_aviso": int((~ok & flag).sum()),
        "desconocida": int(dets.unfamiliar),
    }


def summary(sums: dict[str, int]) -> dict[str, float | int]:
    n = max(sums["fotos"], 1)
    return {
        "fotos": sums["fotos"],
        "exactas": sums["exactas"],
        "cartas_bien": round(sums["bien"] / max(sums["cartas"], 1), 4),
        "bien_dudosas_por_foto": round(sums["bien_dudosas"] / n, 2),
        "a_la_vista_por_foto": round(sums["bien_dudosas_a_la_vista"] / n, 2),
        "tapadas_por_foto": round(sums["bien_dudosas_tapadas"] / n, 2),
        "mal_sin_aviso": sums["mal_sin_aviso"],
        "mal_con_aviso": sums["mal_con_aviso"],
        "baraja_desconocida": sums["desconocida"],
    }


def measure(deck: str, learn_n: int, tables: int, closeups: int, seed: int = 0) -> dict:
    """The three readers on the same partida (see the module's docstring)."""
    generic = CardReader().load()
    registration, _, _ = register_from_generated_photos(generic, deck, seed)
    readers = {
        "generica": generic,
        "registrada": CardReader(generic.folder, generic.settings, deck=registration).load(),
    }
    learned, info = learn_from_generated_tables(generic, deck, learn_n, seed)
    readers["aprendida"] = learned.load()
    photos = [("mesa", PARTIDA_SCENES + learn_n + k) for k in range(tables)]
    photos += [("mano", CLOSEUP_SCENES + k) for k in range(closeups)]
    sums: dict[str, dict[str, dict[str, int]]] = {name: {"mesa": {}, "mano": {}} for name in readers}
    for kind, index in photos:
        scene = render_scene(
            scene_rng(seed, "eval", index), decks=(deck,), backgrounds=HOLDOUT_BACKGROUNDS, size=(1280, 960), kind=kind
        )
        for name, reader in readers.items():
            for k, v in photo_counts(reader, scene).items():
                sums[name][kind][k] = sums[name][kind].get(k, 0) + v
    out: dict = {"baraja": deck, "aprendizaje": info}
    for name, by_kind in sums.items():
        out[name] = {kind: summary(s) for kind, s in by_kind.items() if s}
    out["carga_media_cpu"] = round(os.getloadavg()[0], 2)
    return out


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(
        prog="python -m training.cards.partida",
        description=__doc__,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    p.add_argument("--baraja", default="fournier1878-pd")
    p.add_argument("--aprender", type=int, default=10, help="confirmed tables learned from first")
    p.add_argument("--mesas", type=int, default=30, help="tables read after them")
    p.add_argument("--manos", type=int, default=30, help="close-ups of one hand read after them")
    p.add_argument("--semilla", type=int, default=0)
    p.add_argument("--salida", type=Path, default=None, help="also write the results here (JSON)")
    args = p.parse_args(argv)
    res = measure(args.baraja, args.aprender, args.mesas, args.manos, args.semilla)
    print(json.dumps(res, indent=1, ensure_ascii=False))
    if args.salida:
        args.salida.write_text(json.dumps(res, indent=1, ensure_ascii=False))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
