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
