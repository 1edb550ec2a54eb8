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


def _portrait_corners(corners: np.ndarray) -> np.ndarray:
    """Reorder 4 box corners so that 0->1 is a short side and 0->1->2 turns clockwise on screen."""
    p = np.asarray(corners, np.float32)
    # clockwise in image coordinates (y down) means a positive cross product
    d1, d2 = p[1] - p[0], p[2] - p[1]
    cross = d1[0] * d2[1] - d1[1] * d2[0]
    if cross < 0:
        p = p[::-1].copy()
    if np.linalg.norm(p[1] - p[0]) > np.linalg.norm(p[2] - p[1]):
        p = np.roll(p, -1, 0)
    return p


def crop_card(image: np.ndarray, obb: np.ndarray, size: tuple[int, int] = (CROP_W, CROP_H)
              ) -> np.ndarray:
    """The card under the oriented box, warped to an upright ``size`` (w, h) crop (BGR)."""
    p = _portrait_corners(obb_to_corners(obb))
    w, h = size
    src = p[:3].astype(np.float32)
    dst = np.float32([[0, 0], [w, 0], [w, h]])
    m = cv2.getAffineTransform(src, dst)
    return cv2.warpAffine(image, m, (w, h), flags=cv2.INTER_AREA if _shrinks(p, h) else
                          cv2.INTER_LINEAR, borderMode=cv2.BORDER_REPLICATE)


def _shrinks(p: np.ndarray, h: int) -> bool:
    return float(np.linalg.norm(p[2] - p[1])) > 1.5 * h


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
