"""Score `mus senas` on real clips labelled frame by frame, with both calibrations.

    python -m training.senas.evaluate                        # ../shared/realdata/senas
    python -m training.senas.evaluate CARPETA --calibracion neutra --json --salida r.json

CARPETA holds the clips and their ``labels.json`` (format: ../shared/realdata/README.md); by
default ``$MUSMESA_REALDATA/senas``, else ``../shared/realdata/senas`` next to the repository.
Each clip runs through :class:`gestures.recognizer.SenaRecognizer` exactly as ``mus senas VIDEO``
runs it (profile ``general``, not mirrored, with shoulders), under two calibrations:

- ``auto``: the recognizer's own first 2 seconds. A labelled seña that starts while it is still
  calibrating cannot fire; it is counted apart (``en_calibracion``), not as labelled;
- ``neutra``: ``calibrate()`` on one neutral frame of the same person, the middle frame of the
  clip's longest ``neutro`` label, as ``mus senas --neutra FOTO`` does.

Scoring, as the README's protocol says (frames are the clip's own, 0-based):

- a label names a gesture id of ``gestures/``, or ``guino_izquierdo`` / ``guino_derecho``: a wink
  of the eye as the *viewer* sees it. The recognizer names the *player's* side of an unmirrored
  image, so ``guino_izquierdo`` (image-left eye = the person's right) is the event
  ``guino`` / ``derecho`` and ``guino_derecho`` is ``guino`` / ``izquierdo``; a bare ``guino``
  label takes either side. Other sided gestures (``labios_lado``...) are labelled without side;
- a labelled gesture is found if an event of that gesture overlaps it within ``TOLERANCIA``
  frames; labels ending in ``?`` and ``morro_abierto`` (an open "O", a ``morro`` only maybe) are
  ambiguous: never required, and an event on them is not wrong;
- an event that overlaps (within ``TOLERANCIA``) no label of its gesture, ambiguous ones
  included, is a false event; so is an event that shares a frame with a ``parpadeo`` (a blink is
  never a seña), whatever else it overlaps;
- what fired instead: a false event within ``TOLERANCIA`` frames of a ``parpadeo`` is put down to
  the blink (counted apart too, ``en_parpadeo``); any other to the label it shares most frames
  with (gesture labels first among equals; ``sin_etiqueta`` if it touches none);
- timing: for each label found, the start of its first matching event minus the label's first
  frame, in seconds; the median per gesture.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import sys
import time
from bisect import bisect_left
from collections import Counter, defaultdict
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Final, TextIO

from gestures.decision import Decision, DecisionError, de_fabrica
from gestures.events import TIEMPOS, Tiempos
from gestures.types import GESTOS, Evento
from scoring.inputs import InputError, excerpt, read_json
from training.senas.ajuste import PERSONAS_MINIMAS, PESO_PARPADEO, Traza, decidida, diferencias, events, fit, trace
from training.senas.etiquetas import AMBIGUAS, GUINO_ETIQUETA, GUINO_LADO, MORRO_ABIERTO_DE, PARPADEO, persona
from training.senas.grabacion import measurements, record
from training.senas.modelo import (
    ENTRAR_PROBADOS,
    Modelos,
    aprendibles,
    con_gestos,
    informe_archivo,
    modelos_sin,
    sin,
)

TOLERANCIA: Final = 8  # frames an event may miss its label by
CALIBRACIONES: Final = ("auto", "neutra")
SIN_ETIQUETA: Final = "sin_etiqueta"


class EvaluationError(RuntimeError):
    """The folder, its labels or a clip cannot be evaluated; one Spanish line."""


@dataclass(frozen=True)
class Etiqueta:
    """One label of labels.json: name and its first and last frame."""

    nombre: str
    inicio: int
    fin: int
    nota: str = ""  # what the labeller saw (labels.json's fourth item)

    @property
    def gesto(self) -> str | None:
        """The gesture key this label is about (``guino_derecho``...), None for neutro/otro."""
        base = self.nombre.rstrip("?")
        if base in AMBIGUAS:
            return MORRO_ABIERTO_DE
        return base if base in GESTOS or base in GUINO_LADO else None

    @property
    def requerida(self) -> bool:
        """A gesture label that must be found (not ambiguous)."""
        return self.gesto is not None and not self.nombre.endswith("?") and (self.nombre not in AMBIGUAS)


@dataclass(frozen=True)
class EventoClip:
    """A recognised event in frames of its clip; ``clave`` as labels name it."""

    clave: str
    inicio: int
    fin: int


@dataclass
class Clip:
    nombre: str
    fps: float
    frames: int
    etiquetas: list[Etiqueta]
    carpeta: Path | None = None  # where the video is

    @property
    def ruta(self) -> Path:
        return (self.carpeta or Path()) / self.nombre


@dataclass
class Puntuacion:
    """The scoring of one clip under one calibration."""

    encontradas: dict[int, int] = field(default_factory=dict)  # label index -> event index
    falsos: dict[int, str] = field(default_factory=dict)  # event index -> label it fell on
    en_parpadeo: set[int] = field(default_factory=set)
    en_calibracion: set[int] = field(default_factory=set)  # label indices


# --- scoring (no video needed) ------------------------------------------------------------------


def clave_evento(ev: Evento) -> str:
    """The label name an event would carry: winks by the viewer's eye.

    >>> clave_evento(Evento("guino", "derecho", 1.0, 1.4, 0.9))
    'guino_izquierdo'
    >>> clave_evento(Evento("labios_lado", "izquierdo", 1.0, 1.4, 0.9))
    'labios_lado'
    """
    if ev.gesto == "guino" and ev.lado in GUINO_ETIQUETA:
        return GUINO_ETIQUETA[ev.lado]
    return ev.gesto


def _del_gesto(label: Etiqueta, clave: str) -> bool:
    g = label.gesto
    return g == clave or (g == "guino" and clave in GUINO_LADO)


def _overlap(a0: int, a1: int, b0: int, b1: int, tol: int = 0) -> bool:
    return a0 <= b1 + tol and b0 - tol <= a1


def _shared(a0: int, a1: int, b0: int, b1: int) -> int:
    return max(0, min(a1, b1) - max(a0, b0) + 1)


def score_clip(etiquetas: Sequence[Etiqueta], eventos: Sequence[EventoClip], calibrando_hasta: int = -1) -> Puntuacion:
    """Match events to labels; labels starting at or before ``calibrando_hasta`` (the last
    frame of the auto calibration) are counted apart.

    >>> labels = [Etiqueta("morro", 10, 20), Etiqueta("parpadeo", 40, 42), Etiqueta("otro", 50, 60)]
    >>> p = score_clip(labels, [EventoClip("morro", 25, 30), EventoClip("guino_derecho", 41, 44),
    ...                         EventoClip("cejas_arriba", 52, 58)])
    >>> p.encontradas, p.falsos, p.en_parpadeo
    ({0: 0}, {1: 'parpadeo', 2: 'otro'}, {1})
    """
    p = Puntuacion()
    for i, lab in enumerate(etiquetas):
        if not lab.requerida:
            continue
        if lab.inicio <= calibrando_hasta:
            p.en_calibracion.add(i)
            continue
        hits = [
            j
            for j, ev in enumerate(eventos)
            if ev.clave == lab.gesto and _overlap(ev.inicio, ev.fin, lab.inicio, lab.fin, TOLERANCIA)
        ]
        if hits:
            p.encontradas[i] = min(hits, key=lambda j: eventos[j].inicio)
    blinks = [lab for lab in etiquetas if lab.nombre == PARPADEO]
    for j, ev in enumerate(eventos):
        on_blink = any(_overlap(ev.inicio, ev.fin, b.inicio, b.fin) for b in blinks)
        matched = any(
            _del_gesto(lab, ev.clave) and _overlap(ev.inicio, ev.fin, lab.inicio, lab.fin, TOLERANCIA)
            for lab in etiquetas
        )
        if not on_blink and matched:
            continue
        if on_blink or any(_overlap(ev.inicio, ev.fin, b.inicio, b.fin, TOLERANCIA) for b in blinks):
            p.en_parpadeo.add(j)
            p.falsos[j] = PARPADEO
        else:
            p.falsos[j] = _fell_on(etiquetas, ev)
    return p


def _fell_on(etiquetas: Sequence[Etiqueta], ev: EventoClip) -> str:
    """The label a false event shares most frames with (gesture labels win ties)."""
    lab = _fell_on_label(etiquetas, ev)
    return SIN_ETIQUETA if lab is None else lab.nombre


def _fell_on_label(etiquetas: Sequence[Etiqueta], ev: EventoClip, nombre: str | None = None) -> Etiqueta | None:
    """The label (named ``nombre``, if given) a false event shares most frames with, or is
    nearest to within ``TOLERANCIA`` frames; gesture labels win ties. None if none."""
    best, best_key = None, (-TOLERANCIA - 1, 0)
    for lab in etiquetas:
        if nombre is not None and lab.nombre != nombre:
            continue
        shared = _shared(ev.inicio, ev.fin, lab.inicio, lab.fin)
        gap = 0 if shared else -min(abs(ev.inicio - lab.fin), abs(lab.inicio - ev.fin))
        key = (shared if shared else gap, lab.gesto is not None)
        if (shared > 0 or nombre is not None) and key > best_key:
            best, best_key = lab, key
    return best


def summarize(
    clips: Sequence[Clip], eventos: Mapping[str, Sequence[EventoClip]], puntuaciones: Mapping[str, Puntuacion]
) -> dict[str, Any]:
    """Per-gesture figures over all clips of one calibration (plus a ``total`` row)."""
    minutos = sum(c.frames / c.fps for c in clips) / 60.0
    rows: dict[str, dict[str, Any]] = {}
    delays: dict[str, list[float]] = {}

    def row(key: str) -> dict[str, Any]:
        return rows.setdefault(
            key,
            {
                "etiquetadas": 0,
                "encontradas": 0,
                "en_calibracion": 0,
                "eventos": 0,
                "falsos": 0,
                "en_parpadeo": 0,
                "confusion": Counter(),
            },
        )

    for clip in clips:
        p, evs = puntuaciones[clip.nombre], eventos[clip.nombre]
        for i, lab in enumerate(clip.etiquetas):
            if not lab.requerida:
                continue
            assert lab.gesto is not None
            r = row(lab.gesto)
            if i in p.en_calibracion:
                r["en_calibracion"] += 1
                continue
            r["etiquetadas"] += 1
            if i in p.encontradas:
                r["encontradas"] += 1
                ev = evs[p.encontradas[i]]
                delays.setdefault(lab.gesto, []).append((ev.inicio - lab.inicio) / clip.fps)
        for j, ev in enumerate(evs):
            r = row(ev.clave)
            r["eventos"] += 1
            if j in p.falsos:
                r["falsos"] += 1
                r["confusion"][p.falsos[j]] += 1
            r["en_parpadeo"] += j in p.en_parpadeo
    total = row("total")  # created last so that it sums the others
    for key, r in rows.items():
        if key != "total":
            for k in ("etiquetadas", "encontradas", "en_calibracion", "eventos", "falsos", "en_parpadeo"):
                total[k] += r[k]
            total["confusion"].update(r["confusion"])
    delays["total"] = [d for k, ds in delays.items() for d in ds]
    for key, r in rows.items():
        r["falsos_por_minuto"] = round(r["falsos"] / minutos, 2) if minutos else 0.0
        r["confusion"] = dict(sorted(r["confusion"].items(), key=lambda kv: (-kv[1], kv[0])))
        ds = delays.get(key)
        r["retraso_mediana_s"] = round(statistics.median(ds), 3) if ds else None
    for r in rows.values():
        # share of a gesture's events that were right, and of its labels that were found
        r["precision"] = round(1 - r["falsos"] / r["eventos"], 3) if r["eventos"] else None
        r["recall"] = round(r["encontradas"] / r["etiquetadas"], 3) if r["etiquetadas"] else None
    order = [*sorted(k for k in rows if k != "total"), "total"]
    return {
        "minutos": round(minutos, 4),
        "gestos": {k: rows[k] for k in order},
        "negativos": negatives(clips, rows["total"]["confusion"]),
    }


# the kinds of negative footage: talking or no gesture, other expressions (laughs, grimaces,
# surprise...), blinks
NEGATIVOS: Final = ("neutro", "otro", PARPADEO)


def negatives(clips: Sequence[Clip], confusion: Mapping[str, int]) -> dict[str, dict[str, float]]:
    """Per kind of negative label: its labelled seconds, the false events put down to it and
    how many a minute of it (ambiguous ``otro?`` counts as ``otro``).

    >>> c = Clip("a.mp4", 25.0, 1500, [Etiqueta("neutro", 0, 1499), Etiqueta("parpadeo", 5, 9)])
    >>> negatives([c], {"neutro": 1, "parpadeo": 1})["neutro"]
    {'segundos': 60.0, 'falsos': 1, 'falsos_por_minuto': 1.0}
    """
    out = {}
    for kind in NEGATIVOS:
        secs = sum(
            (lab.fin - lab.inicio + 1) / c.fps for c in clips for lab in c.etiquetas if lab.nombre.rstrip("?") == kind
        )
        false = sum(n for k, n in confusion.items() if k.rstrip("?") == kind)
        out[kind] = {
            "segundos": round(secs, 1),
            "falsos": false,
            "falsos_por_minuto": round(false / (secs / 60), 2) if secs else 0.0,
        }
    return out


# --- labels -------------------------------------------------------------------------------------

CARPETAS: Final = ("senas", "senas-mas", "senas-lp")  # the shared folders of labelled clips


def default_folder(name: str = "senas") -> Path:
    root = os.environ.get("MUSMESA_REALDATA")
    if root:
        return Path(root) / name
    return Path(__file__).resolve().parents[3] / "shared" / "realdata" / name


def default_folders() -> list[Path]:
    """Every shared folder of labelled clips that is there."""
    return [f for f in map(default_folder, CARPETAS) if (f / "labels.json").is_file()]


def load_labels(folder: Path) -> list[Clip]:
    """The clips of ``folder/labels.json``, each value checked; EvaluationError otherwise."""
    path = folder / "labels.json"
    try:
        doc = read_json(str(path), str(path))
    except InputError as exc:
        raise EvaluationError(str(exc)) from None
    clips = doc.get("clips") if isinstance(doc, dict) else None
    if not isinstance(clips, dict) or not clips:
        raise EvaluationError(f'{path}: se espera {{"clips": {{"video.mp4": {{...}}}}}}')
    return [_clip(path, str(name), value) for name, value in sorted(clips.items())]


def _clip(path: Path, name: str, value: object) -> Clip:
    where = f"{path}: {excerpt(name)}"
    if not isinstance(value, dict):
        raise EvaluationError(f"{where}: se espera un objeto con fps, frames y events")
    fps, frames, events = value.get("fps"), value.get("frames"), value.get("events")
    if isinstance(fps, bool) or not isinstance(fps, int | float) or not 0 < fps < 1000:
        raise EvaluationError(f"{where}: fps debe ser un número positivo")
    if isinstance(frames, bool) or not isinstance(frames, int) or frames <= 0:
        raise EvaluationError(f"{where}: frames debe ser un entero positivo")
    if not isinstance(events, list):
        raise EvaluationError(f"{where}: events debe ser una lista")
    return Clip(name, float(fps), frames, [_label(where, e, frames) for e in events], path.parent)


def _label(where: str, e: object, frames: int) -> Etiqueta:
    ok = (
        isinstance(e, list)
        and len(e) >= 3
        and isinstance(e[0], str)
        and all(isinstance(x, int) and not isinstance(x, bool) for x in e[1:3])
    )
    if not ok:
        raise EvaluationError(f"{where}: evento {excerpt(e)}: se espera [etiqueta, primero, último, nota]")
    assert isinstance(e, list)
    if not 0 <= e[1] <= e[2] < frames:
        raise EvaluationError(f"{where}: evento {excerpt(e)}: fotogramas fuera del clip")
    return Etiqueta(e[0], e[1], e[2], e[3] if len(e) > 3 and isinstance(e[3], str) else "")


def neutral_frame(clip: Clip) -> int:
    """Middle frame of the clip's longest ``neutro`` label (the first of equals)."""
    neutros = [lab for lab in clip.etiquetas if lab.nombre == "neutro"]
    if not neutros:
        raise EvaluationError(f"{clip.nombre}: no tiene ninguna etiqueta neutro para calibrar")
    best = max(neutros, key=lambda lab: lab.fin - lab.inicio)
    return (best.inicio + best.fin) // 2


# --- running the recognizer -----------------------------------------------------------------------


@dataclass
class Recorrido:
    """One clip replayed once per calibration: the scores its event detector was fed."""

    clip: Clip
    trazas: dict[str, Traza]


def run_clip(clip: Clip, calibraciones: Sequence[str], cache: Path | None = None) -> Recorrido:
    """Read the clip once through the recognizer's landmarkers (or its recording in the cache)
    and replay it under each calibration, as ``mus senas`` runs it: profile ``general``, not
    mirrored, with shoulders; ``neutra`` calibrates on :func:`neutral_frame` first."""
    from gestures.models import ModelError
    from gestures.sources import SourceError

    try:
        grab = record(clip.ruta, neutral_frame(clip) if "neutra" in calibraciones else None, cache)
        feats = measurements(grab)
        return Recorrido(clip, {cal: trace(grab, cal, feats) for cal in calibraciones})
    except (ModelError, SourceError, ValueError) as exc:
        raise EvaluationError(f"{clip.nombre}: {exc}") from None


def clip_events(
    tr: Traza, tiempos: Mapping[str, Tiempos] = TIEMPOS, gestos: Sequence[str] = GESTOS
) -> list[EventoClip]:
    """The events of a replayed clip under ``tiempos``, in frames of the clip."""
    times = list(tr.t)
    return [
        EventoClip(clave_evento(e), _index(times, e.inicio), _index(times, e.fin)) for e in events(tr, tiempos, gestos)
    ]


def _gesture_of(label: Etiqueta) -> str | None:
    g = label.gesto
    return "guino" if g in GUINO_LADO else g


def loss(muestra: tuple[Clip, Traza], grupo: Sequence[str], tiempos: Mapping[str, Tiempos]) -> float:
    """What the fit minimises on one clip for some gestures: their labelled señas missed, plus
    their false events (those on a blink count ``PESO_PARPADEO`` times)."""
    clip, tr = muestra
    p = score_clip(clip.etiquetas, clip_events(tr, tiempos, grupo), tr.calibrando_hasta)
    missed = sum(
        1
        for i, lab in enumerate(clip.etiquetas)
        if lab.requerida and _gesture_of(lab) in grupo and i not in p.encontradas and i not in p.en_calibracion
    )
    return missed + len(p.falsos) + (PESO_PARPADEO - 1) * len(p.en_parpadeo)


def fit_without(recorridos: Sequence[Recorrido], fuera: str | None) -> dict[str, Tiempos]:
    """The event thresholds fitted on every person but ``fuera`` (None: on all; a person is
    :func:`training.senas.etiquetas.persona` of a clip), both calibrations together."""
    muestras = [(r.clip, tr) for r in recorridos if persona(r.clip.nombre) != fuera for tr in r.trazas.values()]
    return fit(muestras, loss, lambda m: persona(m[0].nombre))


def _index(times: Sequence[float], t: float) -> int:
    """Frame whose timestamp is nearest ``t`` (event times are frame times)."""
    i = bisect_left(times, t)
    if i >= len(times):
        return len(times) - 1
    return i if i == 0 or times[i] - t <= t - times[i - 1] else i - 1


def load_clips(folders: Sequence[Path]) -> list[Clip]:
    """The clips of every folder; a clip name found in two folders is an error (the report
    names clips by file)."""
    clips: list[Clip] = []
    for folder in folders:
        for clip in load_labels(folder):
            if not clip.ruta.is_file():
                raise EvaluationError(f"no existe el clip {clip.ruta}")
            if any(c.nombre == clip.nombre for c in clips):
                raise EvaluationError(f"{clip.nombre}: el mismo nombre en dos carpetas")
            clips.append(clip)
    return clips


def evaluate(
    folders: Path | Sequence[Path],
    calibraciones: Sequence[str] = CALIBRACIONES,
    log: TextIO | None = None,
    cache: Path | None = None,
    fuera_de_muestra: bool = False,
    decision: Decision | None = None,
) -> dict[str, Any]:
    """The whole report: per calibration, per-gesture figures and each clip's events with the
    recognizer as shipped (``decision``: another learned decision in its place); with
    ``fuera_de_muestra`` also each person scored with what was fitted without them (each clip is
    one person: :func:`held_out`). A line per clip on ``log``."""
    folders = [folders] if isinstance(folders, Path) else list(folders)
    clips = load_clips(folders)
    start = time.monotonic()
    recorridos = []
    for clip in clips:
        if log is not None:
            print(f"evaluate: {clip.nombre} ({clip.frames} fotogramas)", file=log, flush=True)
        recorridos.append(run_clip(clip, calibraciones, cache))
    try:
        shipped = decision if decision is not None else de_fabrica()
    except DecisionError as exc:  # the shipped file is for other inputs: say so, in one line
        raise EvaluationError(str(exc)) from None
    report: dict[str, Any] = {
        "carpeta": ", ".join(str(f) for f in folders),
        "carpetas": [str(f) for f in folders],
        "clips": len(clips),
        "fotogramas": sum(c.frames for c in clips),
        "tolerancia_fotogramas": TOLERANCIA,
        "decision_de_fabrica": list(shipped.gestos),
        "calibraciones": _summaries(recorridos, calibraciones, lambda _: TIEMPOS, lambda _: shipped),
    }
    report["segundos"] = round(time.monotonic() - start, 1)
    if fuera_de_muestra:
        fits = {p: fit_without(recorridos, p) for p in dict.fromkeys(persona(c.nombre) for c in clips)}
        report.update(held_out(recorridos, calibraciones, fits))
        report["ajustes_fuera_de_muestra"] = {k: diferencias(v) for k, v in fits.items()}
        report["ajuste_con_todos"] = diferencias(fit_without(recorridos, None))
    return report


def held_out(
    recorridos: Sequence[Recorrido], calibraciones: Sequence[str], fits: Mapping[str, Mapping[str, Tiempos]]
) -> dict[str, Any]:
    """Every person scored with what was fitted without them: the rules alone (their event
    thresholds), the learned decision for every gesture with labelled señas, and the two mixed
    as the fit ships them. Without each person, per gesture, the decision's entry threshold and
    whether it replaces the rules are chosen on the other people, each scored with a model
    fitted without both (:func:`choose`). ``fuera_de_muestra`` is the mix."""
    learnable = aprendibles(recorridos)
    people = list(dict.fromkeys(persona(r.clip.nombre) for r in recorridos))
    modelos = modelos_sin(recorridos)
    eleccion = {p: choose(recorridos, fits, modelos, learnable, p) for p in [*people, None]}

    def rules(_: str) -> Decision:
        return Decision.ninguna()

    def learned(p: str) -> Decision:
        m = sin(modelos, None, p)
        return Decision.ninguna() if m is None else con_gestos(m, learnable, eleccion[p][1])

    def mixed(p: str) -> Decision:
        m = sin(modelos, None, p)
        chosen, entrar = eleccion[p]
        return Decision.ninguna() if m is None else con_gestos(m, chosen, {g: entrar[g] for g in chosen})

    def timings_of(decide: Callable[[str], Decision]) -> Callable[[str], Mapping[str, Tiempos]]:
        def timings(p: str) -> Mapping[str, Tiempos]:
            return decide(p).tiempos(fits[p])

        return timings

    reglas = _summaries(recorridos, calibraciones, timings_of(rules), rules)
    aprendida = _summaries(recorridos, calibraciones, timings_of(learned), learned)
    mezcla = _summaries(recorridos, calibraciones, timings_of(mixed), mixed)
    final = modelos[(None, None)]
    chosen, entrar = eleccion[None]
    ship = None if final is None else con_gestos(final, chosen, {g: entrar[g] for g in chosen})
    return {
        "fuera_de_muestra": mezcla,
        "reglas_fuera_de_muestra": reglas,
        "aprendida_fuera_de_muestra": aprendida,
        "decision": {
            "aprendibles": learnable,
            "elegidos_por_persona": {p: eleccion[p][0] for p in people},
            "elegidos": chosen,
            "entrar": entrar,
            "modelo": None if ship is None else ship.to_dict(),
            "archivo": informe_archivo(recorridos, reglas, aprendida, mezcla, chosen),
        },
    }


def choose(
    recorridos: Sequence[Recorrido],
    fits: Mapping[str, Mapping[str, Tiempos]],
    modelos: Modelos,
    learnable: Sequence[str],
    fuera: str | None,
) -> tuple[list[str], dict[str, float]]:
    """Without ``fuera`` (None: with everyone), per gesture, the entry threshold of the model's
    probability with the lowest loss over the other people, each held out in turn; and the
    gestures the model takes over: where that loss is lower than the rules' in total *and* for
    at least :data:`training.senas.ajuste.PERSONAS_MINIMAS` people more than it is higher for
    (as for the event thresholds: one person's quirk does not move the decision; ties keep the
    rules). Returns (those gestures, the threshold of every gesture)."""
    rules: dict[str, dict[str, float]] = {}  # person -> gesture -> loss
    tried: dict[float, dict[str, dict[str, float]]] = {e: {} for e in ENTRAR_PROBADOS}
    for r in recorridos:
        q = persona(r.clip.nombre)
        m = None if q == fuera else sin(modelos, fuera, q)
        if m is None:
            continue
        _add(rules.setdefault(q, {}), _losses(r, fits[q], Decision.ninguna()))
        for e, per_person in tried.items():
            decide = con_gestos(m, learnable, dict.fromkeys(learnable, e))
            _add(per_person.setdefault(q, {}), _losses(r, decide.tiempos(fits[q]), decide))

    def total(losses: Mapping[str, Mapping[str, float]], g: str) -> float:
        return sum(person.get(g, 0.0) for person in losses.values())

    # among equal losses the highest threshold: the nearest to the rules' 0.6
    entrar = {g: min(ENTRAR_PROBADOS, key=lambda e: (total(tried[e], g), -e)) for g in learnable}
    chosen = []
    for g in learnable:
        learned = tried[entrar[g]]
        better = sum(learned[q].get(g, 0.0) < rules[q].get(g, 0.0) for q in rules)
        worse = sum(learned[q].get(g, 0.0) > rules[q].get(g, 0.0) for q in rules)
        if total(learned, g) < total(rules, g) and better - worse >= PERSONAS_MINIMAS:
            chosen.append(g)
    return chosen, entrar


def _add(into: dict[str, float], more: Mapping[str, float]) -> None:
    for k, v in more.items():
        into[k] = into.get(k, 0.0) + v


def _losses(r: Recorrido, tiempos: Mapping[str, Tiempos], decision: Decision) -> defaultdict[str, float]:
    """Per gesture, over a clip's calibrations: labelled señas missed plus false events (on a
    blink ``PESO_PARPADEO`` times), with ``decision`` and ``tiempos``."""
    out: defaultdict[str, float] = defaultdict(float)
    for tr0 in r.trazas.values():
        tr = decidida(tr0, decision)
        evs = clip_events(tr, tiempos)
        p = score_clip(r.clip.etiquetas, evs, tr.calibrando_hasta)
        for i, lab in enumerate(r.clip.etiquetas):
            g = _gesture_of(lab)
            if lab.requerida and g is not None and i not in p.encontradas and i not in p.en_calibracion:
                out[g] += 1
        for j in p.falsos:
            clave = evs[j].clave
            out["guino" if clave in GUINO_LADO else clave] += PESO_PARPADEO if j in p.en_parpadeo else 1.0
    return out


def _summaries(
    recorridos: Sequence[Recorrido],
    calibraciones: Sequence[str],
    tiempos_de: Callable[[str], Mapping[str, Tiempos]],
    decision_de: Callable[[str], Decision] | None = None,
) -> dict[str, Any]:
    """Per calibration, the summary of every clip's events under ``tiempos_de(clip name)`` and
    ``decision_de(clip name)`` (default: the rules alone)."""
    out = {}
    for cal in calibraciones:
        eventos, puntuaciones, detail = {}, {}, {}
        for r in recorridos:
            clip = r.clip
            who = persona(clip.nombre)
            tr = r.trazas[cal] if decision_de is None else decidida(r.trazas[cal], decision_de(who))
            evs = clip_events(tr, tiempos_de(who))
            p = score_clip(clip.etiquetas, evs, tr.calibrando_hasta)
            eventos[clip.nombre], puntuaciones[clip.nombre] = evs, p
            detail[clip.nombre] = _clip_detail(clip, evs, p, tr.calibrando_hasta, cal)
            detail[clip.nombre]["calibracion"] = None if tr.calidad is None else tr.calidad.to_dict()
        summary = summarize([r.clip for r in recorridos], eventos, puntuaciones)
        summary["clips"] = detail
        folders = dict.fromkeys(r.clip.carpeta for r in recorridos)
        if len(folders) > 1:  # each folder alone: senas-lp is the one no hand rule was set on
            summary["por_carpeta"] = {
                str(f.name if f else ""): summarize(
                    [r.clip for r in recorridos if r.clip.carpeta == f], eventos, puntuaciones
                )["gestos"]["total"]
                for f in folders
            }
        summary["parpadeos"] = blinks_seen(recorridos, cal)
        out[cal] = summary
    return out


def blinks_seen(recorridos: Sequence[Recorrido], cal: str) -> dict[str, int]:
    """How the recognizer's blink watch did: labelled blinks (after the calibration) during
    which, or within 2 frames of which, it barred señas from starting; and the frames it
    barred away from any blink, wink or closed-eyes label (8 frames after them allowed)."""
    seen = labelled = barred = frames = 0
    for r in recorridos:
        tr = r.trazas[cal]
        bar = [bool(s) for s in tr.sin_inicio]
        eyes: set[int] = set()
        for lab in r.clip.etiquetas:
            base = lab.nombre.rstrip("?")
            if lab.nombre == PARPADEO and lab.inicio > tr.calibrando_hasta:
                labelled += 1
                seen += any(bar[max(0, lab.inicio - 2) : lab.fin + 3])
            if base in (PARPADEO, "ojos_cerrados") or base.startswith("guino"):
                eyes.update(range(lab.inicio - 2, lab.fin + TOLERANCIA + 1))
        away = [i for i in range(tr.calibrando_hasta + 1, len(bar)) if i not in eyes]
        frames += len(away)
        barred += sum(bar[i] for i in away)
    return {"etiquetados": labelled, "vistos": seen, "fotogramas_vetados_lejos": barred, "fotogramas_lejos": frames}


def _what_face_did(clip: Clip, ev: EventoClip, sobre: str) -> str:
    """The note of the label a false event fell on (the blink's, on a blink): what the face
    was doing."""
    lab = _fell_on_label(clip.etiquetas, ev, sobre if sobre != SIN_ETIQUETA else None)
    return "" if lab is None else f"{lab.nombre} {lab.inicio}-{lab.fin}: {lab.nota}".strip()


def _clip_detail(clip: Clip, evs: Sequence[EventoClip], p: Puntuacion, calibrando: int, cal: str) -> dict[str, Any]:
    out: dict[str, Any] = {
        "fps": clip.fps,
        "fotogramas": clip.frames,
        "calibrando_hasta": calibrando,
        "eventos": [
            {
                "gesto": e.clave,
                "inicio": e.inicio,
                "fin": e.fin,
                "segundo": round(e.inicio / clip.fps, 2),
                "falso": j in p.falsos,
                "sobre": p.falsos.get(j),
                **({"cara": _what_face_did(clip, e, p.falsos[j])} if j in p.falsos else {}),
            }
            for j, e in enumerate(evs)
        ],
        "no_encontradas": [
            [lab.nombre, lab.inicio, lab.fin]
            for i, lab in enumerate(clip.etiquetas)
            if lab.requerida and i not in p.encontradas and i not in p.en_calibracion
        ],
    }
    if cal == "neutra":
        out["fotograma_neutro"] = neutral_frame(clip)
    return out


# --- output -------------------------------------------------------------------------------------


def format_report(report: Mapping[str, Any]) -> str:
    mins = next(iter(report["calibraciones"].values()))["minutos"] if report["calibraciones"] else 0
    lines = [
        f"{report['carpeta']}: {report['clips']} clips, {report['fotogramas']} fotogramas "
        f"({mins * 60:.1f} s); encontrada = un evento del gesto a {TOLERANCIA} fotogramas "
        "o menos"
    ]
    parts = [("en muestra (los umbrales de fábrica, ajustados con todos los clips)", report["calibraciones"])]
    if "fuera_de_muestra" in report:
        parts.append(
            ("fuera de muestra (cada persona con los umbrales ajustados sin ella)", report["fuera_de_muestra"])
        )
    for title, summaries in parts:
        lines += ["", f"== {title}"]
        lines += _tables(summaries)
    if "fuera_de_muestra" in report:
        lines += ["", "resumen: calibración, señas encontradas, falsos (por minuto, en parpadeo)"]
        for cal in report["calibraciones"]:
            for name, summaries in (
                ("en muestra", report["calibraciones"]),
                ("fuera de muestra", report["fuera_de_muestra"]),
            ):
                t = summaries[cal]["gestos"]["total"]
                lines.append(
                    f"  {cal:<7}{name:<17}{t['encontradas']:>3} de {t['etiquetadas']:<3}"
                    f"{t['falsos']:>4} falsos ({t['falsos_por_minuto']:.2f}/min, "
                    f"{t['en_parpadeo']} en parpadeo)"
                )
                for folder, t in summaries[cal].get("por_carpeta", {}).items():
                    lines.append(
                        f"  {'':<9}{folder:<15}{t['encontradas']:>3} de {t['etiquetadas']:<3}"
                        f"{t['falsos']:>4} falsos ({t['falsos_por_minuto']:.2f}/min, "
                        f"{t['en_parpadeo']} en parpadeo)"
                    )
        lines += ["", *format_failures(report["fuera_de_muestra"])]
        lines += ["", *format_decision(report).splitlines()]
        changed = report.get("ajuste_con_todos") or {}
        lines.append(
            "ajuste con todos los clips frente a los de fábrica: "
            + (json.dumps(changed, ensure_ascii=False) if changed else "igual")
        )
    lines += [
        "",
        "etiq.: señas etiquetadas (sin las ambiguas ni las que empiezan durante la "
        "calibración automática, que van en calib.); parp.: falsos sobre un parpadeo; "
        "prec.: eventos acertados / eventos; recall: encontradas / etiquetadas; "
        "retraso: mediana de inicio del evento - inicio de la etiqueta; negativos: neutro "
        "(hablar, sin gesto), otro (risa, mueca, sorpresa...), parpadeo",
    ]
    return "\n".join(lines)


def format_failures(summaries: Mapping[str, Any]) -> list[str]:
    """Every false event (clip, second, gesture, what the face was doing) and every missed
    seña, per calibration."""
    lines = ["fallos fuera de muestra: falsos (clip, segundo, gesto, sobre qué) y señas no encontradas"]
    for cal, s in summaries.items():
        for name, c in s["clips"].items():
            for e in c["eventos"]:
                if e["falso"]:
                    lines.append(f"  {cal:<7}falso    {name} {e['segundo']:.2f} s {e['gesto']}: {e.get('cara', '')}")
            for lab, first, _last in c["no_encontradas"]:
                lines.append(f"  {cal:<7}perdida  {name} {first / c['fps']:.2f} s {lab}")
    return lines


DECISIONES: Final = (
    ("reglas", "reglas_fuera_de_muestra"),
    ("aprendida", "aprendida_fuera_de_muestra"),
    ("mezcla", "fuera_de_muestra"),
)


def format_decision(report: Mapping[str, Any]) -> str:
    """Held out, the rules alone against the learned decision and the mix that ships: señas
    found, false events, those on a blink; per calibration, then per gesture."""
    d = report["decision"]
    lines = [
        "decisión aprendida frente a las reglas, fuera de muestra (cada persona con lo ajustado sin ella):",
        "  calibración decisión    encontradas  falsos (por minuto, en parpadeo)",
    ]
    for cal in report["calibraciones"]:
        for name, key in DECISIONES:
            t = report[key][cal]["gestos"]["total"]
            lines.append(
                f"  {cal:<12}{name:<12}{t['encontradas']:>3} de {t['etiquetadas']:<6}{t['falsos']:>3} "
                f"({t['falsos_por_minuto']:.2f}/min, {t['en_parpadeo']} en parpadeo)"
            )
    lines.append("  por gesto (ambas calibraciones): encontradas/etiquetadas, falsos; reglas | aprendida")
    for g in d["aprendibles"]:
        cells = []
        for _, key in DECISIONES[:2]:
            rows = [
                r
                for cal in report["calibraciones"]
                for clave, r in report[key][cal]["gestos"].items()
                if clave == g or (g == "guino" and clave in GUINO_LADO)
            ]
            found, labelled, false = (sum(r[k] for r in rows) for k in ("encontradas", "etiquetadas", "falsos"))
            cells.append(f"{found}/{labelled}, {false}")
        lines.append(f"  {g:<16}{cells[0]:<12}| {cells[1]}")
    lines.append(f"  la decisión aprendida decide: {', '.join(d['elegidos']) or 'nada (las reglas en todo)'}")
    return "\n".join(lines)


def _tables(summaries: Mapping[str, Any]) -> list[str]:
    head = (
        f"{'gesto':<16}{'etiq.':>6}{'encon.':>7}{'calib.':>7}{'eventos':>8}{'falsos':>7}"
        f"{'/min':>7}{'parp.':>6}{'prec.':>6}{'recall':>7}{'retraso':>9}  "
        "confusión (falsos sobre)"
    )
    lines: list[str] = []
    for cal, s in summaries.items():
        # one neutral photo is always few frames: that is the protocol, not a poor face
        said_of = {"pocos_fotogramas"} if cal == "neutra" else set()
        poor = sorted(
            name
            for name, c in s["clips"].items()
            if c.get("calibracion") is None or set(c["calibracion"]["problemas"]) - said_of
        )
        said = f"; calibración pobre o sin acabar en {', '.join(poor)}" if poor else ""
        lines += ["", f"calibración {cal}{said}", head]
        for g, r in s["gestos"].items():
            delay = "-" if r["retraso_mediana_s"] is None else f"{r['retraso_mediana_s']:+.2f} s"
            conf = ", ".join(f"{k} {n}" for k, n in r["confusion"].items())
            lines.append(
                f"{g:<16}{r['etiquetadas']:>6}{r['encontradas']:>7}"
                f"{r['en_calibracion']:>7}{r['eventos']:>8}{r['falsos']:>7}"
                f"{r['falsos_por_minuto']:>7.2f}{r['en_parpadeo']:>6}"
                f"{_share(r['precision']):>6}{_share(r['recall']):>7}{delay:>9}  {conf}"
            )
        b = s["parpadeos"]
        lines.append(
            f"parpadeos vistos: {b['vistos']} de {b['etiquetados']}; fotogramas vetados "
            f"lejos de ojos etiquetados: {b['fotogramas_vetados_lejos']} de "
            f"{b['fotogramas_lejos']}"
        )
        lines.append(
            "falsos por tipo de negativo: "
            + "; ".join(
                f"{k} {n['falsos']} en {n['segundos']:.0f} s ({n['falsos_por_minuto']:.2f}/min)"
                for k, n in s["negativos"].items()
            )
        )
    return lines


def _share(x: float | None) -> str:
    return "-" if x is None else f"{x:.2f}"


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m training.senas.evaluate", description="Mide `mus senas` en clips reales etiquetados."
    )
    parser.add_argument(
        "carpetas",
        nargs="*",
        type=Path,
        metavar="CARPETA",
        help="carpetas con labels.json y los clips (por defecto senas, "
        "senas-mas y senas-lp de $MUSMESA_REALDATA o ../shared/realdata)",
    )
    parser.add_argument("--calibracion", choices=("auto", "neutra", "ambas"), default="ambas")
    parser.add_argument(
        "--fuera-de-muestra",
        action="store_true",
        help="también cada persona medida con los umbrales ajustados sin ella",
    )
    parser.add_argument(
        "--cache",
        type=Path,
        default=None,
        help="carpeta de las grabaciones de los clips (por defecto $MUSMESA_SENAS_CACHE o la temporal del sistema)",
    )
    parser.add_argument("--json", action="store_true", help="salida JSON")
    parser.add_argument("--salida", type=Path, help="escribe también el informe JSON aquí")
    args = parser.parse_args(argv)
    folders = args.carpetas or default_folders()
    if not folders:
        print("evaluate: no hay clips etiquetados (ni senas, senas-mas ni senas-lp)", file=sys.stderr)
        return 2
    cals = CALIBRACIONES if args.calibracion == "ambas" else (args.calibracion,)
    try:
        report = evaluate(folders, cals, log=sys.stderr, cache=args.cache, fuera_de_muestra=args.fuera_de_muestra)
    except EvaluationError as exc:
        print(f"evaluate: {' '.join(str(exc).split())}", file=sys.stderr)
        return 2
    text = json.dumps(report, ensure_ascii=False, indent=1)
    if args.salida:
        args.salida.write_text(text + "\n", encoding="utf-8")
    print(text if args.json else format_report(report))
    return 0


if __name__ == "__main__":
    sys.exit(main())
