"""Fit the per-gesture event thresholds on labelled clips, and nothing else.

The recognizer turns per-frame scores into events with, per gesture, an entry threshold
(``Tiempos.entrar``) and a minimum duration (``Tiempos.minimo``). Those two decide how much
evidence a seña needs, and they are fitted here on labelled real clips: for each gesture, the
pair from a small grid that misses the fewest labelled señas and fires the fewest false
events over the clips given (a false event weighs as much as a missed seña, one on a blink
twice: a blink is never a seña). A candidate replaces the shipped value only when it is
better in total and for at least two people more than it is worse for, so with no evidence,
or one person's quirk, the shipped value stands. Gestures that pair up in the
event detector (a wink and both eyes closed; a tongue out and to a side; one shoulder and
both) are fitted together.

The per-frame scores do not depend on these thresholds, so each clip is replayed once
(:func:`trace`) and the fit runs only the event detector on the recorded scores: a few
seconds for a whole fit, which makes leaving each person out affordable.

The fitted values are the shipped :data:`gestures.events.TIEMPOS` (fitted on both shared
folders); ``python -m training.senas.evaluate --fuera-de-muestra`` fits them again without
each person in turn and scores that person with what the others gave.
"""

from __future__ import annotations

from collections.abc import Callable, Collection, Mapping, Sequence
from dataclasses import dataclass, replace
from typing import Any

import numpy as np

from gestures.context import BlinkSettings
from gestures.decision import Decision
from gestures.events import TIEMPOS, EventDetector, Tiempos
from gestures.features import Features
from gestures.types import CON_LADO, GESTOS, Calibracion, Evento, lado_jugador
from training.senas.grabacion import Grabacion, replay

# gestures whose events the detector resolves together
GRUPOS: tuple[tuple[str, ...], ...] = (
    ("guino", "ojos_cerrados"),
    ("lengua_fuera", "lengua_lado"),
    ("hombro_arriba", "hombros_arriba"),
    ("cejas_arriba",),
    ("morro",),
    ("labios_lado",),
    ("labio_mordido",),
)
ENTRAR = (0.5, 0.6, 0.7, 0.8)
MINIMO_FACTOR = (0.67, 1.0, 1.33, 1.67)  # times the shipped minimum duration
PESO_PARPADEO = 2.0  # a false event on a blink counts twice


@dataclass
class Traza:
    """One clip's per-frame scores (after the talking hush) under one calibration."""

    t: np.ndarray  # (n,)
    valores: np.ndarray  # (n, len(GESTOS))
    lados: list[Mapping[str, str]]  # image side per sided gesture
    sin_inicio: list[frozenset[str]]  # gestures that may not start at each frame (blinks)
    calibrando_hasta: int
    calidad: Calibracion | None
    # (n, len(GESTOS), len(gestures.decision.ENTRADAS)): the learned decision's inputs
    entradas: np.ndarray | None = None
    # gestures clearly shown at each frame (the scorer's ``claros``); None: none anywhere
    claros: list[frozenset[str]] | None = None
    # gestures that started earlier than the frame they are first seen (the detector's
    # ``desde``: a wink out of both eyes narrowing); None: none anywhere
    desde: list[Mapping[str, float]] | None = None
    # frames whose lids came down from a downward gaze (the recognizer's GazeWatch): no closed
    # eyes there, whatever decides them; None: none anywhere
    abajo: np.ndarray | None = None


class _Registro(Decision):
    """The rules alone, keeping every frame's inputs of the learned decision on the way."""

    def __init__(self) -> None:
        super().__init__((), [], [], [], {})
        self.filas: list[np.ndarray] = []

    def quiere_entradas(self) -> bool:
        return True

    def decidir(self, x: np.ndarray, valores: Mapping[str, float]) -> dict[str, float]:
        self.filas.append(x)
        return dict(valores)


class _Grabador(EventDetector):
    """The recognizer's own event detector, keeping every frame's scores on the way."""

    def __init__(self, tiempos: Mapping[str, Tiempos]) -> None:
        super().__init__(dict(tiempos))
        self.filas: list[
            tuple[float, Mapping[str, float], Mapping[str, str], frozenset[str], frozenset[str], Mapping[str, float]]
        ] = []

    def update(
        self,
        t: float,
        scores: Mapping[str, float],
        lados: Mapping[str, str] | None = None,
        sin_inicio: Collection[str] = (),
        claros: Collection[str] = (),
        desde: Mapping[str, float] | None = None,
    ) -> list[Evento]:
        self.filas.append((t, scores, dict(lados or {}), frozenset(sin_inicio), frozenset(claros), dict(desde or {})))
        return super().update(t, scores, lados, sin_inicio, claros, desde)


def trace(g: Grabacion, calibracion: str, feats: Sequence[Features]) -> Traza:
    """Replay the clip once with the rules alone and keep the scores the event detector was
    fed, and the learned decision's inputs (any decision's scores follow from them:
    :func:`decidida`)."""
    box: list[_Grabador] = []

    def hook(tiempos: Mapping[str, Tiempos]) -> EventDetector:
        box.append(_Grabador(tiempos))
        return box[-1]

    registro = _Registro()
    abajo: list[bool] = []
    rep = replay(g, calibracion, feats, detector=hook, decision=registro, cada=lambda rec: abajo.append(rec.gaze.abajo))
    filas = box[-1].filas
    valores = np.array([[s.get(k, 0.0) for k in GESTOS] for _, s, *_ in filas], np.float64)
    return Traza(
        np.array([f[0] for f in filas]),
        valores.reshape(len(filas), len(GESTOS)),
        [f[2] for f in filas],
        [f[3] for f in filas],
        rep.calibrando_hasta,
        rep.calidad,
        np.array(registro.filas) if registro.filas else None,
        [f[4] for f in filas],
        [f[5] for f in filas],
        np.array(abajo, bool) if any(abajo) else None,
    )


def decidida(tr: Traza, decision: Decision) -> Traza:
    """The trace as the recognizer with ``decision`` gives it: the decided gestures' scores
    from the recorded inputs (the rules' scores, the baseline and the blink watch do not
    depend on the decision, so this is exactly a replay with it)."""
    if not decision.gestos:
        return tr
    if tr.entradas is None or len(tr.entradas) != len(tr.t):
        raise ValueError("la traza no guarda las entradas de la decisión")
    valores = tr.valores.copy()
    cols = [GESTOS.index(g) for g in decision.gestos]
    valores[:, cols] = np.round(decision.probabilidades(tr.entradas)[:, cols], 4)
    if tr.abajo is not None and "ojos_cerrados" in decision.gestos:
        valores[tr.abajo, GESTOS.index("ojos_cerrados")] = 0.0  # as the recognizer's gaze veto
    return replace(tr, valores=valores)


def events(tr: Traza, tiempos: Mapping[str, Tiempos], gestos: Sequence[str] = GESTOS) -> list[Evento]:
    """The events of ``gestos`` the detector gives on the recorded scores (player's sides,
    unmirrored). Frames where none of them scores are skipped, but for the three after each
    run of scores that end it."""
    cols = [GESTOS.index(g) for g in gestos]
    sub = tr.valores[:, cols]
    live: np.ndarray = np.asarray((sub > 0).any(axis=1))
    keep = live.copy()
    for k in range(1, 4):  # the frames after a run close its gestures
        keep[k:] |= live[:-k]
    det = EventDetector(dict(tiempos))
    for i in np.flatnonzero(keep):
        scores = dict(zip(gestos, sub[i], strict=True))
        lados = {g: s for g, s in tr.lados[i].items() if g in gestos}
        desde = {g: v for g, v in tr.desde[i].items() if g in gestos} if tr.desde else None
        det.update(float(tr.t[i]), scores, lados, tr.sin_inicio[i], tr.claros[i] if tr.claros else (), desde)
    det.finish(float(tr.t[-1]) if len(tr.t) else 0.0)
    return [replace(e, lado=lado_jugador(e.lado, False) if e.gesto in CON_LADO else None) for e in det.eventos]


# (an item to score, the gestures fitted, the timings to try) -> loss of their events on it
Perdida = Callable[[Any, Sequence[str], Mapping[str, Tiempos]], float]


def fit(
    muestras: Sequence[Any], perdida: Perdida, persona: Callable[[Any], str], prior: Mapping[str, Tiempos] = TIEMPOS
) -> dict[str, Tiempos]:
    """Per gesture, the (entrar, minimo) of the grid with the lowest total ``perdida`` over
    ``muestras`` (labelled traces of the people ``persona`` names). The prior's value stands
    unless a candidate is better in total *and* for at least :data:`PERSONAS_MINIMAS` people
    more than it is worse for (one person's quirk does not move a threshold); among equals,
    the candidate nearest the prior. Two sweeps per group (a gesture's best depends on its
    partner's)."""
    tiempos = dict(prior)
    for grupo in GRUPOS:
        for _ in range(2 if len(grupo) > 1 else 1):
            for g in grupo:
                tiempos[g] = _best(g, grupo, muestras, perdida, persona, tiempos)
    return tiempos


PERSONAS_MINIMAS = 2


def _best(
    g: str,
    grupo: Sequence[str],
    muestras: Sequence[Any],
    perdida: Perdida,
    persona: Callable[[Any], str],
    tiempos: dict[str, Tiempos],
) -> Tiempos:
    def per_person(cand: Tiempos) -> dict[str, float]:
        trial = {**tiempos, g: cand}
        out: dict[str, float] = {}
        for m in muestras:
            out[persona(m)] = out.get(persona(m), 0.0) + perdida(m, grupo, trial)
        return out

    now = tiempos[g]
    base = per_person(now)

    def distance(c: Tiempos) -> float:
        return abs(c.entrar - now.entrar) / 0.1 + abs(np.log(c.minimo / max(now.minimo, 1e-6)))

    options: list[tuple[float, float, Tiempos]] = []
    for entrar in ENTRAR:
        for factor in MINIMO_FACTOR:
            cand = replace(now, entrar=entrar, minimo=round(TIEMPOS[g].minimo * factor, 3))
            if cand == now or (g == "ojos_cerrados" and cand.minimo <= BlinkSettings().longest):
                continue  # closed eyes always outlast the longest closure the blink watch calls a blink
            losses = per_person(cand)
            gain = sum(base.values()) - sum(losses.values())
            better = sum(losses[k] < base[k] for k in base) - sum(losses[k] > base[k] for k in base)
            if gain > 1e-9 and better >= PERSONAS_MINIMAS:
                options.append((-gain, distance(cand), cand))
    return min(options, key=lambda o: (o[0], o[1]))[2] if options else now


def diferencias(tiempos: Mapping[str, Tiempos], prior: Mapping[str, Tiempos] = TIEMPOS) -> dict[str, dict[str, float]]:
    """What a fit changed, as ``--umbrales``' ``tiempos`` take it."""
    out = {}
    for g, t in tiempos.items():
        p = prior.get(g, Tiempos())
        diff = {k: getattr(t, k) for k in ("entrar", "minimo") if getattr(t, k) != getattr(p, k)}
        if diff:
            out[g] = diff
    return out
