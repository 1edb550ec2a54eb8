"""What the landmarkers saw in a clip, recorded once and replayed through the recognizer.

The landmarkers take nearly all of a frame's time (8-15 ms of 13-18 ms); what follows them
(measurements, scores, events) is plain Python. Fitting thresholds with people held out runs
the recognizer over every clip dozens of times, so each clip is read once: per frame the
followed person's :class:`gestures.models.Observation` (face mesh, blendshapes, head matrix,
pose) and the tongue measurements (the only ones that need the pixels), plus the same for the
neutral frame that ``--calibracion neutra`` calibrates on. A replay recomputes every other
measurement from the recorded landmarks with today's code and feeds
:meth:`gestures.recognizer.SenaRecognizer.step`, the path ``process`` takes after the
landmarkers, so a replay gives the events a live run gives.

Recordings live in a cache folder (``$MUSMESA_SENAS_CACHE``, else the system's temporary
folder), one ``.npz`` per clip, named by the clip's name, size, modification time,
:data:`VERSION` and the code that records (a change to it records the clips again).
"""

from __future__ import annotations

import hashlib
import io
import os
import tempfile
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Final, cast

import numpy as np

from common.files import write_atomic
from gestures.events import EventDetector, Tiempos
from gestures.features import Features, combined_features, tongue_features
from gestures.models import Landmarkers, Observation
from gestures.types import Calibracion, Evento

VERSION: Final = 1
N_FACE, N_POSE = 478, 33
CACHE_ENV: Final = "MUSMESA_SENAS_CACHE"


@dataclass
class Grabacion:
    """One clip's recorded observations; index ``-1`` of the arrays is the neutral frame."""

    t: np.ndarray  # (n,) seconds
    size: tuple[int, int]  # width, height
    face: np.ndarray  # (n + 1, 478, 3), NaN without a face
    blend_names: list[str]
    blend: np.ndarray  # (n + 1, k)
    matrix: np.ndarray  # (n + 1, 4, 4), NaN without one
    pose: np.ndarray  # (n + 1, 33, 3), NaN without one
    tongue_names: list[str]
    tongue: np.ndarray  # (n + 1, m), NaN where not measured

    @property
    def frames(self) -> int:
        return len(self.t)

    def observation(self, i: int) -> Observation:
        w, h = self.size
        face = None if np.isnan(self.face[i, 0, 0]) else self.face[i]
        if face is None:
            pose = None if np.isnan(self.pose[i, 0, 0]) else self.pose[i]
            return Observation(w, h, pose=pose)
        blend = {n: float(v) for n, v in zip(self.blend_names, self.blend[i], strict=True) if not np.isnan(v)}
        matrix = None if np.isnan(self.matrix[i, 0, 0]) else self.matrix[i]
        pose = None if np.isnan(self.pose[i, 0, 0]) else self.pose[i]
        return Observation(w, h, face, blend, matrix, pose)

    def features(self, i: int) -> Features:
        """Every measurement of frame ``i`` (``-1``: the neutral frame), as live."""
        obs = self.observation(i)
        tongue = {n: float(v) for n, v in zip(self.tongue_names, self.tongue[i], strict=True) if not np.isnan(v)}
        return combined_features(obs, tongue)


def cache_folder() -> Path:
    return Path(os.environ.get(CACHE_ENV) or Path(tempfile.gettempdir()) / "musmesa-senas")


def _key(path: Path, neutral: int | None) -> str:
    """The recording's file name: the clip, the neutral frame, :data:`VERSION` and the code
    that made it (landmarkers, person following, tongue measurements), so that a change there
    never replays a stale recording."""
    st = path.stat()
    raw = f"{path.resolve()}|{st.st_size}|{st.st_mtime_ns}|{neutral}|{VERSION}|{_code()}"
    return f"{path.stem}-{hashlib.sha1(raw.encode()).hexdigest()[:12]}.npz"


def _code() -> str:
    import gestures.features
    import gestures.models
    import gestures.recognizer

    digest = hashlib.sha1()
    for module in (gestures.models, gestures.features, gestures.recognizer):
        digest.update(Path(str(module.__file__)).read_bytes())
    return digest.hexdigest()[:12]


def record(path: Path, neutral: int | None, cache: Path | None = None) -> Grabacion:
    """The clip's recording, from the cache or made now (and cached)."""
    folder = cache or cache_folder()
    target = folder / _key(path, neutral)
    if target.is_file():
        try:
            return _load(target)
        except (OSError, ValueError, KeyError):
            pass  # a broken cache file is made again
    grab = _record(path, neutral)
    folder.mkdir(parents=True, exist_ok=True)
    _save(grab, target)
    return grab


def _record(path: Path, neutral: int | None) -> Grabacion:
    """Run the recognizer's own landmarkers and person-following over the clip."""
    from gestures.recognizer import SenaRecognizer
    from gestures.sources import VideoSource

    rec = SenaRecognizer("general")
    times: list[float] = []
    rows: list[tuple[Observation, Features]] = []
    neutral_row: tuple[Observation, Features] | None = None
    if neutral is not None:  # as ``calibrate([frame])``: a photo before the stream, at t = 0
        for i, (_, frame) in enumerate(VideoSource(path)):
            if i == neutral:
                obs = rec.features(frame, 0.0)[0]
                neutral_row = obs, tongue_features(frame, obs)
                break
        rec.reset()
    for t, frame in VideoSource(path):
        obs = rec.features(frame, t)[0]
        rows.append((obs, tongue_features(frame, obs)))
        times.append(t)
    if not rows:
        raise ValueError(f"{path}: sin fotogramas")
    w, h = rows[0][0].width, rows[0][0].height
    rows.append(neutral_row or (Observation(w, h), {}))
    return _pack(np.array(times), (w, h), rows)


def _pack(times: np.ndarray, size: tuple[int, int], rows: Sequence[tuple[Observation, Features]]) -> Grabacion:
    n = len(rows)
    blend_names = sorted({k for obs, _ in rows for k in obs.blendshapes})
    tongue_names = sorted({k for _, tg in rows for k in tg})
    face = np.full((n, N_FACE, 3), np.nan, np.float32)
    pose = np.full((n, N_POSE, 3), np.nan, np.float32)
    matrix = np.full((n, 4, 4), np.nan, np.float32)
    blend = np.full((n, len(blend_names)), np.nan, np.float32)
    tongue = np.full((n, len(tongue_names)), np.nan, np.float64)
    for i, (obs, tg) in enumerate(rows):
        if obs.face is not None:
            face[i] = obs.face
        if obs.pose is not None:
            pose[i] = obs.pose
        if obs.matrix is not None:
            matrix[i] = obs.matrix
        for j, name in enumerate(blend_names):
            blend[i, j] = obs.blendshapes.get(name, np.nan)
        for j, name in enumerate(tongue_names):
            tongue[i, j] = tg.get(name, np.nan)
    return Grabacion(times, size, face, blend_names, blend, matrix, pose, tongue_names, tongue)


def _save(g: Grabacion, path: Path) -> None:
    """Write the recording at once (a reader never finds half of one)."""
    buf = io.BytesIO()
    np.savez_compressed(
        buf,
        t=g.t,
        size=np.array(g.size),
        face=g.face,
        blend_names=np.array(g.blend_names),
        blend=g.blend,
        matrix=g.matrix,
        pose=g.pose,
        tongue_names=np.array(g.tongue_names),
        tongue=g.tongue,
    )
    write_atomic(path, buf.getvalue())


def _load(path: Path) -> Grabacion:
    with np.load(path, allow_pickle=False) as z:
        w, h = (int(v) for v in z["size"])
        return Grabacion(
            z["t"],
            (w, h),
            z["face"],
            [str(s) for s in z["blend_names"]],
            z["blend"],
            z["matrix"],
            z["pose"],
            [str(s) for s in z["tongue_names"]],
            z["tongue"],
        )


@dataclass
class Repeticion:
    """What a replay gave: the events, the last frame still calibrating (-1: calibrated
    beforehand) and the calibration in use at the end."""

    eventos: list[Evento]
    calibrando_hasta: int
    calidad: Calibracion | None


def replay(
    g: Grabacion,
    calibracion: str,
    feats: Sequence[Features] | None = None,
    detector: Callable[[Mapping[str, Tiempos]], EventDetector] | None = None,
    cada: Callable[[Any], None] | None = None,
    **recognizer: Any,
) -> Repeticion:
    """Run a recognizer (``recognizer``: its keyword arguments, e.g. ``umbrales``) over the
    recorded clip, calibrated on its neutral frame (``neutra``) or on its first seconds
    (``auto``). ``feats``: the frames' measurements already computed (index -1 neutral);
    ``detector``: makes the event detector from the recognizer's timings (to watch it);
    ``cada``: called with the recognizer after every frame (to watch its state)."""
    from gestures.recognizer import SenaRecognizer

    rows = feats if feats is not None else measurements(g)
    # duck-typed: a replay never calls the landmarkers
    rec = SenaRecognizer("general", landmarkers=cast(Landmarkers, _NoLandmarkers()), **recognizer)
    if detector is not None:
        rec.detector = detector(rec.tiempos)
    if calibracion == "neutra" and rec.calibrate_measured([rows[-1]]) is None:
        raise ValueError("no se ve la cara en el fotograma neutro")
    calibrating = -1
    blank = Observation(*g.size)
    for i, t in enumerate(g.t):
        if rec.step(blank, rows[i], float(t)).calibrando:
            calibrating = i
        if cada is not None:
            cada(rec)
    return Repeticion(rec.finish(), calibrating, rec.calidad)


def measurements(g: Grabacion) -> list[Features]:
    """Every frame's measurements, the neutral frame last."""
    return [g.features(i) for i in range(g.frames)] + [g.features(-1)]


class _NoLandmarkers:
    """Stands in for the landmarkers in a replay: the recording already holds what they saw."""

    mode = "image"
    has_pose = True

    def detect(self, *_: Any, **__: Any) -> Observation:
        raise RuntimeError("a replay does not run the landmarkers")
