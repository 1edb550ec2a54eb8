"""The neutral face from several frames: keep those that look neutral, say when it is poor.

A calibration of the first seconds catches people talking, blinking or smiling; one frame
catches whatever the face did at that instant. Both give a baseline that makes every later
frame look like a seña (measured on real clips: a baseline taken while talking hid two real
pouts; one mid-speech frame made speech fire a morro a second). So the frames are filtered:
blinks, a talking mouth and frames far from the others in any measure that a seña moves are
left out, and the baseline is the median of the rest.

    >>> still = {"jawOpen": 0.02, "lip_gap": 0.01, "mouthPucker": 0.02, "ear_a": 0.3,
    ...          "ear_b": 0.3, "eyeBlinkLeft": 0.05, "eyeBlinkRight": 0.05, "scale_px": 90.0,
    ...          "skin_lum": 140.0}
    >>> blink = {**still, "ear_a": 0.05, "ear_b": 0.05, "eyeBlinkLeft": 0.9, "eyeBlinkRight": 0.9}
    >>> base, quality = calibrate([still] * 8 + [blink] * 2)  # eight photos and two blinks
    >>> base.frames, quality.descartados, quality.buena
    (8, 2, True)
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from gestures.features import Features
from gestures.scorer import Baseline
from gestures.types import Calibracion

# Measures a seña moves: a calibration frame far from the others in one of them is not neutral.
MOVED_BY_SENAS = (
    "jawOpen",
    "lip_gap",
    "mouthPucker",
    "mouthFunnel",
    "mouthSmileLeft",
    "mouthSmileRight",
    "browInnerUp",
    "browOuterUpLeft",
    "browOuterUpRight",
    "mouthLeft",
    "mouthRight",
    "mouthRollLower",
    "lip_push",
    "mouth_w",
    "brow_h",
    "eyeBlinkLeft",
    "eyeBlinkRight",
)


# Beyond these a face is making an expression, however still it holds it (a held jaw drop
# is still, and the median of a window spent in it would pass for neutral). Smiles are not
# here: some people rest smiling (the astronaut's portrait reads 0.9).
NEUTRAL_AT_MOST = {
    "jawOpen": 0.25,
    "lip_gap": 0.15,
    "mouthPucker": 0.5,
    "mouthFunnel": 0.3,
    "browInnerUp": 0.5,
    "mouthRollLower": 0.4,
    "eyeWideLeft": 0.5,
    "eyeWideRight": 0.5,
    "mouthLeft": 0.3,
    "mouthRight": 0.3,
}


@dataclass(frozen=True)
class CalibrationSettings:
    """What a neutral frame and a good calibration are."""

    blink: float = 0.45  # eyeBlink above this: eyes closing
    eye_drop: float = 0.75  # an eye this much less open than the frames' median: closing
    talking: float = 0.5  # MouthActivity above this: talking
    # robust z-score beyond which a frame is not neutral; the floors keep a still face (MAD ~0)
    # from rejecting frames for noise
    max_z: float = 3.5
    floor: float = 0.03
    min_face_px: float = 45.0  # inter-ocular distance, pixels: below, the face is too small
    min_light: float = 55.0  # cheeks' brightness (0-255): below, the face is too dark
    min_frames: int = 3  # frames kept at least
    min_share: float = 0.4  # share of the frames with a face that must be neutral


def calibrate(
    frames: Sequence[Features], settings: CalibrationSettings | None = None, talking: Sequence[float] | None = None
) -> tuple[Baseline, Calibracion]:
    """Baseline of the neutral frames among ``frames`` and how good it is.

    ``talking``: each frame's :class:`~gestures.context.MouthActivity` when the frames are a
    stream; photos taken apart cannot tell talking. Raises ValueError when no frame has a face.
    """
    s = settings or CalibrationSettings()
    rows = [(t, f) for t, f in zip(talking or [0.0] * len(frames), frames, strict=True) if f]
    if not rows:
        raise ValueError("ningún fotograma tiene cara")
    keep = _neutral(rows, s)
    kept = [f for (_, f), ok in zip(rows, keep, strict=True) if ok]
    base = Baseline.from_frames(kept or _stillest(rows))
    problems = []
    if base.get("scale_px", 1e9) < s.min_face_px:
        problems.append("cara_pequena")
    if "skin_lum" in base.values and base.values["skin_lum"] < s.min_light:
        problems.append("oscuro")
    if len(rows) >= s.min_frames and len(kept) < s.min_share * len(rows):
        problems.append("no_neutra")
    if len(kept) < s.min_frames:
        problems.append("pocos_fotogramas")
    return base, Calibracion(len(kept), len(rows) - len(kept), tuple(problems))


def _neutral(rows: Sequence[tuple[float, Features]], s: CalibrationSettings) -> list[bool]:
    """Per (talking, features) row: does it look neutral?"""
    talking = [t for t, _ in rows]
    keys = [k for k in MOVED_BY_SENAS if all(k in f for _, f in rows)]
    table = np.array([[f[k] for k in keys] for _, f in rows], np.float64).reshape(len(rows), -1)
    med = np.median(table, axis=0)
    mad = np.maximum(1.4826 * np.median(np.abs(table - med), axis=0), s.floor)
    far = np.asarray((np.abs(table - med) / mad > s.max_z).any(axis=1)) if keys else np.zeros(len(rows), bool)
    ears = {e: np.median([f.get(e, 0.0) for _, f in rows]) for e in ("ear_a", "ear_b")}
    out = []
    for (_, f), talk, outlier in zip(rows, talking, far.tolist(), strict=True):
        blinking = max(f.get("eyeBlinkLeft", 0.0), f.get("eyeBlinkRight", 0.0)) > s.blink or any(
            f.get(e, 1.0) < s.eye_drop * ears[e] for e in ears
        )
        expression = any(f.get(k, 0.0) > top for k, top in NEUTRAL_AT_MOST.items())
        out.append(not (blinking or talk > s.talking or outlier or expression))
    return out


def _stillest(rows: Sequence[tuple[float, Features]]) -> list[Features]:
    """No frame passed: the third talking least and showing the least expression, as the
    least bad guess."""

    def cost(row: tuple[float, Features]) -> float:
        talking, f = row
        return talking + sum(max(f.get(k, 0.0), 0.0) / top for k, top in NEUTRAL_AT_MOST.items())

    order = sorted(rows, key=cost)
    return [f for _, f in order[: max(1, len(order) // 3)]]
