"""Oriented boxes of cards and the rectified crops the classifier reads (numpy + OpenCV only)."""

from __future__ import annotations

import cv2
import numpy as np

CROP_W, CROP_H = 64, 96  # the classifier's input: one card, upright or upside down


def quad_to_obb(quad: np.ndarray) -> np.ndarray:
    """Minimum-area rotated rectangle of 4 corners: (cx, cy, w, h, angle in radians)."""
    (cx, cy), (w, h), angle = cv2.minAreaRect(np.asarray(quad, np.float32).reshape(-1, 2))
    return np.float32([cx, cy, w, h, np.deg2rad(angle)])


def obb_to_corners(obb: np.ndarray) -> np.ndarray:
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


def obb_to_xyxy(obb: np.ndarray) -> np.ndarray:
    """Axis-aligned boxes that enclose the oriented boxes: (N, 4)."""
    corners = obb_to_corners(np.asarray(obb, np.float32).reshape(-1, 5))
    return np.concatenate([corners.min(1), corners.max(1)], 1)


def portrait_corners(obbs: np.ndarray) -> np.ndarray:
    """(N, 5) oriented boxes -> (N, 4, 2) corners, reordered so that 0->1 is a short side and
    0->1->2 turns clockwise on screen (the order the crops are warped from)."""
    p = obb_to_corners(np.asarray(obbs, np.float32).reshape(-1, 5))
    # clockwise in image coordinates (y down) means a positive cross product
    d1, d2 = p[:, 1] - p[:, 0], p[:, 2] - p[:, 1]
    cross = d1[:, 0] * d2[:, 1] - d1[:, 1] * d2[:, 0]
    p = np.where((cross < 0)[:, None, None], p[:, ::-1], p)
    long_first = _side(p, 0) > _side(p, 1)
    return np.where(long_first[:, None, None], np.roll(p, -1, 1), p)


def _side(p: np.ndarray, k: int) -> np.ndarray:
    """Length of side k -> k+1 of each quad in (N, 4, 2)."""
    d = p[:, k + 1] - p[:, k]
    return np.sqrt(d[:, 0] * d[:, 0] + d[:, 1] * d[:, 1])


def crop_cards(image: np.ndarray, obbs: np.ndarray, size: tuple[int, int] = (CROP_W, CROP_H)
               ) -> np.ndarray:
    """The cards under the oriented boxes (N, 5), each warped to an upright ``size`` (w, h)
    crop: (N, h, w, 3) BGR. The corners of all the boxes are computed at once (a photo's 16
    cards in one call cost a third of 16 calls of :func:`crop_card`)."""
    w, h = size
    obbs = np.asarray(obbs, np.float32).reshape(-1, 5)
    out = np.empty((len(obbs), h, w, *image.shape[2:]), image.dtype)
    if len(obbs) == 0:
        return out
    quads = portrait_corners(obbs)
    shrinks = _side(quads, 1) > 1.5 * h  # downscaling: area averaging, else bilinear
    dst = np.float32([[0, 0], [w, 0], [w, h]])
    for k, (q, small) in enumerate(zip(quads, shrinks.tolist(), strict=True)):
        m = cv2.getAffineTransform(q[:3], dst)
        cv2.warpAffine(image, m, (w, h), dst=out[k], flags=cv2.INTER_AREA if small else
                       cv2.INTER_LINEAR, borderMode=cv2.BORDER_REPLICATE)
    return out


def crop_card(image: np.ndarray, obb: np.ndarray, size: tuple[int, int] = (CROP_W, CROP_H)
              ) -> np.ndarray:
    """The card under the oriented box, warped to an upright ``size`` (w, h) crop (BGR)."""
    return crop_cards(image, obb, size)[0]


def rotated_iou(a: np.ndarray, b: np.ndarray) -> float:
    """Intersection over union of two oriented boxes (cx, cy, w, h, angle)."""
    ra = ((float(a[0]), float(a[1])), (float(a[2]), float(a[3])), float(np.rad2deg(a[4])))
    rb = ((float(b[0]), float(b[1])), (float(b[2]), float(b[3])), float(np.rad2deg(b[4])))
    kind, pts = cv2.rotatedRectangleIntersection(ra, rb)
    if kind == cv2.INTERSECT_NONE or pts is None or len(pts) < 3:
        return 0.0
    inter = float(cv2.contourArea(cv2.convexHull(pts)))
    union = float(a[2] * a[3] + b[2] * b[3]) - inter
    return inter / union if union > 0 else 0.0
