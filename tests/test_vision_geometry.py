"""Oriented boxes, rectified crops, rotated IoU, and the assignment that keeps cards unique."""

from __future__ import annotations

import math

import cv2
import numpy as np

from vision.geometry import CROP_H, CROP_W, crop_card, obb_to_corners, obb_to_xyxy, quad_to_obb, rotated_iou
from vision.reader import assign_unique


def test_obb_corners_round_trip():
    obb = np.float32([100, 80, 40, 60, 0.3])
    corners = obb_to_corners(obb)
    back = quad_to_obb(corners)
    assert np.allclose(obb_to_corners(back).mean(0), corners.mean(0), atol=1e-3)
    assert math.isclose(back[2] * back[3], 40 * 60, rel_tol=1e-3)
    box = obb_to_xyxy(obb)[0]
    assert box[0] < 100 < box[2] and box[1] < 80 < box[3]


def test_crop_is_upright_whatever_the_box_rotation():
    """A card drawn at 90 degrees comes out as a portrait crop with its top mark at one end."""
    img = np.zeros((200, 200, 3), np.uint8)
    # a landscape white rectangle (a card lying sideways) with a red mark at its right end
    cv2.rectangle(img, (40, 70), (160, 130), (255, 255, 255), -1)
    cv2.rectangle(img, (140, 90), (155, 110), (0, 0, 255), -1)
    obb = quad_to_obb(np.float32([[40, 70], [160, 70], [160, 130], [40, 130]]))
    crop = crop_card(img, obb)
    assert crop.shape == (CROP_H, CROP_W, 3)
    red = (crop[:, :, 2] > 200) & (crop[:, :, 0] < 50)
    rows = np.nonzero(red.any(1))[0]
    assert len(rows) and (rows.max() < CROP_H * 0.3 or rows.min() > CROP_H * 0.7)


def test_rotated_iou():
    a = np.float32([50, 50, 20, 40, 0.0])
    assert math.isclose(rotated_iou(a, a), 1.0, rel_tol=1e-3)
    b = np.float32([50, 70, 20, 40, 0.0])
    assert math.isclose(rotated_iou(a, b), 1 / 3, rel_tol=1e-2)
    assert rotated_iou(a, np.float32([200, 200, 20, 40, 1.0])) == 0.0


def test_assignment_never_repeats_a_card():
    rng = np.random.default_rng(0)
    probs = rng.dirichlet(np.ones(40) * 0.1, size=16)
    probs[:5] = 0
    probs[:5, 7] = 1  # five crops all sure they are card 7
    labels, _conf, alt = assign_unique(probs)
    assert len(set(labels.tolist())) == 16
    assert (labels == 7).sum() == 1
    assert (alt != labels).all()
