"""The corner index of a card (its printed rank, ``10``, ``11``, ``12``...): the two patches a
rank reader looks at, cut from the photo at twice the classifier's resolution (numpy + OpenCV).

A Spanish card prints its rank in two opposite corners, so whichever way up the card lies, the
top-left corner of its rectified crop and the bottom-right one turned half a turn both show the
index the same way up. The digits are much the same in every deck design, unlike the courts'
figures, which is why the classifier (trained on two designs) reads a court's rank on a design it
never saw barely better than chance and a reader of the index adds to it (models/README.md).

    >>> import numpy as np
    >>> img = np.full((960, 1280, 3), 200, np.uint8)
    >>> corner_patches(img, np.float32([[640, 480, 104, 170, 0.3]])).shape
    (1, 2, 36, 40)
"""

from __future__ import annotations

import numpy as np

from scoring.cards import CARD_IDS, RANKS
from vision.arrays import Floats, Image
from vision.geometry import crop_cards

INDEX_CROP = (128, 192)  # the card rectified at twice the classifier's 64x96
PATCH_H, PATCH_W = 36, 40  # the corner cut from it: 19 % of the card's height, 31 % of its width
# the rank reader's classes are scoring.cards.RANKS, in that order
RANK_OF = np.array([RANKS.index(int(c[:-1])) for c in CARD_IDS])  # card class -> rank class


def corners_bgr(card: Image) -> Image:
    """The two index corners (2, PATCH_H, PATCH_W, 3) of one card rectified at INDEX_CROP, or
    (N, 2, PATCH_H, PATCH_W, 3) of N cards (N, ..., 3) at once."""
    top_left = card[..., :PATCH_H, :PATCH_W, :]
    bottom_right = card[..., -PATCH_H:, -PATCH_W:, :][..., ::-1, ::-1, :]
    return np.stack([top_left, bottom_right], axis=-4)


def standardise(patches: Image) -> Floats:
    """BGR uint8 patches (..., H, W, 3) -> grey float32 (..., H, W), each patch to zero mean and
    about unit contrast, so that paper colour and light do not matter."""
    return normalise(patches.astype(np.float32) @ np.array([0.114, 0.587, 0.299], np.float32))


def normalise(grey: Image | Floats) -> Floats:
    """Grey patches (..., H, W) to zero mean and about unit contrast each (float32)."""
    g = grey.astype(np.float32)
    mean = g.mean((-2, -1), keepdims=True)
    std = g.std((-2, -1), keepdims=True) + 8
    out: Floats = (g - mean) / std
    return out


def corner_patches(image: Image, obbs: Floats) -> Floats:
    """The rank reader's input (N, 2, PATCH_H, PATCH_W) for the cards under oriented boxes."""
    if len(obbs) == 0:
        return np.zeros((0, 2, PATCH_H, PATCH_W), np.float32)
    return standardise(corners_bgr(crop_cards(image, obbs, INDEX_CROP)))
