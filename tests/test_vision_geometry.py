"""Oriented boxes, rectified crops, rotated IoU, and the assignment that keeps cards unique."""

from __future__ import annotations

import math

import cv2
import numpy as np

from vision.assemble import assign_unique
from vision.geometry import (
    CROP_H,
    CROP_W,
    crop_card,
    crop_cards,
    obb_to_corners,
    obb_to_xyxy,
    portrait_corners,
    quad_to_obb,
    rotated_iou,
    rotated_nms,
)


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


def _card_photo(rng: np.random.Generator) -> np.ndarray:
    return rng.integers(0, 256, (240, 320, 3), np.uint8)


def _random_boxes(rng: np.random.Generator, n: int) -> np.ndarray:
    return np.column_stack(
        [
            rng.uniform(0, 320, n),
            rng.uniform(0, 240, n),
            rng.uniform(4, 300, n),
            rng.uniform(4, 300, n),
            rng.uniform(-4, 4, n),
        ]
    ).astype(np.float32)


def test_the_batch_crop_is_the_single_crop_of_each_box():
    """crop_cards (the reader's) cuts exactly what crop_card (the training data's) cuts, pixel for
    pixel, at either size, shrinking or enlarging, for boxes at any angle and partly outside."""
    rng = np.random.default_rng(3)
    img = _card_photo(rng)
    boxes = _random_boxes(rng, 60)
    for size in ((CROP_W, CROP_H), (128, 192)):
        batch = crop_cards(img, boxes, size)
        assert batch.shape == (60, size[1], size[0], 3)
        for b, crop in zip(boxes, batch, strict=True):
            assert np.array_equal(crop, crop_card(img, b, size))
    assert crop_cards(img, np.zeros((0, 5), np.float32)).shape == (0, CROP_H, CROP_W, 3)


def test_portrait_corners_start_on_a_short_side_and_turn_clockwise():
    rng = np.random.default_rng(4)
    quads = portrait_corners(_random_boxes(rng, 50))
    d1, d2 = quads[:, 1] - quads[:, 0], quads[:, 2] - quads[:, 1]
    assert (d1[:, 0] * d2[:, 1] - d1[:, 1] * d2[:, 0] >= 0).all()
    assert (np.hypot(*d1.T) <= np.hypot(*d2.T) + 1e-3).all()


def _near(a: np.ndarray, b: np.ndarray, centre_frac: float = 0.2) -> bool:
    return bool(np.hypot(*(a[:2] - b[:2])) < centre_frac * min(a[2], a[3], b[2], b[3]))


def _inside(a: np.ndarray, b: np.ndarray) -> bool:
    """Whether one box lies wholly inside the other (OpenCV's NMS counts that as full overlap)."""

    def rect(o):
        return (float(o[0]), float(o[1])), (float(o[2]), float(o[3])), float(np.rad2deg(o[4]))

    return cv2.rotatedRectangleIntersection(rect(a), rect(b))[0] == cv2.INTERSECT_FULL


def test_the_nms_keeps_no_overlap_and_drops_only_for_a_better_box():
    """In many random crowded scenes: no two kept boxes overlap more than the threshold or
    share a centre; every box dropped overlaps a better box beyond it (or lies inside it, or
    holds it) or shares a better kept box's centre; kept boxes come best first."""
    rng = np.random.default_rng(5)
    for _ in range(60):
        n = int(rng.integers(1, 40))
        boxes = np.column_stack(
            [
                rng.uniform(0, 400, n),
                rng.uniform(0, 300, n),
                rng.uniform(10, 80, n),
                rng.uniform(10, 120, n),
                rng.uniform(-3.2, 3.2, n),
            ]
        ).astype(np.float32)
        scores = rng.random(n).astype(np.float32)
        for iou in (0.3, 0.6):
            kept = rotated_nms(boxes, scores, iou).tolist()
            assert (np.diff(scores[kept]) <= 0).all()
            for a, i in enumerate(kept):
                for j in kept[a + 1 :]:
                    assert rotated_iou(boxes[i], boxes[j]) <= iou + 1e-3 and not _near(boxes[i], boxes[j])
                    assert not _inside(boxes[i], boxes[j])
            for i in set(range(n)) - set(kept):
                better = [j for j in range(n) if scores[j] > scores[i]]
                assert any(
                    rotated_iou(boxes[i], boxes[j]) >= iou - 1e-3 or _inside(boxes[i], boxes[j]) for j in better
                ) or any(_near(boxes[i], boxes[j]) for j in better if j in kept), (i, iou)
    assert rotated_nms(np.zeros((0, 5), np.float32), np.zeros(0, np.float32), 0.6).tolist() == []


def test_the_nms_drops_a_box_wholly_inside_a_better_one():
    """A box over part of one large card (a close-up) lies inside the card's box: dropped,
    though its IoU with it is small; a box beside it is kept."""
    card = np.float32([400, 300, 300, 450, 0.0])
    part = np.float32([350, 250, 80, 120, 0.0])  # IoU with the card about 0.07
    beside = np.float32([800, 300, 300, 450, 0.0])
    assert rotated_iou(card, part) < 0.1
    kept = rotated_nms(np.stack([card, part, beside]), np.float32([0.9, 0.5, 0.8]), 0.6)
    assert kept.tolist() == [0, 2]


def test_a_box_spanning_several_cards_loses_its_score_before_the_nms():
    """A ghost box over three times the median card area is demoted (it would suppress the true
    cards under it); cards twice the median (a near hand in perspective) keep their score."""
    from vision.detect import DET_THRESHOLD, OVERSIZED, OVERSIZED_SCORE, demote_oversized

    boxes = np.float32(
        [[100 * k, 100, 60, 90, 0] for k in range(6)] + [[300, 300, 85, 127, 0], [250, 200, 400, 300, 0]]
    )
    scores = np.float32([0.9] * 6 + [0.8, 0.7])
    out = demote_oversized(boxes, scores)
    assert OVERSIZED * 60 * 90 < 400 * 300 and out[7] == np.float32(0.7 * OVERSIZED_SCORE)
    assert np.array_equal(out[:7], scores[:7]) and out.dtype == scores.dtype
    few = scores.copy()
    few[2:7] = DET_THRESHOLD / 2  # three sure boxes tell no card size: nothing changes
    assert np.array_equal(demote_oversized(boxes, few), few)
