"""Template matching against the registered deck's own card faces.

The classifier's features name a card of a design it never saw by likeness to the registered
cards, but they were learnt on other designs and blur what tells that design's cards apart
(which object a court holds, one pip more or less). The registered photos are of the very deck
on the table, so its cards are also compared pixel by pixel: each card is cut small (32x48),
blurred a little, split into a 4x6 grid of patches, and each patch is compared by normalised
cross-correlation (mean removed per colour channel in Lab, so a warmer or dimmer light does not
count). A card partly hidden by the next one still matches on its visible patches: a pair of
cards scores the mean of its best KEEP share of patches.

The score is added to the features' similarity with weight TEMPLATE_WEIGHT (vision.registered_deck);
the sizes, blur, share of patches and weight were chosen on 60 validation tables of each
design read by a classifier trained on the other one.

    >>> rng = np.random.default_rng(0)
    >>> faces = rng.integers(0, 255, (3, TEMPLATE_H, TEMPLATE_W, 3), dtype=np.uint8)
    >>> t = template_patches(faces)
    >>> template_similarity(t[[2, 0]], stacked(t), np.array([0, 1, 2]), 3).argmax(1).tolist()
    [2, 0]
"""

from __future__ import annotations

import cv2
import numpy as np

from vision.arrays import Floats, Image, Ints

TEMPLATE_W, TEMPLATE_H = 32, 48  # the card cut this small: fine detail is where boxes disagree
PATCH = 8  # a 4x6 grid of patches
BLUR = 1.0  # Gaussian sigma, in template pixels, against a box a pixel or two off
KEEP = 0.4  # share of best patches that count (the rest may be hidden by another card)


def template_patches(crops: Image) -> Floats:
    """(N, patches, PATCH*PATCH*3) float32: BGR uint8 crops (N, TEMPLATE_H, TEMPLATE_W, 3),
    each patch with its mean taken away per Lab channel and scaled to unit length."""
    crops = np.asarray(crops, np.uint8)
    if crops.ndim != 4 or crops.shape[1:] != (TEMPLATE_H, TEMPLATE_W, 3):
        raise ValueError(f"template crops must be (N, {TEMPLATE_H}, {TEMPLATE_W}, 3), not {crops.shape}")
    n = len(crops)
    lab = np.empty(crops.shape, np.float32)
    for i, c in enumerate(crops):
        lab[i] = cv2.GaussianBlur(cv2.cvtColor(c, cv2.COLOR_BGR2LAB).astype(np.float32), (0, 0), BLUR)
    rows, cols = TEMPLATE_H // PATCH, TEMPLATE_W // PATCH
    x: Floats = lab.reshape(n, rows, PATCH, cols, PATCH, 3).transpose(0, 1, 3, 2, 4, 5)
    x = x.reshape(n, rows * cols, PATCH * PATCH, 3)
    x = x - x.mean(2, keepdims=True)
    x = x.reshape(n, rows * cols, -1)
    x /= np.linalg.norm(x, axis=2, keepdims=True) + 1e-3  # a flat patch stays near zero
    return x


def template_similarity(queries: Floats, templates: Floats, labels: Ints, classes: int) -> Floats:
    """(N, classes): for each query, its best score against the templates of each class; a
    pair's score is the mean correlation of its best KEEP share of patches, in [-1, 1].
    ``templates``: the templates' patches laid out by :func:`stacked` (done once)."""
    if not len(queries):
        return np.full((0, classes), -1.0, np.float32)
    # one matrix product per patch: (patches, N, M)
    s = np.matmul(np.ascontiguousarray(queries.transpose(1, 0, 2)), templates)
    k = max(1, round(KEEP * s.shape[0]))
    best = np.partition(s, s.shape[0] - k, axis=0)[-k:].mean(0)
    return best_per_class(best, labels, classes)


def best_per_class(scores: Floats, labels: Ints, classes: int) -> Floats:
    """(N, classes) from scores (N, M) against M references labelled by class: each class's
    best reference, -1 for a class without any.

    >>> best_per_class(np.array([[0.25, 0.75, 0.5]]), np.array([1, 0, 1]), 3).tolist()
    [[0.75, 0.5, -1.0]]
    """
    out = np.full((len(scores), classes), -1.0, np.float32)
    if not len(scores):
        return out
    order = np.argsort(labels, kind="stable")
    present, starts = np.unique(labels[order], return_index=True)
    out[:, present] = np.maximum.reduceat(scores[:, order], starts, axis=1)
    return out


def stacked(templates: Floats) -> Floats:
    """Template patches (M, patches, d) laid out (patches, d, M) for the matrix products."""
    return np.ascontiguousarray(templates.transpose(1, 2, 0))
