"""Measure the pip counter (:mod:`vision.pips`) and what it does for a deck the reader does not
know (:func:`vision.assemble.agree_with_pips`), on generated photos: a proxy, since both
reference designs are in the models' training.

``contar``: the count of every well-visible card (97 % of its face or more) of generated tables,
close-ups and loose cards, cut out under its true box moved as a detector's would be
(:func:`training.cards.dataset.jitter_obb`, half its training amount): per rank, right / wrong /
unsure, and per scale band (the card's long side over the photo's longer side). ``--caras``
instead prints each face of the deck at a range of sizes and blurs and counts it:

    python -m training.cards.pips contar --baraja fournier1878-pd --escenas 40
    python -m training.cards.pips contar --baraja naipes-libres-basquetteur --caras

``leer``: generated tables read by the shipped reader with a classifier made not to know the
deck, so that the reader takes it for an unfamiliar one and the corner index, the pintas and the
pips decide: ``--clasificador ciego`` gives every card the same probability (the classifier knows
nothing: the mark readers alone), ``templado`` divides its log-probabilities by ``--temperatura``
(it knows the cards but is unsure). Each table is read once per ``--penalizacion`` (1: the pips
not counted), and the figures of each are printed: cards right, their precision, recall and F1,
tables exact with their seats, tables taken for an unfamiliar deck, wrong cards not flagged:

    python -m training.cards.pips leer --baraja fournier1878-pd --escenas 60 --clasificador ciego

``comprobar``: the generic reader's cross-check (:mod:`vision.crosscheck`) on crops of the 3, 5
and 7 de copas of each reference design degraded as a phone's photo may degrade them (printed
small, blurred, partly covered by another card): how each is counted, whether a 5 the classifier
reads as the 3 or the 7 (its runner-up the 5) comes out flagged or moved to the 5, and whether a
3 or a 7 read right is flagged:

    python -m training.cards.pips comprobar

Measured (a proxy: 14 crops of each card a design, 3 sharp, 3 blurred, 3 small, 5 covered):
a 5 read as the 3 flagged 13 of 14 on each design (9 by its pips, moved to the 5; the covered
ones by the corner index, one not flagged), read as the 7 13 of 14; no right 3 or 7 flagged;
the rey and caballo de bastos read as each other flagged 22 and 25 of 28 (blurred ones least:
3 and 5 of 6), no right one flagged.

``tiempo``: what counting the 16 cards of a table costs, alone and in a whole reading of a
table taken for an unfamiliar deck (the only tables where the reader counts):
``python -m training.cards.pips tiempo --escenas 10``.

Scenes come from the ``eval`` split (``--particion val`` for choosing) with the held-out
backgrounds, as in :mod:`training.cards.evaluate`.

Measured (eval split, seed 0). ``contar --escenas 40``: number cards (2-7) counted right /
wrong / unsure 326 / 1 / 103 (Fournier 1878) and 374 / 2 / 54 (Naipes Libres); aces and courts
counted 0 of 262 each. ``leer --escenas 100``, pips off -> on at PIP_PENALTY: blind, card F1
0.778 -> 0.821 and 0.867 -> 0.883, tables exact 12 -> 16 and 29 -> 28; unsure (temperature 3),
F1 0.979 -> 0.979 and 0.964 -> 0.966, exact 80 -> 80 and 68 -> 69; no wrong card unflagged.
``tiempo --escenas 8`` on a quiet 2-core CPU: 0.87 ms a card counted; a blind reading of a
table 46.4 -> 52.0 ms.
"""

from __future__ import annotations

import argparse
import json
import statistics
import time
from collections import Counter
from collections.abc import Iterator
from pathlib import Path

import cv2
import numpy as np

from scoring.cards import CARD_IDS
from training.cards.dataset import jitter_obb, scene_rng
from training.cards.decks import DECKS, load_deck
from training.cards.evaluate import match_boxes
from training.cards.synth import HOLDOUT_BACKGROUNDS, render_scene, visible_fraction
from vision.assemble import PIP_PENALTY
from vision.classify import CardProbabilities, Classifier, softmax
from vision.corner_index import INDEX_CROP, corners_bgr, standardise
from vision.crosscheck import countable, cross_check
from vision.cutout import Cutouts
from vision.geometry import crop_cards, quad_to_obb
from vision.models import models_dir
from vision.pips import pip_count, pip_counts
from vision.reader import UNFAMILIAR_WARNING, CardReader, ReaderSettings

SCALE_BANDS = (0.0, 0.1, 0.15, 0.25, 1.0)  # a card's long side over the photo's longer side
KINDS = ("mesa", "mano", "sueltas")
MIN_VISIBLE = 0.97
FACE_HEIGHTS = (48, 64, 96, 144, 256)  # pixels a face is printed at (the crop is 192 high)
FACE_BLURS = (0.0, 1.0, 2.0)  # Gaussian sigma, in the printed face's pixels


def card_crops(deck: str, n: int, seed: int = 0, split: str = "eval") -> Iterator[tuple[np.ndarray, str, float, str]]:
    """(crop at INDEX_CROP, card id, scale, kind) of each well-visible card of ``n`` generated
    photos of each of KINDS."""
    for i in range(n):
        for k, kind in enumerate(KINDS):
            rng = scene_rng(seed, split, 30_000 + len(KINDS) * i + k)
            scene = render_scene(rng, decks=(deck,), backgrounds=HOLDOUT_BACKGROUNDS, kind=kind)
            side = max(scene.image.shape[:2])
            for quad, cid, vis in zip(scene.corners, scene.card_ids, visible_fraction(scene), strict=True):
                if vis < MIN_VISIBLE:
                    continue
                obb = jitter_obb(rng, quad_to_obb(quad), 0.5)
                yield crop_cards(scene.image, obb[None], INDEX_CROP)[0], cid, float(max(obb[2:4])) / side, kind


def printed_face(face: np.ndarray, height: int, blur: float = 0.0) -> np.ndarray:
    """A BGRA ``face`` printed ``height`` pixels high (blurred by ``blur``, a Gaussian sigma in
    those pixels) on a grey table, cut out again under its box at INDEX_CROP."""
    width = round(face.shape[1] * height / face.shape[0])
    small = cv2.resize(face, (width, height), interpolation=cv2.INTER_AREA).astype(np.float32)
    printed = cv2.GaussianBlur(small, (0, 0), blur) if blur else small
    canvas = np.full((2 * height, 2 * height, 3), 110, np.float32)
    y, x = height // 2, height - width // 2
    alpha = printed[:, :, 3:] / 255
    canvas[y : y + height, x : x + width] = printed[:, :, :3] * alpha + canvas[y : y + height, x : x + width] * (
        1 - alpha
    )
    image = np.clip(canvas, 0, 255).astype(np.uint8)
    obb = np.array([[x + width / 2, y + height / 2, width, height, 0.0]], np.float32)
    return crop_cards(image, obb, INDEX_CROP)[0]


def face_crops(deck: str) -> Iterator[tuple[np.ndarray, str, int, float]]:
    """(crop at INDEX_CROP, card id, printed height, blur) of every face of ``deck`` printed at
    each of FACE_HEIGHTS and FACE_BLURS (:func:`printed_face`)."""
    for cid, face in load_deck(deck).items():
        for height in FACE_HEIGHTS:
            for blur in FACE_BLURS:
                yield printed_face(face, height, blur), cid, height, blur


def band_of(scale: float) -> str:
    i = min(int(np.searchsorted(SCALE_BANDS, scale, side="right")) - 1, len(SCALE_BANDS) - 2)
    return f"{SCALE_BANDS[i]:g}-{SCALE_BANDS[i + 1]:g}"


def outcome(card_id: str, count: int | None) -> str:
    """ "bien", "mal" or "duda" (no count) of one card's count."""
    if count is None:
        return "duda"
    return "bien" if count == int(card_id[:-1]) else "mal"


def summary(rows: list[tuple[str, str, str]]) -> dict[str, dict[str, dict[str, int]]]:
    """Rows of (group, card id, outcome) -> {group: {rank: {outcome: n}}}, with "2-7" (the
    number cards a count is for) and "1 y figuras" (the as and the courts: never counted)."""
    out: dict[str, dict[str, Counter[str]]] = {}
    for group, cid, result in rows:
        rank = int(cid[:-1])
        by_rank = out.setdefault(group, {})
        by_rank.setdefault(str(rank), Counter())[result] += 1
        by_rank.setdefault("2-7" if 2 <= rank <= 7 else "1 y figuras", Counter())[result] += 1
    return {
        g: {r: {k: c[k] for k in ("bien", "mal", "duda")} for r, c in sorted(v.items(), key=lambda kv: _order(kv[0]))}
        for g, v in out.items()
    }


def _order(rank: str) -> tuple[int, int]:
    return (0, int(rank)) if rank.isdigit() else (1, 0)


def count_generated(deck: str, n: int, seed: int = 0, split: str = "eval") -> dict[str, object]:
    """The counts of the cards of ``n`` photos of each kind, per rank for the whole and per kind
    and per scale band."""
    rows: list[tuple[str, str, str]] = []
    for crop, cid, scale, kind in card_crops(deck, n, seed, split):
        result = outcome(cid, pip_count(crop).count)
        rows += [("todas", cid, result), (kind, cid, result), (f"escala {band_of(scale)}", cid, result)]
    return {"baraja": deck, "escenas_por_tipo": n, "particion": split, "cuentas": summary(rows)}


def count_faces(deck: str) -> dict[str, object]:
    """The counts of every face printed at each height and blur."""
    rows: list[tuple[str, str, str]] = []
    for crop, cid, height, blur in face_crops(deck):
        result = outcome(cid, pip_count(crop).count)
        rows += [("todas", cid, result), (f"alto {height} px", cid, result), (f"desenfoque {blur:g}", cid, result)]
    return {"baraja": deck, "cuentas": summary(rows)}


# how the 3, 5 and 7 de copas are degraded for ``comprobar``: (name, printed height in pixels,
# blur sigma in those pixels, share covered and from which side: another card lying over it)
DEGRADED = (
    ("nitida", 256, 0.0, 0.0, ""),
    ("nitida", 144, 0.0, 0.0, ""),
    ("nitida", 96, 0.0, 0.0, ""),
    ("desenfocada", 144, 1.5, 0.0, ""),
    ("desenfocada", 96, 2.0, 0.0, ""),
    ("desenfocada", 96, 3.0, 0.0, ""),
    ("pequena", 64, 0.0, 0.0, ""),
    ("pequena", 48, 0.0, 0.0, ""),
    ("pequena", 40, 0.5, 0.0, ""),
    ("tapada", 144, 0.0, 0.2, "abajo"),
    ("tapada", 144, 0.0, 0.35, "abajo"),
    ("tapada", 144, 0.0, 0.3, "derecha"),
    ("tapada", 144, 0.0, 0.45, "derecha"),
    ("tapada", 96, 1.0, 0.25, "esquina"),
)
CHECKED = ("3c", "5c", "7c", "11b", "12b")
SWAPPED = {"11b": "12b", "12b": "11b"}  # the courts the classifier swapped on real photos


def covered(crop: np.ndarray, share: float, side: str) -> np.ndarray:
    """``crop`` with another card's plain face (white paper, a dark edge) lying over ``share``
    of it from ``side`` ("abajo", "derecha" or "esquina": the bottom-right corner)."""
    out = crop.copy()
    h, w = out.shape[:2]
    y0 = round(h * (1 - share)) if side in ("abajo", "esquina") else 0
    x0 = round(w * (1 - share)) if side in ("derecha", "esquina") else 0
    out[y0:, x0:] = (238, 242, 244)
    cv2.rectangle(out, (x0, y0), (w + 5, h + 5), (50, 50, 50), 2)
    return out


def degraded_crops(deck: str) -> Iterator[tuple[np.ndarray, str, str]]:
    """(crop at INDEX_CROP, card id, degradation) of the CHECKED faces of ``deck`` (DEGRADED)."""
    faces = load_deck(deck)
    for cid in CHECKED:
        for name, height, blur, share, side in DEGRADED:
            crop = printed_face(faces[cid], height, blur)
            yield (covered(crop, share, side) if share else crop), cid, name


def check_degraded(deck: str) -> dict[str, object]:
    """The cross-check on :func:`degraded_crops` (the pips counted, the corner index read by the
    shipped reader), per degradation: the 5's counts; of the 5s the classifier would read as
    the 3 (or the 7) with the 5 its runner-up, how many come out flagged (by both marks, by the
    pips alone) and how many moved to the 5; of the 3s and 7s read right, how many are flagged;
    of the caballo and rey de bastos read as each other, how many are flagged, and of those
    read right, how many."""
    five = np.array([CARD_IDS.index("5c")])
    counts: dict[str, Counter[str]] = {}
    figures: dict[str, Counter[str]] = {}
    index = Classifier(models_dir()).index_reader
    for crop, cid, name in degraded_crops(deck):
        count = np.array([pip_count(crop).count or 0])
        g = figures.setdefault(name, Counter())
        label = np.array([CARD_IDS.index(cid)])
        assert index is not None, "sin lector del índice"
        ranks = softmax(index.run(None, {index.get_inputs()[0].name: standardise(corners_bgr(crop[None]))})[0])
        if cid in SWAPPED:
            swapped = np.array([CARD_IDS.index(SWAPPED[cid])])
            g["figuras"] += 1
            g["figura_cambiada_marcada"] += int(cross_check(swapped, swapped, count, ranks).contradicted[0])
            g["figura_bien_marcada"] += int(cross_check(label, label, count, ranks).contradicted[0])
        elif cid == "5c":
            g["5c"] += 1
            # counted as the reader counts: unless the index is all but sure of the card's rank
            read_as = np.array([CARD_IDS.index(w) for w in ("3c", "7c")])
            g["5c_contada_leida_3c_7c"] += int(countable(read_as, np.repeat(five, 2), np.repeat(ranks, 2, 0)).sum())
            counts.setdefault(name, Counter())[str(count[0] or "duda")] += 1
            for wrong in ("3c", "7c"):
                read = np.array([CARD_IDS.index(wrong)])
                check = cross_check(read, five, count, ranks)
                g[f"5c_leida_{wrong}_marcada"] += int(check.contradicted[0])
                g[f"5c_leida_{wrong}_marcada_por_pips"] += int(cross_check(read, five, count, None).contradicted[0])
                g[f"5c_leida_{wrong}_pasada_a_5c"] += int(check.labels[0] == five[0])
        else:
            g[cid] += 1
            g[f"{cid}_bien_marcada"] += int(cross_check(label, label, count, ranks).contradicted[0])
    return {
        "baraja": deck,
        "por_degradacion": {k: {**v, "5c_cuentas": dict(counts.get(k, {}))} for k, v in figures.items()},
    }


class UnknowingClassifier(Classifier):
    """The classifier of ``base``'s folder made not to know the deck: every card the same
    probability (``temperature`` None), or its log-probabilities divided by ``temperature``;
    the mark readers' probabilities are left as they are."""

    def __init__(self, base: Classifier, temperature: float | None):
        super().__init__(base.folder, base.threads, base.deck, base.index_weight, base.pinta_weight, base.both_ways)
        self.temperature = temperature

    def classify(self, cards: Cutouts) -> CardProbabilities:
        p = super().classify(cards)
        if self.temperature is None:
            probs = np.full_like(p.cards, 1 / len(CARD_IDS))
        else:
            logits = np.log(np.maximum(p.cards, 1e-12)) / self.temperature
            e = np.exp(logits - logits.max(1, keepdims=True))
            probs = e / e.sum(1, keepdims=True)
        return CardProbabilities(probs, p.ranks, p.suits)


def unknowing_reader(penalty: float, temperature: float | None) -> CardReader:
    reader = CardReader(settings=ReaderSettings(pip_penalty=penalty))
    reader.classifier = UnknowingClassifier(reader.classifier, temperature)
    return reader


def read_tables(
    deck: str, n: int, penalties: list[float], temperature: float | None, seed: int = 0, split: str = "eval"
) -> dict[str, object]:
    """``n`` generated tables read by an unknowing reader at each pip penalty (see the module)."""
    readers = {p: unknowing_reader(p, temperature) for p in penalties}
    sums = {p: Counter[str]() for p in penalties}
    for i in range(n):
        scene = render_scene(
            scene_rng(seed, split, 10_000 + i), decks=(deck,), backgrounds=HOLDOUT_BACKGROUNDS, kind="mesa"
        )
        gt = np.stack([quad_to_obb(q) for q in scene.corners])
        truth = [sorted(c for c, s in zip(scene.card_ids, scene.seats, strict=True) if s == k) for k in range(4)]
        for p, reader in readers.items():
            dets = reader.read(scene.image)
            m = match_boxes(dets.obb, gt, 0.5) if len(dets) else np.zeros(0, np.int64)
            right = np.array([j >= 0 and str(dets.card_ids[k]) == scene.card_ids[j] for k, j in enumerate(m)], bool)
            numbers = np.array([j >= 0 and int(scene.card_ids[j][:-1]) <= 7 for j in m], bool)
            hands = dets.hands
            s = sums[p]
            s["cartas"] += len(gt)
            s["leidas"] += len(dets)
            s["bien"] += int(right.sum())
            s["numeros"] += sum(int(c[:-1]) <= 7 for c in scene.card_ids)
            s["numeros_bien"] += int((right & numbers).sum())
            s["mal_sin_aviso"] += int((~right & ~dets.low_confidence).sum())
            s["exactas"] += int(hands is not None and [sorted(h) for h in hands] == truth)
            s["desconocida"] += int(UNFAMILIAR_WARNING in dets.warnings)
    out: dict[str, object] = {"baraja": deck, "mesas": n, "particion": split, "temperatura": temperature}
    for p, s in sums.items():
        precision, recall = s["bien"] / max(s["leidas"], 1), s["bien"] / max(s["cartas"], 1)
        out[f"penalizacion {p:g}"] = {
            "precision": round(precision, 4),
            "recall": round(recall, 4),
            "F1": round(2 * precision * recall / max(precision + recall, 1e-12), 4),
            "numeros_bien": round(s["numeros_bien"] / max(s["numeros"], 1), 4),
            "mesas_exactas": s["exactas"],
            "mesas_desconocidas": s["desconocida"],
            "cartas_mal_sin_aviso": s["mal_sin_aviso"],
        }
    return out


def time_counts(n: int, repeats: int = 5, seed: int = 0, split: str = "eval") -> dict[str, object]:
    """What counting costs, in median milliseconds over ``n`` generated tables of each deck read
    ``repeats`` times: :func:`vision.pips.pip_counts` over a table's 16 cards (cutting out and
    counting; wall clock and this process's CPU time), and a whole reading of the table by a
    blind reader (:func:`unknowing_reader`: an unfamiliar deck, where the reader counts) with
    and without the pips, interleaved."""
    wall, cpu = [], []
    reads: dict[float, list[float]] = {1.0: [], PIP_PENALTY: []}
    readers = {p: unknowing_reader(p, None) for p in reads}
    for deck in DECKS:
        for i in range(n):
            scene = render_scene(
                scene_rng(seed, split, 10_000 + i), decks=(deck,), backgrounds=HOLDOUT_BACKGROUNDS, kind="mesa"
            )
            boxes = np.stack([quad_to_obb(q) for q in scene.corners])
            pip_counts(scene.image, boxes)  # warm-up
            for reader in readers.values():
                reader.read(scene.image)
            for _ in range(repeats):
                w0, c0 = time.perf_counter(), time.process_time()
                pip_counts(scene.image, boxes)
                wall.append((time.perf_counter() - w0) * 1000)
                cpu.append((time.process_time() - c0) * 1000)
                for p, reader in readers.items():
                    w0 = time.perf_counter()
                    reader.read(scene.image)
                    reads[p].append((time.perf_counter() - w0) * 1000)
    return {
        "mesas": n * len(DECKS),
        "contar_ms_mesa": round(statistics.median(wall), 2),
        "contar_ms_carta": round(statistics.median(wall) / 16, 3),
        "contar_ms_cpu_mesa": round(statistics.median(cpu), 2),
        "leer_ms_sin_pips": round(statistics.median(reads[1.0]), 1),
        "leer_ms_con_pips": round(statistics.median(reads[PIP_PENALTY]), 1),
    }


def parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(
        prog="python -m training.cards.pips", description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    sub = p.add_subparsers(dest="orden", required=True)
    tiempo = sub.add_parser("tiempo")
    tiempo.add_argument("--escenas", type=int, default=10)
    tiempo.add_argument("--veces", type=int, default=5)
    for name in ("contar", "leer"):
        s = sub.add_parser(name)
        s.add_argument("--baraja", choices=DECKS, default=DECKS[0])
        s.add_argument("--escenas", type=int, default=40)
        s.add_argument("--semilla", type=int, default=0)
        s.add_argument("--particion", choices=("eval", "val"), default="eval")
        s.add_argument("--salida", type=Path, default=None, help="also write the figures here (JSON)")
    comprobar = sub.add_parser("comprobar")
    comprobar.add_argument("--baraja", choices=DECKS, nargs="+", default=list(DECKS))
    comprobar.add_argument("--salida", type=Path, default=None, help="also write the figures here (JSON)")
    contar = sub.choices["contar"]
    contar.add_argument("--caras", action="store_true", help="count the deck's faces printed at sizes and blurs")
    leer = sub.choices["leer"]
    leer.add_argument("--clasificador", choices=("ciego", "templado"), default="ciego")
    leer.add_argument("--temperatura", type=float, default=3.0, help="with --clasificador templado")
    leer.add_argument(
        "--penalizacion", type=float, nargs="+", default=[1.0, PIP_PENALTY], help="pip penalties (1: pips not counted)"
    )
    return p


def main(argv: list[str] | None = None) -> int:
    args = parser().parse_args(argv)
    if args.orden == "tiempo":
        print(json.dumps(time_counts(args.escenas, args.veces), indent=1))
        return 0
    figures: dict[str, object]
    if args.orden == "comprobar":
        figures = {"barajas": [check_degraded(deck) for deck in args.baraja]}
    elif args.orden == "contar":
        figures = (
            count_faces(args.baraja)
            if args.caras
            else count_generated(args.baraja, args.escenas, args.semilla, args.particion)
        )
    else:
        temperature = args.temperatura if args.clasificador == "templado" else None
        figures = read_tables(args.baraja, args.escenas, args.penalizacion, temperature, args.semilla, args.particion)
    text = json.dumps(figures, ensure_ascii=False, indent=1)
    print(text)
    if args.salida:
        args.salida.write_text(text + "\n", encoding="utf-8")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
