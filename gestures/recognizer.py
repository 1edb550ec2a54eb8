"""SenaRecognizer: frames in, scores and seña events out. The API the app and CLI use.

    rec = SenaRecognizer(perfil="segovia")
    for t, frame in source:                  # BGR frames, t in seconds
        res = rec.process(frame, t)          # FrameResult: landmarks, scores, events
    eventos = rec.finish()                   # every event, with its seña

The first ``calibracion`` seconds with a face measure the neutral face (nothing fires then);
``calibrate(frames)`` does it explicitly, e.g. from a "look at the camera" screen.
"""

from __future__ import annotations

import os
import statistics
from collections import deque
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import replace

import cv2
import numpy as np

from gestures.calibration import calibrate
from gestures.context import BlinkWatch, GazeWatch, MouthActivity, Veda, gaze_veto, hush, veto
from gestures.decision import Contexto, Decision, de_fabrica
from gestures.events import TIEMPOS, EventDetector, Tiempos
from gestures.features import Features, all_features
from gestures.models import Landmarkers, Observation, face_anchor, same_person, shared_landmarkers
from gestures.scorer import Baseline, Scorer, Scores, Umbrales
from gestures.types import CON_LADO, GESTOS, Calibracion, Evento, FrameResult, lado_jugador
from scoring import rules
from scoring.senas import ConjuntoSenas, conjunto_senas

SHOULDER_KEYS = ("sh_y_a", "sh_y_b", "sh_width_px", "mouth_y_px")
SHOULDER_WINDOW = 0.25  # seconds
LOST_AFTER = 3.0  # seconds without the followed face before following anyone again
CALIBRATION_PATIENCE = 3.0  # calibrations long without a still face: the quality says why
ENOUGH_NEUTRAL = 3  # neutral frames in a window that make a usable, if poor, baseline
_NO_START = frozenset(GESTOS) - {"ojos_cerrados"}


class SenaRecognizer:
    """Recognise señas in a stream of frames of one player.

    perfil: rule profile name (scoring.rules) whose seña set gives each event its ``sena``.
    mirrored: the frames are mirrored (a selfie preview); decides ``lado``.
    pose: also run the pose model (needed for the shoulder señas).
    calibracion: seconds of neutral face measured at the start.
    adaptar: let the baseline follow slow drifts (light, posture) while nothing is shown.
    umbrales, tiempos: per-frame thresholds and per-gesture timing (defaults: Umbrales(),
        events.TIEMPOS with the decision's entry thresholds; docs/senas.md explains each).
    decision: which gestures a learned model decides from the rules' scores and their context
        (default: the shipped ``gestures/decision.json``; ``Decision.ninguna()``: the rules alone).
    """

    def __init__(
        self,
        perfil: str | None = None,
        *,
        mirrored: bool = False,
        pose: bool = True,
        calibracion: float = 2.0,
        adaptar: bool = True,
        umbrales: Umbrales | None = None,
        tiempos: Mapping[str, Tiempos] | None = None,
        decision: Decision | None = None,
        landmarkers: Landmarkers | None = None,
        face_model: str | os.PathLike[str] | None = None,
        pose_model: str | os.PathLike[str] | None = None,
    ) -> None:
        # IMAGE mode on purpose: VIDEO mode smooths landmarks over time, which lags and
        # flattens short señas (a wink came out at a seventh of its size at 10 fps)
        self.landmarkers = landmarkers or shared_landmarkers("image", pose, face_model, pose_model)
        self._models = (face_model, pose_model)
        self.mirrored = mirrored
        self.scorer = Scorer(umbrales)
        self.decision = decision if decision is not None else de_fabrica()
        self.tiempos = dict(tiempos) if tiempos is not None else self.decision.tiempos(TIEMPOS)
        self.calibracion = calibracion
        self.adaptar = adaptar
        self.perfil = perfil
        self._conjunto = _sena_set(perfil)
        self.reset()

    def reset(self) -> None:
        """Forget the person: new calibration, no events."""
        self.baseline: Baseline | None = None
        self.calidad: Calibracion | None = None  # how good the baseline in use is
        self._auto = False  # the baseline came from the stream itself
        self._calib: list[tuple[float, float, Features]] = []  # time, talking, measurements
        self._calib_start: float | None = None
        self.detector = EventDetector(dict(self.tiempos))
        self.activity = MouthActivity()
        self.blinks = BlinkWatch()
        self.gaze = GazeWatch()
        self.contexto = Contexto()
        self._shoulders: deque[tuple[float, dict[str, float]]] = deque()
        self._t = 0.0
        self._anchor: tuple[float, float, float] | None = None  # followed face: x, y, size
        self._anchor_t = 0.0

    # --- calibration ----------------------------------------------------------------------

    def calibrate(self, frames: Iterable[np.ndarray] | None = None) -> Baseline | None:
        """Measure the neutral face from ``frames`` (BGR); without frames, restart the
        automatic calibration on the next ``calibracion`` seconds of the stream."""
        if frames is None:
            self.baseline, self.calidad = None, None
            self._calib, self._calib_start = [], None
            return None
        return self.calibrate_measured([self.features(f, i * 0.04)[1] for i, f in enumerate(frames)])

    def calibrate_measured(self, feats: Sequence[Features]) -> Baseline | None:
        """:meth:`calibrate` on frames already measured (None: no face in any)."""
        if not any(feats):
            return None
        self.baseline, self.calidad = calibrate(feats)  # photos, not a stream: no talking
        self._auto = False  # chosen by the caller: never replaced from the stream
        return self.baseline

    def features(self, frame_bgr: np.ndarray, t: float) -> tuple[Observation, Features]:
        """Landmarks and measurements of the followed person in one frame."""
        rgb = cv2.cvtColor(frame_bgr, cv2.COLOR_BGR2RGB)
        obs = self._follow(self.landmarkers.detect(rgb, t, near=self._anchor), t)
        return obs, all_features(frame_bgr, obs)

    def _follow(self, obs: Observation, t: float) -> Observation:
        """Keep to one person: a face far from the followed one (another player coming into
        view while ours looks away) counts as no face. After LOST_AFTER s without our face,
        follow whoever is largest again."""
        if self._anchor is not None and t - self._anchor_t > LOST_AFTER:
            self._anchor = None
        if obs.face is None:
            return obs
        x, y, size = face_anchor(obs.face)
        if self._anchor is not None:
            if not same_person((x, y, size), self._anchor):
                return Observation(obs.width, obs.height)
            ax, ay, asize = self._anchor
            x, y, size = 0.5 * (x + ax), 0.5 * (y + ay), 0.5 * (size + asize)
        self._anchor, self._anchor_t = (x, y, size), t
        return obs

    # --- frames ---------------------------------------------------------------------------

    def process(self, frame_bgr: np.ndarray, t: float) -> FrameResult:
        """One frame (BGR, any size) at time ``t`` seconds."""
        obs, feats = self.features(frame_bgr, t)
        return self.step(obs, feats, t)

    def step(self, obs: Observation, feats: Features, t: float) -> FrameResult:
        """The part of :meth:`process` after the landmarkers: measurements in, result out
        (also what replays recorded measurements)."""
        self._t = t
        feats = self._smooth_shoulders(feats, t)
        talking = self.activity.update(t, feats)
        calibrating = self.baseline is None
        base = self.baseline
        ready = base is not None and bool(feats)
        scores = self.scorer.score(feats, base) if base is not None and feats else Scores.zero()
        # a poor automatic calibration keeps looking for a still face to replace it; a frame
        # that shows something against the poor one is no neutral frame
        poor = self._auto and self.calidad is not None and not self.calidad.buena
        if feats and (calibrating or poor):
            busy = ready and max(scores.valores.values()) >= 0.3
            # a face just found cannot be told to talk yet: its other measures still judge it
            known = talking if self.activity.known(t) else 0.0
            self._collect(feats, t, 1.0 if busy else known)
        if (
            self.baseline is not None
            and feats
            and self.adaptar
            and talking < 0.2
            and max(scores.valores.values()) < 0.15
        ):
            self.baseline.blend(feats, 0.002)  # ~20 s time constant at 25 fps
        veda = (
            self.blinks.update(t, *self.scorer.closures(feats, self.baseline))
            if self.baseline is not None and feats
            else Veda()
        )
        valores = veto(hush(scores.valores, talking), veda)
        if self.decision.quiere_entradas():
            x = self.contexto.entradas(t, valores, feats, self.baseline, self.scorer, talking, veda)
            valores = veto(self.decision.decidir(x, valores), veda)  # a blink stays no seña
        # lids lowered from a downward gaze are no closed eyes (after the decision: its inputs
        # are the rules' scores before this veto, and it may not undo it)
        if feats and self.baseline is not None:
            self.gaze.update(t, self.scorer.gaze_down(feats, self.baseline))
        valores = gaze_veto(valores, self.gaze.abajo)
        scores = Scores(valores, scores.lados, scores.claros)
        # a blink never starts a seña (closed eyes excepted: a closure that lasts is one)
        # ...but a closure of both eyes that turns out a wink's narrowing was no blink
        desde = {} if veda.guino_desde is None else {"guino": veda.guino_desde}
        ended = self.detector.update(
            t, scores.valores, scores.lados, _NO_START if veda.inicio else (), scores.claros, desde
        )
        return FrameResult(
            t=t,
            cara=bool(feats),
            landmarks=None if obs.face is None else obs.face[:, :2].copy(),
            hombros=None if obs.pose is None else obs.pose[[11, 12], :2].copy(),
            puntuaciones=scores.valores,
            lados={g: lado_jugador(s, self.mirrored) or "" for g, s in scores.lados.items()},
            activos=tuple(self._provisional(e) for e in self.detector.activos(t)),
            eventos=tuple(self._with_senas(ended)),
            calibrando=calibrating,
            calibracion=self.calidad,
        )

    def _smooth_shoulders(self, feats: Features, t: float) -> Features:
        """Running median of the shoulder measurements over the last SHOULDER_WINDOW s.

        PoseLandmarker on single frames jitters by 2-5% of the shoulder width (measured on
        the astronaut with sensor noise), as much as a small shrug; the median removes the
        spikes at the cost of ~0.1 s of delay on the shoulder señas only.
        """
        keys = [k for k in SHOULDER_KEYS if k in feats]
        if not keys:
            self._shoulders.clear()
            return feats
        self._shoulders.append((t, {k: feats[k] for k in keys}))
        while self._shoulders and t - self._shoulders[0][0] > SHOULDER_WINDOW:
            self._shoulders.popleft()
        out = dict(feats)
        for k in keys:
            # the statistics module's median of a few floats is numpy's, fifty times sooner
            out[k] = float(statistics.median([row[k] for _, row in self._shoulders if k in row]))
        return out

    def _collect(self, feats: Features, t: float, talking: float) -> None:
        """Automatic calibration: the last ``calibracion`` seconds, once they hold enough
        neutral frames; ``ENOUGH_NEUTRAL`` of them make a baseline said to be poor (the face
        did not keep still), until a still face replaces it. After ``CALIBRATION_PATIENCE``
        times as long without them the quality says why (still calibrating); after twice that,
        the least bad frames make the baseline, said to be poor."""
        if self._calib_start is None:
            self._calib_start = t
        self._calib.append((t, talking, feats))
        while len(self._calib) > 3 and t - self._calib[0][0] > self.calibracion:
            self._calib.pop(0)
        if t - self._calib[0][0] < 0.9 * self.calibracion or len(self._calib) < 3:
            return  # not a whole window yet
        base, quality = calibrate([f for *_, f in self._calib], talking=[a for _, a, _ in self._calib])
        waited = (t - self._calib_start) / max(self.calibracion, 1e-6)
        enough = quality.fotogramas >= ENOUGH_NEUTRAL and self.baseline is None
        if quality.buena or enough or (self.baseline is None and waited >= 2 * CALIBRATION_PATIENCE):
            self.baseline, self.calidad, self._auto = base, quality, True
            self._calib = []
        elif self.baseline is None and waited >= CALIBRATION_PATIENCE:
            self.calidad = quality  # say why it takes so long; nothing fires on a poor face yet

    def finish(self) -> list[Evento]:
        """Close what is still held and return every event of the stream, with señas."""
        self.detector.finish(self._t)
        return self._with_senas(self.detector.eventos, all_events=True)

    @property
    def eventos(self) -> list[Evento]:
        return self._with_senas(self.detector.eventos, all_events=True)

    # --- single images --------------------------------------------------------------------

    def score_image(self, image_bgr: np.ndarray) -> tuple[bool, dict[str, float], dict[str, str]]:
        """Scores of one still image (no time, so no events): (face?, scores, sides).

        Without a calibrated baseline, typical neutral values are used; shoulders need one.
        """
        rgb = cv2.cvtColor(image_bgr, cv2.COLOR_BGR2RGB)
        marks = (
            self.landmarkers
            if self.landmarkers.mode == "image"
            else shared_landmarkers("image", self.landmarkers.has_pose, *self._models)
        )
        obs = marks.detect(rgb)
        feats = all_features(image_bgr, obs)
        if not feats:
            return False, {}, {}
        s = self.scorer.score(feats, self.baseline or Baseline())
        lados = {g: lado_jugador(v, self.mirrored) or "" for g, v in s.lados.items()}
        return True, s.valores, lados

    # --- meanings -------------------------------------------------------------------------

    def _final(self, ev: Evento) -> Evento:
        return replace(ev, lado=lado_jugador(ev.lado, self.mirrored) if ev.gesto in CON_LADO else None)

    def _provisional(self, ev: Evento) -> Evento:
        """A gesture still held, with the meaning it would have if it ended now."""
        history = [self._final(e) for e in self.detector.eventos] + [self._final(ev)]
        return replace(history[-1], sena=senas_de(self._conjunto, history)[-1])

    def _with_senas(self, new: Sequence[Evento], all_events: bool = False) -> list[Evento]:
        """Player's side and seña meaning; sequences read over every event so far."""
        if not new and not all_events:
            return []  # most frames: nothing ended, no history to read again
        history = [self._final(e) for e in self.detector.eventos]
        meanings = senas_de(self._conjunto, history)
        by_id = {id(e): m for e, m in zip(self.detector.eventos, meanings, strict=True)}
        source = self.detector.eventos if all_events else new
        return [replace(self._final(e), sena=by_id.get(id(e))) for e in source]


def _sena_set(perfil: str | None) -> ConjuntoSenas | None:
    """The seña set of a rule profile (None: no profile, events carry no meaning)."""
    if not perfil:
        return None
    return conjunto_senas(rules.perfil(perfil).senas)


def senas_de(conjunto: ConjuntoSenas | None, eventos: Sequence[Evento]) -> list[str | None]:
    """Meaning of each event in order; gestures far apart in time never form a sequence."""
    if conjunto is None or not eventos:
        return [None] * len(eventos)
    gestos = [e.gesto for e in eventos]
    tiempos = [(e.inicio, e.fin) for e in eventos]
    out: list[str | None] = []
    for lectura in conjunto.leer(gestos, tiempos=tiempos):
        for pos in lectura.indices[:-1]:
            alone = conjunto.leer([gestos[pos]])[0].sena
            out.append(alone.significado if alone else None)
        out.append(lectura.sena.significado if lectura.sena else None)
    return out
