"""Per-frame measurements of a face (and shoulders), in units that do not depend on the person's
size or distance to the camera: face lengths are in inter-ocular distances (outer eye corners),
shoulder heights in shoulder widths.

All values are raw; :mod:`gestures.scorer` compares them with the person's neutral baseline.
Keys ending in ``_a``/``_b`` refer to the image-left/image-right feature.
"""

from __future__ import annotations

import math

import cv2
import numpy as np

from gestures import landmarks as L
from gestures.models import Observation

Features = dict[str, float]
CLIPPED = 248  # a colour channel this high may have been cut off by the sensor

BLENDSHAPES = (
    "eyeBlinkLeft",
    "eyeBlinkRight",
    "eyeSquintLeft",
    "eyeSquintRight",
    "browInnerUp",
    "browOuterUpLeft",
    "browOuterUpRight",
    "mouthPucker",
    "mouthFunnel",
    "mouthRollLower",
    "mouthRollUpper",
    "mouthLeft",
    "mouthRight",
    "jawOpen",
    "mouthSmileLeft",
    "mouthSmileRight",
    "mouthPressLeft",
    "mouthPressRight",
    "mouthFrownLeft",
    "mouthFrownRight",
    "eyeWideLeft",
    "eyeWideRight",
    "noseSneerLeft",
    "noseSneerRight",
    "cheekSquintLeft",
    "cheekSquintRight",
    "mouthStretchLeft",
    "mouthStretchRight",
    "mouthShrugLower",
    "eyeLookDownLeft",
    "eyeLookDownRight",
)


class FaceFrame:
    """2-D frame fixed to the face: origin between the outer eye corners, x towards the
    image-right eye, unit = their distance. Removes translation, scale and roll."""

    def __init__(self, face: np.ndarray) -> None:
        a, b = face[L.EYE_OUTER_A, :2], face[L.EYE_OUTER_B, :2]
        self.origin = (a + b) / 2
        self.unit = float(np.linalg.norm(b - a)) or 1.0
        ex = (b - a) / self.unit
        self.axes = np.array([ex, [-ex[1], ex[0]]])  # rows: x, y (y points down the face)
        self.pts = (face[:, :2] - self.origin) @ self.axes.T / self.unit

    def __getitem__(self, idx: int | list[int]) -> np.ndarray:
        return self.pts[idx]


def _dist(f: FaceFrame, i: int, j: int) -> float:
    d = f[i] - f[j]
    return float(np.sqrt(d.dot(d)))  # np.linalg.norm's own sum for a vector, without its checks


def eye_openness(f: FaceFrame, pairs: tuple[tuple[int, int], ...], outer: int, inner: int) -> float:
    """Eye aspect ratio: mean lid gap over eye width."""
    gap = np.mean([_dist(f, u, d) for u, d in pairs])
    return float(gap / max(_dist(f, outer, inner), 1e-6))


def head_angles(matrix: np.ndarray | None) -> tuple[float, float, float]:
    """(yaw, pitch, roll) in degrees from MediaPipe's facial transformation matrix."""
    if matrix is None:
        return 0.0, 0.0, 0.0
    r = np.asarray(matrix)[:3, :3]
    yaw = math.degrees(math.asin(float(np.clip(-r[2, 0], -1, 1))))
    pitch = math.degrees(math.atan2(float(r[2, 1]), float(r[2, 2])))
    roll = math.degrees(math.atan2(float(r[1, 0]), float(r[0, 0])))
    return yaw, pitch, roll


def lip_push(face: np.ndarray, unit: float) -> float:
    """How far the middle of the lips stands out in front of the mouth corners, in IOD, from
    the mesh's depth. Pushing the lips out (a morro) raises it by 0.04-0.06 on real faces;
    pressed lips, talking and a pout-like "o" of speech by 0.02 at most."""
    centre = face[[L.LIP_OUTER_TOP, L.LIP_OUTER_BOTTOM, L.LIP_INNER_TOP, L.LIP_INNER_BOTTOM], 2]
    corners = face[[L.MOUTH_CORNER_A, L.MOUTH_CORNER_B], 2]
    return float((centre.mean() - corners.mean()) / unit)


def iris_drop(f: FaceFrame) -> float:
    """How far below the middle of its eye's corners each iris centre sits, in IOD (face axes,
    y down), mean of both eyes; looking down lowers it (0.01-0.02 on real faces). 0 without
    the iris points (a mesh of 468)."""
    pts = f.pts
    if len(pts) <= L.IRIS_B:
        return 0.0
    a = pts[L.IRIS_A, 1] - (pts[L.EYE_OUTER_A, 1] + pts[L.EYE_INNER_A, 1]) / 2
    b = pts[L.IRIS_B, 1] - (pts[L.EYE_OUTER_B, 1] + pts[L.EYE_INNER_B, 1]) / 2
    return float(a + b) / 2


def face_features(obs: Observation, frame: FaceFrame | None = None) -> Features:
    """Geometry and blendshapes of the face; empty when there is no face. ``frame``: the
    face's :class:`FaceFrame`, when already made."""
    if obs.face is None:
        return {}
    f = frame or FaceFrame(obs.face)
    ya, pa, ra = head_angles(obs.matrix)
    brow_a = f[list(L.BROW_A[:5])][:, 1].mean()
    brow_b = f[list(L.BROW_B[:5])][:, 1].mean()
    nose = f[L.NOSE_BASE]
    out: Features = {
        "scale_px": f.unit,
        "yaw": ya,
        "pitch": pa,
        "roll": ra,
        "ear_a": eye_openness(f, L.LID_PAIRS_A, L.EYE_OUTER_A, L.EYE_INNER_A),
        "ear_b": eye_openness(f, L.LID_PAIRS_B, L.EYE_OUTER_B, L.EYE_INNER_B),
        # from the nose bridge, not the eye corners: a blink pulls the corners' mesh points
        # (and with them a brow height measured from them) along with the lids
        "brow_h": float(f[L.NOSE_BRIDGE][1] - (brow_a + brow_b) / 2),
        # mouth measured from the nose base so head translation and roll cancel out
        "corner_a_x": float(f[L.MOUTH_CORNER_A][0] - nose[0]),
        "corner_b_x": float(f[L.MOUTH_CORNER_B][0] - nose[0]),
        "lips_x": float(
            f[[L.LIP_OUTER_TOP, L.LIP_OUTER_BOTTOM, L.LIP_INNER_TOP, L.LIP_INNER_BOTTOM]][:, 0].mean() - nose[0]
        ),
        "mouth_w": _dist(f, L.MOUTH_CORNER_A, L.MOUTH_CORNER_B),
        "lip_gap": _dist(f, L.LIP_INNER_TOP, L.LIP_INNER_BOTTOM),
        # widest opening along the mouth: a tongue out to one side parts the lips at a corner
        "lip_gap_max": max(_dist(f, u, d) for u, d in L.INNER_LIP_PAIRS),
        "lower_lip": _dist(f, L.LIP_INNER_BOTTOM, L.LIP_OUTER_BOTTOM),
        "upper_lip": _dist(f, L.LIP_OUTER_TOP, L.LIP_INNER_TOP),
        "mouth_y": float(f[[L.MOUTH_CORNER_A, L.MOUTH_CORNER_B]][:, 1].mean()),
        "lip_push": lip_push(obs.face, f.unit),
        "iris_y": iris_drop(f),
    }
    for name in BLENDSHAPES:
        out[name] = obs.blendshapes.get(name, 0.0)
    return out


def shoulder_features(obs: Observation, min_visibility: float = 0.5) -> Features:
    """Shoulder and mouth heights in pixels, and the shoulder width (the scorer's unit)."""
    pose = obs.pose
    if pose is None:
        return {}
    ia, ib = L.shoulders_by_image_side(pose)
    if min(pose[ia, 2], pose[ib, 2]) < min_visibility:
        return {}
    width = float(np.linalg.norm(pose[ia, :2] - pose[ib, :2]))
    if width < 1:
        return {}
    mouth_y = (
        obs.face[[L.MOUTH_CORNER_A, L.MOUTH_CORNER_B], 1].mean()
        if obs.face is not None
        else pose[list(L.POSE_MOUTH), 1].mean()
    )
    return {
        "sh_width_px": width,
        "sh_y_a": float(pose[ia, 1]),
        "sh_y_b": float(pose[ib, 1]),
        "mouth_y_px": float(mouth_y),
    }


# --- tongue -------------------------------------------------------------------------------


def _poly_mask(box: tuple[int, int, int, int], pts: np.ndarray) -> np.ndarray:
    """The polygon ``pts`` (image pixels) filled in a mask the size of ``box`` (x0, y0, x1, y1):
    only the mouth box is drawn, not the whole frame."""
    x0, y0, x1, y1 = box
    mask = np.zeros((y1 - y0, x1 - x0), np.uint8)
    cv2.fillPoly(mask, [np.round(pts - (x0, y0)).astype(np.int32)], 255)
    return mask


def tongue_features(bgr: np.ndarray, obs: Observation, frame: FaceFrame | None = None) -> Features:
    """Tongue-coloured area around the mouth that the lips do not explain.

    The blendshape model has no tongue output. A tongue out is a pink/red blob below or beside
    the lips. Skin colour comes from the person's own cheeks in the same frame (so light and
    skin tone cancel out); a pixel counts when it is much redder ((R-G)/(R+G+B), which does not
    move with exposure) than that skin. We count such pixels outside the lip polygon, in a box
    around and below the mouth, and inside the mouth opening when they fill it. Areas in IOD²,
    direction in mouth half-widths. Also the lower lip's red and teeth shares (for the bite).

    Only the mouth box and two cheek patches are read, each colour measure only where it is
    used (the lip's on the lower lip's pixels), and a blob search only when something is left
    to search: two thirds of the time of measuring everything everywhere, the same values.
    """
    if obs.face is None:
        return {}
    f = frame or FaceFrame(obs.face)
    face = obs.face
    h, w = bgr.shape[:2]
    unit = f.unit
    lips = face[list(L.LIPS_OUTER), :2]
    box = _mouth_box(face, unit, w, h)
    if box is None:
        return {}
    x0, y0, x1, y1 = box
    # denoise first: sensor noise and JPEG blocks would otherwise flip pixels either way
    sigma = max(0.8, 0.012 * unit)
    skin = _skin_reference(bgr, face, unit, sigma)
    if skin is None:
        return {}
    skin_red, skin_spread, skin_lum = skin
    channels = cv2.split(cv2.GaussianBlur(bgr[y0:y1, x0:x1], (0, 0), sigma))
    red, lum, total = _chroma(*channels)
    redness = red - skin_red
    unclipped = _unclipped(*channels)
    tongue_like = (redness > max(0.06, 3.0 * skin_spread)) & (lum > 0.35 * skin_lum) & unclipped
    outer = _poly_mask(box, lips)
    outer = cv2.dilate(outer, np.ones((3, 3), np.uint8), iterations=max(1, int(unit * 0.02)))
    inner = _poly_mask(box, face[list(L.LIPS_INNER), :2]) > 0
    outside = _largest_blob(tongue_like & (outer == 0))
    # inside the open mouth a tongue that is out fills the opening; a tongue lying in a
    # talking mouth shares it with teeth and the dark cavity
    inside = tongue_like & inner
    opening = float(np.count_nonzero(inner))
    n_outside, n_inside = float(np.count_nonzero(outside)), float(np.count_nonzero(inside))
    # a closed mouth has no opening to fill (its few pixels are lip)
    fill = n_inside / opening if opening > 0.01 * unit**2 else 0.0
    fill_weight = float(np.clip((fill - 0.45) / 0.3, 0.0, 1.0))
    area = (n_outside + fill_weight * n_inside) / unit**2
    # ``outside`` is one opened blob already: searched again alone, it comes back whole
    blob = _largest_blob(outside | inside) if fill_weight > 0 else outside
    # the lower lip's pixels: how many are lip-red, how many teeth (upper teeth resting on a
    # bitten lip: bright and grey compared with the skin)
    band = _poly_mask(box, face[list(L.LOWER_LIP_OUTER + L.LOWER_LIP_INNER[::-1]), :2]) > 0
    n_band = max(float(np.count_nonzero(band)), 1.0)
    lip_like = (redness[band] > max(0.03, 1.5 * skin_spread)) & unclipped[band]
    b, g, r = (c[band] for c in channels)
    spread = (np.maximum(np.maximum(b, g), r) - np.minimum(np.minimum(b, g), r)).astype(np.float32)
    teeth_like = (lum[band] > skin_lum * 1.05) & (spread / total[band] < 0.12)
    out: Features = {
        "tongue_area": area,
        "tongue_out": n_outside / unit**2,
        "tongue_fill": fill,
        "tongue_dx": 0.0,
        "skin_lum": skin_lum,
        "tongue_dy": 0.0,
        "red_total": float(np.count_nonzero(_opened(tongue_like))) / unit**2,
        "lower_lip_red": float(np.count_nonzero(lip_like)) / n_band,
        "lower_lip_teeth": float(np.count_nonzero(teeth_like)) / n_band,
    }
    if n_outside > 0 if blob is outside else blob.any():
        out["tongue_dx"], out["tongue_dy"] = _direction(blob, (x0, y0), f, face)
    return out


def _mouth_box(face: np.ndarray, unit: float, w: int, h: int) -> tuple[int, int, int, int] | None:
    """The mouth box widened sideways and extended down towards the chin (where a tongue
    goes), clipped to the image; None if too small to look at."""
    lips = face[list(L.LIPS_OUTER), :2]
    x0 = int(max(lips[:, 0].min() - 0.35 * unit, 0))
    x1 = int(min(lips[:, 0].max() + 0.35 * unit, w))
    y0 = int(max(lips[:, 1].min() - 0.05 * unit, 0))
    y1 = int(min(max(lips[:, 1].max() + 0.45 * unit, face[L.CHIN, 1]), h))
    if x1 - x0 < 8 or y1 - y0 < 8:
        return None
    return x0, y0, x1, y1


def _direction(blob: np.ndarray, offset: tuple[int, int], f: FaceFrame, face: np.ndarray) -> tuple[float, float]:
    """Where the tongue points, from the mouth centre, in mouth half-widths (face axes):
    the blob point farthest from the mouth, averaged with the blob's centroid."""
    ys, xs = np.nonzero(blob)
    pts = np.stack([xs + offset[0], ys + offset[1]], 1).astype(np.float64)
    corners = face[[L.MOUTH_CORNER_A, L.MOUTH_CORNER_B], :2]
    mouth = corners.mean(0)
    half_w = max(float(np.linalg.norm(corners[1] - corners[0])) / 2, 1e-6)
    far = pts[np.argmax(((pts - mouth) ** 2).sum(1))]
    d = (far * 0.5 + pts.mean(0) * 0.5 - mouth) @ f.axes.T
    return float(d[0] / half_w), float(d[1] / half_w)


def _chroma(b: np.ndarray, g: np.ndarray, r: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Per pixel of the uint8 channels: redness (R - G) / (R + G + B), brightness, and the sum
    the ratios divide by (for colourfulness (max - min) / sum). Ratios do not change when the
    camera's exposure or the light's strength scales all channels alike."""
    # channel by channel: numpy's reductions over a last axis of 3 cost several times more
    b, g, r = (c.astype(np.float32) for c in (b, g, r))
    total = b + g + r + 1e-3
    return (r - g) / total, total / 3, total


def _unclipped(b: np.ndarray, g: np.ndarray, r: np.ndarray) -> np.ndarray:
    """Pixels with no saturated channel (a clipped channel fakes its colour)."""
    return cv2.max(cv2.max(b, g), r) < CLIPPED


def _skin_reference(bgr: np.ndarray, face: np.ndarray, unit: float, sigma: float) -> tuple[float, float, float] | None:
    """Median redness, its robust spread and median brightness on both cheeks."""
    r = max(2, int(unit * 0.08))
    patches = []
    h, w = bgr.shape[:2]
    for idx in (L.CHEEK_A, L.CHEEK_B):
        x, y = (round(float(v)) for v in face[idx, :2])
        patch = bgr[max(y - r, 0) : min(y + r, h), max(x - r, 0) : min(x + r, w)]
        if patch.size:
            patches.append(cv2.GaussianBlur(patch, (0, 0), sigma).reshape(-1, 3))
    # an over-exposed face has no trustworthy skin colour: no colour cues at all
    total = sum(4 * r * r for _ in patches)
    if not patches:
        return None
    pixels = np.concatenate(patches) if len(patches) > 1 else patches[0]
    channels = pixels[:, 0], pixels[:, 1], pixels[:, 2]
    ok = _unclipped(*(np.ascontiguousarray(c) for c in channels)).ravel()
    if np.count_nonzero(ok) < max(8, 0.3 * total):
        return None
    red, lum, _ = _chroma(*(c[ok] for c in channels))
    med = _median(red)
    spread = 1.4826 * float(_median(np.abs(red - med)))
    return float(med), spread, float(_median(lum))


def _median(x: np.ndarray) -> np.floating:
    """``np.median`` of a 1-D float array without NaN (the same value, in its dtype), without
    its general machinery: the middle value, or the mean of the middle two."""
    k = len(x) // 2
    if len(x) % 2:
        return np.partition(x, k)[k]
    part = np.partition(x, (k - 1, k))
    return (part[k - 1] + part[k]) / 2


def _opened(mask: np.ndarray) -> np.ndarray:
    return cv2.morphologyEx(mask.astype(np.uint8), cv2.MORPH_OPEN, np.ones((3, 3), np.uint8)) > 0


def _largest_blob(mask: np.ndarray) -> np.ndarray:
    """Keep the largest connected component (specks of red skin are not a tongue)."""
    m = cv2.morphologyEx(mask.astype(np.uint8), cv2.MORPH_OPEN, np.ones((3, 3), np.uint8))
    if not cv2.countNonZero(m):
        return np.zeros_like(mask, bool)
    n, labels, stats, _ = cv2.connectedComponentsWithStats(m, connectivity=8)
    if n == 2:
        return m > 0
    best = 1 + int(np.argmax(stats[1:, cv2.CC_STAT_AREA]))
    return labels == best


def all_features(bgr: np.ndarray, obs: Observation) -> Features:
    """Face, tongue and shoulder features of one frame (empty dict: no face)."""
    if obs.face is None:
        return {}
    frame = FaceFrame(obs.face)
    return combined_features(obs, tongue_features(bgr, obs, frame), frame)


def combined_features(obs: Observation, tongue: Features, frame: FaceFrame | None = None) -> Features:
    """Face and shoulder features of ``obs`` with the tongue's (the only ones that need the
    pixels), as :func:`all_features` returns them; what replays recorded landmarks uses."""
    feats = face_features(obs, frame)
    if not feats:
        return {}
    feats.update(tongue)
    feats.update(shoulder_features(obs))
    return feats
