"""Which cards to flag ``dudosa`` when reading against a registered deck: a learned rule.

Against a registered deck the reader flagged a card when detector score x card probability
was under 0.9. The detector scores most true cards 0.82-0.94, so about half of every table was
flagged for the box alone, while the cards read wrong with no flag are sure of their card
(0.996-0.999) but not of their printed rank or suit. A logistic model of "this card is read
wrong" on six numbers of each card separates them better:

- log of the detector's score and of 1 - the card's probability;
- log of the corner index reader's probability of the card's rank and the pinta reader's of
  its suit, and how much more each reader prefers its own best rank or suit (log ratio).

It is fitted on the reading of generated validation tables (registered decks: the designs the
shipped models know, and each design read by models trained on the other one only), and its
threshold is the lowest probability it gives a wrong card of those tables, so that none of
them is left wrong without a warning, lowered by the margin that leaving each case out of the
fit in turn shows a case never seen needs. A card the deck's assignment moved off its first
choice is flagged too, as before.

The model is kept in ``models/carta_dudas.json`` with the hashes of the model files it was
fitted with; a reader whose models differ (retrained, or others swapped in) falls back to the
product threshold, which is safe with any models. Steps (models/README.md (b)):

    python -m vision.dudosas volcar CASO --particion val --escenas 120 --out V.npz   (each case)
    python -m vision.dudosas ajustar V1.npz V2.npz ... --out models/carta_dudas.json
    python -m vision.dudosas volcar CASO --particion eval --escenas 100 --out E.npz
    python -m vision.dudosas medir E1.npz E2.npz ...

``CASO`` is a deck, or ``deck:classifier.onnx:index.onnx:pintas.onnx`` to read it with other
models than the shipped ones. ``volcar --sin-registrar`` dumps the reading without a registered
deck (how the generic reading's product threshold, ``LOW_CONFIDENCE``, was chosen).

    >>> m = ModeloDudas(mean=np.zeros(6), scale=np.ones(6), weights=np.array([0, 1, 0, 0, 0, 0.]),
    ...                 bias=2.3, threshold=0.5)  # wrong when 1 - p(card) is over about 0.1
    >>> X = card_features(np.array([0.9, 0.9]), np.array([0.5, 0.99999]),
    ...                   np.array([[0.9, 0.9], [0.9, 0.9]]), np.array([[0.9, 0.9], [0.9, 0.9]]))
    >>> m.flagged(X).tolist()
    [True, False]
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import sys
import tempfile
from dataclasses import dataclass, replace
from functools import lru_cache
from pathlib import Path

import numpy as np

FLAG_FILE = "carta_dudas.json"
FEATURES = ("log_det", "log_1_menos_prob", "log_p_indice", "log_p_pintas", "ventaja_indice",
            "ventaja_pintas")
_EPS = 1e-6


def card_features(det: np.ndarray, cls: np.ndarray, indice: np.ndarray, pintas: np.ndarray
                  ) -> np.ndarray:
    """(N, 6) features of each card: ``det`` and ``cls`` (N,) the detector's score and the
    card's probability; ``indice`` and ``pintas`` (N, 2) each mark reader's probability of the
    card's rank (suit) and its highest probability of any rank (suit)."""
    det, cls = np.asarray(det, np.float64), np.asarray(cls, np.float64)
    ind, pin = np.asarray(indice, np.float64), np.asarray(pintas, np.float64)
    return np.stack([np.log(det + _EPS), np.log(1 - np.minimum(cls, 1 - _EPS)),
                     np.log(ind[:, 0] + _EPS), np.log(pin[:, 0] + _EPS),
                     np.log(ind[:, 1] + _EPS) - np.log(ind[:, 0] + _EPS),
                     np.log(pin[:, 1] + _EPS) - np.log(pin[:, 0] + _EPS)], 1)


def file_hash(path: Path) -> str:
    return hashlib.sha256(Path(path).read_bytes()).hexdigest()[:16]


def models_hashes(folder: Path) -> dict[str, str]:
    """The hashes of the four ONNX files of a reader's folder (those present)."""
    from vision.reader import CLS_FILE, DET_FILE, INDEX_FILE, PINTA_FILE

    return {n: file_hash(folder / n) for n in (DET_FILE, CLS_FILE, INDEX_FILE, PINTA_FILE)
            if (folder / n).is_file()}


@dataclass(frozen=True)
class ModeloDudas:
    """A logistic model of a card being read wrong, on :func:`card_features`; a card is
    flagged when its probability is at least ``threshold``. ``modelos``: the hashes of the
    model files it was fitted with (empty: not tied to any)."""

    mean: np.ndarray
    scale: np.ndarray
    weights: np.ndarray
    bias: float
    threshold: float
    modelos: dict | None = None
    info: dict | None = None

    def probability(self, X: np.ndarray) -> np.ndarray:
        z = ((np.asarray(X, np.float64) - self.mean) / self.scale) @ self.weights + self.bias
        return 1 / (1 + np.exp(-np.clip(z, -50, 50)))

    def flagged(self, X: np.ndarray) -> np.ndarray:
        return self.probability(X) >= self.threshold

    def applies_to(self, folder: Path) -> bool:
        """Whether ``folder``'s model files are the ones this model was fitted with."""
        return not self.modelos or models_hashes(Path(folder)) == self.modelos

    def to_json(self) -> dict:
        return {"rasgos": list(FEATURES), "media": self.mean.tolist(),
                "escala": self.scale.tolist(), "pesos": self.weights.tolist(),
                "sesgo": self.bias, "umbral": self.threshold, "modelos": self.modelos or {},
                "info": self.info or {}}

    @classmethod
    def from_json(cls, d: dict) -> ModeloDudas:
        if list(d.get("rasgos", [])) != list(FEATURES):
            raise ValueError(f"rasgos desconocidos en el modelo de dudas: {d.get('rasgos')}")
        arrays = [np.asarray(d[k], np.float64) for k in ("media", "escala", "pesos")]
        if any(a.shape != (len(FEATURES),) for a in arrays) or not (arrays[1] > 0).all():
            raise ValueError("modelo de dudas incoherente")
        return cls(*arrays, float(d["sesgo"]), float(d["umbral"]), dict(d.get("modelos", {})),
                   dict(d.get("info", {})))

    def save(self, path: str | os.PathLike[str]) -> Path:
        """Write atomically (a temporary file renamed over the target)."""
        path = Path(path)
        path.parent.mkdir(parents=True, exist_ok=True)
        fd, tmp = tempfile.mkstemp(prefix=".dudas-", suffix=".json", dir=path.parent)
        try:
            with os.fdopen(fd, "w", encoding="utf-8") as fh:
                json.dump(self.to_json(), fh, indent=1, ensure_ascii=False)
            os.chmod(tmp, 0o644)
            os.replace(tmp, path)
        except BaseException:
            Path(tmp).unlink(missing_ok=True)
            raise
        return path


def load(path: str | os.PathLike[str]) -> ModeloDudas:
    try:
        return ModeloDudas.from_json(json.loads(Path(path).read_text(encoding="utf-8")))
    except (OSError, ValueError, KeyError, TypeError) as exc:
        raise ValueError(f"{path}: no es un modelo de dudas legible ({exc})") from exc


@lru_cache(maxsize=4)
def _for_folder(folder: str, mtimes: tuple) -> ModeloDudas | None:
    try:
        model = load(Path(folder) / FLAG_FILE)
    except ValueError:
        return None  # unreadable: the product threshold, which is safe with any models
    return model if model.applies_to(Path(folder)) else None


def for_folder(folder: Path) -> ModeloDudas | None:
    """The folder's flag model if it has one fitted with the folder's own model files."""
    path = Path(folder) / FLAG_FILE
    if not path.is_file():
        return None
    mtimes = tuple(p.stat().st_mtime_ns for p in sorted(Path(folder).glob("*.onnx")))
    return _for_folder(str(folder), (path.stat().st_mtime_ns, *mtimes))


# --------------------------------------------------------------------------- fitting


def fit_logistic(X: np.ndarray, y: np.ndarray, l2: float = 1e-2, steps: int = 3000,
                 lr: float = 0.1) -> tuple[np.ndarray, np.ndarray, np.ndarray, float]:
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


def _must_cover(d: dict) -> np.ndarray:
    """The wrong cards of tables read with seats that nothing else flags: those the model's
    threshold must reach (a table without seats already warns)."""
    return (d["wrong"] > 0) & (d["seated"] > 0) & ~(d["changed"] > 0)


def _fit_once(dumps: list[dict], l2: float) -> ModeloDudas:
    X = np.concatenate([d["X"] for d in dumps])
    y = np.concatenate([d["wrong"] for d in dumps])
    mean, scale, w, b = fit_logistic(X, y, l2)
    model = ModeloDudas(mean, scale, w, b, 1.0)
    lowest = np.concatenate([model.probability(d["X"][_must_cover(d)]) for d in dumps])
    threshold = float(lowest.min()) if len(lowest) else 0.5
    return ModeloDudas(mean, scale, w, b, threshold)


def margin(dumps: list[dict], l2: float = 1e-2) -> float:
    """How far under the fitted threshold a case the fit did not see put its least likely
    wrong card: each dump left out in turn, the smallest ratio of its lowest wrong card's
    probability to the threshold fitted on the others, at most 1."""
    ratios = []
    for k, held in enumerate(dumps):
        must = _must_cover(held)
        if len(dumps) < 2 or not must.any():
            continue
        model = _fit_once(dumps[:k] + dumps[k + 1:], l2)
        ratios.append(float(model.probability(held["X"][must]).min()) / model.threshold)
    return min([1.0, *ratios])


def fit(dumps: list[dict], l2: float = 1e-2) -> ModeloDudas:
    """The model fitted on all the dumps, its threshold the lowest probability of their wrong
    cards that nothing else flags times :func:`margin` (a case never seen may put a wrong
    card lower: leaving each dump out in turn measures how much lower)."""
    model = _fit_once(dumps, l2)
    return replace(model, threshold=model.threshold * margin(dumps, l2))


def table_stats(d: dict, flagged: np.ndarray) -> dict:
    """Cards flagged a table, flagged cards read right a table, and tables read with seats
    that hold a box read wrong (another card, or on no card) with no flag. Stricter than
    vision.evaluate's ``mesas_mal_sin_aviso``, which compares each hand's ids: a box off its
    card that still names a card of that hand is wrong here, not there."""
    tables = d["table"].astype(int)
    ids = np.unique(tables)
    right = d["wrong"] == 0
    silent = sum(1 for t in ids if d["seated"][tables == t][0] > 0
                 and ((~right) & ~flagged)[tables == t].any())
    return {"mesas": len(ids), "dudosas_por_mesa": round(float(flagged.sum() / len(ids)), 2),
            "dudosas_bien_por_mesa": round(float((flagged & right).sum() / len(ids)), 2),
            "mesas_con_caja_mal_sin_aviso": int(silent)}


# --------------------------------------------------------------------------- dumping


def reader_for_case(caso: str):
    """A CardReader for a case: ``deck`` (the shipped models) or ``deck:cls:idx:pintas``."""
    from vision.evaluate import reader_with

    deck, *files = caso.split(":")
    if files and len(files) != 3:
        raise ValueError(f"caso {caso!r}: baraja o baraja:clasificador:indice:pintas")
    return deck, reader_with(None, *files)


def dump(caso: str, split: str, scenes: int, seed: int = 0, registered: bool = True,
         series: int = 1) -> dict:
    """Read ``scenes`` generated tables of the case's deck against its registration (four
    generated photos, as vision.evaluate --registrar, ``series`` sets of them merged; without
    one if not ``registered``) and return, per card read: features, detector x card
    probability, whether it is wrong (another card, or a box on no card), whether the
    assignment moved it off its first choice, its table and whether the table got seats; and
    ``registrada``, whether the deck was registered."""
    from scoring.cards import CARD_IDS
    from vision.dataset import scene_rng
    from vision.evaluate import _match, register_from_generated_photos
    from vision.geometry import quad_to_obb
    from vision.synth import HOLDOUT_BACKGROUNDS, render_scene

    deck, reader = reader_for_case(caso)
    if registered:
        reader.baraja, _, _ = register_from_generated_photos(reader, deck, seed, series=series)
    reader.low_confidence = 0.0  # flags nothing but the cards the assignment moved
    rows: dict[str, list] = {k: [] for k in ("X", "conf", "wrong", "changed", "table", "seated")}
    for i in range(scenes):
        scene = render_scene(scene_rng(seed, split, 10_000 + i), decks=(deck,),
                             backgrounds=HOLDOUT_BACKGROUNDS, size=(1280, 960), kind="mesa")
        dets = reader.read(scene.image)
        if not len(dets) or "indice" not in dets.data or "pintas" not in dets.data:
            raise ValueError(f"{caso}: the reader gives no mark probabilities to fit on")
        gt = np.stack([quad_to_obb(q) for q in scene.corners])
        m = _match(dets.obb, gt, 0.5)
        truth = np.array([CARD_IDS.index(scene.card_ids[j]) if j >= 0 else -1 for j in m])
        read = np.array([CARD_IDS.index(str(c)) for c in dets.card_ids])
        rows["X"].append(card_features(dets.det_confidence, dets.cls_confidence,
                                       dets.data["indice"], dets.data["pintas"]))
        rows["conf"].append(dets.confidence.astype(np.float64))
        rows["wrong"].append((read != truth).astype(np.int8))
        rows["changed"].append(dets.low_confidence.astype(np.int8))
        rows["table"].append(np.full(len(dets), i, np.int32))
        rows["seated"].append(np.full(len(dets), dets.asientos is not None, np.int8))
    return {**{k: np.concatenate(v) for k, v in rows.items()},
            "registrada": np.array(registered)}


def _load_dump(path: Path) -> dict:
    with np.load(path, allow_pickle=False) as f:
        return {k: f[k] for k in f.files}


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(prog="python -m vision.dudosas", description=__doc__,
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = p.add_subparsers(dest="cmd", required=True)
    v = sub.add_parser("volcar", help="read generated tables of a case and keep each card's features")
    v.add_argument("caso")
    v.add_argument("--particion", choices=("val", "eval"), default="val")
    v.add_argument("--escenas", type=int, default=120)
    v.add_argument("--seed", type=int, default=0)
    v.add_argument("--series", type=int, default=1,
                   help="sets of four registration photos merged (mus baraja registrar --añadir)")
    v.add_argument("--sin-registrar", action="store_true",
                   help="read the tables without registering the deck")
    v.add_argument("--out", type=Path, required=True)
    a = sub.add_parser("ajustar", help="fit the flag model on dumps of validation tables")
    a.add_argument("volcados", nargs="+", type=Path)
    a.add_argument("--l2", type=float, default=1e-2)
    a.add_argument("--out", type=Path, required=True)
    m = sub.add_parser("medir", help="flags and silent tables of a model against the product rule")
    m.add_argument("volcados", nargs="+", type=Path)
    m.add_argument("--modelo", type=Path, default=None,
                   help=f"flag model (default: models/{FLAG_FILE})")
    args = p.parse_args(argv)
    if args.cmd == "volcar":
        d = dump(args.caso, args.particion, args.escenas, args.seed, not args.sin_registrar,
                 args.series)
        args.out.parent.mkdir(parents=True, exist_ok=True)
        np.savez_compressed(args.out, **d)
        print(f"{args.out}: {len(d['wrong'])} cartas, {int(d['wrong'].sum())} mal leídas")
        return 0
    if args.cmd == "ajustar":
        from vision.reader import models_dir

        model = fit([_load_dump(f) for f in args.volcados], args.l2)
        model = ModeloDudas(model.mean, model.scale, model.weights, model.bias, model.threshold,
                            models_hashes(models_dir()),
                            {"volcados": [f.name for f in args.volcados], "l2": args.l2})
        model.save(args.out)
        print(json.dumps(model.to_json(), indent=1))
        return 0
    from vision.reader import LOW_CONFIDENCE, LOW_CONFIDENCE_REGISTERED, models_dir

    model = load(args.modelo or models_dir() / FLAG_FILE)
    out = {}
    for f in args.volcados:
        d = _load_dump(f)
        changed = d["changed"] > 0
        # dumps written before the flag was kept were all registered
        product = LOW_CONFIDENCE_REGISTERED if bool(d.get("registrada", True)) else LOW_CONFIDENCE
        out[f.name] = {"modelo": table_stats(d, model.flagged(d["X"]) | changed),
                       "producto": table_stats(d, (d["conf"] < product) | changed)}
    json.dump(out, sys.stdout, indent=1)
    print()
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
