"""Oriented boxes of cards: conversions, rectified crops, overlaps and non-maximum suppression
(numpy + OpenCV only)."""

from __future__ import annotations

import cv2
import numpy as np

from vision.arrays import Floats, Image, Ints

CROP_W, CROP_H = 64, 96  # the classifier's input: one card, upright or upside down


def quad_to_obb(quad: Floats) -> Floats:
    """Minimum-area rotated rectangle of 4 corners: (cx, cy, w, h, angle in radians)."""
    (cx, cy), (w, h), angle = cv2.minAreaRect(np.asarray(quad, np.float32).reshape(-1, 2))
    return np.array([cx, cy, w, h, np.deg2rad(angle)], np.float32)


def obb_to_corners(obb: Floats) -> Floats:
    """(N, 5) or (5,) oriented boxes -> (N, 4, 2) or (4, 2) corners, in order around the box."""
    obb = np.asarray(obb, np.float32)
    single = obb.ndim == 1
    obb = obb.reshape(-1, 5)
    cx, cy, w, h, a = (obb[:, i] for i in range(5))
    c, s = np.cos(a), np.sin(a)
    dx = np.stack([-w / 2, w / 2, w / 2, -w / 2], 1)
    dy = np.stack([-h / 2, -h / 2, h / 2, h / 2], 1)
    x = cx[:, None] + dx * c[:, None] - dy * s[:, None]
    y = cy[:, None] + dx * s[:, None] + dy * c[:, None]
    out = np.stack([x, y], -1).astype(np.float32)
    return out[0] if single else out


def obb_to_xyxy(obb: Floats) -> Floats:
    """Axis-aligned boxes that enclose the oriented boxes: (N, 4)."""
    corners = obb_to_corners(np.asarray(obb, np.float32).reshape(-1, 5))
    return np.concatenate([corners.min(1), corners.max(1)], 1)


def portrait_corners(obbs: Floats) -> Floats:
    """(N, 5) oriented boxes -> (N, 4, 2) corners, reordered so that 0->1 is a short side and
    0->1->2 turns clockwise on screen (the order the crops are warped from)."""
    p = obb_to_corners(np.asarray(obbs, np.float32).reshape(-1, 5))
    # clockwise in image coordinates (y down) means a positive cross product
    d1, d2 = p[:, 1] - p[:, 0], p[:, 2] - p[:, 1]
    cross = d1[:, 0] * d2[:, 1] - d1[:, 1] * d2[:, 0]
    p = np.where((cross < 0)[:, None, None], p[:, ::-1], p)
    long_first = _side(p, 0) > _side(p, 1)
    return np.where(long_first[:, None, None], np.roll(p, -1, 1), p).astype(np.float32)


def _side(p: Floats, k: int) -> Floats:
    """Length of side k -> k+1 of each quad in (N, 4, 2)."""
    d = p[:, k + 1] - p[:, k]
    return np.sqrt(d[:, 0] * d[:, 0] + d[:, 1] * d[:, 1])


def shrink(image: Image, size: tuple[int, int]) -> Image:
    """``image`` shrunk to ``size`` (w, h) by area averaging (``cv2.INTER_AREA``), in two steps
    where it can: first whole k x k blocks averaged (OpenCV's fast path for a whole factor),
    then area averaging for the rest. A 1280x960 photo shrunk to the detector's 448 wide: 2.29
    against 4.44 ms on this CPU (interleaved, docs/measurements.md), within 1 level on average
    of the one-step values (at most 11).

    >>> noise = np.random.default_rng(0).integers(0, 255, (960, 1280, 3), np.uint8)
    >>> img = cv2.GaussianBlur(noise, (0, 0), 1.5)  # a photo's detail, not pixel noise
    >>> one = cv2.resize(img, (448, 336), interpolation=cv2.INTER_AREA).astype(int)
    >>> two = shrink(img, (448, 336)).astype(int)
    >>> two.shape, bool(np.abs(two - one).mean() < 2)
    ((336, 448, 3), True)
    >>> shrink(img[:959], (448, 336)).shape  # no whole factor of both sides: one step
    (336, 448, 3)
    >>> shrink(img, (193, 145)).shape  # by 5, then the rest (1280 is no multiple of 6)
    (145, 193, 3)
    """
    h, w = image.shape[:2]
    # the largest whole factor of both sides that does not shrink past ``size``
    k = next((k for k in range(min(w // size[0], h // size[1]), 1, -1) if w % k == 0 and h % k == 0), 1)
    if k > 1:
        image = np.asarray(cv2.resize(image, (w // k, h // k), interpolation=cv2.INTER_AREA), np.uint8)
    return np.asarray(cv2.resize(image, size, interpolation=cv2.INTER_AREA), np.uint8)


def crop_cards(image: Image, obbs: Floats, size: tuple[int, int] = (CROP_W, CROP_H)) -> Image:
    """The cards under the oriented boxes (N, 5), each warped to an upright ``size`` (w, h)
    crop: (N, h, w, 3) BGR. The corners of all the boxes are computed at once (a photo's 16
    cards in one call cost a third of 16 calls of :func:`crop_card`)."""
    w, h = size
    obbs = np.asarray(obbs, np.float32).reshape(-1, 5)
    out = np.empty((len(obbs), h, w, *image.shape[2:]), image.dtype)
    if len(obbs) == 0:
        return out
    quads = portrait_corners(obbs)
    dst = np.array([[0, 0], [w, 0], [w, h]], np.float32)
    for k, q in enumerate(quads):
        m = cv2.getAffineTransform(q[:3], dst)
        # bilinear, shrinking or not: OpenCV's warps have no area averaging (INTER_AREA gives
        # the same pixels as INTER_LINEAR), so a big photo is decoded reduced instead
        # (vision.images.reading_reduction)
        cv2.warpAffine(image, m, (w, h), dst=out[k], flags=cv2.INTER_LINEAR, borderMode=cv2.BORDER_REPLICATE)
    return out


def crop_card(image: Image, obb: Floats, size: tuple[int, int] = (CROP_W, CROP_H)) -> Image:
    """The card under the oriented box, warped to an upright ``size`` (w, h) crop (BGR)."""
    crop: Image = crop_cards(image, obb, size)[0]  # an integer index: numpy's stubs say Any
    return crop


def rotated_iou(a: Floats, b: Floats) -> float:
    """Intersection over union of two oriented boxes (cx, cy, w, h, angle)."""
    ra = ((float(a[0]), float(a[1])), (float(a[2]), float(a[3])), float(np.rad2deg(a[4])))
    rb = ((float(b[0]), float(b[1])), (float(b[2]), float(b[3])), float(np.rad2deg(b[4])))
    kind, pts = cv2.rotatedRectangleIntersection(ra, rb)
    if kind == cv2.INTERSECT_NONE or pts is None or len(pts) < 3:
        return 0.0
    inter = float(cv2.contourArea(cv2.convexHull(pts)))
    union = float(a[2] * a[3] + b[2] * b[3]) - inter
    return inter / union if union > 0 else 0.0


def _covariance(b: Floats) -> tuple[Floats, Floats, Floats]:
    a, bb = b[:, 2] ** 2 / 12, b[:, 3] ** 2 / 12
    cos, sin = np.cos(b[:, 4]), np.sin(b[:, 4])
    return a * cos**2 + bb * sin**2, a * sin**2 + bb * cos**2, (a - bb) * cos * sin


def probiou_matrix(b1: Floats, b2: Floats, eps: float = 1e-7) -> Floats:
    """Probabilistic IoU of oriented boxes as Gaussians (as Ultralytics' NMS uses), all pairs."""
    a1, bb1, c1 = (v[:, None] for v in _covariance(b1))
    a2, bb2, c2 = (v[None] for v in _covariance(b2))
    dx = b1[:, None, 0] - b2[None, :, 0]
    dy = b1[:, None, 1] - b2[None, :, 1]
    den = (a1 + a2) * (bb1 + bb2) - (c1 + c2) ** 2 + eps
    t1 = ((a1 + a2) * dy**2 + (bb1 + bb2) * dx**2) / den * 0.25
    t2 = ((c1 + c2) * (-dx) * dy) / den * 0.5
    det = np.clip(a1 * bb1 - c1**2, 0, None) * np.clip(a2 * bb2 - c2**2, 0, None)
    t3 = np.log(den / (4 * np.sqrt(det) + eps) + eps) * 0.5
    bd = np.clip(t1 + t2 + t3, eps, 100.0)
    return 1 - np.sqrt(1.0 - np.exp(-bd) + eps)


def probiou_nms(boxes: Floats, scores: Floats, thr: float) -> Ints:
    """Indices of the boxes kept by greedy NMS on probabilistic IoU, best score first: cheap
    and vectorised, it merges the near-identical boxes of a detector's raw output."""
    order = np.argsort(-scores, kind="stable")
    if len(order) == 0:
        return order
    iou = probiou_matrix(boxes[order], boxes[order])
    alive = np.ones(len(order), bool)
    for i in range(len(order)):
        if alive[i]:
            alive[i + 1 :] &= iou[i, i + 1 :] < thr
    return order[alive]


def rotated_nms(boxes: Floats, scores: Floats, iou: float, centre_frac: float = 0.2) -> Ints:
    """Indices of the boxes kept by greedy NMS on rotated IoU (OpenCV's ``NMSBoxesRotated``,
    which also drops a box lying wholly inside a better one, as a box over part of one card
    does), best score first; then a kept box whose centre is within ``centre_frac`` of the short
    side of a better kept box is the same card read at another angle, and is dropped too. On
    270 generated photos (150 tables, 20 close-ups, 20 of loose cards, 10 empty, two decks,
    with and without a registered deck) it gives exactly the cards, seats, boxes and flags of
    the pure-numpy NMS it replaced.

    >>> b = np.float32([[100, 100, 60, 90, 0], [102, 101, 60, 90, 0.05], [300, 100, 60, 90, 0]])
    >>> rotated_nms(b, np.float32([0.9, 0.8, 0.7]), 0.6).tolist()
    [0, 2]
    """
    if len(boxes) == 0:
        return np.zeros(0, np.int64)
    rects = [((float(b[0]), float(b[1])), (float(b[2]), float(b[3])), float(np.rad2deg(b[4]))) for b in boxes]
    kept = np.asarray(cv2.dnn.NMSBoxesRotated(rects, scores.astype(np.float64).tolist(), 0.0, iou), np.int64).reshape(
        -1
    )
    kept = kept[np.argsort(-scores[kept], kind="stable")]
    centres, short = boxes[kept, :2], boxes[kept, 2:4].min(1)
    dist = np.hypot(centres[:, None, 0] - centres[None, :, 0], centres[:, None, 1] - centres[None, :, 1])
    near = dist < centre_frac * np.minimum(short[:, None], short[None])
    out: list[int] = []
    for k in range(len(kept)):
        if not near[k, out].any():
            out.append(k)
    return kept[out]
