"""Benchmark of seña recognition (not a test): speed per frame and delay to an event.

    PYTHONPATH=. .venv/bin/python benchmarks/bench_gestures.py [--frames 60] [--fps 25]
    PYTHONPATH=. .venv/bin/python benchmarks/bench_gestures.py --interleaved [--frames 200]

1. Milliseconds per 640x480 frame of a 25 fps stream (median, mean, 95th percentile):
   FaceLandmarker alone (IMAGE and VIDEO mode), FaceLandmarker + PoseLandmarker (the pose
   model runs every ``POSE_EVERY`` s of stream time, its last answer standing between), and the
   whole SenaRecognizer.process (landmarkers, features incl. the tongue colour test, scores,
   talking, events).
2. Delay from a gesture's start to its event, on synthetic señas made from the astronaut
   portrait (training.senas.synthetic_faces) at ``--fps``: when the gesture shows up in
   ``FrameResult.activos`` (confirmed, still held) and when its finished event comes out,
   counted from the start / the end of the gesture. Timestamps are the stream's, so the
   figures are the algorithm's (hysteresis, minimum duration), not this CPU's speed.

``--interleaved`` measures only what the recognizer adds to its landmarkers, fairly on a shared
CPU: the landmarkers alone and the whole recognizer (each with its own instance, IMAGE mode as
the recognizer runs) take turns frame by frame in one process, so both see the same load; with
and without the pose model. The recognizer is handed BGR frames, as from a camera, and pays
its own conversion to RGB; the landmarkers alone get the RGB frame ready.
"""

from __future__ import annotations

import argparse
import os
import statistics
import time
from collections.abc import Callable
from functools import partial

import cv2
import numpy as np
from skimage import data

from gestures.models import POSE_EVERY, Landmarkers, face_anchor
from gestures.recognizer import SenaRecognizer
from training.senas import synthetic_faces as S

GESTURES = {  # recipe -> gesture id
    "guino_b": "guino",
    "ojos_cerrados": "ojos_cerrados",
    "cejas_arriba": "cejas_arriba",
    "morro": "morro",
    "labios_lado_a": "labios_lado",
    "labio_mordido": "labio_mordido",
    "lengua_fuera": "lengua_fuera",
    "lengua_lado_b": "lengua_lado",
    "hombros_arriba": "hombros_arriba",
    "hombro_arriba_a": "hombro_arriba",
}


def frame640() -> np.ndarray:
    return cv2.resize(data.astronaut()[:384], (640, 480))[:, :, ::-1].copy()


def timings_ms(fn: Callable[[int], object], n: int) -> tuple[float, float, float]:
    """Median, mean and 95th percentile of ``n`` calls (after one warm-up call)."""
    fn(0)
    times = []
    for i in range(1, n + 1):
        t0 = time.perf_counter()
        fn(i)
        times.append((time.perf_counter() - t0) * 1000)
    return statistics.median(times), statistics.fmean(times), float(np.percentile(times, 95))


def speed(n: int) -> dict[str, tuple[float, float, float]]:
    bgr = frame640()
    rgb = bgr[:, :, ::-1].copy()
    out = {}
    for mode in ("image", "video"):
        # a stream follows one person (the recognizer passes where their face was): the
        # one-face tracker; a still image searches among several faces
        face = Landmarkers(mode, pose=False)
        near = face_anchor(face.detect(rgb, 0.0).face) if mode == "video" else None
        out[f"face ({mode})"] = timings_ms(lambda i, f=face, a=near: f.detect(rgb, i / 25, a), n)
        both = Landmarkers(mode, pose=True)
        out[f"face+pose ({mode})"] = timings_ms(lambda i, b=both, a=near: b.detect(rgb, i / 25, a), n)
        face.close()
        both.close()
    rec = SenaRecognizer("general", pose=True, calibracion=0.0)
    out[f"SenaRecognizer.process, face + pose every {POSE_EVERY:g} s"] = timings_ms(
        lambda i: rec.process(bgr, i / 25), n
    )
    rec = SenaRecognizer("general", pose=False, calibracion=0.0)
    out["SenaRecognizer.process, face only"] = timings_ms(lambda i: rec.process(bgr, i / 25), n)
    return out


def interleaved(n: int, frame: np.ndarray | None = None) -> dict[str, tuple[float, float, float]]:
    """Median ms a frame of the landmarkers alone and of the whole recognizer, and the
    median of their frame-by-frame difference, taking turns frame by frame (who goes first
    changes every frame; the first 5 frames are warm-up); without and with the pose model."""
    bgr = frame640() if frame is None else frame
    rgb = bgr[:, :, ::-1].copy()
    out = {}
    for pose in (False, True):
        alone = Landmarkers("image", pose=pose)
        rec = SenaRecognizer("general", pose=pose, calibracion=0.0, landmarkers=Landmarkers("image", pose=pose))
        a, b = _turns((partial(alone.detect, rgb), partial(rec.process, bgr)), n)
        name = f"face and pose every {POSE_EVERY:g} s" if pose else "face"
        out[name] = (
            statistics.median(a),
            statistics.median(b),
            statistics.median(y - x for x, y in zip(a, b, strict=True)),
        )
        alone.close()
        rec.landmarkers.close()
    return out


def _turns(runs: tuple[Callable[[float], object], Callable[[float], object]], n: int) -> list[list[float]]:
    """Milliseconds of each of ``runs`` on frames 5..n+5 of a 25 fps stream, turn about."""
    times: list[list[float]] = [[], []]
    for i in range(n + 5):
        for k in (0, 1) if i % 2 else (1, 0):
            t0 = time.perf_counter()
            runs[k](i / 25)
            if i >= 5:
                times[k].append((time.perf_counter() - t0) * 1000)
    return times


def delays(fps: float) -> dict[str, tuple[float | None, float | None]]:
    img = frame640()
    obs = Landmarkers("image", pose=True).detect(img[:, :, ::-1].copy())
    recipes = S.recipes(img, obs.face, obs.pose)
    start, ramp, hold = 1.2, 0.1, 0.8
    out: dict[str, tuple[float | None, float | None]] = {}
    for recipe, gesto in GESTURES.items():
        rec = SenaRecognizer(pose=gesto.startswith("hombro"), calibracion=1.0)
        confirmed = ended = None
        for t, frame in S.sequence(img, recipes[recipe], fps, before=start, ramp=ramp, hold=hold, after=0.8):
            res = rec.process(frame, t)
            if confirmed is None and any(e.gesto == gesto for e in res.activos):
                confirmed = t - start
            if ended is None and any(e.gesto == gesto for e in res.eventos):
                ended = t - (start + 2 * ramp + hold)
        out[gesto] = (confirmed, ended)
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--frames", type=int, default=60)
    parser.add_argument("--fps", type=float, default=25.0)
    parser.add_argument(
        "--interleaved", action="store_true", help="only the recognizer against its landmarkers, turn about"
    )
    args = parser.parse_args()
    load = os.getloadavg()[0] if hasattr(os, "getloadavg") else float("nan")
    print(f"CPU cores: {os.cpu_count()}, load average at start: {load:.1f}\n")
    if args.interleaved:
        print("| 640x480 frame, 25 fps, image mode | landmarkers alone ms | whole recognizer ms | difference ms |")
        print("| --- | --- | --- | --- |")
        for name, (alone, whole, diff) in interleaved(args.frames).items():
            print(f"| {name} | {alone:.2f} | {whole:.2f} | {diff:.2f} |")
        end = os.getloadavg()[0] if hasattr(os, "getloadavg") else float("nan")
        print(f"\nload average at the end: {end:.1f}")
        return
    print("| what (640x480 frame, 25 fps stream) | median ms | mean ms | 95th pct ms |")
    print("| --- | --- | --- | --- |")
    for name, (med, mean, p95) in speed(args.frames).items():
        print(f"| {name} | {med:.1f} | {mean:.1f} | {p95:.1f} |")
    print(f"\n| gesture ({args.fps:g} fps) | start -> confirmed (s) | end -> event (s) |")
    print("| --- | --- | --- |")
    for gesto, (c, e) in delays(args.fps).items():
        fmt = lambda v: "missed" if v is None else f"{v:.2f}"  # noqa: E731
        print(f"| {gesto} | {fmt(c)} | {fmt(e)} |")


if __name__ == "__main__":
    main()
