"""Template matching of cards against the registered deck's faces (vision.templates)."""

from __future__ import annotations

import cv2
import numpy as np
import pytest

from vision.templates import TEMPLATE_H, TEMPLATE_W, stacked, template_patches, template_similarity


def _faces(n=6, seed=0):
    """Card-like faces: a pale card with a few coloured blobs placed differently on each."""
    rng = np.random.default_rng(seed)
    faces = np.full((n, TEMPLATE_H, TEMPLATE_W, 3), 225, np.uint8)
    for f in faces:
        for _ in range(5):
            colour = tuple(int(v) for v in rng.integers(0, 200, 3))
            centre = (int(rng.integers(6, TEMPLATE_W - 6)), int(rng.integers(6, TEMPLATE_H - 6)))
            cv2.circle(f, centre, int(rng.integers(3, 9)), colour, -1)
    return faces


def test_each_face_matches_itself_best():
    faces = _faces()
    t = template_patches(faces)
    s = template_similarity(t, stacked(t), np.arange(len(faces)), len(faces))
    assert s.argmax(1).tolist() == list(range(len(faces)))
    assert np.allclose(np.diag(s), 1, atol=1e-2)


def test_dimmer_warmer_light_and_noise_still_match():
    faces = _faces()
    rng = np.random.default_rng(1)
    lit = faces.astype(np.float32) * 0.6 * np.float32([0.85, 1.0, 1.2]) + 20
    lit = np.clip(lit + rng.normal(0, 6, lit.shape), 0, 255).astype(np.uint8)
    s = template_similarity(template_patches(lit), stacked(template_patches(faces)), np.arange(6), 6)
    assert s.argmax(1).tolist() == list(range(6))


def test_a_partly_hidden_card_still_matches_on_its_visible_part():
    faces = _faces()
    hidden = faces.copy()
    cut = TEMPLATE_H * 2 // 3  # the next card covers the bottom third
    hidden[:, cut:] = faces[(np.arange(6) + 1) % 6, cut:]
    plain = template_similarity(template_patches(hidden), stacked(template_patches(faces)), np.arange(6), 6)
    assert plain.argmax(1).tolist() == list(range(6))
    hidden[:, cut:] = 128  # or something that is no card
    s = template_similarity(template_patches(hidden), stacked(template_patches(faces)), np.arange(6), 6)
    assert s.argmax(1).tolist() == list(range(6))


def test_a_class_takes_its_best_template_and_a_class_without_any_scores_minus_one():
    faces = _faces(4)
    t = template_patches(faces)
    labels = np.array([0, 0, 1, 1])  # two views of each of two cards; class 2 has none
    s = template_similarity(t[[1, 2]], stacked(t), labels, 3)
    assert s.shape == (2, 3) and s.argmax(1).tolist() == [0, 1]
    assert np.allclose(s[:, 2], -1)
    assert template_similarity(t[:0], stacked(t), labels, 3).shape == (0, 3)


def test_wrong_crop_size_is_a_clear_error():
    with pytest.raises(ValueError, match="template crops must be"):
        template_patches(np.zeros((2, 96, 64, 3), np.uint8))
