"""Fit the learned decision (:mod:`gestures.decision`) on the labelled real clips; the command
that fits, compares held out and writes the shipped one is :mod:`training.senas.decision`.

The model: one logistic regression over every gesture's row of inputs
(:data:`gestures.decision.ENTRADAS`), shared weights and one offset per gesture; a gesture with
no labelled example among the people fitted on takes the mean offset of those that have some.
Rows are (frame, gesture) pairs where the rules' score is above 0 (elsewhere the decision gives 0
as the rules do). Targets:

- positive: a frame inside a labelled seña of that gesture (winks of either eye are ``guino``),
  each seña weighing as much as any other whatever its length;
- left out: frames within :data:`BORDE` frames of a seña of that gesture (labels' edges are
  approximate), inside an ambiguous label of it (``?``, ``morro_abierto`` for ``morro``),
  frames of the automatic calibration, and a blink's frames for closed eyes (frame by frame
  they are closed eyes; the minimum duration tells them apart);
- hard negative: any other frame labelled ``otro``, ``parpadeo`` or ambiguous, or where the
  person talks, turns the head, or blinks (:func:`dificil`); the hard negatives together weigh as
  much as the positives, and any other negative row as much as a hard one (they are few: the
  rules rarely score on a still, silent face).

Held out (the only figure that counts; ``python -m training.senas.evaluate --fuera-de-muestra``
prints the same comparison): each person is scored with the model fitted on the other people
(both shared folders, both calibrations), against the hand rules scored the same way. Without
each person, per gesture, the entry threshold for the probability (:data:`ENTRAR_PROBADOS`) and
whether the model replaces the rules are chosen on the other people, each scored with a model
fitted without both (:func:`modelos_sin`, :func:`training.senas.evaluate.choose`): a gesture
goes to the model only when its missed señas plus false events (a false event on a blink twice)
are fewer than the rules'; ties keep the rules. What ships is the fit on everyone and the choice
made on everyone. The regularisation (:data:`C`) is set beforehand, not chosen on the clips.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Final

import numpy as np

from common.files import write_atomic
from gestures.decision import ENTRADAS, RUTA, Decision
from gestures.types import GESTOS
from training.senas.ajuste import Traza
from training.senas.etiquetas import AMBIGUAS, GUINO_LADO, PARPADEO, persona

C: Final = 0.1  # L2 regularisation of the logistic regression (set beforehand)
BORDE: Final = 3  # frames around a labelled seña left out of the fit
HABLA: Final = 0.5  # talking measure from which a frame is a hard negative
GIRO: Final = 0.6  # head turn (in 25 degrees) from which a frame is a hard negative
_COL = {name: i for i, name in enumerate(ENTRADAS)}


@dataclass
class Filas:
    """Training rows of one clip under one calibration."""

    x: np.ndarray  # (m, len(ENTRADAS))
    gesto: np.ndarray  # (m,) index in GESTOS
    y: np.ndarray  # (m,) 1 positive, 0 negative
    peso: np.ndarray  # (m,) before the groups are balanced
    grupo: np.ndarray  # (m,) 0 positive, 1 hard negative, 2 other negative


def etiquetas_por_gesto(clip: Any, n: int, calibrando_hasta: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Per frame and gesture: positive weight (0: not positive), left out, hard label."""
    pos = np.zeros((n, len(GESTOS)))
    fuera = np.zeros((n, len(GESTOS)), bool)
    dificil_lab = np.zeros(n, bool)
    fuera[: calibrando_hasta + 1] = True
    for lab in clip.etiquetas:
        base = lab.nombre.rstrip("?")
        frames = slice(lab.inicio, lab.fin + 1)
        g = lab.gesto
        g = "guino" if g in GUINO_LADO else g
        if base in ("otro", PARPADEO) or lab.nombre.endswith("?") or base in AMBIGUAS:
            dificil_lab[frames] = True
        if base == PARPADEO:  # a blink's frames are closed eyes too: the minimum duration tells
            fuera[frames, GESTOS.index("ojos_cerrados")] = True
        if g is None:
            continue
        col = GESTOS.index(g)
        if lab.requerida:
            fuera[max(0, lab.inicio - BORDE) : lab.fin + BORDE + 1, col] = True
        else:  # ambiguous: "?" or an open "O" for morro
            fuera[frames, col] = True
    for lab in clip.etiquetas:
        g = lab.gesto
        g = "guino" if g in GUINO_LADO else g
        if g is not None and lab.requerida:
            col = GESTOS.index(g)
            pos[lab.inicio : lab.fin + 1, col] = 1.0 / (lab.fin - lab.inicio + 1)
            fuera[lab.inicio : lab.fin + 1, col] = False
    return pos, fuera, dificil_lab


def dificil(x: np.ndarray) -> np.ndarray:
    """Rows that are hard negatives by what the face does: talking, head turned, a blink."""
    return (
        (x[..., _COL["hablando"]] >= HABLA)
        | (x[..., _COL["giro"]] >= GIRO)
        | (x[..., _COL["parpadeo"]] > 0)
        | (x[..., _COL["tras_parpadeo"]] > 0)
    )


def filas(clip: Any, tr: Traza) -> Filas:
    """The rows of one replayed clip (rules' score above 0 only)."""
    assert tr.entradas is not None
    n = len(tr.t)
    pos, fuera, dificil_lab = etiquetas_por_gesto(clip, n, tr.calibrando_hasta)
    x = tr.entradas
    live = (x[:, :, _COL["regla"]] > 0) & ~fuera
    frame, col = np.nonzero(live)
    xs = x[frame, col]
    y = (pos[frame, col] > 0).astype(np.int64)
    hard = dificil_lab[frame] | dificil(xs)
    grupo = np.where(y == 1, 0, np.where(hard, 1, 2))
    # each labelled seña weighs as much as any other, whatever its length
    peso = np.ones(len(y))
    for run, c in _runs(pos):
        sel = (col == c) & (y == 1) & np.isin(frame, run)
        if sel.any():
            peso[sel] = 1.0 / sel.sum()
    return Filas(xs, col, y, peso, grupo)


def _runs(pos: np.ndarray) -> list[tuple[np.ndarray, int]]:
    """Each labelled seña's frames and gesture column (runs of positive frames)."""
    out = []
    for col in range(pos.shape[1]):
        on = np.flatnonzero(pos[:, col] > 0)
        if not len(on):
            continue
        for run in np.split(on, np.flatnonzero(np.diff(on) > 1) + 1):
            out.append((run, col))
    return out


def ajustar(bloques: Sequence[Filas], c: float = C) -> Decision | None:
    """The logistic regression over the rows; None without a positive row. Every gesture gets an
    offset (the mean of the learned ones where it had no example); the caller chooses which
    gestures it decides."""
    from sklearn.linear_model import LogisticRegression

    x = np.concatenate([b.x for b in bloques])
    g = np.concatenate([b.gesto for b in bloques])
    y = np.concatenate([b.y for b in bloques])
    w = np.concatenate([b.peso for b in bloques])
    grupo = np.concatenate([b.grupo for b in bloques])
    if not y.any() or y.all():
        return None
    # the hard negatives together weigh as much as the positives; another negative row weighs
    # as much as a hard one
    pos, hard, easy = (grupo == k for k in (0, 1, 2))
    w[pos] /= w[pos].sum()
    per_negative = 1.0 / max(1, int(hard.sum()))
    w[hard | easy] = per_negative
    w *= len(w) / w.sum()
    media = x.mean(axis=0)
    escala = x.std(axis=0)
    escala[escala < 1e-6] = 1.0
    con = sorted({int(v) for v in g[y == 1]})
    onehot = np.zeros((len(x), len(con)))
    for j, col in enumerate(con):
        onehot[g == col, j] = 1.0
    model = LogisticRegression(C=c, max_iter=2000)
    model.fit(np.hstack([(x - media) / escala, onehot]), y, sample_weight=w)
    coef = model.coef_[0]
    pesos, offsets = coef[: len(ENTRADAS)], coef[len(ENTRADAS) :]
    mean_offset = float(np.mean(offsets))
    sesgos = {gesto: float(model.intercept_[0]) + mean_offset for gesto in GESTOS}
    for j, col in enumerate(con):
        sesgos[GESTOS[col]] = float(model.intercept_[0] + offsets[j])
    return Decision(GESTOS, media, escala, pesos, sesgos)


# entry thresholds tried for the model's probability (chosen held out, per gesture)
ENTRAR_PROBADOS: Final = (0.3, 0.4, 0.5, 0.6)


def con_gestos(d: Decision, gestos: Sequence[str], entrar: Mapping[str, float] | None = None) -> Decision:
    """The same model deciding only ``gestos``, with these entry thresholds."""
    return Decision(gestos, d.media, d.escala, d.pesos, dict(zip(GESTOS, d.sesgos, strict=True)), entrar)


# --- held out -----------------------------------------------------------------------------------


def aprendibles(recorridos: Sequence[Any]) -> list[str]:
    """The gestures with at least one labelled seña in the clips: those a fit can say anything
    about."""
    out = set()
    for r in recorridos:
        for lab in r.clip.etiquetas:
            if lab.requerida and lab.gesto is not None:
                out.add("guino" if lab.gesto in GUINO_LADO else lab.gesto)
    return [g for g in GESTOS if g in out]


Modelos = dict[tuple[str | None, str | None], Decision | None]


def modelos_sin(recorridos: Sequence[Any]) -> Modelos:
    """The model fitted without no one, without each person, and without each pair of people
    (``(p, q)`` and ``(q, p)`` alike; ``(p, None)``: without ``p``; ``(None, None)``: with
    everyone). The pairs choose, for each person held out, the gestures the decision takes
    over, on the other people held out in turn."""
    bloques: dict[str, list[Filas]] = {}
    for r in recorridos:  # one fold per person (two clips may show the same one)
        bloques.setdefault(persona(r.clip.nombre), []).extend(filas(r.clip, tr) for tr in r.trazas.values())
    names = list(bloques)

    def without(*fuera: str) -> Decision | None:
        return ajustar([b for k, bs in bloques.items() if k not in fuera for b in bs])

    out: Modelos = {(None, None): without()}
    for p in names:
        out[(p, None)] = without(p)
    for i, p in enumerate(names):
        for q in names[i + 1 :]:
            out[(p, q)] = out[(q, p)] = without(p, q)
    return out


def sin(modelos: Mapping[tuple[str | None, str | None], Decision | None], p: str | None, q: str) -> Decision | None:
    """The model fitted without ``q`` and (if given) ``p``."""
    return modelos[(p, q)] if p is not None else modelos[(q, None)]


def informe_archivo(
    recorridos: Sequence[Any],
    reglas: Mapping[str, Any],
    aprendida: Mapping[str, Any],
    mezcla: Mapping[str, Any],
    elegidos: Sequence[str],
) -> dict[str, Any]:
    """What the shipped file says of how it was made and what it measured held out."""

    def row(s: Mapping[str, Any]) -> dict[str, Any]:
        t = s["gestos"]["total"]
        keys = ("encontradas", "etiquetadas", "falsos", "falsos_por_minuto", "en_parpadeo")
        return {k: t[k] for k in keys}

    return {
        "ajuste": {
            "comando": "python -m training.senas.decision",
            "C": C,
            "personas": len({persona(r.clip.nombre) for r in recorridos}),
            "clips": sorted(r.clip.nombre for r in recorridos),
            "elegidos": list(elegidos),
        },
        "fuera_de_muestra": {
            cal: {"reglas": row(reglas[cal]), "aprendida": row(aprendida[cal]), "mezcla": row(mezcla[cal])}
            for cal in reglas
        },
    }


def escribir(decision: Decision, informe: Mapping[str, Any], path: Path = RUTA) -> None:
    """The shipped file: the model, how it was fitted and what it measured held out."""
    doc = {**decision.to_dict(), **informe}
    write_atomic(path, json.dumps(doc, ensure_ascii=False, indent=1) + "\n")
