"""Stage 2 of reading a photo: each box's card cut out of the photo and warped upright, at the
sizes the next stage's readers take.

- ``crops`` (N, 96, 64, 3): what the card classifier reads;
- ``small`` (N, TEMPLATE_H, TEMPLATE_W, 3) or None: what is matched against a registered
  deck's own faces (:mod:`vision.templates`);
- ``rectified`` (N, 192, 128, 3) or None: the card at twice the classifier's resolution, from
  which the corner-index and pinta readers cut their views.

    >>> import numpy as np
    >>> img = np.full((960, 1280, 3), 200, np.uint8)
    >>> c = cut_out(img, np.float32([[640, 480, 104, 170, 0.3]]), small=True, rectified=False)
    >>> c.crops.shape, c.small.shape, c.rectified is None
    ((1, 96, 64, 3), (1, 48, 32, 3), True)
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from vision.arrays import Floats, Image
from vision.corner_index import INDEX_CROP
from vision.geometry import CROP_H, CROP_W, crop_cards
from vision.templates import TEMPLATE_H, TEMPLATE_W


@dataclass(frozen=True)
class Cutouts:
    """The cards under N boxes, upright, at the readers' sizes (see the module's docstring)."""

    crops: Image
    small: Image | None
    rectified: Image | None

    def __len__(self) -> int:
        return len(self.crops)


def cut_out(image: Image, obbs: Floats, *, small: bool, rectified: bool) -> Cutouts:
    """The cards under the oriented boxes ``obbs`` (N, 5) of a BGR photo; ``small`` and
    ``rectified``: whether to cut those sizes too (only where a reader will use them)."""
    return Cutouts(
        crop_cards(image, obbs, (CROP_W, CROP_H)),
        crop_cards(image, obbs, (TEMPLATE_W, TEMPLATE_H)) if small else None,
        crop_cards(image, obbs, INDEX_CROP) if rectified else None,
    )


def rectified_under(image: Image, obbs: Floats, cut: Floats, rectified: Image | None) -> Image:
    """The cards under ``obbs`` (M, 5) rectified at INDEX_CROP: taken from ``rectified`` (the
    cards already cut under the boxes ``cut`` (N, 5), or None) where a box is one of ``cut``
    (the same warp of the same photo: the same pixels), the others cut from ``image``.

    >>> img = np.random.default_rng(0).integers(0, 255, (480, 640, 3), np.uint8)
    >>> cut = np.float32([[200, 240, 104, 170, 0.3], [400, 240, 104, 170, 0.0]])
    >>> done = crop_cards(img, cut, INDEX_CROP)
    >>> obbs = np.float32([[400, 240, 104, 170, 0.0], [300, 200, 100, 160, 0.1]])
    >>> np.array_equal(rectified_under(img, obbs, cut, done), crop_cards(img, obbs, INDEX_CROP))
    True
    """
    obbs = np.asarray(obbs, np.float32).reshape(-1, 5)
    if rectified is None or len(obbs) == 0 or len(cut) == 0:
        return crop_cards(image, obbs, INDEX_CROP)
    same = (obbs[:, None, :] == np.asarray(cut, np.float32)[None, :, :]).all(2)  # (M, N)
    found = same.any(1)
    out = np.empty((len(obbs), *rectified.shape[1:]), rectified.dtype)
    out[found] = rectified[same.argmax(1)[found]]
    if not found.all():
        out[~found] = crop_cards(image, obbs[~found], INDEX_CROP)
    return out
