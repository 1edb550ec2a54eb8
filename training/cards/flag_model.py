"""Fit and measure the learned flag model (``models/carta_dudas.json``, :mod:`vision.flags`).

Against a registered deck the detector scores most true cards 0.82-0.94, so a product rule
(detector x card probability under 0.9) flags about half of every table for the box alone,
while the cards read wrong without a flag are sure of their card (0.996-0.999) but not of
their printed rank or suit. A logistic model of "this card is read wrong" on the six numbers
of :func:`vision.flags.card_features` separates them better.

It is fitted on the reading of generated validation tables (registered decks: the designs the
shipped models know, and each design read by models trained on the other one only), and its
threshold is the lowest probability it gives a card of those tables that makes its hand wrong
(:func:`wrong_in_hand`), so that none of them is left wrong without a warning, lowered by the
margin that leaving each case out of the fit in turn shows a case never seen needs
(:func:`fit`). The model is saved with the hashes of
the model files it was fitted with; a reader whose models differ falls back to the product
rule. Steps::

    python -m training.cards.flag_model volcar CASO --particion val --escenas 120 --salida V.npz   (each case)
    python -m training.cards.flag_model ajustar V1.npz V2.npz ... --salida models/carta_dudas.json
    python -m training.cards.flag_model volcar CASO --particion eval --escenas 100 --salida E.npz
    python -m training.cards.flag_model medir E1.npz E2.npz ...

``volcar --tipo mano`` dumps close-ups of one hand, whose wrong cards count as a seated
table's. ``CASO`` is a deck, or ``deck:classifier.onnx:index.onnx:pintas.onnx`` to read it with
other models than the shipped ones. ``volcar --sin-registrar`` dumps the reading without a
registered deck (what the generic product threshold, :data:`vision.flags.LOW_CONFIDENCE`, is chosen on).
``medir --umbrales 0.05 0.1`` measures the model at other thresholds too (what fewer flags
would cost in tables wrong without a warning). A dump keeps each card's share in view, and
``medir`` counts apart the right cards flagged among cards at least :data:`IN_VIEW` in view.
"""

from __future__ import annotations

import argparse
import json
import sys
from dataclasses import replace
from pathlib import Path

import numpy as np

from scoring.cards import CARD_IDS
from training.cards.dataset import scene_rng
from training.cards.evaluate import match_boxes, reader_with, register_from_generated_photos
from training.cards.synth import HOLDOUT_BACKGROUNDS, Scene, render_scene, visible_fraction
from vision.detections import CardDetections
from vision.flags import LOW_CONFIDENCE, LOW_CONFIDENCE_REGISTERED, FlagModel, card_features, load
from vision.geometry import quad_to_obb
from vision.models import FLAG_MODEL_FILE, models_dir, models_hashes
from vision.pips import pip_counts
from vision.reader import CardReader, ReaderSettings

# A card this share in view or more (not covered by cards laid on it) counts as in view in
# :func:`table_stats`: under it, a card's rank may hang on pips or an index another card hides.
IN_VIEW = 0.7

# --------------------------------------------------------------------------- fitting


def fit_logistic(
    X: np.ndarray, y: np.ndarray, l2: float = 1e-2, steps: int = 3000, lr: float = 0.1
) -> tuple[np.ndarray, np.ndarray, np.ndarray, float]:
    """Mean, scale, weights and bias of an L2-regularised logistic regression, fitted by
    full-batch gradient descent on standardised features (deterministic)."""
    X, y = np.asarray(X, np.float64), np.asarray(y, np.float64)
    mean, scale = X.mean(0), X.std(0) + 1e-9
    Z = np.c_[(X - mean) / scale, np.ones(len(X))]
    w = np.zeros(Z.shape[1])
    for _ in range(steps):
        p = 1 / (1 + np.exp(-Z @ w))
        g = Z.T @ (p - y) / len(y)
        g[:-1] += l2 * w[:-1]
        w -= lr * g
    return mean, scale, w[:-1], float(w[-1])


def _one_hand(d: dict) -> bool:
    """Whether a dump holds close-ups of one hand (each photo is one seat's)."""
    return str(d.get("tipo", "mesa")) == "mano"


def _must_cover(d: dict) -> np.ndarray:
    """The wrong cards of tables read with seats, or of close-ups of one hand (one seat's
    photo), that nothing else flags: those the model's threshold must reach (a table without
    seats already warns)."""
    return (_wrong(d) > 0) & ((d["seated"] > 0) | _one_hand(d)) & ~(d["changed"] > 0)


def fit_once(dumps: list[dict], l2: float = 1e-2) -> FlagModel:
    """The model fitted on ``dumps``, its threshold the lowest probability it gives a wrong
    card that nothing else flags (no margin)."""
    X = np.concatenate([d["X"] for d in dumps])
    y = np.concatenate([_wrong(d) for d in dumps])
    mean, scale, w, b = fit_logistic(X, y, l2)
    model = FlagModel(mean, scale, w, b, 1.0)
    lowest = np.concatenate([model.probability(d["X"][_must_cover(d)]) for d in dumps])
    threshold = float(lowest.min()) if len(lowest) else 0.5
    return FlagModel(mean, scale, w, b, threshold)


def margin(dumps: list[dict], l2: float = 1e-2) -> float:
    """How far under the fitted threshold a case the fit did not see put its least likely
    wrong card: each dump left out in turn, the smallest ratio of its lowest wrong card's
    probability to the threshold fitted on the others, at most 1."""
    ratios = []
    for k, held in enumerate(dumps):
        must = _must_cover(held)
        if len(dumps) < 2 or not must.any():
            continue
        model = fit_once(dumps[:k] + dumps[k + 1 :], l2)
        ratios.append(float(model.probability(held["X"][must]).min()) / model.threshold)
    return min([1.0, *ratios])


def fit(dumps: list[dict], l2: float = 1e-2) -> FlagModel:
    """The model fitted on all the dumps, its threshold the lowest probability of their wrong
    cards that nothing else flags times :func:`margin` (a case never seen may put a wrong
    card lower: leaving each dump out in turn measures how much lower)."""
    model = fit_once(dumps, l2)
    return replace(model, threshold=model.threshold * margin(dumps, l2))


def table_stats(d: dict, flagged: np.ndarray) -> dict:
    """Cards flagged a table, flagged cards read right a table, and tables read with seats
    that hold a card making its hand wrong (:func:`wrong_in_hand`) with no flag: as
    :mod:`training.cards.evaluate`'s ``mesas_mal_sin_aviso``, which compares each hand's ids,
    and stricter on a card boxed twice. A close-up of one hand counts as a table read with its
    seat."""
    tables = d["table"].astype(int)
    ids = np.unique(tables)
    right = _wrong(d) == 0
    one_hand = _one_hand(d)
    silent = sum(
        1 for t in ids if (one_hand or d["seated"][tables == t][0] > 0) and ((~right) & ~flagged)[tables == t].any()
    )
    out = {
        "mesas": len(ids),
        "dudosas_por_mesa": round(float(flagged.sum() / len(ids)), 2),
        "dudosas_bien_por_mesa": round(float((flagged & right).sum() / len(ids)), 2),
        "mesas_mal_sin_aviso": int(silent),
    }
    if "visible" in d:  # dumps written before it was kept have no shares in view
        out["dudosas_bien_a_la_vista_por_mesa"] = round(
            float((flagged & right & (d["visible"] >= IN_VIEW)).sum() / len(ids)), 2
        )
    return out


# --------------------------------------------------------------------------- dumping


def reader_for_case(case: str, settings: ReaderSettings | None = None) -> tuple[str, CardReader]:
    """The deck and a reader of a case: ``deck`` (the shipped models) or
    ``deck:classifier:index:pintas`` (those ONNX files instead)."""
    deck, *files = case.split(":")
    if files and len(files) != 3:
        raise ValueError(f"caso {case!r}: baraja o baraja:clasificador:indice:pintas")
    classifier, corner_index, pintas = files or (None, None, None)
    return deck, reader_with(None, classifier=classifier, corner_index=corner_index, pintas=pintas, settings=settings)


def dump(
    case: str, split: str, scenes: int, seed: int = 0, registered: bool = True, series: int = 1, kind: str = "mesa"
) -> dict:
    """Read ``scenes`` generated photos of the case's deck (``kind`` "mesa", tables of 16, or
    "mano", close-ups of one hand) against its registration (four generated photos, as
    ``training.cards.evaluate --registrar``, ``series`` sets of them merged; without one if not
    ``registered``) and return, per card read: features, detector x card probability, whether
    it is wrong (another card, or a box on no card), whether it makes its hand wrong
    (:func:`wrong_in_hand`, what the model learns and its threshold must reach), whether the
    assignment moved it off its first choice, its photo ("table"), whether the photo got seats,
    the card read (its index in CARD_IDS), its pips counted (:mod:`vision.pips`, 0 where
    unsure), its box and the share in view of the card under it (-1 for a box on none); and
    ``registrada`` (whether the deck was registered), ``baraja`` and ``tipo``."""
    # a threshold of 0 flags nothing but the cards the assignment moved
    deck, reader = reader_for_case(case, ReaderSettings(low_confidence=0.0))
    if registered:
        registration, _, _ = register_from_generated_photos(reader, deck, seed, series=series)
        reader = CardReader(reader.folder, reader.settings, deck=registration)
    keys = ("X", "conf", "wrong", "wrong_in_hand", "changed", "table", "seated", "read", "pips", "obb", "visible")
    rows: dict[str, list] = {k: [] for k in keys}
    for i in range(scenes):
        scene = render_scene(
            scene_rng(seed, split, 10_000 + i),
            decks=(deck,),
            backgrounds=HOLDOUT_BACKGROUNDS,
            size=(1280, 960),
            kind=kind,
        )
        dets = reader.read(scene.image)
        if not len(dets):
            continue  # read as no cards: nothing to flag, and the player is told
        if not {"corner_index", "pintas"} <= dets.data.keys():
            raise ValueError(f"{case}: the reader gives no mark probabilities to fit on")
        gt = np.stack([quad_to_obb(q) for q in scene.corners])
        m = match_boxes(dets.obb, gt, 0.5)
        truth = np.array([CARD_IDS.index(scene.card_ids[j]) if j >= 0 else -1 for j in m])
        read = np.array([CARD_IDS.index(str(c)) for c in dets.card_ids])
        rows["X"].append(
            card_features(dets.det_confidence, dets.cls_confidence, dets.data["corner_index"], dets.data["pintas"])
        )
        rows["conf"].append(dets.confidence.astype(np.float64))
        rows["wrong"].append((read != truth).astype(np.int8))
        rows["wrong_in_hand"].append(wrong_in_hand(dets, scene, kind).astype(np.int8))
        rows["read"].append(read.astype(np.int16))
        rows["pips"].append(pip_counts(scene.image, dets.obb).astype(np.int8))
        rows["obb"].append(dets.obb.astype(np.float32))
        in_view = visible_fraction(scene)
        rows["visible"].append(np.array([in_view[j] if j >= 0 else -1.0 for j in m], np.float32))
        rows["changed"].append(dets.low_confidence.astype(np.int8))
        rows["table"].append(np.full(len(dets), i, np.int32))
        rows["seated"].append(np.full(len(dets), dets.hands is not None, np.int8))
    return {
        **{k: np.concatenate(v) for k, v in rows.items()},
        "registrada": np.array(registered),
        "baraja": np.array(deck),
        "tipo": np.array(kind),
    }


def wrong_in_hand(dets: CardDetections, scene: Scene, kind: str) -> np.ndarray:
    """(N,) which cards read make their hand wrong, as the player sees it: a card not in the
    true hand of the seat it was given (of the photo, for a close-up of one hand), or a second
    box of the same card in that hand (the surer one counts as the card). On a table read
    without seats, where the player is warned anyway, a box on another card or on none (the
    dump's ``wrong``). A box a little off its card that names it is right here."""
    if kind != "mano" and dets.hands is None:
        gt = np.stack([quad_to_obb(q) for q in scene.corners])
        m = match_boxes(dets.obb, gt, 0.5)
        return np.array([j < 0 or str(c) != scene.card_ids[j] for c, j in zip(dets.card_ids, m, strict=True)], bool)
    seats = np.zeros(len(dets), int) if kind == "mano" else np.asarray(dets.seat, int)
    truth = np.zeros(len(scene.card_ids), int) if kind == "mano" else np.asarray(scene.seats, int)
    wrong = np.zeros(len(dets), bool)
    for seat in np.unique(seats):
        hand = {c for c, s in zip(scene.card_ids, truth, strict=True) if s == seat}
        rows = np.flatnonzero(seats == seat)
        for card in {str(dets.card_ids[k]) for k in rows}:
            same = rows[[str(dets.card_ids[k]) == card for k in rows]]
            if card not in hand:
                wrong[same] = True
            else:  # one of them is the card, the others are boxes too many
                wrong[same[np.argsort(-dets.confidence[same])[1:]]] = True
    return wrong


def _wrong(d: dict) -> np.ndarray:
    """The cards of a dump that make their hand wrong (dumps written before that was kept: any
    box on another card or none)."""
    return d["wrong_in_hand"] if "wrong_in_hand" in d else d["wrong"]


def load_dump(path: Path) -> dict:
    with np.load(path, allow_pickle=False) as f:
        return {k: f[k] for k in f.files}


def measure(model: FlagModel, d: dict, thresholds: tuple[float, ...] = ()) -> dict:
    """:func:`table_stats` of a dump flagged by ``model``, by the product rule (the one for
    a registered deck or not, as the dump says; a dump without ``registrada`` is registered)
    and by ``model`` at each of ``thresholds`` instead of its own."""
    changed = d["changed"] > 0
    product = LOW_CONFIDENCE_REGISTERED if bool(d.get("registrada", True)) else LOW_CONFIDENCE
    out = {
        "modelo": table_stats(d, model.flagged(d["X"]) | changed),
        "producto": table_stats(d, (d["conf"] < product) | changed),
    }
    for t in thresholds:
        out[f"modelo_umbral_{t:g}"] = table_stats(d, (model.probability(d["X"]) >= t) | changed)
    return out


def parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(
        prog="python -m training.cards.flag_model",
        description=__doc__,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    sub = p.add_subparsers(dest="cmd", required=True)
    v = sub.add_parser("volcar", help="read generated tables of a case and keep each card's features")
    v.add_argument("caso")
    v.add_argument("--particion", choices=("val", "eval"), default="val")
    v.add_argument("--escenas", type=int, default=120)
    v.add_argument("--semilla", type=int, default=0)
    v.add_argument(
        "--series", type=int, default=1, help="sets of four registration photos merged (mus baraja registrar --añadir)"
    )
    v.add_argument("--sin-registrar", action="store_true", help="read the tables without registering the deck")
    v.add_argument("--tipo", choices=("mesa", "mano"), default="mesa", help="tables of 16 or close-ups of one hand")
    v.add_argument("--salida", type=Path, required=True)
    a = sub.add_parser("ajustar", help="fit the flag model on dumps of validation tables")
    a.add_argument("volcados", nargs="+", type=Path)
    a.add_argument("--l2", type=float, default=1e-2)
    a.add_argument("--salida", type=Path, required=True)
    m = sub.add_parser("medir", help="flags and silent tables of a model against the product rule")
    m.add_argument("volcados", nargs="+", type=Path)
    m.add_argument("--modelo", type=Path, default=None, help=f"flag model (default: models/{FLAG_MODEL_FILE})")
    m.add_argument("--umbrales", type=float, nargs="*", default=[], help="the model measured at these thresholds too")
    return p


def main(argv: list[str] | None = None) -> int:
    args = parser().parse_args(argv)
    if args.cmd == "volcar":
        d = dump(args.caso, args.particion, args.escenas, args.semilla, not args.sin_registrar, args.series, args.tipo)
        args.salida.parent.mkdir(parents=True, exist_ok=True)
        np.savez_compressed(args.salida, **d)
        print(f"{args.salida}: {len(d['wrong'])} cartas, {int(d['wrong'].sum())} mal leídas")
        return 0
    if args.cmd == "ajustar":
        model = fit([load_dump(f) for f in args.volcados], args.l2)
        model = replace(
            model, models=models_hashes(models_dir()), info={"volcados": [f.name for f in args.volcados], "l2": args.l2}
        )
        model.save(args.salida)
        print(json.dumps(model.to_json(), indent=1))
        return 0
    model = load(args.modelo or models_dir() / FLAG_MODEL_FILE)
    thresholds = tuple(args.umbrales)
    json.dump({f.name: measure(model, load_dump(f), thresholds) for f in args.volcados}, sys.stdout, indent=1)
    print()
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
