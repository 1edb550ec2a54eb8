"""The kinds of numpy array the card reader passes around, named once (``numpy.typing.NDArray``).

The dtype is the contract the type checker can see; the shape each function expects is in its
docstring (numpy's stubs do not check shapes).
"""

from __future__ import annotations

from typing import Any, TypeAlias

import numpy as np
from numpy.typing import NDArray

Image: TypeAlias = NDArray[np.uint8]  # a photo or a crop: (H, W, 3) BGR, or (H, W) grey
Floats: TypeAlias = NDArray[np.floating[Any]]  # boxes, scores, probabilities, features, network inputs
Ints: TypeAlias = NDArray[np.integer[Any]]  # labels (indices into scoring.cards.CARD_IDS), rows, seats
Mask: TypeAlias = NDArray[np.bool_]  # which rows: the cards flagged, kept, left out
