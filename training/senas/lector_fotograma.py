"""A learned per-frame reading of the whole face: the measurements with the person's neutral
subtracted, weighed by a small multinomial logistic regression into one probability per class
(:data:`CLASES`: no seña, a blink, another expression, each face seña).

It is fitted by ``python -m training.senas.fotograma`` (scikit-learn, people held out) and
exported as plain JSON (means, scales, weights, intercepts); this module reads that file with
numpy only, so the runtime never needs the training stack. Held out on the shared real clips it
did not beat the hand rules, as the rules' veto, as an OR or as an expression gate
(docs/experiments.md), so the recognizer does not use it and no model file ships: the reader
lives here, beside its training, until a refit wins; then it moves into gestures/ with its file.
"""

from __future__ import annotations

import json
import math
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any, Final

import numpy as np

from gestures.features import Features
from gestures.scorer import Baseline

FORMATO: Final = 1
# What the model tells apart, per frame: no seña (talking, looking around), a natural blink,
# another expression (grin, laugh, cry, grimace, surprise), and each face seña of the labels.
CLASES: Final[tuple[str, ...]] = (
    "neutro",
    "parpadeo",
    "otro",
    "labio_mordido",
    "lengua_fuera",
    "labios_lado",
    "cejas_arriba",
    "morro",
    "guino",
    "ojos_cerrados",
)
# The measurements it reads, each as a change from the person's neutral face (gestures.features
# names them; a blendshape or a geometric measure). Pixel sizes and shoulders are left out: they
# depend on the camera, not on the face.
RASGOS: Final[tuple[str, ...]] = (
    "browInnerUp",
    "browOuterUpLeft",
    "browOuterUpRight",
    "brow_h",
    "cheekSquintLeft",
    "cheekSquintRight",
    "corner_a_x",
    "corner_b_x",
    "ear_a",
    "ear_b",
    "eyeBlinkLeft",
    "eyeBlinkRight",
    "eyeSquintLeft",
    "eyeSquintRight",
    "eyeWideLeft",
    "eyeWideRight",
    "jawOpen",
    "lip_gap",
    "lip_gap_max",
    "lip_push",
    "lips_x",
    "lower_lip",
    "lower_lip_red",
    "lower_lip_teeth",
    "mouthFrownLeft",
    "mouthFrownRight",
    "mouthFunnel",
    "mouthLeft",
    "mouthPressLeft",
    "mouthPressRight",
    "mouthPucker",
    "mouthRight",
    "mouthRollLower",
    "mouthRollUpper",
    "mouthShrugLower",
    "mouthSmileLeft",
    "mouthSmileRight",
    "mouthStretchLeft",
    "mouthStretchRight",
    "mouth_w",
    "mouth_y",
    "noseSneerLeft",
    "noseSneerRight",
    "pitch",
    "red_total",
    "roll",
    "tongue_area",
    "tongue_dx",
    "tongue_dy",
    "tongue_fill",
    "tongue_out",
    "upper_lip",
    "yaw",
)
# Side-free pairs added to the changes: how different the two eyes (and lips' corners) are, as a
# wink is one eye whichever it is.
ASIMETRIAS: Final[tuple[tuple[str, str], ...]] = (
    ("ear_a", "ear_b"),
    ("eyeBlinkLeft", "eyeBlinkRight"),
    ("eyeSquintLeft", "eyeSquintRight"),
    ("mouthSmileLeft", "mouthSmileRight"),
    ("mouthLeft", "mouthRight"),
)
ENTRADAS: Final[tuple[str, ...]] = (*RASGOS, *(f"|{a}-{b}|" for a, b in ASIMETRIAS))
LIMITE: Final = 5.0  # a change clipped to this (head turns are in degrees: /25 below)
_ESCALA_GRADOS: Final = {"yaw": 25.0, "pitch": 25.0, "roll": 25.0}


class FotogramaError(ValueError):
    """The model file cannot be used (other inputs, damaged); one Spanish line."""


def entradas(feats: Features, base: Baseline) -> np.ndarray:
    """One frame's inputs: each measurement's change from the neutral (0 where it is missing),
    then the asymmetries of those changes."""
    d = {}
    for k in RASGOS:
        v = feats.get(k)
        change = 0.0 if v is None or not math.isfinite(v) else (v - base.get(k)) / _ESCALA_GRADOS.get(k, 1.0)
        d[k] = min(max(change, -LIMITE), LIMITE)
    row = [d[k] for k in RASGOS] + [abs(d[a] - d[b]) for a, b in ASIMETRIAS]
    return np.asarray(row, np.float64)


class ModeloFotograma:
    """``p = softmax(((x - media) / escala) @ pesos.T + sesgos)`` over :data:`CLASES`."""

    def __init__(
        self,
        media: Sequence[float] | np.ndarray,
        escala: Sequence[float] | np.ndarray,
        pesos: Sequence[Sequence[float]] | np.ndarray,
        sesgos: Sequence[float] | np.ndarray,
    ) -> None:
        self.media = np.asarray(media, np.float64)
        self.escala = np.asarray(escala, np.float64)
        self.pesos = np.asarray(pesos, np.float64)
        self.sesgos = np.asarray(sesgos, np.float64)
        n, k = len(ENTRADAS), len(CLASES)
        if self.media.shape != (n,) or self.escala.shape != (n,) or self.pesos.shape != (k, n):
            raise FotogramaError(f"modelo por fotograma: se esperan {n} entradas y {k} clases")
        if self.sesgos.shape != (k,) or not np.all(np.isfinite(self.pesos)) or np.any(self.escala <= 0):
            raise FotogramaError("modelo por fotograma: sesgos, pesos o escalas no válidos")

    def probabilidades(self, x: np.ndarray) -> np.ndarray:
        """(..., len(CLASES)) probabilities of inputs (..., len(ENTRADAS))."""
        z = ((np.asarray(x, np.float64) - self.media) / self.escala) @ self.pesos.T + self.sesgos
        z = z - z.max(axis=-1, keepdims=True)
        e = np.exp(z)
        return np.asarray(e / e.sum(axis=-1, keepdims=True))

    def to_dict(self) -> dict[str, Any]:
        return {
            "formato": FORMATO,
            "clases": list(CLASES),
            "entradas": list(ENTRADAS),
            "media": self.media.tolist(),
            "escala": self.escala.tolist(),
            "pesos": self.pesos.tolist(),
            "sesgos": self.sesgos.tolist(),
        }


def desde_dict(doc: Mapping[str, Any] | object, where: str = "modelo por fotograma") -> ModeloFotograma:
    """The model of an exported document; :class:`FotogramaError` when it is for other inputs."""
    if not isinstance(doc, dict):
        raise FotogramaError(f"{where}: se espera un objeto JSON")
    if doc.get("formato") != FORMATO or doc.get("clases") != list(CLASES) or doc.get("entradas") != list(ENTRADAS):
        raise FotogramaError(f"{where}: hecho para otras entradas o clases; vuelve a ajustarlo")
    try:
        return ModeloFotograma(doc["media"], doc["escala"], doc["pesos"], doc["sesgos"])
    except (KeyError, TypeError, ValueError) as exc:
        if isinstance(exc, FotogramaError):
            raise
        raise FotogramaError(f"{where}: mal formado ({type(exc).__name__})") from None


def cargar(path: Path) -> ModeloFotograma:
    """Read an exported model file (numpy only)."""
    try:
        doc = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise FotogramaError(f"{path.name}: no se puede leer ({type(exc).__name__})") from None
    return desde_dict(doc, path.name)
