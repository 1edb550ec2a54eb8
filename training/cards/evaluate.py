"""Measure the card reader on synthetic tables it never saw in training.

    python -m training.cards.evaluate --baraja fournier1878-pd --escenas 60 --salida runs/eval_fournier.json

Scenes come from the ``eval`` split (seeds never used in training) with
:data:`training.cards.synth.HOLDOUT_BACKGROUNDS` only (backgrounds never used in training), as 1280x960
photos of a full table (16 cards, four hands). Reports:

- detector: precision and recall of card boxes (rotated IoU >= 0.5) and mAP50-95 (rotated IoU,
  101-point interpolation, computed here with a low score threshold);
- cards: share of cards read right, per-card precision and recall (the 40 ids);
- tables: share of photos read exactly (all 16 ids, each in the right seat).

``--disposicion mano|sueltas|vacia`` measures close-ups of one hand, loose cards or tables with
no card face instead (exact: the same cards and none more; phantom cards a photo);
``--por-disposicion N`` adds, in the same run, N photos of each layout (tables in rows,
overlapping rows and fans, close-ups of one hand in each, loose cards, empty tables) and the
real photos with no card that ship with scikit-image (``--negativas``: those alone):

    python -m training.cards.evaluate --baraja fournier1878-pd --escenas 100 --por-disposicion 30

``--registrar --refuerzo N`` first strengthens the registration with N confirmed generated
tables (:mod:`vision.refuerzo`; scenes 70,000 on, never the test tables).

``--modelos DIR`` evaluates models other than the shipped ones, ``--clasificador``,
``--indice`` and ``--pintas`` swap one model (for instance ones trained on one design only, for
the cross-design check); ``--sin-indice`` and ``--sin-pintas`` read without the corner-index
or the pinta reader; ``--peso-pintas`` sets the pinta reader's weight.
"""

from __future__ import annotations

import argparse
import atexit
import json
import shutil
import tempfile
import time
from pathlib import Path

import numpy as np

from scoring.cards import CARD_IDS
from training.cards.dataset import scene_rng
from training.cards.synth import HOLDOUT_BACKGROUNDS, render_scene
from vision.aprender import learn
from vision.classify import INDEX_WEIGHT, PINTA_WEIGHT
from vision.detections import CardDetections
from vision.flags import load as load_flag_model
from vision.geometry import obb_to_xyxy, quad_to_obb, rotated_iou
from vision.models import CLASSIFIER_FILE, CORNER_INDEX_FILE, ONNX_FILES, PINTAS_FILE, models_dir
from vision.reader import UNFAMILIAR_WARNING, CardReader, ReaderSettings
from vision.refuerzo import strengthen
from vision.registered_deck import MAX_SERIES, DeckError, RegisteredDeck
from vision.registration import locate_grid, register
from vision.seats import assign_seats

AP_MIN_SCORE = 0.01  # the detector's boxes down to this score count for its AP


def match_boxes(pred: np.ndarray, gt: np.ndarray, thr: float) -> np.ndarray:
    """Greedy match (predictions in the order given) -> index of the matched true box or -1.

    >>> gt = np.float32([[100, 100, 60, 90, 0], [300, 100, 60, 90, 0]])
    >>> match_boxes(np.float32([[302, 98, 60, 90, 0], [500, 500, 60, 90, 0]]), gt, 0.5).tolist()
    [1, -1]
    """
    used: set[int] = set()
    out = np.full(len(pred), -1, np.int64)
    for i, p in enumerate(pred):
        best, best_iou = -1, thr
        for j, g in enumerate(gt):
            if j in used:
                continue
            iou = rotated_iou(p, g)
            if iou >= best_iou:
                best, best_iou = j, iou
        if best >= 0:
            used.add(best)
            out[i] = best
    return out


def average_precision(records: list[tuple[np.ndarray, np.ndarray, np.ndarray]], thr: float) -> float:
    """Single-class AP at rotated-IoU ``thr`` over images of (pred_obb, scores, gt_obb).

    >>> gt = np.float32([[100, 100, 60, 90, 0]])
    >>> average_precision([(gt.copy(), np.float32([0.9]), gt)], 0.5)
    1.0
    """
    scores_all, tp_all, n_gt = [], [], 0
    for pred, scores, gt in records:
        order = np.argsort(-scores)
        m = match_boxes(pred[order], gt, thr)
        scores_all.append(scores[order])
        tp_all.append(m >= 0)
        n_gt += len(gt)
    if n_gt == 0:
        return float("nan")
    scores = np.concatenate(scores_all)
    tp = np.concatenate(tp_all)[np.argsort(-scores, kind="stable")]
    ctp = np.cumsum(tp)
    recall = ctp / n_gt
    precision = ctp / np.arange(1, len(tp) + 1)
    # precision envelope, 101-point interpolation (COCO)
    prec = np.concatenate([[0], precision, [0]])
    rec = np.concatenate([[0], recall, [1]])
    prec = np.flip(np.maximum.accumulate(np.flip(prec)))
    xs = np.linspace(0, 1, 101)
    idx = np.searchsorted(rec, xs, side="left")
    return float(np.mean([prec[i] if i < len(prec) else 0 for i in idx]))


def _seats_right_on_true_boxes(gt_obb: np.ndarray, scene) -> bool:
    """The seat grouping alone: right seats from the true boxes (no detector, no classifier)."""
    n = len(gt_obb)
    ids = np.array(scene.card_ids, object)
    one = np.ones(n, np.float32)
    dets = assign_seats(
        CardDetections(
            obb_to_xyxy(gt_obb),
            gt_obb.astype(np.float32),
            ids,
            one,
            one,
            one,
            ids,
            np.zeros(n, bool),
            np.full(n, -1, np.int8),
        )
    )
    return dets.seat.tolist() == list(scene.seats)


def _unflagged_error(dets: CardDetections, truth: list[list[str]]) -> bool:
    """Whether a table read with seats has a wrong card that is not flagged ``dudosa``: the
    reader would give a wrong tanteo with no warning at all (no seats is a warning)."""
    wrong = np.array([str(c) not in truth[int(s)] for c, s in zip(dets.card_ids, dets.seat, strict=True)])
    return bool((wrong & ~dets.low_confidence).any())


def evaluate(
    reader: CardReader,
    deck: str,
    n: int,
    seed: int = 0,
    size: tuple[int, int] = (1280, 960),
    split: str = "eval",
    hand_style: str | None = None,
    kind: str = "mesa",
) -> dict:
    """The figures of ``n`` generated photos of one layout: ``kind`` "mesa" (tables of 16,
    exact means every card in its seat), "mano" (a close-up of one hand), "sueltas" (1-15
    loose cards: exact means exactly those cards) or "vacia" (no card face: exact means none
    read)."""
    if kind != "mesa":
        return evaluate_photos(reader, deck, n, seed, size, split, hand_style, kind)
    ap_records = []
    tables_exact = 0
    seats_given = 0
    card_total = card_right = 0
    det_tp = det_fp = det_fn = 0
    per_tp = np.zeros(len(CARD_IDS))
    per_fp = np.zeros(len(CARD_IDS))
    per_fn = np.zeros(len(CARD_IDS))
    ms = []
    failures = []
    seats_from_truth = 0
    silent_errors = 0
    unfamiliar = 0
    flagged = 0  # cards flagged dudosa, summed over the tables
    right_flagged = wrong_unflagged = 0  # boxed cards read right and flagged, wrong and not
    for i in range(n):
        scene = render_scene(
            scene_rng(seed, split, 10_000 + i),
            decks=(deck,),
            backgrounds=HOLDOUT_BACKGROUNDS,
            size=size,
            kind="mesa",
            hand_style=hand_style,
        )
        gt_obb = np.stack([quad_to_obb(q) for q in scene.corners])
        seats_from_truth += _seats_right_on_true_boxes(gt_obb, scene)
        # detector AP: all of the detector's boxes down to a low score, before the table choice
        # (which keeps 16) so that it measures the detector alone
        ap_records.append((*reader.detector.candidates(scene.image, min_score=AP_MIN_SCORE), gt_obb))
        t0 = time.perf_counter()
        dets = reader.read(scene.image)
        ms.append((time.perf_counter() - t0) * 1000)
        m = match_boxes(dets.obb, gt_obb, 0.5)
        det_tp += int((m >= 0).sum())
        det_fp += int((m < 0).sum())
        det_fn += len(gt_obb) - int((m >= 0).sum())
        read_as = {}
        for k, j in enumerate(m):
            pid = CARD_IDS.index(str(dets.card_ids[k]))
            if j >= 0:
                read_as[int(j)] = pid
                right = scene.card_ids[j] == CARD_IDS[pid]
                right_flagged += int(right and dets.low_confidence[k])
                wrong_unflagged += int(not right and not dets.low_confidence[k])
            else:
                per_fp[pid] += 1
        for j, cid in enumerate(scene.card_ids):
            gid = CARD_IDS.index(cid)
            card_total += 1
            got = read_as.get(j)
            if got == gid:
                card_right += 1
                per_tp[gid] += 1
            else:
                per_fn[gid] += 1
                if got is not None:
                    per_fp[got] += 1
        truth = [sorted(c for c, s in zip(scene.card_ids, scene.seats, strict=True) if s == seat) for seat in range(4)]
        got_hands = dets.hands
        if got_hands is not None:
            seats_given += 1
        exact = got_hands is not None and [sorted(h) for h in got_hands] == truth
        tables_exact += exact
        silent_errors += not exact and got_hands is not None and _unflagged_error(dets, truth)
        unfamiliar += UNFAMILIAR_WARNING in dets.warnings
        flagged += int(dets.low_confidence.sum())
        if not exact:
            failures.append(
                {
                    "escena": i,
                    "fondo": scene.background,
                    "leidas": len(dets),
                    "avisos": dets.warnings,
                    "errores": sorted(set(scene.card_ids) - set(dets.ids)),
                }
            )
    with np.errstate(invalid="ignore", divide="ignore"):
        prec = per_tp / (per_tp + per_fp)
        rec = per_tp / (per_tp + per_fn)
    aps = [average_precision(ap_records, t) for t in np.arange(0.5, 0.96, 0.05)]
    return {
        "baraja": deck,
        "escenas": n,
        "tamaño": list(size),
        "detector": {
            "precision": det_tp / max(det_tp + det_fp, 1),
            "recall": det_tp / max(det_tp + det_fn, 1),
            "mAP50": aps[0],
            "mAP50-95": float(np.mean(aps)),
        },
        "cartas_bien": card_right / max(card_total, 1),
        "por_carta": {
            cid: {
                "precision": None if np.isnan(prec[k]) else round(float(prec[k]), 3),
                "recall": None if np.isnan(rec[k]) else round(float(rec[k]), 3),
            }
            for k, cid in enumerate(CARD_IDS)
        },
        "precision_media_por_carta": float(np.nanmean(prec)),
        "recall_media_por_carta": float(np.nanmean(rec)),
        "mesas_exactas": tables_exact / max(n, 1),
        "mesas_con_asientos": seats_given / max(n, 1),
        "mesas_mal_sin_aviso": silent_errors / max(n, 1),
        "mesas_baraja_desconocida": unfamiliar / max(n, 1),
        "dudosas_por_mesa": flagged / max(n, 1),  # cards flagged for confirmation, the cost
        "bien_dudosas_por_mesa": right_flagged / max(n, 1),  # of them, the right cards
        "cartas_mal_sin_aviso": wrong_unflagged,
        "asientos_bien_con_cajas_verdaderas": seats_from_truth / max(n, 1),
        "ms_mediana_lectura": float(np.median(ms)),
        "cartas_de_mas_por_foto": det_fp / max(n, 1),
        "fallos": failures[:20],
    }


def photo_figures(dets: CardDetections, scene) -> dict[str, int]:
    """One photo that is not a table of 16 scored against its truth: ``exacta`` (the same cards,
    none more), ``bien`` of ``cartas`` (true cards boxed, rotated IoU >= 0.5, with the right
    id), ``de_mas`` (boxes on no card), ``perdidas`` (true cards not boxed), ``mal_sin_aviso``
    (boxed cards read wrong and not flagged) and ``dudosas`` (cards flagged)."""
    gt_obb = np.stack([quad_to_obb(q) for q in scene.corners]) if len(scene.corners) else np.zeros((0, 5), np.float32)
    m = match_boxes(dets.obb, gt_obb, 0.5) if len(gt_obb) else np.full(len(dets), -1)
    ok = np.array([j >= 0 and str(dets.card_ids[k]) == scene.card_ids[j] for k, j in enumerate(m)], bool)
    return {
        "exacta": int(sorted(dets.ids) == sorted(scene.card_ids)),
        "bien": int(ok.sum()),
        "cartas": len(gt_obb),
        "de_mas": int((m < 0).sum()),
        "perdidas": len(gt_obb) - int((m >= 0).sum()),
        "mal_sin_aviso": int((~ok & (m >= 0) & ~dets.low_confidence).sum()),
        "dudosas": int(dets.low_confidence.sum()),
        "bien_dudosas": int((ok & dets.low_confidence).sum()),
    }


def evaluate_photos(
    reader: CardReader,
    deck: str,
    n: int,
    seed: int = 0,
    size: tuple[int, int] = (1280, 960),
    split: str = "eval",
    hand_style: str | None = None,
    kind: str = "mano",
) -> dict:
    """Photos that are not a table of 16 (see :func:`evaluate`): cards found and right, the
    photos read exactly (the same cards, none more), the phantom cards (boxes on no card) and
    the wrong cards without a flag."""
    sums: dict[str, int] = {}
    ms, failures = [], []
    for i in range(n):
        scene = render_scene(
            scene_rng(seed, split, 10_000 + i),
            decks=(deck,),
            backgrounds=HOLDOUT_BACKGROUNDS,
            size=size,
            kind=kind,
            hand_style=hand_style,
        )
        t0 = time.perf_counter()
        dets = reader.read(scene.image)
        ms.append((time.perf_counter() - t0) * 1000)
        figures = photo_figures(dets, scene)
        sums = {k: sums.get(k, 0) + v for k, v in figures.items()}
        if not figures["exacta"]:
            failures.append(
                {
                    "escena": i,
                    "fondo": scene.background,
                    "leidas": sorted(dets.ids),
                    "verdad": sorted(scene.card_ids),
                    "avisos": dets.warnings,
                }
            )
    total = sums.get("cartas", 0)
    return {
        "baraja": deck,
        "disposicion": kind,
        "estilo": hand_style,
        "escenas": n,
        "cartas_bien": sums["bien"] / total if total else None,
        "fotos_exactas": sums.get("exacta", 0) / max(n, 1),
        "cartas_de_mas_por_foto": sums.get("de_mas", 0) / max(n, 1),
        "cartas_perdidas_por_foto": sums.get("perdidas", 0) / max(n, 1),
        "cartas_mal_sin_aviso": sums.get("mal_sin_aviso", 0),
        "dudosas_por_foto": sums.get("dudosas", 0) / max(n, 1),
        "bien_dudosas_por_foto": sums.get("bien_dudosas", 0) / max(n, 1),
        "ms_mediana_lectura": float(np.median(ms)) if ms else None,
        "fallos": failures[:20],
    }


# Real photos that ship with scikit-image (no download) and hold no playing card: portraits, a
# cat, a cup of coffee, coins, text, a rocket, microscopy, the sky, textures. Choosing the
# reader's "no card here" rule looked at the first twelve (vision.detect.CARD_EVIDENCE).
NEGATIVE_PHOTOS = (
    "coffee",
    "chelsea",
    "astronaut",
    "rocket",
    "camera",
    "coins",
    "page",
    "text",
    "clock",
    "horse",
    "logo",
    "immunohistochemistry",
    "moon",
    "hubble_deep_field",
    "retina",
    "cell",
    "grass",
    "gravel",
    "brick",
    "colorwheel",
    "stereo_motorcycle",
    "microaneurysms",
)


def negative_photo(name: str) -> np.ndarray:
    """One of NEGATIVE_PHOTOS as a BGR image (grey and RGBA converted; a stereo pair's left)."""
    # OpenCV and scikit-image (the test extra): only this measurement needs them
    import cv2
    from skimage import data

    img = getattr(data, name)()
    if isinstance(img, tuple):  # stereo_motorcycle: (left, right, disparity)
        img = img[0]
    if img.ndim == 2:
        img = np.dstack([img] * 3)
    return cv2.cvtColor(np.ascontiguousarray(img[:, :, :3]).astype(np.uint8), cv2.COLOR_RGB2BGR)


def negatives(reader: CardReader, names: tuple[str, ...] = NEGATIVE_PHOTOS) -> dict:
    """How many cards the reader finds on each real photo with no card (all should be 0)."""
    found = {name: len(reader.read(negative_photo(name))) for name in names}
    return {
        "fotos": len(found),
        "sin_cartas": sum(v == 0 for v in found.values()),
        "cartas_fantasma": sum(found.values()),
        "por_foto": found,
    }


# The layouts measured one by one (--por-disposicion): (name, kind, hand style)
LAYOUTS = (
    ("filas", "mesa", "row"),
    ("filas_solapadas", "mesa", "overlap"),
    ("abanicos", "mesa", "fan"),
    ("primer_plano_fila", "mano", "row"),
    ("primer_plano_solapada", "mano", "overlap"),
    ("primer_plano_abanico", "mano", "fan"),
    ("sueltas", "sueltas", None),
    ("vacias", "vacia", None),
)


def by_layout(
    reader: CardReader, deck: str, n: int, seed: int = 0, size: tuple[int, int] = (1280, 960), split: str = "eval"
) -> dict:
    """``n`` photos of each of LAYOUTS, the short figures of each, and the negatives."""
    keep = (
        "cartas_bien",
        "mesas_exactas",
        "fotos_exactas",
        "cartas_de_mas_por_foto",
        "mesas_mal_sin_aviso",
        "cartas_mal_sin_aviso",
        "dudosas_por_mesa",
        "dudosas_por_foto",
    )
    out: dict = {}
    for name, kind, style in LAYOUTS:
        res = evaluate(reader, deck, n, seed, size, split, style, kind)
        out[name] = {k: res[k] for k in keep if k in res}
    out["fotos_sin_cartas"] = negatives(reader)
    return out


def register_from_generated_photos(
    reader: CardReader, deck: str, seed: int = 0, size: tuple[int, int] = (1280, 960), tries: int = 5, series: int = 1
) -> tuple[RegisteredDeck, list[str], int]:
    """Register ``deck`` from four generated photos, one suit each, through the real path
    (detector, grid, crops): scenes 90,000 on of the eval split, away from the test tables.
    When the registration refuses a set, the four photos are taken again, as a user would
    (up to ``tries`` times a set). ``series`` > 1: that many accepted sets, merged as ``mus
    baraja registrar --añadir`` merges them.

    Returns (registration, warnings, sets of photos taken)."""
    registration: RegisteredDeck | None = None
    warnings: list[str] = []
    taken = 0
    for _ in range(series):
        for _ in range(tries):
            photos = [
                render_scene(
                    scene_rng(seed, "eval", 90_000 + 4 * taken + p),
                    decks=(deck,),
                    backgrounds=HOLDOUT_BACKGROUNDS,
                    size=size,
                    kind="palo",
                    card_ids=list(CARD_IDS[10 * p : 10 * p + 10]),
                ).image
                for p in range(4)
            ]
            taken += 1
            try:
                new, new_warnings = register(reader, photos, name=deck)
            except DeckError:
                continue
            registration = new if registration is None else registration.combined(new)
            warnings += new_warnings
            break
        else:
            raise DeckError(f"no se pudo registrar {deck} con {tries} series de fotos")
    if registration is None:  # only when no set was asked for
        raise ValueError(f"series debe ser al menos 1, no {series}")
    return registration, warnings, taken


def strengthen_from_generated_tables(
    reader: CardReader, deck: str, n: int, seed: int = 0, size: tuple[int, int] = (1280, 960)
) -> dict:
    """Confirm ``n`` generated tables read against ``reader``'s registered deck and strengthen
    it with each (vision.refuerzo), as the app does when the player confirms a table: the
    truth is the confirmation (phantom boxes deleted, wrong ids corrected, missed cards never
    cut). Scenes 70,000 on of the eval split, away from the test tables and the registration
    photos. ``reader`` reads against the strengthened deck afterwards."""
    registered = reader.deck
    if registered is None:
        raise ValueError("el lector no tiene una baraja registrada que reforzar")
    corrected = added = 0
    for k in range(n):
        scene = render_scene(
            scene_rng(seed, "eval", 70_000 + k), decks=(deck,), backgrounds=HOLDOUT_BACKGROUNDS, size=size, kind="mesa"
        )
        gt_obb = np.stack([quad_to_obb(q) for q in scene.corners])
        dets = reader.read(scene.image)
        m = match_boxes(dets.obb, gt_obb, 0.5) if len(dets) else np.zeros(0, np.int64)
        keep = m >= 0
        truth = [scene.card_ids[j] for j in m[keep]]
        fixed = [str(c) != t for c, t in zip(dets.card_ids[keep], truth, strict=True)]
        registered = strengthen(registered, reader, scene.image, dets.obb[keep], truth, fixed)
        reader.deck = reader.classifier.deck = registered  # the same models, the deck grown
        corrected += sum(fixed)
        added += len(truth)
    return {
        "mesas": n,
        "cartas_confirmadas": added,
        "cartas_corregidas": corrected,
        "refuerzos_guardados": registered.extra_count,
    }


def learn_from_generated_tables(
    reader: CardReader, deck: str, n: int, seed: int = 0, size: tuple[int, int] = (1280, 960)
) -> tuple[CardReader, dict]:
    """Learn the deck from ``n`` confirmed generated tables with no suit photos, as ``mus baraja
    aprender`` and ``mus servir`` do with each confirmed hand (vision.aprender: the photo read
    against the deck learned so far, its cards matched to the confirmed hands, corrections
    included). Scenes 70,000 on of the eval split, away from the test tables. Returns a reader
    of the learned deck and what went in."""
    learned: RegisteredDeck | None = None
    current = reader
    added = corrected = refused = 0
    for k in range(n):
        scene = render_scene(
            scene_rng(seed, "eval", 70_000 + k), decks=(deck,), backgrounds=HOLDOUT_BACKGROUNDS, size=size, kind="mesa"
        )
        pairs = list(zip(scene.card_ids, scene.seats, strict=True))
        manos = [" ".join(c for c, s in pairs if s == seat) for seat in range(4)]
        try:
            learned, found = learn(learned, current, scene.image, manos)
        except DeckError:  # a photo whose reading does not match its hands: nothing learned
            refused += 1
            continue
        added += len(found.card_ids)
        corrected += sum(found.corrected)
        current = CardReader(reader.folder, reader.settings, deck=learned)
    info = {
        "mesas": n,
        "cartas_aprendidas": added,
        "cartas_corregidas": corrected,
        "mesas_rechazadas": refused,
        "cartas_conocidas": 0 if learned is None else int(learned.known.sum()),
    }
    return current, info


def registration_photos(
    reader: CardReader, deck: str, n: int, seed: int = 0, size: tuple[int, int] = (1280, 960)
) -> dict:
    """How often one suit photo for registering is accepted, and accepted with every card in
    its right place (the dangerous failure is a wrong photo accepted): ``n`` generated photos,
    eval split, unseen backgrounds, away from the test tables."""
    accepted = right = 0
    for k in range(n):
        suit = k % 4
        ids = list(CARD_IDS[10 * suit : 10 * suit + 10])
        scene = render_scene(
            scene_rng(seed, "eval", 95_000 + k),
            decks=(deck,),
            backgrounds=HOLDOUT_BACKGROUNDS,
            size=size,
            kind="palo",
            card_ids=ids,
        )
        try:
            boxes = locate_grid(reader, scene.image, 10, ((1, 10), (2, 5)))
        except DeckError:
            continue
        accepted += 1
        centres = np.stack([q.mean(0) for q in scene.corners])
        nearest = [int(np.argmin(np.linalg.norm(centres - b[:2], axis=1))) for b in boxes]
        right += [scene.card_ids[j] for j in nearest] == ids
    return {"fotos": n, "aceptadas": accepted / max(n, 1), "aceptadas_y_bien": right / max(n, 1)}


def models_with(
    folder: Path | None = None,
    *,
    classifier: Path | str | None = None,
    corner_index: Path | str | None = None,
    pintas: Path | str | None = None,
) -> Path:
    """``folder`` (default the shipped models' folder) or, when any of the classifier,
    corner-index and pinta readers is swapped for another ONNX file, a temporary folder (removed
    at exit) holding the swapped files and the folder's other ONNX files: the shipped folder is
    never touched. The flag model is not copied: it belongs to the folder's own files."""
    folder = Path(folder) if folder else models_dir()
    swaps = {CLASSIFIER_FILE: classifier, CORNER_INDEX_FILE: corner_index, PINTAS_FILE: pintas}
    if not any(swaps.values()):
        return folder
    tmp = Path(tempfile.mkdtemp(prefix="musmesa-modelos-"))
    atexit.register(shutil.rmtree, tmp, True)
    for name in ONNX_FILES:
        src = Path(swaps.get(name) or folder / name)
        if src.is_file():
            shutil.copy(src, tmp / name)
    return tmp


def reader_with(
    folder: Path | None = None,
    *,
    classifier: Path | str | None = None,
    corner_index: Path | str | None = None,
    pintas: Path | str | None = None,
    settings: ReaderSettings | None = None,
) -> CardReader:
    """A reader of ``folder``'s models (default the shipped ones) with any of the classifier,
    corner-index and pinta readers swapped for other ONNX files (:func:`models_with`)."""
    return CardReader(models_with(folder, classifier=classifier, corner_index=corner_index, pintas=pintas), settings)


def settings_from(args: argparse.Namespace) -> ReaderSettings:
    """The reader's settings the command line asks for (the defaults where it says nothing)."""
    pinta_weight = PINTA_WEIGHT if args.peso_pintas is None else args.peso_pintas
    return ReaderSettings(
        low_confidence=args.umbral_dudas,
        flag_model=not args.sin_dudas,
        index_weight=0 if args.sin_indice else INDEX_WEIGHT,
        pinta_weight=0 if args.sin_pintas else pinta_weight,
        cross_check=not args.sin_comprobar,
    )


def parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(
        prog="python -m training.cards.evaluate",
        description=__doc__,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    p.add_argument("--baraja", default="fournier1878-pd")
    p.add_argument("--escenas", type=int, default=60)
    p.add_argument("--semilla", type=int, default=0)
    p.add_argument("--modelos", type=Path, default=None, help="folder with the ONNX models")
    p.add_argument(
        "--clasificador", type=Path, default=None, help="use this classifier ONNX instead of the one in --modelos"
    )
    p.add_argument(
        "--indice", type=Path, default=None, help="use this corner-index reader ONNX instead of the one in --modelos"
    )
    p.add_argument(
        "--pintas", type=Path, default=None, help="use this pinta (suit) reader ONNX instead of the one in --modelos"
    )
    p.add_argument(
        "--particion",
        choices=("eval", "val"),
        default="eval",
        help="val: the validation tables, on which reading choices are made",
    )
    p.add_argument("--sin-indice", action="store_true", help="read without the corner-index reader")
    p.add_argument("--sin-pintas", action="store_true", help="read without the pinta reader")
    p.add_argument(
        "--sin-comprobar",
        action="store_true",
        help="the generic reader without its cross-check of the pips and the corner index (vision.crosscheck)",
    )
    p.add_argument(
        "--peso-pintas", type=float, default=None, help="the pinta reader's weight (default: the reader's PINTA_WEIGHT)"
    )
    p.add_argument(
        "--estilo",
        choices=("row", "overlap", "fan"),
        default=None,
        help="every hand laid the same way: in a row, an overlapping row or a fan (default: mixed, as in training)",
    )
    p.add_argument(
        "--disposicion",
        choices=("mesa", "mano", "sueltas", "vacia"),
        default="mesa",
        help="what the photos show: a table of 16 (default), a close-up of one hand, 1-15 loose cards, or no card face",
    )
    p.add_argument(
        "--por-disposicion",
        type=int,
        default=0,
        metavar="N",
        help="also N photos of each layout (tables in rows, overlapping rows and fans; "
        "close-ups of one hand in each; loose cards; empty tables) and the real "
        "photos with no card of scikit-image, in the same run",
    )
    p.add_argument(
        "--negativas",
        action="store_true",
        help="also read the real photos with no card of scikit-image (NEGATIVE_PHOTOS)",
    )
    p.add_argument(
        "--registrar",
        action="store_true",
        help="first register the test deck from four generated photos (one a suit) "
        "(eval split, unseen backgrounds, not one of the test tables), then read "
        "the tables against it (vision.registration)",
    )
    p.add_argument(
        "--series",
        type=int,
        default=1,
        metavar="N",
        help="with --registrar: register N accepted sets of four photos, merged (mus baraja registrar --añadir)",
    )
    p.add_argument(
        "--refuerzo",
        type=int,
        default=0,
        metavar="N",
        help="with --registrar: then strengthen the registration with N confirmed "
        "generated tables (vision.refuerzo; not the test tables) before reading",
    )
    p.add_argument(
        "--aprender",
        type=int,
        default=0,
        metavar="N",
        help="without --registrar: learn the deck from N confirmed generated tables, no suit photos "
        "(vision.aprender, mus baraja aprender; not the test tables) before reading",
    )
    p.add_argument(
        "--fotos-registro",
        type=int,
        default=0,
        metavar="N",
        help="also measure N generated registration photos (one suit each): how many "
        "are accepted, and accepted with every card in place",
    )
    p.add_argument(
        "--dudas",
        type=Path,
        default=None,
        metavar="FILE",
        help="against a registered deck, flag cards by this flag model (vision.flags; "
        "default: the models folder's, when it was fitted with its models)",
    )
    p.add_argument(
        "--sin-dudas", action="store_true", help="against a registered deck, flag by detector x card probability alone"
    )
    p.add_argument(
        "--umbral-dudas",
        type=float,
        default=None,
        metavar="X",
        help="flag the cards under X of detector x card probability, registered or not (default: the reader's rules)",
    )
    p.add_argument(
        "--tamano", default="1280x960", metavar="WxH", help="size of the generated photos (the same tables at any size)"
    )
    p.add_argument("--salida", type=Path, default=None, help="write the full results here (JSON)")
    return p


def main(argv: list[str] | None = None) -> int:
    p = parser()
    args = p.parse_args(argv)
    try:
        size = tuple(int(v) for v in args.tamano.lower().split("x"))
        if len(size) != 2 or min(size) < 64:
            raise ValueError
    except ValueError:
        p.error(f"--tamano debe ser ANCHOxALTO, p. ej. 1920x1440 (no {args.tamano!r})")
    if args.aprender and args.registrar:
        p.error("--aprender va sin --registrar")
    if args.refuerzo and not args.registrar:
        p.error("--refuerzo va con --registrar")
    if not 1 <= args.series <= MAX_SERIES:
        p.error(f"--series va de 1 a {MAX_SERIES} (no {args.series})")
    reader = reader_with(
        args.modelos,
        classifier=args.clasificador,
        corner_index=args.indice,
        pintas=args.pintas,
        settings=settings_from(args),
    )
    flag_model = load_flag_model(args.dudas) if args.dudas and not args.sin_dudas else None
    # the weights the mark readers were read with (0: that reader not used)
    s = reader.settings
    extra: dict = {
        "peso_indice": s.index_weight if reader.classifier.index_reader is not None else 0,
        "peso_pintas": s.pinta_weight if reader.classifier.pinta_reader is not None else 0,
    }
    if args.registrar:
        registration, warnings, photos = register_from_generated_photos(
            reader, args.baraja, args.semilla, series=args.series
        )
        reader = CardReader(reader.folder, s, deck=registration, flag_model=flag_model)
        extra.update(
            {"registrada": True, "fotos_registro": photos, "avisos_registro": warnings, "series_registro": args.series}
        )
        extra["dudosas_por"] = "modelo" if reader.flags.model is not None else "producto"
        if args.refuerzo:
            extra["refuerzo"] = strengthen_from_generated_tables(reader, args.baraja, args.refuerzo, args.semilla, size)
    if args.aprender:
        reader, extra["aprendida"] = learn_from_generated_tables(reader, args.baraja, args.aprender, args.semilla, size)
    if args.fotos_registro:
        extra["registro_por_foto"] = registration_photos(reader, args.baraja, args.fotos_registro, args.semilla)
    res = {
        **evaluate(
            reader.load(),
            args.baraja,
            args.escenas,
            args.semilla,
            size=size,
            split=args.particion,
            hand_style=args.estilo,
            kind=args.disposicion,
        ),
        **extra,
    }
    if args.por_disposicion:
        res["por_disposicion"] = by_layout(
            reader, args.baraja, args.por_disposicion, args.semilla, size, args.particion
        )
    elif args.negativas:
        res["fotos_sin_cartas"] = negatives(reader)
    short = {k: v for k, v in res.items() if k not in ("por_carta", "fallos")}
    print(json.dumps(short, indent=1, ensure_ascii=False))
    if args.salida:
        args.salida.parent.mkdir(parents=True, exist_ok=True)
        args.salida.write_text(json.dumps(res, indent=1, ensure_ascii=False))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
