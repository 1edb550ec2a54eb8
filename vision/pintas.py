"""The pintas of a card: the breaks in the frame line along its top and bottom edges that tell
the suit in every Spanish deck (oros: no break, copas: one, espadas: two, bastos: three), cut
from the card rectified at :data:`vision.corner_index.INDEX_CROP` (numpy + OpenCV).

The convention is the same in both training designs and in the modern Fournier deck our users
own, unlike the suit signs' drawing, which is why a reader of the strips tells the suit of a
design it never saw far better than the classifier does (models/README.md). The two strips,
the top one and the bottom one turned half a turn, look the same whichever way up the card lies.

    >>> import numpy as np
    >>> img = np.full((960, 1280, 3), 200, np.uint8)
    >>> pinta_strips(img, np.float32([[640, 480, 104, 170, 0.3]])).shape
    (1, 2, 28, 128)
"""

from __future__ import annotations

import numpy as np

from scoring.cards import CARD_IDS, SUITS
from vision.arrays import Floats, Image
from vision.corner_index import INDEX_CROP, standardise
from vision.geometry import crop_cards

STRIP_H = 28  # 15 % of the card's height: the frame line wherever the box puts it, and the index
STRIP_W = INDEX_CROP[0]
# the suit reader's classes are scoring.cards.SUITS (oros, copas, espadas, bastos: no break in the
# frame line, one, two, three), in that order
SUIT_OF = np.array([SUITS.index(c[-1]) for c in CARD_IDS])  # card class -> suit class


def strips_bgr(card: Image) -> Image:
    """The two frame strips (2, STRIP_H, STRIP_W, 3) of one card rectified at INDEX_CROP, or
    (N, 2, STRIP_H, STRIP_W, 3) of N cards (N, ..., 3) at once."""
    return np.stack([card[..., :STRIP_H, :, :], card[..., -STRIP_H:, :, :][..., ::-1, ::-1, :]], axis=-4)


def pinta_strips(image: Image, obbs: Floats) -> Floats:
    """The suit reader's input (N, 2, STRIP_H, STRIP_W) for the cards under oriented boxes."""
    if len(obbs) == 0:
        return np.zeros((0, 2, STRIP_H, STRIP_W), np.float32)
    return standardise(strips_bgr(crop_cards(image, obbs, INDEX_CROP)))
