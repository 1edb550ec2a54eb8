"""The tongue and bite colour test measures only where each measure is used (issue 52, speed):
its values must stay those of measuring everything everywhere, written out plainly below, on
the astronaut with painted tongues, a bite, a tongue filling the mouth, a face at the frame's
edge and an over-exposed one."""

from __future__ import annotations

from pathlib import Path

import cv2
import numpy as np
import pytest

from gestures import landmarks as L
from gestures.features import CLIPPED, FaceFrame, _largest_blob, _median, tongue_features
from gestures.models import Observation

MARKS = np.load(Path(__file__).parent / "data" / "gestures" / "astronaut_marks.npz")


def reference(bgr: np.ndarray, obs: Observation) -> dict[str, float]:
    """The colour test as it was before issue 52's speed work: every measure on every pixel of
    the mouth box and the cheek patches, every blob searched."""

    def chroma(img: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        b, g, r = (c.astype(np.float32) for c in cv2.split(img))
        total = b + g + r + 1e-3
        grey = (np.maximum(np.maximum(b, g), r) - np.minimum(np.minimum(b, g), r)) / total
        return (r - g) / total, total / 3, grey

    def unclipped(img: np.ndarray) -> np.ndarray:
        b, g, r = cv2.split(img)
        return cv2.max(cv2.max(b, g), r) < CLIPPED

    def poly(box: tuple[int, int, int, int], pts: np.ndarray) -> np.ndarray:
        mask = np.zeros((box[3] - box[1], box[2] - box[0]), np.uint8)
        cv2.fillPoly(mask, [np.round(pts - box[:2]).astype(np.int32)], 255)
        return mask

    def largest(mask: np.ndarray) -> np.ndarray:
        m = cv2.morphologyEx(mask.astype(np.uint8), cv2.MORPH_OPEN, np.ones((3, 3), np.uint8))
        n, labels, stats, _ = cv2.connectedComponentsWithStats(m, connectivity=8)
        if n <= 1:
            return np.zeros_like(mask, bool)
        return labels == 1 + int(np.argmax(stats[1:, cv2.CC_STAT_AREA]))

    assert obs.face is not None
    face, f = obs.face, FaceFrame(obs.face)
    unit, (h, w) = f.unit, bgr.shape[:2]
    lips = face[list(L.LIPS_OUTER), :2]
    x0 = int(max(lips[:, 0].min() - 0.35 * unit, 0))
    x1 = int(min(lips[:, 0].max() + 0.35 * unit, w))
    y0 = int(max(lips[:, 1].min() - 0.05 * unit, 0))
    y1 = int(min(max(lips[:, 1].max() + 0.45 * unit, face[L.CHIN, 1]), h))
    box = (x0, y0, x1, y1)
    sigma = max(0.8, 0.012 * unit)
    roi = cv2.GaussianBlur(bgr[y0:y1, x0:x1], (0, 0), sigma)
    r = max(2, int(unit * 0.08))
    samples = []
    for idx in (L.CHEEK_A, L.CHEEK_B):
        x, y = (round(float(v)) for v in face[idx, :2])
        patch = bgr[max(y - r, 0) : min(y + r, h), max(x - r, 0) : min(x + r, w)]
        if patch.size:
            patch = cv2.GaussianBlur(patch, (0, 0), sigma)
            red, lum, _ = chroma(patch)
            samples.append(np.stack([red.ravel(), lum.ravel()], 1)[unclipped(patch).ravel()])
    vals = np.vstack(samples) if samples else np.empty((0, 2))
    if len(vals) < max(8, 0.3 * sum(4 * r * r for _ in samples)):
        return {}
    skin_red = float(np.median(vals[:, 0]))
    skin_spread = 1.4826 * float(np.median(np.abs(vals[:, 0] - np.median(vals[:, 0]))))
    skin_lum = float(np.median(vals[:, 1]))
    red, lum, grey = chroma(roi)
    redness = red - skin_red
    ok = unclipped(roi)
    tongue_like = (redness > max(0.06, 3.0 * skin_spread)) & (lum > 0.35 * skin_lum) & ok
    lip_like = (redness > max(0.03, 1.5 * skin_spread)) & ok
    outer = cv2.dilate(poly(box, lips), np.ones((3, 3), np.uint8), iterations=max(1, int(unit * 0.02)))
    inner = poly(box, face[list(L.LIPS_INNER), :2])
    outside = largest(tongue_like & (outer == 0))
    inside = tongue_like & (inner > 0)
    opening = float((inner > 0).sum())
    fill = float(inside.sum()) / opening if opening > 0.01 * unit**2 else 0.0
    weight = float(np.clip((fill - 0.45) / 0.3, 0.0, 1.0))
    blob = largest(outside | (inside & (weight > 0)))
    band = poly(box, face[list(L.LOWER_LIP_OUTER + L.LOWER_LIP_INNER[::-1]), :2]) > 0
    n_band = max(float(band.sum()), 1.0)
    teeth_like = (lum > skin_lum * 1.05) & (grey < 0.12)
    opened = cv2.morphologyEx(tongue_like.astype(np.uint8), cv2.MORPH_OPEN, np.ones((3, 3), np.uint8)) > 0
    out = {
        "tongue_area": (float(outside.sum()) + weight * float(inside.sum())) / unit**2,
        "tongue_out": float(outside.sum()) / unit**2,
        "tongue_fill": fill,
        "tongue_dx": 0.0,
        "skin_lum": skin_lum,
        "tongue_dy": 0.0,
        "red_total": float(opened.sum()) / unit**2,
        "lower_lip_red": float((lip_like & band).sum()) / n_band,
        "lower_lip_teeth": float((teeth_like & band).sum()) / n_band,
    }
    if blob.any():
        ys, xs = np.nonzero(blob)
        pts = np.stack([xs + x0, ys + y0], 1).astype(np.float64)
        corners = face[[L.MOUTH_CORNER_A, L.MOUTH_CORNER_B], :2]
        mouth = corners.mean(0)
        half_w = max(float(np.linalg.norm(corners[1] - corners[0])) / 2, 1e-6)
        far = pts[np.argmax(((pts - mouth) ** 2).sum(1))]
        d = (far * 0.5 + pts.mean(0) * 0.5 - mouth) @ f.axes.T
        out["tongue_dx"], out["tongue_dy"] = float(d[0] / half_w), float(d[1] / half_w)
    return out


def astronaut() -> tuple[np.ndarray, Observation]:
    from skimage import data

    bgr = cv2.resize(data.astronaut()[:384], (640, 480))[:, :, ::-1].copy()
    blend = dict(zip(MARKS["blend_names"].tolist(), MARKS["blend_values"].tolist(), strict=True))
    return bgr, Observation(640, 480, MARKS["face"].copy(), blend, MARKS["matrix"].copy(), None)


def _fill_mouth(bgr: np.ndarray, face: np.ndarray) -> np.ndarray:
    out = bgr.copy()
    cv2.fillPoly(out, [np.round(face[list(L.LIPS_INNER), :2]).astype(np.int32)], (110, 90, 215))
    return out


def _frames() -> dict[str, tuple[np.ndarray, Observation]]:
    from training.senas import synthetic_faces as S

    bgr, obs = astronaut()
    face = obs.face
    assert face is not None
    # the mouth opened a little, so that a tongue can fill the opening
    opened = face.copy()
    opened[list(L.LOWER_LIP_INNER[1:-1]), 1] += 0.12 * FaceFrame(face).unit
    opened_obs = Observation(640, 480, opened, obs.blendshapes, obs.matrix, None)
    # the face moved to the frame's corner: the mouth box and a cheek patch cut by the edge
    shift = np.array([-face[L.CHEEK_A, 0] + 3, 480 - face[L.CHIN, 1] + 10, 0], np.float32)
    edge = Observation(640, 480, face + shift, obs.blendshapes, obs.matrix, None)
    M = np.float32([[1, 0, shift[0]], [0, 1, shift[1]]])
    return {
        "neutral": (bgr, obs),
        "tongue out": (S.draw_tongue(bgr, face, "centro"), obs),
        "tongue to a side": (S.draw_tongue(bgr, face, "a"), obs),
        "tongue to the other side": (S.draw_tongue(bgr, face, "b", 0.6), obs),
        "bitten lip": (S.bite_lower_lip(bgr, face), obs),
        "tongue filling the mouth": (_fill_mouth(bgr, opened), opened_obs),
        "tongue filling it and out": (S.draw_tongue(_fill_mouth(bgr, opened), opened, "centro"), opened_obs),
        "at the frame's edge": (cv2.warpAffine(S.draw_tongue(bgr, face, "b"), M, (640, 480)), edge),
        "over-exposed": (np.full_like(bgr, 252), obs),
    }


FRAMES = _frames()


@pytest.mark.parametrize("name", list(FRAMES))
def test_the_colour_test_gives_what_measuring_everything_everywhere_gives(name: str) -> None:
    bgr, obs = FRAMES[name]
    got = tongue_features(bgr, obs)
    assert got == reference(bgr, obs)
    assert list(got) == list(reference(bgr, obs))


def test_the_frames_reach_every_branch_of_the_colour_test() -> None:
    """Not a vacuous comparison: a blob out of the mouth, one filling it, none, and no skin."""
    got = {name: tongue_features(*FRAMES[name]) for name in FRAMES}
    assert got["neutral"]["tongue_out"] == 0.0 and got["neutral"]["tongue_dx"] == 0.0
    assert got["tongue out"]["tongue_out"] > 0.02 and got["tongue out"]["tongue_dy"] > 0.5
    assert got["tongue to a side"]["tongue_dx"] < -0.5 < 0.5 < got["tongue to the other side"]["tongue_dx"]
    assert got["tongue filling the mouth"]["tongue_fill"] > 0.75 and got["tongue filling the mouth"]["tongue_out"] == 0
    assert got["tongue filling the mouth"]["tongue_area"] > 0 and got["tongue filling the mouth"]["tongue_dy"] != 0
    assert got["bitten lip"]["lower_lip_teeth"] > got["neutral"]["lower_lip_teeth"]
    assert got["at the frame's edge"]["tongue_out"] > 0
    assert got["over-exposed"] == {}


def test_a_blob_searched_again_alone_comes_back_whole() -> None:
    """What lets the colour test skip its second blob search when nothing fills the mouth: the
    largest opened blob, opened and searched again, is itself (also cut by the box's edge)."""
    rng = np.random.default_rng(0)
    for _ in range(200):
        mask = cv2.GaussianBlur(rng.random((40, 60)), (0, 0), 2.0) > 0.5
        blob = _largest_blob(mask)
        assert np.array_equal(_largest_blob(blob), blob)


def test_the_quick_median_is_numpys() -> None:
    rng = np.random.default_rng(1)
    for n in [*range(1, 40), 484, 968]:
        x = (rng.random(n) - 0.3).astype(np.float32)
        assert _median(x) == np.median(x) and _median(x).dtype == np.median(x).dtype
