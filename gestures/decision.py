"""The learned decision: each gesture's rule score weighed again with its context by a small
logistic regression fitted on labelled real clips.

The hand rules (:mod:`gestures.scorer`, :class:`gestures.scorer.Umbrales`) give each gesture a
score per frame. For the gestures the fit chose (none today: held out the model beats the rules
for no gesture; docs/senas.md), the score the event detector sees is instead the probability
that the gesture is being made, from that score and what surrounds it:

    p = sigmoid(sesgo[gesto] + sum_i peso_i * (x_i - media_i) / escala_i)

over the inputs :data:`ENTRADAS` (how fast the score rose, how long it has been held, talking,
a blink, a grin, a dropped jaw, the head turned, how different the two eyes are...). ``p`` is
0 wherever the rules see no cue at all (their gates stay hard: a head turned away, a blink),
and it goes through the same hysteresis and minimum durations as the rules' scores
(:data:`gestures.events.TIEMPOS`).

The weights are fitted by ``python -m training.senas.decision`` (scikit-learn, people held
out) and shipped in ``decision.json`` beside this module; this module reads them with numpy
only. The file carries :data:`FORMATO` and a signature of the input list: a file made for
other inputs is refused with one clear line, never used. docs/senas.md says what each input
measures and what the shipped model weighs.
"""

from __future__ import annotations

import hashlib
import json
import math
from collections import deque
from collections.abc import Mapping, Sequence
from dataclasses import replace
from functools import lru_cache
from pathlib import Path
from typing import Any, Final

import numpy as np

from gestures.context import SPEECH_FAKES, Veda
from gestures.events import Tiempos
from gestures.features import Features
from gestures.scorer import MOUTH, Baseline, Scorer
from gestures.types import GESTOS

FORMATO: Final = 1
RUTA: Final = Path(__file__).with_name("decision.json")

# One row per gesture, one column per input. Rises are changes from the neutral face.
ENTRADAS: Final[tuple[str, ...]] = (
    "regla",  # the rules' score of this gesture (after the talking hush and the blink veto)
    "subida",  # its rise over the last SUBIDA_S seconds: a seña comes on fast, then holds
    "sostenida",  # its mean over the last SOSTENIDA_S seconds: held, not a flicker
    "previa",  # its highest value PREVIA_S to SOSTENIDA_S seconds ago: speech repeats shapes
    "hablando",  # how much the mouth is talking (gestures.context.MouthActivity), 0..1
    "parpadeo",  # inside a blink or the lids settling after it (gestures.context.Veda.ojos)
    "tras_parpadeo",  # up to 0.4 s after a blink (Veda.cejas)
    "sonrisa",  # smile rise (mouthSmile, the larger side)
    "mandibula",  # jawOpen rise
    "mueca",  # noseSneer or mouthStretch rise
    "ojos_abiertos",  # eyeWide rise (surprise)
    "giro",  # head yaw or pitch away from neutral, in 25 degrees
    "labios_abiertos",  # lip gap rise, in tenths of the eye distance
    "guino_asimetria",  # how different the two eyes' closures are (for the wink)
    "cerrados_asimetria",  # the same, for closed eyes (a wink is not both eyes)
)
# An input counts only for the gestures it can fake or tell apart; 0 on the other rows.
_MOUTH: Final = frozenset(MOUTH)
SOLO_EN: Final[dict[str, frozenset[str]]] = {
    "hablando": frozenset(SPEECH_FAKES),  # speech fakes mouth and brow señas, not eyes or shoulders
    # other expressions, where the rules' gates look at them: a grin, a laugh, a grimace or a
    # dropped jaw on the mouth and the brows; a laugh's squeezed eyes; surprise's wide eyes
    "sonrisa": _MOUTH | {"cejas_arriba", "ojos_cerrados"},
    "mandibula": _MOUTH | {"cejas_arriba"},
    "mueca": _MOUTH | {"cejas_arriba"},
    "ojos_abiertos": frozenset({"cejas_arriba"}),
    "labios_abiertos": _MOUTH,
    # closed eyes begin as a blink does: their minimum duration tells them apart
    "parpadeo": frozenset(GESTOS) - {"ojos_cerrados"},
    "tras_parpadeo": frozenset(GESTOS) - {"ojos_cerrados"},
    "guino_asimetria": frozenset({"guino"}),
    "cerrados_asimetria": frozenset({"ojos_cerrados"}),
}
ENTRAR: Final = 0.6  # the rules' entry threshold
SALIR: Final = 0.35 / 0.6  # exit threshold / entry threshold
SUBIDA_S: Final = 0.12
SOSTENIDA_S: Final = 0.3
PREVIA_S: Final = 1.0
_COL = {name: i for i, name in enumerate(ENTRADAS)}
_ROW = {g: i for i, g in enumerate(GESTOS)}
_APLICA = np.array([[float(g in SOLO_EN.get(name, GESTOS)) for name in ENTRADAS] for g in GESTOS])


class DecisionError(ValueError):
    """The decision file cannot be used (stale, damaged); one Spanish line."""


def firma() -> str:
    """What a decision file must carry to be read by this code: its format, the input names
    in order and the gestures, hashed."""
    solo = {k: sorted(v) for k, v in SOLO_EN.items()}
    raw = json.dumps({"formato": FORMATO, "entradas": ENTRADAS, "gestos": GESTOS, "solo_en": solo}, sort_keys=True)
    return hashlib.sha256(raw.encode()).hexdigest()[:16]


class Decision:
    """Per gesture in ``gestos``, the rule score replaced by the model's probability; every
    other gesture keeps the rules' score. :meth:`ninguna` is the rules alone."""

    def __init__(
        self,
        gestos: Sequence[str],
        media: Sequence[float] | np.ndarray,
        escala: Sequence[float] | np.ndarray,
        pesos: Sequence[float] | np.ndarray,
        sesgos: Mapping[str, float],
        entrar: Mapping[str, float] | None = None,
    ) -> None:
        unknown = set(gestos) - set(GESTOS)
        if unknown:
            raise DecisionError(f"decisión: gestos desconocidos {sorted(unknown)}")
        self.gestos = tuple(g for g in GESTOS if g in set(gestos))
        self.media = np.asarray(media, np.float64)
        self.escala = np.asarray(escala, np.float64)
        self.pesos = np.asarray(pesos, np.float64)
        self.sesgos = np.array([float(sesgos.get(g, 0.0)) for g in GESTOS])
        n = len(ENTRADAS)
        if self.gestos and not (self.media.shape == self.escala.shape == self.pesos.shape == (n,)):
            raise DecisionError(f"decisión: se esperan {n} medias, escalas y pesos")
        if self.gestos and not np.all(np.isfinite(np.concatenate([self.media, self.escala, self.pesos]))):
            raise DecisionError("decisión: valores no finitos")
        self._filas = [_ROW[g] for g in self.gestos]
        # the probability a gesture's event starts at (the rules' 0.6 by default)
        self.entrar = {g: float((entrar or {}).get(g, ENTRAR)) for g in self.gestos}
        if not all(0.0 < v <= 1.0 for v in self.entrar.values()):
            raise DecisionError("decisión: cada umbral de entrada debe ir de 0 a 1")

    def tiempos(self, base: Mapping[str, Tiempos]) -> dict[str, Tiempos]:
        """``base`` with the decided gestures' entry and exit thresholds (the exit in the same
        proportion to the entry as the rules' 0.35 to 0.6)."""
        out = dict(base)
        for g, e in self.entrar.items():
            out[g] = replace(out.get(g, Tiempos()), entrar=e, salir=round(SALIR * e, 3))
        return out

    @staticmethod
    def ninguna() -> Decision:
        """The hand rules for every gesture."""
        return Decision((), [], [], [], {})

    def quiere_entradas(self) -> bool:
        """Whether the recognizer must work out the inputs (not for the rules alone)."""
        return bool(self.gestos)

    def probabilidades(self, x: np.ndarray) -> np.ndarray:
        """The model's probability for every gesture of ``x`` (shape (..., len(GESTOS),
        len(ENTRADAS))), 0 where the rules' score is 0."""
        z = ((x - self.media) / self.escala) @ self.pesos + self.sesgos
        p = 1.0 / (1.0 + np.exp(-np.clip(z, -30.0, 30.0)))
        return np.where(x[..., _COL["regla"]] > 0, p, 0.0)

    def decidir(self, x: np.ndarray, valores: Mapping[str, float]) -> dict[str, float]:
        """One frame's scores with the model's gestures replaced by its probability."""
        out = dict(valores)
        if not self.gestos:
            return out
        p = self.probabilidades(x)
        for g, row in zip(self.gestos, self._filas, strict=True):
            out[g] = round(float(p[row]), 4)
        return out

    def to_dict(self) -> dict[str, Any]:
        """The file's model part (the fit adds how it was made and what it measured)."""
        return {
            "formato": FORMATO,
            "firma": firma(),
            "entradas": list(ENTRADAS),
            "gestos": list(self.gestos),
            "media": [round(float(v), 6) for v in self.media],
            "escala": [round(float(v), 6) for v in self.escala],
            "pesos": [round(float(v), 6) for v in self.pesos],
            "sesgos": {g: round(float(v), 6) for g, v in zip(GESTOS, self.sesgos, strict=True)},
            "entrar": {g: round(v, 4) for g, v in self.entrar.items()},
        }


def desde_dict(doc: object, where: str = "decisión") -> Decision:
    """A :class:`Decision` from its JSON document; :class:`DecisionError` when it is for other
    code (format, signature, inputs) or malformed."""
    if not isinstance(doc, dict):
        raise DecisionError(f"{where}: se espera un objeto JSON")
    if doc.get("formato") != FORMATO or doc.get("firma") != firma() or doc.get("entradas") != list(ENTRADAS):
        raise DecisionError(
            f"{where}: hecho para otras entradas (formato {doc.get('formato')!r}, firma {doc.get('firma')!r}; "
            f"este código espera {FORMATO}, {firma()}): vuelve a ajustarlo con python -m training.senas.decision"
        )
    try:
        sesgos, entrar = doc["sesgos"], doc["entrar"]
        if not isinstance(sesgos, dict) or not isinstance(entrar, dict):
            raise TypeError
        return Decision(
            [str(g) for g in doc["gestos"]],
            [float(v) for v in doc["media"]],
            [float(v) for v in doc["escala"]],
            [float(v) for v in doc["pesos"]],
            {str(g): float(v) for g, v in sesgos.items()},
            {str(g): float(v) for g, v in entrar.items()},
        )
    except (KeyError, TypeError, ValueError) as exc:
        raise DecisionError(f"{where}: mal formado ({type(exc).__name__})") from None


def cargar(path: Path = RUTA) -> Decision:
    """Read a decision file; :class:`DecisionError` (one line) when it cannot be used."""
    try:
        doc = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise DecisionError(f"{path.name}: no se puede leer ({type(exc).__name__})") from None
    return desde_dict(doc, path.name)


@lru_cache(maxsize=1)
def de_fabrica() -> Decision:
    """The shipped decision (:data:`RUTA`), read once; the rules alone if none is shipped."""
    return cargar(RUTA) if RUTA.is_file() else Decision.ninguna()


class Contexto:
    """The inputs of every gesture at each frame of one stream (it keeps the last second of
    rule scores for the temporal ones)."""

    def __init__(self) -> None:
        self._hist: deque[tuple[float, np.ndarray]] = deque()

    def reset(self) -> None:
        self._hist.clear()

    def entradas(
        self,
        t: float,
        valores: Mapping[str, float],
        feats: Features,
        base: Baseline | None,
        scorer: Scorer,
        talking: float,
        veda: Veda,
    ) -> np.ndarray:
        """(len(GESTOS), len(ENTRADAS)) inputs at time ``t``; ``valores``: the rules' scores."""
        s = np.array([float(valores.get(g, 0.0)) for g in GESTOS])
        self._hist.append((t, s))
        while self._hist and t - self._hist[0][0] > PREVIA_S + 1e-9:
            self._hist.popleft()
        x = np.zeros((len(GESTOS), len(ENTRADAS)))
        x[:, _COL["regla"]] = s
        x[:, _COL["subida"]] = s - self._at(t - SUBIDA_S)
        recent = [v for tt, v in self._hist if t - tt <= SOSTENIDA_S + 1e-9]
        x[:, _COL["sostenida"]] = np.mean(recent, axis=0)
        older = [v for tt, v in self._hist if t - tt > SOSTENIDA_S + 1e-9]
        x[:, _COL["previa"]] = np.max(older, axis=0) if older else 0.0
        x[:, _COL["hablando"]] = talking
        x[:, _COL["parpadeo"]] = float(veda.ojos)
        x[:, _COL["tras_parpadeo"]] = float(veda.cejas)
        if feats and base is not None:
            for name, value in _face_context(feats, base, scorer).items():
                if name in _COL:
                    x[:, _COL[name]] = value
            ca, cb = scorer.closures(feats, base)
            x[:, _COL["guino_asimetria"]] = x[:, _COL["cerrados_asimetria"]] = abs(ca - cb)
        return x * _APLICA

    def _at(self, when: float) -> np.ndarray:
        """The scores of the last frame at or before ``when`` (the oldest kept if none)."""
        best = self._hist[0][1]
        for tt, v in self._hist:
            if tt > when + 1e-9:
                break
            best = v
        return best


def _rise(f: Features, base: Baseline, *keys: str) -> float:
    return max(f.get(k, 0.0) - base.get(k) for k in keys)


def _face_context(f: Features, base: Baseline, scorer: Scorer) -> dict[str, float]:
    """What else the face does, as changes from neutral, clipped to a sane range."""
    turn = max(abs(f.get("yaw", 0.0) - base.get("yaw")), abs(f.get("pitch", 0.0) - base.get("pitch")))
    raw = {
        "sonrisa": _rise(f, base, "mouthSmileLeft", "mouthSmileRight"),
        "mandibula": _rise(f, base, "jawOpen"),
        "mueca": _rise(f, base, "noseSneerLeft", "noseSneerRight", "mouthStretchLeft", "mouthStretchRight"),
        "ojos_abiertos": _rise(f, base, "eyeWideLeft", "eyeWideRight"),
        "giro": turn / 25.0,
        "labios_abiertos": (f.get("lip_gap", 0.0) - base.get("lip_gap")) * 10.0,
    }
    return {k: min(max(v, -3.0), 3.0) if math.isfinite(v) else 0.0 for k, v in raw.items()}
