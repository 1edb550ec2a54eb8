"""Fit the learned per-frame model of :mod:`training.senas.lector_fotograma` and compare it with the hand
rules, every person held out (Deliver 2 and 4 of issue 52).

    MUSMESA_REALDATA=../shared/realdata python -m training.senas.fotograma [--salida informe.json]

Data: every frame of the three shared folders of labelled real clips (their recordings from
:mod:`training.senas.grabacion`, each calibration), each frame's measurements minus the
person's neutral as the recognizer holds it at that frame (one neutral photo, or its automatic
calibration), labelled from labels.json: the seña it is inside, else ``parpadeo``, ``otro`` or
``neutro`` (talking and everything unlabelled); ambiguous labels are left out. Plus synthetic
frames warped from the astronaut portrait and its mirror image (each seña at several
strengths, talking, blinks): :func:`synthetic`.

Held out strictly: person ``p`` is scored with a model fitted without ``p``; every choice made
for ``p`` (the entry threshold of the model's probabilities, the veto's threshold, which kinds
the OR adds, the gate's threshold) is made on the other people, each of them scored with a model
fitted without both. The rules' event thresholds are the shipped ones: fitted without each person
(:func:`training.senas.evaluate.fit_without`) they come out unchanged for all 16 people.

Options scored, per calibration and per seña kind, with the scoring of
``training.senas.evaluate --fuera-de-muestra`` (:func:`training.senas.evaluate.score_clip`):

- ``reglas``: the hand rules alone;
- ``modelo``: the model alone: each kind's probability through the rules' event detector;
- ``veto``: the rules' events, less those where the model's mean probability of the event's kind
  stays under a threshold (it can only remove events);
- ``o``: the rules' events plus, for the kinds chosen on the other people, the model's own;
- ``gesto``: the expression gate: the rules' events of a bitten lip, a wink or raised brows
  dropped where the model's mean ``otro`` probability over the event is over a threshold.

Held out, alone it loses to the rules on every kind but lips aside, and the veto, the OR and the
gate tie with them (docs/experiments.md), so nothing of it runs in the recognizer. Set
``OMP_NUM_THREADS=1`` on a small machine: the 256 fits take about 1.5 minutes then, and many
times longer with BLAS threads fighting over two cores.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any, Final, cast

import numpy as np

from gestures.calibration import calibrate
from gestures.events import TIEMPOS, Tiempos
from gestures.features import Features
from gestures.models import Landmarkers, Observation
from gestures.recognizer import SenaRecognizer
from gestures.scorer import Baseline
from gestures.types import GESTOS
from training.senas.ajuste import PESO_PARPADEO, Traza, events, trace
from training.senas.etiquetas import GUINO_LADO, PARPADEO, persona
from training.senas.evaluate import (
    CALIBRACIONES,
    Clip,
    EventoClip,
    Puntuacion,
    clave_evento,
    default_folders,
    load_clips,
    neutral_frame,
    score_clip,
    summarize,
)
from training.senas.grabacion import Grabacion, _NoLandmarkers, measurements, record
from training.senas.lector_fotograma import CLASES, ENTRADAS, ModeloFotograma, entradas

IGNORAR: Final = -1
SENAS: Final = CLASES[3:]  # the seña kinds the model has a class for
GATE_KINDS: Final = ("labio_mordido", "guino", "cejas_arriba")  # Deliver 4: not on a crying/laughing face
ENTRAR_PROBADOS: Final = (0.3, 0.4, 0.5, 0.6, 0.7, 0.8)
VETO_PROBADOS: Final = (0.0, 0.02, 0.05, 0.1, 0.2, 0.3)  # 0: no veto
GATE_PROBADOS: Final = (1.01, 0.9, 0.8, 0.7, 0.6, 0.5, 0.4)  # > 1: no gate
C_REGULARIZACION = 0.3  # set beforehand; 3.0 tried (docs/experiments.md)
# Variants of the model alone tried (docs/experiments.md): the probabilities' trailing mean over
# this many frames (1: none), and closed eyes scored as p(closed eyes) + p(blink), leaving the
# minimum duration to tell a closure from a blink, as the rules do.
SUAVIZADO = 1
CIERRE_CON_PARPADEO = False


@dataclass
class Vista:
    """One clip under one calibration: the rules' trace and the model's inputs per frame."""

    clip: Clip
    cal: str
    traza: Traza
    x: np.ndarray  # (n, len(ENTRADAS)); rows without a baseline or face are 0
    y: np.ndarray  # (n,) class index, IGNORAR where not learned from
    lado_guino: list[str]  # image side of the more closed eye per frame ("a"/"b")

    @property
    def persona(self) -> str:
        return persona(self.clip.nombre)


# --- data -----------------------------------------------------------------------------------------


def frame_labels(clip: Clip, n: int) -> np.ndarray:
    """Per frame its class (:data:`CLASES` index): a seña it is inside, else a blink, else another
    expression, else no seña; ambiguous labels (``?``, an open "O") are left out."""
    rank = np.zeros(n, np.int64)  # 0 neutro, 1 otro, 2 parpadeo, 3 ambiguous, 4 seña
    y = np.zeros(n, np.int64)
    for lab in clip.etiquetas:
        a, b = lab.inicio, min(lab.fin, n - 1) + 1
        if lab.requerida:
            g = "guino" if lab.gesto in GUINO_LADO else lab.gesto
            r, cls = 4, CLASES.index(g) if g in CLASES else IGNORAR
        elif lab.gesto is not None or lab.nombre.endswith("?"):
            r, cls = 3, IGNORAR
        elif lab.nombre == PARPADEO:
            r, cls = 2, CLASES.index("parpadeo")
        elif lab.nombre == "otro":
            r, cls = 1, CLASES.index("otro")
        else:
            continue
        up = rank[a:b] < r
        y[a:b][up], rank[a:b][up] = cls, r
    return y


def inputs_of(g: Grabacion, cal: str, feats: Sequence[Features]) -> tuple[np.ndarray, list[bool], list[str]]:
    """Replay the clip as the recognizer runs it and take each frame's inputs against the
    baseline it holds then (None while calibrating): inputs, whether there was one, wink side."""
    rec = SenaRecognizer("general", landmarkers=cast(Landmarkers, _NoLandmarkers()))
    if cal == "neutra" and rec.calibrate_measured([feats[-1]]) is None:
        raise ValueError("no se ve la cara en el fotograma neutro")
    blank = Observation(*g.size)
    xs, ok, sides = [], [], []
    for i, t in enumerate(g.t):
        base = rec.baseline
        f = feats[i]
        if base is not None and f:
            xs.append(entradas(f, base))
            ca, cb = rec.scorer.closures(f, base)
            sides.append("a" if ca >= cb else "b")
            ok.append(True)
        else:
            xs.append(np.zeros(len(ENTRADAS)))
            sides.append("a")
            ok.append(False)
        rec.step(blank, f, float(t))
    return np.array(xs), ok, sides


def views(folders: Sequence[Path], cache: Path | None = None, log: Any = None) -> list[Vista]:
    out = []
    for clip in load_clips(folders):
        if log is not None:
            print(f"fotograma: {clip.nombre}", file=log, flush=True)
        g = record(clip.ruta, neutral_frame(clip), cache)
        feats = measurements(g)
        for cal in CALIBRACIONES:
            tr = trace(g, cal, feats)
            x, ok, sides = inputs_of(g, cal, feats)
            y = frame_labels(clip, len(x))
            y[~np.array(ok)] = IGNORAR
            out.append(Vista(clip, cal, tr, x, y, sides))
    return out


def synthetic(seed: int = 0) -> tuple[np.ndarray, np.ndarray]:
    """Frames warped from the astronaut portrait and its mirror image, measured by the
    recognizer's landmarkers against the unwarped face: each seña at strengths 0.6-1 (a
    strength of 0.3 left out: neither seña nor neutral), talking with an open moving mouth
    (no seña; its frames with the eyes shut left out) and blinks."""
    import cv2
    from skimage import data

    from training.senas import synthetic_faces as S

    rec = SenaRecognizer("general", pose=False)
    xs: list[np.ndarray] = []
    ys: list[int] = []
    for flip in (False, True):
        image = cv2.cvtColor(data.astronaut(), cv2.COLOR_RGB2BGR)
        if flip:
            image = np.ascontiguousarray(image[:, ::-1])
        obs, neutral = rec.features(image, 0.0)
        if obs.face is None:
            continue
        face = obs.face
        base, _ = calibrate([neutral])

        def add(frame: np.ndarray, cls: int, base: Baseline = base) -> np.ndarray | None:
            f = rec.features(frame, 0.0)[1]
            if not f:
                return None
            x = entradas(f, base)
            xs.append(x)
            ys.append(cls)
            return x

        add(image, 0)
        recipes = S.recipes(image, face, None)
        for key, recipe in recipes.items():
            g = key.rsplit("_", 1)[0] if key.endswith(("_a", "_b")) else key
            cls = CLASES.index(g) if g in CLASES else (0 if g == "hablar" else IGNORAR)
            if cls == IGNORAR:
                continue
            for alpha in (0.6, 0.8, 1.0):
                add(recipe(image, alpha), cls)
        for _, frame in S.talking(image, face, 10.0, 3.0, seed=seed + flip):
            x = add(frame, 0)
            if x is not None and max(x[ENTRADAS.index("eyeBlinkLeft")], x[ENTRADAS.index("eyeBlinkRight")]) > 0.3:
                ys[-1] = IGNORAR  # a blink inside the talking: not labelled
        for alpha in (0.7, 1.0):
            add(S.close_eye(S.close_eye(image, face, "a", alpha), face, "b", alpha), 1)
    x, y = np.array(xs), np.array(ys)
    return x[y != IGNORAR], y[y != IGNORAR]


# --- the model --------------------------------------------------------------------------------------


def fit_sklearn(x: np.ndarray, y: np.ndarray) -> tuple[Any, np.ndarray, np.ndarray]:
    """Multinomial logistic regression on standardised inputs, classes balanced: the
    scikit-learn model and the standardisation (mean, scale)."""
    from sklearn.linear_model import LogisticRegression

    media = x.mean(axis=0)
    escala = x.std(axis=0)
    escala[escala < 1e-6] = 1.0
    lr = LogisticRegression(C=C_REGULARIZACION, class_weight="balanced", max_iter=400)
    lr.fit((x - media) / escala, y)
    return lr, media, escala


def export(lr: Any, media: np.ndarray, escala: np.ndarray) -> ModeloFotograma:
    """The fitted model as the plain arrays :mod:`training.senas.lector_fotograma` reads: every class of
    :data:`CLASES` has a row, one absent from the training an intercept so low that its
    probability is 0."""
    pesos = np.zeros((len(CLASES), len(ENTRADAS)))
    sesgos = np.full(len(CLASES), -1e3)
    present = [int(c) for c in lr.classes_]
    if len(present) == 2:  # sklearn keeps one row for two classes: softmax of (0, z)
        pesos[present[1]], sesgos[present[1]] = lr.coef_[0], lr.intercept_[0]
        sesgos[present[0]] = 0.0
    else:
        for row, c in enumerate(present):
            pesos[c], sesgos[c] = lr.coef_[row], lr.intercept_[row]
    return ModeloFotograma(media, escala, pesos, sesgos)


def fit_model(x: np.ndarray, y: np.ndarray) -> ModeloFotograma:
    return export(*fit_sklearn(x, y))


class Arboles:
    """Gradient-boosted trees (scikit-learn's histogram boosting), tried as the model alone:
    its probabilities over every class of :data:`CLASES`. Not exported: it did not do better
    (docs/experiments.md)."""

    def __init__(self, x: np.ndarray, y: np.ndarray) -> None:
        from sklearn.ensemble import HistGradientBoostingClassifier

        self.model = HistGradientBoostingClassifier(
            max_iter=60, max_leaf_nodes=15, l2_regularization=1.0, class_weight="balanced", early_stopping=False
        ).fit(x, y)

    def probabilidades(self, x: np.ndarray) -> np.ndarray:
        out = np.zeros((len(x), len(CLASES)))
        out[:, [int(c) for c in self.model.classes_]] = self.model.predict_proba(x)
        return out


def held_out_alone(
    vs: Sequence[Vista],
    extra: tuple[np.ndarray, np.ndarray],
    fit: Callable[[np.ndarray, np.ndarray], Any],
    entrar: float,
) -> dict[str, Any]:
    """The model alone, each person with a model fitted without them and an entry threshold
    set beforehand (nothing chosen on anyone: no inner folds, for models too slow to fit 256
    times)."""
    outer: dict[str, dict[int, np.ndarray]] = {}
    for p in dict.fromkeys(v.persona for v in vs):
        m = fit(*training_rows(vs, {p}, extra))
        outer[p] = {i: m.probabilidades(v.x) for i, v in enumerate(vs) if v.persona == p}
    result: dict[str, Any] = {}
    for cal in CALIBRACIONES:
        eventos, punt, clips = {}, {}, []
        for i, v in enumerate(vs):
            if v.cal == cal:
                evs = model_events(v, outer[v.persona][i], dict.fromkeys(SENAS, entrar))
                eventos[v.clip.nombre] = evs
                punt[v.clip.nombre] = score_clip(v.clip.etiquetas, evs, v.traza.calibrando_hasta)
                clips.append(v.clip)
        result[cal] = summarize(clips, eventos, punt)
    result["por_fotograma"] = frame_report(vs, outer)
    return result


def training_rows(
    vs: Sequence[Vista], sin: set[str], extra: tuple[np.ndarray, np.ndarray]
) -> tuple[np.ndarray, np.ndarray]:
    rows = [(v.x[v.y != IGNORAR], v.y[v.y != IGNORAR]) for v in vs if v.persona not in sin]
    x = np.vstack([r[0] for r in rows] + [extra[0]])
    y = np.concatenate([r[1] for r in rows] + [extra[1]])
    return x, y


# --- events -----------------------------------------------------------------------------------------


def model_trace(v: Vista, p: np.ndarray) -> Traza:
    """The rules' trace with each seña kind's score replaced by the model's probability (0
    where the rules had no baseline), winks on the more closed eye's side."""
    valores = np.zeros_like(v.traza.valores)
    if SUAVIZADO > 1:
        c = np.cumsum(np.vstack([np.zeros((1, p.shape[1])), p]), axis=0)
        idx = np.arange(1, len(p) + 1)
        p = (c[idx] - c[np.maximum(idx - SUAVIZADO, 0)]) / np.minimum(idx, SUAVIZADO)[:, None]
    for g in SENAS:
        valores[:, GESTOS.index(g)] = p[:, CLASES.index(g)]
    if CIERRE_CON_PARPADEO:
        valores[:, GESTOS.index("ojos_cerrados")] += p[:, CLASES.index("parpadeo")]
    valores[np.all(v.x == 0, axis=1)] = 0.0
    lados: list[Mapping[str, str]] = [
        {**dict(lad), "guino": s} for lad, s in zip(v.traza.lados, v.lado_guino, strict=True)
    ]
    return replace(v.traza, valores=valores, lados=lados, claros=None)


def model_timings(entrar: Mapping[str, float]) -> dict[str, Tiempos]:
    out = dict(TIEMPOS)
    for g, e in entrar.items():
        out[g] = replace(out[g], entrar=e, salir=round(e * 0.35 / 0.6, 3), claro=False)
    return out


def rule_events(v: Vista) -> list[EventoClip]:
    return to_clip(v, events(v.traza, TIEMPOS))


def to_clip(v: Vista, evs: Sequence[Any]) -> list[EventoClip]:
    from training.senas.evaluate import _index

    times = list(v.traza.t)
    return [EventoClip(clave_evento(e), _index(times, e.inicio), _index(times, e.fin)) for e in evs]


def model_events(
    v: Vista, p: np.ndarray, entrar: Mapping[str, float], kinds: Sequence[str] = SENAS
) -> list[EventoClip]:
    return to_clip(v, events(model_trace(v, p), model_timings(entrar), list(kinds)))


def kind(clave: str) -> str:
    return "guino" if clave in GUINO_LADO else clave


def mean_prob(p: np.ndarray, ev: EventoClip, cls: str) -> float:
    return float(p[ev.inicio : ev.fin + 1, CLASES.index(cls)].mean())


def vetoed(evs: Sequence[EventoClip], p: np.ndarray, umbral: Mapping[str, float]) -> list[EventoClip]:
    """The events whose kind's mean probability over the event reaches that kind's threshold."""
    return [e for e in evs if kind(e.clave) not in umbral or mean_prob(p, e, kind(e.clave)) >= umbral[kind(e.clave)]]


def gated(evs: Sequence[EventoClip], p: np.ndarray, umbral: float) -> list[EventoClip]:
    return [e for e in evs if kind(e.clave) not in GATE_KINDS or mean_prob(p, e, "otro") <= umbral]


def ored(rules: Sequence[EventoClip], model: Sequence[EventoClip], kinds: Sequence[str]) -> list[EventoClip]:
    """The rules' events plus the model's of ``kinds`` that overlap none of the same kind."""
    out = list(rules)
    for e in model:
        if kind(e.clave) in kinds and not any(
            r.clave == e.clave and r.inicio <= e.fin and e.inicio <= r.fin for r in rules
        ):
            out.append(e)
    return sorted(out, key=lambda e: e.inicio)


def losses(v: Vista, evs: Sequence[EventoClip]) -> dict[str, float]:
    """Per seña kind on one view: señas missed plus false events (on a blink PESO_PARPADEO)."""
    p = score_clip(v.clip.etiquetas, evs, v.traza.calibrando_hasta)
    out: dict[str, float] = {}
    for i, lab in enumerate(v.clip.etiquetas):
        if lab.requerida and i not in p.encontradas and i not in p.en_calibracion and lab.gesto is not None:
            k = kind(lab.gesto)
            out[k] = out.get(k, 0.0) + 1
    for j in p.falsos:
        k = kind(evs[j].clave)
        out[k] = out.get(k, 0.0) + (PESO_PARPADEO if j in p.en_parpadeo else 1.0)
    return out


# --- held out ---------------------------------------------------------------------------------------


def option_events(name: str, v: Vista, p: np.ndarray, choice: Mapping[str, Any]) -> list[EventoClip]:
    if name == "reglas":
        return rule_events(v)
    if name == "modelo":
        return model_events(v, p, choice["entrar"])
    if name == "veto":
        return vetoed(rule_events(v), p, choice["veto"])
    if name == "o":
        return ored(rule_events(v), model_events(v, p, choice["entrar"]), choice["o"])
    if name == "gesto":
        return gated(rule_events(v), p, choice["gesto"])
    raise ValueError(name)


OPCIONES: Final = ("reglas", "modelo", "veto", "o", "gesto")


def choose(inner: Sequence[tuple[Vista, np.ndarray]]) -> dict[str, Any]:
    """Every choice, made on ``inner`` (other people's views, each with the probabilities of a
    model fitted without them): per kind the model's entry threshold; the veto's and the gate's
    thresholds (the lowest total loss; ties: the mildest); the kinds the OR adds (lower loss in
    total than the rules' for that kind)."""
    rules = [losses(v, rule_events(v)) for v, _ in inner]

    def total(ls: Sequence[Mapping[str, float]], k: str | None = None) -> float:
        return sum(sum(v for kk, v in d.items() if k is None or kk == k) for d in ls)

    per_e = {e: [losses(v, model_events(v, p, dict.fromkeys(SENAS, e))) for v, p in inner] for e in ENTRAR_PROBADOS}
    entrar = {g: min(ENTRAR_PROBADOS, key=lambda e: (total(per_e[e], g), -e)) for g in SENAS}
    model = [losses(v, model_events(v, p, entrar)) for v, p in inner]
    # the OR's loss per kind: the rules' events plus the model's that overlap none
    o_tried = [losses(v, ored(rule_events(v), model_events(v, p, entrar), SENAS)) for v, p in inner]
    o = [g for g in SENAS if total(o_tried, g) < total(rules, g)]
    veto_tried = {
        u: [losses(v, vetoed(rule_events(v), p, dict.fromkeys(SENAS, u))) for v, p in inner] for u in VETO_PROBADOS
    }
    veto = {g: min(VETO_PROBADOS, key=lambda u: (total(veto_tried[u], g), u)) for g in SENAS}
    gate_tried = {u: [losses(v, gated(rule_events(v), p, u)) for v, p in inner] for u in GATE_PROBADOS}
    gate = min(GATE_PROBADOS, key=lambda u: (total(gate_tried[u]), -u))
    better = [g for g in SENAS if total(model, g) < total(rules, g)]
    return {"entrar": entrar, "o": o, "veto": veto, "gesto": gate, "modelo_solo_mejor": better}


def held_out(vs: Sequence[Vista], extra: tuple[np.ndarray, np.ndarray], log: Any = None) -> dict[str, Any]:
    people = list(dict.fromkeys(v.persona for v in vs))
    probs: dict[tuple[str, str], dict[int, np.ndarray]] = {}  # (left out, also left out) -> view -> p

    def predict(out: set[str], key: tuple[str, str]) -> dict[int, np.ndarray]:
        if key not in probs:
            m = fit_model(*training_rows(vs, out, extra))
            probs[key] = {i: m.probabilidades(v.x) for i, v in enumerate(vs) if v.persona in out}
        return probs[key]

    choices, outer = {}, {}
    for p in people:
        if log is not None:
            print(f"fotograma: sin {p}", file=log, flush=True)
        outer[p] = predict({p}, (p, p))
        inner = []
        for q in people:
            if q == p:
                continue
            key = (min(p, q), max(p, q))
            pq = predict({p, q}, key)
            inner += [(vs[i], pq[i]) for i in pq if vs[i].persona == q]
        choices[p] = choose(inner)
    result: dict[str, Any] = {"elecciones": choices}
    for name in OPCIONES:
        per_cal: dict[str, Any] = {}
        for cal in CALIBRACIONES:
            eventos: dict[str, list[EventoClip]] = {}
            punt: dict[str, Puntuacion] = {}
            clips = []
            for i, v in enumerate(vs):
                if v.cal != cal:
                    continue
                evs = option_events(name, v, outer[v.persona][i], choices[v.persona])
                eventos[v.clip.nombre] = evs
                punt[v.clip.nombre] = score_clip(v.clip.etiquetas, evs, v.traza.calibrando_hasta)
                clips.append(v.clip)
            per_cal[cal] = summarize(clips, eventos, punt)
        result[name] = per_cal
    result["gate_effect"] = gate_effect(vs, outer, choices)
    result["por_fotograma"] = frame_report(vs, outer)
    return result


def frame_report(vs: Sequence[Vista], outer: Mapping[str, Mapping[int, np.ndarray]]) -> dict[str, Any]:
    """Per frame, held out (both calibrations): per class its labelled frames and the share the
    model's most likely class gets right; and for the gate, the share of ``otro`` frames and of
    bitten-lip, wink and brow frames with p(otro) over 0.5."""
    y = np.concatenate([v.y for v in vs])
    p = np.vstack([outer[v.persona][i] for i, v in enumerate(vs)])
    keep = y != IGNORAR
    y, p = y[keep], p[keep]
    best = p.argmax(axis=1)
    out: dict[str, Any] = {
        c: {"fotogramas": int((y == k).sum()), "acierto": round(float((best[y == k] == k).mean()), 3)}
        for k, c in enumerate(CLASES)
        if (y == k).any()
    }
    otro = p[:, CLASES.index("otro")] > 0.5
    senas = np.isin(y, [CLASES.index(g) for g in GATE_KINDS])
    out["puerta_0.5"] = {
        "otro_vistos": round(float(otro[y == CLASES.index("otro")].mean()), 3),
        "senas_tapadas": round(float(otro[senas].mean()), 3),
        "neutro_tapados": round(float(otro[y == 0].mean()), 3),
    }
    return out


def gate_effect(
    vs: Sequence[Vista], outer: Mapping[str, Mapping[int, np.ndarray]], choices: Mapping[str, Any]
) -> dict[str, Any]:
    """What the gate (each person with the threshold chosen without them) removes from the rules:
    false events and true ones, per calibration; and at a fixed 0.5 for reference."""
    out: dict[str, Any] = {}
    for label, thr in (("elegido", None), ("0.5", 0.5), ("0.3", 0.3)):
        for cal in CALIBRACIONES:
            removed_false = removed_true = 0
            for i, v in enumerate(vs):
                if v.cal != cal:
                    continue
                p = outer[v.persona][i]
                u = choices[v.persona]["gesto"] if thr is None else thr
                evs = rule_events(v)
                sc = score_clip(v.clip.etiquetas, evs, v.traza.calibrando_hasta)
                kept = gated(evs, p, u)
                for j, e in enumerate(evs):
                    if e not in kept:
                        if j in sc.falsos:
                            removed_false += 1
                        else:
                            removed_true += 1
            out[f"{label}/{cal}"] = {"falsos_quitados": removed_false, "verdaderos_quitados": removed_true}
    return out


def per_kind(summary: Mapping[str, Any]) -> dict[str, str]:
    """found/labelled, false per seña kind (winks together)."""
    rows: dict[str, list[int]] = {}
    for clave, r in summary["gestos"].items():
        k = kind(clave)
        acc = rows.setdefault(k, [0, 0, 0, 0])
        acc[0] += r["encontradas"]
        acc[1] += r["etiquetadas"]
        acc[2] += r["falsos"]
        acc[3] += r["en_parpadeo"]
    return {k: f"{a}/{b}, {c} falsos ({d} parp.)" for k, (a, b, c, d) in rows.items()}


def format_report(res: Mapping[str, Any]) -> str:
    lines = ["fuera de muestra (cada persona con el modelo y las elecciones hechas sin ella):"]
    for cal in CALIBRACIONES:
        lines.append(f"calibración {cal}")
        for name in OPCIONES:
            s = res[name][cal]
            t = s["gestos"]["total"]
            kinds = per_kind(s)
            kinds.pop("total", None)
            lines.append(
                f"  {name:<7}{t['encontradas']:>3} de {t['etiquetadas']:<3}{t['falsos']:>3} falsos "
                f"({t['falsos_por_minuto']:.2f}/min, {t['en_parpadeo']} en parpadeo) | "
                + "; ".join(f"{k} {v}" for k, v in sorted(kinds.items()))
            )
    lines.append("puerta de expresión (quita eventos de labio mordido, guiño y cejas con p(otro) alta):")
    for k, v in res["gate_effect"].items():
        lines.append(f"  {k}: {v['falsos_quitados']} falsos y {v['verdaderos_quitados']} verdaderos quitados")
    if "por_fotograma" in res:
        lines.append(f"por fotograma: {json.dumps(res['por_fotograma'], ensure_ascii=False)}")
    return "\n".join(lines)


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m training.senas.fotograma", description=__doc__.splitlines()[0])
    parser.add_argument("carpetas", nargs="*", type=Path, metavar="CARPETA")
    parser.add_argument("--cache", type=Path, default=None)
    parser.add_argument("--sin-sinteticas", action="store_true", help="solo los clips reales")
    parser.add_argument("--salida", type=Path, help="escribe también el informe JSON aquí")
    args = parser.parse_args(argv)
    folders = args.carpetas or default_folders()
    vs = views(folders, args.cache, sys.stderr)
    extra = (np.zeros((0, len(ENTRADAS))), np.zeros(0, np.int64)) if args.sin_sinteticas else synthetic()
    res = held_out(vs, extra, sys.stderr)
    res["sinteticas"] = len(extra[1])
    if args.salida:
        args.salida.write_text(json.dumps(res, ensure_ascii=False, indent=1, default=str) + "\n", encoding="utf-8")
    print(format_report(res))
    return 0


if __name__ == "__main__":
    sys.exit(main())
