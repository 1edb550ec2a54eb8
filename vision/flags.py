"""Stage 5 of reading a photo: which cards to flag ``dudosa``, for the user to confirm.

Two rules:

- the product rule: detector score x card probability under a threshold (LOW_CONFIDENCE;
  LOW_CONFIDENCE_REGISTERED against a registered deck, whose similarities are sharp even when
  wrong). A card the assignment moved off its first choice is flagged too, and on a table of a
  deck the classifier does not know (:func:`vision.assemble.unfamiliar`) every card is.
- against a registered deck, where the folder has one fitted with its own model files, a
  learned flag model (``carta_dudas.json``): a logistic model of "this card is read wrong" on
  six numbers of each card (:func:`card_features`): the log of the detector's score and of
  1 - the card's probability, the log of the corner-index reader's probability of the card's
  rank and the pinta reader's of its suit, and how much more each reader prefers its own best
  rank or suit. Its threshold is the lowest probability it gives a wrong card of its validation
  tables, lowered by a leave-one-case-out margin (:mod:`training.cards.flag_model` fits it).
  A reader whose models differ from those it was fitted with falls back to the product rule,
  which is safe with any models.

    >>> m = FlagModel(mean=np.zeros(6), scale=np.ones(6), weights=np.array([0, 1, 0, 0, 0, 0.]),
    ...               bias=2.3, threshold=0.5)  # wrong when 1 - p(card) is over about 0.1
    >>> X = card_features(np.array([0.9, 0.9]), np.array([0.5, 0.99999]),
    ...                   np.array([[0.9, 0.9], [0.9, 0.9]]), np.array([[0.9, 0.9], [0.9, 0.9]]))
    >>> m.flagged(X).tolist()
    [True, False]
"""

from __future__ import annotations

import json
import os
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path
from typing import Any

import numpy as np

from common.files import write_atomic
from vision.arrays import Floats, Mask
from vision.models import FLAG_MODEL_FILE, models_hashes

# the names as written in carta_dudas.json (its "rasgos")
FEATURES = ("log_det", "log_1_menos_prob", "log_p_indice", "log_p_pintas", "ventaja_indice", "ventaja_pintas")
_EPS = 1e-6


def card_features(det: Floats, cls: Floats, corner_index: Floats, pintas: Floats) -> Floats:
    """(N, 6) features of each card: ``det`` and ``cls`` (N,) the detector's score and the
    card's probability; ``corner_index`` and ``pintas`` (N, 2) each mark reader's probability of the
    card's rank (suit) and its highest probability of any rank (suit)."""
    det, cls = np.asarray(det, np.float64), np.asarray(cls, np.float64)
    ind, pin = np.asarray(corner_index, np.float64), np.asarray(pintas, np.float64)
    return np.stack(
        [
            np.log(det + _EPS),
            np.log(1 - np.minimum(cls, 1 - _EPS)),
            np.log(ind[:, 0] + _EPS),
            np.log(pin[:, 0] + _EPS),
            np.log(ind[:, 1] + _EPS) - np.log(ind[:, 0] + _EPS),
            np.log(pin[:, 1] + _EPS) - np.log(pin[:, 0] + _EPS),
        ],
        1,
    )


@dataclass(frozen=True)
class FlagModel:
    """A logistic model of a card being read wrong, on :func:`card_features`; a card is
    flagged when its probability is at least ``threshold``. ``models``: the hashes of the
    model files it was fitted with (empty: not tied to any)."""

    mean: Floats
    scale: Floats
    weights: Floats
    bias: float
    threshold: float
    models: dict[str, str] | None = None  # file name -> hash
    info: dict[str, Any] | None = None

    def probability(self, X: Floats) -> Floats:
        z = ((np.asarray(X, np.float64) - self.mean) / self.scale) @ self.weights + self.bias
        p: Floats = 1 / (1 + np.exp(-np.clip(z, -50, 50)))
        return p

    def flagged(self, X: Floats) -> Mask:
        return self.probability(X) >= self.threshold

    def applies_to(self, folder: Path) -> bool:
        """Whether ``folder``'s model files are the ones this model was fitted with."""
        return not self.models or models_hashes(Path(folder)) == self.models

    def to_json(self) -> dict[str, Any]:
        return {
            "rasgos": list(FEATURES),
            "media": self.mean.tolist(),
            "escala": self.scale.tolist(),
            "pesos": self.weights.tolist(),
            "sesgo": self.bias,
            "umbral": self.threshold,
            "modelos": self.models or {},
            "info": self.info or {},
        }

    @classmethod
    def from_json(cls, d: dict[str, Any]) -> FlagModel:
        if list(d.get("rasgos", [])) != list(FEATURES):
            raise ValueError(f"rasgos desconocidos en el modelo de dudas: {d.get('rasgos')}")
        mean, scale, weights = (np.asarray(d[k], np.float64) for k in ("media", "escala", "pesos"))
        if any(a.shape != (len(FEATURES),) for a in (mean, scale, weights)) or not (scale > 0).all():
            raise ValueError("modelo de dudas incoherente")
        models = {str(k): str(v) for k, v in dict(d.get("modelos", {})).items()}
        return cls(mean, scale, weights, float(d["sesgo"]), float(d["umbral"]), models, dict(d.get("info", {})))

    def save(self, path: str | os.PathLike[str]) -> Path:
        """Write atomically (a temporary file renamed over the target)."""
        path = Path(path)
        path.parent.mkdir(parents=True, exist_ok=True)
        write_atomic(path, json.dumps(self.to_json(), indent=1, ensure_ascii=False))
        return path


def load(path: str | os.PathLike[str]) -> FlagModel:
    try:
        return FlagModel.from_json(json.loads(Path(path).read_text(encoding="utf-8")))
    except (OSError, ValueError, KeyError, TypeError) as exc:
        raise ValueError(f"{path}: no es un modelo de dudas legible ({exc})") from exc


@lru_cache(maxsize=4)
def _for_folder(folder: str, mtimes: tuple[int, ...]) -> FlagModel | None:
    try:
        model = load(Path(folder) / FLAG_MODEL_FILE)
    except ValueError:
        return None  # unreadable: the product threshold, which is safe with any models
    return model if model.applies_to(Path(folder)) else None


def for_folder(folder: Path) -> FlagModel | None:
    """The folder's flag model if it has one fitted with the folder's own model files."""
    path = Path(folder) / FLAG_MODEL_FILE
    if not path.is_file():
        return None
    mtimes = tuple(p.stat().st_mtime_ns for p in sorted(Path(folder).glob("*.onnx")))
    return _for_folder(str(folder), (path.stat().st_mtime_ns, *mtimes))


# Below this (detector x card probability) a card is flagged: 0.82, the lowest that flags
# every wrong card of 480 validation tables of the known designs, leaves none of 400 evaluation
# tables wrong without a warning, at 2.5-2.9 flags a table.
LOW_CONFIDENCE = 0.82
# Against a registered deck without a flag model: 0.8 left 17 % of an unseen design's
# validation tables wrong without a warning, 0.9 none, at 10.6 flags a table instead of 5.8.
LOW_CONFIDENCE_REGISTERED = 0.9


@dataclass(frozen=True)
class FlagRule:
    """How a reader flags: the learned ``model`` where there is one (and both mark readers'
    data), else detector x card probability under ``threshold``."""

    threshold: float
    model: FlagModel | None = None

    def flagged(self, det_scores: Floats, cls_conf: Floats, data: dict[str, Floats]) -> Mask:
        if self.model is not None and {"corner_index", "pintas"} <= data.keys():
            return self.model.flagged(card_features(det_scores, cls_conf, data["corner_index"], data["pintas"]))
        low: Mask = det_scores * cls_conf < self.threshold
        return low


def flag_rule(
    folder: Path, registered: bool, threshold: float | None = None, use_model: bool | FlagModel = True
) -> FlagRule:
    """The rule of a reader of ``folder``'s models: ``threshold`` if given (then the product
    rule), else the product rule's default threshold; against a registered deck (``registered``)
    the learned model given as ``use_model``, or with True the folder's if it applies."""
    if threshold is not None:
        return FlagRule(threshold)
    default = LOW_CONFIDENCE_REGISTERED if registered else LOW_CONFIDENCE
    if not registered or use_model is False:
        return FlagRule(default)
    model = for_folder(folder) if use_model is True else use_model
    return FlagRule(default, model)
